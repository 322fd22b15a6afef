/* Profiling target for the before/after differential captures.
 * Usage: diffdemo SECONDS WEIGHT_A WEIGHT_B WEIGHT_C
 * Each round calls parse(), compute() and render() with the given weights,
 * so the "after" capture can spend twice the time in compute(). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink += x;
}

/* The sink++ after each call keeps parse/compute/render on the stack (no
 * tail call into spin). */
__attribute__((noinline)) void parse(int w) { spin(200000UL * w); sink++; }
__attribute__((noinline)) void compute(int w) { spin(200000UL * w); sink++; }
__attribute__((noinline)) void render(int w) { spin(200000UL * w); sink++; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s SECONDS WA WB WC\n", argv[0]);
        return 2;
    }
    double secs = atof(argv[1]);
    int wa = atoi(argv[2]), wb = atoi(argv[3]), wc = atoi(argv[4]);
    double end = now() + secs;
    while (now() < end) {
        parse(wa);
        compute(wb);
        render(wc);
    }
    printf("%lu\n", sink);
    return 0;
}
