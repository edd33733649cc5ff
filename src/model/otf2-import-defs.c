/* otf2-import-defs.c - the definitions of an OTF2 archive for the import (otf2-import.c):
 * strings, regions (which are MPI routines), location groups and locations (which rank, which
 * thread), groups and communicators (world ranks), the clock. */
#include "model/otf2-imp.h"

#include "format/mpi-routines.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

OTF2_ErrorCode otf2i_error_cb(void *ud, const char *file UNUSED, uint64_t line UNUSED,
			      const char *function UNUSED, OTF2_ErrorCode code, const char *fmt,
			      va_list va)
{
	char *msg = ud;
	size_t n;

	if (!msg)
		return code;
	n = strnlen(msg, OTF2I_MSG_LEN - 1);
	/* the first two messages of a failure: the innermost, the cause, and its context */
	if (!strchr(msg, ';') && n + 3 < OTF2I_MSG_LEN) {
		strcpy(msg + n, n ? "; " : "");
		vsnprintf(msg + n + (n ? 2 : 0), OTF2I_MSG_LEN - n - 2, fmt ? fmt : "", va);
	}
	return code;
}

int otf2i_fail_otf2(struct imp *im, OTF2_ErrorCode code, const char *what)
{
	if (!im->failed)
		snprintf(im->err, im->errlen, "%s: %s: %s (%s)%s%s", im->anchor, what,
			 OTF2_Error_GetDescription(code), OTF2_Error_GetName(code),
			 im->msg[0] ? ": " : "", im->msg);
	im->failed = 1;
	return code == OTF2_ERROR_MEM_ALLOC_FAILED ? -ENOMEM : -EINVAL;
}

int otf2i_fail(struct imp *im, int ret, const char *fmt, ...)
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

/* The index of ID in MAP, or -1. */
long otf2i_lookup(const struct u64map *map, uint64_t id)
{
	uint64_t v = 0;
	return u64map_get(map, id, &v) ? (long)v : -1;
}

int64_t otf2i_event_ns(struct imp *im, uint64_t t)
{
	__int128 d = (__int128)t - (__int128)im->global_offset;

	if (im->timer_resolution != 1000000000u)
		d = d * 1000000000 / (__int128)(im->timer_resolution ? im->timer_resolution : 1);
	if (d < 0 || d > OTF2I_NS_MAX || d < im->last_ns) {
		if (!im->failed)
			otf2i_fail(im, -EINVAL,
				   "location %" PRIu64 ": an event at %" PRIu64 " ticks %s: the "
				   "archive is damaged",
				   im->cur ? im->cur->id : 0, t,
				   d < 0 ? "before the archive's global offset"
				   : d > OTF2I_NS_MAX
				       ? "more than 52 days after the archive's start"
				       : "before the location's previous event");
		return im->last_ns;
	}
	im->last_ns = (int64_t)d;
	return im->last_ns;
}

const char *otf2i_string_of(const struct imp *im, uint64_t id)
{
	long i = otf2i_lookup(&im->string_ix, id);

	return i >= 0 ? im->strings[i] : "";
}

/* ---- global definitions ---- */

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

	if (ARRAY_GROW(im->strings, im->nstrings + 1, im->strings_cap))
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
				    OTF2_RegionRole role, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags UNUSED, OTF2_StringRef file,
				    uint32_t begin, uint32_t end UNUSED)
{
	struct imp *im = ud;
	struct imp_region *r;

	if (ARRAY_GROW(im->regions, im->nregions + 1, im->regions_cap) ||
	    u64map_put(&im->region_ix, self, im->nregions))
		return CB_OOM(im);
	r = &im->regions[im->nregions++];
	/* the canonical name is the routine's own ("MPI_Send"); the name may be decorated */
	r->name = canonical != OTF2_UNDEFINED_STRING ? canonical : name;
	r->mpi = paradigm == OTF2_PARADIGM_MPI;
	r->routine = -1;
	r->role = (uint8_t)role;
	/* the name as shown ("int main(int, char**)"); the canonical one may be mangled */
	r->display = name != OTF2_UNDEFINED_STRING ? name : canonical;
	r->file = file;
	r->line = begin;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lgroup(void *ud, OTF2_LocationGroupRef self,
				    OTF2_StringRef name UNUSED, OTF2_LocationGroupType type,
				    OTF2_SystemTreeNodeRef parent UNUSED,
				    OTF2_LocationGroupRef creator UNUSED)
{
	struct imp *im = ud;
	struct imp_lgroup *g;

	if (ARRAY_GROW(im->lgroups, im->nlgroups + 1, im->lgroups_cap) ||
	    u64map_put(&im->lgroup_ix, self, im->nlgroups))
		return CB_OOM(im);
	g = &im->lgroups[im->nlgroups++];
	g->process = type == OTF2_LOCATION_GROUP_TYPE_PROCESS;
	g->rank = -1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t nevents,
				      OTF2_LocationGroupRef group)
{
	struct imp *im = ud;
	struct imp_loc *l;

	/* GPU and metric locations make no MPI calls; nor does one without events (a rank whose
	 * streams were missing when perfscope exported it stays missing) */
	if (type != OTF2_LOCATION_TYPE_CPU_THREAD || nevents == 0)
		return OTF2_CALLBACK_SUCCESS;
	if (ARRAY_GROW(im->locs, im->nlocs + 1, im->locs_cap))
		return CB_OOM(im);
	l = &im->locs[im->nlocs++];
	l->id = self;
	l->name = name;
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

	if (ARRAY_GROW(im->groups, im->ngroups + 1, im->groups_cap) ||
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

	if (ARRAY_GROW(im->comms, im->ncomms + 1, im->comms_cap) ||
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
		const char *name = otf2i_string_of(im, reg->name);
		int r = mpi_routine_find(name);

		if (!reg->mpi && strncmp(name, "MPI_", 4) != 0)
			r = -1;
		else if (r < 0)
			r = -2;
		reg->routine = r;
	}
	for (size_t i = 0; i < im->ncomms; i++) {
		long g = otf2i_lookup(&im->group_ix, im->comms[i].group_id);

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
				long lg = otf2i_lookup(&im->lgroup_ix, im->locs[j].group);

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
		return otf2i_fail(im, -ENODATA,
				  "no MPI ranks in the definitions (no MPI locations)");
	for (size_t j = 0; j < im->nlocs; j++) {
		long lg = otf2i_lookup(&im->lgroup_ix, im->locs[j].group);

		im->locs[j].rank = lg >= 0 ? im->lgroups[lg].rank : -1;
	}
	/* a rank's locations next to each other, its threads numbered in id order */
	qsort(im->locs, im->nlocs, sizeof(*im->locs), loc_cmp);
	for (size_t j = 0; j < im->nlocs; j++)
		im->locs[j].thread =
		    j && im->locs[j - 1].rank == im->locs[j].rank ? im->locs[j - 1].thread + 1 : 0;
	im->spans = calloc((size_t)size, sizeof(*im->spans));
	if (!im->spans || mpi_model_set_world(im->m, size) < 0)
		return otf2i_fail(im, -ENOMEM, "out of memory");
	return 0;
}

int otf2i_read_definitions(struct imp *im, OTF2_Reader *rd)
{
	OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
	OTF2_GlobalDefReaderCallbacks *cbs;
	OTF2_ErrorCode code;
	uint64_t n;

	if (!gr)
		return otf2i_fail_otf2(im, OTF2_ERROR_FILE_CAN_NOT_OPEN,
				       "cannot read the definitions");
	cbs = OTF2_GlobalDefReaderCallbacks_New();
	if (!cbs)
		return otf2i_fail(im, -ENOMEM, "out of memory");
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
		return otf2i_fail_otf2(im, code, "reading the definitions");
	if (im->timer_resolution == 0)
		return otf2i_fail(im, -EINVAL, "the definitions have no clock properties");
	return resolve(im);
}

/* Local definitions carry the mapping tables and clock offsets the event readers apply. */
int otf2i_read_local_definitions(struct imp *im, OTF2_Reader *rd)
{
	OTF2_ErrorCode code;

	for (size_t i = 0; i < im->nlocs; i++) {
		code = OTF2_Reader_SelectLocation(rd, im->locs[i].id);
		if (code != OTF2_SUCCESS)
			return otf2i_fail_otf2(im, code, "selecting the locations");
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
			return otf2i_fail_otf2(im, code, "reading the local definitions");
		}
	}
	OTF2_Reader_CloseDefFiles(rd);
	return 0;
}

void otf2i_release(struct imp *im)
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
	free(im->spans);
	free(im->nbc_starts);
	free(im->nbc_dones);
	u64map_release(&im->string_ix);
	u64map_release(&im->region_ix);
	u64map_release(&im->group_ix);
	u64map_release(&im->comm_ix);
	u64map_release(&im->lgroup_ix);
}
