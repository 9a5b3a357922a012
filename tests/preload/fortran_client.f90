! fortran_client.f90 — a Fortran caller of SGEMM (gfortran, linked to the system BLAS), unmodified,
! run plain and with libtsgemm.so preloaded (preload tier; fault class 18, the Fortran ABI).
!
! TRANSA/TRANSB are passed as 'No transpose', 'Transpose', 'Conjugate transpose', 'n', 't', 'C',
! 'c': only the first character counts (C means T for real data), and gfortran's hidden length
! arguments must not matter. Every pair, three shapes, padded leading dimensions, alpha/beta with
! beta = 0 on a NaN-poisoned C: integer inputs give exact products, compared bit for bit with a
! double-precision reference; padding must stay untouched. With --expect interposed each call
! must move tsgemm's counters by one computed call (pl_fstats.c reads them through dlsym);
! with --expect plain tsgemm must not be in the process. Exit status 0 = all passed.
program fortran_client
  use, intrinsic :: iso_c_binding, only: c_int64_t
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
  implicit none
  interface
    subroutine pl_f_stats(v) bind(c, name='pl_f_stats')
      import :: c_int64_t
      integer(c_int64_t), intent(out) :: v(6)
    end subroutine pl_f_stats
  end interface
  external :: sgemm

  character(len=20), parameter :: names(7) = [character(len=20) :: 'No transpose', &
       'Transpose', 'Conjugate transpose', 'n', 't', 'C', 'c']
  integer, parameter :: shapes(3, 3) = reshape([7, 5, 3, 17, 23, 31, 1, 9, 4], [3, 3])
  real, parameter :: alphas(2) = [1.0, 0.5], betas(2) = [0.0, -1.5]
  integer, parameter :: pad = 2
  character(len=32) :: arg
  logical :: interposed
  integer(c_int64_t) :: s0(6), s1(6)
  integer :: ia, ib, is, iab, m, n, k, lda, ldb, ldc, i, j, l, failures, ncalls
  integer(8) :: seed
  logical :: ta, tb
  real, allocatable :: a(:, :), b(:, :), c(:, :), c0(:, :)
  double precision :: r
  real :: alpha, beta, nan

  call get_command_argument(2, arg)
  interposed = trim(arg) == 'interposed'
  if (trim(arg) /= 'interposed' .and. trim(arg) /= 'plain') then
    print '(a)', 'usage: tsg_fortran_client --expect interposed|plain'
    stop 2
  end if
  call pl_f_stats(s0)
  if (interposed .neqv. (s0(1) == 1)) then
    print '(a,l1,a,i0)', 'FAIL: --expect interposed is ', interposed, ' but tsgemm in process = ', s0(1)
    error stop 1
  end if

  nan = ieee_value(nan, ieee_quiet_nan)
  failures = 0
  ncalls = 0
  seed = 12345_8
  do ia = 1, size(names)
    do ib = 1, size(names)
      do is = 1, 3
        do iab = 1, 2
          m = shapes(1, is); n = shapes(2, is); k = shapes(3, is)
          ta = scan('TtCc', names(ia)(1:1)) > 0
          tb = scan('TtCc', names(ib)(1:1)) > 0
          alpha = alphas(iab); beta = betas(iab)
          if (ta) then
            lda = k + pad; allocate (a(lda, m))
          else
            lda = m + pad; allocate (a(lda, k))
          end if
          if (tb) then
            ldb = n + pad; allocate (b(ldb, k))
          else
            ldb = k + pad; allocate (b(ldb, n))
          end if
          ldc = m + pad
          allocate (c(ldc, n), c0(ldc, n))
          call fill(a); call fill(b); call fill(c)
          if (beta == 0.0) c(1:m, :) = nan
          c0 = c

          call pl_f_stats(s0)
          call sgemm(trim(names(ia)), names(ib), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
          call pl_f_stats(s1)
          ncalls = ncalls + 1

          do j = 1, n
            do i = 1, m
              r = 0d0
              do l = 1, k
                r = r + dble(opa(i, l)) * dble(opb(l, j))
              end do
              r = alpha * r
              if (beta /= 0.0) r = r + dble(beta) * dble(c0(i, j))
              if (ieee_is_nan(c(i, j)) .or. dble(c(i, j)) /= r) then
                failures = failures + 1
                if (failures <= 20) print '(a,a,a,a,a,3i4,a,2i4,a,g0,a,g0)', 'FAIL: transa=', &
                     trim(names(ia)), ' transb=', trim(names(ib)), ' m n k', m, n, k, &
                     ' element', i, j, ' got ', c(i, j), ' want ', r
              end if
            end do
          end do
          ! padding rows of C are never written
          if (any(c(m + 1:, :) /= c0(m + 1:, :))) then
            failures = failures + 1
            print '(a)', 'FAIL: padding of C changed'
          end if
          if (interposed) then
            if (s1(2) - s0(2) /= 1 .or. s1(3) - s0(3) /= 1 .or. s1(5) /= s0(5) .or. &
                s1(6) /= s0(6)) then
              failures = failures + 1
              print '(a,a,a,a,a,4i4)', 'FAIL: transa=', trim(names(ia)), ' transb=', &
                   trim(names(ib)), ': counters moved by (calls, computed, illegal, gpu failures)', &
                   s1(2) - s0(2), s1(3) - s0(3), s1(5) - s0(5), s1(6) - s0(6)
            end if
          end if
          deallocate (a, b, c, c0)
        end do
      end do
    end do
  end do
  print '(i0,a,i0,a)', ncalls, ' SGEMM calls checked, ', failures, ' failures'
  if (interposed) then
    call pl_f_stats(s1)
    print '(a,i0,a,i0,a)', 'tsgemm counters: ', s1(2), ' calls, ', s1(3), ' computed'
  end if
  if (failures > 0) error stop 1

contains

  ! small integers in [-4, 4]: every product and partial sum is exact in single precision
  subroutine fill(x)
    real, intent(out) :: x(:, :)
    integer :: p, q
    do q = 1, size(x, 2)
      do p = 1, size(x, 1)
        seed = mod(seed * 1103515245_8 + 12345_8, 2147483648_8)
        x(p, q) = real(mod(seed / 16_8, 9_8) - 4_8)
      end do
    end do
  end subroutine fill

  real function opa(i, l)
    integer, intent(in) :: i, l
    if (ta) then
      opa = a(l, i)
    else
      opa = a(i, l)
    end if
  end function opa

  real function opb(l, j)
    integer, intent(in) :: l, j
    if (tb) then
      opb = b(j, l)
    else
      opb = b(l, j)
    end if
  end function opb

end program fortran_client
