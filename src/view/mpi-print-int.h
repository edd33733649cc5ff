/* mpi-print-int.h - what the text, CSV (mpi-print.c) and JSON (mpi-print-json.c) outputs of
 * `perfscope mpi` share. */
#ifndef PSC_MPI_PRINT_INT_H
#define PSC_MPI_PRINT_INT_H

#include "view/mpi-print.h"

#include "format/mpi-routines.h"

#include <stdint.h>

static inline double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static inline const char *routine_name(uint32_t id)
{
	const char *name = mpi_routine_name(id);

	return name ? name : "?";
}

static inline int64_t run_ns(const struct mpi_model *m)
{
	return m->end_ns - m->start_ns;
}

static inline int64_t wait_sum(const struct mpi_waits *w)
{
	int64_t s = 0;

	for (int i = 0; i < w->p; i++)
		s += w->total[i];
	return s;
}

static inline int64_t exec_sum(const struct mpi_waits *w)
{
	int64_t s = 0;

	for (int i = 0; i < w->p; i++)
		s += w->exec_ns[i];
	return s;
}

/* Every shown cell of the wait matrix as CB(ctx, rank, peer, ns); peer -1 collective, -2
 * total (always). */
static inline void waits_cells(const struct mpi_report *r, void (*cb)(void *, int, int, int64_t),
			       void *ctx)
{
	const struct mpi_waits *w = r->waits;

	for (int i = 0; i < w->p; i++) {
		for (int j = 0; j < w->p; j++) {
			int64_t ns = w->p2p[(size_t)i * (size_t)w->p + (size_t)j];

			if (r->all || !mpi_waits_hidden(w, i, ns, r->rel))
				cb(ctx, i, j, ns);
		}
		if (r->all || !mpi_waits_hidden(w, i, w->coll[i], r->rel))
			cb(ctx, i, -1, w->coll[i]);
		cb(ctx, i, -2, w->total[i]);
	}
}

#endif /* PSC_MPI_PRINT_INT_H */
