/* The background of the saturated capture: a stand-in for a training job
 * that keeps every CPU busy. One thread per CPU loops over three phases,
 * forward (50 %), backward (35 %) and optimizer_step (15 %) of each 100 ms
 * step, for SECONDS. Built as an executable named trainer.
 * Usage: trainer SECONDS [THREADS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds = 30.0;
static volatile unsigned long sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long spin(double d, unsigned long x) {
    double end = now() + d;
    while (now() < end)
        for (int i = 0; i < 20000; i++) x = x * 6364136223846793005UL + 1;
    return x;
}

__attribute__((noinline)) static unsigned long forward(unsigned long x) { return spin(0.050, x); }
__attribute__((noinline)) static unsigned long backward(unsigned long x) { return spin(0.035, x); }
__attribute__((noinline)) static unsigned long optimizer_step(unsigned long x) { return spin(0.015, x); }

static void *run(void *arg) {
    (void)arg;
    double end = now() + seconds;
    unsigned long x = 7;
    while (now() < end) {
        x = forward(x);
        x = backward(x);
        x = optimizer_step(x);
    }
    sink += x;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) seconds = atof(argv[1]);
    int n = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    pthread_t t[64];
    for (int i = 1; i < n; i++) pthread_create(&t[i], NULL, run, NULL);
    run(NULL);
    for (int i = 1; i < n; i++) pthread_join(t[i], NULL);
    printf("%lu\n", sink);
    return 0;
}
