/* html-timeline.c - the report's "timeline" data: one row per thread (per rank with MPI),
 * calls, regions and MPI routines as slices under the level of detail of html-timeline.h,
 * MPI messages as arrows. docs/html.md describes the JSON. */
#include "html/html-int.h"
#include "html/html-timeline.h"
#include "model/thread-label.h"

#include "analysis/profile/func-profile.h"
#include "analysis/mpi/mpi-model.h"
#include "format/mpi-routines.h"
#include "lib/array.h"
#include "model/pass.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TL_SLICE_BUDGET 200000 /* slices kept whole: about 20 bytes of JSON each */
#define TL_CELL_BUDGET	600000 /* bins: about 10 bytes each */
#define TL_ARROW_BUDGET 20000  /* message arrows: about 40 bytes each */
#define TL_MAX_DEPTH	64     /* nesting levels drawn per row */

/* The clock of a row: ns on its process's CLOCK_MONOTONIC to ns from the run's start. */
struct tl_clock {
	int64_t origin;
	const struct mpi_rank_info *rank; /* MPI: its offset to rank 0's clock */
};

static inline int64_t tl_rel(const struct tl_clock *c, int64_t ns)
{
	if (c->rank)
		ns += mpi_rank_clock_offset(c->rank, ns);
	return ns - c->origin;
}

struct tl_frame {
	uint64_t key;
	int64_t start;
	int func;
};

struct tl_stack {
	struct tl_frame *f;
	size_t n, cap;
};

static int push(struct tl_stack *st, uint64_t key, int64_t start, int func)
{
	if (ARRAY_GROW(st->f, st->n + 1, st->cap))
		return -ENOMEM;
	st->f[st->n++] = (struct tl_frame){key, start, func};
	return 0;
}

/* Close the frames above index DOWN_TO (inclusive) at NS, each a slice at its depth. */
static int pop_to(struct tl_lod *t, size_t row, struct tl_stack *st, size_t down_to, int64_t ns)
{
	while (st->n > down_to) {
		struct tl_frame *f = &st->f[--st->n];
		int ret = tl_add(t, row, (int)st->n, f->start, ns - f->start, f->key);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Naming a stream's keys: functions through the symbols, regions through the location. */
struct tl_namer {
	struct html_input *in;
	const struct exp_stream *s;
	const struct ev_location *loc;
	char buf[64];
};

static const char *key_name(void *ctx, uint64_t key, enum tl_kind *kind)
{
	struct tl_namer *nm = ctx;
	struct sym_info si;

	if (key & TL_KEY_MPI) {
		const char *n = mpi_routine_name((unsigned)(key & 0xffffffffu));

		*kind = TL_MPI;
		if (n)
			return n;
		snprintf(nm->buf, sizeof(nm->buf), "MPI routine %u", (unsigned)(key & 0xffffffffu));
		return nm->buf;
	}
	if (key & TL_KEY_REGION) {
		uint32_t id = (uint32_t)key;
		const char *name = nm->loc ? ev_location_region_name(nm->loc, id) : NULL;

		*kind = TL_REGION;
		if (name)
			return name;
		snprintf(nm->buf, sizeof(nm->buf), "region %u", id);
		return nm->buf;
	}
	*kind = TL_FUNCTION;
	symtab_lookup(nm->in->syms, nm->s->pid, nm->s->image, key, &si);
	return si.name;
}

/* Stream S as the profile pass walked it when it found no function call and no region in
 * it (an MPI rank's stream with MPI records only): nothing to draw, so no second read of it.
 * NULL when that pass did not see it whole or it has calls or regions. */
static const struct call_thread *without_calls(const struct html_input *in,
					       const struct exp_stream *s)
{
	const struct func_profile *fp = in->fr ? in->fr->p : NULL;
	const struct region_profile *rp = in->rr ? in->rr->p : NULL;
	size_t i = (size_t)(s - in->e->streams);

	/* a profile exists only when its pass read every stream without error */
	if (!fp || !rp || !in->fr->per_thread || !in->rr->per_thread ||
	    fp->nthreads != in->e->nstreams || fp->threads[i].pid != s->pid ||
	    fp->threads[i].tid != s->tid || fp->threads[i].th.function_records)
		return NULL;
	for (size_t r = 0; r < rp->nrows; r++)
		if (rp->rows[r].pid == s->pid && rp->rows[r].tid == s->tid)
			return NULL;
	return &fp->threads[i].th;
}

/* The consumer drawing each stream into its row: every call and region a slice at its nesting
 * depth (regions and functions nest in one stack; a frame left open inside another closes with
 * it). */
struct tl_consumer {
	struct tl_lod *t;
	struct html_input *in;
	const struct mpi_model *m;
	int64_t start;
	const size_t *order; /* the pass's location I is stream order[I] of the experiment */
	const size_t *row;   /* per location: its row */
	const struct exp_stream *s;
	struct tl_clock clk;
	struct tl_stack st;
	int64_t last;
};

static int tl_location_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct tl_consumer *c = ctx;
	const struct exp_stream *s = &c->in->e->streams[c->order[loc->index]];
	const struct call_thread *none = without_calls(c->in, s);
	struct tl_row *r = &c->t->rows[c->row[loc->index]];
	int rank = s->proc ? s->proc->rank : -1;

	(void)err;
	(void)errlen;
	if (none) {
		memcpy(r->name, none->name, sizeof(r->name));
		r->name[sizeof(r->name) - 1] = 0;
		return 1;
	}
	c->s = s;
	c->clk = (struct tl_clock){c->start, NULL};
	if (c->m && rank >= 0 && rank < c->m->world_size)
		c->clk.rank = &c->m->ranks[rank];
	c->st.n = 0;
	c->last = 0;
	return 0;
}

static int tl_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct tl_consumer *c = ctx;
	struct tl_stack *st = &c->st;
	const struct exp_stream *s = c->s;
	size_t row = c->row[ev->loc->index], i;
	int64_t ns = tl_rel(&c->clk, ev->ns);
	uint64_t key;
	int ret = 0;

	c->last = ns;
	switch (ev->kind) {
	case EV_CALL_ENTER:
		ret = push(st, symtab_place(c->in->syms, s->pid, s->image, ev->call.addr, ev->ns),
			   ns, 1);
		break;
	case EV_CALL_EXIT:
		for (i = st->n; i-- > 0 && !st->f[i].func;)
			;
		if (i < st->n)
			ret = pop_to(c->t, row, st, i, ns);
		break;
	case EV_REGION_ENTER:
		ret = push(st, TL_KEY_REGION | ev->region.id, ns, 0);
		break;
	default:
		key = TL_KEY_REGION | ev->region.id;
		for (i = st->n; i-- > 0 && st->f[i].key != key;)
			;
		if (i < st->n)
			ret = pop_to(c->t, row, st, i, ns);
		break;
	}
	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	return ret;
}

/* N call events at once (ev_consumer.events): the pass's dispatch once for them. */
static int tl_events(void *ctx, const struct event *ev, size_t n, char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++)
		ret = tl_event(ctx, &ev[i], err, errlen);
	return ret;
}

static int tl_location_end(void *ctx, const struct ev_location *loc,
			   const struct ev_location_facts *facts, char *err, size_t errlen)
{
	struct tl_consumer *c = ctx;
	size_t row = c->row[loc->index];
	struct tl_row *r = &c->t->rows[row];
	struct tl_namer nm = {c->in, c->s, loc, ""};
	int ret;

	if (facts->unopened) {
		html_caveat(c->in, "timeline: %s", facts->errmsg);
		return 0;
	}
	/* keep what was read up to the defect */
	if (facts->error)
		html_caveat(c->in, "timeline: %s (the rest of the thread is left out)",
			    facts->errmsg);
	ret = pop_to(c->t, row, &c->st, 0, c->last);
	memcpy(r->name, facts->name, sizeof(r->name));
	r->name[sizeof(r->name) - 1] = 0;
	if (!thread_label(r->omp, sizeof(r->omp), facts, -1))
		r->omp[0] = 0;
	if (ret == 0)
		ret = tl_resolve(c->t, row, 0, key_name, &nm);
	if (ret < 0)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static int cmp_stream(const void *a, const void *b, void *streams)
{
	const struct exp_stream *x = (const struct exp_stream *)streams + *(const size_t *)a;
	const struct exp_stream *y = (const struct exp_stream *)streams + *(const size_t *)b;
	int rx = x->proc ? x->proc->rank : -1, ry = y->proc ? y->proc->rank : -1;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Every stream of IN into its row, rows in the order of cmp_stream(), through one pass that
 * goes on past a damaged stream (its error a caveat). The pass walks the streams of an
 * experiment in its order: it is given IN's experiment with its streams in the rows' order. */
static int streams_pass(struct tl_lod *t, struct html_input *in, const struct mpi_model *m,
			int64_t start)
{
	const struct experiment *e = in->e;
	struct experiment sorted = *e;
	struct tl_consumer tc = {.t = t, .in = in, .m = m, .start = start};
	struct ev_consumer c = {
	    .name = "timeline",
	    .kinds = EV_BIT(EV_CALL_ENTER) | EV_BIT(EV_CALL_EXIT) | EV_BIT(EV_REGION_ENTER) |
		     EV_BIT(EV_REGION_EXIT),
	    .locations = EV_LOC_STREAMS,
	    .ctx = &tc,
	    .location_begin = tl_location_begin,
	    .event = tl_event,
	    .events = tl_events,
	    .location_end = tl_location_end,
	};
	struct ev_consumer *cs[1] = {&c};
	size_t *order = malloc((e->nstreams + 1) * sizeof(*order));
	size_t *row = malloc((e->nstreams + 1) * sizeof(*row));
	char err[512] = "";
	int ret = 0;

	sorted.streams = malloc((e->nstreams + 1) * sizeof(*sorted.streams));
	if (!order || !row || !sorted.streams)
		ret = -ENOMEM;
	for (size_t i = 0; i < e->nstreams && ret == 0; i++)
		order[i] = i;
	if (ret == 0)
		qsort_r(order, e->nstreams, sizeof(*order), cmp_stream, e->streams);
	for (size_t k = 0; k < e->nstreams && ret == 0; k++) {
		const struct exp_stream *s = &e->streams[order[k]];

		sorted.streams[k] = *s;
		ret = tl_row_add(t, s->pid, s->tid, m && s->proc ? s->proc->rank : -1, s->image,
				 &row[k]);
	}
	tc.order = order;
	tc.row = row;
	if (ret == 0 && e->nstreams)
		ret = ev_pass_experiment(&sorted, cs, 1, EV_PASS_KEEP_GOING, err, sizeof(err));
	free(tc.st.f);
	free(sorted.streams);
	free(row);
	free(order);
	return ret;
}

/* The run's start and end: the MPI model's, else the launcher's widened to every stream's
 * records (the profile pass saw them). 0, or -1 when unknown. */
static int run_span(struct html_input *in, const struct mpi_model *m, int64_t *start, int64_t *end)
{
	const struct func_profile *p = in->fr ? in->fr->p : NULL;

	if (m) {
		*start = m->start_ns;
		*end = m->end_ns;
		return *end > *start ? 0 : -1;
	}
	*start = in->e->start_ns ? in->e->start_ns : INT64_MAX;
	*end = in->e->end_ns ? in->e->end_ns : INT64_MIN;
	for (size_t i = 0; p && i < p->nthreads; i++) {
		if (p->threads[i].th.first_ns > p->threads[i].th.last_ns)
			continue;
		if (!in->e->start_ns && p->threads[i].th.first_ns < *start)
			*start = p->threads[i].th.first_ns;
		if (p->threads[i].th.last_ns > *end)
			*end = p->threads[i].th.last_ns;
	}
	return *start != INT64_MAX && *end > *start ? 0 : -1;
}

/* The MPI calls of every location into the MPI lane of its thread's row (a row added for
 * a location without a stream). LOC_ROW gets each location's row. */
static int mpi_pass(struct tl_lod *t, struct html_input *in, const struct mpi_model *m,
		    int64_t origin, uint32_t *loc_row)
{
	struct tl_namer nm = {in, NULL, NULL, ""};

	for (size_t li = 0; li < m->nlocs; li++) {
		const struct mpi_loc *l = &m->locs[li];
		size_t row = t->nrows;
		int ret;

		for (size_t r = 0; r < t->nrows; r++)
			if (t->rows[r].rank == l->rank && t->rows[r].tid == l->tid)
				row = r;
		if (row == t->nrows) {
			pid_t pid =
			    l->rank >= 0 && l->rank < m->world_size ? m->ranks[l->rank].pid : 0;

			if (tl_row_add(t, pid, l->tid, l->rank, 0, &row) < 0)
				return -ENOMEM;
		}
		loc_row[li] = (uint32_t)row;
		for (uint32_t c = l->first_call; c < l->first_call + l->ncalls; c++) {
			const struct mpi_call *call = &m->calls[c];

			ret = tl_add(t, row, -1, call->enter_ns - origin,
				     call->leave_ns - call->enter_ns, TL_KEY_MPI | call->routine);
			if (ret < 0)
				return ret;
		}
		ret = tl_resolve(t, row, 1, key_name, &nm);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void tl_arrows_release(struct tl_arrows *a)
{
	free(a->from);
	free(a->to);
	free(a->t0);
	free(a->t1);
	free(a->bytes);
	memset(a, 0, sizeof(*a));
}

/* A matched message as a candidate arrow: its transfer's length and its index in msgs. */
struct arrow_key {
	int64_t len;
	uint32_t msg;
};

/* True when arrow X comes before arrow Y in the order of the longest first (ties: the earlier
 * message). */
static int arrow_before(const struct arrow_key *x, const struct arrow_key *y)
{
	return x->len != y->len ? x->len > y->len : x->msg < y->msg;
}

/* Sifts H[I] down the heap H[0..N) whose root is the arrow arrow_before() puts last. */
static void heap_down(struct arrow_key *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct arrow_key t;

		if (c >= n)
			return;
		if (c + 1 < n && arrow_before(&h[c], &h[c + 1]))
			c++;
		if (!arrow_before(&h[i], &h[c]))
			return;
		t = h[c];
		h[c] = h[i];
		h[i] = t;
		i = c;
	}
}

/* Arrows by start (the enter of the call that started the send), then by message. */
static int cmp_arrow(const void *x, const void *y, void *model)
{
	const struct mpi_model *m = model;
	uint32_t i = ((const struct arrow_key *)x)->msg, j = ((const struct arrow_key *)y)->msg;
	int64_t a = m->calls[m->msgs[i].send_call].enter_ns;
	int64_t b = m->calls[m->msgs[j].send_call].enter_ns;

	if (a != b)
		return a < b ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int matched(const struct mpi_message *msg)
{
	return msg->send_call != MPI_NONE && msg->recv_call != MPI_NONE;
}

/* K: the BUDGET longest of M's N matched messages (a heap of them, one compare for most
 * messages), in time order. */
static void arrows_longest(const struct mpi_model *m, struct arrow_key *k, size_t budget)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nmsgs && budget; i++) {
		const struct mpi_message *msg = &m->msgs[i];
		struct arrow_key c;

		if (!matched(msg))
			continue;
		c.len = m->calls[msg->recv_call].leave_ns - m->calls[msg->send_call].enter_ns;
		c.msg = (uint32_t)i;
		if (n < budget) {
			k[n++] = c;
			if (n == budget)
				for (size_t j = n / 2; j-- > 0;)
					heap_down(k, n, j);
		} else if (arrow_before(&c, &k[0])) {
			k[0] = c;
			heap_down(k, n, 0);
		}
	}
	qsort_r(k, n, sizeof(*k), cmp_arrow, (void *)m);
}

/* The matched messages of M as arrows between the rows of their calls' locations (LOC_ROW),
 * in message order; of more than BUDGET, the BUDGET longest in time order. */
static int arrows_build(struct tl_arrows *a, const struct mpi_model *m, int64_t origin,
			const uint32_t *loc_row, size_t budget)
{
	struct arrow_key *keep = NULL;
	size_t n = 0;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < m->nmsgs; i++)
		n += matched(&m->msgs[i]);
	a->total = n;
	if (n > budget) {
		n = budget;
		keep = malloc((n + 1) * sizeof(*keep));
		if (!keep)
			return -ENOMEM;
		arrows_longest(m, keep, n);
	}
	a->from = malloc((n + 1) * sizeof(*a->from));
	a->to = malloc((n + 1) * sizeof(*a->to));
	a->t0 = malloc((n + 1) * sizeof(*a->t0));
	a->t1 = malloc((n + 1) * sizeof(*a->t1));
	a->bytes = malloc((n + 1) * sizeof(*a->bytes));
	if (!a->from || !a->to || !a->t0 || !a->t1 || !a->bytes) {
		free(keep);
		return -ENOMEM;
	}
	for (size_t i = 0, k = 0; k < n; i++) {
		const struct mpi_message *msg = &m->msgs[keep ? keep[k].msg : i];
		const struct mpi_call *s, *r;

		if (!matched(msg))
			continue;
		s = &m->calls[msg->send_call];
		r = &m->calls[msg->recv_call];
		a->from[k] = loc_row[s->loc];
		a->to[k] = loc_row[r->loc];
		a->t0[k] = s->enter_ns - origin;
		a->t1[k] = r->leave_ns - origin;
		a->bytes[k++] = msg->bytes;
	}
	a->n = n;
	free(keep);
	return 0;
}

int tl_build(struct tl_lod *t, struct tl_arrows *a, int64_t *origin_ns, struct html_input *in,
	     const struct tl_params *p, size_t arrow_budget)
{
	const struct experiment *e = in->e;
	const struct mpi_model *m = html_mpi(in);
	struct tl_params prm = *p;
	uint32_t *loc_row = NULL;
	int64_t start, end;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	memset(t, 0, sizeof(*t));
	if (run_span(in, m, &start, &end) < 0) {
		if (e->nstreams)
			html_caveat(in, "timeline: the run's start and end are unknown");
		return 0;
	}
	*origin_ns = start;
	prm.run_ns = end - start;
	if (tl_init(t, &prm) < 0)
		return -ENOMEM;
	ret = streams_pass(t, in, m, start);
	if (ret == 0 && in->otf2) /* an archive's calls: its locations' rows */
		ret = html_otf2_timeline(t, in, start);
	if (ret == 0 && m) {
		loc_row = malloc((m->nlocs + 1) * sizeof(*loc_row));
		ret = loc_row ? mpi_pass(t, in, m, start, loc_row) : -ENOMEM;
		if (ret == 0)
			ret = arrows_build(a, m, start, loc_row, arrow_budget);
		free(loc_row);
	}
	if (ret == 0)
		ret = tl_finish(t);
	if (ret < 0 || !t->calls) { /* nothing to draw: no view, nothing kept */
		tl_release(t);
		tl_arrows_release(a);
		return ret < 0 ? ret : 0;
	}
	return 1;
}

/* An array of N values got through GET(ctx, i), each minus the previous one when DELTA. */
static void put_ints(struct jsonw *w, const char *key, size_t n, int delta,
		     int64_t (*get)(const void *ctx, size_t i), const void *ctx)
{
	int64_t prev = 0;

	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++) {
		int64_t v = get(ctx, i);

		jsonw_i64(w, delta ? v - prev : v);
		prev = v;
	}
	jsonw_array_end(w);
}

static int64_t sl_start(const void *l, size_t i)
{
	return ((const struct tl_lane *)l)->sl[i].start;
}

static int64_t sl_dur(const void *l, size_t i)
{
	return ((const struct tl_lane *)l)->sl[i].dur;
}

static int64_t sl_name(const void *l, size_t i)
{
	return (int64_t)((const struct tl_lane *)l)->sl[i].key;
}

static int64_t cell_bin(const void *l, size_t i)
{
	return (int64_t)((const struct tl_lane *)l)->cells[i].bin;
}

static int64_t cell_name(const void *l, size_t i)
{
	return (int64_t)((const struct tl_lane *)l)->cells[i].key;
}

/* "busy": each bin's busy time in thousandths of the bin of BIN_NS (the lane's frames do
 * not overlap, so at most 1000). */
static void put_busy(struct jsonw *w, const struct tl_lane *l, int64_t bin_ns)
{
	jsonw_key(w, "busy");
	jsonw_array_begin(w);
	for (size_t i = 0; i < l->ncells; i++) {
		int64_t v = (l->cells[i].busy * 1000 + bin_ns / 2) / bin_ns;

		jsonw_i64(w, v > 1000 ? 1000 : v);
	}
	jsonw_array_end(w);
}

static void put_rows(struct jsonw *w, const struct tl_lod *t)
{
	char label[96];

	jsonw_key(w, "rows");
	jsonw_array_begin(w);
	for (size_t r = 0; r < t->nrows; r++) {
		const struct tl_row *row = &t->rows[r];
		size_t same = 0;

		for (size_t k = 0; k < t->nrows; k++)
			same += row->rank >= 0 && t->rows[k].rank == row->rank;
		if (row->rank >= 0 && same == 1)
			snprintf(label, sizeof(label), "rank %d", row->rank);
		else if (row->rank >= 0 && row->omp[0])
			snprintf(label, sizeof(label), "rank %d · %s", row->rank, row->omp);
		else if (row->omp[0])
			snprintf(label, sizeof(label), "%s · %d", row->omp, (int)row->tid);
		else if (row->rank >= 0)
			snprintf(label, sizeof(label), "rank %d · %d", row->rank, (int)row->tid);
		else
			snprintf(label, sizeof(label), "%d %s", (int)row->tid, row->name);
		jsonw_object_begin(w);
		jsonw_kv_string(w, "label", label);
		jsonw_kv_i64(w, "rank", row->rank);
		jsonw_kv_i64(w, "pid", row->pid);
		jsonw_kv_i64(w, "tid", row->tid);
		jsonw_kv_string(w, "thread", row->name);
		jsonw_kv_u64(w, "depth", row->nlanes > 1 ? row->nlanes - 1 : 0);
		jsonw_kv_bool(w, "mpi", row->nlanes && (row->lanes[0].nsl || row->lanes[0].ncells));
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static void put_lanes(struct jsonw *w, const struct tl_lod *t)
{
	jsonw_key(w, "lanes");
	jsonw_array_begin(w);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t li = 0; li < t->rows[r].nlanes; li++) {
			const struct tl_lane *l = &t->rows[r].lanes[li];

			if (!l->nsl && !l->ncells)
				continue;
			jsonw_object_begin(w);
			jsonw_kv_u64(w, "row", r);
			jsonw_kv_i64(w, "depth", (int64_t)li - 1);
			put_ints(w, "start", l->nsl, 1, sl_start, l);
			put_ints(w, "dur", l->nsl, 0, sl_dur, l);
			put_ints(w, "name", l->nsl, 0, sl_name, l);
			put_ints(w, "bin", l->ncells, 1, cell_bin, l);
			put_ints(w, "bname", l->ncells, 0, cell_name, l);
			put_busy(w, l, t->bin_ns);
			jsonw_object_end(w);
		}
	}
	jsonw_array_end(w);
}

static int64_t ar_from(const void *a, size_t i)
{
	return ((const struct tl_arrows *)a)->from[i];
}

static int64_t ar_to(const void *a, size_t i)
{
	return ((const struct tl_arrows *)a)->to[i];
}

static int64_t ar_t0(const void *a, size_t i)
{
	return ((const struct tl_arrows *)a)->t0[i];
}

static int64_t ar_t1(const void *a, size_t i)
{
	return ((const struct tl_arrows *)a)->t1[i];
}

static int64_t ar_bytes(const void *a, size_t i)
{
	return (int64_t)((const struct tl_arrows *)a)->bytes[i];
}

int html_data_timeline(struct jsonw *w, struct html_input *in)
{
	const struct tl_params p = {0, TL_SLICE_BUDGET, TL_CELL_BUDGET, TL_MAX_DEPTH};
	struct tl_arrows a;
	struct tl_lod t;
	int64_t origin = 0;
	int ret = tl_build(&t, &a, &origin, in, &p, TL_ARROW_BUDGET);

	if (ret <= 0)
		return ret;
	if (t.raised)
		html_caveat(in,
			    "timeline: %zu of %llu calls drawn whole (those of at least %lld ns); "
			    "the shorter ones are drawn as bins of %lld ns (busy share, busiest "
			    "name) to keep the report small",
			    t.nslices, (unsigned long long)t.calls, (long long)t.min_ns,
			    (long long)t.bin_ns);
	else if (t.coarsened)
		html_caveat(
		    in,
		    "timeline: the calls shorter than %lld ns are drawn as bins of %lld ns, "
		    "wider than planned, to keep the report small",
		    (long long)t.min_ns, (long long)t.bin_ns);
	if (a.total > a.n)
		html_caveat(in, "timeline: %zu of %zu MPI messages drawn as arrows (the longest)",
			    a.n, a.total);
	if (t.too_deep)
		html_caveat(in, "timeline: %llu calls nested deeper than %u levels left out",
			    (unsigned long long)t.too_deep, t.p.max_depth);
	jsonw_key(w, "timeline");
	jsonw_object_begin(w);
	jsonw_kv_i64(w, "origin_ns", origin);
	jsonw_kv_i64(w, "run_ns", t.p.run_ns);
	jsonw_kv_i64(w, "min_ns", t.min_ns);
	jsonw_kv_i64(w, "bin_ns", t.bin_ns);
	jsonw_kv_u64(w, "calls", t.calls);
	jsonw_kv_u64(w, "slices", t.nslices);
	jsonw_key(w, "names");
	jsonw_array_begin(w);
	for (size_t i = 0; i < t.names.n; i++)
		jsonw_string(w, t.names.names[i]);
	jsonw_array_end(w);
	jsonw_key(w, "kinds");
	jsonw_array_begin(w);
	for (size_t i = 0; i < t.names.n; i++)
		jsonw_u64(w, t.names.kinds[i]);
	jsonw_array_end(w);
	put_rows(w, &t);
	put_lanes(w, &t);
	jsonw_key(w, "arrows");
	jsonw_object_begin(w);
	jsonw_kv_u64(w, "total", a.total);
	put_ints(w, "from", a.n, 0, ar_from, &a);
	put_ints(w, "to", a.n, 0, ar_to, &a);
	put_ints(w, "t0", a.n, 0, ar_t0, &a);
	put_ints(w, "t1", a.n, 0, ar_t1, &a);
	put_ints(w, "bytes", a.n, 0, ar_bytes, &a);
	jsonw_object_end(w);
	jsonw_object_end(w);
	tl_release(&t);
	tl_arrows_release(&a);
	return w->failed ? -ENOMEM : 0;
}
