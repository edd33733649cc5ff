/*
 * layout.h - the names of the files in an experiment directory (docs/format.md, "Files"),
 * built and recognised in one place. Every writer (the runtime, the MPI runtime, record and
 * its sampler and power and load logs, salvage) builds its file names here, and whatever
 * lists, reads or removes an experiment's files asks layout_parse what a name is, so that a
 * user's stream.c or maps.txt next to them is never taken for one.
 *
 * The builders take no lock, allocate nothing and call no stdio: the runtime calls them from
 * its fork and exit paths and the salvage of a killed process's buffers.
 */
#ifndef PSC_LAYOUT_H
#define PSC_LAYOUT_H

#include <stddef.h>

/* The directory `record --force` keeps the old files in while it replaces an experiment: a
 * mkdtemp template, inside the experiment directory. */
#define LAYOUT_STASH_TEMPLATE ".perfscope-old.XXXXXX"

/* What a directory entry of an experiment is, by its name alone. */
enum layout_kind {
	LAYOUT_NONE = 0,     /* no name perfscope writes into an experiment */
	LAYOUT_META,	     /* meta.json */
	LAYOUT_META_TMP,     /* .meta.json.tmp (record), meta.json.tmp<writer> (the runtime) */
	LAYOUT_PROC,	     /* proc.<pid>[.<image>].json */
	LAYOUT_PROC_TMP,     /* proc.<pid>[.<image>].json.tmp<writer> */
	LAYOUT_STREAM,	     /* stream.<pid>.<tid>[.<image>] */
	LAYOUT_MAPS,	     /* maps.<pid>[.<image>] */
	LAYOUT_PMAPS,	     /* pmaps.<pid>[.<image>] */
	LAYOUT_SAMPLES,	     /* samples.<pid> */
	LAYOUT_KALLSYMS,     /* kallsyms */
	LAYOUT_KALLSYMS_TMP, /* kallsyms.tmp */
	LAYOUT_POWER,	     /* power.rapl, power.perf, power.meter */
	LAYOUT_LOAD,	     /* load.<host>.<pid> */
	LAYOUT_LIVE,	     /* live.<pid>.<image>.<slot>: a thread's buffer, kept after a kill */
};

/* The power logs' sources: power.<source>. */
enum layout_power { LAYOUT_POWER_RAPL, LAYOUT_POWER_PERF, LAYOUT_POWER_METER };

/*
 * A name taken apart, or the parts of one to build. Numbers are decimal without sign or
 * leading zero; pids and tids are 1 to INT_MAX. An image of 0 (the process's first program)
 * has no suffix; the other images are 1 to UINT_MAX. Only the fields of KIND are used.
 */
struct layout_file {
	enum layout_kind kind;
	int pid;		 /* PROC, PROC_TMP, STREAM, MAPS, PMAPS, SAMPLES, LOAD, LIVE */
	int tid;		 /* STREAM */
	unsigned image;		 /* PROC, PROC_TMP, STREAM, MAPS, PMAPS, LIVE */
	unsigned slot;		 /* LIVE */
	int writer;		 /* META_TMP and PROC_TMP of the runtime: the writing process; 0 for
				  * record's .meta.json.tmp */
	enum layout_power power; /* POWER */
	const char *host;	 /* LOAD: the host, as the name spells it (not NUL-terminated) */
	size_t hostlen;
};

/* What NAME (a directory entry, no '/') is; F (may be NULL) receives its parts (HOST points
 * into NAME). LAYOUT_NONE for every name perfscope does not write into an experiment. */
enum layout_kind layout_parse(const char *name, struct layout_file *f);

/*
 * The name of F into BUF of LEN bytes, NUL-terminated: its length; -EINVAL when F is not a
 * valid name (a field out of range, a host with '/', ' ' or ','), -ENAMETOOLONG when BUF is
 * too small. layout_parse of the result gives F back. Async-signal-safe.
 */
int layout_name(const struct layout_file *f, char *buf, size_t len);

/* "DIR/NAME" of F into BUF of LEN bytes, as layout_name (DIR is used as it is). */
int layout_path(const char *dir, const struct layout_file *f, char *buf, size_t len);

/*
 * The temporary file WRITER writes F under before renaming it into place: meta.json's
 * (WRITER 0: record's .meta.json.tmp), a proc file's (WRITER a pid), kallsyms's (WRITER
 * unused). LAYOUT_NONE for the other kinds, which are written in place.
 */
struct layout_file layout_tmp(const struct layout_file *f, int writer);

#endif /* PSC_LAYOUT_H */
