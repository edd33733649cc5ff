/* caveats.c - caveats of a whole experiment (caveats.h). */
#include "caveats.h"

#include "../core/jsonw.h"

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

void experiment_caveats(const struct experiment *e, int process_ends,
			void (*fn)(void *ctx, const char *line), void *ctx)
{

	if (e->exit_status > 0) {
		caveat_say(fn, ctx, "the recorded command exited with status %d%s", e->exit_status,
			   e->exit_status == 127  ? " (command not found)"
			   : e->exit_status > 128 ? " (killed by a signal)"
						  : "");
	}
	/* record writes the exit status last, when the command has ended */
	if (e->exit_status < 0 && e->created_by && !strcmp(e->created_by, "perfscope record"))
		caveat_say(fn, ctx,
			   "the recording was cut: perfscope record was killed (or is still "
			   "running), meta.json has no exit status; each process's data ends at "
			   "its last written chunk");
	for (size_t i = 0; i < e->nunsupported; i++)
		caveat_say(fn, ctx, "%s: %s", e->unsupported[i].name, e->unsupported[i].reason);
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct exp_process *pr = &e->procs[i];

		/* exec ends an image cleanly: its streams were written before it went */
		if (process_ends && strcmp(pr->state, "exited") && strcmp(pr->state, "exec")) {
			caveat_say(
			    fn, ctx,
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
				   "process %d: %" PRIu64 " records and %" PRIu64
				   " bytes of chunks lost",
				   (int)pr->pid, pr->lost_records, pr->lost_bytes);
		}
		if (pr->lost_threads)
			caveat_say(fn, ctx,
				   "process %d: %" PRIu64 " thread%s not recorded (the runtime "
				   "could not record %s at all)",
				   (int)pr->pid, pr->lost_threads, pr->lost_threads == 1 ? "" : "s",
				   pr->lost_threads == 1 ? "it" : "them");
	}
	salvage_caveats(&e->salvage, fn, ctx);
}

void salvage_caveats(const struct salvage_stats *st, void (*fn)(void *ctx, const char *line),
		     void *ctx)
{
	if (st->streams)
		caveat_say(fn, ctx,
			   "%u stream%s of processes that ended without closing them (killed, or "
			   "gone through _exit) completed from their buffers now: %" PRIu64
			   " records",
			   st->streams, st->streams == 1 ? "" : "s", st->records);
	if (st->failed)
		caveat_say(fn, ctx,
			   "%u buffer%s of killed processes could not be added to their streams, "
			   "whose last records are missing (%s); perfscope adds them when it can "
			   "write the directory",
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
	fprintf((FILE *)ctx, "  ! %s\n", line);
}

void caveat_warning(void *ctx, const char *line)
{
	fprintf((FILE *)ctx, "perfscope: warning: %s\n", line);
}

void caveat_json(void *ctx, const char *line)
{
	jsonw_string((struct jsonw *)ctx, line);
}
