/* omp-settle.c - the OpenMP profile made from what its pass collected (omp-int.h): instances
 * grouped into regions by call site, implicit tasks joined to their instance, barrier waits
 * from the team's arrivals, the regions' efficiencies and the threads' serial time. */
#include "analysis/openmp/omp-int.h"

#include "lib/array.h"
#include "lib/hashmap.h"
#include "lib/path.h"
#include "lib/strbuf.h"
#include "lib/strv.h"
#include "model/symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))
#define PLURAL(n) ((n) == 1 ? "" : "s")

/* A caveat line of P: 0, or -ENOMEM (a caveat lost is a loss to say, not to hide). */
static int caveat(struct omp_profile *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int caveat(struct omp_profile *p, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = strv_vpushf(&p->caveats, &p->ncaveats, &p->caveats_cap, fmt, ap);
	va_end(ap);
	return ret < 0 ? -ENOMEM : 0;
}

/* The hash of a process image's key K (a parallel id or a call site). */
static uint64_t key_hash(pid_t pid, unsigned image, uint64_t k)
{
	uint64_t h = hash_bytes(HASH_INIT, &pid, sizeof(pid));

	h = hash_bytes(h, &image, sizeof(image));
	return hash_bytes(h, &k, sizeof(k));
}

char *omp_site_name(struct symtab *syms, pid_t pid, unsigned image, uint64_t site)
{
	struct strbuf sb;
	struct sym_info si;

	strbuf_init(&sb);
	memset(&si, 0, sizeof(si));
	if (syms && site && symtab_lookup_inlined(syms, pid, image, site - 1, &si) < 0)
		return NULL;
	if (si.known && si.inlined && si.file && si.file[0])
		strbuf_addf(&sb, "%s@%s:%u (inlined in %s)", si.inlined, path_base(si.file),
			    si.line, si.name);
	else if (si.known && si.file && si.file[0])
		strbuf_addf(&sb, "%s@%s:%u", si.name, path_base(si.file), si.line);
	else if (si.known)
		strbuf_adds(&sb, si.name);
	else if (si.module && si.module[0])
		strbuf_addf(&sb, "%s+0x%" PRIx64, path_base(si.module), si.offset + 1);
	else
		strbuf_addf(&sb, "0x%" PRIx64, site);
	return strbuf_detach(&sb, NULL);
}

/* The region of instance X in P (added and named when new; BY_SITE indexes the regions by
 * process and site). NULL: out of memory. */
static struct omp_region *region_of(struct omp_build *b, struct hchain *by_site,
				    const struct omp_par *x, size_t *index)
{
	struct omp_profile *p = b->p;
	uint64_t h = key_hash(x->pid, x->image, x->site);
	struct omp_region *r;

	for (size_t at = hchain_first(by_site, h); at; at = hchain_next(by_site, at)) {
		r = &p->regions[at - 1];
		if (r->pid == x->pid && r->image == x->image && r->site == x->site) {
			*index = at - 1;
			return r;
		}
	}
	if (ARRAY_GROW(p->regions, p->nregions + 1, p->regions_cap) ||
	    hchain_add(by_site, h, p->nregions))
		return NULL;
	r = &p->regions[p->nregions];
	*r = (struct omp_region){.pid = x->pid,
				 .image = x->image,
				 .rank = x->rank,
				 .site = x->site,
				 .fn = x->fn,
				 .level = x->level};
	if (!(r->name = omp_site_name(b->syms, r->pid, r->image, r->site)))
		return NULL;
	*index = p->nregions++;
	return r;
}

/* The regions of B's instances: one per process and call site, named, in the order of their
 * first instance; each instance's region set, its calls and times added. 0 or -ENOMEM. */
static int make_regions(struct omp_build *b)
{
	struct omp_profile *p = b->p;
	struct hchain by_site = {0};
	int ret = 0;

	for (size_t i = 0; i < b->npars; i++) {
		struct omp_par *x = &b->pars[i];
		struct omp_region *r = region_of(b, &by_site, x, &x->region);

		if (!r) {
			ret = -ENOMEM;
			break;
		}
		if (x->end_ns < 0) {
			r->unfinished++;
			continue;
		}
		r->calls++;
		r->time_ns += x->end_ns - x->begin_ns;
		if (x->outer) {
			p->threads[x->thread].parallel_ns += x->end_ns - x->begin_ns;
			p->threads[x->thread].initial = 1;
		}
	}
	hchain_release(&by_site);
	return ret;
}

/* The instance of task T in B (BY_ID indexes the instances by process and parallel id), or
 * NULL when its parallel region never began. */
static struct omp_par *par_of(struct omp_build *b, const struct hchain *by_id,
			      const struct omp_task *t)
{
	uint64_t h = key_hash(t->pid, t->image, t->id);

	for (size_t at = hchain_first(by_id, h); at; at = hchain_next(by_id, at)) {
		struct omp_par *x = &b->pars[at - 1];

		if (x->pid == t->pid && x->image == t->image && x->id == t->id)
			return x;
	}
	return NULL;
}

/* The row of REGION and THREAD in P, added when new (ROWS: region << 32 | thread -> its
 * index). NULL: out of memory. */
static struct omp_row *row_of(struct omp_profile *p, struct u64map *rows, size_t region,
			      uint32_t thread)
{
	uint64_t key = (uint64_t)region << 32 | thread, v;

	if (u64map_get(rows, key, &v))
		return &p->rows[v];
	if (ARRAY_GROW(p->rows, p->nrows + 1, p->rows_cap) || u64map_put(rows, key, p->nrows))
		return NULL;
	p->rows[p->nrows] = (struct omp_row){.region = region, .thread = thread};
	return &p->rows[p->nrows++];
}

/* Task T of instance X (which ended, its team's last arrival known) into its row: the closing
 * barrier's wait from the OMPT records where the task has them, else from the team's last
 * arrival. 0 or -ENOMEM. */
static int add_task(struct omp_profile *p, struct u64map *rows, const struct omp_par *x,
		    const struct omp_task *t)
{
	int64_t barrier =
	    t->bar_enter_ns >= 0 ? t->bar_ns : x->last_ns - t->end_ns - t->bar_task_ns;
	int64_t stop = t->bar_enter_ns >= 0 ? t->end_ns : x->last_ns;
	int64_t time = stop - t->begin_ns;
	int64_t work = time - barrier - t->sync_ns - t->lock_ns - t->other_ns;
	struct omp_row *w = row_of(p, rows, x->region, t->thread);

	if (!w)
		return -ENOMEM;
	w->calls++;
	w->time_ns += time;
	w->work_ns += work > 0 ? work : 0;
	w->barrier_ns += barrier;
	w->sync_ns += t->sync_ns;
	w->lock_ns += t->lock_ns;
	w->other_ns += t->other_ns;
	w->chunks += t->chunks;
	w->iterations += t->iterations;
	w->not_counted |= t->not_counted;
	w->tasks_created += t->created;
	w->tasks_completed += t->completed;
	if (t->outer)
		p->threads[t->tindex].parallel_ns += time;
	return 0;
}

/* Task T of instance X (which ended) that entered X's closing barrier (OMPT) and has neither
 * left it nor ended: libomp tells a worker it left the process's last region only after the
 * tool was stopped, so its stream ends in that barrier. The barrier opened at the team's last
 * arrival: T as it ends there. */
static struct omp_task released(const struct omp_par *x, const struct omp_task *t)
{
	struct omp_task r = *t;
	int64_t at = x->last_ns > t->bar_enter_ns ? x->last_ns : t->bar_enter_ns;

	r.bar_ns += at - t->bar_enter_ns;
	r.end_ns = at;
	return r;
}

/* Every task of B joined to its instance: first each instance's team (its tasks, the last
 * arrival at its closing barrier), then each task into its row. 0 or -ENOMEM. */
static int join_tasks(struct omp_build *b)
{
	struct omp_profile *p = b->p;
	struct hchain by_id = {0};
	struct u64map rows = {0};
	int ret = 0;

	for (size_t i = 0; i < b->npars && !ret; i++)
		ret = hchain_add(&by_id, key_hash(b->pars[i].pid, b->pars[i].image, b->pars[i].id),
				 i);
	for (size_t i = 0; i < b->ntasks && !ret; i++) {
		struct omp_task *t = &b->tasks[i];
		struct omp_par *x = par_of(b, &by_id, t);
		int64_t arrival = t->bar_enter_ns >= 0		   ? t->bar_enter_ns
				  : t->bar_task_end_ns > t->end_ns ? t->bar_task_end_ns
								   : t->end_ns;

		t->par = x ? (size_t)(x - b->pars) : SIZE_MAX;
		if (!x)
			p->orphan_tasks++;
		else if (x->end_ns >= 0 && (t->end_ns >= 0 || t->bar_enter_ns >= 0) &&
			 arrival > x->last_ns)
			x->last_ns = arrival;
		if (x)
			x->ntasks++;
	}
	for (size_t i = 0; i < b->npars && !ret; i++) {
		const struct omp_par *x = &b->pars[i];
		struct omp_region *r = &p->regions[x->region];

		if (x->end_ns < 0)
			continue;
		r->team_ns += (int64_t)x->ntasks * (x->end_ns - x->begin_ns);
		if (x->ntasks > r->team)
			r->team = x->ntasks;
	}
	for (size_t i = 0; i < b->ntasks && !ret; i++) {
		const struct omp_task *t = &b->tasks[i];
		const struct omp_par *x = t->par != SIZE_MAX ? &b->pars[t->par] : NULL;

		if (!x || x->end_ns < 0)
			continue;
		if (t->end_ns >= 0) {
			ret = add_task(p, &rows, x, t);
		} else if (t->bar_enter_ns >= 0) {
			struct omp_task r = released(x, t);

			ret = add_task(p, &rows, x, &r);
		} else {
			p->open_tasks++;
		}
	}
	hchain_release(&by_id);
	u64map_release(&rows);
	return ret;
}

/* Regions (indexes) by process, then time, the largest first, then site. */
static int cmp_region(const void *a, const void *b, void *ctx)
{
	const struct omp_region *rs = ctx, *x = &rs[*(const size_t *)a],
				*y = &rs[*(const size_t *)b];
	int c = CMP(x->pid, y->pid);

	if (!c)
		c = CMP(x->image, y->image);
	if (!c)
		c = CMP(y->time_ns, x->time_ns);
	return c ? c : CMP(x->site, y->site);
}

static int cmp_row(const void *a, const void *b)
{
	const struct omp_row *x = a, *y = b;
	int c = CMP(x->region, y->region);

	return c ? c : CMP(x->thread, y->thread);
}

/* P's regions in their order, the rows' indexes with them, the rows by region and thread.
 * 0 or -ENOMEM. */
static int order_regions(struct omp_profile *p)
{
	size_t n = p->nregions ? p->nregions : 1;
	size_t *order = malloc(n * sizeof(*order)), *to = malloc(n * sizeof(*to));
	struct omp_region *sorted = malloc(n * sizeof(*sorted));

	if (!order || !to || !sorted) {
		free(order), free(to), free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nregions; i++)
		order[i] = i;
	qsort_r(order, p->nregions, sizeof(*order), cmp_region, p->regions);
	for (size_t i = 0; i < p->nregions; i++) {
		sorted[i] = p->regions[order[i]];
		to[order[i]] = i;
	}
	for (size_t i = 0; i < p->nrows; i++)
		p->rows[i].region = to[p->rows[i].region];
	free(p->regions);
	p->regions = sorted;
	p->regions_cap = n;
	if (p->nrows) /* no rows: no array (qsort wants one all the same) */
		qsort(p->rows, p->nrows, sizeof(*p->rows), cmp_row);
	free(order), free(to);
	return 0;
}

/* Each region's sums over its rows, its imbalance and efficiencies (omp-profile.h). */
static void region_metrics(struct omp_profile *p)
{
	for (size_t i = 0; i < p->nrows; i++) {
		struct omp_region *r = &p->regions[p->rows[i].region];

		r->threads++;
		r->work_ns += p->rows[i].work_ns;
		r->barrier_ns += p->rows[i].barrier_ns;
		if (p->rows[i].work_ns > r->work_max_ns)
			r->work_max_ns = p->rows[i].work_ns;
	}
	for (size_t i = 0; i < p->nregions; i++) {
		struct omp_region *r = &p->regions[i];

		r->work_mean_ns = r->threads ? (double)r->work_ns / r->threads : 0;
		if (r->work_max_ns > 0) {
			r->imbalance = (r->work_max_ns - r->work_mean_ns) / (double)r->work_max_ns;
			r->load_balance = r->work_mean_ns / (double)r->work_max_ns;
		}
		if (r->team_ns > 0)
			r->region_eff = (double)r->work_ns / (double)r->team_ns;
	}
}

/* The caveats of what P left out. */
static int settle_caveats(struct omp_profile *p)
{
	int ret = 0;

	if (p->unfinished)
		ret = caveat(
		    p,
		    "%" PRIu64 " instance%s of parallel regions did not end (a killed run?): "
		    "counted as unfinished, left out of the times with their threads' tasks",
		    p->unfinished, PLURAL(p->unfinished));
	if (ret == 0 && p->open_tasks)
		ret = caveat(p,
			     "%" PRIu64
			     " implicit task%s of regions that ended had no end (a damaged "
			     "stream?): left out",
			     p->open_tasks, PLURAL(p->open_tasks));
	if (ret == 0 && p->orphan_tasks)
		ret = caveat(p,
			     "%" PRIu64
			     " implicit task%s of parallel regions that never began in their "
			     "process (a damaged or missing stream?): left out",
			     p->orphan_tasks, PLURAL(p->orphan_tasks));
	if (ret == 0 && p->unmatched_ends)
		ret = caveat(p,
			     "%" PRIu64
			     " end%s of parallel regions or implicit tasks had no begin on "
			     "their thread: ignored",
			     p->unmatched_ends, PLURAL(p->unmatched_ends));
	return ret;
}

int omp_settle(struct omp_build *b)
{
	struct omp_profile *p = b->p;
	int ret;

	if ((ret = make_regions(b)) || (ret = join_tasks(b)) || (ret = order_regions(p)))
		return ret;
	region_metrics(p);
	for (size_t i = 0; i < p->nregions; i++)
		p->unfinished += p->regions[i].unfinished;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct omp_thread *t = &p->threads[i];

		t->serial_ns = t->span_ns > t->parallel_ns ? t->span_ns - t->parallel_ns : 0;
	}
	return settle_caveats(p);
}
