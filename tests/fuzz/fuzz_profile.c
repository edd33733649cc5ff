/*
 * fuzz_profile.c - libFuzzer target for what the commands do with a stream: the input is the
 * stream file of a fixed one-process experiment (proc.1000.json with two events), read by
 * experiment_open (which scans every chunk's clock record) and region_profile_build (region
 * matching, counter snapshots), then merged over threads; then `perfscope info` (text and
 * JSON) and `perfscope dump` run on it, writing to /dev/null. The reader rejects malformed
 * streams; this target checks that what it accepts never crashes the analysis or the
 * commands, and that every error is one line naming the stream file (exit status 2).
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_profile CORPUS_DIR.
 */
#include "model/experiment-open.h"
#include "analysis/profile/regions.h"
#include "format/stream.h"
#include "cli/cli.h"
#include "fuzz-one-cpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 1000
/*
 * Known defect, reported: region_profile_build sizes arrays by the largest region id, so one
 * id near 2^32 asks for tens of GiB. Inputs with ids above this are left out until it is
 * fixed, so that the fuzzer looks for other defects.
 */
#define KNOWN_ID_LIMIT (1u << 20)

struct target {
	char dir[64];
	char stream[128];
	char cli_err[1024]; /* the last cli_error message */
	int ncli_err;
};

static struct target *target_get(void);

/* At exit: leave no directory behind. */
static void target_remove(void)
{
	struct target *t = target_get();
	char path[128];

	snprintf(path, sizeof(path), "%s/proc.%d.json", t->dir, PID);
	unlink(path);
	unlink(t->stream);
	rmdir(t->dir);
}

static struct target *target_get(void)
{
	static struct target t = {"", "", "", 0};
	static const char proc[] =
	    "{\"version\":1,\"pid\":1000,\"ppid\":1,\"rank\":-1,\"exe\":\"/bin/fuzz\","
	    "\"state\":\"exited\",\"clock\":\"tsc\",\"calibration\":[[\"1000\",\"500\"],"
	    "[\"3000\",\"1500\"]],\"events\":[{\"name\":\"page-faults\"},{\"name\":\"cycles\"}],"
	    "\"lost_records\":0,\"error\":\"\"}";
	char path[128];
	FILE *f;

	if (t.dir[0])
		return &t;
	snprintf(t.dir, sizeof(t.dir), "%s/psc-fuzz-profile-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(t.dir))
		abort();
	snprintf(path, sizeof(path), "%s/proc.%d.json", t.dir, PID);
	f = fopen(path, "w");
	if (!f || fputs(proc, f) < 0 || fclose(f))
		abort();
	snprintf(t.stream, sizeof(t.stream), "%s/stream.%d.%d", t.dir, PID, PID);
	atexit(target_remove);
	return &t;
}

/* True when the stream holds a region record with an id of KNOWN_ID_LIMIT or more. */
static int has_huge_region_id(const char *path)
{
	struct stream_reader r;
	struct stream_record rec;
	char err[512];
	int huge = 0;

	if (stream_open(&r, path, err, sizeof(err)))
		return 0;
	while (!huge && stream_next(&r, &rec, err, sizeof(err)) > 0)
		huge = rec.kind == PSC_KIND_EXT && rec.type <= PSC_REC_REGION_LEAVE &&
		       rec.arg >= KNOWN_ID_LIMIT;
	stream_close(&r);
	return huge;
}

/* The helpers of src/cli/main.c the commands use (main.c itself has main()). */
void cli_error(const char *cmd, const char *fmt, ...)
{
	struct target *t = target_get();
	va_list ap;

	(void)cmd;
	va_start(ap, fmt);
	vsnprintf(t->cli_err, sizeof(t->cli_err), fmt, ap);
	va_end(ap);
	t->ncli_err++;
}

int cli_parse(const char *cmd, const struct option_spec *specs, unsigned flags, int argc,
	      char **argv, int *optind_out, const int *help)
{
	char err[256];

	(void)cmd;
	(void)help;
	if (options_parse(specs, flags, argc, argv, optind_out, err, sizeof(err)) < 0)
		abort(); /* the arguments are fixed */
	return 0;
}

/* main.c's: the commands get one directory */
int cli_operand(const char *cmd, int n, char *const *ops, const char **dir)
{
	(void)cmd;
	if (n != 1)
		abort(); /* the arguments are fixed */
	*dir = ops[0];
	return 0;
}

int cli_output_open(const char *cmd, const char *path, int force, FILE **out)
{
	(void)cmd;
	(void)force;
	*out = fopen(path, "w");
	return *out ? 0 : 2;
}

int cli_output_close(const char *cmd, FILE *f, int keep, int status)
{
	(void)cmd;
	(void)keep;
	fclose(f);
	return status;
}

/* Run a command on the experiment: it must succeed, or fail with exit 2 and one message
 * naming the stream. */
static void run_command(struct target *t, int (*fn)(int, char **), const char *name,
			const char *flag)
{
	char *argv[] = {(char *)name, t->dir, "-o", "/dev/null", "--force", (char *)flag, NULL};
	int argc = flag ? 6 : 5, ret;

	t->ncli_err = 0;
	ret = fn(argc, argv);
	if (ret == 0 && t->ncli_err == 0)
		return;
	if (ret != 2 || t->ncli_err != 1 || strncmp(t->cli_err, t->stream, strlen(t->stream))) {
		fprintf(stderr, "fuzz_profile: perfscope %s exited %d after %d errors: '%s'\n",
			name, ret, t->ncli_err, t->cli_err);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_one_cpu();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target *t = target_get();
	struct experiment e;
	struct region_profile p, merged;
	char err[1024] = "";
	FILE *f = fopen(t->stream, "w");
	int ret;

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	if (has_huge_region_id(t->stream))
		return 0;
	ret = experiment_open(&e, t->dir, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "fuzz_profile: experiment_open failed: %s\n", err);
		abort(); /* the directory is fixed: only the stream varies */
	}
	ret = region_profile_build(&p, &e, err, sizeof(err));
	if (ret) {
		if (strncmp(err, t->stream, strlen(t->stream)) || strchr(err, '\n')) {
			fprintf(stderr, "fuzz_profile: error does not name the stream: '%s'\n",
				err);
			abort();
		}
	} else if (region_profile_merge_threads(&p, &merged) == 0) {
		for (size_t i = 0; i < merged.nrows; i++) {
			uint64_t v;

			for (size_t k = 0; k < merged.nevents; k++)
				(void)region_row_value(&merged.rows[i], k, &v);
		}
		region_profile_release(&merged);
	}
	region_profile_release(&p);
	experiment_release(&e);
	run_command(t, cmd_info, "info", NULL);
	run_command(t, cmd_info, "info", "--json");
	run_command(t, cmd_dump, "dump", NULL);
	return 0;
}
