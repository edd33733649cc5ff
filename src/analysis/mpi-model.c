/* mpi-model.c - the MPI model's builder and build (mpi-model.h): being written. */
