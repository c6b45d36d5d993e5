// Node records -> groups -> site table. Why each rule is what it is: docs/admin-classify.md.
#include "hetscale/classifier/node_grouping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

namespace hetscale {
namespace {

using Records = std::vector<LocatedNodeRecord>;

// Indices of the newest record of every host, in input order; a duplicate gives a warning.
std::vector<std::size_t> newest_per_host(const Records& records,
                                         std::vector<std::string>& warnings) {
  std::unordered_map<std::string, std::size_t> newest;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto [it, inserted] = newest.emplace(records[i].record.host, i);
    if (inserted) {
      order.push_back(i);
      continue;
    }
    const LocatedNodeRecord& old = records[it->second];
    const LocatedNodeRecord& now = records[i];
    const bool newer = compare_record_times(now.record.time, old.record.time) >= 0;
    const LocatedNodeRecord& kept = newer ? now : old;
    const LocatedNodeRecord& dropped = newer ? old : now;
    warnings.push_back(
        fmt::format("duplicate host {}: kept the record of {} ({}), ignored the one of {} ({})",
                    now.record.host, kept.record.time, kept.where.str(), dropped.record.time,
                    dropped.where.str()));
    if (newer) it->second = i;
  }
  for (std::size_t& i : order) i = newest.at(records[i].record.host);
  return order;
}

// A benchmark as run: figures of another benchmark, size or unit are not comparable.
struct BenchmarkKey {
  std::string name;
  std::uint64_t size = 0;
  std::string unit;

  explicit BenchmarkKey(const NodeRecord& r)
      : name(r.benchmark), size(r.benchmark_size), unit(r.speed_unit) {}
  BenchmarkKey() = default;
  auto operator<=>(const BenchmarkKey&) const = default;
  [[nodiscard]] std::string describe() const {
    return size > 0 ? fmt::format("{} (size {}) in {}", name, size, unit)
                    : fmt::format("{} in {}", name, unit);
  }
};

// The benchmark most measured records used.
BenchmarkKey site_benchmark(const Records& records, const std::vector<std::size_t>& kept) {
  std::map<BenchmarkKey, std::size_t> counts;
  BenchmarkKey best;
  std::size_t best_count = 0;
  for (std::size_t i : kept) {
    const NodeRecord& r = records[i].record;
    if (r.state != NodeState::ok) continue;
    const BenchmarkKey key(r);
    if (++counts[key] > best_count) {
      best_count = counts[key];
      best = key;
    }
  }
  return best;
}

// "n10" after "n9": digit runs compare as numbers so that equal prefixes stay together.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const std::string_view da = std::string_view(a).substr(i, ie - i);
      const std::string_view db = std::string_view(b).substr(j, je - j);
      const auto trim = [](std::string_view d) {
        return d.substr(std::min(d.find_first_not_of('0'), d.size()));
      };
      const std::string_view ta = trim(da), tb = trim(db);
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
      if (da.size() != db.size()) return da.size() < db.size();
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// How much slower the slower speed is, as a fraction of the faster (as for "degraded").
double relative_gap(double slower, double faster) {
  return (faster - slower) / faster;
}

// One speed class: a run of records of one fingerprint, sorted by speed (ascending).
using SpeedClass = std::vector<const NodeRecord*>;

// Cuts the sorted records where the gap between neighbours is larger than noise. The
// records' own noise widens the band up to clear_gap only: one disturbed repetition (a CV
// of 25%) must not hide a gap as large as the one that makes a small class a group.
std::vector<SpeedClass> cut_at_gaps(const SpeedClass& sorted, const GroupingOptions& o) {
  std::vector<SpeedClass> classes{{sorted.front()}};
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const NodeRecord& a = *sorted[i - 1];
    const NodeRecord& b = *sorted[i];
    const double noise =
        std::max(o.noise_gap, std::min(o.clear_gap, o.noise_sigmas * std::hypot(a.cv, b.cv)));
    if (relative_gap(a.marked_speed, b.marked_speed) > noise) classes.emplace_back();
    classes.back().push_back(&b);
  }
  return classes;
}

// Folds small classes into the nearer neighbour class unless the gap is clear: a few slow
// nodes among many twins are degraded, not a group of their own.
void merge_outliers(std::vector<SpeedClass>& classes, const GroupingOptions& o) {
  std::size_t twins = 0;
  for (const SpeedClass& c : classes) twins += c.size();
  const auto min_size = std::max<std::size_t>(
      o.min_class_nodes,
      static_cast<std::size_t>(std::ceil(o.min_class_fraction * static_cast<double>(twins))));
  for (std::size_t c = 0; c < classes.size() && classes.size() > 1;) {
    if (classes[c].size() >= min_size) {
      ++c;
      continue;
    }
    const double below =
        c > 0 ? relative_gap(classes[c - 1].back()->marked_speed, classes[c].front()->marked_speed)
              : INFINITY;
    const double above = c + 1 < classes.size() ? relative_gap(classes[c].back()->marked_speed,
                                                               classes[c + 1].front()->marked_speed)
                                                : INFINITY;
    if (std::min(below, above) >= o.clear_gap) {
      ++c;
      continue;
    }
    const std::size_t into = above <= below ? c + 1 : c - 1;
    SpeedClass& target = classes[into];
    target.insert(into > c ? target.begin() : target.end(), classes[c].begin(), classes[c].end());
    classes.erase(classes.begin() + static_cast<std::ptrdiff_t>(c));
    c = 0;  // sizes changed: look again from the slowest class
  }
}

std::vector<SpeedClass> speed_classes(SpeedClass members, const GroupingOptions& o) {
  std::sort(members.begin(), members.end(), [](const NodeRecord* a, const NodeRecord* b) {
    return a->marked_speed != b->marked_speed ? a->marked_speed < b->marked_speed
                                              : a->host < b->host;
  });
  std::vector<SpeedClass> classes = cut_at_gaps(members, o);
  merge_outliers(classes, o);
  std::reverse(classes.begin(), classes.end());  // fastest first: "-1" is the fastest
  return classes;
}

// Per kind of core of a hybrid fingerprint, the median of the members' figures measured on
// that kind's CPUs; a kind no member measured is left out.
std::vector<GroupCpuKind> kind_speeds(const SpeedClass& members) {
  const std::vector<CpuKind>& kinds = members.front()->hardware.cpu_kinds;
  std::vector<GroupCpuKind> out;
  if (kinds.size() < 2) return out;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    std::vector<double> speeds;
    for (const NodeRecord* r : members)
      for (const KindSpeed& measured : r->kind_speeds)
        if (measured.kind == k) speeds.push_back(measured.marked_speed);
    if (speeds.empty()) continue;
    out.push_back({kinds[k].cpus, kinds[k].efficiency, kinds[k].core_type, median(speeds), {}});
  }
  return out;
}

struct Builder {
  const GroupingOptions& options;
  GroupingResult result;
  std::unordered_map<std::string, std::size_t> largest_group_of;  // fingerprint -> group index

  void add_group(const std::string& name, const std::string& fingerprint,
                 const SpeedClass& members) {
    std::vector<double> speeds;
    for (const NodeRecord* r : members) speeds.push_back(r->marked_speed);
    GroupSummary g{name,
                   fingerprint,
                   members.front()->hardware.cpu_model,
                   hardware_summary(members.front()->hardware),
                   kind_speeds(members),
                   median(speeds),
                   *std::min_element(speeds.begin(), speeds.end()),
                   *std::max_element(speeds.begin(), speeds.end()),
                   0,
                   0,
                   0};
    for (const NodeRecord* r : members) add_measured_node(*r, g);
    auto [it, inserted] = largest_group_of.emplace(fingerprint, result.groups.size());
    if (!inserted &&
        result.groups[it->second].ok + result.groups[it->second].degraded < members.size())
      it->second = result.groups.size();
    result.table.groups.push_back({name, g.marked_speed, {}, fingerprint, g.hardware, g.cpu_kinds});
    result.groups.push_back(std::move(g));
  }

  void add_measured_node(const NodeRecord& r, GroupSummary& g) {
    Node node{r.host, g.name, r.processors, g.marked_speed, NodeState::ok, {}};
    const double below = 1 - r.marked_speed / g.marked_speed;
    if (below > options.degraded_threshold) {
      node.state = NodeState::degraded;
      node.marked_speed = r.marked_speed;  // it really is slower: weights should say so
      result.notices.push_back(
          {r.host, g.name, NodeState::degraded,
           fmt::format("{:.1f}% below the group median {:.6g}", 100 * below, g.marked_speed)});
      ++g.degraded;
    } else {
      ++g.ok;
    }
    result.table.nodes.push_back(std::move(node));
  }

  void add_excluded_node(const NodeRecord& r, const std::string& reason) {
    auto it = largest_group_of.find(r.fingerprint);
    if (it == largest_group_of.end()) {
      result.warnings.push_back(
          fmt::format("{} is excluded ({}) and no node of the same hardware has a speed: left out "
                      "of the site table",
                      r.host, reason));
      result.notices.push_back({r.host, "", NodeState::excluded, reason});
      return;
    }
    GroupSummary& g = result.groups[it->second];
    const std::uint32_t processors =
        r.processors > 0 ? r.processors
                         : std::max<std::uint32_t>(1, static_cast<std::uint32_t>(r.cpus.size()));
    result.table.nodes.push_back(
        {r.host, g.name, processors, g.marked_speed, NodeState::excluded, {}});
    result.notices.push_back({r.host, g.name, NodeState::excluded, reason});
    ++g.excluded;
  }
};

// Names from the CPU model; fingerprints sharing a model get a fingerprint prefix, speed
// classes of one fingerprint "-1" (fastest), "-2"...
std::string class_name(const std::string& base, bool shared_base, const std::string& fingerprint,
                       std::size_t classes, std::size_t index) {
  std::string name = base;
  if (shared_base) name += "-" + fingerprint.substr(0, 6);
  if (classes > 1) name += "-" + std::to_string(index + 1);
  return name;
}

void sort_table(GroupingResult& result) {
  std::vector<std::size_t> order(result.groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return natural_less(result.groups[a].name, result.groups[b].name);
  });
  std::vector<GroupSummary> groups;
  std::vector<Group> table_groups;
  std::unordered_map<std::string, std::size_t> rank;
  for (std::size_t i : order) {
    rank.emplace(result.groups[i].name, groups.size());
    groups.push_back(std::move(result.groups[i]));
    table_groups.push_back(std::move(result.table.groups[i]));
  }
  result.groups = std::move(groups);
  result.table.groups = std::move(table_groups);
  std::sort(result.table.nodes.begin(), result.table.nodes.end(),
            [&](const Node& a, const Node& b) {
              const std::size_t ga = rank.at(a.group), gb = rank.at(b.group);
              if (ga != gb) return ga < gb;
              if (a.state != b.state) return a.state < b.state;
              return natural_less(a.name, b.name);
            });
  std::sort(result.notices.begin(), result.notices.end(),
            [](const NodeNotice& a, const NodeNotice& b) { return natural_less(a.host, b.host); });
  result.table.index();
}

}  // namespace

std::string group_base_name(const std::string& cpu_model) {
  std::string model = cpu_model;
  if (const auto at = model.find(" @ "); at != std::string::npos) model.resize(at);  // the clock
  for (const std::string_view noise : {"(R)", "(r)", "(TM)", "(tm)", " CPU", " Processor"}) {
    for (auto at = model.find(noise); at != std::string::npos; at = model.find(noise))
      model.erase(at, noise.size());
  }
  std::string name;
  for (char c : model) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name.empty() ? "node" : name;
}

GroupingResult group_nodes(const Records& records, const GroupingOptions& options) {
  Builder b{options, {}, {}};
  b.result.table.name = options.site_name;
  const std::vector<std::size_t> kept = newest_per_host(records, b.result.warnings);
  const BenchmarkKey site = site_benchmark(records, kept);
  if (site.name.empty()) throw Error("no node record has a measured speed: nothing to group");
  b.result.table.benchmark = site.name;
  b.result.table.speed_unit = site.unit;

  std::map<std::string, SpeedClass> by_fingerprint;
  std::vector<std::pair<const NodeRecord*, std::string>> excluded;
  for (std::size_t i : kept) {
    const NodeRecord& r = records[i].record;
    if (r.state != NodeState::ok) {
      excluded.emplace_back(&r, r.reason);
    } else if (BenchmarkKey(r) != site) {
      excluded.emplace_back(&r, fmt::format("measured with {}, not the site's {}",
                                            BenchmarkKey(r).describe(), site.describe()));
    } else {
      by_fingerprint[r.fingerprint].push_back(&r);
    }
  }

  std::map<std::string, std::size_t> base_count;
  for (const auto& [fingerprint, members] : by_fingerprint)
    ++base_count[group_base_name(members.front()->hardware.cpu_model)];
  for (const auto& [fingerprint, members] : by_fingerprint) {
    const std::string base = group_base_name(members.front()->hardware.cpu_model);
    const std::vector<SpeedClass> classes = speed_classes(members, options);
    for (std::size_t c = 0; c < classes.size(); ++c)
      b.add_group(class_name(base, base_count[base] > 1, fingerprint, classes.size(), c),
                  fingerprint, classes[c]);
  }
  for (const auto& [record, reason] : excluded) b.add_excluded_node(*record, reason);
  sort_table(b.result);
  return std::move(b.result);
}

}  // namespace hetscale
