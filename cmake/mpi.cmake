# libperfscope-mpi.so and the MPI examples: being written (src/mpi).
