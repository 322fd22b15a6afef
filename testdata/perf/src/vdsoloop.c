/* Profiling target for the vdso capture: clock_gettime and gettimeofday
 * in a loop (served by the vdso, no system call), plus libc calls through
 * the PLT (strlen, memcpy: IRELATIVE ifuncs inside libc).
 * Build: gcc -O1 -g -fno-omit-frame-pointer. Usage: vdsoloop [seconds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void copy_strings(char *dst, const char *src, int n) {
    for (int i = 0; i < n; i++) {
        memcpy(dst, src, 200);
        sink += strlen(dst);
    }
}

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 1.5;
    double end = now() + secs;
    static char a[256], b[256];
    memset(a, 'x', 220);
    while (now() < end) {
        struct timeval tv;
        for (int i = 0; i < 200; i++) {
            gettimeofday(&tv, NULL);
            sink += tv.tv_usec;
        }
        copy_strings(b, a, 50);
    }
    printf("%lu\n", sink % 10);
    return 0;
}
