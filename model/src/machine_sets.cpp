// Nested, doubling, group-balanced machine sets (docs/science.md section 2). The rules, also in
// docs/machine-sets.md:
//  - only `ok` nodes are eligible (`degraded` too when asked; `excluded` never); within a
//    group nodes are taken in site-table order;
//  - set 0 takes `start` nodes spread as evenly as possible over the groups, remainders to
//    the faster groups; a group too small for its share gives all it has and the others make
//    up the difference. Such a group is "used up from the first set" and stays as it is;
//  - set k doubles set k-1 and contains it: the new nodes are spread evenly over the other
//    groups (remainders to the faster ones). Policy `stop` ends the sequence when one of those
//    groups cannot give its share (STAS); `fill` tops the shortfall up from the groups that
//    still have nodes, and ends only when the pool cannot supply the doubling;
//  - a set larger than `max` (when non-zero) is never built.
#include "hetscale/model/machine_sets.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

struct GroupPool {
  std::string name;
  double speed = 0;                // per-processor marked speed: the tie-breaker
  std::vector<const Node*> nodes;  // eligible nodes in site-table order
  std::size_t used = 0;
  bool exempt = false;  // used up by the first set: no share asked of it any more

  [[nodiscard]] std::size_t remaining() const { return nodes.size() - used; }
};

bool eligible(const Node& node, const MachineSetOptions& options) {
  return node.state == NodeState::ok ||
         (node.state == NodeState::degraded && options.include_degraded);
}

std::vector<GroupPool> make_pools(const SiteTable& site, const MachineSetOptions& options) {
  std::vector<GroupPool> pools;
  pools.reserve(site.groups.size());
  for (const auto& group : site.groups) pools.push_back({group.name, group.marked_speed, {}});
  for (const auto& node : site.nodes) {
    if (!eligible(node, options)) continue;
    auto it = std::find_if(pools.begin(), pools.end(),
                           [&](const GroupPool& p) { return p.name == node.group; });
    if (it == pools.end())
      throw Error("node '" + node.name + "' names unknown group '" + node.group + "'");
    it->nodes.push_back(&node);
  }
  return pools;
}

/// Pool indices, fastest group first (site-table order among equal speeds).
std::vector<std::size_t> fastest_first(const std::vector<GroupPool>& pools) {
  std::vector<std::size_t> order(pools.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pools[a].speed > pools[b].speed; });
  return order;
}

/// Splits `count` over the pools in `takers` (fastest first) as evenly as possible.
std::vector<std::size_t> even_shares(std::size_t count, const std::vector<std::size_t>& takers,
                                     std::size_t pool_count) {
  std::vector<std::size_t> share(pool_count, 0);
  if (takers.empty()) return share;
  const std::size_t base = count / takers.size();
  std::size_t extra = count % takers.size();
  for (std::size_t p : takers) share[p] = base + (extra > 0 ? (--extra, 1) : 0);
  return share;
}

/// Takes `count` nodes spreading them evenly over the pools that still have nodes,
/// refilling any shortfall from the others; empty when the pool is too small.
std::vector<std::size_t> fill_shares(std::size_t count, const std::vector<GroupPool>& pools,
                                     const std::vector<std::size_t>& order) {
  std::vector<std::size_t> take(pools.size(), 0);
  std::size_t left = count;
  while (left > 0) {
    std::vector<std::size_t> open;
    for (std::size_t p : order)
      if (pools[p].remaining() > take[p]) open.push_back(p);
    if (open.empty()) return {};
    const auto share = even_shares(left, open, pools.size());
    for (std::size_t p : open) {
      const std::size_t got = std::min(share[p], pools[p].remaining() - take[p]);
      take[p] += got;
      left -= got;
    }
  }
  return take;
}

/// Shares under `stop`: every non-exempt group with eligible nodes must give its even share.
std::vector<std::size_t> strict_shares(std::size_t count, const std::vector<GroupPool>& pools,
                                       const std::vector<std::size_t>& order) {
  std::vector<std::size_t> takers;
  for (std::size_t p : order)
    if (!pools[p].exempt && !pools[p].nodes.empty()) takers.push_back(p);
  auto share = even_shares(count, takers, pools.size());
  for (std::size_t p : takers)
    if (share[p] > pools[p].remaining()) return {};
  if (takers.empty()) return {};
  return share;
}

MachineSet extend(const MachineSet* previous, std::vector<GroupPool>& pools,
                  const std::vector<std::size_t>& take) {
  MachineSet set;
  if (previous != nullptr) {
    set.index = previous->index + 1;
    set.nodes = previous->nodes;
  }
  for (std::size_t p = 0; p < pools.size(); ++p) {
    for (std::size_t i = 0; i < take[p]; ++i)
      set.nodes.push_back(pools[p].nodes[pools[p].used + i]->name);
    pools[p].used += take[p];
  }
  for (const auto& pool : pools) {
    set.group_counts.emplace_back(pool.name, pool.used);
    for (std::size_t i = 0; i < pool.used; ++i) set.marked_speed += pool.nodes[i]->total_speed();
  }
  return set;
}

std::size_t eligible_count(const std::vector<GroupPool>& pools) {
  std::size_t n = 0;
  for (const auto& pool : pools) n += pool.nodes.size();
  return n;
}

}  // namespace

std::vector<MachineSet> build_machine_sets(const SiteTable& site,
                                           const MachineSetOptions& options) {
  if (options.start < 1) throw Error("the first machine set needs at least 1 node");
  if (options.max != 0 && options.max < options.start)
    throw Error("the largest set (" + std::to_string(options.max) +
                " nodes) is smaller than the first (" + std::to_string(options.start) + ")");
  auto pools = make_pools(site, options);
  const auto order = fastest_first(pools);
  const std::size_t available = eligible_count(pools);
  if (available < options.start)
    throw Error("cannot form the first machine set of " + std::to_string(options.start) +
                " nodes: only " + std::to_string(available) + " eligible node" +
                (available == 1 ? "" : "s") +
                (options.include_degraded ? "" : " (degraded nodes are left out unless asked)"));

  std::vector<MachineSet> sets;
  sets.push_back(extend(nullptr, pools, fill_shares(options.start, pools, order)));
  for (auto& pool : pools) pool.exempt = !pool.nodes.empty() && pool.remaining() == 0;

  for (;;) {
    const std::size_t size = sets.back().nodes.size();
    if (options.max != 0 && 2 * size > options.max) break;
    const auto take = options.policy == SetPolicy::stop ? strict_shares(size, pools, order)
                                                        : fill_shares(size, pools, order);
    if (take.empty()) break;
    sets.push_back(extend(&sets.back(), pools, take));
  }
  return sets;
}

}  // namespace hetscale
