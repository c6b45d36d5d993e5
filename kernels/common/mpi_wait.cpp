#include "common/mpi_wait.hpp"

#include <time.h>

#include <algorithm>
#include <string>

#include "common/engine.hpp"
#include "common/mpi_session.hpp"
#include "hetscale/base/error.hpp"

namespace hetscale::kernels {

WaitMode parse_wait_mode(std::string_view text) {
  if (text == "spin") return WaitMode::spin;
  if (text == "sleep") return WaitMode::sleep;
  throw Error("HETSCALE_MPI_WAIT: expected spin or sleep, not '" + std::string(text) + "'");
}

WaitMode wait_mode_from_variable(const char* value) {
  return value == nullptr || *value == '\0' ? WaitMode::spin : parse_wait_mode(value);
}

const char* to_string(WaitMode mode) noexcept { return mode == WaitMode::spin ? "spin" : "sleep"; }

void complete(MPI_Request& request, WaitMode mode, const char* what) {
  // Under SMPI a waiting rank spends no CPU quota, and every MPI_Test would add simulated
  // time (smpi/test) and simulation work: the SimGrid build waits with MPI_Wait in both modes.
  if (mode == WaitMode::spin || simgrid_build) {
    check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), what);
    return;
  }
  // A few tests first (a message already on its way costs no sleep), then pauses that
  // double from 5 us to 200 us: short against a pivot step, long against a poll.
  constexpr long first_pause_ns = 5'000;
  constexpr long longest_pause_ns = 200'000;
  long pause_ns = first_pause_ns;
  for (int tests = 0;; ++tests) {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done != 0) return;
    if (tests < 16) continue;
    const timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min(2 * pause_ns, longest_pause_ns);
  }
}

}  // namespace hetscale::kernels
