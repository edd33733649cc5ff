/*
 * synth-exp.h - writing synthetic experiment directories for unit tests: meta and proc files,
 * and streams with the record layout of format.h. Every process uses "clock":"monotonic", so
 * ticks are ns. Included by one test file each (static functions, cmocka assertions).
 */
#ifndef PSC_TEST_SYNTH_EXP_H
#define PSC_TEST_SYNTH_EXP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pmu/clock.h"
#include "format/format.h"

/* The test program's directory, holding one new directory per experiment. */
static char synth_top[64];
static int synth_ndirs;

/* cmocka group setup and teardown: make and remove the top directory. */
static inline int synth_make_top(void **state)
{
	(void)state;
	snprintf(synth_top, sizeof(synth_top), "/tmp/psc-unit-XXXXXX");
	assert_non_null(mkdtemp(synth_top));
	return 0;
}

static inline int synth_remove_top(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", synth_top);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* A new empty experiment directory under the top directory. */
static inline void new_dir(char *dir, size_t len)
{
	snprintf(dir, len, "%s/exp%d", synth_top, synth_ndirs++);
	assert_int_equal(mkdir(dir, 0755), 0);
}

static inline void write_text(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* proc.<pid>.json with the monotonic clock and the given events JSON array. */
static inline void write_proc(const char *dir, int pid, const char *events_json)
{
	char name[64], text[1024];

	snprintf(name, sizeof(name), "proc.%d.json", pid);
	snprintf(text, sizeof(text),
		 "{\"version\":1,\"pid\":%d,\"ppid\":1,\"rank\":-1,\"exe\":\"/bin/test\","
		 "\"state\":\"exited\",\"clock\":\"monotonic\","
		 "\"calibration\":[[\"1000\",\"1000\"]],\"events\":%s,\"paranoid\":2,"
		 "\"lost_records\":0,\"error\":\"\"}",
		 pid, events_json);
	write_text(dir, name, text);
}

/* Records of one stream, as 64-bit words. */
struct words {
	uint64_t w[512];
	size_t n;
};

static inline void w_put(struct words *s, uint64_t v)
{
	assert_true(s->n < 512);
	s->w[s->n++] = v;
}

static inline void w_ext(struct words *s, uint64_t ticks, enum psc_rec_type type, uint32_t arg,
			 const uint64_t *payload, size_t npayload)
{
	w_put(s, psc_word0(ticks, PSC_KIND_EXT));
	w_put(s, psc_ext_word1(type, (uint32_t)(2 + npayload), arg));
	for (size_t i = 0; i < npayload; i++)
		w_put(s, payload[i]);
}

static inline void w_clock(struct words *s, uint64_t ticks)
{
	uint64_t ns = ticks; /* monotonic: ticks are ns */

	w_ext(s, ticks, PSC_REC_CLOCK_SYNC, 0, &ns, 1);
}

/* REGION_DEF: the name, NUL-terminated, zero-padded to 8 bytes. */
static inline void w_def(struct words *s, uint64_t ticks, uint32_t id, const char *name)
{
	uint64_t payload[8];
	size_t len = strlen(name), n = (len + 8) / 8;

	assert_true(n <= 8);
	memset(payload, 0, sizeof(payload));
	memcpy(payload, name, len);
	w_ext(s, ticks, PSC_REC_REGION_DEF, id, payload, n);
}

static inline void w_enter(struct words *s, uint64_t ticks, uint32_t id)
{
	w_ext(s, ticks, PSC_REC_REGION_ENTER, id, NULL, 0);
}

static inline void w_leave(struct words *s, uint64_t ticks, uint32_t id)
{
	w_ext(s, ticks, PSC_REC_REGION_LEAVE, id, NULL, 0);
}

/* A one-group snapshot: nr 1, enabled, running, value. */
static inline void w_enter_snap(struct words *s, uint64_t ticks, uint32_t id, uint64_t enabled,
				uint64_t running, uint64_t value)
{
	const uint64_t snap[] = {1, enabled, running, value};

	w_ext(s, ticks, PSC_REC_REGION_ENTER, id, snap, 4);
}

static inline void w_leave_snap(struct words *s, uint64_t ticks, uint32_t id, uint64_t enabled,
				uint64_t running, uint64_t value)
{
	const uint64_t snap[] = {1, enabled, running, value};

	w_ext(s, ticks, PSC_REC_REGION_LEAVE, id, snap, 4);
}

static inline void w_end(struct words *s, uint64_t ticks)
{
	w_ext(s, ticks, PSC_REC_STREAM_END, PSC_END_EXIT, NULL, 0);
}

/* stream.<pid>.<tid> created in DIR with its header (monotonic clock, rank -1), open for
 * the chunks that follow. */
static inline FILE *synth_stream_create(const char *dir, int pid, int tid)
{
	struct psc_stream_header h;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stream.%d.%d", dir, pid, tid);
	f = fopen(path, "wb");
	assert_non_null(f);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PSC_STREAM_MAGIC, 8);
	h.version = PSC_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.pid = (uint32_t)pid;
	h.tid = (uint32_t)tid;
	h.rank = -1;
	h.clock_source = CLOCK_SOURCE_MONOTONIC;
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	return f;
}

/* stream.<pid>.<tid>: header, then the records in chunks: chunk k ends before word
 * BOUNDS[k] (NBOUNDS boundaries, so NBOUNDS + 1 chunks). */
static inline void write_stream(const char *dir, int pid, int tid, const struct words *s,
				const size_t *bounds, size_t nbounds)
{
	size_t start = 0;
	FILE *f = synth_stream_create(dir, pid, tid);

	for (size_t c = 0; c <= nbounds; c++) {
		size_t end = c < nbounds ? bounds[c] : s->n;
		struct psc_chunk_header ch = {PSC_CHUNK_MAGIC, (uint32_t)((end - start) * 8), c};

		assert_int_equal(fwrite(&ch, sizeof(ch), 1, f), 1);
		if (end > start)
			assert_int_equal(fwrite(s->w + start, 8, end - start, f), end - start);
		start = end;
	}
	assert_int_equal(fclose(f), 0);
}

/* Function enter (or exit) of ADDR. */
static inline void w_call(struct words *s, uint64_t ticks, int enter, uint64_t addr)
{
	w_put(s, psc_word0(ticks, enter ? PSC_KIND_FUNC_ENTER : PSC_KIND_FUNC_EXIT));
	w_put(s, addr);
}

#endif /* PSC_TEST_SYNTH_EXP_H */
