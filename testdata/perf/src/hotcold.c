// hotcold: one thread that alternates between computing and waiting, for
// stackcollapse --hot-cold (testdata/perf/README.md). Four rounds of
// compute() spinning for 250 ms, then wait_io() sleeping 250 ms: about
// 1 s on CPU and 1 s off CPU, under the thread name "worker".
//
// Build: cc -O1 -g -fno-omit-frame-pointer -pthread -o hotcold hotcold.c
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void compute(double ms) {
	double end = now_ms() + ms;
	unsigned long x = 1;
	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

// A noinline wrapper, so that the frame-pointer unwinder, which skips the
// caller of libc's nanosleep (it saves no frame pointer), keeps wait_io.
__attribute__((noinline)) static int block_nanosleep(const struct timespec *ts) {
	int r = nanosleep(ts, NULL);
	__asm__ volatile("" ::: "memory");
	return r;
}

__attribute__((noinline)) static void wait_io(double ms) {
	struct timespec ts = {0, (long)(ms * 1e6)};
	block_nanosleep(&ts);
}

static void *worker(void *arg) {
	(void)arg;
	prctl(PR_SET_NAME, "worker");
	for (int i = 0; i < 4; i++) {
		compute(250);
		wait_io(250);
	}
	return NULL;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
