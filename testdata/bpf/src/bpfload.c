/* Profiling target for the bpftrace and bcc captures (see ../README.md).
 * Usage: bpfload SECONDS
 * Three threads for SECONDS seconds:
 *   "cpu spin"  burns CPU in outer_loop -> inner_hash, and writes 64 KiB to
 *               /dev/null every few rounds so that some samples are in the
 *               kernel (a thread name with a blank, on purpose);
 *   "pinger"    writes a byte into a pipe and blocks reading the answer;
 *   "ponger"    blocks reading, sleeps 2 ms (nanosleep), answers:
 *               off-CPU time in both, each woken by the other's write. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile int stop;
static int ping[2], pong[2];

__attribute__((noinline)) static void inner_hash(unsigned long n) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink += x;
}

__attribute__((noinline)) static void write_devnull(int fd, const char *buf) {
    if (write(fd, buf, 65536) < 0) perror("write");
    sink++;
}

__attribute__((noinline)) static void outer_loop(void) {
    static char buf[65536];
    int fd = open("/dev/null", O_WRONLY);
    for (unsigned long round = 0; !stop; round++) {
        inner_hash(300000);
        if (round % 4 == 0) write_devnull(fd, buf);
    }
    close(fd);
}

static void *spin_main(void *arg) {
    (void)arg;
    prctl(PR_SET_NAME, "cpu spin");
    outer_loop();
    return NULL;
}

__attribute__((noinline)) static void wait_for_answer(void) {
    char c = 'x';
    if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) stop = 1;
}

static void *pinger_main(void *arg) {
    (void)arg;
    prctl(PR_SET_NAME, "pinger");
    while (!stop) wait_for_answer();
    return NULL;
}

__attribute__((noinline)) static void answer(void) {
    char c;
    if (read(ping[0], &c, 1) != 1) { stop = 1; return; }
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    if (write(pong[1], &c, 1) != 1) stop = 1;
}

static void *ponger_main(void *arg) {
    (void)arg;
    prctl(PR_SET_NAME, "ponger");
    while (!stop) answer();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SECONDS\n", argv[0]);
        return 2;
    }
    if (pipe(ping) || pipe(pong)) { perror("pipe"); return 1; }
    pthread_t t[3];
    pthread_create(&t[0], NULL, spin_main, NULL);
    pthread_create(&t[1], NULL, pinger_main, NULL);
    pthread_create(&t[2], NULL, ponger_main, NULL);
    struct timespec ts = {0, 0};
    double secs = atof(argv[1]);
    ts.tv_sec = (time_t)secs;
    ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
    stop = 1;
    /* Wake both pipe threads so that they see stop. */
    char c = 'q';
    if (write(ping[1], &c, 1) < 0 || write(pong[1], &c, 1) < 0) perror("write");
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf("%lu\n", sink);
    return 0;
}
