/*
 * html-mpi.c - the report's "mpi" data, for the Waits, Traffic and Process detail views: the
 * run's ranks and clock corrections, the wait matrix (mpi-waits.h), each rank's time, calls
 * and bytes per routine and the traffic per (sender, receiver) pair (mpi-stats.h), as
 * `perfscope mpi --waits/--routines/--traffic` compute them, plus the traffic over time
 * frames. Arrays are columnar and rank-major (docs/html.md, "Waits").
 */
#include "html/html-int.h"

#include "lib/array.h"

#include "analysis/mpi/mpi-model.h"
#include "analysis/mpi/mpi-stats.h"
#include "analysis/mpi/mpi-waits.h"
#include "format/mpi-routines.h"
#include "view/caveats.h"
#include "view/mpi-print.h"
#include "model/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* At most this many time frames of traffic, and at most this many (frame, pair) cells: a run
 * with many communicating pairs gets fewer, longer frames, so the data stays bounded. */
#define FRAMES_MAX	200
#define FRAME_CELLS_MAX (1u << 20)

static void put_i64s(struct jsonw *w, const char *key, const int64_t *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_i64(w, v[i]);
	jsonw_array_end(w);
}

/* Ranks: presence, hosts, each rank's span relative to the run's start. */
static void data_ranks(struct jsonw *w, const struct mpi_model *m)
{
	const char *keys[] = {"present", "start_ns", "end_ns"};

	jsonw_kv_i64(w, "ranks", m->world_size);
	jsonw_kv_i64(w, "run_ns", m->end_ns - m->start_ns);
	jsonw_key(w, "hosts");
	jsonw_array_begin(w);
	for (int i = 0; i < m->world_size; i++)
		jsonw_string(w, m->ranks[i].host ? m->ranks[i].host : "");
	jsonw_array_end(w);
	for (size_t k = 0; k < 3; k++) {
		jsonw_key(w, keys[k]);
		jsonw_array_begin(w);
		for (int i = 0; i < m->world_size; i++) {
			const struct mpi_rank_info *r = &m->ranks[i];

			jsonw_i64(w, k == 0	   ? r->present
				     : !r->present ? 0
				     : k == 1	   ? r->start_ns - m->start_ns
						   : r->end_ns - m->start_ns);
		}
		jsonw_array_end(w);
	}
	jsonw_key(w, "clock");
	jsonw_object_begin(w);
	jsonw_kv_bool(w, "aligned", m->clock_aligned);
	jsonw_kv_u64(w, "violations_unaligned", m->violations_unaligned);
	jsonw_kv_u64(w, "violations_before", m->violations_before);
	jsonw_kv_u64(w, "violations_after", m->violations_after);
	jsonw_kv_i64(w, "max_correction_ns", m->max_correction_ns);
	jsonw_object_end(w);
}

/* The wait matrix as mpi_waits_compute gives it. */
static void data_waits(struct jsonw *w, const struct mpi_waits *wt)
{
	size_t p = (size_t)wt->p;

	jsonw_key(w, "waits");
	jsonw_object_begin(w);
	put_i64s(w, "p2p", wt->p2p, p * p);
	put_i64s(w, "coll", wt->coll, p);
	put_i64s(w, "total", wt->total, p);
	put_i64s(w, "exec_ns", wt->exec_ns, p);
	jsonw_kv_double(w, "hide_pct", MPI_WAITS_HIDE_PCT);
	jsonw_object_end(w);
}

/* The routines any rank called, and per rank (rows) and routine (columns) calls, time and
 * bytes. */
static void data_routines(struct jsonw *w, const struct mpi_routines *rs)
{
	const char *keys[] = {"calls", "time_ns", "bytes"};

	jsonw_key(w, "routines");
	jsonw_object_begin(w);
	jsonw_key(w, "names");
	jsonw_array_begin(w);
	for (unsigned k = 0; k < MPI_ROUTINE_COUNT; k++)
		if (rs->all[k].calls)
			jsonw_string(w, mpi_routine_name(k) ? mpi_routine_name(k) : "?");
	jsonw_array_end(w);
	for (size_t c = 0; c < 3; c++) {
		jsonw_key(w, keys[c]);
		jsonw_array_begin(w);
		for (int r = 0; r < rs->nranks; r++)
			for (unsigned k = 0; k < MPI_ROUTINE_COUNT; k++) {
				const struct mpi_routine_stat *s = mpi_routines_at(rs, r, k);

				if (!rs->all[k].calls)
					continue;
				if (c == 0)
					jsonw_u64(w, s->calls);
				else if (c == 1)
					jsonw_i64(w, s->total_ns);
				else
					jsonw_u64(w, s->bytes);
			}
		jsonw_array_end(w);
	}
	put_i64s(w, "mpi_ns", rs->mpi_ns, (size_t)rs->nranks);
	put_i64s(w, "run_ns", rs->run_ns, (size_t)rs->nranks);
	jsonw_object_end(w);
}

/* The whole run's pairs, one column per field; rates null for a pair without one. */
static void data_pairs(struct jsonw *w, const struct mpi_traffic *tr)
{
	const char *keys[] = {"src", "dst", "messages", "matched", "bytes"};
	const char *rkeys[] = {"rate_mean", "rate_min", "rate_max"};

	jsonw_key(w, "pairs");
	jsonw_object_begin(w);
	for (size_t k = 0; k < 5; k++) {
		jsonw_key(w, keys[k]);
		jsonw_array_begin(w);
		for (size_t i = 0; i < tr->npairs; i++) {
			const struct mpi_pair *p = &tr->pairs[i];
			const int64_t rank[] = {p->src, p->dst};
			const uint64_t count[] = {p->messages, p->matched, p->bytes};

			/* ranks are signed: an unmatched receive from any source has src -1 */
			if (k < 2)
				jsonw_i64(w, rank[k]);
			else
				jsonw_u64(w, count[k - 2]);
		}
		jsonw_array_end(w);
	}
	for (size_t k = 0; k < 3; k++) {
		jsonw_key(w, rkeys[k]);
		jsonw_array_begin(w);
		for (size_t i = 0; i < tr->npairs; i++) {
			const struct mpi_pair *p = &tr->pairs[i];
			const double v[] = {p->rate_mean, p->rate_min, p->rate_max};

			if (p->nrates)
				jsonw_double(w, v[k]);
			else
				jsonw_null(w);
		}
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
}

/* Index of pair (SRC, DST) in TR (sorted by sender, then receiver), -1 when absent. */
static long pair_index(const struct mpi_traffic *tr, int32_t src, int32_t dst)
{
	size_t lo = 0, hi = tr->npairs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mpi_pair *p = &tr->pairs[mid];

		if (p->src < src || (p->src == src && p->dst < dst))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tr->npairs && tr->pairs[lo].src == src && tr->pairs[lo].dst == dst ? (long)lo
										       : -1;
}

/* One (frame, pair) cell while accumulating. */
struct frame_cell {
	uint64_t messages, bytes, nrates;
	double rate_sum;
};

/* The matched messages of M counted into CELLS (NFRAMES frames of DT ns, NP pairs of TR
 * each), in every frame their transfer overlaps. */
static void frames_fill(struct frame_cell *cells, size_t nframes, size_t np, int64_t dt,
			const struct mpi_model *m, const struct mpi_traffic *tr)
{
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *msg = &m->msgs[i];
		int64_t a, b;
		double rate;
		long pi;
		size_t f0, f1;

		if (msg->send_call == MPI_NONE || msg->recv_call == MPI_NONE)
			continue;
		a = m->calls[msg->send_call].enter_ns - m->start_ns;
		b = m->calls[msg->recv_call].leave_ns - m->start_ns;
		pi = pair_index(tr, msg->src, msg->dst);
		if (b <= a || b <= 0 || pi < 0) /* b <= 0: over before the run's first event */
			continue;
		f0 = a < 0 ? 0 : (size_t)(a / dt);
		f1 = (size_t)((b - 1) / dt);
		if (f0 >= nframes)
			f0 = nframes - 1;
		if (f1 >= nframes)
			f1 = nframes - 1;
		rate = mpi_message_rate(m, msg);
		for (size_t f = f0; f <= f1; f++) {
			struct frame_cell *c = &cells[f * np + (size_t)pi];

			c->messages++;
			c->bytes += msg->bytes;
			if (rate > 0) {
				c->nrates++;
				c->rate_sum += rate;
			}
		}
	}
}

/* "frames" of CELLS (NFRAMES frames of DT ns, NP pairs each) into W: per frame the index of its
 * first cell with messages in "first", and the columns of those cells. */
static void frames_write(struct jsonw *w, const struct frame_cell *cells, size_t nframes, size_t np,
			 int64_t dt)
{
	const char *keys[] = {"pair", "messages", "bytes"};
	size_t n = 0;

	jsonw_key(w, "frames");
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "n", nframes);
	jsonw_kv_i64(w, "dt_ns", dt);
	jsonw_key(w, "first");
	jsonw_array_begin(w);
	for (size_t f = 0; f < nframes; f++) {
		jsonw_u64(w, n);
		for (size_t k = 0; k < np; k++)
			n += cells[f * np + k].messages > 0;
	}
	jsonw_u64(w, n);
	jsonw_array_end(w);
	for (size_t col = 0; col < 4; col++) {
		jsonw_key(w, col < 3 ? keys[col] : "rate");
		jsonw_array_begin(w);
		for (size_t f = 0; f < nframes; f++)
			for (size_t k = 0; k < np; k++) {
				const struct frame_cell *c = &cells[f * np + k];

				if (!c->messages)
					continue;
				if (col == 0)
					jsonw_u64(w, k);
				else if (col == 1)
					jsonw_u64(w, c->messages);
				else if (col == 2)
					jsonw_u64(w, c->bytes);
				else if (c->nrates)
					jsonw_double(w, c->rate_sum / (double)c->nrates);
				else
					jsonw_null(w);
			}
		jsonw_array_end(w);
	}
	jsonw_object_end(w);
}

/*
 * The traffic over time: the run cut into NFRAMES frames of DT ns; a matched message is in
 * transfer from the enter of the call that started its send to the leave of the call that
 * completed its receive (mpi-stats.h's effective rate, bits over that time), and counts, with
 * all its bytes, in every frame its transfer overlaps. Per frame only the pairs with
 * messages, as indices into "pairs": first[f] .. first[f + 1]. 0 or -ENOMEM.
 */
static int data_frames(struct jsonw *w, const struct mpi_model *m, const struct mpi_traffic *tr)
{
	int64_t run = m->end_ns - m->start_ns, dt;
	size_t nframes = FRAMES_MAX, np = tr->npairs ? tr->npairs : 1;
	struct frame_cell *cells;

	if (nframes * np > FRAME_CELLS_MAX)
		nframes = FRAME_CELLS_MAX / np ? FRAME_CELLS_MAX / np : 1;
	if (run < (int64_t)nframes)
		nframes = run > 0 ? (size_t)run : 1;
	dt = run > 0 ? (run + (int64_t)nframes - 1) / (int64_t)nframes : 1;
	cells = calloc(nframes * np, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	frames_fill(cells, nframes, np, dt, m, tr);
	frames_write(w, cells, nframes, np, dt);
	free(cells);
	return 0;
}

/* The caveats of `perfscope mpi` (mpi_caveats) that the report does not state already: the
 * experiment's own come from html.c, the model's warnings from html_mpi(). */
struct caveat_filter {
	struct html_input *in;
	const struct mpi_model *m;
	char **seen; /* the experiment's caveat lines */
	size_t nseen, cap;
	int failed;
};

static void caveat_seen(void *ctx, const char *line)
{
	struct caveat_filter *cf = ctx;

	if (cf->failed)
		return;
	if (array_reserve((void **)&cf->seen, &cf->cap, cf->nseen + 1, sizeof(*cf->seen))) {
		cf->failed = 1;
		return;
	}
	cf->seen[cf->nseen] = strdup(line);
	if (!cf->seen[cf->nseen])
		cf->failed = 1;
	else
		cf->nseen++;
}

static void caveat_new(void *ctx, const char *line)
{
	struct caveat_filter *cf = ctx;

	for (size_t i = 0; i < cf->nseen; i++)
		if (!strcmp(cf->seen[i], line))
			return;
	for (size_t i = 0; i < cf->m->nwarnings; i++)
		if (!strcmp(cf->m->warnings[i], line))
			return;
	html_caveat_line(cf->in, line);
}

static int mpi_html_caveats(struct html_input *in, const struct mpi_report *r)
{
	struct caveat_filter cf = {.in = in, .m = r->m};

	if (r->e)
		experiment_caveats(r->e, 1, caveat_seen, &cf);
	if (!cf.failed)
		mpi_caveats(r, caveat_new, &cf);
	for (size_t i = 0; i < cf.nseen; i++)
		free(cf.seen[i]);
	free(cf.seen);
	return cf.failed ? -ENOMEM : 0;
}

int html_data_mpi(struct jsonw *w, struct html_input *in)
{
	const struct mpi_model *m = html_mpi(in);
	const struct mpi_routines *rs;
	const struct mpi_traffic *tr;
	const struct mpi_waits *wt;
	struct mpi_report r;
	char err[256];
	void *p, *q;
	int ret;

	if (!m)
		return 0;
	wt = html_waits(in);
	if (!wt || session_get(in->s, SESSION_ROUTINES, &p, err, sizeof(err)) < 0 ||
	    session_get(in->s, SESSION_TRAFFIC, &q, err, sizeof(err)) < 0)
		return -ENOMEM; /* they fail for memory alone */
	rs = p;
	tr = q;
	/* no experiment: the archive's times as it gives them (mpi_caveats) */
	r = (struct mpi_report){
	    .m = m, .e = in->otf2 ? NULL : in->e, .routines = rs, .traffic = tr, .waits = wt};
	if (mpi_html_caveats(in, &r) < 0)
		return -ENOMEM;
	jsonw_key(w, "mpi");
	jsonw_object_begin(w);
	data_ranks(w, m);
	data_waits(w, wt);
	data_routines(w, rs);
	jsonw_key(w, "traffic");
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "messages", tr->messages);
	jsonw_kv_u64(w, "matched", tr->matched);
	jsonw_kv_u64(w, "bytes", tr->bytes);
	data_pairs(w, tr);
	ret = data_frames(w, m, tr);
	jsonw_object_end(w);
	jsonw_object_end(w);
	return ret;
}
