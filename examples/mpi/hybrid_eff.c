/*
 * hybrid_eff.c - MPI + OpenMP with known hybrid efficiencies: each rank runs ITERS rounds of
 * a serial part on its initial thread (SERIAL ms), an OpenMP parallel region where thread t
 * of rank r works WORK x (t + 1) x (r + 1) ms (so threads and ranks are imbalanced), and an
 * MPI_Allreduce, under MPI_THREAD_FUNNELED; then an MPI_Barrier.
 *
 * It measures its own truth on CLOCK_MONOTONIC (ranks on one host share it): each rank its
 * time after MPI_Init_thread (a) and before the end (b), its initial thread's time in MPI calls
 * and in parallel regions, and each thread's work in the regions; rank 0 gathers them and
 * prints the efficiencies perfscope's table must give (analysis/openmp/omp-hybrid.h):
 *   expected rank R mpi_load_balance X mpi_comm_eff X omp_load_balance X omp_serial_eff X
 *   parallel_eff X
 * for each rank and for "all". The run is [min a, max b]; a rank's MPI time is its calls'
 * plus the time the run spends before its a (in MPI_Init) and after its b (in MPI_Finalize).
 *
 * Usage: hybrid_eff [-n ITERS] [-w WORK_MS] [-s SERIAL_MS]   (defaults 4, 4, 6)
 */
#include "mpi-ex.h"

#include <omp.h>

#define MAX_THREADS 64
#define NV	    6 /* a, b, mpi, par, sum of work, max work */

/* Spin until MS milliseconds have passed. */
static void spin_ms(double ms)
{
	int64_t end = ex_now_ns() + (int64_t)(ms * 1e6);

	while (ex_now_ns() < end)
		;
}

/* Rank 0: the expectations from every rank's V (NV values each) over N ranks and T threads. */
static void expect(const double *v, int n, int nt)
{
	double a = v[0], b = v[1], max_out = 0, sum_out = 0, sum_par = 0, par_lb = 0;
	double out[64], lb[64];

	for (int r = 0; r < n; r++) {
		a = v[r * NV] < a ? v[r * NV] : a;
		b = v[r * NV + 1] > b ? v[r * NV + 1] : b;
	}
	for (int r = 0; r < n; r++) {
		const double *x = &v[r * NV];
		double mpi = x[2] + (x[0] - a) + (b - x[1]);

		out[r] = (b - a) - mpi;
		lb[r] = x[5] > 0 ? x[4] / nt / x[5] : 1;
		max_out = out[r] > max_out ? out[r] : max_out;
		sum_out += out[r];
		sum_par += x[3];
		par_lb += x[3] * lb[r];
	}
	for (int r = 0; r < n; r++) {
		double mlb = out[r] / max_out, ce = max_out / (b - a), ser = v[r * NV + 3] / out[r];

		printf("expected rank %d mpi_load_balance %.6f mpi_comm_eff %.6f omp_load_balance "
		       "%.6f omp_serial_eff %.6f parallel_eff %.6f\n",
		       r, mlb, ce, lb[r], ser, mlb * ce * lb[r] * ser);
	}
	{
		double mlb = sum_out / n / max_out, ce = max_out / (b - a), olb = par_lb / sum_par;
		double ser = sum_par / sum_out;

		printf("expected rank all mpi_load_balance %.6f mpi_comm_eff %.6f omp_load_balance "
		       "%.6f omp_serial_eff %.6f parallel_eff %.6f\n",
		       mlb, ce, olb, ser, mlb * ce * olb * ser);
	}
}

int main(int argc, char **argv)
{
	long iters = 4;
	double work = 4, serial = 6, one = 1, sum, mine[NV], all[NV * 64];
	int provided, rank, size, nt = omp_get_max_threads();
	int64_t a, b, mpi = 0, par = 0, t0, w[MAX_THREADS] = {0};

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	a = ex_now_ns();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i < argc; i++) {
		int bad = i + 1 >= argc || nt > MAX_THREADS || size > 64;

		if (!bad && !strcmp(argv[i], "-n"))
			bad = ex_parse_long(argv[++i], 1, 1000, &iters);
		else if (!bad && !strcmp(argv[i], "-w"))
			bad = ex_parse_double(argv[++i], 0, 1000, &work);
		else if (!bad && !strcmp(argv[i], "-s"))
			bad = ex_parse_double(argv[++i], 0, 1000, &serial);
		else
			bad = 1;
		if (bad) {
			if (rank == 0)
				fprintf(stderr,
					"usage: hybrid_eff [-n ITERS] [-w WORK_MS] [-s "
					"SERIAL_MS] (at most %d threads, 64 ranks)\n",
					MAX_THREADS);
			MPI_Finalize();
			return 2;
		}
	}
	for (long it = 0; it < iters; it++) {
		spin_ms(serial);
		t0 = ex_now_ns();
#pragma omp parallel
		{
			int me = omp_get_thread_num();
			int64_t s = ex_now_ns();

			spin_ms(work * (me + 1) * (rank + 1));
			w[me] += ex_now_ns() - s;
		}
		par += ex_now_ns() - t0;
		t0 = ex_now_ns();
		MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		mpi += ex_now_ns() - t0;
	}
	t0 = ex_now_ns();
	MPI_Barrier(MPI_COMM_WORLD);
	b = ex_now_ns();
	mpi += b - t0;
	mine[0] = (double)a, mine[1] = (double)b, mine[2] = (double)mpi, mine[3] = (double)par;
	mine[4] = mine[5] = 0;
	for (int t = 0; t < nt; t++) {
		mine[4] += (double)w[t];
		mine[5] = (double)w[t] > mine[5] ? (double)w[t] : mine[5];
	}
	MPI_Gather(mine, NV, MPI_DOUBLE, all, NV, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("ranks %d threads %d iters %ld\n", size, nt, iters);
		expect(all, size, nt);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
