/* mpi.c - libperfscope.so's side of the MPI library (rt-mpi.h): being written. */
