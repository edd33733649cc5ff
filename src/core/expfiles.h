/*
 * expfiles.h - the names of the files in an experiment directory (docs/format.md, "Files"),
 * built and recognised in one place: whatever lists, reads or removes an experiment's files
 * asks expfile_parse what a name is, so that a user's stream.c or maps.txt next to them is
 * never taken for one.
 */
#ifndef PSC_EXPFILES_H
#define PSC_EXPFILES_H

#include <stddef.h>

/* What a directory entry of an experiment is, by its name alone. */
enum expfile_kind {
	EXPFILE_NONE = 0,     /* no name perfscope writes into an experiment */
	EXPFILE_META,	      /* meta.json */
	EXPFILE_META_TMP,     /* .meta.json.tmp (record), meta.json.tmp<writer> (the runtime) */
	EXPFILE_PROC,	      /* proc.<pid>[.<image>].json */
	EXPFILE_PROC_TMP,     /* proc.<pid>[.<image>].json.tmp<writer> */
	EXPFILE_STREAM,	      /* stream.<pid>.<tid>[.<image>] */
	EXPFILE_MAPS,	      /* maps.<pid>[.<image>] */
	EXPFILE_PMAPS,	      /* pmaps.<pid>[.<image>] */
	EXPFILE_SAMPLES,      /* samples.<pid> */
	EXPFILE_KALLSYMS,     /* kallsyms */
	EXPFILE_KALLSYMS_TMP, /* kallsyms.tmp */
	EXPFILE_POWER,	      /* power.rapl, power.perf, power.meter */
	EXPFILE_LOAD,	      /* load.<host>.<pid> */
	EXPFILE_LIVE,	      /* live.<pid>.<image>.<slot>: a thread's buffer, kept after a kill */
};

/* The power logs' sources: power.<source>. */
enum expfile_power { EXPFILE_POWER_RAPL, EXPFILE_POWER_PERF, EXPFILE_POWER_METER };

/*
 * A name taken apart, or the parts of one to build. Numbers are decimal without sign or
 * leading zero; pids and tids are 1 to INT_MAX. An image of 0 (the process's first program)
 * has no suffix; the other images are 1 to UINT_MAX. Only the fields of KIND are used.
 */
struct expfile {
	enum expfile_kind kind;
	int pid;	/* PROC, PROC_TMP, STREAM, MAPS, PMAPS, SAMPLES, LOAD, LIVE */
	int tid;	/* STREAM */
	unsigned image; /* PROC, PROC_TMP, STREAM, MAPS, PMAPS, LIVE */
	unsigned slot;	/* LIVE */
	int writer;	/* META_TMP and PROC_TMP of the runtime: the writing process; 0 for
			 * record's .meta.json.tmp */
	enum expfile_power power; /* POWER */
	const char *host;	  /* LOAD: the host, as the name spells it (not NUL-terminated) */
	size_t hostlen;
};

/* What NAME (a directory entry, no '/') is; F (may be NULL) receives its parts (HOST points
 * into NAME). EXPFILE_NONE for every name perfscope does not write into an experiment. */
enum expfile_kind expfile_parse(const char *name, struct expfile *f);

/* The name of F into BUF of LEN bytes: its length, or -1 when F is not a valid name (a field
 * out of range, a host with '/', ' ' or ',') or BUF is too small. expfile_parse of the result
 * gives F back. */
int expfile_name(const struct expfile *f, char *buf, size_t len);

#endif /* PSC_EXPFILES_H */
