#include "common/collectives.hpp"

#include "common/engine.hpp"
#include "common/mpi_session.hpp"

namespace hetscale::kernels {

#ifdef HETSCALE_SIMGRID

void barrier(MPI_Comm comm, WaitMode /*mode*/) {
  check_mpi(MPI_Barrier(comm), "MPI_Barrier");
}

void broadcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               WaitMode /*mode*/) {
  check_mpi(MPI_Bcast(buffer, count, type, root, comm), "MPI_Bcast");
}

void scatterv(const void* send, const int* counts, const int* displacements, MPI_Datatype type,
              void* receive, int receive_count, int root, MPI_Comm comm, WaitMode /*mode*/) {
  check_mpi(
      MPI_Scatterv(send, counts, displacements, type, receive, receive_count, type, root, comm),
      "MPI_Scatterv");
}

void gatherv(const void* send, int send_count, MPI_Datatype type, void* receive, const int* counts,
             const int* displacements, int root, MPI_Comm comm, WaitMode /*mode*/) {
  check_mpi(MPI_Gatherv(send, send_count, type, receive, counts, displacements, type, root, comm),
            "MPI_Gatherv");
}

void allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, WaitMode /*mode*/) {
  check_mpi(MPI_Allreduce(send, receive, count, type, op, comm), "MPI_Allreduce");
}

void alltoallv(const void* send, const int* send_counts, const int* send_displacements,
               void* receive, const int* receive_counts, const int* receive_displacements,
               MPI_Datatype type, MPI_Comm comm, WaitMode /*mode*/) {
  check_mpi(MPI_Alltoallv(send, send_counts, send_displacements, type, receive, receive_counts,
                          receive_displacements, type, comm),
            "MPI_Alltoallv");
}

#else

void barrier(MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  complete(request, mode, "MPI_Ibarrier");
}

void broadcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibcast(buffer, count, type, root, comm, &request), "MPI_Ibcast");
  complete(request, mode, "MPI_Ibcast");
}

void scatterv(const void* send, const int* counts, const int* displacements, MPI_Datatype type,
              void* receive, int receive_count, int root, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iscatterv(send, counts, displacements, type, receive, receive_count, type, root,
                          comm, &request),
            "MPI_Iscatterv");
  complete(request, mode, "MPI_Iscatterv");
}

void gatherv(const void* send, int send_count, MPI_Datatype type, void* receive, const int* counts,
             const int* displacements, int root, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Igatherv(send, send_count, type, receive, counts, displacements, type, root, comm,
                         &request),
            "MPI_Igatherv");
  complete(request, mode, "MPI_Igatherv");
}

void allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(send, receive, count, type, op, comm, &request), "MPI_Iallreduce");
  complete(request, mode, "MPI_Iallreduce");
}

void alltoallv(const void* send, const int* send_counts, const int* send_displacements,
               void* receive, const int* receive_counts, const int* receive_displacements,
               MPI_Datatype type, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ialltoallv(send, send_counts, send_displacements, type, receive, receive_counts,
                           receive_displacements, type, comm, &request),
            "MPI_Ialltoallv");
  complete(request, mode, "MPI_Ialltoallv");
}

#endif

}  // namespace hetscale::kernels
