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

static void caveat(struct omp_profile *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void caveat(struct omp_profile *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strv_vpushf(&p->caveats, &p->ncaveats, &p->caveats_cap, fmt, ap);
	va_end(ap);
}

/* Instances by process, then parallel id. */
static int cmp_par_id(const void *a, const void *b)
{
	const struct omp_par *x = a, *y = b;
	int c = CMP(x->pid, y->pid);

	if (!c)
		c = CMP(x->image, y->image);
	return c ? c : CMP(x->id, y->id);
}

/* Instances (pointers) by process, then site, then parallel id. */
static int cmp_par_site(const void *a, const void *b)
{
	const struct omp_par *x = *(const struct omp_par *const *)a,
			     *y = *(const struct omp_par *const *)b;
	int c = CMP(x->pid, y->pid);

	if (!c)
		c = CMP(x->image, y->image);
	if (!c)
		c = CMP(x->site, y->site);
	return c ? c : CMP(x->id, y->id);
}

/* Tasks by process, parallel id, then thread number. */
static int cmp_task(const void *a, const void *b)
{
	const struct omp_task *x = a, *y = b;
	int c = CMP(x->pid, y->pid);

	if (!c)
		c = CMP(x->image, y->image);
	if (!c)
		c = CMP(x->id, y->id);
	return c ? c : CMP(x->thread, y->thread);
}

/* The name of R's call site: "function@file:line", "function", "module+0xoffset" of the
 * return address where no symbol names it, else the address. NULL: out of memory. */
static char *site_name(struct symtab *syms, const struct omp_region *r)
{
	struct strbuf sb;
	struct sym_info si;

	strbuf_init(&sb);
	memset(&si, 0, sizeof(si));
	if (syms && r->site && symtab_lookup(syms, r->pid, r->image, r->site - 1, &si) < 0)
		return NULL;
	if (si.known && si.file && si.file[0])
		strbuf_addf(&sb, "%s@%s:%u", si.name, path_base(si.file), si.line);
	else if (si.known)
		strbuf_adds(&sb, si.name);
	else if (si.module && si.module[0])
		strbuf_addf(&sb, "%s+0x%" PRIx64, path_base(si.module), si.offset + 1);
	else
		strbuf_addf(&sb, "0x%" PRIx64, r->site);
	return strbuf_detach(&sb, NULL);
}

/* The regions of B's instances: one per process and call site, named; each instance's
 * region set, its calls and times added. 0 or -ENOMEM. */
static int make_regions(struct omp_build *b)
{
	struct omp_profile *p = b->p;
	struct omp_par **by = malloc((b->npars ? b->npars : 1) * sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < b->npars; i++)
		by[i] = &b->pars[i];
	qsort(by, b->npars, sizeof(*by), cmp_par_site);
	for (size_t i = 0; i < b->npars; i++) {
		struct omp_par *x = by[i];
		struct omp_region *r;

		if (!i || by[i - 1]->site != x->site || by[i - 1]->pid != x->pid ||
		    by[i - 1]->image != x->image) {
			if (ARRAY_GROW(p->regions, p->nregions + 1, p->regions_cap))
				goto oom;
			p->regions[p->nregions] = (struct omp_region){.pid = x->pid,
								      .image = x->image,
								      .rank = x->rank,
								      .site = x->site,
								      .fn = x->fn,
								      .level = x->level};
			if (!(p->regions[p->nregions].name =
				  site_name(b->syms, &p->regions[p->nregions])))
				goto oom;
			p->nregions++;
		}
		r = &p->regions[p->nregions - 1];
		x->region = p->nregions - 1;
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
	free(by);
	return 0;
oom:
	free(by);
	return -ENOMEM;
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

/* T[0..n), the implicit tasks of instance X (which ended), into their rows: the closing
 * barrier's wait from the OMPT records where the task has them, else from the team's last
 * arrival. 0 or -ENOMEM. */
static int add_instance(struct omp_build *b, struct u64map *rows, const struct omp_par *x,
			const struct omp_task *t, size_t n)
{
	struct omp_profile *p = b->p;
	struct omp_region *r = &p->regions[x->region];
	int64_t last = -1;

	for (size_t i = 0; i < n; i++) {
		int64_t arrival = t[i].bar_enter_ns >= 0 ? t[i].bar_enter_ns : t[i].end_ns;

		if (t[i].end_ns >= 0 && arrival > last)
			last = arrival;
	}
	r->team_ns += (int64_t)n * (x->end_ns - x->begin_ns);
	if (n > r->team)
		r->team = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		int64_t barrier, stop, time, work;
		struct omp_row *w;

		if (t[i].end_ns < 0) {
			p->open_tasks++;
			continue;
		}
		barrier = t[i].bar_enter_ns >= 0 ? t[i].bar_ns : last - t[i].end_ns;
		stop = t[i].bar_enter_ns >= 0 ? t[i].end_ns : last;
		time = stop - t[i].begin_ns;
		work = time - barrier - t[i].sync_ns - t[i].lock_ns - t[i].other_ns;
		if (!(w = row_of(p, rows, x->region, t[i].thread)))
			return -ENOMEM;
		w->calls++;
		w->time_ns += time;
		w->work_ns += work > 0 ? work : 0;
		w->barrier_ns += barrier;
		w->sync_ns += t[i].sync_ns;
		w->lock_ns += t[i].lock_ns;
		w->other_ns += t[i].other_ns;
		w->chunks += t[i].chunks;
		w->iterations += t[i].iterations;
		w->tasks_created += t[i].created;
		w->tasks_completed += t[i].completed;
		if (t[i].outer)
			p->threads[t[i].tindex].parallel_ns += time;
	}
	return 0;
}

/* Every group of B's tasks (one instance each) joined to its instance. 0 or -ENOMEM. */
static int join_tasks(struct omp_build *b)
{
	struct u64map rows = {0};
	int ret = 0;

	for (size_t i = 0, n; i < b->ntasks && !ret; i += n) {
		const struct omp_task *t = &b->tasks[i];
		struct omp_par key = {.pid = t->pid, .image = t->image, .id = t->id}, *x;

		for (n = 1; i + n < b->ntasks && t[n].pid == t->pid && t[n].image == t->image &&
			    t[n].id == t->id;
		     n++)
			;
		x = bsearch(&key, b->pars, b->npars, sizeof(*b->pars), cmp_par_id);
		if (!x)
			b->p->orphan_tasks += n;
		else if (x->end_ns >= 0)
			ret = add_instance(b, &rows, x, t, n);
	}
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
static void settle_caveats(struct omp_profile *p)
{
	if (p->unfinished)
		caveat(p,
		       "%" PRIu64 " instances of parallel regions did not end (a killed run?): "
		       "counted as unfinished, left out of the times with their threads' tasks",
		       p->unfinished);
	if (p->open_tasks)
		caveat(p,
		       "%" PRIu64 " implicit tasks of regions that ended have no end (a damaged "
		       "stream?): left out",
		       p->open_tasks);
	if (p->orphan_tasks)
		caveat(p,
		       "%" PRIu64 " implicit tasks belong to parallel regions that never began in "
		       "their process (a damaged or missing stream?): left out",
		       p->orphan_tasks);
	if (p->unmatched_ends)
		caveat(p,
		       "%" PRIu64 " ends of parallel regions or implicit tasks had no begin on "
		       "their thread: ignored",
		       p->unmatched_ends);
}

int omp_settle(struct omp_build *b)
{
	struct omp_profile *p = b->p;
	int ret;

	qsort(b->pars, b->npars, sizeof(*b->pars), cmp_par_id);
	qsort(b->tasks, b->ntasks, sizeof(*b->tasks), cmp_task);
	if ((ret = make_regions(b)) || (ret = join_tasks(b)) || (ret = order_regions(p)))
		return ret;
	region_metrics(p);
	for (size_t i = 0; i < p->nregions; i++)
		p->unfinished += p->regions[i].unfinished;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct omp_thread *t = &p->threads[i];

		t->serial_ns = t->span_ns > t->parallel_ns ? t->span_ns - t->parallel_ns : 0;
	}
	settle_caveats(p);
	return 0;
}
