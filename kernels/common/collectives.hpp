// The kernels' messages. Every message of a kernel's data (collective or point to point)
// goes through here, cut as layout.hpp plans: counts and displacements in items of any size (std::size_t),
// each MPI call's counts and displacements ints (a message as large as an int count of
// items allows; an all-to-all exchange's at most 1 GiB), so that problems of any size run
// and, in the twin, every message stays in the folded buffers (docs/kernels.md, "Messages
// of any size"). When a message fits, it is exactly the one call it always was.
//
// In the twin, a message of 2 GiB or more is sent synchronously (MPI_Ssend, MPI_Issend):
// SMPI (SimGrid 3.32) decides whether a send is eager (detached: copied into a buffer of
// its own so that the sender goes on) by reading the message's size in bytes as an int
// against smpi/send-is-detached-thresh (64 KiB); such a size reads negative, and the
// message would be copied through real memory. Every message above the threshold is
// synchronous in SMPI anyway: the simulated time is the same, and nothing is copied. A
// broadcast of such pieces is the binomial tree SMPI runs (smpi/bcast:binomial_tree),
// sent by the kernel itself with those sends.
//
// In the twin, each collective is followed by the wait its overhead in the site's [network]
// gives (engine.hpp, charge_collective_overhead; none by default).
//
// In the ordinary build each collective is the non-blocking call completed as
// HETSCALE_MPI_WAIT says (mpi_wait.hpp). In the SimGrid build each is the blocking call:
// SMPI's non-blocking collectives are linear (the root sends to every rank in turn) and
// their completion costs the simulator O(ranks^2) work per call, while its blocking ones
// use tree algorithms (chosen by smpi/coll-selector, e.g. ompi) and scale to thousands of
// simulated ranks. Waiting is the same either way in simulated time. Scatterv and gatherv,
// whose only algorithm in SMPI is linear and completed in O(ranks^2), are the same linear
// messages sent point to point on collective_tag and completed one by one. Every function
// throws Error naming the MPI call when it fails. The types are basic types (size = extent).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "common/engine.hpp"
#include "common/layout.hpp"
#include "common/mpi_wait.hpp"

namespace hetscale::kernels {

/// The tag of the SimGrid build's scatterv and gatherv messages: a kernel's own point to
/// point messages take tags below it (the smallest upper bound MPI promises is 32767).
inline constexpr int collective_tag = 32767;
/// The tag of the SimGrid build's broadcasts of pieces of 2 GiB or more.
inline constexpr int broadcast_tag = collective_tag - 1;
inline constexpr int kernel_tags = broadcast_tag;

/// Once, before the run, the same on every rank (--message-piece-bytes and
/// --mpi-count-limit shrink them for tests); the defaults otherwise.
void set_message_limits(const MessageLimits& limits);
[[nodiscard]] const MessageLimits& message_limits();

void barrier(MPI_Comm comm, WaitMode mode);
/// `count` items of the root's `buffer` into every rank's, in pieces. A folded buffer (a
/// charged run, engine.hpp) is where every piece starts: its contents are never read nor
/// written, so it need hold no piece (broadcast_items).
void broadcast(void* buffer, std::size_t count, MPI_Datatype type, int root, MPI_Comm comm, WaitMode mode);
/// The items of a buffer that only broadcast() moves `count` items of (mm's B): all of
/// them when computing; when charging, one. SMPI reads and writes no byte of a folded
/// buffer (it copies nothing from or into one) and checks no message against its size, so
/// every piece starts at the buffer's start and reaches past its end: mm's B of 3.6 TB at
/// N = 671,957, broadcast in pieces of 16 GiB, adds nothing to the folded region the
/// ranks' own rows already need.
[[nodiscard]] std::size_t broadcast_items(std::size_t count, ComputeMode mode);
/// Rank r receives layout.counts[r] items of the root's `send` at layout.displacements[r].
/// A folded buffer at the root (a charged run, engine.hpp) is where every message from or
/// to it starts: its contents are never read, so it need only hold the largest part
/// (root_items).
void scatterv(const void* send, const Layout& layout, MPI_Datatype type, void* receive, int root,
              MPI_Comm comm, WaitMode mode);
/// The inverse: rank r's layout.counts[r] items land at layout.displacements[r] of the root's `receive`.
void gatherv(const void* send, MPI_Datatype type, void* receive, const Layout& layout, int root,
             MPI_Comm comm, WaitMode mode);
/// The items of the root's buffer of scatterv or gatherv over `layout`: all of them when
/// computing; when charging, the largest part alone. A charged root's whole matrix then
/// adds nothing to the one folded region, which stays as large as the largest buffer a
/// rank holds: lu at N = 514,507 on 1,024 ranks maps 2.3 GB, not the matrix's 2.1 TB,
/// whose every page SMPI maps (and Linux populates) when the buffer is made.
[[nodiscard]] std::size_t root_items(const Layout& layout, ComputeMode mode);
/// Small: one call.
void allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, WaitMode mode);
/// `largest_segment` bounds every segment of every rank (the same on every rank).
void alltoallv(const void* send, const Layout& send_layout, void* receive, const Layout& receive_layout,
               std::size_t largest_segment, MPI_Datatype type, MPI_Comm comm, WaitMode mode);

/// Point to point: the message's pieces posted in order (MPI keeps them in order between
/// two ranks on one tag), their requests appended to `requests`.
void start_send(const void* buffer, std::size_t count, MPI_Datatype type, int destination, int tag,
                MPI_Comm comm, std::vector<MPI_Request>& requests);
void start_receive(void* buffer, std::size_t count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                   std::vector<MPI_Request>& requests);
/// Completes every request (mpi_wait.hpp) and empties `requests`.
void complete_all(std::vector<MPI_Request>& requests, WaitMode mode, const char* what);

}  // namespace hetscale::kernels
