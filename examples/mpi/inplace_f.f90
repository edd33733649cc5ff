! inplace_f.f90 - MPI_Alltoallw in place from Fortran (use mpi): with MPI_IN_PLACE as the send
! buffer, MPI ignores sendcounts, sdispls and sendtypes, so this program passes arrays it never
! allocated for them (their address is null). Every rank exchanges one integer with every
! rank; rank 0 prints the bytes it received:
!   alltoallw in place: BYTES bytes
!
! Build: mpifort -g examples/mpi/inplace_f.f90 -o inplace_f
! Run:   perfscope record --mpi -o out -- mpirun -np 2 ./inplace_f
program inplace_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i
  integer, allocatable :: buf(:), cnts(:), dspls(:), types(:)
  integer, allocatable :: nocnts(:), nodspls(:), notypes(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(buf(nprocs), cnts(nprocs), dspls(nprocs), types(nprocs))
  do i = 1, nprocs
    buf(i) = rank * 100 + i
    cnts(i) = 1
    dspls(i) = (i - 1) * 4
    types(i) = MPI_INTEGER
  end do
  call MPI_Alltoallw(MPI_IN_PLACE, nocnts, nodspls, notypes, buf, cnts, dspls, types, &
                     MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'alltoallw in place: ', 4 * nprocs, ' bytes'
  call MPI_Finalize(ierr)
end program inplace_f
