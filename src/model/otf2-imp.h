/*
 * otf2-imp.h - what the two halves of the OTF2 import share (otf2-import-defs.c reads the
 * definitions, otf2-import.c the events), and the archive source (source-otf2.c) reads the
 * definitions with: not for other callers (they use pass.h and otf2-calls.h).
 */
#ifndef PSC_OTF2_IMP_H
#define PSC_OTF2_IMP_H

#include "analysis/mpi/mpi-model.h"
#include "lib/hashmap.h"
#include "lib/array.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#define UNUSED __attribute__((unused))

/* A callback's answer to running out of memory: the failure noted, reading stops. */
#define CB_OOM(im) (otf2i_fail((im), -ENOMEM, "out of memory"), OTF2_CALLBACK_INTERRUPT)

/* A group definition: for COMM_LOCATIONS the locations of each rank, for COMM_GROUP the
 * ranks of the communicator's members. */
struct imp_group {
	uint8_t type, paradigm;
	uint32_t n;
	uint64_t *members;
};

struct imp_comm {
	uint64_t group_id; /* as defined */
	uint64_t group;	   /* index in groups, UINT64_MAX unknown */
	long model;	   /* its model communicator (not for COMM_SELF), -1 not added yet */
};

struct imp_region {
	uint64_t name;	 /* string id */
	int32_t routine; /* routine id, -1 not MPI, -2 an MPI routine the model does not know */
	uint8_t mpi;	 /* of the MPI paradigm */
	uint8_t role;	 /* OTF2_RegionRole */
	uint64_t display, file; /* string ids: its name as shown, its source file (or undefined) */
	uint32_t line;		/* its first line, 0 unknown */
};

struct imp_lgroup {
	uint8_t process; /* of type PROCESS */
	int rank;
};

struct imp_loc {
	uint64_t id, group; /* its id, its location group's id */
	uint64_t name;	    /* string id */
	int rank;	    /* -1: not an MPI location */
	uint32_t thread;
};

/* The first and last event of a rank: its run, beyond its MPI calls. */
struct imp_span {
	int seen;
	int64_t first, last;
};

/* The MPI call a location is in, collected until its Leave. */
struct imp_call {
	int depth;   /* MPI regions open: nested ones belong to the outermost */
	int routine; /* -1: an MPI routine the model does not know */
	long region; /* its region */
	int64_t enter_ns;
	struct mpi_item *items;
	size_t nitems, cap;
};

/* A non-blocking collective's start (NonBlockingCollectiveRequest in an I-call: its COLL
 * item, whose communicator, root and bytes only the completion names) or its completion
 * (NonBlockingCollectiveComplete), kept until the events are read and the two are paired. */
struct imp_nbc {
	int32_t rank;
	uint64_t request;
	uint64_t seq;  /* reading order */
	int64_t t;     /* the enter of the call holding it (ns): pairs a reused request */
	uint32_t item; /* a start: its COLL item in the model */
	uint32_t comm; /* a completion: the model communicator, the root (world rank, -1 none) */
	int32_t root;
	uint64_t sent, received;
};

#define OTF2I_MSG_LEN 256 /* an imp's msg: OTF2's error messages of a failure */

struct imp {
	struct mpi_model *m;
	const char *anchor;
	char *err;
	size_t errlen;
	int failed; /* a callback failed: ERR says why */
	/* definitions, by id through maps into the arrays */
	struct u64map string_ix, region_ix, group_ix, comm_ix, lgroup_ix;
	char **strings;
	size_t nstrings, strings_cap;
	struct imp_region *regions;
	size_t nregions, regions_cap;
	struct imp_group *groups;
	size_t ngroups, groups_cap;
	struct imp_comm *comms;
	size_t ncomms, comms_cap;
	struct imp_lgroup *lgroups;
	size_t nlgroups, lgroups_cap;
	struct imp_loc *locs;
	size_t nlocs, locs_cap;
	uint64_t timer_resolution, global_offset;
	/* events of the location being read */
	const struct imp_loc *cur;
	int64_t last_ns;    /* its latest event's time (otf2i_event_ns); 0 before its first */
	long cur_model_loc; /* -1 until its first call */
	struct imp_call call;
	uint64_t unknown_calls, stray_items, nested_calls, open_calls;
	uint64_t nocomm_items;	 /* messages and collectives naming no communicator */
	char unknown_names[160]; /* the first routines not modelled, for the warning */
	struct imp_span *spans;	 /* per rank: its first and last event of any kind */
	struct imp_nbc *nbc_starts, *nbc_dones;
	size_t nnbc_starts, nbc_starts_cap, nnbc_dones, nbc_dones_cap;
	uint64_t nbc_seq, nbc_open; /* starts read; starts never completed */
	char msg[OTF2I_MSG_LEN]; /* the first OTF2 error messages of a failure (otf2i_error_cb) */
};

/*
 * OTF2's error callback: keeps the first two messages of a failure (the cause and its context)
 * in the buffer of OTF2I_MSG_LEN bytes its user data points to, an imp's msg or the caller's;
 * register it with OTF2_Error_RegisterCallback(otf2i_error_cb, buffer) around the reading.
 */
OTF2_ErrorCode otf2i_error_cb(void *ud, const char *file, uint64_t line, const char *function,
			      OTF2_ErrorCode code, const char *fmt, va_list va);

/* Keep the first failure, "ANCHOR: WHAT: the OTF2 error", in im->err; -ENOMEM or -EINVAL. */
int otf2i_fail_otf2(struct imp *im, OTF2_ErrorCode code, const char *what);

/* Keep the first failure, "ANCHOR: message", in im->err, and return RET. */
int otf2i_fail(struct imp *im, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The index of ID in MAP, or -1. */
long otf2i_lookup(const struct u64map *map, uint64_t id);

/* The latest time an event may have, in ns since the archive's global offset (52 days): with
 * times in [0, OTF2I_NS_MAX] and never going back, no sum of durations overflows. */
#define OTF2I_NS_MAX ((int64_t)1 << 52)

/*
 * Ticks T of an event of the location being read as ns since the archive's global offset. A
 * time before the global offset or after OTF2I_NS_MAX, or before the location's previous event
 * (OTF2 orders each location's events) is a damaged archive: the failure is noted in IM (the
 * caller stops reading when im->failed) and the time returned is within the location's range,
 * so that nothing computed from it before the reading stops can overflow. Reset im->last_ns to
 * 0 before each location.
 */
int64_t otf2i_event_ns(struct imp *im, uint64_t t);

/* The string of id ID, "" when undefined. */
const char *otf2i_string_of(const struct imp *im, uint64_t id);

/* The global definitions: ranks, locations, regions, communicators, clock; the world set up in
 * the model. 0 or a negative errno (im->err says why). */
int otf2i_read_definitions(struct imp *im, OTF2_Reader *rd);

/* The local definitions (mapping tables, clock offsets) the event readers apply. */
int otf2i_read_local_definitions(struct imp *im, OTF2_Reader *rd);

void otf2i_release(struct imp *im);

#endif /* PSC_OTF2_IMP_H */
