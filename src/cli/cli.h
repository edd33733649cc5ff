/* cli.h - what the subcommands share: their entry points and a few helpers of main.c. */
#ifndef PSC_CLI_H
#define PSC_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "pmu/events.h"
#include "analysis/profile/func-profile.h"
#include "model/symbols.h"
#include "view/func-print.h"
#include "view/region-print.h"
#include "view/sample-print.h"
#include "model/session.h"
#include "cli/options.h"

/* Exit statuses of the CLI contract (docs/internals/design.md, "Errors"). */
#define EXIT_USAGE 2

/* A row of the command table (main.c). Its usage line is made from OPERANDS and the command's
 * option table, so that it cannot name an option the command does not have. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	const char *operands; /* what follows the options: "[DIR]", "-- CMD [ARGS..]" */
};

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_energy(int argc, char **argv);
int cmd_mpi(int argc, char **argv);

/* The experiment directory among CMD's N operands OPS (what follows its options) into *DIR,
 * which is left as it was without one. 0, or -1 after saying that one is taken at a time. */
int cli_operand(const char *cmd, int n, char *const *ops, const char **dir);

/* Print "perfscope CMD: MESSAGE" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse ARGV with SPECS; on a usage error print it (and a hint to --help) and return -1.
 * With HELP set after parsing, print the usage and return 1. 0 otherwise. */
int cli_parse(const char *cmd, const struct option_spec *specs, unsigned flags, int argc,
	      char **argv, int *optind_out, const int *help);

/* Print the usage of CMD from the command table and SPECS. */
void cli_usage(FILE *f, const char *cmd, const struct option_spec *specs);

/* Directories searched for metric groups: PERFSCOPE_METRICS_PATH, next to the executable,
 * the install and build directories. Returns how many were written into DIRS (max 8). */
size_t cli_metric_dirs(const char **dirs, size_t max);

/* Path of libperfscope.so for LD_PRELOAD: next to the perfscope binary (build tree), in
 * ../lib, or in the install directory. 0, or -ENOENT when none is readable. */
int cli_runtime_library(char *path, size_t len);

struct metric_group;
struct perf_state;

/* The metric group used when none is given: "default" where a core PMU exists, else "sw". */
const char *cli_default_group(const struct perf_state *ps);

/* Find and load metric group NAME (a name or a path); prints the cause (file:line for a
 * malformed file) and returns a negative errno on failure. */
int cli_load_group(const char *cmd, const char *name, struct metric_group *g);

/* Resolve LIST; on an unknown or invalid name print the cause with suggestions and return
 * a negative errno. */
int cli_resolve_events(const char *cmd, const char *list, struct event_desc **evs, size_t *n);

/* Resolve the -e lists EVENTS followed by the events of group G (may be NULL), duplicates
 * dropped, into *EVS and *N (0 and NULL when there are none). Prints the cause and
 * returns a negative errno on failure. */
int cli_resolve_event_options(const char *cmd, const struct opt_list *events,
			      const struct metric_group *g, struct event_desc **evs, size_t *n);

/*
 * Open the output file PATH into *OUT: NULL or "-" is stdout. The file is written aside and
 * cli_output_close puts it at PATH (outfile.h): until then, and for good when the command
 * fails, PATH keeps what it held. An existing PATH is refused unless FORCE. 0, or EXIT_USAGE
 * after saying why (PATH exists, or cannot be written).
 */
int cli_output_open(const char *cmd, const char *path, int force, FILE **out);

/*
 * Close F of cli_output_open: with KEEP, put it at its path; without, remove it (the command
 * failed and said why). Returns STATUS (the command's exit status so far), or after saying
 * why, the status of a failure to put the file in place: 1 when writing failed (a full disk),
 * EXIT_USAGE when the path appeared meanwhile (without --force). Stdout is left open.
 */
int cli_output_close(const char *cmd, FILE *f, int keep, int status);

/* How report --by scope --categories is shown (of an experiment or an OTF2 archive). */
struct scope_options {
	int rank; /* MPI_SCOPE_ALL or --rank N */
	int per_rank;
	size_t top;
	int csv, json;
	const char *output;
	int force;
	enum out_format fmt; /* --format (csv and json as --csv and --json) */
};

struct scope_report;
/* Print R (its rank, per_rank and top filled in from SO here) as SO asks, to SO's output.
 * An exit status: 0; 2 when the output cannot be opened (said); 1 when writing failed. */
int report_scopes_write(struct scope_report *r, const struct scope_options *so);

/* The views of a session's profiles as report and html show them: sorted, with their options.
 * The session owns the data (model/session.h). */
struct report {
	struct session *s;
	struct experiment *e; /* the session's */
	struct region_report rr;
	struct func_report fr;
	struct sample_report sr; /* filled when the experiment has samples */
};

/* How report_views shows the profiles (per thread and source lines are the session's
 * options). */
struct report_options {
	const char *sort_key; /* NULL: excl for functions, incl for regions */
	size_t top;
	int64_t min_ns;
	int accuracy; /* samples: estimated against exact totals */
};

/* REP's views of the profiles of S (an archive's: the functions only), built by S as needed
 * and sorted. Prints the cause on failure and returns its negative errno: -ENOMEM, or -EINVAL
 * for an experiment that cannot be read. */
int report_views(struct report *rep, const char *cmd, struct session *s,
		 const struct report_options *opt);

/* The exit status of a negative errno from reading an experiment or building its analyses:
 * 1 out of memory (not the input's fault), else EXIT_USAGE. */
int cli_status(int err);

/* True for a key --sort accepts. */
int report_sort_key_valid(const char *key);

#endif /* PSC_CLI_H */
