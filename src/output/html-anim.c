/*
 * html-anim.c - the report's "states" (Process animation) and "load" (Load view) data: each
 * rank's state over time from the MPI model, each rank's and host's CPU load over time from
 * the load logs, and the rank grid both views draw on (html-anim.h, docs/html.md).
 */
#include "html-anim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/loadlog.h"
#include "../analysis/mpi-waits.h"
#include "../core/mpi-routines.h"
#include "html-int.h"

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
		size_t cap = tr->cap ? 2 * tr->cap : 16;
		int64_t *nt = realloc(tr->t, cap * sizeof(*nt));
		uint32_t *ns;

		if (!nt)
			return -ENOMEM;
		tr->t = nt;
		ns = realloc(tr->s, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		tr->s = ns;
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

/* The exact track of rank R from its calls ORDER[0 .. N) (sorted by entry). */
static int rank_track(struct anim_states *st, uint32_t *map, const struct mpi_model *m, int r,
		      const uint32_t *order, size_t n, const int64_t *call_wait)
{
	struct anim_track *tr = &st->ranks[r];
	const struct mpi_rank_info *ri = &m->ranks[r];
	int64_t cur = 0, end = st->duration_ns;
	int ret = track_push(tr, 0, ANIM_IDLE);

	if (ret || !ri->present)
		return ret;
	if (ri->start_ns > m->start_ns)
		cur = ri->start_ns - m->start_ns;
	if (ri->end_ns > ri->start_ns)
		end = ri->end_ns - m->start_ns;
	if ((ret = track_push(tr, cur, ANIM_COMPUTE)))
		return ret;
	for (size_t i = 0; i < n; i++) {
		const struct mpi_call *c = &m->calls[order[i]];
		int64_t enter = c->enter_ns - m->start_ns, leave = c->leave_ns - m->start_ns;
		int64_t from = enter > cur ? enter : cur, wait_end = enter;
		uint32_t s = routine_state(st, map, c->routine);

		if (leave <= from)
			continue;
		if (call_wait && call_wait[order[i]] > 0)
			wait_end = enter + call_wait[order[i]];
		if (wait_end > from) {
			if ((ret = track_push(tr, from, ANIM_WAIT)))
				return ret;
			from = wait_end;
		}
		if (from < leave && (ret = track_push(tr, from, s)))
			return ret;
		if ((ret = track_push(tr, leave, ANIM_COMPUTE)))
			return ret;
		cur = leave;
	}
	if (end >= cur && end < st->duration_ns)
		ret = track_push(tr, end, ANIM_IDLE);
	return ret;
}

/* Append N values V to TR's mix. 0 or -ENOMEM. */
static int mix_push(struct anim_track *tr, const uint32_t *v, size_t n)
{
	if (tr->nmix + n > tr->mixcap) {
		size_t cap = tr->mixcap ? 2 * tr->mixcap : 64;
		uint32_t *nm;

		while (cap < tr->nmix + n)
			cap *= 2;
		nm = realloc(tr->mix, cap * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		tr->mix = nm;
		tr->mixcap = cap;
	}
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

/* Replace TR by its NFRAMES frames of FRAME ns: each the state covering most of it, and the
 * shares of the frames with several states in its mix. ACC holds a zero per state (and is
 * left so). */
static int track_frames(struct anim_track *tr, int64_t duration, int64_t frame, unsigned nframes,
			int64_t *acc, uint32_t *touched)
{
	struct anim_track out = {0};
	size_t seg = 0;
	int ret = 0;

	for (unsigned f = 0; f < nframes && !ret; f++) {
		int64_t a = (int64_t)f * frame, b = a + frame < duration ? a + frame : duration;
		uint32_t ntouched = 0;

		for (; seg < tr->n; seg++) {
			int64_t sa = tr->t[seg], sb = seg + 1 < tr->n ? tr->t[seg + 1] : duration;
			int64_t lo = sa > a ? sa : a, hi = sb < b ? sb : b;

			if (sa >= b)
				break;
			if (hi > lo) {
				if (!acc[tr->s[seg]])
					touched[ntouched++] = tr->s[seg];
				acc[tr->s[seg]] += hi - lo;
			}
			if (sb > b)
				break; /* continues in the next frame */
		}
		sort_by_share(touched, ntouched, acc);
		if (ntouched > 1)
			ret = mix_frame(&out, f, b - a, touched, ntouched, acc);
		for (uint32_t k = 0; k < ntouched; k++)
			acc[touched[k]] = 0;
		if (!ret)
			ret = track_push(&out, a, ntouched ? touched[0] : ANIM_IDLE);
	}
	if (ret) {
		free(out.t);
		free(out.s);
		free(out.mix);
		return ret;
	}
	free(tr->t);
	free(tr->s);
	free(tr->mix);
	*tr = out;
	return 0;
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

/* ORDER: every call index grouped by rank (FIRST[r] .. FIRST[r + 1]), by entry in a rank. */
static int calls_by_rank(const struct mpi_model *m, uint32_t **order, size_t **first)
{
	size_t p = (size_t)m->world_size, *pos;

	*order = malloc((m->ncalls ? m->ncalls : 1) * sizeof(**order));
	*first = calloc(p + 1, sizeof(**first));
	pos = calloc(p + 1, sizeof(*pos));
	if (!*order || !*first || !pos) {
		free(pos);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->ncalls; i++)
		(*first)[mpi_call_rank(m, &m->calls[i]) + 1]++;
	for (size_t r = 0; r < p; r++)
		(*first)[r + 1] += (*first)[r];
	memcpy(pos, *first, (p + 1) * sizeof(*pos));
	for (size_t i = 0; i < m->ncalls; i++)
		(*order)[pos[mpi_call_rank(m, &m->calls[i])]++] = (uint32_t)i;
	free(pos);
	for (size_t r = 0; r < p; r++) {
		uint32_t *o = *order + (*first)[r];
		size_t n = (*first)[r + 1] - (*first)[r];
		int sorted = 1;

		for (size_t i = 1; i < n && sorted; i++)
			sorted = m->calls[o[i - 1]].enter_ns <= m->calls[o[i]].enter_ns;
		if (!sorted)
			qsort_r(o, n, sizeof(*o), cmp_call, m->calls);
	}
	return 0;
}

int anim_states_build(struct anim_states *st, const struct mpi_model *m, const int64_t *call_wait,
		      size_t max_changes, unsigned nframes)
{
	uint32_t *order = NULL, *map = NULL, *touched = NULL;
	size_t *first = NULL, total = 0;
	int64_t *acc = NULL;
	int ret = -ENOMEM;

	memset(st, 0, sizeof(*st));
	st->nranks = m->world_size;
	st->duration_ns = m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
	st->ranks = calloc((size_t)(m->world_size > 0 ? m->world_size : 1), sizeof(*st->ranks));
	st->routines = calloc(MPI_ROUTINE_COUNT + 1, sizeof(*st->routines));
	map = calloc(MPI_ROUTINE_COUNT + 1, sizeof(*map));
	if (!st->ranks || !st->routines || !map || calls_by_rank(m, &order, &first))
		goto out;
	for (int r = 0; r < m->world_size; r++) {
		ret =
		    rank_track(st, map, m, r, order + first[r], first[r + 1] - first[r], call_wait);
		if (ret)
			goto out;
		total += st->ranks[r].n;
	}
	if (total > max_changes && nframes > 0 && st->duration_ns > 0) {
		uint32_t nstates = ANIM_ROUTINE + st->nroutines;

		st->frame_ns = (st->duration_ns + nframes - 1) / nframes;
		nframes = (unsigned)((st->duration_ns + st->frame_ns - 1) / st->frame_ns);
		acc = calloc(nstates, sizeof(*acc));
		touched = calloc(nstates, sizeof(*touched));
		ret = -ENOMEM;
		if (!acc || !touched)
			goto out;
		for (int r = 0; r < m->world_size; r++)
			if ((ret = track_frames(&st->ranks[r], st->duration_ns, st->frame_ns,
						nframes, acc, touched)))
				goto out;
	}
	ret = 0;
out:
	free(order);
	free(first);
	free(map);
	free(acc);
	free(touched);
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
			html_caveat(in, "Process animation: no wait states (out of memory)");
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
