#include "common/layout.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale::kernels {

std::size_t piece_items(std::size_t item_bytes, const MessageLimits& limits) {
  const std::size_t fit = item_bytes == 0 ? limits.max_count : limits.piece_bytes / item_bytes;
  return std::max<std::size_t>(1, std::min(fit, limits.max_count));
}

Layout row_layout(const std::vector<std::size_t>& rows, std::size_t items_per_row) {
  Layout layout;
  std::size_t offset = 0;
  for (std::size_t r : rows) {
    const std::size_t count = r * items_per_row;
    if ((items_per_row != 0 && count / items_per_row != r) ||
        offset > std::numeric_limits<std::size_t>::max() - count) {
      throw Error("problem too large: " + std::to_string(r) + " rows of " + std::to_string(items_per_row) +
                  " items overflow the address space");
    }
    layout.counts.push_back(count);
    layout.displacements.push_back(offset);
    offset += count;
  }
  return layout;
}

std::vector<Piece> split_message(std::size_t count, std::size_t item_bytes, const MessageLimits& limits) {
  const std::size_t step = piece_items(item_bytes, limits);
  std::vector<Piece> pieces;
  for (std::size_t at = 0; at < count; at += std::min(step, count - at))
    pieces.push_back({at, std::min(step, count - at)});
  return pieces;
}

namespace {

int to_int(std::size_t value, const MessageLimits& limits) {
  if (value > limits.max_count || value > static_cast<std::size_t>(INT_MAX))
    throw Error("internal: a split call's count or displacement " + std::to_string(value) +
                " exceeds the limit " + std::to_string(limits.max_count));
  return static_cast<int>(value);
}

}  // namespace

std::vector<VectorCall> split_vector(const Layout& layout, std::size_t item_bytes, const MessageLimits& limits) {
  const std::size_t ranks = layout.counts.size();
  const std::size_t step = piece_items(item_bytes, limits);
  std::vector<std::size_t> done(ranks, 0);
  std::vector<VectorCall> calls;
  for (;;) {
    bool left = false;
    std::size_t base = std::numeric_limits<std::size_t>::max();
    for (std::size_t r = 0; r < ranks; ++r) {
      if (done[r] < layout.counts[r]) {
        left = true;
        base = std::min(base, layout.displacements[r] + done[r]);
      }
    }
    if (!left) break;
    VectorCall call{base, std::vector<int>(ranks, 0), std::vector<int>(ranks, 0)};
    for (std::size_t r = 0; r < ranks; ++r) {
      if (done[r] == layout.counts[r]) continue;
      const std::size_t start = layout.displacements[r] + done[r];
      if (start - base > limits.max_count) continue;  // a later call, from a higher base
      const std::size_t count = std::min(step, layout.counts[r] - done[r]);
      call.counts[r] = to_int(count, limits);
      call.displacements[r] = to_int(start - base, limits);
      done[r] += count;
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

std::vector<ExchangeCall> split_exchange(const Layout& send, const Layout& receive, int rank,
                                         std::size_t largest_segment, std::size_t item_bytes,
                                         const MessageLimits& limits) {
  const std::size_t ranks = send.counts.size();
  for (const Layout* layout : {&send, &receive}) {
    for (std::size_t count : layout->counts) {
      if (count > largest_segment)
        throw Error("internal: an alltoallv segment of " + std::to_string(count) + " items exceeds the bound " +
                    std::to_string(largest_segment));
    }
  }
  std::vector<ExchangeCall> calls;
  if (largest_segment == 0 || ranks == 0) return calls;
  MessageLimits exchange = limits;
  exchange.piece_bytes = std::min(limits.piece_bytes, exchange_piece_bytes);
  const std::size_t step = piece_items(item_bytes, exchange);
  const std::size_t rounds = (largest_segment + step - 1) / step;
  const std::size_t group = std::min(ranks, limits.max_count / largest_segment + 1);
  const std::size_t groups = (ranks + group - 1) / group;
  const auto me = static_cast<std::size_t>(rank);
  // Piece k of the segments of ranks [first, last) of `layout`, relative to their lowest start.
  auto pieces = [&](const Layout& layout, std::size_t k, std::size_t first, std::size_t last, std::size_t& base,
                    std::vector<int>& counts, std::vector<int>& displacements) {
    counts.assign(ranks, 0);
    displacements.assign(ranks, 0);
    base = 0;
    bool any = false;
    for (std::size_t r = first; r < last; ++r) {
      if (layout.counts[r] <= k * step) continue;
      if (!any || layout.displacements[r] + k * step < base) base = layout.displacements[r] + k * step;
      any = true;
    }
    for (std::size_t r = first; r < last; ++r) {
      if (layout.counts[r] <= k * step) continue;
      counts[r] = to_int(std::min(step, layout.counts[r] - k * step), limits);
      displacements[r] = to_int(layout.displacements[r] + k * step - base, limits);
    }
  };
  for (std::size_t k = 0; k < rounds; ++k) {
    for (std::size_t a = 0; a < groups; ++a) {      // the sending group
      for (std::size_t b = 0; b < groups; ++b) {    // the receiving group
        ExchangeCall call;
        const bool sends = me / group == a;
        const bool receives = me / group == b;
        pieces(send, k, b * group, sends ? std::min(ranks, (b + 1) * group) : b * group, call.send_base,
               call.send_counts, call.send_displacements);
        pieces(receive, k, a * group, receives ? std::min(ranks, (a + 1) * group) : a * group, call.receive_base,
               call.receive_counts, call.receive_displacements);
        calls.push_back(std::move(call));
      }
    }
  }
  return calls;
}

void pack_rows_by_owner(const double* rows, std::size_t stride, std::span<const int> owners,
                        const Layout& layout, double* packed) {
  std::vector<std::size_t> next(layout.displacements.begin(), layout.displacements.end());
  for (std::size_t g = 0; g < owners.size(); ++g) {
    std::size_t& at = next[static_cast<std::size_t>(owners[g])];
    std::copy_n(rows + g * stride, stride, packed + at);
    at += stride;
  }
}

void unpack_rows_by_owner(const double* packed, std::size_t stride, std::span<const int> owners,
                          const Layout& layout, double* rows) {
  std::vector<std::size_t> next(layout.displacements.begin(), layout.displacements.end());
  for (std::size_t g = 0; g < owners.size(); ++g) {
    std::size_t& at = next[static_cast<std::size_t>(owners[g])];
    std::copy_n(packed + at, stride, rows + g * stride);
    at += stride;
  }
}

}  // namespace hetscale::kernels
