/* otf2-defs.c - the definitions of an OTF2 export: strings, regions, location groups and
 * communicators, collected while the events are written and written at the end. */
#include "export/otf2-int.h"
#include "export/otf2-omp.h"
#include "lib/array.h"

#include "format/mpi-routines.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char ox_msg[256];

OTF2_ErrorCode ox_error_cb(void *ud, const char *file, uint64_t line, const char *function,
			   OTF2_ErrorCode code, const char *fmt, va_list va)
{
	size_t n = strlen(ox_msg);

	(void)ud;
	(void)file;
	(void)line;
	(void)function;
	/* the first two messages of a failure: the innermost, the cause, and its context */
	if (n && (strchr(ox_msg, ';') || n + 2 >= sizeof(ox_msg)))
		return code;
	if (n && n + 2 < sizeof(ox_msg)) {
		memcpy(ox_msg + n, "; ", 3);
		n += 2;
	}
	if (n < sizeof(ox_msg))
		vsnprintf(ox_msg + n, sizeof(ox_msg) - n, fmt ? fmt : "", va);
	return code;
}

int ox_fail(struct xp *x, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!x->failed) {
		va_start(ap, fmt);
		vsnprintf(x->err, x->errlen, fmt, ap);
		va_end(ap);
		x->code = ret;
	}
	x->failed = 1;
	return ret;
}

/* An OTF2 call's result: 0, or the failure with the OTF2 error text. */
int ox_check(struct xp *x, OTF2_ErrorCode code, const char *what)
{
	if (code == OTF2_SUCCESS)
		return 0;
	return ox_fail(x, code == OTF2_ERROR_MEM_ALLOC_FAILED ? -ENOMEM : -EIO,
		       "%s: %s: %s (%s)%s%s", x->archive, what, OTF2_Error_GetDescription(code),
		       OTF2_Error_GetName(code), ox_msg[0] ? ": " : "", ox_msg);
}

/* ---- definitions collected while writing events ---- */

/* The id of string S, defined on first use; UINT32_MAX when out of memory. */
uint32_t ox_string_id(struct xp *x, const char *s)
{
	size_t v;
	char *copy;

	if (strmap_get(&x->string_ix, s, &v))
		return (uint32_t)v;
	if (ARRAY_GROW(x->strings, x->nstrings + 1, x->strings_cap) || !(copy = strdup(s)))
		return UINT32_MAX;
	if (strmap_put(&x->string_ix, copy, x->nstrings)) {
		free(copy);
		return UINT32_MAX;
	}
	x->strings[x->nstrings] = copy;
	return (uint32_t)x->nstrings++;
}

static uint8_t mpi_role(unsigned routine)
{
	switch (mpi_routine_kind(routine)) {
	case MPI_KIND_SEND:
	case MPI_KIND_RECV:
	case MPI_KIND_SENDRECV:
	case MPI_KIND_ISEND:
	case MPI_KIND_IRECV:
	case MPI_KIND_PROBE:
	case MPI_KIND_WAIT:
	case MPI_KIND_TEST:
	case MPI_KIND_START:
		return OTF2_REGION_ROLE_POINT2POINT;
	case MPI_KIND_BARRIER:
		return OTF2_REGION_ROLE_BARRIER;
	case MPI_KIND_ONE_TO_ALL:
		return OTF2_REGION_ROLE_COLL_ONE2ALL;
	case MPI_KIND_ALL_TO_ONE:
		return OTF2_REGION_ROLE_COLL_ALL2ONE;
	case MPI_KIND_ALL_TO_ALL:
		return OTF2_REGION_ROLE_COLL_ALL2ALL;
	case MPI_KIND_SCAN:
	case MPI_KIND_ICOLL:
		return OTF2_REGION_ROLE_COLL_OTHER;
	default:
		return OTF2_REGION_ROLE_FUNCTION;
	}
}

/* The region of NAME of KIND, defined on first use; UINT32_MAX when out of memory. */
uint32_t ox_region_id(struct xp *x, const char *name, enum region_kind kind, unsigned routine)
{
	uint32_t sid = ox_string_id(x, name);
	uint64_t key = (uint64_t)sid << 2 | kind, v;
	struct xregion *r;

	if (sid == UINT32_MAX)
		return UINT32_MAX;
	if (u64map_get(&x->region_ix, key, &v))
		return (uint32_t)v;
	if (ARRAY_GROW(x->regions, x->nregions + 1, x->regions_cap) ||
	    u64map_put(&x->region_ix, key, x->nregions))
		return UINT32_MAX;
	r = &x->regions[x->nregions];
	r->name = sid;
	r->kind = (uint8_t)kind;
	r->routine = routine;
	r->role = kind == RK_OMP	? (uint8_t)routine
		  : kind == RK_MPI	? mpi_role(routine)
		  : kind == RK_FUNCTION ? OTF2_REGION_ROLE_FUNCTION
					: OTF2_REGION_ROLE_CODE;
	return (uint32_t)x->nregions++;
}

static uint32_t node_of(struct xp *x, const char *host)
{
	uint32_t sid = ox_string_id(x, host && host[0] ? host : "localhost");

	for (size_t i = 0; i < x->nnodes; i++)
		if (x->nodes[i] == sid)
			return (uint32_t)i;
	if (sid == UINT32_MAX || ARRAY_GROW(x->nodes, x->nnodes + 1, x->nodes_cap))
		return UINT32_MAX;
	x->nodes[x->nnodes] = sid;
	return (uint32_t)x->nnodes++;
}

const char *ox_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The location group of RANK (>= 0) or else of process PID. */
uint32_t ox_group_of(struct xp *x, int rank, pid_t pid, const char *exe)
{
	uint64_t key = rank >= 0 ? (uint64_t)rank : (1ull << 40) | (uint32_t)pid, v;
	const char *host = x->e->host;
	struct xgroup *g;
	char name[300];

	if (u64map_get(&x->group_ix, key, &v))
		return (uint32_t)v;
	if (rank >= 0) {
		snprintf(name, sizeof(name), "MPI Rank %d", rank);
		if (x->m && rank < x->m->world_size && x->m->ranks[rank].host &&
		    x->m->ranks[rank].host[0])
			host = x->m->ranks[rank].host;
	} else {
		snprintf(name, sizeof(name), "%s (pid %d)", exe && exe[0] ? ox_base_name(exe) : "?",
			 (int)pid);
	}
	if (ARRAY_GROW(x->groups, x->ngroups + 1, x->groups_cap) ||
	    u64map_put(&x->group_ix, key, x->ngroups))
		return UINT32_MAX;
	g = &x->groups[x->ngroups];
	g->name = ox_string_id(x, name);
	g->node = node_of(x, host);
	g->rank = rank;
	g->pid = pid;
	if (g->name == UINT32_MAX || g->node == UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)x->ngroups++;
}

/* A new location of GROUP and its event writer. */
/* ---- global definitions ---- */

/* A property of location group G: an int64 named NAME. */
static OTF2_ErrorCode group_property(struct xp *x, OTF2_GlobalDefWriter *gw, uint32_t g,
				     const char *name, int64_t v)
{
	OTF2_AttributeValue av;

	av.int64 = v;
	return OTF2_GlobalDefWriter_WriteLocationGroupProperty(gw, g, ox_string_id(x, name),
							       OTF2_TYPE_INT64, av);
}

/* The name of model communicator C: MPI_COMM_WORLD for the first of all ranks in order. */
static int is_world(const struct mpi_model *m, uint32_t c)
{
	const struct mpi_comm_info *ci = &m->comms[c];
	int world = (int)ci->size == m->world_size;

	for (uint32_t i = 0; i < ci->size && world; i++)
		world = ci->members[i] == (int32_t)i;
	return world;
}

static const char *comm_name(const struct mpi_model *m, uint32_t c, char *buf, size_t len)
{
	int first = is_world(m, c);

	for (uint32_t p = 0; p < c && first; p++) /* a duplicate of the world is not it */
		first = !is_world(m, p);
	if (first)
		return "MPI_COMM_WORLD";
	if (m->comms[c].size == 1)
		snprintf(buf, len, "MPI_COMM_SELF of rank %d", m->comms[c].members[0]);
	else
		snprintf(buf, len, "Comm 0x%" PRIx64, m->comms[c].key);
	return buf;
}

/* Strings the definitions below name, so that every string is defined before the rest. */
static void define_names(struct xp *x)
{
	char buf[64];

	ox_string_id(x, "");
	ox_string_id(x, "node");
	ox_string_id(x, "MPI");
	ox_string_id(x, "#");
	ox_string_id(x, "perfscope::pid");
	ox_string_id(x, "perfscope::clock_offset_init_ns");
	ox_string_id(x, "perfscope::clock_offset_finalize_ns");
	ox_string_id(x, "perfscope::clock_rtt_init_ns");
	ox_string_id(x, "perfscope::clock_rtt_finalize_ns");
	for (size_t c = 0; x->m && c < x->m->ncomms; c++)
		ox_string_id(x, comm_name(x->m, (uint32_t)c, buf, sizeof(buf)));
}

static int write_mpi_definitions(struct xp *x, OTF2_GlobalDefWriter *gw)
{
	const struct mpi_model *m = x->m;
	OTF2_ErrorCode code;
	uint64_t *members;
	char buf[64];
	size_t cap = (size_t)m->world_size;

	for (size_t c = 0; c < m->ncomms; c++)
		if (m->comms[c].size > cap)
			cap = m->comms[c].size;
	members = malloc((cap ? cap : 1) * sizeof(*members));
	if (!members)
		return ox_fail(x, -ENOMEM, "out of memory");
	code = OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, ox_string_id(x, "MPI"),
						  OTF2_PARADIGM_CLASS_PROCESS);
	/* group 0: the location of each world rank; group 1 + c: communicator c's ranks */
	for (int r = 0; r < m->world_size; r++)
		members[r] = (uint64_t)x->rank_loc[r];
	if (code == OTF2_SUCCESS)
		code = OTF2_GlobalDefWriter_WriteGroup(
		    gw, 0, ox_string_id(x, ""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
		    OTF2_GROUP_FLAG_NONE, (uint32_t)m->world_size, members);
	for (size_t c = 0; c < m->ncomms && code == OTF2_SUCCESS; c++) {
		const struct mpi_comm_info *ci = &m->comms[c];

		for (uint32_t i = 0; i < ci->size; i++)
			members[i] = (uint64_t)(uint32_t)ci->members[i];
		code = OTF2_GlobalDefWriter_WriteGroup(
		    gw, (OTF2_GroupRef)(1 + c), ox_string_id(x, ""), OTF2_GROUP_TYPE_COMM_GROUP,
		    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ci->size, members);
	}
	for (size_t c = 0; c < m->ncomms && code == OTF2_SUCCESS; c++)
		code = OTF2_GlobalDefWriter_WriteComm(
		    gw, (OTF2_CommRef)c,
		    ox_string_id(x, comm_name(m, (uint32_t)c, buf, sizeof(buf))),
		    (OTF2_GroupRef)(1 + c), OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	free(members);
	return ox_check(x, code, "writing the communicators");
}

/* The clock's properties from REALTIME, the strings, the system tree, the location groups
 * and the locations of X into GW. */
static OTF2_ErrorCode write_system(struct xp *x, OTF2_GlobalDefWriter *gw, uint64_t realtime)
{
	OTF2_ErrorCode code = OTF2_GlobalDefWriter_WriteClockProperties(
	    gw, 1000000000u, x->tmin, x->tmax - x->tmin + 1, realtime);

	for (size_t i = 0; i < x->nstrings && code == OTF2_SUCCESS; i++)
		code = OTF2_GlobalDefWriter_WriteString(gw, (OTF2_StringRef)i, x->strings[i]);
	for (size_t i = 0; i < x->nnodes && code == OTF2_SUCCESS; i++) {
		code = OTF2_GlobalDefWriter_WriteSystemTreeNode(
		    gw, (OTF2_SystemTreeNodeRef)i, x->nodes[i], ox_string_id(x, "node"),
		    OTF2_UNDEFINED_SYSTEM_TREE_NODE);
		if (code == OTF2_SUCCESS)
			code = OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
			    gw, (OTF2_SystemTreeNodeRef)i, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY);
	}
	for (size_t i = 0; i < x->ngroups && code == OTF2_SUCCESS; i++) {
		const struct xgroup *g = &x->groups[i];

		code = OTF2_GlobalDefWriter_WriteLocationGroup(
		    gw, (OTF2_LocationGroupRef)i, g->name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
		    g->node, OTF2_UNDEFINED_LOCATION_GROUP);
	}
	for (size_t i = 0; i < x->nlocs && code == OTF2_SUCCESS; i++)
		code = OTF2_GlobalDefWriter_WriteLocation(gw, (OTF2_LocationRef)i, x->locs[i].name,
							  OTF2_LOCATION_TYPE_CPU_THREAD,
							  x->locs[i].nevents, x->locs[i].group);
	return code;
}

/* The regions of X into GW: functions, user regions and MPI routines. */
static OTF2_ErrorCode write_regions(struct xp *x, OTF2_GlobalDefWriter *gw)
{
	OTF2_ErrorCode code = OTF2_SUCCESS;

	for (size_t i = 0; i < x->nregions && code == OTF2_SUCCESS; i++) {
		const struct xregion *r = &x->regions[i];
		OTF2_Paradigm p = r->kind == RK_OMP	 ? OTF2_PARADIGM_OPENMP
				  : r->kind == RK_MPI	 ? OTF2_PARADIGM_MPI
				  : r->kind == RK_REGION ? OTF2_PARADIGM_USER
							 : OTF2_PARADIGM_COMPILER;

		code = OTF2_GlobalDefWriter_WriteRegion(
		    gw, (OTF2_RegionRef)i, r->name, r->name, ox_string_id(x, ""), r->role, p,
		    OTF2_REGION_FLAG_NONE,
		    r->kind == RK_MPI ? ox_string_id(x, "MPI") : OTF2_UNDEFINED_STRING, 0, 0);
	}
	return code;
}

/* Each location group's properties into GW: its pid, and for a rank the measured clock
 * offsets, for the record (the times are already aligned). */
static OTF2_ErrorCode write_group_properties(struct xp *x, OTF2_GlobalDefWriter *gw)
{
	OTF2_ErrorCode code = OTF2_SUCCESS;

	for (size_t i = 0; i < x->ngroups && code == OTF2_SUCCESS; i++) {
		const struct xgroup *g = &x->groups[i];
		const struct mpi_rank_info *ri;

		if (g->pid > 0)
			code = group_property(x, gw, (uint32_t)i, "perfscope::pid", g->pid);
		if (!x->m || g->rank < 0 || g->rank >= x->m->world_size)
			continue;
		ri = &x->m->ranks[g->rank];
		if (code == OTF2_SUCCESS && ri->has_clock[0])
			code = group_property(x, gw, (uint32_t)i, "perfscope::clock_offset_init_ns",
					      ri->clock[0].offset_ns);
		if (code == OTF2_SUCCESS && ri->has_clock[0])
			code = group_property(x, gw, (uint32_t)i, "perfscope::clock_rtt_init_ns",
					      (int64_t)ri->clock[0].rtt_ns);
		if (code == OTF2_SUCCESS && ri->has_clock[1])
			code = group_property(x, gw, (uint32_t)i,
					      "perfscope::clock_offset_finalize_ns",
					      ri->clock[1].offset_ns);
		if (code == OTF2_SUCCESS && ri->has_clock[1])
			code =
			    group_property(x, gw, (uint32_t)i, "perfscope::clock_rtt_finalize_ns",
					   (int64_t)ri->clock[1].rtt_ns);
	}
	return code;
}

int ox_write_definitions(struct xp *x)
{
	OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(x->ar);
	OTF2_ErrorCode code;
	struct experiment *e = x->e;
	uint64_t realtime = OTF2_UNDEFINED_TIMESTAMP;

	if (!gw)
		return ox_check(x, OTF2_ERROR_MEM_ALLOC_FAILED, "opening the definitions writer");
	define_names(x);
	for (size_t i = 0; i < x->nregions; i++)
		if (x->regions[i].kind == RK_MPI)
			ox_string_id(x, "MPI");
	if (x->failed || x->nstrings > UINT32_MAX - 1)
		return ox_fail(x, -ENOMEM, "out of memory");
	if (x->tmin > x->tmax)
		x->tmin = x->tmax = 0;
	if (e->start_unix_ns && e->start_ns && (int64_t)x->tmin >= e->start_ns)
		realtime = e->start_unix_ns + (x->tmin - (uint64_t)e->start_ns);
	code = write_system(x, gw, realtime);
	if (code == OTF2_SUCCESS)
		code = write_regions(x, gw);
	if (code == OTF2_SUCCESS)
		code = write_group_properties(x, gw);
	if (ox_check(x, code, "writing the definitions"))
		return -1;
	if (ox_write_metric_definitions(x, gw) || (x->m && write_mpi_definitions(x, gw)) ||
	    ox_omp_write_definitions(x, gw))
		return -1;
	return ox_check(x, OTF2_Archive_CloseGlobalDefWriter(x->ar, gw), "closing the definitions");
}

/* Every location's (empty) local definitions: readers expect the files. */
int ox_write_local_definitions(struct xp *x)
{
	if (ox_check(x, OTF2_Archive_OpenDefFiles(x->ar), "opening the definition files"))
		return -1;
	for (size_t i = 0; i < x->nlocs && !x->failed; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(x->ar, (OTF2_LocationRef)i);

		if (!dw)
			ox_check(x, OTF2_ERROR_MEM_ALLOC_FAILED, "opening a definition writer");
		else
			ox_check(x, OTF2_Archive_CloseDefWriter(x->ar, dw),
				 "closing a definition writer");
	}
	ox_check(x, OTF2_Archive_CloseDefFiles(x->ar), "closing the definition files");
	return x->failed ? -1 : 0;
}

void ox_release(struct xp *x)
{
	for (size_t i = 0; i < x->nstrings; i++)
		free(x->strings[i]);
	for (size_t c = 0; x->m && x->comm_rank && c < x->m->ncomms; c++)
		free(x->comm_rank[c]);
	free(x->comm_rank);
	free(x->strings);
	free(x->regions);
	free(x->groups);
	free(x->nodes);
	free(x->locs);
	free(x->rank_loc);
	free(x->model_loc_done);
	free(x->frames);
	free(x->members);
	free(x->classes);
	free(x->icolls);
	ox_omp_release(x);
	strmap_release(&x->string_ix);
	u64map_release(&x->region_ix);
	u64map_release(&x->addr_ix);
	u64map_release(&x->group_ix);
}

static int remove_file(const char *dir, const char *name)
{
	char path[4096];
	struct stat sb;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISREG(sb.st_mode))
		return -EEXIST;
	return unlink(path) < 0 ? -errno : 0;
}

int otf2_export_remove(const char *archive)
{
	char sub[4096];
	struct dirent *d;
	DIR *dir;
	int ret = 0, r;

	if (snprintf(sub, sizeof(sub), "%s/" OTF2_EXPORT_NAME, archive) >= (int)sizeof(sub))
		return -ENAMETOOLONG;
	dir = opendir(sub);
	if (dir) {
		/* the per-location files: N.evt and N.def */
		while ((d = readdir(dir))) {
			const char *dot = strrchr(d->d_name, '.');
			size_t digits = strspn(d->d_name, "0123456789");

			if (!dot || digits == 0 || d->d_name + digits != dot ||
			    (strcmp(dot, ".evt") && strcmp(dot, ".def")))
				continue;
			r = remove_file(sub, d->d_name);
			ret = ret ? ret : r;
		}
		closedir(dir);
		if (rmdir(sub) < 0 && errno != ENOENT)
			ret = ret ? ret : -errno;
	}
	r = remove_file(archive, OTF2_EXPORT_NAME ".otf2");
	ret = ret ? ret : r;
	r = remove_file(archive, OTF2_EXPORT_NAME ".def");
	ret = ret ? ret : r;
	if (ret == 0 && rmdir(archive) < 0 && errno != ENOTEMPTY && errno != EEXIST &&
	    errno != ENOENT)
		ret = -errno;
	return ret;
}
