#include "common/collectives.hpp"

#include <algorithm>
#include <cstring>

#include "common/engine.hpp"
#include "common/mpi_session.hpp"

namespace hetscale::kernels {

namespace {

// Written once before the ranks communicate (the same value on every rank), read by all.
MessageLimits limits_in_use;

// The kernels' types without an MPI call (each is a simulator call in the twin).
std::size_t item_bytes(MPI_Datatype type) {
  if (type == MPI_DOUBLE) return sizeof(double);
  if (type == MPI_C_DOUBLE_COMPLEX) return 2 * sizeof(double);
  int size = 0;
  check_mpi(MPI_Type_size(type, &size), "MPI_Type_size");
  return static_cast<std::size_t>(size);
}

const char* at(const void* buffer, std::size_t items, std::size_t bytes) {
  return buffer == nullptr ? nullptr : static_cast<const char*>(buffer) + items * bytes;
}
char* at(void* buffer, std::size_t items, std::size_t bytes) {
  return buffer == nullptr ? nullptr : static_cast<char*>(buffer) + items * bytes;
}

// Where a message at `items` of a collective's whole buffer starts (the root's buffer of
// scatterv or gatherv, any rank's of a broadcast): there, or for every message the start
// of a folded buffer, whose contents are never read (root_items, broadcast_items).
const char* folded_message_at(const void* buffer, std::size_t items, std::size_t bytes) {
  return is_folded(buffer) ? static_cast<const char*>(buffer) : at(buffer, items, bytes);
}
char* folded_message_at(void* buffer, std::size_t items, std::size_t bytes) {
  return is_folded(buffer) ? static_cast<char*>(buffer) : at(buffer, items, bytes);
}

int my_rank(MPI_Comm comm) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

// After each collective of the kernels: in the twin, the wait the site's [network] gives
// for it beyond its messages (engine.hpp). Scatterv and gatherv, rooted like a broadcast,
// take the broadcast's; the all-to-all exchange, where every rank waits for every other,
// the barrier's.
void charge_overhead(CollectiveKind kind, MPI_Comm comm) {
  if constexpr (simgrid_build) charge_collective_overhead(kind, comm_size(comm));
}

// Whether SMPI would read the size in bytes of a message of `count` items as a negative
// int (collectives.hpp): 2 GiB or more (the limits' synchronous_bytes). In the SimGrid
// build such a message is sent synchronously.
bool beyond_int_bytes(int count, MPI_Datatype type) {
  return static_cast<std::size_t>(count) * item_bytes(type) > limits_in_use.synchronous_bytes;
}

// A point-to-point send of a kernel's data, non-blocking: synchronous when the twin's SMPI
// would otherwise copy it (beyond_int_bytes).
void start_one_send(const void* buffer, int count, MPI_Datatype type, int destination, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  if (simgrid_build && beyond_int_bytes(count, type))
    check_mpi(MPI_Issend(buffer, count, type, destination, tag, comm, request), "MPI_Issend");
  else
    check_mpi(MPI_Isend(buffer, count, type, destination, tag, comm, request), "MPI_Isend");
}

// One MPI call each, blocking in the SimGrid build, non-blocking and completed as `mode`
// says otherwise.
#ifdef HETSCALE_SIMGRID

void one_barrier(MPI_Comm comm, WaitMode /*mode*/) { check_mpi(MPI_Barrier(comm), "MPI_Barrier"); }

// SMPI's binomial-tree broadcast (bcast__binomial_tree, which smpi/bcast:binomial_tree
// chooses), message by message: each rank receives from its parent, then sends to its
// children, the farthest first; the sends synchronous (a piece of 2 GiB or more).
void binomial_broadcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const int ranks = comm_size(comm);
  const int rank = my_rank(comm);
  const int relative = (rank - root + ranks) % ranks;
  int mask = 1;
  for (; mask < ranks; mask <<= 1) {
    if ((relative & mask) != 0) {
      check_mpi(MPI_Recv(buffer, count, type, (rank - mask + ranks) % ranks, broadcast_tag, comm, MPI_STATUS_IGNORE),
                "MPI_Recv (broadcast)");
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (relative + mask < ranks)
      check_mpi(MPI_Ssend(buffer, count, type, (rank + mask) % ranks, broadcast_tag, comm), "MPI_Ssend (broadcast)");
}

void one_broadcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, WaitMode /*mode*/) {
  if (beyond_int_bytes(count, type)) {
    binomial_broadcast(buffer, count, type, root, comm);
    return;
  }
  check_mpi(MPI_Bcast(buffer, count, type, root, comm), "MPI_Bcast");
}

// Scatterv and gatherv have one algorithm in SMPI, blocking or not: the root's message to
// or from every rank, completed by MPI_Waitall, which SMPI runs as a waitany per request
// over all the requests still pending, O(ranks^2) work of the simulator at the root per
// call (most of lu's simulation on 1024 ranks). The same messages are sent here, each
// rank's in rank order, and completed one by one: the same simulated time for O(ranks)
// work. A rank with nothing in a call sends or receives nothing, as Open MPI's linear
// scatterv and gatherv do (SMPI sends a message of length 0): a large layout is cut into
// many calls that each carry a few ranks' parts (layout.hpp), and the others' empty
// messages, sent at once, piled up at a gatherv's root, whose every receive SMPI matches
// by scanning them (at lu's N = 514,507 on 1024 ranks, most of the simulation's time). The
// root's own part is copied as SMPI copies it, never for a folded buffer.
void local_copy(const void* from, void* to, int count, MPI_Datatype type) {
  if (count == 0 || from == to || is_folded(from) || is_folded(to)) return;
  std::memcpy(to, from, static_cast<std::size_t>(count) * item_bytes(type));
}

void wait_each(std::vector<MPI_Request>& requests, const char* what) {
  for (MPI_Request& request : requests) check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), what);
}

void one_scatterv(const void* send, const int* counts, const int* displacements, MPI_Datatype type,
                  void* receive, int receive_count, int root, int me, MPI_Comm comm, WaitMode /*mode*/) {
  if (me != root) {
    if (receive_count > 0)
      check_mpi(MPI_Recv(receive, receive_count, type, root, collective_tag, comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
    return;
  }
  const int ranks = comm_size(comm);
  const std::size_t bytes = item_bytes(type);
  std::vector<MPI_Request> requests;
  for (int r = 0; r < ranks; ++r) {
    if (r == root || counts[r] == 0) continue;
    const char* from = folded_message_at(send, static_cast<std::size_t>(displacements[r]), bytes);
    start_one_send(from, counts[r], type, r, collective_tag, comm, &requests.emplace_back(MPI_REQUEST_NULL));
  }
  local_copy(folded_message_at(send, static_cast<std::size_t>(displacements[root]), bytes), receive, receive_count,
             type);
  wait_each(requests, "MPI_Wait (scatterv)");
}

void one_gatherv(const void* send, int send_count, MPI_Datatype type, void* receive, const int* counts,
                 const int* displacements, int root, int me, MPI_Comm comm, WaitMode /*mode*/) {
  if (me != root) {
    if (send_count > 0 && beyond_int_bytes(send_count, type))
      check_mpi(MPI_Ssend(send, send_count, type, root, collective_tag, comm), "MPI_Ssend");
    else if (send_count > 0)
      check_mpi(MPI_Send(send, send_count, type, root, collective_tag, comm), "MPI_Send");
    return;
  }
  const int ranks = comm_size(comm);
  const std::size_t bytes = item_bytes(type);
  local_copy(send, folded_message_at(receive, static_cast<std::size_t>(displacements[root]), bytes), send_count,
             type);
  std::vector<MPI_Request> requests;
  for (int r = 0; r < ranks; ++r) {
    if (r == root || counts[r] == 0) continue;
    char* into = folded_message_at(receive, static_cast<std::size_t>(displacements[r]), bytes);
    check_mpi(MPI_Irecv(into, counts[r], type, r, collective_tag, comm, &requests.emplace_back(MPI_REQUEST_NULL)),
              "MPI_Irecv");
  }
  wait_each(requests, "MPI_Wait (gatherv)");
}

void one_allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   WaitMode /*mode*/) {
  check_mpi(MPI_Allreduce(send, receive, count, type, op, comm), "MPI_Allreduce");
}

// SMPI's Open MPI selection takes the pairwise exchange for 3 ranks, 64 to 127 and 256 to
// 1023, as Open MPI does; but SMPI's pairwise pairs ranks by exclusive or and refuses any
// number of ranks that is not a power of two, where Open MPI's pairs them by distance and
// takes any. For those the twin build exchanges as Open MPI's pairwise does: at step s,
// send to rank + s and receive from rank - s (mod ranks).
void one_alltoallv(const void* send, const int* send_counts, const int* send_displacements, void* receive,
                   const int* receive_counts, const int* receive_displacements, MPI_Datatype type,
                   MPI_Comm comm, WaitMode /*mode*/) {
  const int ranks = comm_size(comm);
  if ((ranks & (ranks - 1)) == 0) {
    check_mpi(MPI_Alltoallv(send, send_counts, send_displacements, type, receive, receive_counts,
                            receive_displacements, type, comm),
              "MPI_Alltoallv");
    return;
  }
  const int me = my_rank(comm);
  const std::size_t bytes = item_bytes(type);
  const auto offset = [](const int* displacements, int r) { return static_cast<std::size_t>(displacements[r]); };
  local_copy(at(send, offset(send_displacements, me), bytes), at(receive, offset(receive_displacements, me), bytes),
             send_counts[me], type);
  for (int step = 1; step < ranks; ++step) {
    const int to = (me + step) % ranks;
    const int from = (me - step + ranks) % ranks;
    check_mpi(MPI_Sendrecv(at(send, offset(send_displacements, to), bytes), send_counts[to], type, to,
                           collective_tag, at(receive, offset(receive_displacements, from), bytes),
                           receive_counts[from], type, from, collective_tag, comm, MPI_STATUS_IGNORE),
              "MPI_Sendrecv (alltoallv)");
  }
}

#else

void one_barrier(MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  complete(request, mode, "MPI_Ibarrier");
}

void one_broadcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibcast(buffer, count, type, root, comm, &request), "MPI_Ibcast");
  complete(request, mode, "MPI_Ibcast");
}

void one_scatterv(const void* send, const int* counts, const int* displacements, MPI_Datatype type,
                  void* receive, int receive_count, int root, int /*me*/, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iscatterv(send, counts, displacements, type, receive, receive_count, type, root, comm,
                          &request),
            "MPI_Iscatterv");
  complete(request, mode, "MPI_Iscatterv");
}

void one_gatherv(const void* send, int send_count, MPI_Datatype type, void* receive, const int* counts,
                 const int* displacements, int root, int /*me*/, MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Igatherv(send, send_count, type, receive, counts, displacements, type, root, comm, &request),
            "MPI_Igatherv");
  complete(request, mode, "MPI_Igatherv");
}

void one_allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(send, receive, count, type, op, comm, &request), "MPI_Iallreduce");
  complete(request, mode, "MPI_Iallreduce");
}

void one_alltoallv(const void* send, const int* send_counts, const int* send_displacements, void* receive,
                   const int* receive_counts, const int* receive_displacements, MPI_Datatype type,
                   MPI_Comm comm, WaitMode mode) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Ialltoallv(send, send_counts, send_displacements, type, receive, receive_counts,
                           receive_displacements, type, comm, &request),
            "MPI_Ialltoallv");
  complete(request, mode, "MPI_Ialltoallv");
}

#endif

}  // namespace

void set_message_limits(const MessageLimits& limits) { limits_in_use = limits; }

const MessageLimits& message_limits() { return limits_in_use; }

void barrier(MPI_Comm comm, WaitMode mode) {
  one_barrier(comm, mode);
  charge_overhead(CollectiveKind::barrier, comm);
}

void broadcast(void* buffer, std::size_t count, MPI_Datatype type, int root, MPI_Comm comm, WaitMode mode) {
  const std::size_t bytes = item_bytes(type);
  for (const Piece& piece : split_message(count, bytes, limits_in_use))
    one_broadcast(folded_message_at(buffer, piece.offset, bytes), static_cast<int>(piece.count), type, root, comm,
                  mode);
  charge_overhead(CollectiveKind::broadcast, comm);
}

// Whether `layout` is one call of split_vector: every part ends within one piece of the
// buffer's start. Then only the root needs the call's counts and displacements (MPI reads
// them there alone), and the other ranks skip building them: on a thousand simulated
// ranks, a thousand plans of a thousand ranks per call.
bool one_call(const Layout& layout, std::size_t bytes) {
  const std::size_t step = piece_items(bytes, limits_in_use);
  for (std::size_t r = 0; r < layout.counts.size(); ++r)
    if (layout.displacements[r] > step || layout.counts[r] > step - layout.displacements[r]) return false;
  return true;
}

// In the SimGrid build a rank other than the root receives (or sends) its own part's pieces
// point to point, in order (the pieces split_vector gives it, call after call), without
// the plan of every rank's: on a thousand simulated ranks with parts beyond INT_MAX items
// in all, a plan of hundreds of calls of a thousand ranks each, made by every rank.
bool own_pieces_only(int rank, int root) { return simgrid_build && rank != root; }

void scatterv(const void* send, const Layout& layout, MPI_Datatype type, void* receive, int root,
              MPI_Comm comm, WaitMode mode) {
  const std::size_t bytes = item_bytes(type);
  const int rank = my_rank(comm);
  const auto me = static_cast<std::size_t>(rank);
  if (own_pieces_only(rank, root)) {
    for (const Piece& piece : split_message(layout.counts[me], bytes, limits_in_use))
      one_scatterv(nullptr, nullptr, nullptr, type, at(receive, piece.offset, bytes), static_cast<int>(piece.count),
                   root, rank, comm, mode);
    charge_overhead(CollectiveKind::broadcast, comm);
    return;
  }
  if (rank != root && one_call(layout, bytes)) {
    one_scatterv(nullptr, nullptr, nullptr, type, receive, static_cast<int>(layout.counts[me]), root, rank, comm,
                 mode);
    charge_overhead(CollectiveKind::broadcast, comm);
    return;
  }
  for (const VectorCall& call : split_vector(layout, bytes, limits_in_use)) {
    const std::size_t mine = call.base + static_cast<std::size_t>(call.displacements[me]) - layout.displacements[me];
    one_scatterv(folded_message_at(send, call.base, bytes), call.counts.data(), call.displacements.data(), type,
                 call.counts[me] == 0 ? receive : at(receive, mine, bytes), call.counts[me], root, rank, comm,
                 mode);
  }
  charge_overhead(CollectiveKind::broadcast, comm);
}

void gatherv(const void* send, MPI_Datatype type, void* receive, const Layout& layout, int root,
             MPI_Comm comm, WaitMode mode) {
  const std::size_t bytes = item_bytes(type);
  const int rank = my_rank(comm);
  const auto me = static_cast<std::size_t>(rank);
  if (own_pieces_only(rank, root)) {
    for (const Piece& piece : split_message(layout.counts[me], bytes, limits_in_use))
      one_gatherv(at(send, piece.offset, bytes), static_cast<int>(piece.count), type, nullptr, nullptr, nullptr,
                  root, rank, comm, mode);
    charge_overhead(CollectiveKind::broadcast, comm);
    return;
  }
  if (rank != root && one_call(layout, bytes)) {
    one_gatherv(send, static_cast<int>(layout.counts[me]), type, nullptr, nullptr, nullptr, root, rank, comm,
                mode);
    charge_overhead(CollectiveKind::broadcast, comm);
    return;
  }
  for (const VectorCall& call : split_vector(layout, bytes, limits_in_use)) {
    const std::size_t mine = call.base + static_cast<std::size_t>(call.displacements[me]) - layout.displacements[me];
    one_gatherv(call.counts[me] == 0 ? send : at(send, mine, bytes), call.counts[me], type,
                folded_message_at(receive, call.base, bytes), call.counts.data(), call.displacements.data(), root,
                rank, comm, mode);
  }
  charge_overhead(CollectiveKind::broadcast, comm);
}

std::size_t root_items(const Layout& layout, ComputeMode mode) {
  if (mode == ComputeMode::real)
    return layout.counts.empty() ? 0 : layout.displacements.back() + layout.counts.back();
  return layout.counts.empty() ? 0 : *std::max_element(layout.counts.begin(), layout.counts.end());
}

std::size_t broadcast_items(std::size_t count, ComputeMode mode) {
  return mode == ComputeMode::real ? count : std::min<std::size_t>(count, 1);
}

void allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
               WaitMode mode) {
  one_allreduce(send, receive, count, type, op, comm, mode);
  charge_overhead(CollectiveKind::allreduce, comm);
}

void alltoallv(const void* send, const Layout& send_layout, void* receive, const Layout& receive_layout,
               std::size_t largest_segment, MPI_Datatype type, MPI_Comm comm, WaitMode mode) {
  const std::size_t bytes = item_bytes(type);
  for (const ExchangeCall& call :
       split_exchange(send_layout, receive_layout, my_rank(comm), largest_segment, bytes, limits_in_use)) {
    one_alltoallv(at(send, call.send_base, bytes), call.send_counts.data(), call.send_displacements.data(),
                  at(receive, call.receive_base, bytes), call.receive_counts.data(),
                  call.receive_displacements.data(), type, comm, mode);
  }
  charge_overhead(CollectiveKind::barrier, comm);
}

void start_send(const void* buffer, std::size_t count, MPI_Datatype type, int destination, int tag,
                MPI_Comm comm, std::vector<MPI_Request>& requests) {
  const std::size_t bytes = item_bytes(type);
  for (const Piece& piece : split_message(count, bytes, limits_in_use)) {
    requests.push_back(MPI_REQUEST_NULL);
    start_one_send(at(buffer, piece.offset, bytes), static_cast<int>(piece.count), type, destination, tag, comm,
                   &requests.back());
  }
}

void start_receive(void* buffer, std::size_t count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                   std::vector<MPI_Request>& requests) {
  const std::size_t bytes = item_bytes(type);
  for (const Piece& piece : split_message(count, bytes, limits_in_use)) {
    requests.push_back(MPI_REQUEST_NULL);
    check_mpi(MPI_Irecv(at(buffer, piece.offset, bytes), static_cast<int>(piece.count), type, source, tag, comm,
                        &requests.back()),
              "MPI_Irecv");
  }
}

void complete_all(std::vector<MPI_Request>& requests, WaitMode mode, const char* what) {
  for (MPI_Request& request : requests) complete(request, mode, what);
  requests.clear();
}

}  // namespace hetscale::kernels
