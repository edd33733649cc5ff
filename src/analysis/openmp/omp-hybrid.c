/* omp-hybrid.c - the hybrid MPI+OpenMP efficiencies per rank and overall (omp-hybrid.h). */
#include "analysis/openmp/omp-hybrid.h"

#include "analysis/mpi/mpi-model.h"
#include "analysis/openmp/omp-profile.h"
#include "format/mpi-routines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The run's window [*A, *B] of M: the first leave of MPI_Init*, the last entry into
 * MPI_Finalize; the model's range where either is missing. */
static void run_window(const struct mpi_model *m, int64_t *a, int64_t *b)
{
	int have_a = 0, have_b = 0;

	for (size_t i = 0; i < m->ncalls; i++) {
		const struct mpi_call *c = &m->calls[i];
		enum mpi_kind k = mpi_routine_kind(c->routine);

		if (k == MPI_KIND_INIT && (!have_a || c->leave_ns < *a))
			*a = c->leave_ns, have_a = 1;
		else if (k == MPI_KIND_FINALIZE && (!have_b || c->enter_ns > *b))
			*b = c->enter_ns, have_b = 1;
	}
	if (!have_a)
		*a = m->start_ns;
	if (!have_b || *b < *a)
		*b = m->end_ns;
}

/* The time rank R's initial thread (tid = its pid, else its first location) spent in MPI
 * calls within [A, B]. */
static int64_t rank_mpi_ns(const struct mpi_model *m, int r, int64_t a, int64_t b)
{
	const struct mpi_rank_info *ri = &m->ranks[r];
	uint32_t loc = ri->first_loc;
	int64_t ns = 0;

	for (uint32_t l = ri->first_loc; l < ri->first_loc + ri->nlocs; l++)
		if (m->locs[l].tid == ri->pid) {
			loc = l;
			break;
		}
	if (!ri->nlocs)
		return 0;
	for (uint32_t c = m->locs[loc].first_call;
	     c < m->locs[loc].first_call + m->locs[loc].ncalls; c++) {
		int64_t e = m->calls[c].enter_ns < a ? a : m->calls[c].enter_ns;
		int64_t l = m->calls[c].leave_ns > b ? b : m->calls[c].leave_ns;

		if (l > e)
			ns += l - e;
	}
	return ns;
}

/* Rank R's parallel time on its initial thread, and its OpenMP load balance, from P. */
static void rank_omp(const struct omp_profile *p, int r, pid_t pid, int64_t *par, double *lb)
{
	const struct omp_thread *init = NULL;
	double mean = 0, max = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct omp_thread *t = &p->threads[i];

		if (t->rank == r && t->initial && (!init || t->tid == pid))
			init = t;
	}
	*par = init ? init->parallel_ns : 0;
	for (size_t i = 0; i < p->nregions; i++)
		if (p->regions[i].rank == r && p->regions[i].level == 1) {
			mean += p->regions[i].work_mean_ns;
			max += (double)p->regions[i].work_max_ns;
		}
	*lb = max > 0 ? mean / max : 1;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* The overall row of H from its ranks' rows and MAX_OUT. */
static void overall(struct omp_hybrid *h, double max_out)
{
	struct omp_hybrid_row *all = &h->all;
	double out = 0, par_lb = 0;

	*all = (struct omp_hybrid_row){.rank = -1};
	for (size_t i = 0; i < h->nranks; i++) {
		const struct omp_hybrid_row *w = &h->ranks[i];

		all->out_ns += w->out_ns;
		all->mpi_ns += w->mpi_ns;
		all->par_ns += w->par_ns;
		out += (double)w->out_ns;
		par_lb += (double)w->par_ns * w->omp_lb;
	}
	all->mpi_lb = ratio(out / (double)h->nranks, max_out);
	all->mpi_ce = ratio(max_out, (double)h->runtime_ns);
	all->omp_lb = all->par_ns > 0 ? par_lb / (double)all->par_ns : 1;
	all->omp_ser = ratio((double)all->par_ns, out);
	all->pe = all->mpi_lb * all->mpi_ce * all->omp_lb * all->omp_ser;
}

int omp_hybrid_compute(struct omp_hybrid *h, const struct mpi_model *m, const struct omp_profile *p)
{
	int64_t a = 0, b = 0;
	double max_out = 0;

	memset(h, 0, sizeof(*h));
	run_window(m, &a, &b);
	h->runtime_ns = b - a;
	for (int r = 0; r < m->world_size; r++)
		h->nranks += m->ranks[r].present != 0;
	if (!h->nranks || h->runtime_ns <= 0)
		return -ENODATA;
	if (!(h->ranks = calloc(h->nranks, sizeof(*h->ranks))))
		return -ENOMEM;
	h->nranks = 0;
	for (int r = 0; r < m->world_size; r++) {
		struct omp_hybrid_row *w = &h->ranks[h->nranks];

		if (!m->ranks[r].present)
			continue;
		h->nranks++;
		w->rank = r;
		w->mpi_ns = rank_mpi_ns(m, r, a, b);
		w->out_ns = h->runtime_ns - w->mpi_ns;
		rank_omp(p, r, m->ranks[r].pid, &w->par_ns, &w->omp_lb);
		if ((double)w->out_ns > max_out)
			max_out = (double)w->out_ns;
	}
	for (size_t i = 0; i < h->nranks; i++) {
		struct omp_hybrid_row *w = &h->ranks[i];

		w->mpi_lb = ratio((double)w->out_ns, max_out);
		w->mpi_ce = ratio(max_out, (double)h->runtime_ns);
		w->omp_ser = ratio((double)w->par_ns, (double)w->out_ns);
		w->pe = w->mpi_lb * w->mpi_ce * w->omp_lb * w->omp_ser;
	}
	overall(h, max_out);
	return 0;
}

void omp_hybrid_release(struct omp_hybrid *h)
{
	free(h->ranks);
	memset(h, 0, sizeof(*h));
}
