/* test_mpi_routines.c - the routine table of src/mpi-rt/mpi-calls.def (src/format/mpi-routines.c):
 * every non-blocking collective's twin column names its blocking collective, and no other
 * routine has a twin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "format/mpi-routines.h"

/* every MPI_Ixxx of kind ICOLL has the twin MPI_Xxx, a blocking collective */
static void test_icoll_twins(void **state)
{
	unsigned icolls = 0;

	(void)state;
	for (unsigned id = 0; id < MPI_ROUTINE_COUNT; id++) {
		const char *name = mpi_routine_name(id);
		int twin = mpi_routine_twin(id);

		assert_non_null(name);
		if (mpi_routine_kind(id) != MPI_KIND_ICOLL) {
			assert_int_equal(twin, -1);
			continue;
		}
		icolls++;
		assert_true(twin >= 0 && twin < MPI_ROUTINE_COUNT);
		assert_true(mpi_kind_is_collective(mpi_routine_kind((unsigned)twin)));
		/* the names agree: MPI_I + the twin's name without MPI_ */
		assert_int_equal(strncmp(name, "MPI_I", 5), 0);
		assert_int_equal(strcasecmp(name + 5, mpi_routine_name((unsigned)twin) + 4), 0);
	}
	/* Ibarrier .. Iscan in mpi-calls.def, and Ialltoallw, Ireduce_scatter, Iexscan at its end
	 */
	assert_int_equal(icolls, 17);
}

static void test_twin_values(void **state)
{
	(void)state;
	assert_int_equal(mpi_routine_twin(MPI_ROUTINE_Iallreduce), MPI_ROUTINE_Allreduce);
	assert_int_equal(mpi_routine_twin(MPI_ROUTINE_Ibarrier), MPI_ROUTINE_Barrier);
	assert_int_equal(mpi_routine_twin(MPI_ROUTINE_Ireduce_scatter_block),
			 MPI_ROUTINE_Reduce_scatter_block);
	assert_int_equal(mpi_routine_kind(MPI_ROUTINE_Ibcast), MPI_KIND_ICOLL);
	assert_int_equal(mpi_routine_kind((unsigned)mpi_routine_twin(MPI_ROUTINE_Ibcast)),
			 MPI_KIND_ONE_TO_ALL);
	assert_int_equal(mpi_routine_twin(MPI_ROUTINE_Allreduce), -1);
	assert_int_equal(mpi_routine_twin(MPI_ROUTINE_Isend), -1);
	assert_int_equal(mpi_routine_twin(MPI_ROUTINE_COUNT), -1);
	assert_int_equal(mpi_routine_twin(~0u), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_icoll_twins),
	    cmocka_unit_test(test_twin_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
