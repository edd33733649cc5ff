/* mpi-print.c - MPI tables, CSV and JSON: being written. */
