/*
 * spin.c - keep one CPU busy with real arithmetic for a given number of seconds.
 *
 * The loop is a chain of dependent integer and floating-point operations (an xorshift
 * generator feeding a running sum) that the compiler cannot remove or shorten; elapsed time
 * is checked with clock_gettime every 2^20 iterations. The whole run is one region "spin".
 * Used by the `stat` benchmark: task-clock should be close to the duration, page faults and
 * context switches few, and the instruction count proportional to the iteration count.
 *
 * Build: cc -O2 -DPERFSCOPE -Iinclude examples/spin.c -o spin -lperfscope
 * Run:   perfscope stat -e task-clock,context-switches,instructions -- ./spin 1.5
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "perfscope.h"

#define DEFAULT_SECONDS 2.0
#define MAX_SECONDS	86400.0
#define CHECK_EVERY	(1UL << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [SECONDS]   (more than 0, at most %.0f, default %.1f)\n", prog,
		MAX_SECONDS, DEFAULT_SECONDS);
}

int main(int argc, char **argv)
{
	double seconds = DEFAULT_SECONDS, t0, elapsed, sum = 0.0;
	uint64_t x = 0x9e3779b97f4a7c15ULL, iters = 0;
	unsigned long k;

	if (argc > 2) {
		usage(argv[0]);
		return 2;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		seconds = strtod(argv[1], &end);
		if (errno != 0 || end == argv[1] || *end != '\0' || !isfinite(seconds) ||
		    seconds <= 0.0 || seconds > MAX_SECONDS) {
			usage(argv[0]);
			return 2;
		}
	}

	printf("spin: %.3f s of arithmetic, time checked every %lu iterations\n", seconds,
	       CHECK_EVERY);
	fflush(stdout);

	PSC_REGION_BEGIN("spin");
	t0 = now_s();
	do {
		for (k = 0; k < CHECK_EVERY; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			sum = sum * 0.999999 + (double)(x >> 11) * 0x1p-53;
		}
		iters += CHECK_EVERY;
		elapsed = now_s() - t0;
	} while (elapsed < seconds);
	PSC_REGION_END("spin");

	printf("iterations: %llu in %.3f s (%.1f M/s), result %.6f\n", (unsigned long long)iters,
	       elapsed, 1e-6 * (double)iters / elapsed, sum);
	return 0;
}
