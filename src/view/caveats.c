/* caveats.c - caveats of a whole experiment (caveats.h). */
#include "view/caveats.h"

#include "model/objcache.h"
#include "format/format.h"
#include "lib/jsonw.h"
#include "format/layout.h"
#include "lib/textesc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void caveat_say(void (*fn)(void *ctx, const char *line), void *ctx, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fn(ctx, line);
}

/* The cause an error message names, in a few words, when it is one of a full disk's. */
static const char *error_cause(const char *error)
{
	if (strstr(error, strerror(ENOSPC)))
		return "the disk was full";
	if (strstr(error, strerror(EDQUOT)))
		return "the disk quota was exceeded";
	if (strstr(error, strerror(EFBIG)))
		return "the file size limit was reached";
	return NULL;
}

/*
 * Why the damaged file D may be as it is, when the experiment knows, as " (WHY)" in BUF: the
 * cause of the recording error of whoever wrote it (the error itself is a caveat of its own),
 * or that the writer was killed.
 */
static const char *damage_why(const struct experiment *e, const struct exp_damage *d, char *buf,
			      size_t len)
{
	const struct exp_process *pr = d->launcher ? NULL : experiment_process(e, d->pid, d->image);
	const char *error = d->launcher ? e->sampling.error : pr ? pr->error : NULL;
	const char *cause = error && error[0] ? error_cause(error) : NULL;

	buf[0] = 0;
	if (cause)
		snprintf(buf, len, " (%s)", cause);
	else if (error && error[0] && d->launcher)
		snprintf(buf, len, " (see perfscope record's error)");
	else if (error && error[0])
		snprintf(buf, len, " (see process %d's error)", (int)pr->pid);
	else if (d->launcher && e->has_meta && e->exit_status < 0)
		snprintf(buf, len, " (perfscope record did not finish: killed?)");
	else if (pr && !strcmp(pr->state, "running"))
		snprintf(buf, len, " (process %d did not finish: killed?)", (int)pr->pid);
	return buf;
}

/* One line about the damaged file D: what is wrong with it, and what is missing for it. */
static void damage_line(const struct experiment *e, const struct exp_damage *d,
			void (*fn)(void *ctx, const char *line), void *ctx)
{
	char why[1024], what[64];
	const char *file = d->name;
	enum layout_kind kind = layout_parse(file, NULL);
	int stream = kind == LAYOUT_STREAM, samples = kind == LAYOUT_SAMPLES;
	int pmaps = kind == LAYOUT_PMAPS, proc = kind == LAYOUT_PROC;
	const char *lost = stream    ? "the thread's records after it are missing"
			   : samples ? "the samples after it are missing"
				     : "what follows it is missing";

	damage_why(e, d, why, sizeof(why));
	if (d->size)
		snprintf(what, sizeof(what), "holds nothing but blanks (%" PRIu64 " bytes)",
			 d->size);
	else
		snprintf(what, sizeof(what), "empty (0 bytes)");
	switch (d->kind) {
	case EXP_DAMAGE_EMPTY:
		if (proc)
			caveat_say(fn, ctx,
				   "%s: %s: process %d is left out, with its %zu stream%s%s", file,
				   what, (int)d->pid, d->streams_out,
				   d->streams_out == 1 ? "" : "s", why);
		else if (pmaps && d->maps_cover)
			caveat_say(
			    fn, ctx,
			    "%s: %s: samples of process %d are named from the runtime's maps "
			    "alone; libraries loaded after it started show as [unknown]%s",
			    file, what, (int)d->pid, why);
		else if (pmaps)
			caveat_say(
			    fn, ctx,
			    "%s: %s: the samples of process %d cannot be symbolised and show "
			    "as [unknown]%s",
			    file, what, (int)d->pid, why);
		else if (kind == LAYOUT_MAPS)
			caveat_say(fn, ctx,
				   "%s: %s: addresses of process %d are named from its pmaps file "
				   "alone, if any, else shown as [unknown]%s",
				   file, what, (int)d->pid, why);
		else
			caveat_say(fn, ctx, "%s: %s: left out%s", file, what, why);
		break;
	case EXP_DAMAGE_HEADER:
		caveat_say(fn, ctx,
			   "%s: cut at byte %" PRIu64 ", inside its %zu-byte header: left out%s",
			   file, d->at, sizeof(struct psc_stream_header), why);
		break;
	case EXP_DAMAGE_CUT:
		if (d->at == d->size)
			caveat_say(fn, ctx, "%s: nothing after its %" PRIu64 "-byte header: %s%s",
				   file, d->at,
				   stream    ? "the thread's records are missing"
				   : samples ? "the samples are missing"
					     : "its data is missing",
				   why);
		else
			caveat_say(fn, ctx, "%s: cut at byte %" PRIu64 " of %" PRIu64 ": %s%s",
				   file, d->at, d->size, lost, why);
		break;
	case EXP_DAMAGE_UNENDED:
		caveat_say(fn, ctx, "%s: no end record after byte %" PRIu64 ": %s%s", file, d->at,
			   lost, why);
		break;
	case EXP_DAMAGE_JSON_CUT:
		caveat_say(fn, ctx,
			   "%s: cut at byte %" PRIu64 ": process %d is left out, with its %zu "
			   "stream%s%s",
			   file, d->at, (int)d->pid, d->streams_out, d->streams_out == 1 ? "" : "s",
			   why);
		break;
	case EXP_DAMAGE_MISSING:
		caveat_say(fn, ctx,
			   "%s: missing (and no maps.%d): the samples of process %d cannot be "
			   "symbolised and show as [unknown]%s",
			   file, (int)d->pid, (int)d->pid, why);
		break;
	}
}

/* How the recorded command ended, when not with status 0, and a recording that was cut. */
static void exit_caveats(const struct experiment *e, void (*fn)(void *ctx, const char *line),
			 void *ctx)
{
	if (e->exit_signal > 0) {
		const char *abbrev = sigabbrev_np(e->exit_signal);

		caveat_say(fn, ctx,
			   "the recorded command was killed by %s%s (signal %d, status %d)",
			   abbrev ? "SIG" : "a signal", abbrev ? abbrev : "", e->exit_signal,
			   e->exit_status);
	} else if (e->exit_status > 0) {
		/* an experiment of an older record, without exit_signal, cannot tell 128 + N from
		 * an exit code */
		caveat_say(fn, ctx, "the recorded command exited with status %d%s", e->exit_status,
			   e->exit_status == 127 ? " (command not found)"
			   : e->exit_status > 128 && e->exit_signal < 0
			       ? " (killed by a signal, or its own exit code)"
			       : "");
	}
	/* record writes the exit status last, when the command has ended */
	if (e->exit_status < 0 && e->created_by && !strcmp(e->created_by, "perfscope record"))
		caveat_say(fn, ctx,
			   "the recording was cut: perfscope record was killed (or is still "
			   "running), meta.json has no exit status; each process's data ends at "
			   "its last written chunk");
}

/* What process image PR's proc file says went wrong: an unclean end (with PROCESS_ENDS), its
 * clock, its error, what it lost or folded. */
static void process_caveats(const struct exp_process *pr, int process_ends,
			    void (*fn)(void *ctx, const char *line), void *ctx)
{
	/* exec ends an image cleanly: its streams were written before it went */
	if (process_ends && strcmp(pr->state, "exited") && strcmp(pr->state, "exec")) {
		caveat_say(fn, ctx,
			   "process %d did not end cleanly (killed, crashed, or still running "
			   "when record finished): its data ends at its last record that reached "
			   "the experiment",
			   (int)pr->pid);
	}
	if (pr->clock_note[0])
		caveat_say(fn, ctx, "process %d: %s", (int)pr->pid, pr->clock_note);
	if (pr->error[0]) {
		caveat_say(fn, ctx, "process %d: %s", (int)pr->pid, pr->error);
	}
	if (pr->lost_records || pr->lost_bytes) {
		caveat_say(fn, ctx,
			   "process %d: %" PRIu64 " records and %" PRIu64 " bytes of chunks lost",
			   (int)pr->pid, pr->lost_records, pr->lost_bytes);
	}
	if (pr->lost_threads)
		caveat_say(fn, ctx,
			   "process %d: %" PRIu64 " thread%s not recorded (the runtime "
			   "could not record %s at all)",
			   (int)pr->pid, pr->lost_threads, pr->lost_threads == 1 ? "" : "s",
			   pr->lost_threads == 1 ? "it" : "them");
	if (pr->regions_folded)
		caveat_say(fn, ctx,
			   "process %d: %" PRIu64 " region boundaries of names past the "
			   "1,048,575th are counted together, under one region named "
			   "\"[regions past the 1048575th name]\"",
			   (int)pr->pid, pr->regions_folded);
	if (pr->region_names_cut)
		caveat_say(fn, ctx,
			   "process %d: %" PRIu64 " region name%s longer than 1024 bytes cut to "
			   "%s first 1024 (names that agree that far are one region)",
			   (int)pr->pid, pr->region_names_cut, pr->region_names_cut == 1 ? "" : "s",
			   pr->region_names_cut == 1 ? "its" : "their");
}

void experiment_caveats(const struct experiment *e, int process_ends,
			void (*fn)(void *ctx, const char *line), void *ctx)
{
	exit_caveats(e, fn, ctx);
	for (size_t i = 0; i < e->nunsupported; i++)
		caveat_say(fn, ctx, "%s: %s", e->unsupported[i].name, e->unsupported[i].reason);
	for (size_t i = 0; i < e->nprocs; i++)
		process_caveats(&e->procs[i], process_ends, fn, ctx);
	if (e->sampling.error && e->sampling.error[0])
		caveat_say(fn, ctx, "perfscope record: %s", e->sampling.error);
	if (e->sampling.guessed)
		caveat_say(
		    fn, ctx,
		    "meta.json has no \"sampling\" object (perfscope record did not finish): "
		    "the %zu sampled events are called event0 to event%zu",
		    e->sampling.nevents, e->sampling.nevents ? e->sampling.nevents - 1 : 0);
	for (size_t i = 0; i < e->ndamaged; i++)
		damage_line(e, &e->damaged[i], fn, ctx);
	objects_caveats(e->objects, e->nobjects, fn, ctx);
	salvage_caveats(&e->salvage, fn, ctx);
}

int experiment_lost_data(const struct experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct exp_process *pr = &e->procs[i];

		if (pr->error[0] || pr->lost_records || pr->lost_bytes || pr->lost_threads)
			return 1;
	}
	return e->ndamaged || e->salvage.failed || (e->sampling.error && e->sampling.error[0]);
}

void salvage_caveats(const struct salvage_stats *st, void (*fn)(void *ctx, const char *line),
		     void *ctx)
{
	if (st->streams)
		caveat_say(fn, ctx,
			   "%u stream%s of processes that ended without closing them (killed, "
			   "gone through _exit, or stopped by a failed write) completed from their "
			   "buffers now: %" PRIu64 " records",
			   st->streams, st->streams == 1 ? "" : "s", st->records);
	if (st->failed)
		caveat_say(
		    fn, ctx,
		    "%u buffer%s of streams left open could not be added to them, whose last "
		    "records are missing (%s); perfscope adds them when it can write the "
		    "directory",
		    st->failed, st->failed == 1 ? "" : "s", st->error);
	if (st->alive)
		caveat_say(fn, ctx,
			   "%u thread%s of processes still running: their last records are not in "
			   "the streams yet",
			   st->alive, st->alive == 1 ? "" : "s");
	if (st->foreign)
		caveat_say(fn, ctx,
			   "%u buffer%s of processes of another host: their last records are added "
			   "when perfscope reads the experiment on that host",
			   st->foreign, st->foreign == 1 ? "" : "s");
}

void caveat_text(void *ctx, const char *line)
{
	fprintf((FILE *)ctx, "  ! %s\n", text_safe(line));
}

void caveat_block(void *ctx, const char *line)
{
	struct caveat_block *b = ctx;

	if (!b->lines++)
		fputc('\n', b->f);
	caveat_text(b->f, line);
}

void caveat_warning(void *ctx, const char *line)
{
	fprintf((FILE *)ctx, "perfscope: warning: %s\n", text_safe(line));
}

void caveat_json(void *ctx, const char *line)
{
	jsonw_string((struct jsonw *)ctx, line);
}
