/*
 * test_omp_hybrid.c - the hybrid efficiency table from a hand-made MPI model and OpenMP
 * profile with known times: the run's window (MPI_Init's first leave to MPI_Finalize's last
 * entry), each rank's MPI time on its initial thread only, and the exact efficiencies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/mpi/mpi-model.h"
#include "analysis/openmp/omp-hybrid.h"
#include "analysis/openmp/omp-profile.h"
#include "format/mpi-routines.h"

#include <errno.h>
#include <math.h>

#define MS 1000000

/*
 * Two ranks, pids 100 and 200. Rank 0: Init [0, 10], Allreduce [50, 60], Finalize [110, 120];
 * a worker thread of rank 0 (tid 101) in MPI [20, 90] (not the initial thread: ignored).
 * Rank 1: Init [0, 20], Allreduce [70, 80], Finalize [100, 130]. The run: [10, 110] ms, 100 ms.
 * mpi_0 = 10, out_0 = 90; mpi_1 = 10 (Init's tail) + 10 + 10 (Finalize's head) = 30,
 * out_1 = 70.
 */
static void model(struct mpi_model *m, struct mpi_rank_info *ri, struct mpi_loc *locs,
		  struct mpi_call *calls)
{
	static const struct {
		uint32_t loc, routine;
		int64_t a, b;
	} c[] = {
	    {0, MPI_ROUTINE_Init, 0, 10},	 {0, MPI_ROUTINE_Allreduce, 50, 60},
	    {0, MPI_ROUTINE_Finalize, 110, 120}, {1, MPI_ROUTINE_Allreduce, 20, 90},
	    {2, MPI_ROUTINE_Init_thread, 0, 20}, {2, MPI_ROUTINE_Allreduce, 70, 80},
	    {2, MPI_ROUTINE_Finalize, 100, 130},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		calls[i] = (struct mpi_call){.enter_ns = c[i].a * MS,
					     .leave_ns = c[i].b * MS,
					     .routine = c[i].routine,
					     .loc = c[i].loc};
	/* rank 0's worker is its first location: the initial thread is found by its tid */
	locs[0] = (struct mpi_loc){.rank = 0, .tid = 101, .first_call = 3, .ncalls = 1};
	locs[1] = (struct mpi_loc){.rank = 0, .tid = 100, .first_call = 0, .ncalls = 3};
	locs[2] = (struct mpi_loc){.rank = 1, .tid = 200, .first_call = 4, .ncalls = 3};
	ri[0] = (struct mpi_rank_info){.present = 1, .pid = 100, .first_loc = 0, .nlocs = 2};
	ri[1] = (struct mpi_rank_info){.present = 1, .pid = 200, .first_loc = 2, .nlocs = 1};
	*m = (struct mpi_model){.world_size = 2,
				.ranks = ri,
				.locs = locs,
				.nlocs = 3,
				.calls = calls,
				.ncalls = 7,
				.start_ns = 0,
				.end_ns = 130 * MS};
}

/*
 * Rank 0: one outermost region, mean work 30 of max 40 (lb 0.75), a nested one (left out);
 * its initial thread 60 ms in parallel, its worker's time ignored. Rank 1: two regions, mean
 * 20 + 16 of max 20 + 20 (lb 0.9); its initial thread 40 ms in parallel.
 */
static void profile(struct omp_profile *p, struct omp_region *rg, struct omp_thread *th)
{
	rg[0] = (struct omp_region){
	    .rank = 0, .level = 1, .work_mean_ns = 30 * MS, .work_max_ns = 40 * MS};
	rg[1] = (struct omp_region){
	    .rank = 0, .level = 2, .work_mean_ns = 1 * MS, .work_max_ns = 9 * MS};
	rg[2] = (struct omp_region){
	    .rank = 1, .level = 1, .work_mean_ns = 20 * MS, .work_max_ns = 20 * MS};
	rg[3] = (struct omp_region){
	    .rank = 1, .level = 1, .work_mean_ns = 16 * MS, .work_max_ns = 20 * MS};
	th[0] = (struct omp_thread){.pid = 100, .tid = 101, .rank = 0, .parallel_ns = 55 * MS};
	th[1] = (struct omp_thread){
	    .pid = 100, .tid = 100, .rank = 0, .initial = 1, .parallel_ns = 60 * MS};
	th[2] = (struct omp_thread){
	    .pid = 200, .tid = 200, .rank = 1, .initial = 1, .parallel_ns = 40 * MS};
	*p = (struct omp_profile){
	    .regions = rg, .nregions = 4, .threads = th, .nthreads = 3, .hybrid = 1};
}

static void test_exact(void **state)
{
	struct mpi_rank_info ri[2];
	struct mpi_loc locs[3];
	struct mpi_call calls[7];
	struct omp_region rg[4];
	struct omp_thread th[3];
	struct mpi_model m;
	struct omp_profile p;
	struct omp_hybrid h;
	const struct omp_hybrid_row *r0, *r1;

	(void)state;
	model(&m, ri, locs, calls);
	profile(&p, rg, th);
	assert_int_equal(omp_hybrid_compute(&h, &m, &p), 0);
	assert_int_equal(h.runtime_ns, 100 * MS);
	assert_int_equal(h.nranks, 2);
	r0 = &h.ranks[0], r1 = &h.ranks[1];
	assert_int_equal(r0->rank, 0);
	assert_int_equal(r0->mpi_ns, 10 * MS);
	assert_int_equal(r0->out_ns, 90 * MS);
	assert_int_equal(r0->par_ns, 60 * MS);
	assert_int_equal(r1->mpi_ns, 30 * MS);
	assert_int_equal(r1->out_ns, 70 * MS);
	assert_int_equal(r1->par_ns, 40 * MS);
	/* MPI: lb 1 and 70/90, ce 90/100 */
	assert_float_equal(r0->mpi_lb, 1.0, 1e-12);
	assert_float_equal(r1->mpi_lb, 70.0 / 90, 1e-12);
	assert_float_equal(r0->mpi_ce, 0.9, 1e-12);
	assert_float_equal(r1->mpi_ce, 0.9, 1e-12);
	/* OpenMP: lb 30/40 and 36/40 (the nested region left out), ser 60/90 and 40/70 */
	assert_float_equal(r0->omp_lb, 0.75, 1e-12);
	assert_float_equal(r1->omp_lb, 0.9, 1e-12);
	assert_float_equal(r0->omp_ser, 60.0 / 90, 1e-12);
	assert_float_equal(r1->omp_ser, 40.0 / 70, 1e-12);
	/* pe_r = par_r x lb_r / T: 0.45 and 0.36 */
	assert_float_equal(r0->pe, 0.45, 1e-12);
	assert_float_equal(r1->pe, 0.36, 1e-12);
	/* overall: lb 80/90, ce 0.9, omp lb (60 x 0.75 + 40 x 0.9) / 100 = 0.81, ser 100/160;
	 * pe the ranks' mean 0.405 */
	assert_int_equal(h.all.rank, -1);
	assert_float_equal(h.all.mpi_lb, 80.0 / 90, 1e-12);
	assert_float_equal(h.all.mpi_ce, 0.9, 1e-12);
	assert_float_equal(h.all.omp_lb, 0.81, 1e-12);
	assert_float_equal(h.all.omp_ser, 100.0 / 160, 1e-12);
	assert_float_equal(h.all.pe, 0.405, 1e-12);
	omp_hybrid_release(&h);
	assert_null(h.ranks);
}

/* Without MPI_Init and MPI_Finalize calls the run is the model's range; no rank: -ENODATA. */
static void test_window_and_empty(void **state)
{
	struct mpi_rank_info ri[1] = {{.present = 1, .pid = 7, .first_loc = 0, .nlocs = 1}};
	struct mpi_loc locs[1] = {{.rank = 0, .tid = 7, .first_call = 0, .ncalls = 1}};
	struct mpi_call calls[1] = {
	    {.enter_ns = 10, .leave_ns = 30, .routine = MPI_ROUTINE_Allreduce, .loc = 0}};
	struct mpi_model m = {.world_size = 1,
			      .ranks = ri,
			      .locs = locs,
			      .nlocs = 1,
			      .calls = calls,
			      .ncalls = 1,
			      .start_ns = 0,
			      .end_ns = 100};
	struct omp_profile p = {0};
	struct omp_hybrid h;

	(void)state;
	assert_int_equal(omp_hybrid_compute(&h, &m, &p), 0);
	assert_int_equal(h.runtime_ns, 100);
	assert_int_equal(h.ranks[0].out_ns, 80);
	assert_float_equal(h.ranks[0].mpi_ce, 0.8, 1e-12);
	assert_float_equal(h.ranks[0].omp_lb, 1.0, 1e-12); /* no regions */
	assert_float_equal(h.ranks[0].omp_ser, 0.0, 1e-12);
	omp_hybrid_release(&h);
	ri[0].present = 0;
	assert_int_equal(omp_hybrid_compute(&h, &m, &p), -ENODATA);
	omp_hybrid_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact),
	    cmocka_unit_test(test_window_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
