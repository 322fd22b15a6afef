/* Profiling target of scripts/capture-container: distinct functions a
 * profile shows, for SECONDS, then, with a second argument, waiting to be
 * killed. Usage: ctprog SECONDS [wait] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static long ct_leaf(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s = s * 31 + (i ^ (s >> 3));
	return s;
}

__attribute__((noinline)) long ct_middle(long n) { return ct_leaf(n) + ct_leaf(n / 2); }
__attribute__((noinline)) long ct_outer(long n) { return ct_middle(n) ^ 7; }

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;
	long r = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		r += ct_outer(100000 + (r & 7)); /* not loop-invariant */
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("%ld\n", r);
	fflush(stdout);
	if (argc > 2)
		pause();
	return 0;
}
