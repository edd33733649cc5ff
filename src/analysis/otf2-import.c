/*
 * otf2-import.c - an OTF2 archive (Score-P's, or perfscope export's) into the MPI model
 * (mpi-model.h). The global definitions give the ranks (the locations of the MPI
 * COMM_LOCATIONS group, or the process location groups in order), the communicators as
 * world ranks, the regions that are MPI routines and the clock. Each location's events are
 * then read on their own: the Enter/Leave of an MPI routine is a call, and the message and
 * collective events between them are its items. Everything else (other regions, metrics,
 * I/O) is not part of the MPI model and is skipped.
 */
#include "mpi-model.h"

#include "../core/format.h"
#include "../core/mpi-routines.h"
#include "u64map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define UNUSED __attribute__((unused))

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
};

struct imp_lgroup {
	uint8_t process; /* of type PROCESS */
	int rank;
};

struct imp_loc {
	uint64_t id, group; /* its id, its location group's id */
	int rank;	    /* -1: not an MPI location */
	uint32_t thread;
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
	long cur_model_loc; /* -1 until its first call */
	struct imp_call call;
	uint64_t unknown_calls, stray_items, nested_calls, open_calls;
	char unknown_names[160]; /* the first routines not modelled, for the warning */
};

static char otf2_msg[256]; /* the last OTF2 error message, from the callback */

static OTF2_ErrorCode error_cb(void *ud UNUSED, const char *file UNUSED, uint64_t line UNUSED,
			       const char *function UNUSED, OTF2_ErrorCode code, const char *fmt,
			       va_list va)
{
	size_t n = strlen(otf2_msg);

	/* the first two messages of a failure: the innermost, the cause, and its context */
	if (!strchr(otf2_msg, ';') && n + 3 < sizeof(otf2_msg)) {
		strcpy(otf2_msg + n, n ? "; " : "");
		vsnprintf(otf2_msg + n + (n ? 2 : 0), sizeof(otf2_msg) - n - 2, fmt ? fmt : "", va);
	}
	return code;
}

static int fail_otf2(struct imp *im, OTF2_ErrorCode code, const char *what)
{
	if (!im->failed)
		snprintf(im->err, im->errlen, "%s: %s: %s (%s)%s%s", im->anchor, what,
			 OTF2_Error_GetDescription(code), OTF2_Error_GetName(code),
			 otf2_msg[0] ? ": " : "", otf2_msg);
	im->failed = 1;
	return code == OTF2_ERROR_MEM_ALLOC_FAILED ? -ENOMEM : -EINVAL;
}

static __attribute__((format(printf, 3, 4))) int fail(struct imp *im, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (im->failed)
		return ret;
	n = snprintf(im->err, im->errlen, "%s: ", im->anchor);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < im->errlen)
		vsnprintf(im->err + n, im->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	im->failed = 1;
	return ret;
}

/* Room for one more element in *ARR (N used of *CAP). 0 or -ENOMEM. */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, c * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

/* The index of ID in MAP, or -1. */
static long lookup(const struct u64map *map, uint64_t id)
{
	uint64_t v = 0;
	return u64map_get(map, id, &v) ? (long)v : -1;
}

static const char *string_of(const struct imp *im, uint64_t id)
{
	long i = lookup(&im->string_ix, id);

	return i >= 0 ? im->strings[i] : "";
}

/* ---- global definitions ---- */

#define CB_OOM(im) (fail((im), -ENOMEM, "out of memory"), OTF2_CALLBACK_INTERRUPT)

static OTF2_CallbackCode def_clock(void *ud, uint64_t resolution, uint64_t offset,
				   uint64_t length UNUSED, uint64_t realtime UNUSED)
{
	struct imp *im = ud;

	im->timer_resolution = resolution;
	im->global_offset = offset;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
	struct imp *im = ud;
	char *copy;

	if (grow((void **)&im->strings, &im->strings_cap, im->nstrings, sizeof(char *)))
		return CB_OOM(im);
	copy = strdup(s ? s : "");
	if (!copy || u64map_put(&im->string_ix, self, im->nstrings)) {
		free(copy);
		return CB_OOM(im);
	}
	im->strings[im->nstrings++] = copy;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canonical, OTF2_StringRef descr UNUSED,
				    OTF2_RegionRole role UNUSED, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags UNUSED, OTF2_StringRef file UNUSED,
				    uint32_t begin UNUSED, uint32_t end UNUSED)
{
	struct imp *im = ud;
	struct imp_region *r;

	if (grow((void **)&im->regions, &im->regions_cap, im->nregions, sizeof(*r)) ||
	    u64map_put(&im->region_ix, self, im->nregions))
		return CB_OOM(im);
	r = &im->regions[im->nregions++];
	/* the canonical name is the routine's own ("MPI_Send"); the name may be decorated */
	r->name = canonical != OTF2_UNDEFINED_STRING ? canonical : name;
	r->mpi = paradigm == OTF2_PARADIGM_MPI;
	r->routine = -1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lgroup(void *ud, OTF2_LocationGroupRef self,
				    OTF2_StringRef name UNUSED, OTF2_LocationGroupType type,
				    OTF2_SystemTreeNodeRef parent UNUSED,
				    OTF2_LocationGroupRef creator UNUSED)
{
	struct imp *im = ud;
	struct imp_lgroup *g;

	if (grow((void **)&im->lgroups, &im->lgroups_cap, im->nlgroups, sizeof(*g)) ||
	    u64map_put(&im->lgroup_ix, self, im->nlgroups))
		return CB_OOM(im);
	g = &im->lgroups[im->nlgroups++];
	g->process = type == OTF2_LOCATION_GROUP_TYPE_PROCESS;
	g->rank = -1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name UNUSED,
				      OTF2_LocationType type, uint64_t nevents UNUSED,
				      OTF2_LocationGroupRef group)
{
	struct imp *im = ud;
	struct imp_loc *l;

	if (type != OTF2_LOCATION_TYPE_CPU_THREAD)
		return OTF2_CALLBACK_SUCCESS; /* GPU and metric locations: no MPI calls */
	if (grow((void **)&im->locs, &im->locs_cap, im->nlocs, sizeof(*im->locs)))
		return CB_OOM(im);
	l = &im->locs[im->nlocs++];
	l->id = self;
	l->group = group;
	l->rank = -1;
	l->thread = 0;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name UNUSED,
				   OTF2_GroupType type, OTF2_Paradigm paradigm,
				   OTF2_GroupFlag flags UNUSED, uint32_t n, const uint64_t *members)
{
	struct imp *im = ud;
	struct imp_group *g;

	if (grow((void **)&im->groups, &im->groups_cap, im->ngroups, sizeof(*im->groups)) ||
	    u64map_put(&im->group_ix, self, im->ngroups))
		return CB_OOM(im);
	g = &im->groups[im->ngroups];
	g->type = (uint8_t)type;
	g->paradigm = (uint8_t)paradigm;
	g->n = n;
	g->members = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!g->members)
		return CB_OOM(im);
	if (n)
		memcpy(g->members, members, n * sizeof(uint64_t));
	im->ngroups++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name UNUSED,
				  OTF2_GroupRef group, OTF2_CommRef parent UNUSED,
				  OTF2_CommFlag flags UNUSED)
{
	struct imp *im = ud;
	struct imp_comm *c;

	if (grow((void **)&im->comms, &im->comms_cap, im->ncomms, sizeof(*c)) ||
	    u64map_put(&im->comm_ix, self, im->ncomms))
		return CB_OOM(im);
	c = &im->comms[im->ncomms++];
	c->group_id = group;
	c->group = UINT64_MAX;
	c->model = -1;
	return OTF2_CALLBACK_SUCCESS;
}

static int loc_cmp(const void *a, const void *b)
{
	const struct imp_loc *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* After the definitions: regions to routines, locations to ranks, communicators to groups. */
static int resolve(struct imp *im)
{
	const struct imp_group *world = NULL;
	int size = 0;

	for (size_t i = 0; i < im->nregions; i++) {
		struct imp_region *reg = &im->regions[i];
		const char *name = string_of(im, reg->name);
		int r = mpi_routine_find(name);

		if (!reg->mpi && strncmp(name, "MPI_", 4) != 0)
			r = -1;
		else if (r < 0)
			r = -2;
		reg->routine = r;
	}
	for (size_t i = 0; i < im->ncomms; i++) {
		long g = lookup(&im->group_ix, im->comms[i].group_id);

		im->comms[i].group = g >= 0 ? (uint64_t)g : UINT64_MAX;
	}
	/* ranks: the locations of the MPI COMM_LOCATIONS group in order, each standing for its
	 * location group (the rank's process); else the process location groups in order */
	for (size_t i = 0; i < im->ngroups && !world; i++)
		if (im->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
		    im->groups[i].paradigm == OTF2_PARADIGM_MPI)
			world = &im->groups[i];
	if (world) {
		for (uint32_t r = 0; r < world->n; r++)
			for (size_t j = 0; j < im->nlocs; j++) {
				long lg = lookup(&im->lgroup_ix, im->locs[j].group);

				if (im->locs[j].id == world->members[r] && lg >= 0)
					im->lgroups[lg].rank = (int)r;
			}
		size = (int)world->n;
	} else {
		for (size_t i = 0; i < im->nlgroups; i++)
			if (im->lgroups[i].process)
				im->lgroups[i].rank = size++;
	}
	if (size <= 0)
		return fail(im, -ENODATA, "no MPI ranks in the definitions (no MPI locations)");
	for (size_t j = 0; j < im->nlocs; j++) {
		long lg = lookup(&im->lgroup_ix, im->locs[j].group);

		im->locs[j].rank = lg >= 0 ? im->lgroups[lg].rank : -1;
	}
	/* a rank's locations next to each other, its threads numbered in id order */
	qsort(im->locs, im->nlocs, sizeof(*im->locs), loc_cmp);
	for (size_t j = 0; j < im->nlocs; j++)
		im->locs[j].thread =
		    j && im->locs[j - 1].rank == im->locs[j].rank ? im->locs[j - 1].thread + 1 : 0;
	return mpi_model_set_world(im->m, size) < 0 ? fail(im, -ENOMEM, "out of memory") : 0;
}

/* ---- events ---- */

/* Ticks to ns since the global offset. */
static int64_t ns_of(const struct imp *im, OTF2_TimeStamp t)
{
	__int128 d = (__int128)t - (__int128)im->global_offset;

	if (im->timer_resolution == 1000000000u)
		return (int64_t)d;
	return (int64_t)(d * 1000000000 / (__int128)im->timer_resolution);
}

/* The model communicator of OTF2 communicator ID as seen by the current rank, or -1. */
static long comm_of(struct imp *im, OTF2_CommRef id)
{
	long c = lookup(&im->comm_ix, id);
	const struct imp_group *g;
	int32_t *members, self;
	uint64_t key;
	long ret;

	if (c < 0 || im->comms[c].group == UINT64_MAX)
		return -1;
	g = &im->groups[im->comms[c].group];
	if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
		/* one communicator per rank: its own key */
		self = im->cur->rank;
		key = (1ull << 63) | ((uint64_t)(uint32_t)c << 32) | (uint32_t)self;
		return mpi_model_add_comm(im->m, key, &self, 1);
	}
	if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
		return -1;
	if (im->comms[c].model >= 0)
		return im->comms[c].model;
	members = malloc((g->n ? g->n : 1) * sizeof(*members));
	if (!members)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n; i++)
		members[i] = (int32_t)g->members[i];
	ret = mpi_model_add_comm(im->m, (uint64_t)c, members, g->n);
	free(members);
	if (ret >= 0)
		im->comms[c].model = ret;
	return ret;
}

/* The world rank of communicator rank R of model communicator C (-1 for none). */
static int32_t world_rank(const struct imp *im, long c, uint32_t r)
{
	const struct mpi_comm_info *ci = &im->m->comms[c];

	if (r == OTF2_UNDEFINED_UINT32 || r >= ci->size)
		return PSC_MPI_ANY;
	return ci->members[r];
}

/* An item of the open MPI call; peer is a rank in communicator COMM, converted here. */
static OTF2_CallbackCode add_item(struct imp *im, enum psc_mpi_item kind, OTF2_CommRef comm,
				  uint32_t peer, uint32_t tag, uint64_t bytes, uint64_t bytes2,
				  uint64_t request)
{
	struct mpi_item it;
	long c = 0;

	if (im->call.depth == 0) {
		im->stray_items++;
		return OTF2_CALLBACK_SUCCESS;
	}
	memset(&it, 0, sizeof(it));
	if (comm != OTF2_UNDEFINED_COMM) {
		c = comm_of(im, comm);
		if (c == -ENOMEM)
			return CB_OOM(im);
		if (c < 0)
			return fail(im, -EINVAL,
				    "location %" PRIu64 ": communicator %" PRIu32
				    " is not defined or not an MPI communicator",
				    im->cur->id, (uint32_t)comm),
			       OTF2_CALLBACK_INTERRUPT;
		it.peer = world_rank(im, c, peer);
	}
	it.kind = (uint8_t)kind;
	it.comm = (uint32_t)c;
	it.tag = tag == OTF2_UNDEFINED_UINT32 ? PSC_MPI_ANY : (int32_t)tag;
	it.bytes = bytes;
	it.bytes2 = bytes2;
	it.request = request;
	if (im->call.routine == MPI_ROUTINE_Ssend || im->call.routine == MPI_ROUTINE_Issend)
		it.flags = PSC_MPI_F_SYNC;
	if (grow((void **)&im->call.items, &im->call.cap, im->call.nitems, sizeof(it)))
		return CB_OOM(im);
	im->call.items[im->call.nitems++] = it;
	return OTF2_CALLBACK_SUCCESS;
}

/* Add NAME to the list of routines left out (the first few, each once). */
static void note_unknown(struct imp *im, const char *name)
{
	size_t n = strlen(im->unknown_names), k = strlen(name);
	const char *p = im->unknown_names;

	while ((p = strstr(p, name))) {
		if ((p == im->unknown_names || p[-1] == ' ') && (p[k] == ',' || p[k] == 0))
			return;
		p += k;
	}
	if (n + k + 8 >= sizeof(im->unknown_names)) {
		if (!strstr(im->unknown_names, ", ..."))
			snprintf(im->unknown_names + n, sizeof(im->unknown_names) - n, ", ...");
		return;
	}
	snprintf(im->unknown_names + n, sizeof(im->unknown_names) - n, "%s%s", n ? ", " : "", name);
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct imp *im = ud;
	long r = lookup(&im->region_ix, region);

	if (r < 0 || im->regions[r].routine == -1)
		return OTF2_CALLBACK_SUCCESS;
	if (im->call.depth++ > 0) {
		im->nested_calls++;
		return OTF2_CALLBACK_SUCCESS;
	}
	im->call.routine = im->regions[r].routine;
	im->call.region = r;
	im->call.enter_ns = ns_of(im, t);
	im->call.nitems = 0;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				  uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				  OTF2_RegionRef region)
{
	struct imp *im = ud;
	long r = lookup(&im->region_ix, region), ret;

	if (r < 0 || im->regions[r].routine == -1 || im->call.depth == 0)
		return OTF2_CALLBACK_SUCCESS;
	if (--im->call.depth > 0)
		return OTF2_CALLBACK_SUCCESS;
	if (im->call.routine < 0) {
		note_unknown(im, string_of(im, im->regions[im->call.region].name));
		im->unknown_calls++;
		im->stray_items += im->call.nitems;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (im->cur_model_loc < 0) {
		im->cur_model_loc = mpi_model_add_loc(im->m, im->cur->rank, (pid_t)im->cur->thread);
		if (im->cur_model_loc < 0)
			return CB_OOM(im);
	}
	ret = mpi_model_add_call(im->m, (uint32_t)im->cur_model_loc, (uint32_t)im->call.routine,
				 im->call.enter_ns, ns_of(im, t), MPI_NONE);
	if (ret < 0)
		return CB_OOM(im);
	for (size_t i = 0; i < im->call.nitems; i++)
		if (mpi_model_add_item(im->m, &im->call.items[i]) < 0)
			return CB_OOM(im);
	return OTF2_CALLBACK_SUCCESS;
}

#define EV_HEAD(name, ...)                                                                         \
	static OTF2_CallbackCode name(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t UNUSED,        \
				      uint64_t pos UNUSED, void *ud,                               \
				      OTF2_AttributeList *al UNUSED, __VA_ARGS__)

EV_HEAD(ev_send, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return add_item(ud, PSC_MPI_ITEM_SEND, comm, receiver, tag, len, 0, 0);
}

EV_HEAD(ev_isend, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_ISEND, comm, receiver, tag, len, 0, req);
}

EV_HEAD(ev_isend_complete, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_ISEND_DONE, OTF2_UNDEFINED_COMM, 0, 0, 0, 0, req);
}

EV_HEAD(ev_irecv_request, uint64_t req)
{
	/* the source and tag as posted are not in OTF2: any */
	return add_item(ud, PSC_MPI_ITEM_IRECV, OTF2_UNDEFINED_COMM, 0, OTF2_UNDEFINED_UINT32, 0, 0,
			req);
}

EV_HEAD(ev_irecv, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_RECV, comm, sender, tag, len, 0, req);
}

EV_HEAD(ev_recv, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return add_item(ud, PSC_MPI_ITEM_RECV, comm, sender, tag, len, 0, 0);
}

EV_HEAD(ev_cancelled, uint64_t req)
{
	return add_item(ud, PSC_MPI_ITEM_CANCEL, OTF2_UNDEFINED_COMM, 0, 0, 0, 0, req);
}

EV_HEAD(ev_coll_end, OTF2_CollectiveOp op UNUSED, OTF2_CommRef comm, uint32_t root, uint64_t sent,
	uint64_t received)
{
	return add_item(ud, PSC_MPI_ITEM_COLL, comm, root, OTF2_UNDEFINED_UINT32, sent, received,
			0);
}

static OTF2_ErrorCode read_location(struct imp *im, OTF2_Reader *rd, OTF2_EvtReaderCallbacks *cbs,
				    const struct imp_loc *l)
{
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
	OTF2_ErrorCode code;
	uint64_t n;

	if (!er)
		return OTF2_ERROR_INVALID_ARGUMENT;
	im->cur = l;
	im->cur_model_loc = -1;
	im->call.depth = 0;
	/* the rank's first location always, later threads when they called MPI */
	if (l->thread == 0) {
		im->cur_model_loc = mpi_model_add_loc(im->m, l->rank, (pid_t)l->thread);
		if (im->cur_model_loc < 0)
			return OTF2_ERROR_MEM_ALLOC_FAILED;
	}
	code = OTF2_Reader_RegisterEvtCallbacks(rd, er, cbs, im);
	if (code == OTF2_SUCCESS)
		code = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
	if (im->call.depth > 0)
		im->open_calls++;
	OTF2_Reader_CloseEvtReader(rd, er);
	return code;
}

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cbs = OTF2_EvtReaderCallbacks_New();

	if (!cbs)
		return NULL;
	OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, ev_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cbs, ev_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cbs, ev_isend_complete);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cbs, ev_irecv_request);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cbs, ev_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, ev_recv);
	OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cbs, ev_cancelled);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cbs, ev_coll_end);
	return cbs;
}

static int read_definitions(struct imp *im, OTF2_Reader *rd)
{
	OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
	OTF2_GlobalDefReaderCallbacks *cbs;
	OTF2_ErrorCode code;
	uint64_t n;

	if (!gr)
		return fail_otf2(im, OTF2_ERROR_FILE_CAN_NOT_OPEN, "cannot read the definitions");
	cbs = OTF2_GlobalDefReaderCallbacks_New();
	if (!cbs)
		return fail(im, -ENOMEM, "out of memory");
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cbs, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, def_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cbs, def_region);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cbs, def_lgroup);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cbs, def_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cbs, def_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cbs, def_comm);
	code = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cbs, im);
	OTF2_GlobalDefReaderCallbacks_Delete(cbs);
	if (code == OTF2_SUCCESS)
		code = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n);
	OTF2_Reader_CloseGlobalDefReader(rd, gr);
	if (im->failed)
		return -ENOMEM;
	if (code != OTF2_SUCCESS)
		return fail_otf2(im, code, "reading the definitions");
	if (im->timer_resolution == 0)
		return fail(im, -EINVAL, "the definitions have no clock properties");
	return resolve(im);
}

/* Local definitions carry the mapping tables and clock offsets the event readers apply. */
static int read_local_definitions(struct imp *im, OTF2_Reader *rd)
{
	OTF2_ErrorCode code;

	for (size_t i = 0; i < im->nlocs; i++) {
		code = OTF2_Reader_SelectLocation(rd, im->locs[i].id);
		if (code != OTF2_SUCCESS)
			return fail_otf2(im, code, "selecting the locations");
	}
	if (OTF2_Reader_OpenDefFiles(rd) != OTF2_SUCCESS)
		return 0; /* an archive without local definitions */
	for (size_t i = 0; i < im->nlocs; i++) {
		OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, im->locs[i].id);
		uint64_t n;

		if (!dr)
			continue;
		code = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
		OTF2_Reader_CloseDefReader(rd, dr);
		if (code != OTF2_SUCCESS) {
			OTF2_Reader_CloseDefFiles(rd);
			return fail_otf2(im, code, "reading the local definitions");
		}
	}
	OTF2_Reader_CloseDefFiles(rd);
	return 0;
}

static int read_events(struct imp *im, OTF2_Reader *rd)
{
	OTF2_EvtReaderCallbacks *cbs = event_callbacks();
	OTF2_ErrorCode code = OTF2_SUCCESS;
	char what[64];

	if (!cbs)
		return fail(im, -ENOMEM, "out of memory");
	code = OTF2_Reader_OpenEvtFiles(rd);
	if (code != OTF2_SUCCESS) {
		OTF2_EvtReaderCallbacks_Delete(cbs);
		return fail_otf2(im, code, "opening the event files");
	}
	for (size_t i = 0; i < im->nlocs && code == OTF2_SUCCESS && !im->failed; i++) {
		if (im->locs[i].rank < 0)
			continue;
		code = read_location(im, rd, cbs, &im->locs[i]);
		if (code != OTF2_SUCCESS && !im->failed) {
			snprintf(what, sizeof(what), "events of location %" PRIu64, im->locs[i].id);
			fail_otf2(im, code, what);
		}
	}
	OTF2_Reader_CloseEvtFiles(rd);
	OTF2_EvtReaderCallbacks_Delete(cbs);
	return im->failed ? -EINVAL : 0;
}

static void imp_release(struct imp *im)
{
	for (size_t i = 0; i < im->nstrings; i++)
		free(im->strings[i]);
	for (size_t i = 0; i < im->ngroups; i++)
		free(im->groups[i].members);
	free(im->strings);
	free(im->regions);
	free(im->groups);
	free(im->comms);
	free(im->lgroups);
	free(im->locs);
	free(im->call.items);
	u64map_release(&im->string_ix);
	u64map_release(&im->region_ix);
	u64map_release(&im->group_ix);
	u64map_release(&im->comm_ix);
	u64map_release(&im->lgroup_ix);
}

/* Say what was left out, as the model's warnings. */
static int warn_skipped(struct imp *im)
{
	const struct {
		uint64_t n;
		const char *what;
	} w[] = {
	    {im->unknown_calls, "calls of MPI routines perfscope does not model (left out):"},
	    {im->stray_items, "MPI events outside a modelled MPI call (left out)"},
	    {im->nested_calls, "MPI calls inside other MPI calls (taken as part of the outer one)"},
	    {im->open_calls, "locations end inside an MPI call (cut short; the call is left out)"},
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (w[i].n)
			ret |= mpi_model_warn(im->m, "%s: %" PRIu64 " %s%s%s", im->anchor, w[i].n,
					      w[i].what, i == 0 ? " " : "",
					      i == 0 ? im->unknown_names : "");
	return ret < 0 ? -ENOMEM : 0;
}

int mpi_model_load_otf2(struct mpi_model *m, const char *anchor, unsigned flags, char *err,
			size_t errlen)
{
	struct imp im;
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(error_cb, NULL);
	OTF2_Reader *rd;
	OTF2_ErrorCode code;
	int ret;

	memset(&im, 0, sizeof(im));
	im.m = m;
	im.anchor = anchor;
	im.err = err;
	im.errlen = errlen;
	otf2_msg[0] = 0;
	if (!m->source && !(m->source = strdup(anchor))) {
		ret = fail(&im, -ENOMEM, "out of memory");
		goto out;
	}
	rd = OTF2_Reader_Open(anchor);
	if (!rd) {
		ret = fail(&im, -ENOENT, "cannot open the OTF2 archive%s%s",
			   otf2_msg[0] ? ": " : "", otf2_msg);
		goto out;
	}
	code = OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	if (code != OTF2_SUCCESS) {
		ret = fail_otf2(&im, code, "opening the archive");
		goto close;
	}
	ret = read_definitions(&im, rd);
	if (ret == 0)
		ret = read_local_definitions(&im, rd);
	if (ret == 0)
		ret = read_events(&im, rd);
	if (ret == 0)
		ret = warn_skipped(&im);
close:
	OTF2_Reader_Close(rd);
	if (ret == 0)
		ret = mpi_model_build(m, flags | MPI_BUILD_ALIGNED, err, errlen);
out:
	OTF2_Error_RegisterCallback(old, NULL);
	imp_release(&im);
	return ret;
}
