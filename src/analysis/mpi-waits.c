/* mpi-waits.c - MPI wait states: being written. */
