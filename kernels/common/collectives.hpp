// The timed collectives of the kernels. In the ordinary build each is the non-blocking
// call completed as HETSCALE_MPI_WAIT says (mpi_wait.hpp). In the SimGrid build each is
// the blocking call: SMPI's non-blocking collectives are linear (the root sends to every
// rank in turn) and their completion costs the simulator O(ranks^2) work per call, while
// its blocking ones use tree algorithms (chosen by smpi/coll-selector, e.g. ompi) and
// scale to thousands of simulated ranks. Waiting is the same either way in simulated
// time. Every function throws Error naming the MPI call when it fails.
#pragma once

#include <mpi.h>

#include "common/mpi_wait.hpp"

namespace hetscale::kernels {

void barrier(MPI_Comm comm, WaitMode mode);
void broadcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, WaitMode mode);
void scatterv(const void* send, const int* counts, const int* displacements, MPI_Datatype type,
              void* receive, int receive_count, int root, MPI_Comm comm, WaitMode mode);
void gatherv(const void* send, int send_count, MPI_Datatype type, void* receive, const int* counts,
             const int* displacements, int root, MPI_Comm comm, WaitMode mode);
void allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, WaitMode mode);
void alltoallv(const void* send, const int* send_counts, const int* send_displacements,
               void* receive, const int* receive_counts, const int* receive_displacements,
               MPI_Datatype type, MPI_Comm comm, WaitMode mode);

}  // namespace hetscale::kernels
