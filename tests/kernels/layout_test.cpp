// The plans that cut messages and collectives into MPI calls that fit (kernels/common/layout.hpp),
// checked by moving every item through them, with small limits injected.
#include "common/layout.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale::kernels {
namespace {

// Every item of every rank's segment moves exactly once, in order, through calls whose
// counts and displacements respect the limits.
void expect_vector_plan_moves_everything(const Layout& layout, std::size_t item_bytes, const MessageLimits& limits,
                                         std::size_t expected_calls) {
  const std::vector<VectorCall> calls = split_vector(layout, item_bytes, limits);
  EXPECT_EQ(calls.size(), expected_calls);
  const std::size_t step = piece_items(item_bytes, limits);
  std::vector<std::size_t> moved(layout.counts.size(), 0);
  for (const VectorCall& call : calls) {
    ASSERT_EQ(call.counts.size(), layout.counts.size());
    for (std::size_t r = 0; r < layout.counts.size(); ++r) {
      const auto count = static_cast<std::size_t>(call.counts[r]);
      if (count == 0) continue;
      EXPECT_LE(count, step);
      EXPECT_LE(count * item_bytes, std::max(limits.piece_bytes, item_bytes));
      EXPECT_LE(static_cast<std::size_t>(call.displacements[r]), limits.max_count);
      // The piece is the next one of rank r's segment: in the root's buffer and in its own.
      EXPECT_EQ(call.base + static_cast<std::size_t>(call.displacements[r]), layout.displacements[r] + moved[r]);
      moved[r] += count;
    }
  }
  EXPECT_EQ(moved, layout.counts);
}

TEST(Layout, RowLayoutCountsAndDisplacementsInItemsOfAnySize) {
  const Layout layout = row_layout({3, 0, 2}, 5);
  EXPECT_EQ(layout.counts, (std::vector<std::size_t>{15, 0, 10}));
  EXPECT_EQ(layout.displacements, (std::vector<std::size_t>{0, 15, 15}));
  // N = 50,000 on 2 ranks: 1.25e9 doubles each, beyond int, fine in items.
  const Layout big = row_layout({25'000, 25'000}, 50'000);
  EXPECT_EQ(big.counts[1], 1'250'000'000u);
  EXPECT_EQ(big.displacements[1], 1'250'000'000u);
  EXPECT_THROW((void)row_layout({std::size_t{1} << 40, 1}, std::size_t{1} << 30), Error);
}

TEST(Layout, PieceItemsFromTheByteLimitAndTheCountLimit) {
  EXPECT_EQ(piece_items(8, {}), static_cast<std::size_t>(INT_MAX));  // as many as one call's count allows
  EXPECT_EQ(piece_items(16, {}), static_cast<std::size_t>(INT_MAX));
  EXPECT_EQ(piece_items(8, {24, INT_MAX}), 3u);
  EXPECT_EQ(piece_items(8, {31, INT_MAX}), 3u);  // never above the byte limit
  EXPECT_EQ(piece_items(8, {4, INT_MAX}), 1u);   // at least one item
  EXPECT_EQ(piece_items(1, {std::size_t{1} << 30, 1000}), 1000u);  // never above the count limit
}

TEST(Layout, MessagesInPiecesAtAndAroundTheLimit) {
  const MessageLimits limits{80, INT_MAX};  // 10 doubles
  EXPECT_TRUE(split_message(0, 8, limits).empty());
  ASSERT_EQ(split_message(9, 8, limits).size(), 1u);
  ASSERT_EQ(split_message(10, 8, limits).size(), 1u);  // exactly the limit: one piece
  const std::vector<Piece> eleven = split_message(11, 8, limits);
  ASSERT_EQ(eleven.size(), 2u);
  EXPECT_EQ(eleven[0].offset, 0u);
  EXPECT_EQ(eleven[0].count, 10u);
  EXPECT_EQ(eleven[1].offset, 10u);
  EXPECT_EQ(eleven[1].count, 1u);
  EXPECT_EQ(split_message(30, 8, limits).size(), 3u);
  // The default: B of mm at N = 50,000 (2.5e9 doubles, 20 GB) in pieces as large as an int
  // count allows.
  const std::vector<Piece> b = split_message(2'500'000'000, 8, {});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].count, static_cast<std::size_t>(INT_MAX));
  EXPECT_EQ(b.back().offset + b.back().count, 2'500'000'000u);
}

TEST(Layout, AVectorThatFitsIsTheOneCallItAlwaysWas) {
  const Layout layout = row_layout({4, 0, 3}, 7);
  const std::vector<VectorCall> calls = split_vector(layout, 8, {});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].base, 0u);
  EXPECT_EQ(calls[0].counts, (std::vector<int>{28, 0, 21}));
  EXPECT_EQ(calls[0].displacements, (std::vector<int>{0, 0, 28}));  // none for a rank without items
  expect_vector_plan_moves_everything(layout, 8, {}, 1);
}

TEST(Layout, AVectorInPiecesAtAndAroundTheLimit) {
  const Layout layout = row_layout({2, 3, 1}, 5);  // 10, 15, 5 items
  expect_vector_plan_moves_everything(layout, 8, {15 * 8, INT_MAX}, 1);  // the largest exactly fits
  expect_vector_plan_moves_everything(layout, 8, {14 * 8, INT_MAX}, 2);  // one item too many
  expect_vector_plan_moves_everything(layout, 8, {5 * 8, INT_MAX}, 3);
  expect_vector_plan_moves_everything(layout, 8, {8, INT_MAX}, 15);  // one item a message
}

TEST(Layout, AVectorWhoseDisplacementsExceedTheCountLimitGoesFromHigherBases) {
  const Layout layout = row_layout({10, 10, 10, 10}, 1);  // starts 0, 10, 20, 30
  // Displacements up to 25: rank 3 (at 30) waits for a base of 5 or more.
  const std::vector<VectorCall> calls = split_vector(layout, 8, {5 * 8, 25});
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0].counts, (std::vector<int>{5, 5, 5, 0}));
  EXPECT_EQ(calls[1].base, 5u);
  EXPECT_EQ(calls[1].counts, (std::vector<int>{5, 5, 5, 5}));
  EXPECT_EQ(calls[1].displacements[3], 25);
  EXPECT_EQ(calls[2].counts, (std::vector<int>{0, 0, 0, 5}));
  expect_vector_plan_moves_everything(layout, 8, {5 * 8, 25}, 3);
  // One item a call, displacements at most 1: a rank's last item and the next rank's first
  // share a call (37 calls for 40 items).
  expect_vector_plan_moves_everything(layout, 8, {8, 1}, 37);
  // mm's A at N = 50,000 on 8 ranks: 2.5e9 doubles, beyond INT_MAX.
  const Layout a = row_layout(std::vector<std::size_t>(8, 6'250), 50'000);
  expect_vector_plan_moves_everything(a, 8, {}, 2);
}

// Runs every rank's exchange plan and checks that each pair's pieces match call by call
// and carry the pair's segment in order.
void expect_exchange_plans_match(const std::vector<Layout>& send, const std::vector<Layout>& receive,
                                 std::size_t largest, const MessageLimits& limits, std::size_t expected_calls) {
  const std::size_t ranks = send.size();
  std::vector<std::vector<ExchangeCall>> plans;
  for (std::size_t r = 0; r < ranks; ++r)
    plans.push_back(split_exchange(send[r], receive[r], static_cast<int>(r), largest, 16, limits));
  for (const auto& plan : plans) ASSERT_EQ(plan.size(), expected_calls);
  std::vector<std::vector<std::size_t>> moved(ranks, std::vector<std::size_t>(ranks, 0));  // [from][to]
  for (std::size_t c = 0; c < expected_calls; ++c) {
    for (std::size_t r = 0; r < ranks; ++r) {
      const ExchangeCall& from = plans[r][c];
      for (std::size_t s = 0; s < ranks; ++s) {
        const ExchangeCall& to = plans[s][c];
        ASSERT_EQ(from.send_counts[s], to.receive_counts[r]) << "call " << c << ", " << r << " -> " << s;
        const auto count = static_cast<std::size_t>(from.send_counts[s]);
        if (count == 0) continue;
        EXPECT_LE(count * 16, std::max<std::size_t>(limits.piece_bytes, 16));
        EXPECT_LE(static_cast<std::size_t>(from.send_displacements[s]), limits.max_count);
        EXPECT_LE(static_cast<std::size_t>(to.receive_displacements[r]), limits.max_count);
        EXPECT_EQ(from.send_base + static_cast<std::size_t>(from.send_displacements[s]),
                  send[r].displacements[s] + moved[r][s]);
        EXPECT_EQ(to.receive_base + static_cast<std::size_t>(to.receive_displacements[r]),
                  receive[s].displacements[r] + moved[r][s]);
        moved[r][s] += count;
      }
    }
  }
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t s = 0; s < ranks; ++s) EXPECT_EQ(moved[r][s], send[r].counts[s]) << r << " -> " << s;
}

// conv2d's forward transpose: rank r sends 2 rows_r x rows_s items to rank s.
void conv2d_layouts(const std::vector<std::size_t>& rows, std::vector<Layout>& send, std::vector<Layout>& receive,
                    std::size_t& largest) {
  largest = 0;
  for (std::size_t r : rows) {
    send.push_back(row_layout(rows, 2 * r));
    receive.push_back(row_layout(rows, 2 * r));
    for (std::size_t s : rows) largest = std::max(largest, 2 * r * s);
  }
}

TEST(Layout, AnExchangeThatFitsIsTheOneCallItAlwaysWas) {
  std::vector<Layout> send, receive;
  std::size_t largest = 0;
  conv2d_layouts({3, 2, 0}, send, receive, largest);
  expect_exchange_plans_match(send, receive, largest, {}, 1);
  const ExchangeCall call = split_exchange(send[0], receive[0], 0, largest, 16, {})[0];
  EXPECT_EQ(call.send_counts, (std::vector<int>{18, 12, 0}));
  EXPECT_EQ(call.send_displacements, (std::vector<int>{0, 18, 0}));  // none for an empty segment
}

TEST(Layout, AnExchangeInPiecesAndGroups) {
  std::vector<Layout> send, receive;
  std::size_t largest = 0;
  conv2d_layouts({3, 2, 4, 1, 0}, send, receive, largest);  // largest 32 items
  expect_exchange_plans_match(send, receive, largest, {32 * 16, INT_MAX}, 1);  // exactly fits
  expect_exchange_plans_match(send, receive, largest, {31 * 16, INT_MAX}, 2);  // one item over
  expect_exchange_plans_match(send, receive, largest, {16, INT_MAX}, 32);
  // Displacements up to 40: groups of 40 / 32 + 1 = 2 ranks, 3 groups, 9 calls a round.
  expect_exchange_plans_match(send, receive, largest, {8 * 16, 40}, 4 * 9);
  expect_exchange_plans_match(send, receive, largest, {16, 1}, 32 * 25);
  EXPECT_THROW((void)split_exchange(send[0], receive[0], 0, 5, 16, {}), Error);  // a segment above the bound
  // By default an exchange's pieces are at most exchange_piece_bytes (SMPI sends them by
  // its own algorithm): two ranks swapping 70 million complex numbers (1.1 GB) take 2 calls.
  const std::size_t segment = 70'000'000;
  const std::vector<Layout> swap_send = {{{0, segment}, {0, 0}}, {{segment, 0}, {0, segment}}};
  expect_exchange_plans_match(swap_send, swap_send, segment, {}, 2);
  for (const ExchangeCall& call : split_exchange(swap_send[0], swap_send[0], 0, segment, 16, {}))
    for (const int count : call.send_counts) EXPECT_LE(static_cast<std::size_t>(count) * 16, exchange_piece_bytes);
  // Nothing to move anywhere: no call on any rank.
  EXPECT_TRUE(split_exchange(row_layout({0, 0}, 1), row_layout({0, 0}, 1), 1, 0, 16, {}).empty());
}

}  // namespace
}  // namespace hetscale::kernels
