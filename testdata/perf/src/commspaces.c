/* Profiling target for the comm-spaces capture: two threads whose names
 * contain spaces and digits ("Worker 2 pool 7", "io 12 [3]").
 * Usage: commspaces SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static double seconds = 2.0;
static volatile unsigned long sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void worker_loop(void) {
    double end = now() + seconds;
    unsigned long x = 7;
    while (now() < end)
        for (int i = 0; i < 100000; i++) x = x * 2862933555777941757UL + 3037000493UL;
    sink += x;
}

static void *worker(void *arg) {
    prctl(PR_SET_NAME, (unsigned long)arg, 0, 0, 0);
    worker_loop();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) seconds = atof(argv[1]);
    pthread_t a, b;
    pthread_create(&a, NULL, worker, "Worker 2 pool 7");
    pthread_create(&b, NULL, worker, "io 12 [3]");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%lu\n", sink);
    return 0;
}
