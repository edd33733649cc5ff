/*
 * clocksync.c - MPI clock offsets by ping-pong from rank 0.
 *
 * Rank 0 exchanges PSC_SYNC_ROUNDS small messages with every other rank in turn: it reads
 * its clock (t0), sends a ping, the rank answers with its own reading (tr), rank 0 reads its
 * clock again (t1). Of a rank's exchanges the one with the smallest round trip t1 - t0 is
 * kept, since its midpoint is the best estimate of when tr was read on rank 0's clock:
 * offset = (t0 + t1) / 2 - tr, so that rank0_time = local + offset. Rank 0 then tells the
 * rank its reading, offset and round trip, and every rank records one PSC_REC_MPI_CLOCK.
 * A rank on the same kernel as rank 0 (the same boot id) reads the same CLOCK_MONOTONIC: its
 * offset is exactly 0 and is not measured, since a measurement could only add its error
 * (up to half a round trip, microseconds on a loaded node); it records a round trip of 0.
 * Only PMPI_* calls: MPI_* would be traced by the wrappers.
 */
#include "mpi-rt/clocksync.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/format.h"
#include "runtime/rt-mpi.h"

#define PSC_SYNC_ROUNDS 10
#define PSC_SYNC_TAG	0x7073 /* any tag would do: COMM is private */

/* What rank 0 sends each rank at the end: its reading, offset and round trip. */
struct sync_result {
	int64_t local_ns;
	int64_t offset_ns;
	int64_t rtt_ns;
};

static void sync_record(int phase, const struct sync_result *res)
{
	uint64_t payload[3] = {(uint64_t)res->local_ns, (uint64_t)res->offset_ns,
			       (uint64_t)res->rtt_ns};

	psc_rt_record(PSC_REC_MPI_CLOCK, (uint32_t)phase, payload, 3);
}

/* Rank 0's side with rank PEER: the best of PSC_SYNC_ROUNDS exchanges in RES. */
static int sync_measure_peer(MPI_Comm comm, int peer, struct sync_result *res)
{
	res->rtt_ns = INT64_MAX;
	for (int i = 0; i < PSC_SYNC_ROUNDS; i++) {
		uint64_t ping = (uint64_t)i, tr;
		uint64_t t0 = psc_rt_now_ns();

		if (PMPI_Send(&ping, 1, MPI_UINT64_T, peer, PSC_SYNC_TAG, comm) != MPI_SUCCESS ||
		    PMPI_Recv(&tr, 1, MPI_UINT64_T, peer, PSC_SYNC_TAG, comm, MPI_STATUS_IGNORE) !=
			MPI_SUCCESS)
			return -EIO;
		uint64_t t1 = psc_rt_now_ns();
		int64_t rtt = (int64_t)(t1 - t0);

		if (rtt < res->rtt_ns) {
			uint64_t mid = t0 + (t1 - t0) / 2;

			res->rtt_ns = rtt;
			res->local_ns = (int64_t)tr;
			res->offset_ns = (int64_t)(mid - tr);
		}
	}
	return 0;
}

/* A non-zero rank's side: answer every ping with the clock, then receive the result. */
static int sync_answer(MPI_Comm comm, struct sync_result *res)
{
	int64_t words[3];

	for (int i = 0; i < PSC_SYNC_ROUNDS; i++) {
		uint64_t ping, now;

		if (PMPI_Recv(&ping, 1, MPI_UINT64_T, 0, PSC_SYNC_TAG, comm, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS)
			return -EIO;
		now = psc_rt_now_ns();
		if (PMPI_Send(&now, 1, MPI_UINT64_T, 0, PSC_SYNC_TAG, comm) != MPI_SUCCESS)
			return -EIO;
	}
	if (PMPI_Recv(words, 3, MPI_INT64_T, 0, PSC_SYNC_TAG, comm, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return -EIO;
	res->local_ns = words[0];
	res->offset_ns = words[1];
	res->rtt_ns = words[2];
	return 0;
}

int mpi_clock_measure(int phase, MPI_Comm comm)
{
	struct sync_result res = {0, 0, 0};
	int rank, size, err = 0, have, all_have = 0;
	uint64_t me, *ids;

	if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
	    PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
		return -EIO;
	/* every rank learns every rank's clock identity: ranks sharing rank 0's are not measured */
	me = psc_rt_clock_id();
	ids = calloc((size_t)size, sizeof(*ids));
	/* all ranks take the same path, or one would wait for the others forever: without the
	 * identities of all (a rank out of memory), every rank is measured */
	have = ids != NULL;
	if (PMPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS ||
	    !all_have ||
	    PMPI_Allgather(&me, 1, MPI_UINT64_T, ids, 1, MPI_UINT64_T, comm) != MPI_SUCCESS) {
		free(ids);
		ids = NULL;
	}
	if (rank != 0 && ids && me && ids[0] == me) {
		free(ids);
		res.local_ns = (int64_t)psc_rt_now_ns();
		sync_record(phase, &res);
		return 0;
	}
	if (rank != 0) {
		free(ids);
		err = sync_answer(comm, &res);
		if (err == 0)
			sync_record(phase, &res);
		return err;
	}
	/* Every peer is measured and told its result even after a failure with another. */
	for (int peer = 1; peer < size; peer++) {
		struct sync_result peer_res = {0, 0, 0};
		int64_t words[3];

		if (ids && ids[peer] && ids[peer] == ids[0])
			continue;
		if (sync_measure_peer(comm, peer, &peer_res) < 0) {
			err = -EIO;
			continue;
		}
		words[0] = peer_res.local_ns;
		words[1] = peer_res.offset_ns;
		words[2] = peer_res.rtt_ns;
		if (PMPI_Send(words, 3, MPI_INT64_T, peer, PSC_SYNC_TAG, comm) != MPI_SUCCESS)
			err = -EIO;
	}
	free(ids);
	res.local_ns = (int64_t)psc_rt_now_ns();
	sync_record(phase, &res);
	return err;
}
