# libperfscope-mpi.so and the MPI examples: being written (src/mpi).

# the MPI examples (H6)
include(${CMAKE_SOURCE_DIR}/examples/mpi/mpi-examples.cmake)
