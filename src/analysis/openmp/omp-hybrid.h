/*
 * omp-hybrid.h - the hybrid MPI+OpenMP efficiency table: per MPI rank and over the run, the
 * POP efficiencies of the hybrid model split as MPI load balance x MPI communication x OpenMP
 * load balance x OpenMP serialisation. Built from the MPI model and the OpenMP profile.
 *
 * Definitions (POP hybrid multiplicative model, co-design.pop-coe.eu/metrics/hm/: "MPI Load
 * Balance Efficiency", "MPI Communication Efficiency"; there the OpenMP runtime is useful from
 * MPI's point of view and only the initial thread of each process counts for MPI):
 *   the run      = [the first leave of MPI_Init*, the last entry into MPI_Finalize] over the
 *                  ranks (the first and last event of the run when those calls are missing);
 *                  runtime T is its length. Start-up and shut-down are not the program's.
 *   mpi_r        = the time rank r's initial thread (tid = its pid) spent in MPI calls, within
 *                  the run; out_r = T - mpi_r (POP: OutsideMPI of thread 1).
 *   MPI load balance  mpi_lb_r = out_r / max_q out_q; overall mean_r out_r / max_r out_r
 *   MPI communication mpi_ce   = max_r out_r / T (the same for every rank)
 *   OpenMP load balance omp_lb_r = sum_k mean_t work_kt / sum_k max_t work_kt over rank r's
 *                  outermost parallel regions k (omp-profile.h's work); 1 without work.
 *                  Overall: the mean of omp_lb_r weighted by par_r.
 *   OpenMP serialisation omp_ser_r = par_r / out_r, par_r the initial thread's time in
 *                  outermost parallel regions (omp-profile.h); overall sum par / sum out.
 *   parallel efficiency pe = mpi_lb x mpi_ce x omp_lb x omp_ser, per rank; the overall row's
 *                  product equals the mean of the ranks' (the weights above are chosen so).
 * MPI calls the initial thread makes inside parallel regions count in both mpi_r and par_r;
 * parallel regions outside the run (before MPI_Init) count in par_r.
 */
#ifndef PSC_AN_OMP_HYBRID_H
#define PSC_AN_OMP_HYBRID_H

#include <stddef.h>
#include <stdint.h>

struct mpi_model;
struct omp_profile;

/* A rank's row (rank -1: the overall row). Fractions in [0, 1] but for rounding. */
struct omp_hybrid_row {
	int rank;
	int64_t out_ns, mpi_ns, par_ns; /* overall: summed over the ranks */
	double mpi_lb, mpi_ce, omp_lb, omp_ser, pe;
};

struct omp_hybrid {
	int64_t runtime_ns;
	struct omp_hybrid_row *ranks; /* present ranks in rank order */
	size_t nranks;
	struct omp_hybrid_row all;
};

/* H (emptied here) from the MPI model M and the OpenMP profile P of the same run. 0, or
 * -ENOMEM, or -ENODATA when M has no present rank or a runtime of 0. */
int omp_hybrid_compute(struct omp_hybrid *h, const struct mpi_model *m,
		       const struct omp_profile *p);

/* Free what H holds; H is empty after. */
void omp_hybrid_release(struct omp_hybrid *h);

#endif /* PSC_AN_OMP_HYBRID_H */
