/*
 * fuzz_loadlog.c - libFuzzer target for load logs (src/format/loadlog.c, written by the MPI
 * load sampler): the input is a `load.<host>.<pid>` file, read by load_log_read from a memfd
 * and by load_set_read as the only log of a directory in /dev/shm (or /tmp).
 *
 * Besides the sanitizers, the target checks the reader's contract and aborts when it is broken:
 *   - an error is -EINVAL or -ENOMEM with one line "PATH: line N: ..." (N within the file, or
 *     one past it for "the file ends ..."), and the log is zeroed;
 *   - on 0: a host without blanks, a period, at least one rank, ranks distinct and >= 0, pids
 *     > 0; times strictly increasing; the host's share in [0, 1], each rank's >= 0 (or NAN for
 *     '-'); the statistics of every column: min <= mean <= max, all finite, when n > 0;
 *   - load_set_read accepts the file exactly when load_log_read does, with its ranks.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_loadlog tests/fuzz/corpus-loadlog.
 */
#include "format/loadlog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64], dir[64], file[128];

static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		fprintf(stderr, "fuzz_loadlog: contract broken: %s (err: '%s')\n", what, err);
		abort();
	}
}

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

static void check_stats(struct load_stats st)
{
	if (st.n == 0) {
		check(isnan(st.mean) && isnan(st.min) && isnan(st.max), "no samples: NAN", "");
		return;
	}
	check(isfinite(st.mean) && isfinite(st.min) && isfinite(st.max), "finite statistics", "");
	check(st.min <= st.max && st.mean >= st.min * (1 - 1e-12) &&
		  st.mean <= st.max * (1 + 1e-12),
	      "min <= mean <= max", "");
}

static void check_log(const struct load_log *log)
{
	check(log->host && log->host[0] && !strchr(log->host, ' '), "a host without blanks", "");
	check(log->period_ns > 0 && log->nranks >= 1 && log->ranks && log->pids,
	      "a period and ranks", "");
	for (size_t c = 0; c < log->nranks; c++) {
		check(log->ranks[c] >= 0 && log->pids[c] > 0, "a rank >= 0 with a pid > 0", "");
		for (size_t d = 0; d < c; d++)
			check(log->ranks[c] != log->ranks[d], "ranks distinct", "");
	}
	for (size_t i = 0; i < log->nsamples; i++) {
		double h = log->host_busy[i];

		check(i == 0 || log->time_ns[i] > log->time_ns[i - 1], "times increase", "");
		check(isnan(h) || (h >= 0 && h <= 1), "the host's share in [0, 1]", "");
		for (size_t c = 0; c < log->nranks; c++) {
			double s = load_log_share(log, i, c);

			check(isnan(s) || (isfinite(s) && s >= 0), "a rank's share >= 0", "");
		}
	}
	if (log->nsamples) {
		check_stats(load_log_stats(log, log->host_busy, 1));
		for (size_t c = 0; c < log->nranks; c++)
			check_stats(load_log_stats(log, log->share + c, log->nranks));
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct load_log log;
	struct load_set set;
	char err[512] = "", err2[512] = "";
	size_t lines = 0;
	FILE *f;
	int ret, ret2;

	if (fd < 0) {
		fd = memfd_create("loadlog", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		snprintf(dir, sizeof(dir), "%s/psc-fuzz-loadlog-XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(dir))
			abort();
		snprintf(file, sizeof(file), "%s/load.host.1", dir);
		atexit(cleanup);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	memset(&log, 0x5a, sizeof(log));
	ret = load_log_read(&log, path, err, sizeof(err));
	if (ret) {
		const char *at = err + strlen(path);

		check(ret == -EINVAL || ret == -ENOMEM, "an error is -EINVAL or -ENOMEM", err);
		check(!strncmp(err, path, strlen(path)) && !strchr(err, '\n'),
		      "one line naming the file", err);
		check(ret == -ENOMEM ||
			  (!strncmp(at, ": line ", 7) && strtoul(at + 7, NULL, 10) >= 1 &&
			   strtoul(at + 7, NULL, 10) <= lines + 1),
		      "the line is in the file", err);
		check(!log.path && !log.host && !log.ranks && !log.share && !log.nsamples,
		      "the log is zeroed", err);
	} else {
		check_log(&log);
	}

	f = fopen(file, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	ret2 = load_set_read(&set, dir, err2, sizeof(err2));
	check((ret == 0) == (ret2 == 0), "load_set_read accepts what load_log_read accepts", err2);
	if (ret2 == 0) {
		check(set.nlogs == 1 && set.nranks == log.nranks, "the set has the log's ranks",
		      "");
		for (size_t i = 0; i < set.nranks; i++) {
			check(i == 0 || set.ranks[i].rank > set.ranks[i - 1].rank,
			      "ranks sorted, distinct", "");
			check(set.ranks[i].col < log.nranks &&
				  log.ranks[set.ranks[i].col] == set.ranks[i].rank,
			      "a rank's column", "");
		}
		load_set_release(&set);
	} else {
		check(!strncmp(err2, dir, strlen(dir)) && !strchr(err2, '\n'),
		      "the set's error names the file", err2);
	}
	if (ret == 0)
		load_log_release(&log);
	return 0;
}
