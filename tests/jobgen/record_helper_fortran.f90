! The Fortran record helper (jobgen/helpers/hetscale_record.f90) without MPI: a rank's figure
! that is not finite gives status EINVAL and writes nothing; finite figures write one line.
! Run by CTest (jobgen.record_helper_fortran) with HETSCALE_RECORD naming a file of its own.
program record_helper_fortran
  use, intrinsic :: iso_c_binding, only: c_double
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_positive_inf, ieee_quiet_nan
  use hetscale_record
  implicit none
  integer, parameter :: einval = 22
  character(len=4), parameter :: hosts(2) = ['n1  ', 'n2  ']
  character(len=4096) :: file
  character(len=1) :: line
  real(c_double) :: inf, nan
  integer :: status, unit, lines, io

  call get_environment_variable('HETSCALE_RECORD', file)
  open (newunit=unit, file=trim(file), status='replace')
  close (unit, status='delete')
  inf = ieee_value(inf, ieee_positive_inf)
  nan = ieee_value(nan, ieee_quiet_nan)

  call hetscale_write_record('heat', '500*M^2', 'M', 1000.0_c_double, 5e8_c_double, 2.5_c_double, .true., &
                             hosts, [0.5_c_double, 0.5_c_double], [1.0_c_double, inf], &
                             [0.0_c_double, 0.0_c_double], [1.0_c_double, 1.0_c_double], status=status)
  if (status /= einval) error stop 'an infinite compute time was not refused'
  call hetscale_write_record('heat', '500*M^2', 'M', 1000.0_c_double, 5e8_c_double, 2.5_c_double, .true., &
                             hosts, [0.5_c_double, nan], [1.0_c_double, 1.0_c_double], &
                             [0.0_c_double, 0.0_c_double], [1.0_c_double, 1.0_c_double], status=status)
  if (status /= einval) error stop 'a NaN weight was not refused'
  call hetscale_write_record('heat', '500*M^2', 'M', 1000.0_c_double, 5e8_c_double, 2.5_c_double, .true., &
                             hosts, [0.5_c_double, 0.5_c_double], [1.0_c_double, 1.0_c_double], &
                             [0.0_c_double, 0.0_c_double], [1.0_c_double, 1.0_c_double], &
                             marked_speeds=[1.0_c_double, -inf], status=status)
  if (status /= einval) error stop 'an infinite marked speed was not refused'
  call hetscale_write_record('heat', '500*M^2', 'M', 1000.0_c_double, 5e8_c_double, 2.5_c_double, .true., &
                             hosts, [0.5_c_double, 0.5_c_double], [1.0_c_double, 1.0_c_double], &
                             [0.0_c_double, 0.0_c_double], [1.0_c_double, 1.0_c_double], status=status)
  if (status /= 0) error stop 'finite figures were refused'

  lines = 0
  open (newunit=unit, file=trim(file), status='old', action='read')
  do
    read (unit, '(a)', iostat=io) line
    if (io /= 0) exit
    lines = lines + 1
  end do
  close (unit, status='delete')
  if (lines /= 1) error stop 'expected exactly the one record of finite figures'
end program record_helper_fortran
