/* mpi-stats.c - MPI routines and traffic: being written. */
