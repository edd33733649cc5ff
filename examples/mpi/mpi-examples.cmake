# The MPI examples (examples/mpi, README there): plain MPI programs built with -g, never linked
# with perfscope (record --mpi preloads libperfscope-mpi.so), into ${CMAKE_BINARY_DIR}/examples/mpi.
# Included from cmake/mpi.cmake; without MPI nothing is built and the MPI tests skip.
find_package(MPI QUIET COMPONENTS C)
if(MPI_C_FOUND)
  foreach(ex ring barrier alltoall_nb pingpong cancel errret errarg intercomm icoll threads)
    add_executable(mpi_${ex} ${CMAKE_SOURCE_DIR}/examples/mpi/${ex}.c)
    target_compile_options(mpi_${ex} PRIVATE -g -fno-sanitize=all)
    target_link_options(mpi_${ex} PRIVATE -fno-sanitize=all)
    target_link_libraries(mpi_${ex} PRIVATE MPI::MPI_C)
    set_target_properties(mpi_${ex} PROPERTIES OUTPUT_NAME ${ex}
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
  endforeach()
  # threads: two threads per rank under MPI_THREAD_MULTIPLE (test_mpi_threads.sh)
  find_package(Threads REQUIRED)
  target_link_libraries(mpi_threads PRIVATE Threads::Threads)
  # hybrid: MPI + OpenMP (test_mpi_openmp.sh), with the compiler's OpenMP runtime
  find_package(OpenMP QUIET COMPONENTS C)
  if(OpenMP_C_FOUND)
    add_executable(mpi_hybrid ${CMAKE_SOURCE_DIR}/examples/mpi/hybrid.c)
    target_compile_options(mpi_hybrid PRIVATE -g -fno-sanitize=all)
    target_link_options(mpi_hybrid PRIVATE -fno-sanitize=all)
    target_link_libraries(mpi_hybrid PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
    set_target_properties(mpi_hybrid PROPERTIES OUTPUT_NAME hybrid
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
    # hybrid_eff: known hybrid efficiencies (test_mpi_hybrid_eff.sh)
    add_executable(mpi_hybrid_eff ${CMAKE_SOURCE_DIR}/examples/mpi/hybrid_eff.c)
    target_compile_options(mpi_hybrid_eff PRIVATE -g -fno-sanitize=all)
    target_link_options(mpi_hybrid_eff PRIVATE -fno-sanitize=all)
    target_link_libraries(mpi_hybrid_eff PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
    set_target_properties(mpi_hybrid_eff PROPERTIES OUTPUT_NAME hybrid_eff
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
  endif()
endif()
if(PERFSCOPE_FORTRAN)
  find_package(MPI QUIET COMPONENTS Fortran)
  if(MPI_Fortran_FOUND)
    foreach(ex ring_f inplace_f)
      add_executable(mpi_${ex} ${CMAKE_SOURCE_DIR}/examples/mpi/${ex}.f90)
      target_compile_options(mpi_${ex} PRIVATE -g -fno-sanitize=all)
      target_link_options(mpi_${ex} PRIVATE -fno-sanitize=all)
      target_link_libraries(mpi_${ex} PRIVATE MPI::MPI_Fortran)
      set_target_properties(mpi_${ex} PROPERTIES OUTPUT_NAME ${ex}
        Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi/mod
        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
    endforeach()
    # ring_f08: the same through the mpi_f08 module (test_mpi_fortran08.sh)
    if(MPI_Fortran_HAVE_F08_MODULE)
      add_executable(mpi_ring_f08 ${CMAKE_SOURCE_DIR}/examples/mpi/ring_f08.f90)
      target_compile_options(mpi_ring_f08 PRIVATE -g -fno-sanitize=all)
      target_link_options(mpi_ring_f08 PRIVATE -fno-sanitize=all)
      target_link_libraries(mpi_ring_f08 PRIVATE MPI::MPI_Fortran)
      set_target_properties(mpi_ring_f08 PROPERTIES OUTPUT_NAME ring_f08
        Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi/mod-f08
        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
    endif()
  endif()
endif()
