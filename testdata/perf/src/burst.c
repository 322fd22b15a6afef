/* The busy process of the burst capture: spins on every CPU for SECONDS.
 * Built as an executable named flamekit_burst so its comm is distinctive.
 * Usage: flamekit_burst SECONDS [THREADS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds = 2.0;
static volatile unsigned long sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long burst_spin(void) {
    double end = now() + seconds;
    unsigned long x = 3;
    while (now() < end)
        for (int i = 0; i < 50000; i++) x = x * 6364136223846793005UL + 1;
    return x;
}

static void *run(void *arg) {
    (void)arg;
    sink += burst_spin();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) seconds = atof(argv[1]);
    int n = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    pthread_t t[64];
    if (n > 64) n = 64;
    for (int i = 1; i < n; i++) pthread_create(&t[i], NULL, run, NULL);
    run(NULL);
    for (int i = 1; i < n; i++) pthread_join(t[i], NULL);
    printf("%lu\n", sink);
    return 0;
}
