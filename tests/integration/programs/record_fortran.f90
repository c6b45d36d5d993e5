! record_fortran M: a small Fortran MPI program that appends its run record through the
! Fortran helper (jobgen/helpers/hetscale_record.f90). Each rank reads its share of the work
! (HETSCALE_WEIGHT), sums round(share*M)*M terms, and rank 0 gathers every rank's host, share
! and times and appends the record of W = 500*M^2.
program record_fortran
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_double
  use, intrinsic :: iso_fortran_env, only: error_unit
  use hetscale_record
  implicit none
  integer :: rank, nranks, m, i, length, status
  character(len=32) :: argument
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_PROCESSOR_NAME), allocatable :: hosts(:)
  real(c_double) :: share, t0, mine(3), partial, total
  real(c_double), allocatable :: shares(:), times(:, :)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call get_command_argument(1, argument)
  read (argument, *) m
  share = hetscale_weight(rank, nranks)

  call MPI_Barrier(MPI_COMM_WORLD)
  t0 = MPI_Wtime()
  partial = 0
  do i = 1, nint(share * m) * m
    partial = partial + 1.0_c_double / i
  end do
  mine(1) = MPI_Wtime() - t0                       ! compute
  call MPI_Allreduce(partial, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  mine(3) = MPI_Wtime() - t0                       ! wall
  mine(2) = mine(3) - mine(1)                      ! communication

  call MPI_Get_processor_name(host, length)
  allocate(hosts(nranks), shares(nranks), times(3, nranks))
  call MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHARACTER, hosts, MPI_MAX_PROCESSOR_NAME, &
                  MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_Gather(share, 1, MPI_DOUBLE_PRECISION, shares, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call MPI_Gather(mine, 3, MPI_DOUBLE_PRECISION, times, 3, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call hetscale_write_record('heat-f', '500*M^2', 'M', real(m, c_double), 500.0_c_double * m * m, &
                               mine(3), total > 0, hosts, shares, times(1, :), times(2, :), &
                               times(3, :), status=status)
    if (status /= 0) then
      write (error_unit, '(a, i0)') 'record_fortran: hetscale_write_record failed: errno ', status
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end if
  call MPI_Finalize()
end program record_fortran
