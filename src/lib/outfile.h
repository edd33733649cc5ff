/*
 * outfile.h - output files and directories written aside and put in place when complete.
 *
 * Every file perfscope writes where the user said (-o, --force) is first written under a
 * temporary name in the same directory and renamed over the destination only once it is
 * complete: a failure (a full disk, a bad input found halfway, an interrupted run) leaves the
 * destination as it was, and a reader never sees half an output.
 */
#ifndef PSC_OUTFILE_H
#define PSC_OUTFILE_H

#include <limits.h>
#include <stddef.h>

/*
 * Rename FROM (relative to directory FROMFD) to TO (relative to TOFD) unless TO exists:
 * atomically where the file system can (renameat2 RENAME_NOREPLACE, else a hard link), else
 * after checking. 0, or a negative errno (-EEXIST when TO exists).
 */
int rename_noreplace(int fromfd, const char *from, int tofd, const char *to);

/* 1 when the directory PATH has no entries, 0 when it has or cannot be read. */
int dir_empty(const char *path);

/* A file being written aside. */
struct outfile {
	char path[PATH_MAX]; /* the destination: the file named, or the file a symbolic link
				names */
	char tmp[PATH_MAX];  /* DIR/.NAME.XXXXXX being written; "" when written in place */
	int fd;		     /* open for writing; the caller may close it and set it to -1 */
	int force;
};

/*
 * Open a new file to be put at PATH by outfile_commit, in PATH's directory, with PATH's mode
 * and owner when it replaces one (else 0644 less the umask). Without FORCE an existing PATH is
 * refused; with FORCE, so is one this process may not write, and a PATH that exists and is not
 * a regular file (a device, a pipe) is opened and written in place. 0, or a negative errno with the
 * cause in ERR: -EEXIST "PATH exists", else "cannot write PATH: REASON".
 */
int outfile_open(struct outfile *o, const char *path, int force, char *err, size_t errlen);

/* Close O's file (when still open) and put it at its destination. 0, or a negative errno with
 * the cause in ERR: the temporary file is removed and the destination is as it was (-EEXIST:
 * without force, the destination appeared while the output was written). */
int outfile_commit(struct outfile *o, char *err, size_t errlen);

/* Close O's file (when still open) and remove it: the destination stays as it was. */
void outfile_discard(struct outfile *o);

/* A directory's entries being written aside. */
struct outdir {
	char path[PATH_MAX]; /* the destination directory */
	char tmp[PATH_MAX];  /* PATH/.perfscope-new.XXXXXX, where the new entries are written */
	int made;	     /* PATH did not exist: outdir_open made it */
};

/*
 * Make a fresh directory inside PATH (made first when missing) to write the entries of a new
 * output into; outdir_commit moves them into PATH. 0, or a negative errno with "cannot write
 * PATH: REASON" in ERR.
 */
int outdir_open(struct outdir *o, const char *path, char *err, size_t errlen);

/*
 * Move the entries NAMES, in this order, from O's temporary directory into PATH, each replacing
 * the entry of that name. The replaced entries are moved into another directory inside PATH,
 * and RM (the writer's remover: it deletes what the writer writes into a directory, and the
 * directory when that leaves it empty) deletes them once all are in place. When a move fails,
 * the entries moved so far are put back and RM deletes the new ones: PATH is as it was.
 * 0; 1 when the replaced entries held files RM does not know, which are kept in the
 * directory ERR names; or a negative errno with the cause in ERR.
 */
int outdir_commit(struct outdir *o, const char *const *names, size_t n, int (*rm)(const char *dir),
		  char *err, size_t errlen);

/* Delete the new entries with RM, and PATH when outdir_open made it: PATH is as it was. */
void outdir_discard(struct outdir *o, int (*rm)(const char *dir));

#endif /* PSC_OUTFILE_H */
