// offcpu: threads that block for a known time in named functions, for the
// off-CPU accuracy test of stackcollapse --off-cpu (testdata/perf/README.md).
//
//   sleeper  sleep_100ms()  20 x nanosleep(100 ms)               (state S)
//   piper    wait_pipe()    12 x read() of a pipe the feeder     (state S)
//                           thread writes to every 150 ms
//   diskio   write_fsync()  fsync() after writing 1 MiB, 10 x    (state D)
//            to FILE (argv[1], on a real disk, not tmpfs)
//
// Each thread measures the time it spent off CPU inside its blocking calls:
// the wall time of each call (CLOCK_MONOTONIC) less the CPU time the thread
// used during it (CLOCK_THREAD_CPUTIME_ID; fsync works on the CPU too).
// main prints, at the end:
//
//   measured sleeper sleep_100ms off 2001.234 ms wall 2001.300 ms
//
// The blocking calls go through noinline wrappers (block_*): libc's system
// call wrappers save no frame pointer, so a frame-pointer unwinder skips
// their caller, which is then the wrapper and not the named function.
//
// Build: cc -O1 -g -fno-omit-frame-pointer -pthread -o offcpu offcpu.c
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// A measure of the time spent in blocking calls.
struct blocked {
	double wall, off;
};

static __thread double t0, c0; // per thread: start() and stop() bracket one call

static void start(void) {
	t0 = now_ms();
	c0 = cpu_ms();
}

static void stop(struct blocked *b) {
	double wall = now_ms() - t0;
	b->wall += wall;
	b->off += wall - (cpu_ms() - c0);
}

static int pipefd[2];
static const char *diskfile;
static struct blocked slept, piped, synced;

#define GATE __attribute__((noinline)) static
GATE int block_nanosleep(const struct timespec *ts) {
	int r = nanosleep(ts, NULL);
	__asm__ volatile("" ::: "memory");
	return r;
}
GATE ssize_t block_read(int fd, void *buf, size_t n) {
	ssize_t r = read(fd, buf, n);
	__asm__ volatile("" ::: "memory");
	return r;
}
GATE int block_fsync(int fd) {
	int r = fsync(fd);
	__asm__ volatile("" ::: "memory");
	return r;
}

__attribute__((noinline)) static void sleep_100ms(void) {
	struct timespec ts = {0, 100 * 1000 * 1000};
	start();
	block_nanosleep(&ts);
	stop(&slept);
}

static void *sleeper(void *arg) {
	(void)arg;
	prctl(PR_SET_NAME, "sleeper");
	for (int i = 0; i < 20; i++)
		sleep_100ms();
	return NULL;
}

__attribute__((noinline)) static void wait_pipe(void) {
	char c;
	start();
	if (block_read(pipefd[0], &c, 1) != 1)
		abort();
	stop(&piped);
}

static void *piper(void *arg) {
	(void)arg;
	prctl(PR_SET_NAME, "piper");
	for (int i = 0; i < 12; i++)
		wait_pipe();
	return NULL;
}

static void *feeder(void *arg) {
	(void)arg;
	prctl(PR_SET_NAME, "feeder");
	struct timespec ts = {0, 150 * 1000 * 1000};
	for (int i = 0; i < 12; i++) {
		nanosleep(&ts, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			abort();
	}
	return NULL;
}

__attribute__((noinline)) static void write_fsync(int fd, const char *buf, size_t n) {
	if (write(fd, buf, n) != (ssize_t)n)
		abort();
	start();
	if (block_fsync(fd) != 0)
		abort();
	stop(&synced);
}

static void *diskio(void *arg) {
	(void)arg;
	prctl(PR_SET_NAME, "diskio");
	size_t n = 1 << 20;
	char *buf = malloc(n);
	memset(buf, 'f', n);
	int fd = open(diskfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		abort();
	for (int i = 0; i < 10; i++)
		write_fsync(fd, buf, n);
	close(fd);
	unlink(diskfile);
	free(buf);
	return NULL;
}

int main(int argc, char **argv) {
	diskfile = argc > 1 ? argv[1] : "offcpu.tmp";
	if (pipe(pipefd) != 0)
		return 1;
	pthread_t t[4];
	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, piper, NULL);
	pthread_create(&t[2], NULL, feeder, NULL);
	pthread_create(&t[3], NULL, diskio, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("measured sleeper sleep_100ms off %.3f ms wall %.3f ms\n", slept.off, slept.wall);
	printf("measured piper wait_pipe off %.3f ms wall %.3f ms\n", piped.off, piped.wall);
	printf("measured diskio write_fsync off %.3f ms wall %.3f ms\n", synced.off, synced.wall);
	return 0;
}
