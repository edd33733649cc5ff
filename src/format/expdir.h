/*
 * expdir.h - an experiment directory as a whole: whether it holds an experiment, and replacing
 * that experiment (record --force) so that nothing is lost when it cannot be done. Only the
 * files layout.h names are ever moved or removed, and only in a directory whose meta.json is
 * a perfscope experiment's.
 */
#ifndef PSC_EXPDIR_H
#define PSC_EXPDIR_H

#include <limits.h>
#include <stddef.h>

/*
 * Whether DIR/meta.json is a perfscope experiment's: a JSON object with "format":
 * "perfscope-experiment", a numeric "version" and a string "created_by", as record and the
 * runtime write it. 1 yes; 0 no, with the cause in ERR ("DIR/meta.json: byte N: invalid JSON",
 * "... not a perfscope experiment's ..."); a negative errno when it cannot be read (-ENOENT
 * when there is none), with the cause in ERR.
 */
int expdir_is_experiment(const char *dir, char *err, size_t errlen);

/* The old experiment's files while a new one takes their place. */
struct expdir_stash {
	char dir[PATH_MAX]; /* the experiment directory */
	char name[32];	    /* ".perfscope-old.XXXXXX" in it, holding the old files; "" none */
	char **files;	    /* the files moved there */
	size_t nfiles;
};

/*
 * Make DIR ready for a new experiment without deleting anything yet: when it holds an
 * experiment, move every file of it (layout.h) into a new hidden directory inside DIR, which
 * expdir_restore puts back and expdir_drop deletes. An empty DIR needs nothing. Anything else
 * in DIR stays where it is. 0; or a negative errno with the cause in ERR, DIR as it was:
 * -ENOTEMPTY DIR is not empty and holds no experiment (no meta.json, or not an experiment's),
 * -EEXIST an entry with an experiment file's name is not a regular file, else a file that
 * cannot be moved (permissions, an immutable file, a read-only file system).
 */
int expdir_stash(struct expdir_stash *s, const char *dir, char *err, size_t errlen);

/*
 * The new experiment did not start: remove the experiment files written into S's directory
 * since expdir_stash (a new meta.json ...) and move the old ones back; nothing for an S that
 * expdir_stash did not fill (zeroed, or a failed stash). 0, or a negative errno
 * with the cause in ERR (the files that could not be moved back stay in the hidden directory
 * ERR names).
 */
int expdir_restore(struct expdir_stash *s, char *err, size_t errlen);

/* The new experiment started: delete the old files for good. 0, or a negative errno with the
 * cause in ERR (what is left, and where). */
int expdir_drop(struct expdir_stash *s, char *err, size_t errlen);

/* Release S's memory (after expdir_restore or expdir_drop, or when nothing was stashed). */
void expdir_stash_release(struct expdir_stash *s);

/* Remove the files of an experiment in DIR (layout.h), nothing else, without looking at
 * meta.json: for a directory this run made. 0, or the first failure's negative errno. */
int expdir_clear(const char *dir);

#endif /* PSC_EXPDIR_H */
