! ring_f.f90 - a token ring in Fortran through `use mpi`, for tracing Fortran MPI programs.
!
! Rank 0 sends an integer token to rank 1, every rank k receives it from k-1 and passes it
! on to k+1 (mod N), and rank 0 receives it back from N-1: N messages of 4 bytes per round,
! ROUNDS rounds (first argument, default 3). Then an MPI_Allreduce of the ranks and an
! MPI_Barrier. Open MPI's Fortran bindings call PMPI_* directly, so a C-level PMPI wrapper
! alone would see none of this: the Fortran symbols (mpi_send_ ...) need wrappers of their own.
! Rank 0 prints "ring_f: N ranks, R rounds, token T" and "expected messages: M".
!
! Build: mpifort -g -O2 examples/mpi/ring_f.f90 -o ring_f
! Run:   perfscope record --mpi -o out -- mpirun -np 4 ./ring_f 3
program ring_f
  use mpi
  implicit none
  integer :: ierr, rank, nranks, token, rounds, r, total, stat
  integer :: status(MPI_STATUS_SIZE)
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  rounds = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=stat) rounds
    if (stat /= 0 .or. rounds < 1) then
      if (rank == 0) write (0, '(a)') 'usage: ring_f [ROUNDS]   (at least 1)'
      call MPI_Finalize(ierr)
      stop 2
    end if
  end if
  if (nranks < 2) then
    if (rank == 0) write (0, '(a)') 'usage: ring_f [ROUNDS]   (at least 2 ranks)'
    call MPI_Finalize(ierr)
    stop 2
  end if

  token = 0
  do r = 1, rounds
    if (rank == 0) then
      token = token + 1
      call MPI_Send(token, 1, MPI_INTEGER, 1, r, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, 1, MPI_INTEGER, nranks - 1, r, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(token, 1, MPI_INTEGER, rank - 1, r, MPI_COMM_WORLD, status, ierr)
      token = token + 1
      call MPI_Send(token, 1, MPI_INTEGER, mod(rank + 1, nranks), r, MPI_COMM_WORLD, ierr)
    end if
  end do

  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0)') 'ring_f: ', nranks, ' ranks, ', rounds, ' rounds, token ', token
    write (*, '(a,i0)') 'expected messages: ', nranks * rounds
  end if
  call MPI_Finalize(ierr)
end program ring_f
