// In-memory lookups of the site table; parsing and writing live in site_table_io.cpp.
#include "hetscale/site/site_table.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>

namespace hetscale {

std::string_view to_string(NodeState state) {
  switch (state) {
    case NodeState::ok:
      return "ok";
    case NodeState::degraded:
      return "degraded";
    case NodeState::excluded:
      return "excluded";
  }
  return "unknown";
}

double CollectiveOverhead::seconds(int ranks) const {
  const int counted = max_ranks > 0 && ranks > max_ranks ? max_ranks : ranks;
  const double total = us + us_per_rank * counted;
  return total > 0 ? total * 1e-6 : 0.0;
}

std::string overhead_property_text(const CollectiveOverhead& overhead) {
  return fmt::format("{} {} {}", overhead.us, overhead.us_per_rank, overhead.max_ranks);
}

CollectiveOverhead parse_overhead_property(const char* property, const char* text) {
  if (text == nullptr) return {};
  const auto wrong = [&](std::string_view why) {
    return Error(fmt::format("the platform's {} is '{}': {}", property, text, why));
  };
  std::array<double, 3> figures{};
  const char* rest = text;
  for (double& figure : figures) {
    char* end = nullptr;
    figure = std::strtod(rest, &end);
    if (end == rest || !std::isfinite(figure))
      throw wrong("not three numbers (microseconds, microseconds per rank, largest ranks)");
    rest = end;
  }
  if (*rest != '\0') throw wrong("more than three numbers");
  if (figures[2] < 0 || figures[2] > double(1 << 30) || figures[2] != std::floor(figures[2]))
    throw wrong("its largest ranks is no count from 0 to 2^30");
  return {figures[0], figures[1], static_cast<int>(figures[2])};
}

std::string_view to_string(NetworkTopology topology) {
  switch (topology) {
    case NetworkTopology::star:
      return "star";
    case NetworkTopology::switch_per_group:
      return "switch-per-group";
  }
  return "unknown";
}

void SiteTable::index() {
  node_index_.clear();
  group_index_.clear();
  node_index_.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) node_index_.emplace(nodes[i].name, i);
  for (std::size_t i = 0; i < groups.size(); ++i) group_index_.emplace(groups[i].name, i);
}

const Node* SiteTable::find_node(std::string_view host) const {
  auto it = node_index_.find(std::string(host));
  return it == node_index_.end() ? nullptr : &nodes[it->second];
}

const Group* SiteTable::find_group(std::string_view group) const {
  auto it = group_index_.find(std::string(group));
  return it == group_index_.end() ? nullptr : &groups[it->second];
}

}  // namespace hetscale
