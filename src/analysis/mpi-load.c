/* mpi-load.c - an experiment's MPI records into the MPI model: being written. */
