/* mpi-routines.c - names and kinds of the routines of src/mpi/mpi-calls.def. */
#include "mpi-routines.h"

#include <strings.h>

static const struct {
	const char *name;
	enum mpi_kind kind;
} routines[] = {
#define MPI_CALL(name, family, kind, params) {"MPI_" #name, MPI_KIND_##kind},
#include "../mpi/mpi-calls.def"
#undef MPI_CALL
};

_Static_assert(sizeof(routines) / sizeof(routines[0]) == MPI_ROUTINE_COUNT, "one per id");

const char *mpi_routine_name(unsigned id)
{
	return id < MPI_ROUTINE_COUNT ? routines[id].name : NULL;
}

enum mpi_kind mpi_routine_kind(unsigned id)
{
	return id < MPI_ROUTINE_COUNT ? routines[id].kind : MPI_KIND_INIT;
}

int mpi_routine_find(const char *name)
{
	if (!strncasecmp(name, "MPI_", 4))
		name += 4;
	for (unsigned i = 0; i < MPI_ROUTINE_COUNT; i++)
		if (!strcasecmp(routines[i].name + 4, name))
			return (int)i;
	return -1;
}
