/*
 * record-dir.h - the experiment directory of `perfscope record`: made ready before the command
 * runs (created, or with --force the experiment in it moved aside), given up when the command
 * never ran (removed, or the old experiment put back), the old experiment dropped once the
 * command starts, and asked afterwards whether function events landed in it. Nothing here
 * prints: errors come back with one line in the caller's buffer.
 */
#ifndef PSC_RECORD_DIR_H
#define PSC_RECORD_DIR_H

#include <stddef.h>

#include "format/expdir.h"

/*
 * Make DIR ready: create it (*CREATED set), or with FORCE move the experiment in it aside into
 * OLD (expdir.h): an empty directory, or one whose meta.json is an experiment's; nothing else
 * in it is touched. 0, or a negative errno with the cause and the fix in ERR, DIR as it was.
 */
int record_dir_prepare(const char *dir, int force, int *created, struct expdir_stash *old,
		       char *err, size_t errlen);

/* The command never ran: remove DIR when this run CREATED it, so that a retry needs no
 * --force, or put the experiment --force replaces (OLD) back in place. 0, or a negative
 * errno with ERR saying why the old experiment could not be put back. */
int record_dir_abandon(const char *dir, int created, struct expdir_stash *old, char *err,
		       size_t errlen);

/* The command starts: delete the experiment --force replaces. 0, or a negative errno with ERR
 * saying what could not be deleted (only a warning: the recording goes on). */
int record_dir_drop_old(struct expdir_stash *old, char *err, size_t errlen);

/* True when some stream of DIR holds function events (its header's feature bit). */
int record_dir_has_functions(const char *dir);

#endif /* PSC_RECORD_DIR_H */
