/*
 * fuzz_powerfile.c - libFuzzer target for the power meter file reader
 * (src/analysis/energy/powerfile.c).
 *
 * The first byte of the input picks the format (watts at a fixed rate, time and watts, volts
 * and amps with scales, skipped columns); the rest is the file, written to a memfd (the reader
 * takes a path: /proc/self/fd/N). Besides the sanitizers, the target checks the reader's
 * contract and aborts when it is broken:
 *   - success: at least one sample; every power, volt and amp value finite and not negative;
 *     times strictly increasing (or a fixed rate without a time column); the columns as long
 *     as the series;
 *   - for watts alone, every value is what strtod reads from its line, within 1e-15;
 *   - an error is a negative errno with a message "PATH: ..." and, for a line, a line number
 *     within the file; the series is left empty.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_powerfile CORPUS_DIR
 * (tests/e2e/test_fuzz_reader.sh does both for a bounded time).
 */
#include "analysis/energy/powerfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const struct {
	const char *format, *scale;
	double rate;
} formats[] = {
    {"watts", NULL, 20000},	  {"time,watts", NULL, 0},
    {"volts,amps", "2,1", 20000}, {"skip,time,volts,amps", "1,0.5", 0},
    {"amps,skip,volts", NULL, 1}, {"watts,time", "1e3", 0},
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static int fd = -1;
static char path[64];

static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		fprintf(stderr, "fuzz_powerfile: contract broken: %s (err: '%s')\n", what, err);
		abort();
	}
}

/* Watts alone: line by line, the value strtod reads from the one token of each data line. */
static void check_values(const struct power_series *ps, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t i = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512], *s, *e;
		double want;

		if (l >= sizeof(line))
			return; /* a long comment: nothing to compare on this line, skip the rest */
		memcpy(line, p, l);
		line[l] = 0;
		p += l + 1;
		s = line + strspn(line, " \t,");
		if (!*s || *s == '#' || !strcmp(s, "\r"))
			continue;
		want = strtod(s, &e);
		check(e > s, "a data line the reader took has no number", line);
		check(i < ps->n, "more data lines than samples", line);
		check(ps->ch[0].v[i] == want || fabs(ps->ch[0].v[i] - want) <= fabs(want) * 1e-15,
		      "value differs from strtod", line);
		i++;
	}
	check(i == ps->n, "fewer data lines than samples", "");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct power_file_spec spec;
	struct power_series ps;
	char err[512] = "";
	size_t sel, i, nlines = 1;
	int rc;

	if (size < 1)
		return 0;
	if (fd < 0) {
		fd = memfd_create("psc-fuzz-powerfile", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	sel = data[0] % NFORMATS;
	data++;
	size--;
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("memfd");
		abort();
	}
	power_file_spec_init(&spec);
	spec.rate_hz = formats[sel].rate;
	rc =
	    power_file_spec_parse(&spec, formats[sel].format, formats[sel].scale, err, sizeof(err));
	check(rc == 0, "a valid format was refused", err);

	rc = power_file_read(&ps, path, &spec, 1e12, err, sizeof(err));
	for (i = 0; i < size; i++)
		nlines += data[i] == '\n';
	if (rc < 0) {
		size_t plen = strlen(path);
		unsigned long long line;

		check(!strncmp(err, path, plen) && err[plen] == ':', "message without the path",
		      err);
		if (sscanf(err + plen, ": line %llu:", &line) == 1)
			check(line >= 1 && line <= nlines, "line number outside the file", err);
		check(!ps.ch && !ps.n && !ps.t && !ps.cols && !ps.source, "series not empty", err);
		return 0;
	}
	check(rc == 0, "positive return", err);
	check(ps.n >= 1 && ps.n <= nlines, "sample count", "");
	check(ps.nch == 1 && ps.ch[0].v && ps.ch[0].kind == POWER_WATTS && ps.ch[0].advancing,
	      "channel", "");
	check(!strcmp(ps.source, path), "source", ps.source);
	check(!ps.t == (formats[sel].rate > 0), "times or a fixed rate", "");
	for (i = 0; i < ps.n; i++) {
		size_t c;

		check(isfinite(ps.ch[0].v[i]) && ps.ch[0].v[i] >= 0, "power value", "");
		if (ps.t)
			check(isfinite(ps.t[i]) && (i == 0 || ps.t[i] > ps.t[i - 1]), "time order",
			      "");
		for (c = 0; c < ps.ncols; c++)
			check(ps.cols[c].n == ps.n && isfinite(ps.cols[c].v[i]) &&
				  ps.cols[c].v[i] >= 0,
			      "column value", ps.cols[c].name);
	}
	if (sel == 0)
		check_values(&ps, (const char *)data, size);
	power_series_release(&ps);
	return 0;
}
