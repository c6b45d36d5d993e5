! hetscale_record.f90: write a hetscale run record (docs/run-record.md) from your own Fortran
! MPI program. ISO_C_BINDING over libhetscale_record (hetscale_record_shim.h), which is the C
! helper hetscale_record.h compiled: the record's format lives there alone. No MPI dependency:
! gather the ranks' figures on rank 0 yourself (MPI_Gather). Worked example:
! docs/experiment-spec.md.
!
!   use hetscale_record
!   share = hetscale_weight(rank, nranks)     ! HETSCALE_WEIGHT, else 1/nranks
!   ... run, time it, gather every rank's host, weight and timings on rank 0 ...
!   if (rank == 0) call hetscale_write_record('heat', '500*M^2', 'M', real(m, c_double), &
!                         500d0 * m * m, wall, .true., hosts, weights, compute, comm, walls, &
!                         status=ierr)
!
! Compile the module with your program and link the library:
!   mpif90 -o heat <prefix>/include/hetscale/hetscale_record.f90 heat.f90 -lhetscale_record
module hetscale_record
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_int, c_null_char
  implicit none
  private
  public :: hetscale_weight, hetscale_write_record

  interface
    function c_weight(rank, size) bind(C, name='hetscale_record_weight') result(weight)
      import :: c_double, c_int
      integer(c_int), value :: rank, size
      real(c_double) :: weight
    end function c_weight

    function c_append(code, workload, parameter, parameter_value, work, wall_seconds, verified, &
                      start_time, end_time, count, hosts, host_length, weights, marked_speeds, &
                      compute_seconds, communication_seconds, rank_wall_seconds) &
        bind(C, name='hetscale_record_append') result(status)
      import :: c_char, c_double, c_int
      character(kind=c_char), dimension(*), intent(in) :: code, workload, parameter, start_time, &
                                                          end_time, hosts
      real(c_double), value :: parameter_value, work, wall_seconds
      integer(c_int), value :: verified, count, host_length
      real(c_double), dimension(*), intent(in) :: weights, marked_speeds, compute_seconds, &
                                                  communication_seconds, rank_wall_seconds
      integer(c_int) :: status
    end function c_append
  end interface

contains

  !> This rank's share of the work: HETSCALE_WEIGHT when the SPANK plugin set it, else 1/nranks.
  function hetscale_weight(rank, nranks) result(weight)
    integer, intent(in) :: rank, nranks
    real(c_double) :: weight
    weight = c_weight(int(rank, c_int), int(nranks, c_int))
  end function hetscale_weight

  !> Appends one record to $HETSCALE_RECORD (nothing outside a study, when it is unset). Rank i
  !> is element i of hosts, weights and the three timings (all of one size, the number of ranks);
  !> marked_speeds are 0 when absent; start_time and end_time are ISO 8601 UTC. status is 0 or
  !> the errno value of the failure (EINVAL, 22 on Linux, for a missing field, arrays of
  !> different sizes or a number that is not finite, a rank's too); without status a failure is
  !> reported on stderr.
  subroutine hetscale_write_record(code, workload, parameter, parameter_value, work, wall_seconds, &
                                   verified, hosts, weights, compute_seconds, communication_seconds, &
                                   rank_wall_seconds, marked_speeds, start_time, end_time, status)
    use, intrinsic :: iso_fortran_env, only: error_unit
    character(len=*), intent(in) :: code, workload, parameter
    real(c_double), intent(in) :: parameter_value, work, wall_seconds
    logical, intent(in) :: verified
    character(len=*), intent(in) :: hosts(:)
    real(c_double), intent(in) :: weights(:), compute_seconds(:), communication_seconds(:), &
                                  rank_wall_seconds(:)
    real(c_double), intent(in), optional :: marked_speeds(:)
    character(len=*), intent(in), optional :: start_time, end_time
    integer, intent(out), optional :: status
    real(c_double), allocatable :: speeds(:)
    character(len=:), allocatable :: start, finish
    integer :: count
    integer(c_int) :: result

    count = size(hosts)
    if (present(marked_speeds)) then
      allocate(speeds, source=marked_speeds)
    else
      allocate(speeds(count), source=0.0_c_double)
    end if
    ! Arrays of different sizes: count 0, which the C helper refuses (EINVAL) inside a study.
    if (size(weights) /= count .or. size(compute_seconds) /= count .or. &
        size(communication_seconds) /= count .or. size(rank_wall_seconds) /= count .or. &
        size(speeds) /= count .or. len(hosts) == 0) count = 0
    start = c_null_char
    if (present(start_time)) start = trim(start_time) // c_null_char
    finish = c_null_char
    if (present(end_time)) finish = trim(end_time) // c_null_char
    result = c_append(trim(code) // c_null_char, trim(workload) // c_null_char, &
                      trim(parameter) // c_null_char, parameter_value, work, wall_seconds, &
                      merge(1_c_int, 0_c_int, verified), start, finish, int(count, c_int), &
                      hosts, int(max(len(hosts), 1), c_int), weights, speeds, compute_seconds, &
                      communication_seconds, rank_wall_seconds)
    if (present(status)) then
      status = int(result)
    else if (result /= 0) then
      write (error_unit, '(a, i0)') 'hetscale: cannot write the run record: errno ', result
    end if
  end subroutine hetscale_write_record

end module hetscale_record
