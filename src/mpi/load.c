/* load.c - MPI load sampler: being written. */
