/*
 * html-otf2.c - the report of an OTF2 archive (html_input.otf2): the Summary's facts from the
 * archive's anchor and global definitions, and the Timeline's calls of functions and regions
 * from its Enter/Leave events. The Profile comes from the archive's function profile
 * (otf2-calls.h, built by the CLI), the MPI views from its MPI model (html_mpi()).
 *
 * The calls come from a pass of the archive's source (ev_source_otf2, pass.h), which reads the
 * definitions as the MPI import does, so the locations, the ranks and the times (ns since the
 * archive's global offset, local clock offsets applied) are the MPI model's.
 */
#include "html/html-int.h"
#include "html/html-timeline.h"

#include "model/otf2-calls.h"
#include "model/pass.h"
#include "lib/hashmap.h"
#include "lib/array.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define UNUSED __attribute__((unused))

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

/* "host": the anchor's machine name, else the system tree's nodes (a few, then "+ N more").
 * 0 or -ENOMEM. */
static int put_host(struct jsonw *w, const struct facts *f, const char *machine)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (machine && machine[0])
		strbuf_adds(&sb, machine);
	for (size_t i = 0; !sb.len && i < f->nhosts; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", fact_string(f, f->hosts[i]));
	if (f->more_hosts)
		strbuf_addf(&sb, " + %zu more", f->more_hosts);
	ret = sb.err;
	if (!ret)
		jsonw_kv_string(w, "host", strbuf_str(&sb));
	strbuf_release(&sb);
	return ret;
}

/* The caveat of what the report of an archive leaves out. 0 or -ENOMEM. */
static int archive_caveat(struct html_input *in, const struct facts *f)
{
	struct strbuf metrics = STRBUF_INIT;

	for (size_t i = 0; i < f->nmetrics && i < FACT_HOSTS_MAX; i++)
		strbuf_addf(&metrics, "%s%s", i ? ", " : "", fact_string(f, f->metrics[i]));
	if (metrics.err)
		return metrics.err;
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
			    f->nmetrics, strbuf_str(&metrics),
			    f->nmetrics > FACT_HOSTS_MAX ? ", ..." : "");
	if (f->resolution && f->resolution < 1000000000u)
		html_caveat(in,
			    "the archive's clock ticks %" PRIu64
			    " times a second: times are exact to %.3g ns",
			    f->resolution, 1e9 / (double)f->resolution);
	strbuf_release(&metrics);
	return 0;
}

int html_otf2_meta(struct jsonw *w, struct html_input *in)
{
	struct otf2_errors errs;
	struct facts f = {.node_class = UINT64_MAX};
	char *creator = NULL, *machine = NULL;
	uint8_t v[3] = {0, 0, 0};
	char version[32], clock[64];
	OTF2_Reader *rd;
	int ret = -1;

	otf2_errors_begin(&errs);
	rd = OTF2_Reader_Open(in->otf2);
	if (rd) {
		OTF2_Reader_GetCreator(rd, &creator);
		OTF2_Reader_GetMachineName(rd, &machine);
		OTF2_Reader_GetVersion(rd, &v[0], &v[1], &v[2]);
		ret = facts_read(&f, rd);
		OTF2_Reader_Close(rd);
	}
	otf2_errors_end(&errs);
	if (ret == -ENOMEM)
		goto out;
	if (ret)
		html_caveat(in, "%s: the archive's definitions could not be read%s%s", in->otf2,
			    errs.msg[0] ? ": " : "", errs.msg);
	snprintf(version, sizeof(version), "%u.%u.%u", v[0], v[1], v[2]);
	jsonw_key(w, "meta");
	jsonw_object_begin(w);
	jsonw_key(w, "command");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_kv_string(w, "dir", in->otf2);
	jsonw_kv_string(w, "created_by", creator ? creator : "");
	if (put_host(w, &f, machine)) {
		ret = -ENOMEM;
		goto out;
	}
	jsonw_kv_string(w, "cpu", "");
	snprintf(clock, sizeof(clock), "OTF2 timer, %" PRIu64 " ticks/s", f.resolution);
	jsonw_kv_string(w, "clock", f.resolution ? clock : "");
	if (f.realtime != OTF2_UNDEFINED_TIMESTAMP && f.realtime)
		jsonw_kv_u64(w, "start_unix_ns", f.realtime);
	if (f.resolution && f.length) {
		/* a hostile archive's length could exceed what int64 nanoseconds hold */
		__int128 ns = (__int128)f.length * 1000000000 / f.resolution;

		jsonw_kv_i64(w, "duration_ns", ns > INT64_MAX ? INT64_MAX : (int64_t)ns);
	}
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
	ret = (!ret && archive_caveat(in, &f)) || w->failed ? -ENOMEM : 0;
out:
	free(creator);
	free(machine);
	facts_release(&f);
	return ret;
}

/* ---- the Timeline's calls ---- */

/* The consumer of the archive's calls drawing the timeline. */
struct tconsumer {
	const struct ev_source *src;
	uint8_t *mpi; /* per region: a call of it is an MPI call (tmpi) */
	struct tl_lod *t;
	int64_t origin;
	const struct ev_location *loc; /* the location walked, its row (once it has one) */
	size_t row;
	int has_row;
	int in_mpi; /* MPI calls open: the calls inside them are not drawn */
	/* a location whose events could not be read to their end: the timeline stops after it */
	int stopped;
	char why[512];
};

/* A call of an MPI routine, or of a region of the MPI paradigm: the MPI model draws it. */
static int tmpi(const struct otf2_region *reg)
{
	return reg->routine != -1 || reg->mpi;
}

/* R's region flags (tmpi of each region). 0 or -ENOMEM. */
static int tregions(struct tconsumer *r)
{
	size_t n = otf2_source_nregions(r->src);

	r->mpi = malloc(n + 1);
	if (!r->mpi)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		r->mpi[i] = (uint8_t)tmpi(otf2_source_region(r->src, (uint32_t)i));
	return 0;
}

static int tc_begin(void *ctx, const struct ev_location *loc, char *err UNUSED,
		    size_t errlen UNUSED)
{
	struct tconsumer *r = ctx;

	if (r->stopped)
		return 1;
	r->loc = loc;
	r->has_row = 0;
	r->in_mpi = 0;
	return 0;
}

/* The row of the location walked, added at its first call or its end (a location whose
 * events could not be opened has none). 0 or -ENOMEM. */
static int trow(struct tconsumer *r)
{
	const struct ev_location *l = r->loc;
	int ret;

	if (r->has_row)
		return 0;
	ret = tl_row_add(r->t, 0, (pid_t)otf2_source_thread(r->src, l), l->rank, 0, &r->row);
	if (ret == 0)
		snprintf(r->t->rows[r->row].name, sizeof(r->t->rows[r->row].name), "%s", l->name);
	r->has_row = ret == 0;
	return ret;
}

/* A call of a function or region outside MPI is a slice at its depth. */
static int tc_call(struct tconsumer *r, const struct event *ev)
{
	if (ev->kind == EV_CALL_ENTER) {
		r->in_mpi += r->mpi[ev->call.addr];
		return 0;
	}
	if (r->mpi[ev->call.addr]) {
		r->in_mpi--;
		return 0;
	}
	if (r->in_mpi)
		return 0;
	return tl_add(r->t, r->row, (int)ev->call.depth, ev->ns - ev->call.incl_ns - r->origin,
		      ev->call.incl_ns, ev->call.addr);
}

static int tc_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	int ret = trow(ctx);

	for (size_t i = 0; ret == 0 && i < n; i++)
		ret = tc_call(ctx, &ev[i]);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	return 0;
}

static int tc_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	return tc_events(ctx, ev, 1, err, errlen);
}

/* A region's name for tl_resolve: its display name, a function or a region by its role. */
static const char *tregion_name(void *ctx, uint64_t key, enum tl_kind *kind)
{
	const struct otf2_region *reg = otf2_source_region(ctx, (uint32_t)key);

	*kind = reg->function ? TL_FUNCTION : TL_REGION;
	return reg->name;
}

static int tc_end(void *ctx, const struct ev_location *loc UNUSED,
		  const struct ev_location_facts *f, char *err, size_t errlen)
{
	struct tconsumer *r = ctx;
	int ret = f->unopened ? 0 : trow(r);

	if (f->error) {
		r->stopped = 1;
		snprintf(r->why, sizeof(r->why), "%s", f->errmsg);
	}
	if (ret == 0 && r->has_row)
		ret = tl_resolve(r->t, r->row, 0, tregion_name, (void *)r->src);
	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	return ret;
}

int html_otf2_timeline(struct tl_lod *t, struct html_input *in, int64_t origin_ns)
{
	/* the archive's times are ns since its global offset, as the model's */
	struct tconsumer r = {.t = t, .origin = origin_ns};
	struct ev_consumer c = {.name = "timeline",
				.kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT),
				.ctx = &r,
				.location_begin = tc_begin,
				.event = tc_event,
				.events = tc_events,
				.location_end = tc_end};
	struct ev_consumer *cs[1] = {&c};
	struct ev_source *src;
	char err[1024] = "";
	int ret;

	ret = ev_source_otf2(&src, in->otf2, err, sizeof(err));
	r.src = src;
	if (ret == 0 && (ret = tregions(&r)) < 0)
		snprintf(err, sizeof(err), "out of memory");
	if (ret == 0)
		ret = ev_pass_run_flags(src, cs, 1, EV_PASS_KEEP_GOING, err, sizeof(err));
	ev_source_close(src);
	free(r.mpi);
	if (ret == 0 && r.stopped)
		html_caveat(in, "timeline: %s (the calls after it are left out)", r.why);
	if (ret < 0 && ret != -ENOMEM) {
		html_caveat(in, "timeline: %s (the calls after it are left out)", err);
		ret = 0;
	}
	return ret;
}
