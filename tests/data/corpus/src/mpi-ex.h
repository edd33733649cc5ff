/*
 * mpi-ex.h - small helpers shared by the MPI examples (header only, no perfscope).
 *
 * Every example exits with 2 and a usage line (from rank 0) on bad arguments, and aborts the
 * job with a message when an MPI call fails (the default error handler already does that).
 */
#ifndef PSC_MPI_EX_H
#define PSC_MPI_EX_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

/* CLOCK_MONOTONIC now, in ns */
static inline int64_t ex_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* sleep ms milliseconds (0: return at once), restarting after signals */
static inline void ex_sleep_ms(double ms)
{
	struct timespec ts;
	int64_t ns = (int64_t)(ms * 1e6);

	if (ns <= 0)
		return;
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* a number in [lo, hi] from s, whole string; -1 when it is not one */
static inline int ex_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

/* a whole number in [lo, hi] from s; -1 when it is not one */
static inline int ex_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/*
 * Marks: a rank notes the CLOCK_MONOTONIC time just before an MPI call (ex_mark) and, with
 * -m PREFIX, writes them to PREFIX.<rank> at the end (ex_marks_write), one line per mark:
 *   WHAT ITER PEER NS
 * so that a test can tell the waits that really happened (ranks on one host share the clock)
 * from the ones the program was asked for, which a busy machine may stretch.
 */
#define EX_MAX_MARKS 4096

struct ex_mark {
	const char *what;
	long iter;
	int peer;
	int64_t ns;
};

static struct ex_mark ex_marks[EX_MAX_MARKS];
static int ex_nmarks;

static inline void ex_mark(const char *what, long iter, int peer)
{
	if (ex_nmarks < EX_MAX_MARKS)
		ex_marks[ex_nmarks++] = (struct ex_mark){what, iter, peer, ex_now_ns()};
}

/* write the marks to PREFIX.<rank> (nothing when prefix is NULL); -1 when it cannot */
static inline int ex_marks_write(const char *prefix, int rank)
{
	char path[4096];
	FILE *f;
	int i;

	if (!prefix)
		return 0;
	snprintf(path, sizeof(path), "%s.%d", prefix, rank);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < ex_nmarks; i++)
		fprintf(f, "%s %ld %d %lld\n", ex_marks[i].what, ex_marks[i].iter, ex_marks[i].peer,
			(long long)ex_marks[i].ns);
	return fclose(f) ? -1 : 0;
}

/* print the usage (rank 0 only), finalize and exit 2 */
static inline void ex_usage_exit(int rank, const char *usage)
{
	if (rank == 0)
		fprintf(stderr, "usage: %s\n", usage);
	MPI_Finalize();
	exit(2);
}

#endif
