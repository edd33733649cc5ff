/*
 * experiment-int.h - the parts of reading an experiment directory (experiment.h), shared by
 * the files that do it: its JSON files read with their numbers checked (experiment-json.c),
 * meta.json (experiment-meta.c), the proc files and the clock fits (experiment-proc.c), the
 * directory's listing (experiment-list.c), the checks of the stream and samples files
 * (experiment-streams.c) and the list of damaged files (experiment-damage.c). Not for use
 * outside src/format.
 */
#ifndef PSC_EXPERIMENT_INT_H
#define PSC_EXPERIMENT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "format/experiment.h"
#include "format/layout.h"
#include "format/stream.h"

/* ---- JSON files (experiment-json.c) ------------------------------------------------------ */

/*
 * Parse the JSON file PATH. NULL with a message in ERR and *RET set: -ENOENT and the like,
 * -ENOMEM when the parse ran out of memory, or -EINVAL for text that is not JSON. When CUT is
 * not NULL, a text that is blank or stops short (the parser ran out of text: a file cut by a
 * full disk or a kill) sets *CUT to 1 and *AT to the length of its text instead of being
 * called invalid (*RET is then -ENODATA).
 */
cJSON *exp_read_json_cut(const char *path, char *err, size_t errlen, int *ret, int *cut,
			 uint64_t *at);

/* exp_read_json_cut() without telling a cut text from invalid JSON. */
cJSON *exp_read_json(const char *path, char *err, size_t errlen, int *ret);

/* A JSON file's numbers as they are read: the first one out of its C type's range is a defect,
 * said in ERR ("PATH: "KEY" is V, ..."), and the file is refused (RET). */
struct jfile {
	const char *path;
	char *err;
	size_t errlen;
	int ret;
};

/* The values a number may have, LO <= V < HI (truncated, it fits its type), and their name. */
#define R_INT	 -2147483648.0, 2147483648.0, "a 32-bit integer"
#define R_U32	 0.0, 4294967296.0, "an unsigned 32-bit integer"
#define R_U64	 0.0, 18446744073709551616.0, "an unsigned 64-bit integer"
#define R_NS	 0.0, 9223372036854775808.0, "a time from 0 to 2^63 ns"
#define R_SIGNAL 0.0, 128.0, "a signal number (0 to 127)"
#define R_REAL	 -1.7976931348623157e308, 1.7976931348623157e308, "a number"

/* The number V (member KEY) when it is one in [LO, HI) (WHAT names that range, one of the R_
 * macros), DFLT when V is not a number; out of range, DFLT with F's error set. */
double exp_num_at(struct jfile *f, const cJSON *v, const char *key, double lo, double hi,
		  const char *what, double dflt);

/* exp_num_at() on member KEY of the object J. */
double exp_get_num(struct jfile *f, const cJSON *j, const char *key, double lo, double hi,
		   const char *what, double dflt);

/* F's error is out of memory (unless it has one already). */
void exp_jfile_oom(struct jfile *f);

/* A copy of S, or NULL with F's error out of memory. */
char *exp_jdup(struct jfile *f, const char *s);

/* A copy of the string member KEY of J ("" when it is not a string), or NULL with F's error out
 * of memory. */
char *exp_dup_str(struct jfile *f, const cJSON *j, const char *key);

/* Copies of the strings of the array ARR (an object's "name" for an object, "" for anything
 * else), *N of them, NULL-terminated; NULL with F's error out of memory. */
char **exp_dup_str_array(struct jfile *f, const cJSON *arr, size_t *n);

/* Release the N strings of A and A (NULL: nothing). */
void exp_free_str_array(char **a, size_t n);

/* A tick or ns count V (member KEY): written as a decimal string, for a double would round
 * values above 2^53; a number is taken too. */
uint64_t exp_json_u64(struct jfile *f, const cJSON *v, const char *key);

/* ---- the files read (experiment-meta.c, experiment-proc.c) -------------------------------- */

/* meta.json of E->dir into E (none: 0 and E->has_meta 0). 0, or a negative errno with the
 * message in ERR. */
int exp_meta_load(struct experiment *e, char *err, size_t errlen);

/*
 * The proc file NAME of E->dir into the next of E->procs (room for it made by the caller). A
 * file that is empty or whose text stops short is listed as damaged and left out. 0, or a
 * negative errno with the message in ERR.
 */
int exp_proc_load(struct experiment *e, const char *name, char *err, size_t errlen);

/* Fit each process's clock from its pairs (clock_fit_checked); without two distinct pairs,
 * the only one (or none) is trusted with a unit slope. */
void exp_fit_clocks(struct experiment *e);

/* ---- the directory (experiment-list.c, experiment-streams.c) ------------------------------ */

/*
 * List E->dir: its proc files read (exp_proc_load), its stream and samples files into E's
 * lists, its empty maps and pmaps files listed as damaged. 0, or a negative errno with the
 * message in ERR.
 */
int exp_list_dir(struct experiment *e, char *err, size_t errlen);

/*
 * The streams sorted by process, image and thread, each given its process and scanned: the
 * clock pairs of its chunks added to its process's, a file cut short or empty listed as
 * damaged (and left out when it has no whole header, or when its proc file was left out). 0,
 * or a negative errno with the message in ERR (a stream without its proc file: -EINVAL).
 */
int exp_streams_check(struct experiment *e, char *err, size_t errlen);

/*
 * The samples files: cut short or without their end record (damage); the command's pmaps
 * file missing; and when meta.json has no "sampling" (the launcher was killed before the
 * command ended), event names made from the first file's header. 0 or -ENOMEM.
 */
int exp_samples_check(struct experiment *e);

/* ---- damaged files (experiment-damage.c) -------------------------------------------------- */

/* Add the damaged file NAME to E's list: the entry, or NULL when out of memory. */
struct exp_damage *exp_damage_add(struct experiment *e, const char *name, enum exp_damage_kind kind,
				  uint64_t size, uint64_t at);

/* The size of the file NAME of DIR, and whether it exists (0 when it does not). */
uint64_t exp_file_size(const char *dir, const char *name, int *exists);

/* The damaged proc file of image IMAGE of PID (PID -1: any), or NULL. */
struct exp_damage *exp_damaged_proc(const struct experiment *e, pid_t pid, unsigned image);

/*
 * A stream or samples file of SIZE bytes shorter than its header: listed as damaged, with the
 * process it belongs to. 1 listed (leave it out), 0 not short, -ENOMEM.
 */
int exp_short_file(struct experiment *e, const char *path, uint64_t size, pid_t pid, unsigned image,
		   int launcher);

/* What the chunk scan X of a stream or samples file says about its end, listed as damage.
 * HEADER: the size of its header. 0 or -ENOMEM. */
int exp_scan_damage(struct experiment *e, const char *path, const struct stream_extent *x,
		    uint64_t header, pid_t pid, unsigned image, int launcher);

/* The maps or pmaps file F named NAME, when it has 0 bytes, listed as damaged. 0 or -ENOMEM. */
int exp_maps_damage(struct experiment *e, const char *name, const struct layout_file *f);

/* E's damaged files sorted by name. */
void exp_damage_sort(struct experiment *e);

#endif /* PSC_EXPERIMENT_INT_H */
