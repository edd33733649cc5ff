/*
 * fuzz_experiment.c - libFuzzer target for the JSON files of an experiment directory as
 * src/format/experiment.c reads them: the input is meta.json, a NUL byte, and
 * proc.1000.json (without a NUL byte: no proc file). The directory (in /dev/shm, or /tmp)
 * also holds a fixed stream.1000.1000 with regions and two counters, and a fixed samples.1000
 * (tests/fuzz/corpus/gen-regions-counters and gen-samples), so that what the JSON files say
 * (events, sampling, clock) meets records that may not agree with it. experiment_open reads
 * the directory, region_profile_build the stream; then `perfscope info` (text and JSON) and
 * `perfscope dump` run on it, writing to /dev/null.
 *
 * The contract, checked besides the sanitizers (abort when broken): experiment_open and
 * region_profile_build succeed, or fail with one line naming a file of the directory; each
 * command exits 0 without an error, or 2 with exactly one error naming a file of the directory.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_experiment
 * tests/fuzz/corpus-experiment (build.sh compiles the fixed files' paths in).
 */
#include "model/experiment-open.h"
#include "analysis/profile/regions.h"
#include "cli/cli.h"
#include "fuzz-one-cpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_STREAM
#error "FUZZ_STREAM: the path of the fixed stream (build.sh defines it)"
#endif
#ifndef FUZZ_SAMPLES
#error "FUZZ_SAMPLES: the path of the fixed samples file (build.sh defines it)"
#endif

static char dir[64], meta[128], proc[128], stream[128], samples[128];
static char cli_err[1024]; /* the last cli_error message */
static int ncli_err;

static void cleanup(void)
{
	unlink(meta);
	unlink(proc);
	unlink(stream);
	unlink(samples);
	rmdir(dir);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t n;

	if (!in || !out) {
		fprintf(stderr, "fuzz_experiment: cannot copy %s to %s\n", from, to);
		abort();
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			abort();
	fclose(in);
	if (fclose(out))
		abort();
}

static void write_file(const char *path, const unsigned char *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
}

/* The helpers of src/cli/main.c the commands use (main.c itself has main()). */
void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	(void)cmd;
	va_start(ap, fmt);
	vsnprintf(cli_err, sizeof(cli_err), fmt, ap);
	va_end(ap);
	ncli_err++;
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

/* An error message: one line, naming a file of the directory. */
static void check_message(const char *what, const char *msg)
{
	if (strncmp(msg, dir, strlen(dir)) || strchr(msg, '\n')) {
		fprintf(stderr,
			"fuzz_experiment: %s: the error is not one line naming a file: '%s'\n",
			what, msg);
		abort();
	}
}

static void run_command(int (*fn)(int, char **), const char *name, const char *flag)
{
	char *argv[] = {(char *)name, dir, "-o", "/dev/null", "--force", (char *)flag, NULL};
	int argc = flag ? 6 : 5, ret;

	ncli_err = 0;
	cli_err[0] = 0;
	ret = fn(argc, argv);
	if (ret == 0 && ncli_err == 0)
		return;
	if (ret != 2 || ncli_err != 1) {
		fprintf(stderr,
			"fuzz_experiment: perfscope %s %s exited %d after %d errors: '%s'\n", name,
			flag ? flag : "", ret, ncli_err, cli_err);
		abort();
	}
	check_message(name, cli_err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_one_cpu();
	snprintf(dir, sizeof(dir), "%s/psc-fuzz-experiment-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(meta, sizeof(meta), "%s/meta.json", dir);
	snprintf(proc, sizeof(proc), "%s/proc.1000.json", dir);
	snprintf(stream, sizeof(stream), "%s/stream.1000.1000", dir);
	snprintf(samples, sizeof(samples), "%s/samples.1000", dir);
	atexit(cleanup);
	copy_file(FUZZ_STREAM, stream);
	copy_file(FUZZ_SAMPLES, samples);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *nul = memchr(data, 0, size);
	size_t meta_len = nul ? (size_t)(nul - data) : size;
	struct experiment e;
	struct region_profile p;
	char err[1024] = "";
	int ret;

	write_file(meta, data, meta_len);
	if (nul)
		write_file(proc, nul + 1, size - meta_len - 1);
	else
		unlink(proc);
	ret = experiment_open(&e, dir, err, sizeof(err));
	if (ret) {
		check_message("experiment_open", err);
		experiment_release(&e);
	} else {
		ret = region_profile_build(&p, &e, err, sizeof(err));
		if (ret)
			check_message("region_profile_build", err);
		region_profile_release(&p);
		experiment_release(&e);
	}
	run_command(cmd_info, "info", NULL);
	run_command(cmd_info, "info", "--json");
	run_command(cmd_dump, "dump", NULL);
	return 0;
}
