// MPI check for the testbed: every rank passes its rank to the next one around a ring,
// then all ranks allreduce their ranks. Prints one line per rank,
// "rank=R size=S host=H from=P sum=X", and exits non-zero when a value is wrong.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  int received = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, next, 7, &received, 1, MPI_INT, previous, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::printf("rank=%d size=%d host=%s from=%d sum=%d\n", rank, size, host, received, sum);
  std::fflush(stdout);
  const bool ok = received == previous && sum == size * (size - 1) / 2;
  if (!ok) std::fprintf(stderr, "rank %d: wrong values (from=%d sum=%d)\n", rank, received, sum);
  MPI_Finalize();
  return ok ? 0 : 1;
}
