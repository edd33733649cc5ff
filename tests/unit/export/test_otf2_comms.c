/*
 * test_otf2_comms.c - the communicator of the items that do not name one: a send's
 * completion and a cancellation (none in perfscope's records), a posted receive (none in
 * OTF2's MpiIrecvRequest). Matching gives each its request's, so that a synthetic experiment
 * whose non-blocking messages use a communicator other than MPI_COMM_WORLD, and its OTF2
 * export read back, say the same communicator for every item.
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

#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "export/otf2-export.h"
#include "model/symbols.h"
#include "synth-exp.h"
#include "synth-mpi.h"

/* Under the sanitizers: libopen-trace-format2 keeps a few allocations of its own. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2\n";
}

static const int32_t rev[2] = {1, 0};

/* Two ranks on the communicator {1, 0} (index 2 in both): each posts a receive from the
 * other, sends to it, and completes both with Waitall; rank 0 then cancels an Isend. */
static void write_job(const char *dir)
{
	struct job j;

	job_begin(&j, 2, 1 * MS);
	for (int r = 0; r < 2; r++) {
		struct mstream *s = &j.s[r];
		int peer = 1 - r;
		struct mitem post = it_irecv(PSC_MPI_ANY, 4, 64, 11, 2);
		struct mitem isnd = it_isend(peer, 4, 8, 12, 2);
		struct mitem wait[2] = {it_recv(peer, 4, 8, 11, 2), it_done(12)};
		struct mitem lost = it_isend(peer, 5, 8, 13, 2), cancel = it_cancel(13, 0);

		ms_comm(s, 2 * MS, 2, 1ull << 32, rev, 2);
		ms_call1(s, 2 * MS, 2010 * US, MPI_ROUTINE_Irecv, &post);
		ms_call1(s, 2020 * US, 2030 * US, MPI_ROUTINE_Isend, &isnd);
		ms_call(s, 2040 * US, 2300 * US, MPI_ROUTINE_Waitall, 0x4010, wait, 2);
		if (r == 0) {
			ms_call1(s, 3 * MS, 3010 * US, MPI_ROUTINE_Isend, &lost);
			ms_call1(s, 3020 * US, 3030 * US, MPI_ROUTINE_Cancel, NULL);
			ms_call1(s, 3040 * US, 3050 * US, MPI_ROUTINE_Wait, &cancel);
		}
		finalize(s, 4 * MS);
	}
	job_write(&j, dir, 0x3);
}

/* Every item of M is on the communicator {1, 0}. */
static void check_items(const struct mpi_model *m)
{
	size_t kinds[8] = {0};

	assert_int_equal(m->nmsgs, 2);
	assert_int_equal(m->cancelled_sends, 1);
	assert_int_equal(m->unmatched_sends + m->unmatched_recvs, 0);
	for (size_t i = 0; i < m->nitems; i++) {
		const struct mpi_item *it = &m->items[i];

		if (it->kind == PSC_MPI_ITEM_COLL)
			continue;
		kinds[it->kind & 7]++;
		if (it->comm == MPI_NONE)
			fail_msg("item %zu (kind %u): no communicator", i, it->kind);
		assert_int_equal(m->comms[it->comm].size, 2);
		assert_memory_equal(m->comms[it->comm].members, rev, sizeof(rev));
	}
	assert_int_equal(kinds[PSC_MPI_ITEM_IRECV], 2);
	assert_int_equal(kinds[PSC_MPI_ITEM_ISEND_DONE], 2);
	assert_int_equal(kinds[PSC_MPI_ITEM_CANCEL], 1);
}

static void test_request_comms(void **state)
{
	char dir[128], archive[160], anchor[192], err[1024];
	struct experiment e;
	struct mpi_model m, back;
	struct symtab syms;

	(void)state;
	new_dir(dir, sizeof(dir));
	write_job(dir);
	load(dir, &e, &m, 0);
	print_warnings(&m);
	assert_int_equal(m.nwarnings, 0);
	check_items(&m);

	assert_int_equal(symtab_init(&syms, dir), 0);
	snprintf(archive, sizeof(archive), "%s/archive", dir);
	assert_int_equal(otf2_export(archive, &e, &syms, &m, NULL, err, sizeof(err)), 0);
	snprintf(anchor, sizeof(anchor), "%s/" OTF2_EXPORT_NAME ".otf2", archive);
	mpi_model_init(&back);
	if (mpi_model_load_otf2(&back, anchor, 0, err, sizeof(err)))
		fail_msg("mpi_model_load_otf2: %s", err);
	print_warnings(&back);
	assert_int_equal(back.nwarnings, 0);
	check_items(&back);
	assert_int_equal(otf2_export_remove(archive), 0);
	mpi_model_release(&back);
	symtab_release(&syms);
	done(&e, &m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_comms),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
