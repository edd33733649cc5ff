/*
 * mpi-hand.h - MPI models built by hand for the analyses' unit tests (test_mpi_waits,
 * test_mpi_stats): the model's arrays filled directly with known times (in ms), one location
 * per rank, without the builder, so the tests know every answer exactly. The analyses read
 * a call's location, times, items and messages, not the locations' call ranges.
 */
#ifndef PSC_TEST_MPI_HAND_H
#define PSC_TEST_MPI_HAND_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi/mpi-model.h"
#include "format/format.h"
#include "format/mpi-routines.h"

#define HAND_MAX 256
#define MS(x)	 ((int64_t)((x)*1e6))

/* A world of P ranks, each present from 0 to END_MS. */
static inline void hand_init(struct mpi_model *m, int p, double end_ms)
{
	memset(m, 0, sizeof(*m));
	m->source = strdup("hand");
	m->world_size = p;
	m->ranks = calloc((size_t)p, sizeof(*m->ranks));
	m->locs = calloc((size_t)p, sizeof(*m->locs));
	m->calls = calloc(HAND_MAX, sizeof(*m->calls));
	m->items = calloc(HAND_MAX, sizeof(*m->items));
	m->msgs = calloc(HAND_MAX, sizeof(*m->msgs));
	m->colls = calloc(HAND_MAX, sizeof(*m->colls));
	m->coll_calls = calloc(HAND_MAX, sizeof(*m->coll_calls));
	m->sites = calloc(HAND_MAX, sizeof(*m->sites));
	m->nlocs = (size_t)p;
	for (int r = 0; r < p; r++) {
		m->ranks[r] = (struct mpi_rank_info){.present = 1,
						     .host = "",
						     .first_loc = (uint32_t)r,
						     .nlocs = 1,
						     .end_ns = MS(end_ms)};
		m->locs[r] = (struct mpi_loc){.rank = r, .tid = 100 + r};
	}
	m->end_ns = MS(end_ms);
	m->clock_aligned = 1;
}

static inline void hand_release(struct mpi_model *m)
{
	free(m->source);
	free(m->ranks);
	free(m->locs);
	free(m->calls);
	free(m->items);
	free(m->msgs);
	free(m->colls);
	free(m->coll_calls);
	for (size_t i = 0; i < m->nsites; i++) {
		free(m->sites[i].function);
		free(m->sites[i].file);
	}
	free(m->sites);
	free(m->warnings);
	memset(m, 0, sizeof(*m));
}

/* A call of RANK from ENTER to LEAVE (ms). */
static inline uint32_t hand_call(struct mpi_model *m, int rank, unsigned routine, double enter,
				 double leave)
{
	uint32_t i = (uint32_t)m->ncalls++;

	m->calls[i] = (struct mpi_call){.enter_ns = MS(enter),
					.leave_ns = MS(leave),
					.routine = routine,
					.loc = (uint32_t)rank,
					.site = MPI_NONE,
					.first_item = (uint32_t)m->nitems,
					.coll = MPI_NONE};
	return i;
}

/* An item of the last call added (BYTES2, the bytes received, kept for a COLL item only; the
 * others have request 0). */
static inline uint32_t hand_item(struct mpi_model *m, unsigned kind, unsigned flags, int peer,
				 int tag, uint64_t bytes, uint64_t bytes2)
{
	uint32_t i = (uint32_t)m->nitems++, call = (uint32_t)m->ncalls - 1;

	m->items[i] = (struct mpi_item){.kind = (uint8_t)kind,
					.flags = (uint8_t)flags,
					.comm = 0,
					.peer = peer,
					.tag = tag,
					.bytes = bytes,
					.bytes2 = kind == PSC_MPI_ITEM_COLL ? bytes2 : 0,
					.call = call,
					.msg = MPI_NONE};
	return i;
}

/* A message; the items ITEMS (or MPI_NONE) of its ends point at it. */
static inline uint32_t hand_msg(struct mpi_model *m, int src, int dst, uint64_t bytes,
				uint32_t send, uint32_t send_done, uint32_t post, uint32_t recv,
				int sync, uint32_t send_item, uint32_t recv_item)
{
	uint32_t i = (uint32_t)m->nmsgs++;

	m->msgs[i] = (struct mpi_message){src, dst, 0, 0, bytes, send, send_done, post, recv, sync};
	if (send_item != MPI_NONE)
		m->items[send_item].msg = i;
	if (recv_item != MPI_NONE)
		m->items[recv_item].msg = i;
	return i;
}

/* A collective of the calls CALLS (in communicator rank order, MPI_NONE missing). */
static inline uint32_t hand_coll(struct mpi_model *m, unsigned routine, int root,
				 const uint32_t *calls, uint32_t n)
{
	uint32_t i = (uint32_t)m->ncolls++, first = (uint32_t)m->ncoll_calls;

	for (uint32_t k = 0; k < n; k++) {
		m->coll_calls[m->ncoll_calls++] = calls[k];
		if (calls[k] != MPI_NONE)
			m->calls[calls[k]].coll = i;
	}
	m->colls[i] = (struct mpi_coll){0, routine, root, first, n, 0};
	return i;
}

/* A call site of RANK, given to call CALL. */
static inline uint32_t hand_site(struct mpi_model *m, uint32_t call, const char *function,
				 const char *file, unsigned line)
{
	uint32_t i = (uint32_t)m->nsites++;

	m->sites[i] = (struct mpi_site){mpi_call_rank(m, &m->calls[call]), 0x1000 + i,
					strdup(function), strdup(file), line};
	m->calls[call].site = i;
	return i;
}

#endif /* PSC_TEST_MPI_HAND_H */
