/*
 * html-otf2.c - the report of an OTF2 archive (html_input.otf2): the Summary's facts from the
 * archive's anchor and global definitions, and the Timeline's calls of functions and regions
 * from its Enter/Leave events. The Profile comes from the archive's function profile
 * (otf2-calls.h, built by the CLI), the MPI views from its MPI model (html_mpi()).
 *
 * The events are read with the MPI import's definitions (otf2-imp.h), so the locations, the
 * ranks and the times (ns since the archive's global offset, local clock offsets applied) are
 * the MPI model's.
 */
#include "html-int.h"
#include "html-timeline.h"

#include "../analysis/otf2-imp.h"
#include "../core/array.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the Summary's facts ---- */

#define FACT_HOSTS_MAX 8 /* host names listed, at most */

struct facts {
	struct u64map string_ix; /* string id -> index in strings */
	char **strings;
	size_t nstrings, strings_cap;
	uint64_t resolution, length, realtime;
	uint64_t processes, threads, locations, events;
	uint64_t node_class; /* the string id of "node", UINT64_MAX until seen */
	uint64_t hosts[FACT_HOSTS_MAX];
	size_t nhosts, more_hosts;
	uint64_t metrics[FACT_HOSTS_MAX]; /* metric members' names, the first ones */
	size_t nmetrics;
	int oom;
};

static const char *fact_string(const struct facts *f, uint64_t id)
{
	uint64_t i;

	return u64map_get(&f->string_ix, id, &i) ? f->strings[i] : "";
}

static OTF2_CallbackCode fact_string_def(void *ud, OTF2_StringRef self, const char *s)
{
	struct facts *f = ud;
	char *copy;

	if (array_reserve((void **)&f->strings, &f->strings_cap, f->nstrings + 1,
			  sizeof(*f->strings)) ||
	    !(copy = strdup(s ? s : "")))
		goto oom;
	f->strings[f->nstrings] = copy;
	if (u64map_put(&f->string_ix, self, f->nstrings++))
		goto oom;
	if (!strcmp(copy, "node"))
		f->node_class = self;
	return OTF2_CALLBACK_SUCCESS;
oom:
	f->oom = 1;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode fact_clock(void *ud, uint64_t resolution, uint64_t offset UNUSED,
				    uint64_t length, uint64_t realtime)
{
	struct facts *f = ud;

	f->resolution = resolution;
	f->length = length;
	f->realtime = realtime;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode fact_node(void *ud, OTF2_SystemTreeNodeRef self UNUSED,
				   OTF2_StringRef name, OTF2_StringRef cls,
				   OTF2_SystemTreeNodeRef parent UNUSED)
{
	struct facts *f = ud;

	if (cls != f->node_class)
		return OTF2_CALLBACK_SUCCESS;
	if (f->nhosts < FACT_HOSTS_MAX)
		f->hosts[f->nhosts++] = name;
	else
		f->more_hosts++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode fact_lgroup(void *ud, OTF2_LocationGroupRef self UNUSED,
				     OTF2_StringRef name UNUSED, OTF2_LocationGroupType type,
				     OTF2_SystemTreeNodeRef parent UNUSED,
				     OTF2_LocationGroupRef creator UNUSED)
{
	struct facts *f = ud;

	f->processes += type == OTF2_LOCATION_GROUP_TYPE_PROCESS;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode fact_location(void *ud, OTF2_LocationRef self UNUSED,
				       OTF2_StringRef name UNUSED, OTF2_LocationType type,
				       uint64_t events, OTF2_LocationGroupRef group UNUSED)
{
	struct facts *f = ud;

	f->locations++;
	f->threads += type == OTF2_LOCATION_TYPE_CPU_THREAD;
	f->events += events;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode fact_metric(void *ud, OTF2_MetricMemberRef self UNUSED,
				     OTF2_StringRef name, OTF2_StringRef desc UNUSED,
				     OTF2_MetricType type UNUSED, OTF2_MetricMode mode UNUSED,
				     OTF2_Type vtype UNUSED, OTF2_Base base UNUSED,
				     int64_t exponent UNUSED, OTF2_StringRef unit UNUSED)
{
	struct facts *f = ud;

	if (f->nmetrics < FACT_HOSTS_MAX)
		f->metrics[f->nmetrics] = name;
	f->nmetrics++;
	return OTF2_CALLBACK_SUCCESS;
}

/* The global definitions of the archive RD into F. 0, -ENOMEM, or an OTF2 error code (> 0). */
static int facts_read(struct facts *f, OTF2_Reader *rd)
{
	OTF2_GlobalDefReaderCallbacks *cbs = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
	OTF2_ErrorCode code = OTF2_ERROR_MEM_ALLOC_FAILED;
	uint64_t n;

	if (cbs && gr) {
		OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, fact_string_def);
		OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cbs, fact_clock);
		OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cbs, fact_node);
		OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cbs, fact_lgroup);
		OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cbs, fact_location);
		OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cbs, fact_metric);
		code = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cbs, f);
		if (code == OTF2_SUCCESS)
			code = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n);
	}
	if (gr)
		OTF2_Reader_CloseGlobalDefReader(rd, gr);
	if (cbs)
		OTF2_GlobalDefReaderCallbacks_Delete(cbs);
	if (f->oom)
		return -ENOMEM;
	return code == OTF2_SUCCESS ? 0 : (int)code;
}

static void facts_release(struct facts *f)
{
	for (size_t i = 0; i < f->nstrings; i++)
		free(f->strings[i]);
	free(f->strings);
	u64map_release(&f->string_ix);
}

/* "host": the anchor's machine name, else the system tree's nodes (a few, then "+ N more"). */
static void put_host(struct jsonw *w, const struct facts *f, const char *machine)
{
	char buf[512];
	size_t off = 0;

	buf[0] = 0;
	if (machine && machine[0])
		snprintf(buf, sizeof(buf), "%s", machine);
	for (size_t i = 0; !buf[0] && i < f->nhosts && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					fact_string(f, f->hosts[i]));
	if (f->more_hosts && off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, " + %zu more", f->more_hosts);
	jsonw_kv_string(w, "host", buf);
}

/* The caveat of what the report of an archive leaves out. */
static void archive_caveat(struct html_input *in, const struct facts *f)
{
	char metrics[256] = "";
	size_t off = 0;

	for (size_t i = 0; i < f->nmetrics && i < FACT_HOSTS_MAX && off < sizeof(metrics); i++)
		off += (size_t)snprintf(metrics + off, sizeof(metrics) - off, "%s%s", i ? ", " : "",
					fact_string(f, f->metrics[i]));
	html_caveat(in,
		    "made from the OTF2 archive %s: an archive has no samples, energy, load logs "
		    "or source lines, so the Counters, Energy, Load and Source views are left out "
		    "(the Profile shows a function's source file and line where the archive "
		    "names them)",
		    in->otf2);
	if (f->nmetrics)
		html_caveat(in,
			    "the archive's %zu metrics (%s%s) are not shown: the report reads its "
			    "calls and MPI events only",
			    f->nmetrics, metrics, f->nmetrics > FACT_HOSTS_MAX ? ", ..." : "");
	if (f->resolution && f->resolution < 1000000000u)
		html_caveat(in,
			    "the archive's clock ticks %" PRIu64
			    " times a second: times are exact to %.3g ns",
			    f->resolution, 1e9 / (double)f->resolution);
}

int html_otf2_meta(struct jsonw *w, struct html_input *in)
{
	char msg[OTF2I_MSG_LEN] = "";
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2i_error_cb, msg);
	struct facts f = {.node_class = UINT64_MAX};
	char *creator = NULL, *machine = NULL;
	uint8_t v[3] = {0, 0, 0};
	char version[32], clock[64];
	OTF2_Reader *rd;
	int ret = -1;

	rd = OTF2_Reader_Open(in->otf2);
	if (rd) {
		OTF2_Reader_GetCreator(rd, &creator);
		OTF2_Reader_GetMachineName(rd, &machine);
		OTF2_Reader_GetVersion(rd, &v[0], &v[1], &v[2]);
		ret = facts_read(&f, rd);
		OTF2_Reader_Close(rd);
	}
	OTF2_Error_RegisterCallback(old, NULL);
	if (ret == -ENOMEM)
		goto out;
	if (ret)
		html_caveat(in, "%s: the archive's definitions could not be read%s%s", in->otf2,
			    msg[0] ? ": " : "", msg);
	snprintf(version, sizeof(version), "%u.%u.%u", v[0], v[1], v[2]);
	jsonw_key(w, "meta");
	jsonw_object_begin(w);
	jsonw_key(w, "command");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_kv_string(w, "dir", in->otf2);
	jsonw_kv_string(w, "created_by", creator ? creator : "");
	put_host(w, &f, machine);
	jsonw_kv_string(w, "cpu", "");
	snprintf(clock, sizeof(clock), "OTF2 timer, %" PRIu64 " ticks/s", f.resolution);
	jsonw_kv_string(w, "clock", f.resolution ? clock : "");
	if (f.realtime != OTF2_UNDEFINED_TIMESTAMP && f.realtime)
		jsonw_kv_u64(w, "start_unix_ns", f.realtime);
	if (f.resolution && f.length)
		jsonw_kv_i64(w, "duration_ns",
			     (int64_t)((__int128)f.length * 1000000000 / f.resolution));
	jsonw_kv_u64(w, "processes", f.processes);
	jsonw_kv_u64(w, "threads", f.threads);
	jsonw_key(w, "events");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_key(w, "archive");
	jsonw_object_begin(w);
	jsonw_kv_string(w, "anchor", in->otf2);
	jsonw_kv_string(w, "creator", creator ? creator : "");
	jsonw_kv_string(w, "version", version);
	jsonw_kv_u64(w, "timer_resolution", f.resolution);
	jsonw_kv_u64(w, "locations", f.locations);
	jsonw_kv_u64(w, "events", f.events);
	jsonw_kv_u64(w, "metrics", f.nmetrics);
	jsonw_object_end(w);
	jsonw_object_end(w);
	if (!ret)
		archive_caveat(in, &f);
	ret = w->failed ? -ENOMEM : 0;
out:
	free(creator);
	free(machine);
	facts_release(&f);
	return ret;
}

/* ---- the Timeline's calls ---- */

/* An open region of the location being read. */
struct tframe {
	uint32_t region; /* index in im.regions */
	int draw; /* a function or region drawn at its index as depth (not MPI, not in MPI) */
	int64_t start;
};

/* One read of the archive's events into the timeline. */
struct trd {
	struct imp im;
	struct mpi_model defs_model; /* the definitions' ranks (otf2i_read_definitions) */
	struct tl_lod *t;
	int64_t origin;
	size_t row;
	struct tframe *st;
	size_t depth, cap;
	int in_mpi; /* MPI frames open */
	int64_t last;
	int ret;
};

static OTF2_CallbackCode trd_fail(struct trd *r, int ret)
{
	r->ret = ret;
	otf2i_fail(&r->im, ret, "%s", strerror(-ret));
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode tev_enter(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				   uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				   OTF2_RegionRef region)
{
	struct trd *r = ud;
	long i = otf2i_lookup(&r->im.region_ix, region);
	int64_t ns = otf2i_ns(&r->im, t) - r->origin;
	int mpi;

	r->last = ns;
	if (i < 0)
		return OTF2_CALLBACK_SUCCESS; /* the MPI import and the profile say it */
	mpi = r->im.regions[i].routine != -1 || r->im.regions[i].mpi;
	if (array_reserve((void **)&r->st, &r->cap, r->depth + 1, sizeof(*r->st)))
		return trd_fail(r, -ENOMEM);
	r->st[r->depth++] = (struct tframe){(uint32_t)i, !mpi && !r->in_mpi, ns};
	r->in_mpi += mpi;
	return OTF2_CALLBACK_SUCCESS;
}

/* Close the top frame at NS: a slice when drawn. */
static int tclose_top(struct trd *r, int64_t ns)
{
	const struct tframe f = r->st[--r->depth];
	const struct imp_region *reg = &r->im.regions[f.region];

	if (reg->routine != -1 || reg->mpi)
		r->in_mpi--;
	if (!f.draw)
		return 0;
	return tl_add(r->t, r->row, (int)r->depth, f.start, ns > f.start ? ns - f.start : 0,
		      f.region);
}

static OTF2_CallbackCode tev_leave(OTF2_LocationRef loc UNUSED, OTF2_TimeStamp t,
				   uint64_t pos UNUSED, void *ud, OTF2_AttributeList *al UNUSED,
				   OTF2_RegionRef region)
{
	struct trd *r = ud;
	long i = otf2i_lookup(&r->im.region_ix, region);
	int64_t ns = otf2i_ns(&r->im, t) - r->origin;
	size_t k;
	int ret = 0;

	r->last = ns;
	for (k = r->depth; k-- > 0 && (long)r->st[k].region != i;)
		;
	if (i < 0 || k == (size_t)-1)
		return OTF2_CALLBACK_SUCCESS; /* a Leave of a region not open: dropped */
	while (ret == 0 && r->depth > k)
		ret = tclose_top(r, ns); /* regions left open inside close with it */
	return ret ? trd_fail(r, ret) : OTF2_CALLBACK_SUCCESS;
}

/* A region's name for tl_resolve: its display name, a function or a region by its role. */
static const char *tregion_name(void *ctx, uint64_t key, enum tl_kind *kind)
{
	const struct imp *im = ctx;
	const struct imp_region *reg = &im->regions[key];

	*kind = reg->role == OTF2_REGION_ROLE_FUNCTION ? TL_FUNCTION : TL_REGION;
	return otf2i_string_of(im, reg->display);
}

/* The events of location L into a new row of the timeline. */
static int tread_location(struct trd *r, OTF2_Reader *rd, OTF2_EvtReaderCallbacks *cbs,
			  const struct imp_loc *l)
{
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
	struct tl_row *row;
	OTF2_ErrorCode code;
	char what[64];
	uint64_t n;
	int ret;

	if (!er)
		return otf2i_fail_otf2(&r->im, OTF2_ERROR_INVALID_ARGUMENT,
				       "opening an event reader");
	ret = tl_row_add(r->t, 0, (pid_t)l->thread, l->rank, 0, &r->row);
	if (ret) {
		OTF2_Reader_CloseEvtReader(rd, er);
		return ret;
	}
	row = &r->t->rows[r->row];
	snprintf(row->name, sizeof(row->name), "%s", otf2i_string_of(&r->im, l->name));
	r->im.cur = l;
	r->depth = 0;
	r->in_mpi = 0;
	r->last = 0;
	code = OTF2_Reader_RegisterEvtCallbacks(rd, er, cbs, r);
	if (code == OTF2_SUCCESS)
		code = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
	OTF2_Reader_CloseEvtReader(rd, er);
	if (r->ret == -ENOMEM)
		return r->ret;
	if (code != OTF2_SUCCESS && !r->im.failed) {
		snprintf(what, sizeof(what), "events of location %" PRIu64, l->id);
		otf2i_fail_otf2(&r->im, code, what);
	}
	/* open at the location's last event (or at a defect): end there, as read so far */
	ret = 0;
	while (ret == 0 && r->depth)
		ret = tclose_top(r, r->last);
	if (ret == 0)
		ret = tl_resolve(r->t, r->row, 0, tregion_name, &r->im);
	if (ret == 0 && r->im.failed)
		ret = code == OTF2_ERROR_MEM_ALLOC_FAILED ? -ENOMEM : -EINVAL;
	return ret;
}

/* Read the archive's definitions and every rank's locations' events into R's timeline. */
static int tread_archive(struct trd *r, const char *anchor)
{
	OTF2_EvtReaderCallbacks *cbs = NULL;
	OTF2_ErrorCode code;
	OTF2_Reader *rd;
	int ret;

	r->im.msg[0] = 0;
	rd = OTF2_Reader_Open(anchor);
	if (!rd)
		return otf2i_fail(&r->im, -ENOENT, "cannot open the OTF2 archive%s%s",
				  r->im.msg[0] ? ": " : "", r->im.msg);
	code = OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	ret = code == OTF2_SUCCESS ? 0 : otf2i_fail_otf2(&r->im, code, "opening the archive");
	if (ret == 0)
		ret = otf2i_read_definitions(&r->im, rd);
	if (ret == 0)
		ret = otf2i_read_local_definitions(&r->im, rd);
	cbs = ret == 0 ? OTF2_EvtReaderCallbacks_New() : NULL;
	if (ret == 0 && !cbs)
		ret = otf2i_fail(&r->im, -ENOMEM, "out of memory");
	if (ret == 0) {
		OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, tev_enter);
		OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, tev_leave);
		code = OTF2_Reader_OpenEvtFiles(rd);
		if (code != OTF2_SUCCESS)
			ret = otf2i_fail_otf2(&r->im, code, "opening the event files");
	}
	for (size_t i = 0; ret == 0 && i < r->im.nlocs; i++)
		if (r->im.locs[i].rank >= 0)
			ret = tread_location(r, rd, cbs, &r->im.locs[i]);
	if (cbs) {
		OTF2_Reader_CloseEvtFiles(rd);
		OTF2_EvtReaderCallbacks_Delete(cbs);
	}
	OTF2_Reader_Close(rd);
	return ret;
}

int html_otf2_timeline(struct tl_lod *t, struct html_input *in, int64_t origin_ns)
{
	char err[1024] = "";
	struct trd r;
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2i_error_cb, r.im.msg);
	int ret;

	memset(&r, 0, sizeof(r));
	mpi_model_init(&r.defs_model);
	r.im.m = &r.defs_model;
	r.im.anchor = in->otf2;
	r.im.err = err;
	r.im.errlen = sizeof(err);
	r.t = t;
	/* the archive's times are ns since its global offset, as the model's */
	r.origin = origin_ns;
	ret = tread_archive(&r, in->otf2);
	OTF2_Error_RegisterCallback(old, NULL);
	if (ret < 0 && ret != -ENOMEM) {
		html_caveat(in, "timeline: %s (the calls after it are left out)", err);
		ret = 0;
	}
	free(r.st);
	otf2i_release(&r.im);
	mpi_model_release(&r.defs_model);
	return ret;
}
