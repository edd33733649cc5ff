/* mpi-routines.c - names, kinds and twins of the routines of src/mpi-rt/mpi-calls.def. */
#include "format/mpi-routines.h"

#include <strings.h>

/* the twin column's "none" */
enum { MPI_ROUTINE_none = -1 };

static const struct {
	const char *name;
	enum mpi_kind kind;
	int twin;
} routines[] = {
#define MPI_CALL(name, family, kind, twin, params)                                                 \
	{"MPI_" #name, MPI_KIND_##kind, MPI_ROUTINE_##twin},
#include "mpi-rt/mpi-calls.def"
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

int mpi_routine_twin(unsigned id)
{
	return id < MPI_ROUTINE_COUNT ? routines[id].twin : -1;
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
