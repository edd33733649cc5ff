/* record-omp.c - whether a recorded command uses OpenMP (record-omp.h). */
#include "record/record-omp.h"
#include "record/record-mpi.h"

#include <limits.h>
#include <string.h>

/* An OpenMP runtime's NEEDED entry: GCC's libgomp, LLVM's libomp, Intel's libiomp5. */
static int omp_needed(const char *needed)
{
	return !strncmp(needed, "libgomp.so", 10) || !strncmp(needed, "libomp.so", 9) ||
	       !strncmp(needed, "libiomp5.so", 11);
}

int record_omp_cmd(char *const *cmd)
{
	char path[PATH_MAX];

	for (size_t i = 0; cmd[i]; i++) {
		if ((i && cmd[i][0] == '-') || record_cmd_path(cmd[i], path, sizeof(path)))
			continue;
		if (record_elf_needed(path, omp_needed))
			return 1;
	}
	return 0;
}
