/*
 * pagewalk.c - touch PAGES fresh anonymous pages, REPS times: exactly PAGES x REPS page faults.
 *
 * Each repetition maps PAGES fresh private anonymous pages, turns transparent huge pages off
 * for them (MADV_NOHUGEPAGE), then writes one byte in each page inside region "walk" and
 * unmaps them. Every first write to a page is one minor page fault, so the region "walk"
 * takes exactly PAGES x REPS page faults. With -t the walk runs in a second thread, whose
 * tid is printed, so the faults belong to that thread. With -s MS the main thread spins MS
 * milliseconds in region "spin" before the walks and again after them, touching no new page:
 * a quiet background for time series (perfscope record --sample, perfscope timeline).
 *
 * Build: cc -O2 -DPERFSCOPE -Iinclude examples/pagewalk.c -o pagewalk -lperfscope -pthread
 * Run:   perfscope record -e page-faults -o out -- ./pagewalk -n 10000
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perfscope.h"

#define DEFAULT_PAGES 10000L
#define DEFAULT_REPS  1L
#define MAX_PAGES     (1L << 30) /* 4 TiB of 4 KiB pages: keeps PAGES x REPS in range */

struct walk {
	long pages;
	long reps;
	size_t page_size;
	int err; /* errno of a failed mmap, 0 on success */
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-n PAGES] [-r REPS] [-t] [-s MS]\n", prog);
}

/* Parse a positive long in [1, max]; return -1 when S is not one. */
static long parse_count(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
		return -1;
	return v;
}

/* One repetition: map fresh pages, touch one byte per page in region "walk", unmap. */
static int walk_once(long pages, size_t page_size)
{
	size_t len = (size_t)pages * page_size;
	volatile char *p;
	long i;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno;
	/* One fault per 4 KiB page only if no huge page backs the range. Ignore failure:
	 * kernels without THP have nothing to turn off. */
	(void)madvise((void *)p, len, MADV_NOHUGEPAGE);

	PSC_REGION_BEGIN("walk");
	for (i = 0; i < pages; i++)
		p[(size_t)i * page_size] = 1;
	PSC_REGION_END("walk");

	munmap((void *)p, len);
	return 0;
}

/* Busy for MS milliseconds in region "spin": CPU time without page faults. */
static void spin(long ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	PSC_REGION_BEGIN("spin");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L < ms);
	PSC_REGION_END("spin");
}

static void *walker(void *arg)
{
	struct walk *w = arg;
	long r;

	printf("walker tid: %ld\n", (long)syscall(SYS_gettid));
	for (r = 0; r < w->reps && w->err == 0; r++)
		w->err = walk_once(w->pages, w->page_size);
	return NULL;
}

int main(int argc, char **argv)
{
	struct walk w = {DEFAULT_PAGES, DEFAULT_REPS, 0, 0};
	int in_thread = 0;
	long max, spin_ms = 0;
	int opt;

	w.page_size = (size_t)sysconf(_SC_PAGESIZE);
	max = (long)(SIZE_MAX / 2 / w.page_size);
	if (max > MAX_PAGES)
		max = MAX_PAGES;

	while ((opt = getopt(argc, argv, ":n:r:ts:h")) != -1) {
		switch (opt) {
		case 'n':
			w.pages = parse_count(optarg, max);
			if (w.pages < 0) {
				fprintf(stderr, "%s: -n needs a page count from 1 to %ld\n",
					argv[0], max);
				usage(argv[0]);
				return 2;
			}
			break;
		case 'r':
			w.reps = parse_count(optarg, INT_MAX);
			if (w.reps < 0) {
				fprintf(stderr, "%s: -r needs a repetition count from 1 to %d\n",
					argv[0], INT_MAX);
				usage(argv[0]);
				return 2;
			}
			break;
		case 't':
			in_thread = 1;
			break;
		case 's':
			spin_ms = parse_count(optarg, 3600000L);
			if (spin_ms < 0) {
				fprintf(stderr, "%s: -s needs milliseconds from 1 to 3600000\n",
					argv[0]);
				usage(argv[0]);
				return 2;
			}
			break;
		case 'h':
			printf("usage: %s [-n PAGES] [-r REPS] [-t] [-s MS]\n", argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		usage(argv[0]);
		return 2;
	}

	printf("pagewalk: %ld repetition(s) of %ld fresh pages of %zu bytes (huge pages off), "
	       "one write per page, in %s\n",
	       w.reps, w.pages, w.page_size, in_thread ? "a second thread" : "the main thread");
	fflush(stdout);
	if (spin_ms)
		spin(spin_ms);

	if (in_thread) {
		pthread_t t;
		int rc = pthread_create(&t, NULL, walker, &w);

		if (rc != 0) {
			fprintf(stderr, "%s: pthread_create: %s\n", argv[0], strerror(rc));
			return 1;
		}
		pthread_join(t, NULL);
	} else {
		long r;

		for (r = 0; r < w.reps && w.err == 0; r++)
			w.err = walk_once(w.pages, w.page_size);
	}
	if (w.err != 0) {
		fprintf(stderr, "%s: mmap of %ld pages: %s\n", argv[0], w.pages, strerror(w.err));
		return 1;
	}
	if (spin_ms)
		spin(spin_ms);

	printf("expected page faults in region walk: %lld\n", (long long)w.pages * w.reps);
	return 0;
}
