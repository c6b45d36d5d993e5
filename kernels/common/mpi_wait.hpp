// How a rank waits for a message. `spin` is MPI_Wait: Open MPI busy-polls, the lowest
// latency on a node whose cores are the job's. `sleep` tests, then sleeps between tests:
// on a node whose CPU share is a quota (the testbed's cgroups, containers), a polling
// rank spends the quota while it waits and is then throttled until the next period, so
// every synchronisation costs up to a whole period (docs/kernels.md). The SimGrid build
// accepts both and always waits with MPI_Wait (simulated ranks burn no quota).
#pragma once

#include <mpi.h>

#include <string_view>

namespace hetscale::kernels {

enum class WaitMode { spin, sleep };

/// "spin" or "sleep" (HETSCALE_MPI_WAIT); throws Error naming the variable otherwise.
[[nodiscard]] WaitMode parse_wait_mode(std::string_view text);

/// The mode HETSCALE_MPI_WAIT's value gives (`value` as getenv returns it): spin when the
/// variable is unset or empty, else parse_wait_mode's.
[[nodiscard]] WaitMode wait_mode_from_variable(const char* value);

[[nodiscard]] const char* to_string(WaitMode mode) noexcept;

/// Completes `request` in the given mode; throws Error naming `what` when it fails.
void complete(MPI_Request& request, WaitMode mode, const char* what);

}  // namespace hetscale::kernels
