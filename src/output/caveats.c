/* caveats.c - caveats of a whole experiment (caveats.h). */
#include "caveats.h"

#include "../core/jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void experiment_caveats(const struct experiment *e, int process_ends,
			void (*fn)(void *ctx, const char *line), void *ctx)
{
	char line[512];

	if (e->exit_status > 0) {
		snprintf(line, sizeof(line), "the recorded command exited with status %d%s",
			 e->exit_status,
			 e->exit_status == 127	? " (command not found)"
			 : e->exit_status > 128 ? " (killed by a signal)"
						: "");
		fn(ctx, line);
	}
	for (size_t i = 0; i < e->nprocs; i++) {
		const struct exp_process *pr = &e->procs[i];

		/* exec ends an image cleanly: its streams were written before it went */
		if (process_ends && strcmp(pr->state, "exited") && strcmp(pr->state, "exec")) {
			snprintf(
			    line, sizeof(line),
			    "process %d did not end cleanly (killed or crashed): its data ends "
			    "at the last written chunk",
			    (int)pr->pid);
			fn(ctx, line);
		}
		if (pr->error[0]) {
			snprintf(line, sizeof(line), "process %d: %s", (int)pr->pid, pr->error);
			fn(ctx, line);
		}
		if (pr->lost_records || pr->lost_bytes) {
			snprintf(line, sizeof(line),
				 "process %d: %" PRIu64 " records and %" PRIu64
				 " bytes of chunks lost",
				 (int)pr->pid, pr->lost_records, pr->lost_bytes);
			fn(ctx, line);
		}
	}
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
