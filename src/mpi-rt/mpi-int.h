/*
 * mpi-int.h - the inside of libperfscope-mpi.so: what the generated wrappers (gen-wrappers.py
 * from mpi-calls.def), the family hooks (hooks.c, hooks-coll.c), the communicator table
 * (comms.c) and the request table (requests.c) share. Every MPI call made here is a PMPI_*
 * call, so that the library never records itself.
 */
#ifndef PSC_MPI_INT_H
#define PSC_MPI_INT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "format/format.h"
#include "format/mpi-routines.h"
#include "runtime/rt-mpi.h"

/* Fortran INTEGER arrays are passed to the hooks as C int arrays. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is a C int");

/* A Fortran status's length in INTEGERs. */
#ifdef MPI_F_STATUS_SIZE
#define PSC_F_STATUS_INTS MPI_F_STATUS_SIZE
#else
#define PSC_F_STATUS_INTS (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

/* The wrappers record (set by MPI_Init when the runtime records, cleared by MPI_Finalize). */
extern int mpi_recording;

/* One wrapped call: what the wrapper knows, and what its pre hook saved for its post hook. */
struct mpi_call {
	unsigned id;	 /* enum mpi_routine */
	uint64_t site;	 /* return address into the caller */
	MPI_Request req; /* the request of Wait, Test, Request_free, Cancel, before the call */
	const MPI_Request *reqs; /* the requests of Waitall & co. before the call (scratch) */
	MPI_Comm comm;		 /* Comm_free's communicator before the call */
};

/* The executable ranges of the MPI libraries' code (sites.c), for telling whether the
 * wrapper's caller is the user's code or an MPI binding (MPICH's Fortran ones). */
#define MPI_LIB_RANGES 16
struct mpi_lib_ranges {
	int n;
	uintptr_t lo[MPI_LIB_RANGES], hi[MPI_LIB_RANGES];
};
extern struct mpi_lib_ranges mpi_lib_ranges;

/* (Re)build mpi_lib_ranges from the objects loaded now (at load time and after MPI_Init). */
void mpi_sites_scan(void);

/* Whether code address A lies in an MPI library. */
static inline int mpi_in_library(uintptr_t a)
{
	int n = __atomic_load_n(&mpi_lib_ranges.n, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (a >= mpi_lib_ranges.lo[i] && a < mpi_lib_ranges.hi[i])
			return 1;
	return 0;
}

/* The first return address outside the MPI libraries above the frame that returns to RA (the
 * caller of the wrapper, an MPI binding), found by unwinding (or where unwinding found it
 * before, relative to CFA, the wrapper's __builtin_dwarf_cfa()); RA when there is none. Call
 * it from the wrapper itself (inlined into it), so that the unwinder passes RA's frame. */
__attribute__((noinline, cold)) void *mpi_site_above(void *ra, void *cfa);

/* SITE is the wrapper's return address: the user's code, or a binding of the MPI library
 * (MPICH's mpi_send_ calls MPI_Send), whose own caller is then the call site. */
static PSC_ALWAYS_INLINE void mpi_call_begin(struct mpi_call *c, unsigned id, void *site)
{
	c->id = id;
	if (unlikely(mpi_in_library((uintptr_t)site - 1)))
		site = mpi_site_above(site, __builtin_dwarf_cfa());
	c->site = (uint64_t)(uintptr_t)site;
	psc_rt_mpi_enter(id);
}

static inline void mpi_call_end(const struct mpi_call *c, const uint64_t *items, size_t n)
{
	psc_rt_mpi_leave(c->id, c->site, items, n);
}

/*
 * Per-thread scratch buffers, grown on demand and kept: no allocation per call once a thread
 * has seen its largest request array. A slot's buffer is valid until its next use.
 */
enum mpi_scratch_slot {
	SCRATCH_STATUSES,    /* statuses substituted for MPI_STATUSES_IGNORE */
	SCRATCH_SAVED,	     /* request handles saved before a completion call */
	SCRATCH_ITEMS,	     /* items of a leave record with many messages */
	SCRATCH_F_STATUSES,  /* Fortran statuses substituted for MPI_F_STATUSES_IGNORE */
	SCRATCH_F_CSTATUSES, /* Fortran statuses as C statuses, for the hooks */
	SCRATCH_F_REQUESTS,  /* Fortran request handles as C handles */
	SCRATCH_F_INDICES,   /* Fortran (1-based) indices as C indices */
	SCRATCH_F_TYPES1,    /* Fortran datatype arrays as C handles */
	SCRATCH_F_TYPES2,
	SCRATCH_SLOTS
};

/* BYTES of scratch SLOT for the calling thread, or NULL when memory is short. */
void *mpi_scratch(enum mpi_scratch_slot slot, size_t bytes);

/* Statuses for COUNT requests in place of MPI_STATUSES_IGNORE (NULL: keep ignoring them). */
static inline MPI_Status *mpi_statuses(int count)
{
	return count > 0 ? mpi_scratch(SCRATCH_STATUSES, (size_t)count * sizeof(MPI_Status)) : NULL;
}

/* Fortran: the buffer the hooks see (MPI_IN_PLACE for Fortran's MPI_IN_PLACE). */
void *mpi_f_buf(void *buf);

/* Bytes of COUNT elements of TYPE (0 for a count below 1 or an invalid type). */
static inline uint64_t mpi_bytes(int count, MPI_Datatype type)
{
	int size;

	if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
		return 0;
	return (uint64_t)count * (uint64_t)size;
}

/* Bytes a status says were received. */
static inline uint64_t mpi_status_bytes(const MPI_Status *st)
{
#ifdef OMPI_MAJOR_VERSION
	/* what PMPI_Get_count(st, MPI_BYTE) returns, without the call and without its int limit */
	return st->_ucount;
#else
	int n;

	if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
		return 0;
	return (uint64_t)n;
#endif
}

/* ----- communicators (comms.c) ----- */

/* A communicator as the records see it. Immutable once published; released when both the
 * table (until Comm_free) and the requests on it have let it go. */
struct mpi_comm {
	MPI_Comm handle;
	uint32_t index; /* 0 world, 1 self, then in creation order */
	int inter;	/* an intercommunicator: peers are ranks of the remote group */
	int me;		/* this process's rank in it */
	int size;	/* local group */
	int npeers;	/* ranks a peer argument can name: size, or the remote group's */
	int refs;
	int32_t *peers;	  /* world rank of each peer rank */
	int32_t *members; /* world rank of each member, communicator rank order */
};

extern int mpi_world_rank, mpi_world_size;
extern struct mpi_comm mpi_comm_world_info;

/* World and self at MPI_Init (records both). 0 or negative errno. */
int comms_init(void);

/* The communicator HANDLE, registered on first sight (an unknown communicator made by a
 * routine perfscope does not wrap) ; NULL for MPI_COMM_NULL or when memory is short. */
struct mpi_comm *comms_find_slow(MPI_Comm handle);

static inline struct mpi_comm *comms_find(MPI_Comm handle)
{
	if (likely(handle == MPI_COMM_WORLD))
		return &mpi_comm_world_info;
	return comms_find_slow(handle);
}

/* A communicator the program just created: agree on its key with the other members
 * (collective over HANDLE), register and record it. No-op for MPI_COMM_NULL. */
void comms_created(MPI_Comm handle);

/* The program freed HANDLE (before the call: the handle it passed). */
void comms_freed(MPI_Comm handle);

void comm_ref(struct mpi_comm *cm);
void comm_unref(struct mpi_comm *cm);

/* World rank of peer RANK of CM: PSC_MPI_ANY for MPI_ANY_SOURCE or a rank out of range. */
static inline int32_t comm_peer(const struct mpi_comm *cm, int rank)
{
	if (cm == &mpi_comm_world_info && rank >= 0)
		return rank < mpi_world_size ? rank : PSC_MPI_ANY;
	if (rank < 0 || rank >= cm->npeers)
		return PSC_MPI_ANY;
	return cm->peers[rank];
}

/* Ranks a peer argument or an Alltoallw array can name on HANDLE. */
int mpi_comm_peers(MPI_Comm handle);

/* ----- requests (requests.c) ----- */

enum mpi_req_kind {
	REQ_SEND = 1,
	REQ_RECV = 2,
	REQ_COLL = 3, /* a non-blocking collective's */
};

/* What the request table remembers of a request. */
struct mpi_req_info {
	uint64_t id; /* this message's request id, 0 for an inactive persistent request */
	struct mpi_comm *comm;
	int32_t peer; /* world rank, PSC_MPI_ANY for MPI_ANY_SOURCE */
	int32_t tag;
	uint64_t bytes;
	uint8_t kind; /* enum mpi_req_kind */
	uint8_t sync; /* synchronous send */
	uint8_t persistent;
	uint8_t procnull; /* peer MPI_PROC_NULL: no message, nothing recorded */
	uint8_t cancelled;
};

/* A fresh request id: unique in the process, never 0. */
uint64_t requests_new_id(void);

/* Remember HANDLE (INFO's comm reference passes to the table). 0 or -ENOMEM. */
int requests_add(MPI_Request handle, const struct mpi_req_info *info);

/*
 * The request HANDLE completed (or was freed, FREED): copy what is known into OUT and forget
 * it unless it is persistent and not freed; a persistent one becomes inactive. 1 when it was
 * known and active (OUT filled, OUT->comm referenced by the caller until comm_unref), else 0.
 */
int requests_complete(MPI_Request handle, int freed, struct mpi_req_info *out);

/* Start persistent HANDLE: give it a fresh id, copy it into OUT. 1 known, 0 not. */
int requests_start(MPI_Request handle, struct mpi_req_info *out);

/* Mark active HANDLE cancelled (its completion asks MPI whether it was). 1 known and active,
 * 0 not. */
int requests_cancel(MPI_Request handle);

/* Item word 0 for a request's message. */
static inline uint64_t req_item_word0(enum psc_mpi_item kind, const struct mpi_req_info *r)
{
	return psc_mpi_item_word0(kind, r->sync ? PSC_MPI_F_SYNC : 0, r->comm->index);
}

#endif /* PSC_MPI_INT_H */
