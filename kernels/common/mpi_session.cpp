#include "common/mpi_session.hpp"

#include <climits>
#include <cstdio>
#include <exception>

#include "hetscale/base/error.hpp"

namespace hetscale::kernels {

MpiSession::MpiSession(int& argc, char**& argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) throw Error("MPI_Init failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void check_mpi(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

bool all_succeed(const MpiSession& mpi, const std::string& program, const std::function<void()>& step) {
  std::string message;
  try {
    step();
  } catch (const std::exception& e) {
    message = e.what();
  }
  const int mine = message.empty() ? INT_MAX : mpi.rank();
  int first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, mpi.comm()), "MPI_Allreduce");
  if (first == mpi.rank()) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
    std::fflush(stderr);
  }
  return first == INT_MAX;
}

}  // namespace hetscale::kernels
