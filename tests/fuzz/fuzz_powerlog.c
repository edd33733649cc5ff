/*
 * fuzz_powerlog.c - libFuzzer target for the power log reader (src/format/powerlog.c).
 *
 * The input is the file, written to a memfd (the reader takes a path: /proc/self/fd/N).
 * Besides the sanitizers, the target checks the reader's contract and aborts when it is
 * broken:
 *   - success: at least one reading; times strictly increasing; every channel POWER_JOULES,
 *     0 at the first reading, never decreasing, finite, and advancing exactly when it ends
 *     above 0; one power column per channel with n - 1 values;
 *   - an error is a negative errno with a message "PATH: line N: ..." (N within the file plus
 *     one, for "found the end"), and the series is left empty.
 *
 * Build: clang -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Isrc
 *        tests/fuzz/fuzz_powerlog.c src/format/powerlog.c src/format/power.c -lm
 * Run:   ./a.out tests/fuzz/corpus-powerlog
 */
#include "format/powerlog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];

static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		fprintf(stderr, "fuzz_powerlog: contract broken: %s (err: '%s')\n", what, err);
		abort();
	}
}

static void check_series(const struct power_series *ps)
{
	check(ps->n >= 1 && ps->t && ps->source && ps->nch >= 1, "a series with readings", "");
	for (size_t i = 1; i < ps->n; i++)
		check(ps->t[i] > ps->t[i - 1], "times increase", "");
	check(ps->ncols == ps->nch, "one column per channel", "");
	for (size_t c = 0; c < ps->nch; c++) {
		const struct power_channel *ch = &ps->ch[c];

		check(ch->kind == POWER_JOULES && ch->name && ch->v, "a joules channel", "");
		check(ch->v[0] == 0, "energy is 0 at the first reading", "");
		for (size_t i = 1; i < ps->n; i++)
			check(isfinite(ch->v[i]) && ch->v[i] >= ch->v[i - 1],
			      "energy finite and not decreasing", "");
		check(ch->advancing == (ch->v[ps->n - 1] > 0), "advancing when it moved", "");
		check(ps->cols[c].n == ps->n - 1 && !strcmp(ps->cols[c].unit, "W"),
		      "a column of n - 1 powers in W", "");
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct power_series ps;
	char err[512] = "";
	size_t lines = 1;
	int ret;

	if (fd < 0) {
		fd = memfd_create("powerlog", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	memset(&ps, 0x5a, sizeof(ps));
	ret = power_log_read(&ps, path, err, sizeof(err));
	if (ret == 0) {
		check_series(&ps);
		power_series_release(&ps);
		return 0;
	}
	check(ret == -EINVAL || ret == -ENOMEM, "an error is -EINVAL or -ENOMEM", err);
	check(!strncmp(err, path, strlen(path)) && !strncmp(err + strlen(path), ": line ", 7),
	      "the message names the file and the line", err);
	check(strtoul(err + strlen(path) + 7, NULL, 10) >= 1 &&
		  strtoul(err + strlen(path) + 7, NULL, 10) <= lines + 1,
	      "the line is in the file", err);
	check(!ps.ch && !ps.t && !ps.cols && !ps.source && ps.n == 0, "the series is empty", err);
	return 0;
}
