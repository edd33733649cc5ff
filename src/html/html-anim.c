/*
 * html-anim.c - the report's "states" (Process animation) and "load" (Load view) data: each
 * rank's state over time from the MPI model, each rank's and host's CPU load over time from
 * the load logs, and the rank grid both views draw on (html-anim.h, docs/html.md).
 */
#include "html/html-anim.h"
#include "lib/array.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/loadlog.h"
#include "analysis/mpi/mpi-waits.h"
#include "format/mpi-routines.h"
#include "html/html-int.h"

/* Changes of a track being aggregated that are held before their segments go into frames. */
#define ANIM_FLUSH 4096

unsigned anim_frames(int nranks)
{
	unsigned f = nranks > 0 ? ANIM_MAX_CHANGES / (unsigned)nranks : 2000;

	return f > 2000 ? 2000 : f < 100 ? 100 : f;
}

int anim_grid(int n, int want_rows, int want_cols, int *rows, int *cols)
{
	int c = 1;

	if (n < 1)
		n = 1;
	if (want_rows > 0 && want_cols > 0 && (long)want_rows * want_cols >= n) {
		*rows = want_rows;
		*cols = want_cols;
		return 0;
	}
	while ((long)c * c < n)
		c++;
	*cols = c;
	*rows = (n + c - 1) / c;
	return want_rows > 0 || want_cols > 0 ? -1 : 0;
}

uint32_t anim_track_at(const struct anim_track *tr, int64_t t)
{
	size_t lo = 0, hi = tr->n;

	if (!tr->n)
		return ANIM_IDLE;
	/* the first change after T */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tr->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? tr->s[lo - 1] : tr->s[0];
}

/* Append state S from time T: a change at the same time replaces the last one, and a state
 * equal to the last is no change. 0 or -ENOMEM. */
static int track_push(struct anim_track *tr, int64_t t, uint32_t s)
{
	if (tr->n && t < tr->t[tr->n - 1])
		t = tr->t[tr->n - 1];
	if (tr->n && t == tr->t[tr->n - 1]) {
		tr->n--;
		if (tr->n && tr->s[tr->n - 1] == s)
			return 0;
	}
	if (tr->n && tr->s[tr->n - 1] == s)
		return 0;
	if (tr->n == tr->cap) {
		/* t and s both have room for cap: from it, they grow alike */
		size_t cap = tr->cap, scap = tr->cap;

		if (ARRAY_GROW(tr->t, tr->n + 1, cap) || ARRAY_GROW(tr->s, tr->n + 1, scap))
			return -ENOMEM;
		tr->cap = cap;
	}
	tr->t[tr->n] = t;
	tr->s[tr->n] = s;
	tr->n++;
	return 0;
}

void anim_states_release(struct anim_states *st)
{
	for (int r = 0; st->ranks && r < st->nranks; r++) {
		free(st->ranks[r].t);
		free(st->ranks[r].s);
		free(st->ranks[r].mix);
	}
	free(st->ranks);
	free(st->routines);
	memset(st, 0, sizeof(*st));
}

/* For sorting a rank's calls (indices into CALLS) by entry, then by index so the order is
 * stable. */
static int cmp_call(const void *a, const void *b, void *calls)
{
	const struct mpi_call *c = calls;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t ex = c[x].enter_ns, ey = c[y].enter_ns;

	if (ex != ey)
		return ex < ey ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The state number of ROUTINE, added on first sight (MAP: routine -> state + 1, 0 unseen). */
static uint32_t routine_state(struct anim_states *st, uint32_t *map, uint32_t routine)
{
	if (routine >= MPI_ROUTINE_COUNT)
		routine = MPI_ROUTINE_COUNT; /* unknown ids share one extra slot */
	if (!map[routine]) {
		st->routines[st->nroutines] = routine;
		map[routine] = ANIM_ROUTINE + st->nroutines++ + 1;
	}
	return map[routine] - 1;
}

/* Append N values V to TR's mix. 0 or -ENOMEM. */
static int mix_push(struct anim_track *tr, const uint32_t *v, size_t n)
{
	if (ARRAY_GROW(tr->mix, tr->nmix + n, tr->mixcap))
		return -ENOMEM;
	memcpy(tr->mix + tr->nmix, v, n * sizeof(*v));
	tr->nmix += n;
	return 0;
}

/* Sort the N states of TOUCHED by their time in ACC, largest first (ties: lower state). */
static void sort_by_share(uint32_t *touched, uint32_t n, const int64_t *acc)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t s = touched[i], j = i;

		while (j > 0 && (acc[touched[j - 1]] < acc[s] ||
				 (acc[touched[j - 1]] == acc[s] && touched[j - 1] > s))) {
			touched[j] = touched[j - 1];
			j--;
		}
		touched[j] = s;
	}
}

/* The mix entry of frame F of LEN ns whose states TOUCHED[0 .. N) (sorted) took ACC. */
static int mix_frame(struct anim_track *out, unsigned f, int64_t len, const uint32_t *touched,
		     uint32_t n, const int64_t *acc)
{
	uint32_t v[2 + 2 * ANIM_MIX_STATES], k = n < ANIM_MIX_STATES ? n : ANIM_MIX_STATES;

	v[0] = f;
	v[1] = k;
	for (uint32_t i = 0; i < k; i++) {
		/* in 128 bits: a damaged model's spans reach 2^62 ns, times 1000 overflows */
		int64_t pm = (int64_t)(((__int128)acc[touched[i]] * 1000 + len / 2) / len);

		v[2 + 2 * i] = touched[i];
		v[3 + 2 * i] = pm > 0 ? (uint32_t)pm : 1;
	}
	return mix_push(out, v, 2 + 2 * (size_t)k);
}

/* A rank's frames as its states come (anim_states_build aggregating): OUT gets a change at
 * each frame's start, the state covering most of the frame, and the mix of frames with
 * several states; frame F is the one being filled, with the time of each state TOUCHED in ACC
 * (a zero per state otherwise). */
struct frame_acc {
	struct anim_track out;
	int64_t duration, frame;
	unsigned f, nframes;
	int64_t *acc;
	uint32_t *touched, ntouched;
};

/* The end of frame F of FA. */
static int64_t frame_end(const struct frame_acc *fa, unsigned f)
{
	int64_t b = (int64_t)f * fa->frame + fa->frame;

	return b < fa->duration ? b : fa->duration;
}

/* Frame FA->f is complete: its change and mix into FA->out, then the next frame. */
static int frame_close(struct frame_acc *fa)
{
	int64_t a = (int64_t)fa->f * fa->frame;
	uint32_t n = fa->ntouched;
	int ret = 0;

	sort_by_share(fa->touched, n, fa->acc);
	if (n > 1)
		ret = mix_frame(&fa->out, fa->f, frame_end(fa, fa->f) - a, fa->touched, n, fa->acc);
	for (uint32_t k = 0; k < n; k++)
		fa->acc[fa->touched[k]] = 0;
	if (!ret)
		ret = track_push(&fa->out, a, n ? fa->touched[0] : ANIM_IDLE);
	fa->ntouched = 0;
	fa->f++;
	return ret;
}

/* State S from SA to SB (the segments of a track in time order) into the frames it covers;
 * the frames before it are complete. */
static int frame_feed(struct frame_acc *fa, int64_t sa, int64_t sb, uint32_t s)
{
	while (fa->f < fa->nframes) {
		int64_t a = (int64_t)fa->f * fa->frame, b = frame_end(fa, fa->f);
		int64_t lo = sa > a ? sa : a, hi = sb < b ? sb : b;
		int ret;

		if (sa >= b) {
			if ((ret = frame_close(fa)))
				return ret;
			continue;
		}
		if (hi > lo) {
			if (!fa->acc[s])
				fa->touched[fa->ntouched++] = s;
			fa->acc[s] += hi - lo;
		}
		if (sb <= b)
			return 0;
		if ((ret = frame_close(fa))) /* continues in the next frame */
			return ret;
	}
	return 0;
}

/* The segments of TR but its last two changes into FA, which keep TR's place: only the last
 * change of a track can still be replaced (track_push), so the one before it is final and
 * ends the segment before. */
static int frame_flush(struct frame_acc *fa, struct anim_track *tr)
{
	int ret = 0;

	if (tr->n < 3)
		return 0;
	for (size_t i = 0; i + 2 < tr->n && !ret; i++)
		ret = frame_feed(fa, tr->t[i], tr->t[i + 1], tr->s[i]);
	tr->t[0] = tr->t[tr->n - 2];
	tr->s[0] = tr->s[tr->n - 2];
	tr->t[1] = tr->t[tr->n - 1];
	tr->s[1] = tr->s[tr->n - 1];
	tr->n = 2;
	return ret;
}

/* The rest of TR into FA, the frames completed, and TR replaced by them. */
static int frame_finish(struct frame_acc *fa, struct anim_track *tr)
{
	int ret = 0;

	for (size_t i = 0; i < tr->n && !ret; i++)
		ret =
		    frame_feed(fa, tr->t[i], i + 1 < tr->n ? tr->t[i + 1] : fa->duration, tr->s[i]);
	while (fa->f < fa->nframes && !ret)
		ret = frame_close(fa);
	free(tr->t);
	free(tr->s);
	free(tr->mix);
	*tr = fa->out;
	memset(&fa->out, 0, sizeof(fa->out));
	fa->f = 0;
	return ret;
}

/* Change S at T of rank track TR; with FA, the track's final segments go into its frames
 * every ANIM_FLUSH changes. */
static int rank_push(struct anim_track *tr, struct frame_acc *fa, int64_t t, uint32_t s)
{
	int ret = track_push(tr, t, s);

	return ret || !fa || tr->n < ANIM_FLUSH ? ret : frame_flush(fa, tr);
}

/* The exact track of rank R from its calls ORDER[0 .. N) (sorted by entry; ORDER NULL: the
 * calls BASE .. BASE + N); with FA, all of it but its last changes in FA's frames already
 * (frame_finish() adds the rest). */
static int rank_track(struct anim_states *st, uint32_t *map, const struct mpi_model *m, int r,
		      const uint32_t *order, uint32_t base, size_t n, const int64_t *call_wait,
		      struct frame_acc *fa)
{
	struct anim_track *tr = &st->ranks[r];
	const struct mpi_rank_info *ri = &m->ranks[r];
	int64_t cur = 0, end = st->duration_ns;
	int ret = rank_push(tr, fa, 0, ANIM_IDLE);

	if (ret || !ri->present)
		return ret;
	if (ri->start_ns > m->start_ns)
		cur = ri->start_ns - m->start_ns;
	if (ri->end_ns > ri->start_ns)
		end = ri->end_ns - m->start_ns;
	if ((ret = rank_push(tr, fa, cur, ANIM_COMPUTE)))
		return ret;
	for (size_t i = 0; i < n; i++) {
		uint32_t ci = order ? order[i] : base + (uint32_t)i;
		const struct mpi_call *c = &m->calls[ci];
		int64_t enter = c->enter_ns - m->start_ns, leave = c->leave_ns - m->start_ns;
		int64_t from = enter > cur ? enter : cur, wait_end = enter;
		uint32_t s = routine_state(st, map, c->routine);

		if (leave <= from)
			continue;
		if (call_wait && call_wait[ci] > 0)
			wait_end = enter + call_wait[ci];
		if (wait_end > from) {
			if ((ret = rank_push(tr, fa, from, ANIM_WAIT)))
				return ret;
			from = wait_end;
		}
		if (from < leave && (ret = rank_push(tr, fa, from, s)))
			return ret;
		if ((ret = rank_push(tr, fa, leave, ANIM_COMPUTE)))
			return ret;
		cur = leave;
	}
	if (end >= cur && end < st->duration_ns)
		ret = rank_push(tr, fa, end, ANIM_IDLE);
	return ret;
}

/* The thousandths outside the first state of the mix entry E (1000 - its first share). */
static uint32_t mix_outside(const uint32_t *e)
{
	return e[3] < 1000 ? 1000 - e[3] : 0;
}

/* The numbers of the mix entry E. */
static size_t mix_len(const uint32_t *e)
{
	return 2 + 2 * (size_t)e[1];
}

void anim_mix_cap(struct anim_states *st, size_t max_numbers)
{
	size_t hist[1001] = {0}, total = 0, entries = 0;
	uint32_t level = 0;

	for (int r = 0; r < st->nranks; r++) {
		const struct anim_track *tr = &st->ranks[r];

		for (size_t i = 0; i + 1 < tr->nmix; i += mix_len(tr->mix + i)) {
			hist[mix_outside(tr->mix + i)] += mix_len(tr->mix + i);
			total += mix_len(tr->mix + i);
			entries++;
		}
	}
	st->mix_entries = entries;
	st->mix_dropped = 0;
	st->mix_min_pm = 0;
	if (total <= max_numbers)
		return;
	while (level <= 1000 && total > max_numbers)
		total -= hist[level++];
	for (int r = 0; r < st->nranks; r++) {
		struct anim_track *tr = &st->ranks[r];
		size_t out = 0;

		for (size_t i = 0; i + 1 < tr->nmix; i += mix_len(tr->mix + i)) {
			if (mix_outside(tr->mix + i) < level) {
				st->mix_dropped++;
				continue;
			}
			memmove(tr->mix + out, tr->mix + i,
				mix_len(tr->mix + i) * sizeof(*tr->mix));
			out += mix_len(tr->mix + i);
		}
		tr->nmix = out;
	}
	st->mix_min_pm = level;
}

void anim_mix_json(struct jsonw *w, const struct anim_track *tr)
{
	uint32_t prev = 0;

	jsonw_array_begin(w);
	for (size_t i = 0; i + 1 < tr->nmix; i += 2 + 2 * (size_t)tr->mix[i + 1]) {
		jsonw_u64(w, tr->mix[i] - prev);
		prev = tr->mix[i];
		for (size_t k = 1; k < 2 + 2 * (size_t)tr->mix[i + 1] && i + k < tr->nmix; k++)
			jsonw_u64(w, tr->mix[i + k]);
	}
	jsonw_array_end(w);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* True when the locations' call ranges hold every call of M once, in bounds (a model from
 * the builder; hand-made ones may give the calls' locations only). */
static int locs_cover(const struct mpi_model *m)
{
	size_t n = 0;

	for (size_t l = 0; l < m->nlocs; l++) {
		if (m->locs[l].first_call > m->ncalls ||
		    m->locs[l].ncalls > m->ncalls - m->locs[l].first_call)
			return 0;
		n += m->locs[l].ncalls;
	}
	return n == m->ncalls;
}

/* ORDER: every call index grouped by rank (FIRST[r] .. FIRST[r + 1]), in index order, from the
 * calls' locations. */
static void calls_scan(const struct mpi_model *m, uint32_t *order, size_t *first, size_t *pos)
{
	size_t p = (size_t)m->world_size;

	for (size_t i = 0; i < m->ncalls; i++)
		first[mpi_call_rank(m, &m->calls[i]) + 1]++;
	for (size_t r = 0; r < p; r++)
		first[r + 1] += first[r];
	memcpy(pos, first, (p + 1) * sizeof(*pos));
	for (size_t i = 0; i < m->ncalls; i++)
		order[pos[mpi_call_rank(m, &m->calls[i])]++] = (uint32_t)i;
}

/* The same from the ranks' locations' call ranges, without reading the calls. */
static void calls_of_locs(const struct mpi_model *m, uint32_t *order, size_t *first)
{
	size_t n = 0;

	for (size_t r = 0; r < (size_t)m->world_size; r++) {
		const struct mpi_rank_info *ri = &m->ranks[r];

		first[r] = n;
		for (uint32_t l = ri->first_loc; ri->nlocs && l < ri->first_loc + ri->nlocs; l++)
			for (uint32_t c = 0; c < m->locs[l].ncalls; c++)
				order[n++] = m->locs[l].first_call + c;
		if (ri->nlocs > 1) /* index order, as calls_scan() gives */
			qsort(order + first[r], n - first[r], sizeof(*order), cmp_u32);
	}
	first[m->world_size] = n;
}

/* ORDER: every call index grouped by rank (FIRST[r] .. FIRST[r + 1]), by entry in a rank; left
 * NULL when every rank's calls are one location's call range. 0 or -ENOMEM. */
static int calls_by_rank(const struct mpi_model *m, uint32_t **order, size_t **first)
{
	size_t p = (size_t)m->world_size, *pos;
	int by_locs = locs_cover(m), single = by_locs;

	for (size_t r = 0; r < p && single; r++)
		single = m->ranks[r].nlocs < 2;
	if (single) /* a rank's calls are its location's, in time order (mpi-model.h) */
		return 0;
	*order = malloc((m->ncalls ? m->ncalls : 1) * sizeof(**order));
	*first = calloc(p + 1, sizeof(**first));
	pos = calloc(p + 1, sizeof(*pos));
	if (!*order || !*first || !pos) {
		free(pos);
		return -ENOMEM;
	}
	if (by_locs)
		calls_of_locs(m, *order, *first);
	else
		calls_scan(m, *order, *first, pos);
	free(pos);
	for (size_t r = 0; r < p; r++) {
		uint32_t *o = *order + (*first)[r];
		size_t n = (*first)[r + 1] - (*first)[r];
		int sorted = 1;

		/* a location's calls are in time order (mpi-model.h) */
		if (by_locs && m->ranks[r].nlocs < 2)
			continue;
		for (size_t i = 1; i < n && sorted; i++)
			sorted = m->calls[o[i - 1]].enter_ns <= m->calls[o[i]].enter_ns;
		if (!sorted)
			qsort_r(o, n, sizeof(*o), cmp_call, m->calls);
	}
	return 0;
}

/* From now on FA aggregates ST's tracks to NFRAMES frames: the tracks of ranks 0 .. R
 * (built exactly) and the next ranks' as they are built. 0 or -ENOMEM. */
static int frames_start(struct anim_states *st, struct frame_acc *fa, unsigned nframes, int r)
{
	/* every state a rank may have: later ranks may add routines */
	size_t nstates = ANIM_ROUTINE + MPI_ROUTINE_COUNT + 1;
	int ret = 0;

	st->frame_ns = (st->duration_ns + nframes - 1) / nframes;
	fa->duration = st->duration_ns;
	fa->frame = st->frame_ns;
	fa->nframes = (unsigned)((st->duration_ns + st->frame_ns - 1) / st->frame_ns);
	fa->acc = calloc(nstates, sizeof(*fa->acc));
	fa->touched = calloc(nstates, sizeof(*fa->touched));
	if (!fa->acc || !fa->touched)
		return -ENOMEM;
	for (int k = 0; k <= r && !ret; k++)
		ret = frame_finish(fa, &st->ranks[k]);
	return ret;
}

int anim_states_build(struct anim_states *st, const struct mpi_model *m, const int64_t *call_wait,
		      size_t max_changes, unsigned nframes)
{
	struct frame_acc fa = {0}, *framed = NULL;
	uint32_t *order = NULL, *map = NULL;
	size_t *first = NULL, total = 0;
	int ret = -ENOMEM;

	memset(st, 0, sizeof(*st));
	st->nranks = m->world_size;
	st->duration_ns = m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
	st->ranks = calloc((size_t)(m->world_size > 0 ? m->world_size : 1), sizeof(*st->ranks));
	st->routines = calloc(MPI_ROUTINE_COUNT + 1, sizeof(*st->routines));
	map = calloc(MPI_ROUTINE_COUNT + 1, sizeof(*map));
	if (!st->ranks || !st->routines || !map || calls_by_rank(m, &order, &first))
		goto out;
	/* exact tracks until they hold more than MAX_CHANGES changes in all, then frames: the
	 * tracks so far aggregated, the next ones aggregated as they are built */
	for (int r = 0; r < m->world_size; r++) {
		const struct mpi_rank_info *ri = &m->ranks[r];
		const struct mpi_loc *l = ri->nlocs ? &m->locs[ri->first_loc] : NULL;

		ret = order ? rank_track(st, map, m, r, order + first[r], 0,
					 first[r + 1] - first[r], call_wait, framed)
			    : rank_track(st, map, m, r, NULL, l ? l->first_call : 0,
					 l ? l->ncalls : 0, call_wait, framed);
		if (ret == 0 && framed)
			ret = frame_finish(framed, &st->ranks[r]);
		if (ret)
			goto out;
		total += st->ranks[r].n;
		if (!framed && total > max_changes && nframes > 0 && st->duration_ns > 0) {
			framed = &fa;
			if ((ret = frames_start(st, framed, nframes, r)))
				goto out;
		}
	}
	ret = 0;
out:
	free(order);
	free(first);
	free(map);
	free(fa.acc);
	free(fa.touched);
	free(fa.out.t);
	free(fa.out.s);
	free(fa.out.mix);
	if (ret)
		anim_states_release(st);
	return ret;
}

/* "grid": [rows, cols] for N ranks, a caveat when --grid was too small. */
static void write_grid(struct jsonw *w, struct html_input *in, int n, const char *view)
{
	int rows, cols;

	if (anim_grid(n, in->grid_rows, in->grid_cols, &rows, &cols))
		html_caveat(in, "%s: --grid %dx%d holds fewer than the %d ranks: %dx%d used", view,
			    in->grid_rows, in->grid_cols, n, rows, cols);
	jsonw_key(w, "grid");
	jsonw_array_begin(w);
	jsonw_i64(w, rows);
	jsonw_i64(w, cols);
	jsonw_array_end(w);
}

static void write_states(struct jsonw *w, struct html_input *in, const struct anim_states *st)
{
	jsonw_key(w, "states");
	jsonw_object_begin(w);
	jsonw_kv_i64(w, "ranks", st->nranks);
	write_grid(w, in, st->nranks, "Process animation");
	jsonw_kv_i64(w, "duration_ns", st->duration_ns);
	jsonw_kv_i64(w, "frame_ns", st->frame_ns);
	jsonw_key(w, "names");
	jsonw_array_begin(w);
	jsonw_string(w, "idle");
	jsonw_string(w, "computing");
	jsonw_string(w, "waiting");
	for (uint32_t k = 0; k < st->nroutines; k++) {
		const char *name = mpi_routine_name(st->routines[k]);

		jsonw_string(w, name ? name : "MPI_?");
	}
	jsonw_array_end(w);
	jsonw_key(w, "t");
	jsonw_array_begin(w);
	for (int r = 0; r < st->nranks; r++) {
		jsonw_array_begin(w);
		for (size_t i = 0; i < st->ranks[r].n; i++)
			jsonw_i64(w, st->ranks[r].t[i]);
		jsonw_array_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "s");
	jsonw_array_begin(w);
	for (int r = 0; r < st->nranks; r++) {
		jsonw_array_begin(w);
		for (size_t i = 0; i < st->ranks[r].n; i++)
			jsonw_u64(w, st->ranks[r].s[i]);
		jsonw_array_end(w);
	}
	jsonw_array_end(w);
	if (st->frame_ns) {
		jsonw_key(w, "mix");
		jsonw_array_begin(w);
		for (int r = 0; r < st->nranks; r++)
			anim_mix_json(w, &st->ranks[r]);
		jsonw_array_end(w);
		jsonw_kv_u64(w, "mix_min_pm", st->mix_min_pm);
	}
	jsonw_object_end(w);
}

/* A share rounded to the logs' 4 decimals (shorter JSON); null when unknown. */
static void write_share(struct jsonw *w, double v)
{
	if (isnan(v))
		jsonw_null(w);
	else
		jsonw_double(w, round(v * 1e4) / 1e4);
}

static void write_stats(struct jsonw *w, const struct load_stats *st)
{
	jsonw_kv_u64(w, "samples", st->n);
	jsonw_key(w, "mean");
	write_share(w, st->mean);
	jsonw_key(w, "min");
	write_share(w, st->min);
	jsonw_key(w, "max");
	write_share(w, st->max);
}

/* The time 0 of the load logs, on the writers' clocks, and each log's offset to rank 0's
 * clock: with the model, its start and the writer's clock offset; else the experiment's
 * start when it precedes the first sample, else one period before it (as `mpi --load`). */
static int64_t log_shift(const struct html_input *in, const struct mpi_model *m,
			 const struct load_log *log, int64_t *origin)
{
	int writer = log->nranks ? log->ranks[0] : -1;
	uint64_t t0 = log->nsamples ? log->time_ns[0] : 0;

	if (m) {
		*origin = m->start_ns;
		if (writer >= 0 && writer < m->world_size)
			return mpi_rank_clock_offset(&m->ranks[writer], (int64_t)t0);
		return 0;
	}
	if (in->e->start_ns > 0 && (uint64_t)in->e->start_ns <= t0)
		*origin = in->e->start_ns;
	else
		*origin = t0 >= log->period_ns ? (int64_t)(t0 - log->period_ns) : 0;
	return 0;
}

static void write_load(struct jsonw *w, struct html_input *in, const struct mpi_model *m,
		       const struct load_set *set)
{
	int n = m ? m->world_size : 0;

	for (size_t i = 0; i < set->nranks; i++)
		if (set->ranks[i].rank + 1 > n)
			n = set->ranks[i].rank + 1;
	jsonw_key(w, "load");
	jsonw_object_begin(w);
	jsonw_kv_i64(w, "ranks", n);
	write_grid(w, in, n, "Load");
	jsonw_kv_i64(w, "duration_ns", m && m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0);
	jsonw_key(w, "hosts");
	jsonw_array_begin(w);
	for (size_t l = 0; l < set->nlogs; l++) {
		const struct load_log *log = &set->logs[l];
		int64_t origin = 0, shift = log_shift(in, m, log, &origin);

		jsonw_object_begin(w);
		jsonw_kv_string(w, "host", log->host);
		jsonw_kv_i64(w, "cpus", log->cpus);
		jsonw_kv_u64(w, "period_ns", log->period_ns);
		jsonw_key(w, "busy");
		jsonw_object_begin(w);
		write_stats(w, &set->busy[l]);
		jsonw_object_end(w);
		jsonw_key(w, "t");
		jsonw_array_begin(w);
		for (size_t i = 0; i < log->nsamples; i++)
			jsonw_i64(w, (int64_t)log->time_ns[i] + shift - origin);
		jsonw_array_end(w);
		jsonw_key(w, "busy_over_time");
		jsonw_array_begin(w);
		for (size_t i = 0; i < log->nsamples; i++)
			write_share(w, log->host_busy[i]);
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "rank");
	jsonw_array_begin(w);
	for (size_t i = 0; i < set->nranks; i++) {
		const struct load_rank *r = &set->ranks[i];
		const struct load_log *log = &set->logs[r->log];

		jsonw_object_begin(w);
		jsonw_kv_i64(w, "rank", r->rank);
		jsonw_kv_i64(w, "pid", r->pid);
		jsonw_kv_u64(w, "host", r->log);
		write_stats(w, &r->st);
		jsonw_key(w, "share");
		jsonw_array_begin(w);
		for (size_t k = 0; k < log->nsamples; k++)
			write_share(w, load_log_share(log, k, r->col));
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_object_end(w);
}

int html_data_states(struct jsonw *w, struct html_input *in)
{
	const struct mpi_model *m = html_mpi(in);
	struct load_set set;
	char err[1024] = "";
	int ret;

	if (m && m->world_size > 0) {
		const struct mpi_waits *waits = html_waits(in);
		struct anim_states st;

		if (!waits)
			return -ENOMEM; /* html_waits() failed for memory alone */
		ret = anim_states_build(&st, m, waits ? waits->call_wait : NULL, ANIM_MAX_CHANGES,
					anim_frames(m->world_size));
		if (ret)
			return ret;
		anim_mix_cap(&st, ANIM_MIX_MAX);
		if (st.mix_dropped)
			html_caveat(
			    in,
			    "Process animation: the shares of %zu of the %zu mixed frames (those "
			    "with less than %u.%u %% outside their main state) were left out to "
			    "keep the report small (at most %d numbers of shares)",
			    st.mix_dropped, st.mix_entries, st.mix_min_pm / 10, st.mix_min_pm % 10,
			    ANIM_MIX_MAX);
		write_states(w, in, &st);
		anim_states_release(&st);
	}
	if (!in->e || !in->e->dir || in->otf2) /* an archive has no load logs */
		return 0;
	ret = load_set_read(&set, in->e->dir, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret == -ENOENT && strstr(err, "no load logs"))
		return 0;
	if (ret < 0) {
		html_caveat(in, "Load view left out: %s", err[0] ? err : strerror(-ret));
		return 0;
	}
	if (set.nranks)
		write_load(w, in, m, &set);
	load_set_release(&set);
	return 0;
}
