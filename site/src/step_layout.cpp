#include "hetscale/site/step_layout.hpp"

#include <charconv>
#include <limits>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

std::uint32_t parse_count(std::string_view digits, std::string_view whole) {
  std::uint32_t value = 0;
  const auto* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end) {
    throw Error("bad tasks per node '" + std::string(whole) + "': '" + std::string(digits) +
                "' is not a count");
  }
  return value;
}

// One comma-separated item: "N" or "N(xR)".
void append_item(std::string_view item, std::string_view whole, std::size_t max_nodes,
                 std::vector<std::uint32_t>& out) {
  std::size_t open = item.find('(');
  std::uint32_t repeat = 1;
  if (open != std::string_view::npos) {
    if (item.size() < open + 4 || item.substr(open, 2) != "(x" || item.back() != ')') {
      throw Error("bad tasks per node '" + std::string(whole) + "': '" + std::string(item) +
                  "' is not N or N(xR)");
    }
    repeat = parse_count(item.substr(open + 2, item.size() - open - 3), whole);
  }
  std::uint32_t tasks = parse_count(item.substr(0, open), whole);
  if (repeat == 0)
    throw Error("bad tasks per node '" + std::string(whole) + "': repeat count out of range");
  if (repeat > max_nodes || out.size() + repeat > max_nodes) {
    throw Error("bad tasks per node '" + std::string(whole) + "': more than " +
                std::to_string(max_nodes) + " nodes");
  }
  out.insert(out.end(), repeat, tasks);
}

}  // namespace

std::uint64_t StepLayout::total_tasks() const {
  std::uint64_t total = 0;
  for (const auto& node : nodes) total += node.tasks;
  return total;
}

std::vector<std::uint32_t> parse_tasks_per_node(std::string_view text, std::size_t max_nodes) {
  std::vector<std::uint32_t> counts;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    append_item(text.substr(start, comma - start), text, max_nodes, counts);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return counts;
}

StepLayout make_step_layout(std::span<const std::string> hosts,
                            std::span<const std::uint32_t> tasks_per_node,
                            std::uint32_t cpus_per_task) {
  if (hosts.size() != tasks_per_node.size()) {
    throw Error("step has " + std::to_string(hosts.size()) + " nodes but tasks are given for " +
                std::to_string(tasks_per_node.size()));
  }
  if (cpus_per_task == 0) throw Error("step has 0 CPUs per task");
  StepLayout layout;
  layout.nodes.reserve(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (tasks_per_node[i] == 0) throw Error("step node " + hosts[i] + " has no task");
    layout.nodes.push_back({hosts[i], tasks_per_node[i], cpus_per_task});
  }
  return layout;
}

}  // namespace hetscale
