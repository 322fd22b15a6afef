// allocs: calls malloc with known sizes from named functions, for
// stackcollapse --weight size on a probe_libc:malloc capture
// (testdata/perf/README.md):
//
//   small_allocs()  1000 x malloc(64)     =    64,000 bytes
//   big_allocs()      10 x malloc(1 MiB)  = 10,485,760 bytes
//
// The calls go through alloc_one(): a probe at malloc's first instruction
// runs before malloc saves the frame pointer, so the frame-pointer unwinder
// misses malloc's direct caller; it is alloc_one, and the stacks keep
// small_allocs and big_allocs.
//
// Build: cc -O1 -g -fno-omit-frame-pointer -o allocs allocs.c
#include <stdlib.h>

static void *keep[2000];
static int n;

__attribute__((noinline)) static void alloc_one(size_t size) {
	keep[n++] = malloc(size);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void small_allocs(void) {
	for (int i = 0; i < 1000; i++)
		alloc_one(64);
}

__attribute__((noinline)) static void big_allocs(void) {
	for (int i = 0; i < 10; i++)
		alloc_one(1 << 20);
}

int main(void) {
	small_allocs();
	big_allocs();
	for (int i = 0; i < n; i++)
		free(keep[i]);
	return 0;
}
