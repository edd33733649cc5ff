/*
 * mpi-model.h - an MPI run as the analyses see it: ranks and their threads (locations), every
 * MPI call with times on one clock (rank 0's), messages matched sender to receiver, and
 * collective operations matched across their communicator's ranks. Built from an experiment
 * directory (mpi-read.c) or an OTF2 archive (otf2-import.c) through the builder functions
 * below; the analyses (perfscope mpi, OTF2 export, the HTML report) read it, never the files.
 */
#ifndef PSC_MPI_MODEL_H
#define PSC_MPI_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MPI_NONE UINT32_MAX /* no index */

/* One of the clock offsets a rank measured (PSC_REC_MPI_CLOCK). */
struct mpi_clock_point {
	int64_t local_ns;  /* the rank's own time of the measurement */
	int64_t offset_ns; /* add to the rank's time for rank 0's */
	uint64_t rtt_ns;   /* round trip of the best ping-pong */
};

struct mpi_rank_info {
	int present;	    /* streams of this rank were found */
	pid_t pid;	    /* 0 unknown (OTF2) */
	char *host;	    /* "" unknown */
	uint32_t first_loc; /* its locations are locs[first_loc .. first_loc + nlocs) */
	uint32_t nlocs;
	int64_t start_ns, end_ns;	 /* first and last event of the rank, aligned */
	int has_clock[2];		 /* PSC_MPI_CLOCK_INIT, _FINALIZE measured */
	struct mpi_clock_point clock[2]; /* as recorded */
	uint64_t lost_records;		 /* the runtime dropped records of this rank */
};

/* A thread of a rank: its calls are calls[first_call .. first_call + ncalls), in time order. */
struct mpi_loc {
	int rank;
	pid_t tid;
	uint32_t first_call, ncalls;
};

/* Calls are 32 bytes (a 10^8-event trace holds 5 * 10^7 of them, read by every analysis):
 * the routine and the location share a word, and a call's items end where the next call's
 * begin (mpi_call_items_end()). */
struct mpi_call {
	int64_t enter_ns, leave_ns; /* rank 0's clock, after causality correction */
	uint32_t routine : 9;	    /* enum mpi_routine (src/format/mpi-routines.h) */
	uint32_t loc : 23;	    /* index in locs, below MPI_LOCS_MAX */
	uint32_t site;		    /* index in sites, MPI_NONE when unknown */
	uint32_t first_item;	    /* its items: items[first_item .. mpi_call_items_end()) */
	uint32_t coll;		    /* its collective operation in colls, MPI_NONE */
};
_Static_assert(sizeof(struct mpi_call) == 32, "a call is 32 bytes");

#define MPI_LOCS_MAX (UINT32_C(1) << 23) /* locations a model holds: mpi_call.loc's 23 bits */

/* A call's enter and leave, as mpi_call has them. */
struct mpi_call_times {
	int64_t enter_ns, leave_ns;
};

/* A message or collective part of a call (format.h PSC_MPI_ITEM_*), ranks in MPI_COMM_WORLD. */
struct mpi_item {
	uint8_t kind;  /* enum psc_mpi_item */
	uint8_t flags; /* PSC_MPI_F_* */
	uint32_t comm; /* index in comms */
	int32_t peer;  /* SEND/ISEND: destination; RECV/IRECV: source; COLL: root (-1 none) */
	int32_t tag;
	uint64_t bytes;		  /* COLL: bytes sent */
	union {			  /* word 3 of the record: 40 bytes an item, not 48 */
		uint64_t bytes2;  /* COLL: bytes received */
		uint64_t request; /* the other kinds: the request's id, 0 none */
	};
	uint32_t call; /* the call it belongs to */
	uint32_t msg;  /* SEND, ISEND, RECV: its message in msgs, MPI_NONE unmatched */
};

/* In mpi_item.flags beside PSC_MPI_F_*, set by matching: an ISEND whose cancellation MPI
 * confirmed (a CANCEL item without PSC_MPI_F_FREED): no message, neither matched nor not. */
#define MPI_ITEM_F_CANCELLED 0x80u

struct mpi_comm_info {
	uint64_t key; /* the same in every member (format.h PSC_REC_MPI_COMM) */
	uint32_t size;
	int32_t *members; /* world rank of each member, in communicator rank order */
};

/* A point-to-point message, matched by (source, destination, communicator, tag) in order. */
struct mpi_message {
	int32_t src, dst, tag;
	uint32_t comm;
	uint64_t bytes;		 /* as the receiver's status says when matched */
	uint32_t send_call;	 /* started the send: Send, Isend, Start, Sendrecv */
	uint32_t send_done_call; /* completed it: send_call when blocking; MPI_NONE unknown */
	uint32_t recv_post_call; /* posted the receive: Recv, Irecv, Start, Sendrecv; MPI_NONE */
	uint32_t recv_call;	 /* completed the receive; MPI_NONE when unmatched */
	int sync;		 /* synchronous send (Ssend, Issend) */
};

/* A collective operation: the calls of its participants, in communicator rank order. */
struct mpi_coll {
	uint32_t comm;
	uint32_t routine;
	int32_t root;	   /* world rank, -1 unrooted */
	uint32_t first, n; /* coll_calls[first .. first + n) */
	uint32_t nmissing; /* members without a matching call (a rank missing or cut short) */
};

/* Where an MPI call was made: resolved from the return address when symbols are known. */
struct mpi_site {
	int rank;
	uint64_t addr;
	char *function; /* "" unknown */
	char *file;	/* "" unknown */
	unsigned line;	/* 0 unknown */
};

struct mpi_index;

struct mpi_model {
	char *source; /* the directory or archive it came from */
	int world_size;
	struct mpi_rank_info *ranks; /* world_size, index = world rank */
	struct mpi_loc *locs;
	size_t nlocs;
	struct mpi_call *calls;
	size_t ncalls;
	struct mpi_item *items;
	size_t nitems;
	struct mpi_message *msgs;
	size_t nmsgs;
	struct mpi_comm_info *comms;
	size_t ncomms;
	struct mpi_coll *colls;
	size_t ncolls;
	uint32_t *coll_calls;
	size_t ncoll_calls;
	struct mpi_site *sites;
	size_t nsites;
	int64_t start_ns, end_ns;      /* the run: first and last event of any rank */
	int clock_aligned;	       /* offsets were applied (the ranks measured them) */
	uint64_t violations_unaligned; /* messages received before they were sent on the
					* ranks' own clocks (= violations_before unaligned) */
	uint64_t violations_before;    /* received before sent after clock alignment */
	uint64_t violations_after;     /* after correction (0 unless it gave up) */
	int64_t max_correction_ns;     /* the largest forward shift the correction applied */
	/* with MPI_BUILD_KEEP_UNCORRECTED, when the correction moved a call: every call's times
	 * before it (on rank 0's clock), by call index; else NULL */
	struct mpi_call_times *uncorrected;
	uint64_t coll_violations_before; /* collective calls (a non-blocking one: the call
					  * completing its request) left before a rank they
					  * depend on entered, after clock alignment */
	uint64_t coll_violations_after;	 /* after correction (0 unless it gave up) */
	uint64_t unmatched_sends; /* sends no receive matched (messages with recv_call MPI_NONE) */
	uint64_t unmatched_recvs; /* receives no send matched (RECV items with msg MPI_NONE) */
	uint64_t cancelled_sends; /* ISEND items with MPI_ITEM_F_CANCELLED */
	char **warnings;	  /* one line each: missing or truncated ranks, dropped records */
	size_t nwarnings;
	/* builder state (mpi-model.c) */
	size_t calls_cap, items_cap, locs_cap, comms_cap, sites_cap, warnings_cap;
	struct mpi_index *index; /* lookups of communicators by key and sites by address */
};

void mpi_model_init(struct mpi_model *m);
void mpi_model_release(struct mpi_model *m);

/* Builder: the world has SIZE ranks (ranks[] allocated, none present yet). 0 or -errno. */
int mpi_model_set_world(struct mpi_model *m, int size);

/* A location (thread TID of RANK); its calls follow. Returns the index or a negative errno:
 * -E2BIG past MPI_LOCS_MAX locations. */
long mpi_model_add_loc(struct mpi_model *m, int rank, pid_t tid);

/* A communicator by its key; an existing key returns the existing index. Index or -errno. */
long mpi_model_add_comm(struct mpi_model *m, uint64_t key, const int32_t *members, uint32_t size);

/* A call site of RANK at ADDR (names may be NULL); an existing one is reused. Index or -errno. */
long mpi_model_add_site(struct mpi_model *m, int rank, uint64_t addr, const char *function,
			const char *file, unsigned line);

/* A call of LOC, which must be the last location added; times on the rank's own clock
 * (mpi_model_build aligns them). Index or -errno. */
long mpi_model_add_call(struct mpi_model *m, uint32_t loc, uint32_t routine, int64_t enter_ns,
			int64_t leave_ns, uint32_t site);

/* An item of the last call added (its call and msg fields are set here). 0 or -errno. */
int mpi_model_add_item(struct mpi_model *m, const struct mpi_item *it);

/* A warning line (printf format), shown by every MPI analysis. 0 or -errno. */
int mpi_model_warn(struct mpi_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

enum mpi_build_flags {
	MPI_BUILD_ALIGNED = 0x1,       /* times are already on one clock (OTF2): no offsets */
	MPI_BUILD_NO_CORRECTION = 0x2, /* count causality violations but do not correct them */
	/* keep the calls' times before the correction (mpi_model.uncorrected): for an export that
	 * places the corrected calls among the functions by the times they were recorded at */
	MPI_BUILD_KEEP_UNCORRECTED = 0x4,
};

/*
 * After loading: put every rank's times on rank 0's clock (linear interpolation between
 * its init and finalize offsets; one offset when only one was measured), match messages
 * and collectives, count the messages received before they were sent and the collectives
 * left before a rank they depend on entered, and correct them with a forward shift of the
 * receiver amortised over its preceding interval, counting again afterwards. 0, or a
 * negative errno with a message in ERR.
 */
int mpi_model_build(struct mpi_model *m, unsigned flags, char *err, size_t errlen);

/* The offset mpi_model_build adds at time T of rank R's own clock: interpolated between the
 * offsets measured at init and finalize, the one measured when only one was, else 0. */
int64_t mpi_rank_clock_offset(const struct mpi_rank_info *r, int64_t t);

/* The end of CALL's items, items[CALL->first_item .. this): where the next call's begin. */
static inline uint32_t mpi_call_items_end(const struct mpi_model *m, const struct mpi_call *c)
{
	return c + 1 < m->calls + m->ncalls ? c[1].first_item : (uint32_t)m->nitems;
}

/* Rank of CALL (via its location). */
static inline int mpi_call_rank(const struct mpi_model *m, const struct mpi_call *c)
{
	return m->locs[c->loc].rank;
}

struct experiment;

/*
 * Read the MPI records of every stream of E into M and build it (mpi-read.c): one pass of
 * mpi_model_consumer(). A rank whose streams are missing, damaged or cut short is a warning,
 * not an error. -ENODATA with "DIR: no MPI records (record with perfscope record --mpi)" in
 * ERR when E has none.
 */
int mpi_model_load(struct mpi_model *m, const struct experiment *e, unsigned flags, char *err,
		   size_t errlen);

struct ev_consumer;

/*
 * The consumer that reads E's MPI records into M in a pass over E (model/pass.h) and builds M
 * with FLAGS (MPI_BUILD_*) at its finish: what mpi_model_load does, for a pass that builds
 * other analyses too. Run it with EV_PASS_KEEP_GOING (a damaged stream is a warning of its
 * rank), isolated (ev_consumer_isolate) beside consumers that fail on damage; its finish
 * fails with -ENODATA when E has no MPI records. 0 or -ENOMEM (C is released either way).
 */
int mpi_model_consumer(struct ev_consumer *c, struct mpi_model *m, const struct experiment *e,
		       unsigned flags);

/* Read an OTF2 archive (its anchor file, ARCHIVE/traces.otf2) into M and build it
 * (otf2-import.c). 0, or a negative errno with the OTF2 error text and path in ERR. */
int mpi_model_load_otf2(struct mpi_model *m, const char *anchor, unsigned flags, char *err,
			size_t errlen);

#endif /* PSC_MPI_MODEL_H */
