! calls_mpi_f.f90 - the Fortran twin of calls_mpi.c (a subset), for test_mpi_record.sh: the
! Fortran bindings (use mpi) must be traced like C. Run with an even number of ranks:
!   even ranks Send 2 messages (tag 10, 8 and 16 bytes) to r+1, odd ranks Recv them with
!   MPI_ANY_SOURCE and MPI_STATUS_IGNORE; Irecv from the left + Isend to the right (tag 20,
!   16 bytes), Waitall with MPI_STATUSES_IGNORE; Bcast of 4 integers from rank 0; Allreduce;
!   Barrier; Comm_split by r % 2 with an Allreduce on it and Comm_free; Send_init/Recv_init
!   (tag 50, 8 bytes) started and waited twice, then Request_free.
program calls_mpi_f
  use mpi
  implicit none
  integer :: ierr, rank, nranks, left, right, k, half, n, one
  integer :: reqs(2), preq
  integer :: v(4)
  character(len=64) :: buf, rbuf, rbuf2

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (mod(nranks, 2) /= 0) then
    if (rank == 0) write (0, '(a)') 'calls_mpi_f: needs an even number of ranks'
    call MPI_Finalize(ierr)
    stop 2
  end if
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  buf = repeat('x', 64)

  do k = 1, 2
    if (mod(rank, 2) == 0) then
      call MPI_Send(buf, 8 * k, MPI_BYTE, rank + 1, 10, MPI_COMM_WORLD, ierr)
    else
      call MPI_Recv(rbuf, 64, MPI_BYTE, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
    end if
  end do

  call MPI_Irecv(rbuf2, 64, MPI_BYTE, left, 20, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(buf, 16, MPI_BYTE, right, 20, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)

  v = (/ rank, 1, 2, 3 /)
  call MPI_Bcast(v, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  one = 1
  call MPI_Allreduce(one, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Allreduce(one, n, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  call MPI_Comm_free(half, ierr)

  if (mod(rank, 2) == 0) then
    call MPI_Send_init(buf, 8, MPI_BYTE, rank + 1, 50, MPI_COMM_WORLD, preq, ierr)
  else
    call MPI_Recv_init(rbuf, 64, MPI_BYTE, rank - 1, 50, MPI_COMM_WORLD, preq, ierr)
  end if
  do k = 1, 2
    call MPI_Start(preq, ierr)
    call MPI_Wait(preq, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Request_free(preq, ierr)

  call MPI_Finalize(ierr)
end program calls_mpi_f
