/* caveats.c - caveats of a whole experiment (caveats.h). */
#include "caveats.h"

#include "../analysis/objcache.h"
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
	for (size_t i = 0; i < e->nunsupported; i++)
		caveat_say(fn, ctx, "%s: %s", e->unsupported[i].name, e->unsupported[i].reason);
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct exp_process *pr = &e->procs[i];

		/* exec ends an image cleanly: its streams were written before it went */
		if (process_ends && strcmp(pr->state, "exited") && strcmp(pr->state, "exec")) {
			caveat_say(
			    fn, ctx,
			    "process %d did not end cleanly (killed or crashed): its data ends "
			    "at the last written chunk",
			    (int)pr->pid);
		}
		if (pr->error[0]) {
			caveat_say(fn, ctx, "process %d: %s", (int)pr->pid, pr->error);
		}
		if (pr->lost_records || pr->lost_bytes) {
			caveat_say(fn, ctx,
				   "process %d: %" PRIu64 " records and %" PRIu64
				   " bytes of chunks lost",
				   (int)pr->pid, pr->lost_records, pr->lost_bytes);
		}
	}
	objects_caveats(e->objects, e->nobjects, fn, ctx);
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
