! perfscope.f90 - Fortran bindings of the perfscope in-process API (include/perfscope.h).
!
! Regions:  call psc_region_begin('solve') ... call psc_region_end('solve')
! Counters: status = psc_counters_start('page-faults,task-clock', set)
!           status = psc_counters_read(set, values, elapsed_ns)
!           status = psc_counters_stop(set)
!
! Statuses are the C return values: >= 0 on success, a negative errno code on failure.
! Link with -lperfscope.
module perfscope
   use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int64_t, c_size_t, c_ptr, &
                                          c_null_ptr, c_null_char, c_associated, c_f_pointer
   implicit none
   private

   public :: PSC_NOT_COUNTED
   public :: psc_region_begin, psc_region_end, psc_region_id
   public :: psc_region_begin_id, psc_region_end_id, psc_flush
   public :: psc_counters_start, psc_counters_read, psc_counters_stop
   public :: psc_counters_count, psc_counters_name, psc_counters_error

   !> Value stored by psc_counters_read for an event this machine cannot count.
   integer(c_int64_t), parameter :: PSC_NOT_COUNTED = -1_c_int64_t

   interface
      subroutine c_region_begin_n(name, len) bind(C, name='psc_region_begin_n')
         import :: c_char, c_int64_t
         implicit none
         character(kind=c_char), dimension(*), intent(in) :: name
         integer(c_int64_t), value :: len
      end subroutine c_region_begin_n

      subroutine c_region_end_n(name, len) bind(C, name='psc_region_end_n')
         import :: c_char, c_int64_t
         implicit none
         character(kind=c_char), dimension(*), intent(in) :: name
         integer(c_int64_t), value :: len
      end subroutine c_region_end_n

      function c_region_id(name) bind(C, name='psc_region_id') result(id)
         import :: c_char, c_int
         implicit none
         character(kind=c_char), dimension(*), intent(in) :: name
         integer(c_int) :: id
      end function c_region_id

      subroutine c_region_begin_id(id) bind(C, name='psc_region_begin_id')
         import :: c_int
         implicit none
         integer(c_int), value :: id
      end subroutine c_region_begin_id

      subroutine c_region_end_id(id) bind(C, name='psc_region_end_id')
         import :: c_int
         implicit none
         integer(c_int), value :: id
      end subroutine c_region_end_id

      function c_flush() bind(C, name='psc_flush') result(status)
         import :: c_int
         implicit none
         integer(c_int) :: status
      end function c_flush

      function c_counters_start(events, set) bind(C, name='psc_counters_start') result(status)
         import :: c_char, c_int, c_ptr
         implicit none
         character(kind=c_char), dimension(*), intent(in) :: events
         type(c_ptr), intent(out) :: set
         integer(c_int) :: status
      end function c_counters_start

      function c_counters_read(set, values, n, elapsed_ns) bind(C, name='psc_counters_read') &
         result(status)
         import :: c_int, c_int64_t, c_ptr
         implicit none
         type(c_ptr), value :: set
         integer(c_int64_t), dimension(*), intent(out) :: values
         integer(c_int), value :: n
         integer(c_int64_t), intent(out) :: elapsed_ns
         integer(c_int) :: status
      end function c_counters_read

      function c_counters_count(set) bind(C, name='psc_counters_count') result(n)
         import :: c_int, c_ptr
         implicit none
         type(c_ptr), value :: set
         integer(c_int) :: n
      end function c_counters_count

      function c_counters_name(set, i) bind(C, name='psc_counters_name') result(name)
         import :: c_int, c_ptr
         implicit none
         type(c_ptr), value :: set
         integer(c_int), value :: i
         type(c_ptr) :: name
      end function c_counters_name

      function c_counters_error(set, i) bind(C, name='psc_counters_error') result(msg)
         import :: c_int, c_ptr
         implicit none
         type(c_ptr), value :: set
         integer(c_int), value :: i
         type(c_ptr) :: msg
      end function c_counters_error

      function c_counters_stop(set) bind(C, name='psc_counters_stop') result(status)
         import :: c_int, c_ptr
         implicit none
         type(c_ptr), value :: set
         integer(c_int) :: status
      end function c_counters_stop

      function c_strlen(s) bind(C, name='strlen') result(n)
         import :: c_ptr, c_size_t
         implicit none
         type(c_ptr), value :: s
         integer(c_size_t) :: n
      end function c_strlen
   end interface

contains

   !> Enter region NAME on the calling thread (the name is passed as is: no copy, no trim).
   subroutine psc_region_begin(name)
      character(len=*), intent(in) :: name
      call c_region_begin_n(name, int(len(name), c_int64_t))
   end subroutine psc_region_begin

   !> Leave region NAME on the calling thread (must match the innermost psc_region_begin).
   subroutine psc_region_end(name)
      character(len=*), intent(in) :: name
      call c_region_end_n(name, int(len(name), c_int64_t))
   end subroutine psc_region_end

   !> Interned id (>= 0) of region trim(NAME), or a negative errno code.
   function psc_region_id(name) result(id)
      character(len=*), intent(in) :: name
      integer(c_int) :: id
      id = c_region_id(trim(name)//c_null_char)
   end function psc_region_id

   !> Enter the region with id ID from psc_region_id (no string work at all).
   subroutine psc_region_begin_id(id)
      integer(c_int), intent(in) :: id
      call c_region_begin_id(id)
   end subroutine psc_region_begin_id

   !> Leave the region with id ID from psc_region_id.
   subroutine psc_region_end_id(id)
      integer(c_int), intent(in) :: id
      call c_region_end_id(id)
   end subroutine psc_region_end_id

   !> Write this thread's buffered records now; returns 0 or a negative errno code.
   function psc_flush() result(status)
      integer(c_int) :: status
      status = c_flush()
   end function psc_flush

   !> Start the comma-separated EVENTS on the calling thread; returns 0 and sets SET, or < 0.
   function psc_counters_start(events, set) result(status)
      character(len=*), intent(in) :: events
      type(c_ptr), intent(out) :: set
      integer(c_int) :: status
      set = c_null_ptr
      status = c_counters_start(trim(events)//c_null_char, set)
   end function psc_counters_start

   !> Read counts since start into VALUES (and elapsed ns); returns the event count or < 0.
   function psc_counters_read(set, values, elapsed_ns) result(status)
      type(c_ptr), intent(in) :: set
      integer(c_int64_t), intent(out) :: values(:)
      integer(c_int64_t), intent(out), optional :: elapsed_ns
      integer(c_int) :: status
      integer(c_int64_t) :: ns
      ns = 0
      status = c_counters_read(set, values, int(size(values), c_int), ns)
      if (present(elapsed_ns)) elapsed_ns = ns
   end function psc_counters_read

   !> Number of events in SET.
   function psc_counters_count(set) result(n)
      type(c_ptr), intent(in) :: set
      integer(c_int) :: n
      n = c_counters_count(set)
   end function psc_counters_count

   !> Name of event I (1-based) of SET as given, or '' when I is out of range.
   function psc_counters_name(set, i) result(name)
      type(c_ptr), intent(in) :: set
      integer, intent(in) :: i
      character(len=:), allocatable :: name
      name = c_string(c_counters_name(set, int(i - 1, c_int)))
   end function psc_counters_name

   !> Why event I (1-based) of SET is not counted, or '' when it is counted.
   function psc_counters_error(set, i) result(msg)
      type(c_ptr), intent(in) :: set
      integer, intent(in) :: i
      character(len=:), allocatable :: msg
      msg = c_string(c_counters_error(set, int(i - 1, c_int)))
   end function psc_counters_error

   !> Stop and free SET (SET becomes null); returns 0 or a negative errno code.
   function psc_counters_stop(set) result(status)
      type(c_ptr), intent(inout) :: set
      integer(c_int) :: status
      status = c_counters_stop(set)
      set = c_null_ptr
   end function psc_counters_stop

   !> Fortran copy of the NUL-terminated C string S ('' when S is NULL).
   function c_string(s) result(str)
      type(c_ptr), intent(in) :: s
      character(len=:), allocatable :: str
      character(kind=c_char), pointer :: chars(:)
      integer :: n, k
      if (.not. c_associated(s)) then
         str = ''
         return
      end if
      n = int(c_strlen(s))
      call c_f_pointer(s, chars, [n])
      allocate (character(len=n) :: str)
      do k = 1, n
         str(k:k) = chars(k)
      end do
   end function c_string

end module perfscope
