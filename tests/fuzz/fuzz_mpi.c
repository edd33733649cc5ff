/*
 * fuzz_mpi.c - libFuzzer target for the MPI model: the input is the stream file of rank 0 of
 * a fixed experiment (meta.json, proc.1000.json with "rank":0 and a monotonic clock), loaded
 * by experiment_open and mpi_model_load (MPI records to calls, items, communicators, clock
 * alignment, message and collective matching, causality correction), then the analyses of
 * `perfscope mpi`: routines, traffic and the wait matrix. Whatever the reader accepts must
 * never crash them; an error must be a negative errno with a message.
 *
 * Build and run: tests/fuzz/build.sh OUTDIR, then OUTDIR/fuzz_mpi CORPUS_DIR.
 *
 * Run by tests/e2e/test_fuzz_reader.sh. The seeds regress-mpi-* of tests/fuzz/corpus/ are
 * inputs that overflowed int64 before times and clock offsets were range-checked (mpi-read.c
 * and mpi-model.c, mpi-match.h MPI_TIME_LIMIT_NS): mpi-stats.c's leave - enter and sums,
 * mpi-model.c's clock alignment and its count of violations on the ranks' own clocks.
 */
#include "model/experiment-open.h"
#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"
#include "format/stream.h"
#include "fuzz-one-cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 1000
/*
 * Known limitation, reported: the model sizes per-rank arrays (and the p x p wait matrix) by
 * the world size an MPI init record claims, so one record claiming 2^31 ranks asks for
 * terabytes. Inputs naming a world or rank beyond this are left out.
 */
#define KNOWN_WORLD_LIMIT 256

static char dir[64], stream[128];

static void target_remove(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/proc.%d.json", dir, PID);
	unlink(path);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	unlink(path);
	unlink(stream);
	rmdir(dir);
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void target_init(void)
{
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s/psc-fuzz-mpi-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir))
		abort();
	write_file("meta.json", "{\"version\":1,\"created_by\":\"fuzz\",\"command\":[\"x\"],"
				"\"mpi\":true}");
	write_file("proc.1000.json",
		   "{\"version\":1,\"pid\":1000,\"ppid\":1,\"rank\":0,\"exe\":\"/bin/fuzz\","
		   "\"state\":\"exited\",\"clock\":\"monotonic\",\"calibration\":[[\"1000\","
		   "\"1000\"]],\"events\":[],\"lost_records\":0,\"error\":\"\"}");
	snprintf(stream, sizeof(stream), "%s/stream.%d.%d", dir, PID, PID);
	atexit(target_remove);
}

/* True when the stream names a world or a rank of KNOWN_WORLD_LIMIT or more. */
static int has_huge_world(void)
{
	struct stream_reader r;
	struct stream_record rec;
	char err[512];
	int huge = 0;

	if (stream_open(&r, stream, err, sizeof(err)))
		return 0;
	while (!huge && stream_next(&r, &rec, err, sizeof(err)) > 0)
		huge = rec.kind == PSC_KIND_EXT && rec.type == PSC_REC_MPI_INIT &&
		       (rec.arg >= KNOWN_WORLD_LIMIT ||
			(rec.npayload && rec.payload[0] >= KNOWN_WORLD_LIMIT));
	stream_close(&r);
	return huge;
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
	char err[1024] = "";
	struct experiment e;
	struct mpi_model m;
	FILE *f;
	int ret;

	target_init();
	f = fopen(stream, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	if (has_huge_world())
		return 0;
	if (experiment_open(&e, dir, err, sizeof(err)))
		return 0;
	mpi_model_init(&m);
	ret = mpi_model_load(&m, &e, 0, err, sizeof(err));
	if (ret > 0 || (ret < 0 && !err[0])) {
		fprintf(stderr, "fuzz_mpi: contract broken: mpi_model_load returned %d (%s)\n", ret,
			err);
		abort();
	}
	if (ret == 0) {
		struct mpi_routines ro;
		struct mpi_traffic tr;
		struct mpi_waits w;

		if (mpi_routines_compute(&ro, &m) == 0)
			mpi_routines_release(&ro);
		if (mpi_traffic_compute(&tr, &m) == 0)
			mpi_traffic_release(&tr);
		if (mpi_waits_compute(&w, &m) == 0)
			mpi_waits_release(&w);
	}
	mpi_model_release(&m);
	experiment_release(&e);
	return 0;
}
