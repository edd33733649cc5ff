/* caveats.h - the caveats of a whole experiment that every profile's output states. */
#ifndef PSC_CAVEATS_H
#define PSC_CAVEATS_H

#include "format/experiment.h"

#include <stdio.h>

/*
 * Call FN with one line for each: the recorded command's failing exit status, each event that
 * record could not open ("NAME: REASON", meta.json's "unsupported_events"), per process its
 * recording error and its lost records and bytes, the error of perfscope record's sampler,
 * each damaged file (cut short, empty, missing: experiment.h) once, with what it costs and why
 * when the experiment knows, and each recorded object whose addresses cannot be named (rebuilt
 * or gone since, with no copy in the build-id cache) or that the cache could not keep (a full
 * disk). With PROCESS_ENDS also one line per process that did not end
 * cleanly (for views that do not say it per thread). Every command that reads an experiment
 * states these lines with its output.
 */
void experiment_caveats(const struct experiment *e, int process_ends,
			void (*fn)(void *ctx, const char *line), void *ctx);

/* Whether E lost records, as its caveats say (experiment_caveats): a process's runtime
 * could not write (a full disk) or dropped records, a file is cut short or damaged, a buffer
 * could not be salvaged, samples could not be written. So that an empty report can tell
 * "lost" from "not recorded". */
int experiment_lost_data(const struct experiment *e);

/* Call FN with one line for each kind of live buffer file ST counted: streams completed from
 * them, files that could not be salvaged (and why), files of processes still running or of
 * another host (salvage.h). */
void salvage_caveats(const struct salvage_stats *st, void (*fn)(void *ctx, const char *line),
		     void *ctx);

/* Call FN with the line that FMT and its arguments make (at most 1023 bytes). */
void caveat_say(void (*fn)(void *ctx, const char *line), void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Ways to state caveat lines, as FN for the functions above and the profiles' own lists. */
/* CTX is a FILE: "  ! LINE", under a text report. */
void caveat_text(void *ctx, const char *line);
/* CTX is a struct caveat_block: "  ! LINE" into ctx->f, the first one after an empty line
 * (under a text report that has no caveats section of its own). */
struct caveat_block {
	FILE *f;
	size_t lines; /* said so far */
};
void caveat_block(void *ctx, const char *line);
/* CTX is a FILE (a command's stderr): "perfscope: warning: LINE", next to CSV output. */
void caveat_warning(void *ctx, const char *line);
/* CTX is a struct jsonw inside an array: LINE as a string. */
void caveat_json(void *ctx, const char *line);

#endif /* PSC_CAVEATS_H */
