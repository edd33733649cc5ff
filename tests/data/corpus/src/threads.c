/*
 * threads.c - regions on two threads, and nested regions, with page-fault counts known in
 * advance.
 *
 * Regions and their counters belong to the thread that runs them. While the main thread
 * touches PAGES fresh pages in region "main-work", a second thread touches 3 x PAGES fresh
 * pages in region "thread-work", at the same time: each region must show only its own
 * thread's faults. Then the main thread runs region "outer", which contains region "inner"
 * 10 times, each touching PAGES / 10 fresh pages: "inner" shows 10 calls, "outer" shows all
 * the faults inclusively and none exclusively. Every first write to a page of a fresh
 * anonymous mapping with huge pages off (MADV_NOHUGEPAGE) is exactly one page fault; the
 * mappings are made outside the regions.
 *
 * Build: cc -O2 -DPERFSCOPE -Iinclude examples/threads.c -o threads -lperfscope -pthread
 * Run:   perfscope record -e page-faults -o out -- ./threads
 *        perfscope report out --by region --tree
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perfscope.h"

#define DEFAULT_PAGES 1000L
#define MAX_PAGES     (1L << 24) /* 64 GiB of 4 KiB pages */
#define INNER_CALLS   10

static size_t page_size;

struct worker {
	long pages;
	long tid;
	int err;
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [PAGES]   (a multiple of %d, default %ld)\n", prog, INNER_CALLS,
		DEFAULT_PAGES);
}

/* Map PAGES fresh anonymous pages with huge pages off; NULL (and errno) on failure. */
static char *map_pages(long pages)
{
	size_t len = (size_t)pages * page_size;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Ignore failure: kernels without THP have nothing to turn off. */
	(void)madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

/* Write one byte in each of PAGES pages from P: one page fault per page. */
static void touch(char *p, long pages)
{
	volatile char *q = p;
	long i;

	for (i = 0; i < pages; i++)
		q[(size_t)i * page_size] = 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char *p;

	w->tid = (long)syscall(SYS_gettid);
	p = map_pages(w->pages);
	if (p == NULL) {
		w->err = errno;
		return NULL;
	}
	PSC_REGION_BEGIN("thread-work");
	touch(p, w->pages);
	PSC_REGION_END("thread-work");
	munmap(p, (size_t)w->pages * page_size);
	return NULL;
}

int main(int argc, char **argv)
{
	long pages = DEFAULT_PAGES, inner;
	struct worker w;
	pthread_t t;
	char *p_main, *p_nest;
	int i, rc;

	if (argc > 2) {
		usage(argv[0]);
		return 2;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		pages = strtol(argv[1], &end, 10);
		if (errno != 0 || end == argv[1] || *end != '\0' || pages < INNER_CALLS ||
		    pages > MAX_PAGES || pages % INNER_CALLS != 0) {
			usage(argv[0]);
			return 2;
		}
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	inner = pages / INNER_CALLS;

	p_main = map_pages(pages);
	p_nest = p_main != NULL ? map_pages(pages) : NULL;
	if (p_nest == NULL) {
		fprintf(stderr, "%s: mmap of %ld pages: %s\n", argv[0], pages, strerror(errno));
		return 1;
	}

	printf("threads: main thread (tid %ld) touches %ld fresh pages in region main-work while "
	       "a second thread touches %ld in region thread-work\n",
	       (long)syscall(SYS_gettid), pages, 3 * pages);
	fflush(stdout);

	w.pages = 3 * pages;
	w.tid = 0;
	w.err = 0;
	rc = pthread_create(&t, NULL, worker_main, &w);
	if (rc != 0) {
		fprintf(stderr, "%s: pthread_create: %s\n", argv[0], strerror(rc));
		return 1;
	}

	PSC_REGION_BEGIN("main-work");
	touch(p_main, pages);
	PSC_REGION_END("main-work");

	pthread_join(t, NULL);
	if (w.err != 0) {
		fprintf(stderr, "%s: mmap of %ld pages: %s\n", argv[0], w.pages, strerror(w.err));
		return 1;
	}
	printf("second thread: tid %ld\n", w.tid);

	printf("nesting: region outer contains %d calls of region inner, %ld fresh pages each\n",
	       INNER_CALLS, inner);
	PSC_REGION_BEGIN("outer");
	for (i = 0; i < INNER_CALLS; i++) {
		PSC_REGION_BEGIN("inner");
		touch(p_nest + (size_t)i * (size_t)inner * page_size, inner);
		PSC_REGION_END("inner");
	}
	PSC_REGION_END("outer");

	munmap(p_main, (size_t)pages * page_size);
	munmap(p_nest, (size_t)pages * page_size);

	printf("region outer: %ld faults inclusive, 0 exclusive; region inner: %d calls of %ld\n",
	       pages, INNER_CALLS, inner);
	printf("expected page faults in region main-work: %ld\n", pages);
	printf("expected page faults in region thread-work: %ld\n", 3 * pages);
	printf("expected page faults in region outer: %ld\n", pages);
	printf("expected page faults in region inner: %ld\n", pages);
	return 0;
}
