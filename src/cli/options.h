/*
 * options.h - per-command option tables (git/perf style): each subcommand declares a table of
 * struct option_spec terminated by an OPT_END entry; one parser handles every table and the
 * help text is printed from the same table.
 */
#ifndef PSC_OPTIONS_H
#define PSC_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/strdist.h"
#include "view/view.h"

enum opt_type {
	OPT_END = 0,  /* terminates a table */
	OPT_FLAG,     /* int, set to 1 */
	OPT_STRING,   /* const char *, points into argv (or at optional_default) */
	OPT_INT,      /* long, decimal, range-checked */
	OPT_UINT64,   /* uint64_t, accepts k/M/G binary suffixes */
	OPT_LIST,     /* repeatable and comma-separated: appends into struct opt_list */
	OPT_DURATION, /* uint64_t ns; accepts 100ns 10us 5ms 2s 1.5s, bare number = seconds */
};

/*
 * --sample or --sample=HZ: value only with '=' (or attached, -sHZ). When given bare the
 * `optional_default` text is parsed as the value; without one an OPT_STRING is set to ""
 * and other types are left unchanged.
 */
#define OPT_ARG_OPTIONAL 0x1
/* Parsed normally but left out of the help and of "did you mean" suggestions. */
#define OPT_HIDDEN 0x2

/* Every item is a copy owned by the list (never a pointer into argv); freed by
 * opt_list_release. Zero-initialise before parsing. */
struct opt_list {
	const char **items;
	size_t n, cap;
};

struct option_spec {
	char short_name;       /* 0 if none */
	const char *long_name; /* without leading dashes; NULL if none */
	enum opt_type type;
	void *value;		      /* where to store; NULL to check and discard */
	const char *argname;	      /* "EV,..", "N", ... for help */
	const char *help;	      /* one line */
	unsigned flags;		      /* OPT_ARG_OPTIONAL, OPT_HIDDEN */
	const char *optional_default; /* for OPT_ARG_OPTIONAL */
};

/* Stop at the first operand instead of collecting operands (commands that run CMD). */
#define OPT_STOP_AT_OPERAND 0x1

/*
 * Parse ARGV[0..argc-1] (argv[0] is the first argument after the subcommand name). Accepts
 * -x VAL, -xVAL, --long VAL, --long=VAL, bundled short flags -abc; `--` ends the options.
 * With OPT_STOP_AT_OPERAND parsing stops at the first operand (after `--`, at the argument
 * following it); otherwise operands are collected: argv is reordered so that they follow the
 * options, in their original order. On success returns 0 and sets *optind_out to the index of
 * the first unparsed argument (the first operand). On a usage error returns -EINVAL (-ENOMEM
 * when out of memory) and writes a one-line message into ERR. OPT_LIST values may be partly
 * filled on error: release them either way.
 */
int options_parse(const struct option_spec *specs, unsigned flags, int argc, char **argv,
		  int *optind_out, char *err, size_t errlen);

/* Print "usage: USAGE" (when USAGE is not NULL) and the visible options, aligned, to F. */
void options_usage(FILE *f, const char *usage, const struct option_spec *specs);

/* Free the items of L and reset it to empty. */
void opt_list_release(struct opt_list *l);

/* Parse "100ns", "10us" (or "µs"), "5ms", "2s", "1.5s"; a bare number is seconds. Digits
 * below 1 ns are truncated. Returns 0 or -EINVAL (syntax or overflow). */
int parse_duration_ns(const char *text, uint64_t *ns);

/* Parse a decimal byte count with an optional k/K, m/M or g/G (binary) suffix.
 * Returns 0 or -EINVAL (syntax or overflow). */
int parse_size(const char *text, uint64_t *bytes);

/*
 * The output format of a command from its --csv and --json flags and its --format WORD (NULL
 * when not given: text, csv, json or long), into *OUT: OUT_TEXT when none is given. --csv with
 * --json is left to the command to refuse (it reports OUT_CSV). Returns 0, or -EINVAL with a
 * one-line message in ERR for an unknown WORD or --format given with --csv or --json.
 */
int options_out_format(int csv, int json, const char *word, enum out_format *out, char *err,
		       size_t errlen);

#endif /* PSC_OPTIONS_H */
