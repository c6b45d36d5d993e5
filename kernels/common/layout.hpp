// Where each rank's items lie in a vector collective (counts and displacements in items,
// of any size), and how a message or a collective too big for one MPI call is cut into
// calls that fit: every count and displacement an int, no message above piece_bytes
// (docs/kernels.md, "Messages of any size"). Pure: every rank computes the same plan
// from the same layout, so all ranks make the same calls; the tests check the plans
// without MPI.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hetscale::kernels {

/// The largest message of an all-to-all exchange: 1 GiB. In the twin, SMPI sends an
/// exchange's messages by its own algorithm, and SMPI (SimGrid 3.32) reads a message's
/// size in bytes as an int when it decides whether to copy it before sending, so a
/// message of 2 GiB or more would be copied through real memory instead of staying in the
/// twin's folded buffers. Every other message the twin sends itself (collectives.hpp), and
/// is as large as one MPI call's count allows.
inline constexpr std::size_t exchange_piece_bytes = std::size_t{1} << 30;

/// The largest message SMPI reads the size of as a non-negative int: above it, the twin
/// sends synchronously (collectives.hpp).
inline constexpr std::size_t synchronous_send_bytes = INT_MAX;

struct MessageLimits {
  std::size_t piece_bytes = SIZE_MAX;  // no message is larger (tests lower it)
  std::size_t max_count = INT_MAX;     // the largest count or displacement of one MPI call
  // In the twin, a message above this many bytes is sent synchronously (tests lower it).
  std::size_t synchronous_bytes = synchronous_send_bytes;
};

/// Items one message carries: at most piece_bytes (but at least one item) and max_count.
[[nodiscard]] std::size_t piece_items(std::size_t item_bytes, const MessageLimits& limits);

/// A vector collective's layout, in items: counts[r] items for rank r, starting at
/// displacements[r] of the root's (or the exchanging rank's) buffer.
struct Layout {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displacements;
};

/// counts[i] = rows[i] * items_per_row, displacements their prefix sums; throws Error when
/// the total does not fit std::size_t.
[[nodiscard]] Layout row_layout(const std::vector<std::size_t>& rows, std::size_t items_per_row);

/// One piece of a contiguous message: `count` items from `offset`.
struct Piece {
  std::size_t offset;
  std::size_t count;
};

/// A message of `count` items cut into pieces of piece_items (the last shorter); none
/// when count is 0.
[[nodiscard]] std::vector<Piece> split_message(std::size_t count, std::size_t item_bytes,
                                               const MessageLimits& limits);

/// One call of a split scatterv/gatherv: rank r's piece is counts[r] items at
/// base + displacements[r] of the root's buffer, and at
/// base + displacements[r] - layout.displacements[r] of rank r's own buffer.
struct VectorCall {
  std::size_t base = 0;
  std::vector<int> counts;
  std::vector<int> displacements;
};

/// The calls that move `layout` (rank by rank, in order): each call gives every rank with
/// items left its next piece whose start lies within max_count items of the lowest start
/// left (the call's base). When everything fits: one call with the unsplit counts and
/// displacements (0 for a rank without items).
[[nodiscard]] std::vector<VectorCall> split_vector(const Layout& layout, std::size_t item_bytes,
                                                   const MessageLimits& limits);

/// One call of a split alltoallv, as one rank sees it: what it sends from send_base +
/// send_displacements[s] of its buffer, what it receives at receive_base +
/// receive_displacements[r] of its own.
struct ExchangeCall {
  std::size_t send_base = 0;
  std::vector<int> send_counts, send_displacements;
  std::size_t receive_base = 0;
  std::vector<int> receive_counts, receive_displacements;
};

/// The calls of an alltoallv between `ranks` ranks, for `rank` with layouts `send` (to
/// each rank) and `receive` (from each rank), where no segment of any rank exceeds
/// `largest_segment` items (the same bound on every rank: every rank makes the same
/// number of calls). Its pieces are at most exchange_piece_bytes too. Call k of a round
/// carries piece k of every segment; when a rank's
/// segments span more than max_count items, the ranks are also cut into groups of
/// max_count / largest_segment + 1 and a round becomes one call per (sending group,
/// receiving group). When everything fits: one call with the unsplit counts and
/// displacements (0 for an empty segment).
/// Throws Error when a segment exceeds largest_segment.
[[nodiscard]] std::vector<ExchangeCall> split_exchange(const Layout& send, const Layout& receive, int rank,
                                                       std::size_t largest_segment, std::size_t item_bytes,
                                                       const MessageLimits& limits);

/// Rows of `stride` values in position order, row g owned by rank owners[g], copied into
/// `packed` rank by rank at `layout`'s displacements: what rank 0 scatters.
void pack_rows_by_owner(const double* rows, std::size_t stride, std::span<const int> owners,
                        const Layout& layout, double* packed);

/// The inverse: a gathered `packed` buffer back into position order.
void unpack_rows_by_owner(const double* packed, std::size_t stride, std::span<const int> owners,
                          const Layout& layout, double* rows);

}  // namespace hetscale::kernels
