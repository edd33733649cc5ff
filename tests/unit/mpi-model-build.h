/*
 * mpi-model-build.h - builders of small MPI models for the unit tests of the analyses: one
 * communicator (key 0) over ranks 0..p-1 whose world ranks are their own, ranks added in
 * order, calls and items appended to the last rank added. Include after <cmocka.h>.
 */
#ifndef PSC_TEST_MPI_MODEL_BUILD_H
#define PSC_TEST_MPI_MODEL_BUILD_H

#include <stdint.h>
#include <stdlib.h>

#include "analysis/mpi/mpi-model.h"

/* M initialised with a world of P ranks and communicator 0 over all of them. */
static inline void begin(struct mpi_model *m, int p)
{
	int32_t *world = malloc((size_t)p * sizeof(*world));

	assert_non_null(world);
	for (int i = 0; i < p; i++)
		world[i] = i;
	mpi_model_init(m);
	assert_int_equal(mpi_model_set_world(m, p), 0);
	assert_int_equal(mpi_model_add_comm(m, 0, world, (uint32_t)p), 0);
	free(world);
}

/* Rank R (pid 100 + R): the location the next calls go to. */
static inline void rank(struct mpi_model *m, int r)
{
	assert_int_equal(mpi_model_add_loc(m, r, 100 + r), r);
}

/* A call of the last rank added; returns its index. */
static inline uint32_t call(struct mpi_model *m, unsigned routine, int64_t enter, int64_t leave)
{
	long c = mpi_model_add_call(m, (uint32_t)(m->nlocs - 1), routine, enter, leave, MPI_NONE);

	assert_true(c >= 0);
	return (uint32_t)c;
}

/* A collective item (root ROOT, -1 none; BYTES sent, BYTES2 received) of the last call. */
static inline void coll(struct mpi_model *m, int root, uint64_t bytes, uint64_t bytes2)
{
	struct mpi_item it = {
	    .kind = PSC_MPI_ITEM_COLL, .comm = 0, .peer = root, .bytes = bytes, .bytes2 = bytes2};

	assert_int_equal(mpi_model_add_item(m, &it), 0);
}

/* A non-blocking collective's request item of the last call. */
static inline void coll_req(struct mpi_model *m, uint64_t request)
{
	struct mpi_item it = {
	    .kind = PSC_MPI_ITEM_COLL_REQ, .comm = 0, .peer = -1, .request = request};

	assert_int_equal(mpi_model_add_item(m, &it), 0);
}

/* Build M on one clock (MPI_BUILD_ALIGNED) with FLAGS added. */
static inline void build(struct mpi_model *m, unsigned flags)
{
	char err[256];

	assert_int_equal(mpi_model_build(m, MPI_BUILD_ALIGNED | flags, err, sizeof(err)), 0);
}

/* Call C's times after the build. */
static inline void assert_times(const struct mpi_model *m, uint32_t c, int64_t enter, int64_t leave)
{
	assert_int_equal(m->calls[c].enter_ns, enter);
	assert_int_equal(m->calls[c].leave_ns, leave);
}

#endif /* PSC_TEST_MPI_MODEL_BUILD_H */
