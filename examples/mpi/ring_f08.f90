! ring_f08.f90 - a ring through the mpi_f08 module, with one known late sender, for tracing
! Fortran 2008 MPI programs.
!
! Open MPI's f08 procedures (MPI_Send_f08 ...) call the library's Fortran internals, never the
! C or mpif.h entry points a program's calls would go through, so only wrappers of the f08
! symbols themselves (mpi_send_f08_ ...) see these calls. Messages are 16 INTEGERs (64 bytes).
! After MPI_Init and a barrier, ROUNDS rounds (first argument, default 3) of:
!   - a token ring with MPI_Send and MPI_Recv: rank 0 sends to rank 1 and receives from N-1,
!     every other rank k receives from k-1 and sends to k+1 (mod N);
!   - MPI_Irecv from k-1, MPI_Isend to k+1, MPI_Waitall on both (MPI_STATUSES_IGNORE);
!   - MPI_Irecv from k-1, MPI_Isend to k+1, MPI_Wait on the receive (a status), then on the
!     send (MPI_STATUS_IGNORE);
!   - MPI_Irecv, MPI_Isend, MPI_Testall on both until they are done (MPI_STATUSES_IGNORE);
!   - MPI_Irecv, MPI_Isend, MPI_Test on the receive (a status) until done, then on the send;
!   - MPI_Irecv, MPI_Isend, MPI_Waitany twice (a status);
!   - MPI_Irecv, MPI_Isend, MPI_Waitsome until both are done (MPI_STATUSES_IGNORE);
!   - the persistent receive from k-1 and send to k+1 (MPI_Recv_init and MPI_Send_init before
!     the rounds, MPI_Request_free of both after them) started with MPI_Start each and
!     completed with MPI_Waitall, then started with MPI_Startall and completed with
!     MPI_Waitall.
! Then an MPI_Barrier, after which rank 1 sleeps SLEEP_MS (second argument, default 40) ms and
! sends one message to rank 0, which already waits for it in MPI_Recv (MPI_STATUS_IGNORE,
! MPI_ANY_SOURCE): rank 0 waits SLEEP_MS for rank 1 (a Late Sender), the ring's messages
! never go from 1 to 0 when N > 2. Last an MPI_Allreduce of one INTEGER with MPI_IN_PLACE, an
! MPI_Bcast of 16 INTEGERs from rank 0 and an MPI_Barrier.
! So per rank: 9 x ROUNDS messages of 64 bytes to k+1, MPI_Send and MPI_Recv ROUNDS times
! each (rank 1 one MPI_Send more, rank 0 one MPI_Recv more), MPI_Isend and MPI_Irecv
! 6 x ROUNDS times, MPI_Waitall 3 x ROUNDS times, MPI_Wait and MPI_Waitany 2 x ROUNDS times,
! MPI_Start 2 x ROUNDS and MPI_Startall ROUNDS times, MPI_Send_init and MPI_Recv_init once,
! MPI_Request_free twice, MPI_Barrier 3 times, MPI_Allreduce and MPI_Bcast once; MPI_Test,
! MPI_Testall and MPI_Waitsome as often as the rank needed, which every rank prints as
! "rank K: MPI_Test T, MPI_Testall A, MPI_Waitsome S".
! Rank 0 prints "ring_f08: N ranks, R rounds, token T", "expected messages: M",
! "expected wait of rank 0 for rank 1: NS ns" and the time it spent in that MPI_Recv by its
! own clock, "measured wait of rank 0 for rank 1: NS ns".
!
! Build: mpifort -g -O2 examples/mpi/ring_f08.f90 -o ring_f08
! Run:   perfscope record --mpi -o out -- mpirun -np 3 ./ring_f08 3 40
program ring_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function usleep(us) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function usleep
  end interface
  integer, parameter :: n = 16
  integer :: rank, nranks, rounds, sleep_ms, r, stat, total, rc, next, prev
  integer :: sbuf(n), rbuf(n), token
  integer :: idx, outcount, idxs(2), done, ntest, ntestall, nwaitsome
  logical :: flag
  type(MPI_Status) :: status
  type(MPI_Request) :: reqs(2), preq(2)
  double precision :: t0, t1
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  rounds = 3
  sleep_ms = 40
  stat = 0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=stat) rounds
  end if
  if (stat == 0 .and. command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *, iostat=stat) sleep_ms
  end if
  if (stat /= 0 .or. rounds < 1 .or. sleep_ms < 0 .or. sleep_ms > 60000 .or. nranks < 3) then
    if (rank == 0) write (0, '(a)') 'usage: ring_f08 [ROUNDS] [SLEEP_MS]   (at least 3 ranks)'
    call MPI_Finalize()
    stop 2
  end if
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)

  call MPI_Barrier(MPI_COMM_WORLD)
  token = 0
  sbuf = rank
  ntest = 0
  ntestall = 0
  nwaitsome = 0
  call MPI_Recv_init(rbuf, n, MPI_INTEGER, prev, 7000, MPI_COMM_WORLD, preq(1))
  call MPI_Send_init(sbuf, n, MPI_INTEGER, next, 7000, MPI_COMM_WORLD, preq(2))
  do r = 1, rounds
    if (rank == 0) then
      token = token + 1
      sbuf(1) = token
      call MPI_Send(sbuf, n, MPI_INTEGER, next, r, MPI_COMM_WORLD)
      call MPI_Recv(rbuf, n, MPI_INTEGER, prev, r, MPI_COMM_WORLD, status)
      token = rbuf(1)
    else
      call MPI_Recv(rbuf, n, MPI_INTEGER, prev, r, MPI_COMM_WORLD, status)
      token = rbuf(1) + 1
      sbuf(1) = token
      call MPI_Send(sbuf, n, MPI_INTEGER, next, r, MPI_COMM_WORLD, ierror=rc)
    end if

    call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 1000 + r, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 1000 + r, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)

    call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 2000 + r, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 2000 + r, MPI_COMM_WORLD, reqs(2))
    call MPI_Wait(reqs(1), status)
    if (status%MPI_SOURCE /= prev) error stop 'MPI_Wait: wrong source'
    ! no ierror argument here: with one, gfortran 12.2's line table gives this call the line
    ! of the second MPI_Waitall below, and its call site would be named there
    call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)

    call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 3000 + r, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 3000 + r, MPI_COMM_WORLD, reqs(2))
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE)
      ntestall = ntestall + 1
    end do

    call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 4000 + r, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 4000 + r, MPI_COMM_WORLD, reqs(2))
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(1), flag, status)
      ntest = ntest + 1
    end do
    if (status%MPI_SOURCE /= prev) error stop 'MPI_Test: wrong source'
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(2), flag, MPI_STATUS_IGNORE)
      ntest = ntest + 1
    end do

    call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 5000 + r, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 5000 + r, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitany(2, reqs, idx, status)
    call MPI_Waitany(2, reqs, idx, status)

    call MPI_Irecv(rbuf, n, MPI_INTEGER, prev, 6000 + r, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sbuf, n, MPI_INTEGER, next, 6000 + r, MPI_COMM_WORLD, reqs(2))
    done = 0
    do while (done < 2)
      call MPI_Waitsome(2, reqs, outcount, idxs, MPI_STATUSES_IGNORE)
      nwaitsome = nwaitsome + 1
      done = done + outcount
    end do

    call MPI_Start(preq(1))
    call MPI_Start(preq(2))
    call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE)
    call MPI_Startall(2, preq)
    call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE)
  end do
  call MPI_Request_free(preq(1))
  call MPI_Request_free(preq(2))

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 1) then
    rc = usleep(int(sleep_ms, c_int) * 1000_c_int)
    call MPI_Send(sbuf, n, MPI_INTEGER, 0, 99, MPI_COMM_WORLD)
  else if (rank == 0) then
    t0 = MPI_Wtime()
    call MPI_Recv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    t1 = MPI_Wtime()
  end if

  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Bcast(sbuf, n, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0)') 'ring_f08: ', nranks, ' ranks, ', rounds, ' rounds, token ', token
    write (*, '(a,i0)') 'expected messages: ', 9 * nranks * rounds + 1
    write (*, '(a,i0,a)') 'expected wait of rank 0 for rank 1: ', int(sleep_ms, 8) * 1000000_8, ' ns'
    write (*, '(a,i0,a)') 'measured wait of rank 0 for rank 1: ', nint((t1 - t0) * 1d9, 8), ' ns'
    if (total /= nranks * (nranks - 1) / 2) error stop 'MPI_Allreduce: wrong sum'
  end if
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'rank ', rank, ': MPI_Test ', ntest, ', MPI_Testall ', &
    ntestall, ', MPI_Waitsome ', nwaitsome
  call MPI_Finalize()
end program ring_f08
