! pagewalk_f.f90 - pagewalk.c from Fortran: touch PAGES fresh pages in region "walk", so the
! region takes exactly PAGES page faults.
!
! The pages come from mmap, not from allocate: allocate uses malloc, which may reuse pages
! already touched (no fault at all) or, for large sizes, map memory that transparent huge
! pages may back (one fault per 2 MiB). A fresh private anonymous mapping with
! MADV_NOHUGEPAGE faults exactly once per page on the first write.
!
! Build: gfortran -O2 -I<dir of perfscope.mod> examples/pagewalk_f.f90 -o pagewalk_f -lperfscope
! Run:   perfscope record -e page-faults -o out -- ./pagewalk_f 10000
program pagewalk_f
   use, intrinsic :: iso_c_binding, only: c_int, c_int8_t, c_long, c_size_t, c_intptr_t, &
                                          c_ptr, c_null_ptr, c_f_pointer
   use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
   use perfscope, only: psc_region_begin, psc_region_end
   implicit none

   ! <sys/mman.h> values on Linux x86_64, aarch64, arm, riscv64, ppc64 and s390x
   ! (MAP_ANONYMOUS differs on mips, alpha, parisc).
   integer(c_int), parameter :: PROT_READ = 1, PROT_WRITE = 2
   integer(c_int), parameter :: MAP_PRIVATE = 2, MAP_ANONYMOUS = 32
   integer(c_int), parameter :: MADV_NOHUGEPAGE = 15
   integer, parameter :: DEFAULT_PAGES = 10000, MAX_PAGES = 2**30

   interface
      function c_mmap(addr, length, prot, flags, fd, offset) bind(C, name='mmap') result(p)
         import :: c_ptr, c_size_t, c_int, c_long
         implicit none
         type(c_ptr), value :: addr
         integer(c_size_t), value :: length
         integer(c_int), value :: prot, flags, fd
         integer(c_long), value :: offset ! off_t: 64 bits on LP64 Linux
         type(c_ptr) :: p
      end function c_mmap

      function c_madvise(addr, length, advice) bind(C, name='madvise') result(rc)
         import :: c_ptr, c_size_t, c_int
         implicit none
         type(c_ptr), value :: addr
         integer(c_size_t), value :: length
         integer(c_int), value :: advice
         integer(c_int) :: rc
      end function c_madvise

      function c_munmap(addr, length) bind(C, name='munmap') result(rc)
         import :: c_ptr, c_size_t, c_int
         implicit none
         type(c_ptr), value :: addr
         integer(c_size_t), value :: length
         integer(c_int) :: rc
      end function c_munmap

      function c_getpagesize() bind(C, name='getpagesize') result(n)
         import :: c_int
         implicit none
         integer(c_int) :: n
      end function c_getpagesize

      subroutine c_exit(status) bind(C, name='exit')
         import :: c_int
         implicit none
         integer(c_int), value :: status
      end subroutine c_exit
   end interface

   integer :: pages, page_size, k, ios, nargs
   integer(c_int) :: rc
   integer(c_size_t) :: length
   character(len=64) :: arg
   type(c_ptr) :: base
   integer(c_int8_t), pointer, volatile :: bytes(:)

   pages = DEFAULT_PAGES
   nargs = command_argument_count()
   if (nargs > 1) call usage()
   if (nargs == 1) then
      call get_command_argument(1, arg)
      read (arg, *, iostat=ios) pages
      if (ios /= 0 .or. verify(trim(arg), '0123456789') /= 0) call usage()
      if (pages < 1 .or. pages > MAX_PAGES) call usage()
   end if

   page_size = int(c_getpagesize())
   length = int(pages, c_size_t)*int(page_size, c_size_t)

   write (output_unit, '(a,i0,a,i0,a)') 'pagewalk_f: ', pages, ' fresh pages of ', page_size, &
      ' bytes (huge pages off), one write per page, in the main thread'
   flush (output_unit)

   base = c_mmap(c_null_ptr, length, ior(PROT_READ, PROT_WRITE), &
                 ior(MAP_PRIVATE, MAP_ANONYMOUS), -1_c_int, 0_c_long)
   if (transfer(base, 0_c_intptr_t) == -1_c_intptr_t) then ! MAP_FAILED
      write (error_unit, '(a,i0,a)') 'pagewalk_f: mmap of ', pages, ' pages failed'
      call c_exit(1_c_int)
   end if
   ! Ignore failure: kernels without THP have nothing to turn off.
   rc = c_madvise(base, length, MADV_NOHUGEPAGE)
   call c_f_pointer(base, bytes, [length])

   call psc_region_begin('walk')
   do k = 0, pages - 1
      bytes(1 + int(k, c_size_t)*int(page_size, c_size_t)) = 1_c_int8_t
   end do
   call psc_region_end('walk')

   nullify (bytes)
   rc = c_munmap(base, length)

   write (output_unit, '(a,i0)') 'expected page faults in region walk: ', pages

contains

   !> Print the usage line on stderr and exit with status 2.
   subroutine usage()
      write (error_unit, '(a)') 'usage: pagewalk_f [PAGES]   (default 10000)'
      call c_exit(2_c_int)
   end subroutine usage

end program pagewalk_f
