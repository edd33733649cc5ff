/*
 * test_otf2_rank.c - the OTF2 export of an experiment whose processes name an MPI rank in
 * their proc file but whose streams hold no MPI records (a run stopped before its MPI records
 * were written, or proc files of another run): there is no MPI model, and the export writes
 * the functions on one location per thread instead of crashing on the missing model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/experiment-open.h"
#include "export/otf2-export.h"
#include "model/symbols.h"
#include "synth-exp.h"
#include "synth-mpi.h"

/* Processes 100 and 101 with ranks RANK0 and RANK1 in their proc files, each one thread with
 * two calls of a function and no MPI record: exported, 4 calls on 2 locations. */
static void export_ranks(int rank0, int rank1)
{
	char dir[128], archive[160], err[512] = "";
	const int ranks[2] = {rank0, rank1};
	struct otf2_export_stats st;
	struct experiment e;
	struct symtab syms;

	new_dir(dir, sizeof(dir));
	write_text(dir, "meta.json", "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
	for (int p = 0; p < 2; p++) {
		struct mstream s = {0};

		write_mpi_proc(dir, 100 + p, ranks[p], 0);
		ms_sync(&s, 1000);
		for (int i = 0; i < 2; i++) {
			ms_func(&s, 2000 + 100 * i, 1, 0x401000);
			ms_func(&s, 2050 + 100 * i, 0, 0x401000);
		}
		ms_end(&s, 3000);
		write_mpi_stream(dir, 100 + p, 100 + p, &s, 1024);
		free(s.w);
	}
	if (experiment_open(&e, dir, err, sizeof(err)))
		fail_msg("experiment_open: %s", err);
	assert_int_equal(symtab_init(&syms, dir), 0);
	snprintf(archive, sizeof(archive), "%s/archive", dir);
	if (otf2_export(archive, &e, &syms, NULL, &st, err, sizeof(err)))
		fail_msg("otf2_export: %s", err);
	assert_int_equal(st.calls, 4);
	assert_int_equal(st.locations, 2);
	assert_int_equal(st.processes, 2);
	assert_int_equal(st.mpi_calls, 0);
	symtab_release(&syms);
	experiment_release(&e);
}

static void test_rank_without_mpi(void **state)
{
	(void)state;
	export_ranks(0, 1);
	export_ranks(7, -1); /* a rank far past any world, and a process outside MPI */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rank_without_mpi),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
