! The bulk-synchronous job of halo.cpp in Fortran, for the MPI wrappers' Fortran names
! (causal/mpi/mpi_waits.cpp): per step some work (the last rank twice as much), an
! MPI_Allreduce through `use mpi` (gfortran calls mpi_allreduce_) and an MPI_Barrier
! through `use mpi_f08` (Open MPI's module calls ompi_barrier_f). Arguments: steps, work.
module halo_work
contains
  subroutine work(n, acc)
    integer, intent(in) :: n
    double precision, intent(inout) :: acc
    integer :: i
    do i = 1, n
      acc = acc + sqrt(dble(i) + acc * 1.0d-9)  ! the work line
    end do
  end subroutine work
end module halo_work

subroutine reduce_step(acc, total)
  use mpi
  double precision, intent(in) :: acc
  double precision, intent(out) :: total
  integer :: ierr
  call MPI_Allreduce(acc, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
end subroutine reduce_step

subroutine barrier_step()
  use mpi_f08
  call MPI_Barrier(MPI_COMM_WORLD)
end subroutine barrier_step

program halo_f
  use mpi
  use halo_work
  integer :: ierr, rank, ranks, step, steps, n
  double precision :: acc, total
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  steps = 100
  n = 200000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  if (rank == ranks - 1) n = 2 * n
  acc = 0
  do step = 1, steps
    call work(n, acc)
    call reduce_step(acc, total)
    call barrier_step()
    acc = total * 1.0d-12  ! the step line
  end do
  if (rank == 0) print '(A, I0, A)', 'halo_f: ', steps, ' steps'
  call MPI_Finalize(ierr)
end program halo_f
