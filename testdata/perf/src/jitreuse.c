/* Profiling target for the JIT-reuse capture (scripts/capture-jitreuse):
 * a tiny "JIT" that reuses its code memory, as V8 and the JVM do. It
 * writes a jitdump (jit-PID.dump, tools/perf/Documentation/
 * jitdump-specification.txt) in the working directory and maps it with
 * PROT_EXEC, so that perf records the marker perf inject --jit looks for;
 * copies the machine code of fn_a into an executable anonymous map,
 * writes its JIT_CODE_LOAD and runs it for a while; then copies fn_b's
 * code to the same address, writes a second JIT_CODE_LOAD there and runs
 * that. Timestamps are CLOCK_MONOTONIC (record with perf record -k mono).
 * Samples of the first half must be named fn_a, those of the second
 * fn_b, though both ran at one address.
 * Build: gcc -O2 -fno-omit-frame-pointer. Usage: jitreuse [seconds per function] */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Each function in a section of its own, whose bounds the linker gives
 * (__start_SECTION, __stop_SECTION): the code to copy. Both are
 * position-independent: no call, no data. */
__attribute__((noinline, section("jit_fn_a"))) unsigned long fn_a(unsigned long n, unsigned long x) {
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

__attribute__((noinline, section("jit_fn_b"))) unsigned long fn_b(unsigned long n, unsigned long x) {
    for (unsigned long i = 0; i < n; i++)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
}

extern const unsigned char __start_jit_fn_a[], __stop_jit_fn_a[];
extern const unsigned char __start_jit_fn_b[], __stop_jit_fn_b[];

static FILE *dump;
static uint64_t code_index;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put(const void *p, size_t n) {
    if (fwrite(p, 1, n, dump) != n) {
        perror("jitreuse: writing the jitdump");
        exit(1);
    }
}

static void open_dump(void) {
    char name[64];
    snprintf(name, sizeof name, "jit-%d.dump", getpid());
    int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0) {
        perror(name);
        exit(1);
    }
    /* The marker: perf records this map, perf inject finds the file by it. */
    if (mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
        perror("jitreuse: mapping the jitdump");
        exit(1);
    }
    dump = fdopen(fd, "w");
    struct {
        uint32_t magic, version, total_size, elf_mach, pad1, pid;
        uint64_t timestamp, flags;
    } h = {0x4A695444, 1, sizeof h, EM_X86_64, 0, (uint32_t)getpid(), now_ns(), 0};
    put(&h, sizeof h);
    fflush(dump);
}

/* code_load writes the JIT_CODE_LOAD record of size bytes of code at addr. */
static void code_load(const char *name, void *addr, uint64_t size) {
    struct {
        uint32_t id, total_size;
        uint64_t timestamp;
        uint32_t pid, tid;
        uint64_t vma, code_addr, code_size, code_index;
    } r = {0, 0, now_ns(), (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid),
           (uintptr_t)addr, (uintptr_t)addr, size, ++code_index};
    r.total_size = sizeof r + strlen(name) + 1 + size;
    put(&r, sizeof r);
    put(name, strlen(name) + 1);
    put(addr, size);
    fflush(dump);
}

typedef unsigned long (*fn)(unsigned long, unsigned long);

static volatile unsigned long sink;

/* run calls code in a loop for secs seconds. */
static void run(void *code, double secs) {
    uint64_t end = now_ns() + (uint64_t)(secs * 1e9);
    unsigned long x = 1;
    while (now_ns() < end)
        x = ((fn)code)(1000000, x);
    sink = x;
}

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    open_dump();
    size_t size_a = __stop_jit_fn_a - __start_jit_fn_a, size_b = __stop_jit_fn_b - __start_jit_fn_b;
    void *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("jitreuse: mapping code");
        return 1;
    }
    memcpy(code, __start_jit_fn_a, size_a);
    code_load("fn_a", code, size_a);
    run(code, secs);
    /* The same memory, other code. */
    memcpy(code, __start_jit_fn_b, size_b);
    code_load("fn_b", code, size_b);
    run(code, secs);
    printf("fn_a: %zu bytes, fn_b: %zu bytes at %p\n", size_a, size_b, code);
    return 0;
}
