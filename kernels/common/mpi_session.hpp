// MPI_Init / MPI_Finalize with one owner, and the checks every kernel needs around
// collective error handling.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace hetscale::kernels {

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession();

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] MPI_Comm comm() const noexcept { return MPI_COMM_WORLD; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

/// Throws Error unless an MPI call returned MPI_SUCCESS (errors return instead of abort:
/// MPI_ERRORS_RETURN is set on MPI_COMM_WORLD).
void check_mpi(int code, const char* what);

/// Runs `step` on every rank and agrees on the outcome: when it throws on any rank, the
/// lowest such rank prints "<program>: error: <message>" and every rank returns false.
/// For steps without communication whose failure is a user error (arguments, env).
[[nodiscard]] bool all_succeed(const MpiSession& mpi, const std::string& program,
                               const std::function<void()>& step);

}  // namespace hetscale::kernels
