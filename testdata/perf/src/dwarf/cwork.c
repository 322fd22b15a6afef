/* Profiling target for the --call-graph dwarf captures (pkg/perf/perfdata):
 * built -O2 with and without -fomit-frame-pointer, so that a DWARF unwinder
 * must read the CFI. mix and step are inlined into their callers; deep
 * recurses; qsort calls back from libc.
 * Usage: cwork [seconds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static inline unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15UL;
	return x ^ (x >> 29);
}

static inline unsigned long step(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = mix(x + i);
	return x;
}

__attribute__((noinline)) unsigned long leaf_hash(unsigned long x)
{
	return step(x, 4000);
}

__attribute__((noinline)) unsigned long deep(int n, unsigned long x)
{
	char pad[64];
	memset(pad, n, sizeof pad);
	if (n == 0)
		return leaf_hash(x + pad[3]);
	return deep(n - 1, mix(x)) + pad[n % 64];
}

static int cmp(const void *a, const void *b)
{
	unsigned long x = mix(*(const unsigned long *)a), y = mix(*(const unsigned long *)b);
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) void sort_some(void)
{
	unsigned long v[2048];
	for (int i = 0; i < 2048; i++)
		v[i] = mix(i * 7919UL);
	qsort(v, 2048, sizeof v[0], cmp);
	sink += v[17];
}

__attribute__((noinline)) void work(void)
{
	sink += deep(20, sink);
	sort_some();
	sink += step(sink, 3000);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	double end = now() + secs;
	while (now() < end)
		work();
	printf("%lu\n", sink);
	return 0;
}
