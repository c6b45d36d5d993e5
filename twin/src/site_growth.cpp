#include "hetscale/twin/site_growth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {

SiteTable grow_site_table(const SiteTable& site, std::size_t nodes) {
  // Per group, in declaration order: its eligible nodes and the node new ones copy.
  struct Share {
    std::size_t count = 0;
    const Node* model = nullptr;
    std::size_t target = 0;
    double remainder = 0;
  };
  std::vector<Share> shares(site.groups.size());
  std::map<std::string, std::size_t> position;
  for (std::size_t g = 0; g < site.groups.size(); ++g) position[site.groups[g].name] = g;
  std::size_t eligible = 0;
  for (const Node& n : site.nodes) {
    if (n.state == NodeState::excluded) continue;
    Share& s = shares.at(position.at(n.group));
    ++s.count;
    ++eligible;
    if (s.model == nullptr || (s.model->state != NodeState::ok && n.state == NodeState::ok)) s.model = &n;
  }
  if (eligible == 0) throw Error(fmt::format("site '{}' has no node that is not excluded to grow from", site.name));
  if (nodes < eligible)
    throw Error(fmt::format("cannot grow site '{}' to {} nodes: it has {} already", site.name, nodes, eligible));

  std::size_t assigned = 0;
  for (Share& s : shares) {
    const double exact = static_cast<double>(nodes) * static_cast<double>(s.count) / static_cast<double>(eligible);
    s.target = static_cast<std::size_t>(std::floor(exact));
    s.remainder = exact - static_cast<double>(s.target);
    assigned += s.target;
  }
  std::vector<std::size_t> order(shares.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return shares[a].remainder > shares[b].remainder; });
  for (std::size_t i = 0; assigned < nodes; ++i, ++assigned) ++shares[order[i % order.size()]].target;

  SiteTable grown = site;
  for (std::size_t g = 0; g < shares.size(); ++g) {
    const Share& s = shares[g];
    for (std::size_t k = 1; k <= s.target - s.count; ++k) {
      Node n = *s.model;
      n.name = fmt::format("{}-t{}", site.groups[g].name, k);
      n.state = NodeState::ok;
      if (site.find_node(n.name) != nullptr)
        throw Error(fmt::format("cannot grow site '{}': node '{}' exists already", site.name, n.name));
      grown.nodes.push_back(std::move(n));
    }
  }
  grown.index();
  return grown;
}

}  // namespace hetscale
