"""record_python.py M: a small mpi4py program that appends its run record through the Python
helper (jobgen/helpers/hetscale_record.py). Each rank reads its share of the work
(HETSCALE_WEIGHT), sums round(share*M)*M terms; gather_and_write collects every rank's host,
share and times on rank 0, which appends the record of W = 500*M^2."""
import sys

from mpi4py import MPI

import hetscale_record

comm = MPI.COMM_WORLD
m = int(sys.argv[1])
share = hetscale_record.weight(comm.Get_rank(), comm.Get_size())
comm.Barrier()
start = MPI.Wtime()
partial = sum(1.0 / i for i in range(1, round(share * m) * m + 1))
compute = MPI.Wtime() - start
total = comm.allreduce(partial)
wall = MPI.Wtime() - start
run = hetscale_record.Run("heat-py", "500*M^2", "M", m, 500.0 * m * m, wall, verified=total > 0)
hetscale_record.gather_and_write(comm, run, share, compute, wall - compute, wall)
