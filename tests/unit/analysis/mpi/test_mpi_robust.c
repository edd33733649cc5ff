/*
 * test_mpi_robust.c - the MPI model (mpi-model.h) on nonsense: experiments whose MPI records
 * are valid in form but not in meaning, and the builder fed random calls and items. Nothing
 * may crash (run it under the sanitizer build too); what the model says is checked only
 * where it is certain.
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
#include "format/format.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "synth-exp.h"
#include "synth-mpi.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* Valid records holding nonsense: unpaired enters and leaves, items of every kind naming
 * unknown communicators, ranks outside the world, unknown requests, communicators with
 * members outside the world. Loading must not crash; whatever it says is fine. */
static void test_garbage(void **state)
{
	char dir[128], err[512];

	(void)state;
	for (int round = 0; round < 20; round++) {
		struct mstream s[3] = {{0}};
		struct experiment e;
		struct mpi_model m;
		uint64_t t = 1000;

		new_dir(dir, sizeof(dir));
		write_text(dir, "meta.json",
			   "{\"version\":1,\"created_by\":\"test\",\"command\":[\"x\"]}");
		for (int p = 0; p < 3; p++) {
			if (round % 2 || p)
				ms_begin(&s[p], t, (int)rnd(4), 1 + (int)rnd(4));
			for (int k = 0; k < 300; k++) {
				struct mitem it[3];
				int32_t members[4];
				size_t n = rnd(4);

				t += rnd(3) * 1000;
				switch (rnd(6)) {
				case 0:
					for (int q = 0; q < 4; q++)
						members[q] = (int32_t)rnd(7) - 1;
					ms_comm(&s[p], t, (uint32_t)rnd(5), rnd(3) << 32 | rnd(3),
						members, 1 + (uint32_t)rnd(4));
					break;
				case 1:
					ms_ext(&s[p], t, PSC_REC_MPI_ENTER,
					       (uint32_t)rnd(MPI_ROUTINE_COUNT), NULL, 0);
					break;
				case 2:
					ms_clock(&s[p], t, (unsigned)rnd(2), (int64_t)t,
						 (int64_t)rnd(5000) - 2500, 10);
					break;
				default:
					for (size_t i = 0; i < n && i < 3; i++)
						for (int w = 0; w < 4; w++)
							it[i].w[w] = rnd(8) | rnd(8) << 32;
					for (size_t i = 0; i < n && i < 3; i++)
						it[i].w[0] = psc_mpi_item_word0(
						    (enum psc_mpi_item)(1 + rnd(7)),
						    (unsigned)rnd(2), (uint32_t)rnd(5));
					ms_call(&s[p], t, t + rnd(2000),
						(unsigned)rnd(MPI_ROUTINE_COUNT), rnd(3) * 0x1000,
						it, n < 3 ? n : 3);
					t += 2000;
				}
			}
			if (rnd(2))
				s[p].cut = s[p].n - rnd(s[p].n / 2);
			write_mpi_proc(dir, 2000 + p, (int)rnd(5) - 1, rnd(2));
			write_mpi_stream(dir, 2000 + p, 2000 + p, &s[p], 64 + rnd(512));
			free(s[p].w);
		}
		assert_int_equal(experiment_open(&e, dir, err, sizeof(err)), 0);
		mpi_model_init(&m);
		mpi_model_load(&m, &e, (unsigned)rnd(4), err, sizeof(err));
		done(&e, &m);
	}
}

/* The builder directly: nonsense items and locations out of rank order. */
static void test_builder(void **state)
{
	const int32_t world[3] = {0, 1, 2};
	struct mpi_model m;
	char err[256];

	(void)state;
	mpi_model_init(&m);
	assert_int_equal(mpi_model_set_world(&m, 3), 0);
	assert_int_equal(mpi_model_add_comm(&m, 7, world, 3), 0);
	assert_int_equal(mpi_model_add_comm(&m, 7, world, 3), 0);
	assert_int_equal(mpi_model_add_site(&m, 1, 0x10, "f", "f.c", 3), 0);
	assert_int_equal(mpi_model_add_site(&m, 2, 0x10, NULL, NULL, 0), 1);
	assert_int_equal(mpi_model_add_site(&m, 1, 0x10, NULL, NULL, 0), 0);
	assert_int_equal(mpi_model_add_item(&m, &(struct mpi_item){.kind = 1}), -EINVAL);
	for (int r = 2; r >= 0; r--) {
		long loc = mpi_model_add_loc(&m, r, 10 + r);

		assert_true(loc >= 0);
		for (int k = 0; k < 200; k++) {
			struct mpi_item it = {0};

			assert_true(mpi_model_add_call(&m, (uint32_t)loc,
						       (uint32_t)rnd(MPI_ROUTINE_COUNT), k * 100,
						       k * 100 + (int64_t)rnd(100),
						       (uint32_t)rnd(3)) >= 0);
			it.kind = (uint8_t)(1 + rnd(7));
			it.comm = rnd(4) ? 0 : (uint32_t)rnd(5);
			it.peer = (int32_t)rnd(6) - 1;
			it.tag = (int32_t)rnd(2);
			it.request = rnd(4);
			assert_int_equal(mpi_model_add_item(&m, &it), 0);
		}
	}
	assert_int_equal(mpi_model_add_call(&m, 0, 0, 0, 0, MPI_NONE), -EINVAL);
	assert_int_equal(mpi_model_add_call(&m, 2, MPI_ROUTINE_COUNT, 0, 0, MPI_NONE), -EINVAL);
	assert_int_equal(mpi_model_warn(&m, "a %d", 1), 0);
	assert_int_equal(mpi_model_build(&m, 0, err, sizeof(err)), 0);
	for (int r = 0; r < 3; r++) {
		const struct mpi_loc *l = &m.locs[m.ranks[r].first_loc];

		assert_int_equal(m.ranks[r].nlocs, 1);
		assert_int_equal(l->rank, r);
		assert_int_equal(l->tid, 10 + r);
		for (uint32_t c = l->first_call; c < l->first_call + l->ncalls; c++)
			assert_int_equal(mpi_call_rank(&m, &m.calls[c]), r);
	}
	/* random matches may wait on each other in a circle: the correction then gives up on
	 * some, but never breaks the order of a location's events */
	assert_true(m.violations_before > 0);
	assert_string_equal(m.warnings[0], "a 1");
	assert_ordered(&m);
	mpi_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_builder),
	};

	return cmocka_run_group_tests(tests, synth_make_top, synth_remove_top);
}
