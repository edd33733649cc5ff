/*
 * test_samples_cut.c - a samples file cut anywhere still reads (issue "Trust": a killed
 * `record --sample`, a full disk). The launcher's writer (sample-out.h) makes a small samples
 * file of four chunks whose samples are known; then the file is cut at every byte offset, and
 * at each one the experiment opens, the samples walk reads exactly the samples of the whole
 * chunks before the cut, and the experiment's damage list names the file with the right kind
 * and offset: empty, cut inside its header (left out), cut at the start of the chunk that was
 * cut short (or at byte 64 when no chunk is whole), or whole chunks without the end record.
 * The same again with a meta.json that has no "sampling" object (the launcher was killed before
 * it wrote one): the events get placeholder names from the samples file's header.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view/caveats.h"
#include "model/experiment-open.h"
#include "format/format.h"
#include "record/sample-out.h"
#include "analysis/profile/samples.h"

#define ROOT	100
#define NCHUNKS 4

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	assert_int_equal(tmpdir_make(tmpdir, sizeof(tmpdir), "samples-cut"), 0);
	return 0;
}

static int remove_tmpdir(void **state)
{
	(void)state;
	assert_int_equal(tmpdir_remove(tmpdir), 0);
	return 0;
}

/* The whole file, and where its chunks end. */
struct whole {
	unsigned char *bytes;
	size_t size;
	size_t end[NCHUNKS];	   /* file size after chunk k was written */
	uint64_t samples[NCHUNKS]; /* samples in chunk k */
};

static void sample(struct sample_out *o, uint64_t ns, uint64_t n)
{
	uint64_t p[8] = {(uint64_t)ROOT | (uint64_t)ROOT << 32, 0x1000, 0, 2, n, n, n, n};

	assert_int_equal(sample_out_add(o, ns, PSC_REC_SAMPLE, 0, p, 8), 0);
}

static size_t file_bytes(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

static void write_meta(const char *dir, int sampling)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	if (sampling)
		fprintf(f, "{\"version\": 1, \"sampling\": {\"frequency\": 1000, \"inherit\": "
			   "true, \"events\": [{\"name\": \"cpu-clock\", \"state\": \"group\"}, "
			   "{\"name\": \"page-faults\", \"state\": \"group\"}]}}\n");
	else
		fprintf(f, "{\"version\": 1}\n");
	assert_int_equal(fclose(f), 0);
}

/*
 * DIR with meta.json, pmaps.ROOT and a samples file of NCHUNKS chunks written by the launcher's
 * writer, each chunk written as the drain thread writes it: the group and 3 samples, 5 samples,
 * 2 samples and an exec, the totals and the end record.
 */
static void make_whole(const char *dir, struct whole *w)
{
	static const uint64_t per_chunk[NCHUNKS] = {3, 5, 2, 0};
	uint64_t members[2] = {0, 1}, totals[6] = {0}, t = 1000, end = 0, comm[2];
	struct sample_out *o;
	char path[256];
	FILE *f;

	assert_int_equal(mkdir(dir, 0755), 0);
	write_meta(dir, 1);
	snprintf(path, sizeof(path), "%s/pmaps.%d", dir, ROOT);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "1000-2000 r-xp 00000000 00:00 0 /bin/true\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(sample_out_open(&o, dir, ROOT, 2, 0), 0);
	assert_int_equal(sample_out_add(o, t, PSC_REC_SAMPLE_GROUP, 0, members, 2), 0);
	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	for (size_t k = 0; k < NCHUNKS; k++) {
		for (uint64_t i = 0; i < per_chunk[k]; i++) {
			t += 10;
			sample(o, t, t);
		}
		if (k == 2) {
			comm[0] = (uint64_t)ROOT | (uint64_t)ROOT << 32;
			memcpy(&comm[1], "true\0\0\0", 8);
			assert_int_equal(
			    sample_out_add(o, t += 10, PSC_REC_TASK, PSC_TASK_EXEC, comm, 2), 0);
		}
		if (k == NCHUNKS - 1) {
			assert_int_equal(
			    sample_out_add(o, t += 10, PSC_REC_SAMPLE_TOTALS, 2, totals, 6), 0);
			assert_int_equal(
			    sample_out_add(o, t += 10, PSC_REC_STREAM_END, PSC_END_EXIT, &end, 0),
			    0);
		}
		assert_int_equal(sample_out_flush(o, UINT64_MAX), 0);
		assert_int_equal(sample_out_sync(o, UINT64_MAX), 0);
		w->end[k] = file_bytes(path);
		w->samples[k] = per_chunk[k];
		assert_true(k == 0 || w->end[k] > w->end[k - 1]);
	}
	assert_int_equal(sample_out_close(o), 0);
	w->size = file_bytes(path);
	assert_int_equal(w->size, w->end[NCHUNKS - 1]);
	w->bytes = malloc(w->size);
	assert_non_null(w->bytes);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(w->bytes, 1, w->size, f), w->size);
	fclose(f);
}

/* The damage the experiment must list for the samples file cut to LEN bytes. */
static void expected(const struct whole *w, size_t len, int *kind, uint64_t *at, uint64_t *samples)
{
	size_t k = 0;

	*samples = 0;
	while (k < NCHUNKS && w->end[k] <= len)
		*samples += w->samples[k++];
	if (len == 0) {
		*kind = EXP_DAMAGE_EMPTY;
		*at = 0;
	} else if (len < sizeof(struct psc_stream_header)) {
		*kind = EXP_DAMAGE_HEADER;
		*at = len;
	} else if (len == w->size) {
		*kind = -1; /* whole: no damage */
	} else if (k && len == w->end[k - 1]) {
		*kind = EXP_DAMAGE_UNENDED;
		*at = len;
	} else {
		*kind = EXP_DAMAGE_CUT; /* the chunk after the last whole one, or none at all */
		*at = k ? w->end[k - 1] : sizeof(struct psc_stream_header);
	}
}

static int count_sample(void *ctx, const struct sample *s)
{
	(void)s;
	++*(uint64_t *)ctx;
	return 0;
}

struct lines {
	char buf[4096];
	size_t len;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s\n", line);
}

/* Cut the samples file of DIR to every length in turn and read the experiment each time. */
static void cut_everywhere(const char *dir, const struct whole *w, int guessed)
{
	char path[256], err[512];

	snprintf(path, sizeof(path), "%s/samples.%d", dir, ROOT);
	for (size_t len = 0; len <= w->size; len++) {
		struct experiment e;
		struct sample_walk sw;
		struct lines l = {.len = 0};
		uint64_t want_samples, at = 0, seen = 0;
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), kind;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, w->bytes, len), (ssize_t)len);
		close(fd);
		expected(w, len, &kind, &at, &want_samples);
		if (experiment_open(&e, dir, err, sizeof(err)))
			fail_msg("cut at %zu: %s", len, err);
		if (kind < 0) {
			assert_int_equal(e.ndamaged, 0);
		} else {
			if (e.ndamaged != 1)
				fail_msg("cut at %zu: %zu damaged files", len, e.ndamaged);
			assert_string_equal(e.damaged[0].name, "samples.100");
			if (e.damaged[0].kind != (enum exp_damage_kind)kind ||
			    e.damaged[0].at != at)
				fail_msg("cut at %zu: damage %d at %llu, want %d at %llu", len,
					 (int)e.damaged[0].kind,
					 (unsigned long long)e.damaged[0].at, kind,
					 (unsigned long long)at);
			assert_int_equal(e.damaged[0].size, len);
			assert_true(e.damaged[0].launcher);
		}
		/* a file without a whole header is left out, any other is read */
		assert_int_equal(e.nsamples, len >= sizeof(struct psc_stream_header));
		assert_int_equal(e.has_sampling, !guessed || e.nsamples);
		assert_int_equal(e.sampling.guessed, guessed && e.nsamples);
		if (e.has_sampling) {
			assert_int_equal(e.sampling.nevents, 2);
			assert_string_equal(e.sampling.events[1],
					    guessed ? "event1" : "page-faults");
		}
		if (e.nsamples && samples_walk(&e, &sw, count_sample, &seen, err, sizeof(err)))
			fail_msg("cut at %zu: %s", len, err);
		if (seen != want_samples)
			fail_msg("cut at %zu: %llu samples, want %llu", len,
				 (unsigned long long)seen, (unsigned long long)want_samples);
		if (e.nsamples) {
			assert_int_equal(sw.ended, len == w->size);
			sample_walk_release(&sw);
		}
		experiment_caveats(&e, 1, collect, &l);
		if (kind >= 0 && !strstr(l.buf, "samples.100: "))
			fail_msg("cut at %zu: no caveat names the file: %s", len, l.buf);
		if (kind == EXP_DAMAGE_CUT) {
			char want[128];

			if (at == len)
				snprintf(want, sizeof(want),
					 "samples.100: nothing after its %llu-byte header: ",
					 (unsigned long long)at);
			else
				snprintf(want, sizeof(want),
					 "samples.100: cut at byte %llu of %zu: ",
					 (unsigned long long)at, len);
			if (!strstr(l.buf, want))
				fail_msg("cut at %zu: no line '%s' in: %s", len, want, l.buf);
		}
		experiment_release(&e);
	}
}

static void test_cut_everywhere(void **state)
{
	char dir[128];
	struct whole w = {0};

	(void)state;
	snprintf(dir, sizeof(dir), "%s/cut", tmpdir);
	make_whole(dir, &w);
	/* four whole chunks after the 64-byte header, the samples known */
	assert_true(w.end[0] > sizeof(struct psc_stream_header));
	cut_everywhere(dir, &w, 0);
	free(w.bytes);
}

static void test_cut_everywhere_without_sampling(void **state)
{
	char dir[128];
	struct whole w = {0};

	(void)state;
	snprintf(dir, sizeof(dir), "%s/guess", tmpdir);
	make_whole(dir, &w);
	write_meta(dir, 0);
	cut_everywhere(dir, &w, 1);
	free(w.bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cut_everywhere),
	    cmocka_unit_test(test_cut_everywhere_without_sampling),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
