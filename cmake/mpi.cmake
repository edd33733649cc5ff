# libperfscope-mpi.so: the PMPI wrappers, generated at build time from src/mpi-rt/mpi-calls.def by
# src/mpi-rt/gen-wrappers.py, with the family hooks, the communicator and request tables, the clock
# alignment and the load sampler (src/mpi-rt). Linked to libperfscope.so, which it records through
# (src/runtime/rt-mpi.h), and to the MPI library; exports the MPI_* and Fortran mpi_* wrappers
# alone. Without MPI (no ompi-c and no find_package(MPI)) nothing here is built and the MPI
# tests skip.

pkg_check_modules(PSC_OMPI_C QUIET IMPORTED_TARGET ompi-c)
if(PSC_OMPI_C_FOUND)
  set(PSC_MPI_C_TARGET PkgConfig::PSC_OMPI_C)
  # the Fortran PMPI bindings (pmpi_send_ ...) live in libmpi_mpifh: link it alone, not the
  # Fortran module libraries ompi-fort also names
  pkg_check_modules(PSC_OMPI_FORT QUIET ompi-fort)
  find_library(PSC_MPIFH_LIBRARY mpi_mpifh HINTS ${PSC_OMPI_FORT_LIBRARY_DIRS}
    ${PSC_OMPI_C_LIBRARY_DIRS})
else()
  find_package(MPI QUIET COMPONENTS C)
  if(MPI_C_FOUND)
    set(PSC_MPI_C_TARGET MPI::MPI_C)
    find_package(MPI QUIET COMPONENTS Fortran)
    if(MPI_Fortran_FOUND)
      set(PSC_MPIFH_LIBRARY MPI::MPI_Fortran)
    endif()
  endif()
endif()
find_package(Python3 QUIET COMPONENTS Interpreter)

if(PSC_MPI_C_TARGET AND Python3_Interpreter_FOUND)
  set(PSC_MPI_GEN_DIR ${CMAKE_BINARY_DIR}/mpi-gen)
  set(PSC_MPI_GENERATED
    ${PSC_MPI_GEN_DIR}/mpi-hooks.h
    ${PSC_MPI_GEN_DIR}/mpi-wrappers.c
    ${PSC_MPI_GEN_DIR}/mpi-wrappers-f.c
    ${PSC_MPI_GEN_DIR}/mpi-wrappers-f08.c
    ${PSC_MPI_GEN_DIR}/mpi-exports.map)
  add_custom_command(OUTPUT ${PSC_MPI_GENERATED}
    COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/src/mpi-rt/gen-wrappers.py
            ${CMAKE_SOURCE_DIR}/src/mpi-rt/mpi-calls.def ${PSC_MPI_GEN_DIR}
    DEPENDS ${CMAKE_SOURCE_DIR}/src/mpi-rt/gen-wrappers.py ${CMAKE_SOURCE_DIR}/src/mpi-rt/mpi-calls.def
    COMMENT "generating the MPI wrappers from mpi-calls.def")

  set(PSC_MPI_SOURCES
    ${PSC_MPI_GEN_DIR}/mpi-wrappers.c
    src/mpi-rt/hooks.c
    src/mpi-rt/hooks-coll.c
    src/mpi-rt/comms.c
    src/mpi-rt/requests.c
    src/mpi-rt/clocksync.c
    src/mpi-rt/load.c
    src/mpi-rt/sites.c
    src/format/layout.c)
  if(PSC_MPIFH_LIBRARY)
    # mpi_f08 (mpi_x_f08_): calls the f08 bindings through weak references, so that the
    # library does not load libmpi_usempif08 (nor libgfortran) into C programs
    list(APPEND PSC_MPI_SOURCES ${PSC_MPI_GEN_DIR}/mpi-wrappers-f.c
      ${PSC_MPI_GEN_DIR}/mpi-wrappers-f08.c)
  else()
    message(WARNING "no Fortran MPI bindings (libmpi_mpifh): Fortran MPI calls are not traced")
  endif()
  add_library(perfscope_mpi SHARED ${PSC_MPI_SOURCES})
  set_target_properties(perfscope_mpi PROPERTIES
    OUTPUT_NAME perfscope-mpi
    VERSION ${PROJECT_VERSION} SOVERSION 0
    INSTALL_RPATH "$ORIGIN"
    LINK_DEPENDS ${PSC_MPI_GEN_DIR}/mpi-exports.map)
  target_include_directories(perfscope_mpi PRIVATE ${PSC_MPI_GEN_DIR} ${CMAKE_SOURCE_DIR}/src/mpi-rt)
  # the hooks run inside every MPI call of the program: no symbol of ours but the wrappers
  target_compile_options(perfscope_mpi PRIVATE -fvisibility=hidden)
  target_link_libraries(perfscope_mpi PRIVATE perfscope ${PSC_MPI_C_TARGET} ${PSC_MPIFH_LIBRARY}
    Threads::Threads)
  target_link_options(perfscope_mpi PRIVATE
    -Wl,--version-script=${PSC_MPI_GEN_DIR}/mpi-exports.map -Wl,-z,defs)
  install(TARGETS perfscope_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

  # libperfscope-mpich.so: the same wrappers built against MPICH (pkg-config mpich), which
  # record --mpi preloads for programs linked with libmpich.so.12. C wrappers alone: MPICH's
  # Fortran bindings (libmpichfort: mpi_send_, mpi_send_f08ts_ ...) call the C MPI_Send, not
  # PMPI_Send, so the C wrappers see Fortran calls too, and Fortran wrappers would count them
  # twice.
  pkg_check_modules(PSC_MPICH QUIET IMPORTED_TARGET mpich)
  if(PSC_MPICH_FOUND)
    add_library(perfscope_mpich SHARED ${PSC_MPI_GEN_DIR}/mpi-wrappers.c src/mpi-rt/hooks.c
      src/mpi-rt/hooks-coll.c src/mpi-rt/comms.c src/mpi-rt/requests.c src/mpi-rt/clocksync.c
      src/mpi-rt/load.c src/mpi-rt/sites.c src/format/layout.c)
    set_target_properties(perfscope_mpich PROPERTIES
      OUTPUT_NAME perfscope-mpich
      VERSION ${PROJECT_VERSION} SOVERSION 0
      INSTALL_RPATH "$ORIGIN"
      LINK_DEPENDS ${PSC_MPI_GEN_DIR}/mpi-exports.map)
    target_include_directories(perfscope_mpich PRIVATE ${PSC_MPI_GEN_DIR}
      ${CMAKE_SOURCE_DIR}/src/mpi-rt)
    target_compile_options(perfscope_mpich PRIVATE -fvisibility=hidden)
    target_link_libraries(perfscope_mpich PRIVATE perfscope PkgConfig::PSC_MPICH
      Threads::Threads)
    target_link_options(perfscope_mpich PRIVATE
      -Wl,--version-script=${PSC_MPI_GEN_DIR}/mpi-exports.map -Wl,-z,defs)
    install(TARGETS perfscope_mpich LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    # examples/mpi/ring.c linked with MPICH (ring_mpich), and ring_f.f90 and ring_f08.f90 built
    # by MPICH's Fortran compiler wrapper (ring_f_mpich, ring_f08_mpich), for
    # tests/e2e/test_mpi_mpich*.sh
    add_executable(mpi_ring_mpich ${CMAKE_SOURCE_DIR}/examples/mpi/ring.c)
    target_compile_options(mpi_ring_mpich PRIVATE -g -fno-sanitize=all)
    target_link_options(mpi_ring_mpich PRIVATE -fno-sanitize=all)
    target_link_libraries(mpi_ring_mpich PRIVATE PkgConfig::PSC_MPICH)
    set_target_properties(mpi_ring_mpich PROPERTIES OUTPUT_NAME ring_mpich
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
    find_program(PSC_MPIFORT_MPICH NAMES mpifort.mpich mpif90.mpich)
    if(PERFSCOPE_FORTRAN AND PSC_MPIFORT_MPICH)
      set(PSC_MPICH_F_OUT)
      foreach(ex ring_f ring_f08)
        set(out ${CMAKE_BINARY_DIR}/examples/mpi/${ex}_mpich)
        add_custom_command(OUTPUT ${out}
          COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/examples/mpi/mod-${ex}-mpich
          COMMAND ${PSC_MPIFORT_MPICH} -g -o ${out} -J ${CMAKE_BINARY_DIR}/examples/mpi/mod-${ex}-mpich
                  ${CMAKE_SOURCE_DIR}/examples/mpi/${ex}.f90
          DEPENDS ${CMAKE_SOURCE_DIR}/examples/mpi/${ex}.f90
          COMMENT "building examples/mpi/${ex}_mpich with ${PSC_MPIFORT_MPICH}")
        list(APPEND PSC_MPICH_F_OUT ${out})
      endforeach()
      add_custom_target(mpi_mpich_f ALL DEPENDS ${PSC_MPICH_F_OUT})
    endif()
  else()
    message(STATUS "MPICH not found (pkg-config mpich): no libperfscope-mpich.so, "
      "tests/e2e/test_mpi_mpich*.sh not registered")
  endif()

  # examples/mpi/calls_mpi(.c, _f.f90) and calls_more.c: a known number of every kind of
  # call, for tests/e2e/test_mpi_record.sh
  foreach(ex calls_mpi calls_more)
    add_executable(mpi_${ex} examples/mpi/${ex}.c)
    target_compile_options(mpi_${ex} PRIVATE -g -fno-sanitize=all)
    target_link_options(mpi_${ex} PRIVATE -fno-sanitize=all)
    target_link_libraries(mpi_${ex} PRIVATE ${PSC_MPI_C_TARGET})
    set_target_properties(mpi_${ex} PROPERTIES OUTPUT_NAME ${ex}
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
  endforeach()
  find_program(PSC_MPIFORT NAMES mpifort mpif90)
  if(PERFSCOPE_FORTRAN AND PSC_MPIFH_LIBRARY AND PSC_MPIFORT)
    # built by the MPI compiler wrapper: exactly what a user's `mpifort app.f90` links
    set(PSC_CALLS_F ${CMAKE_BINARY_DIR}/examples/mpi/calls_mpi_f)
    add_custom_command(OUTPUT ${PSC_CALLS_F}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/examples/mpi/calls-mod
      COMMAND ${PSC_MPIFORT} -g -o ${PSC_CALLS_F} -J ${CMAKE_BINARY_DIR}/examples/mpi/calls-mod
              ${CMAKE_SOURCE_DIR}/examples/mpi/calls_mpi_f.f90
      DEPENDS ${CMAKE_SOURCE_DIR}/examples/mpi/calls_mpi_f.f90
      COMMENT "building examples/mpi/calls_mpi_f with ${PSC_MPIFORT}")
    add_custom_target(mpi_calls_f ALL DEPENDS ${PSC_CALLS_F})
  endif()
endif()

# the MPI examples (H6)
include(${CMAKE_SOURCE_DIR}/examples/mpi/mpi-examples.cmake)

# examples/mpi/ring.c traced as well (-finstrument-functions, not linked with perfscope: record
# --functions preloads the runtime), for the time per scope in tests/e2e/test_mpi_scope.sh
if(MPI_C_FOUND)
  add_executable(mpi_ring_traced ${CMAKE_SOURCE_DIR}/examples/mpi/ring.c)
  target_compile_options(mpi_ring_traced PRIVATE -g -finstrument-functions -fno-sanitize=all)
  target_link_options(mpi_ring_traced PRIVATE -fno-sanitize=all)
  target_link_libraries(mpi_ring_traced PRIVATE MPI::MPI_C)
  set_target_properties(mpi_ring_traced PROPERTIES OUTPUT_NAME ring_traced
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples/mpi)
endif()
