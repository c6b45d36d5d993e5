// Parser of partition files (docs/partition-file.md); every error names file:line:col.
#include "hetscale/site/partition_file.hpp"

#include <sys/stat.h>

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>

#include "hetscale/base/file_trust.hpp"
#include "hetscale/base/regular_file.hpp"
#include "hetscale/base/sha256.hpp"
#include "hetscale/base/toml_source.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/weight_shares.hpp"

namespace hetscale {
namespace {

[[noreturn]] void fail(const toml::node& node, const TomlSource& source, const std::string& what) {
  source.fail(source.at(node), what);
}

double positive_weight(const toml::table& entry, const TomlSource& source,
                       std::string_view context) {
  return source.positive(source.required(entry, "weight", context), "weight");
}

void read_header(const toml::table& root, const TomlSource& source, Partition& out) {
  const toml::node* header = root.get("partition");
  if (header == nullptr) {
    throw ConfigError({source.file(), 1, 1}, "missing table [partition]");
  }
  if (!root.contains("partition")) throw ConfigError({source.file(), 1, 1}, "missing table [partition]");
  const toml::table& table = source.table_of(root, "partition");
  source.check_keys(table, {"by", "site", "nodes"}, "in [partition]");
  const toml::node& by = source.required(table, "by", "[partition]");
  const std::string by_value = source.string(by, "by");
  if (by_value != "node" && by_value != "rank") fail(by, source, "'by' must be \"node\" or \"rank\"");
  out.by = by_value == "node" ? Partition::By::node : Partition::By::rank;
  if (auto site = source.optional_string(table, "site")) out.site = std::move(*site);
  if (auto nodes = source.optional_string(table, "nodes")) out.node_list = std::move(*nodes);
}

// Expands a host list ("n[1-4]") into at most `max_hosts` hosts; an error points at its
// column inside the string.
std::vector<std::string> hosts_of(const toml::node& name, const TomlSource& source,
                                  std::size_t max_hosts) {
  HostlistLimits limits;
  limits.max_hosts = max_hosts;
  try {
    return expand_hostlist(source.string(name, "name"), limits);
  } catch (const ExpressionError& error) {
    source.fail(source.inside(name, error.column()), "bad host list: " + error.message());
  }
}

void read_nodes(const std::vector<const toml::table*>& entries, const TomlSource& source,
                std::size_t max_hosts, Partition& out) {
  std::set<std::string> seen;
  for (const toml::table* element : entries) {
    const toml::table& entry = *element;
    source.check_keys(entry, {"name", "weight"}, "in [[node]]");
    const toml::node& name = source.required(entry, "name", "[[node]]");
    (void)source.string(name, "name");
    double weight = positive_weight(entry, source, "[[node]]");
    if (out.nodes.size() >= max_hosts)
      fail(name, source, "more nodes than the " + std::to_string(max_hosts) + " allowed");
    for (std::string& host : hosts_of(name, source, max_hosts - out.nodes.size())) {
      if (!seen.insert(host).second) fail(name, source, "node " + host + " is listed twice");
      out.nodes.push_back({std::move(host), weight, source.at(entry)});
    }
  }
}

void read_ranks(const std::vector<const toml::table*>& entries, const TomlSource& source,
                Partition& out) {
  std::set<std::int64_t> seen;
  for (const toml::table* element : entries) {
    const toml::table& entry = *element;
    source.check_keys(entry, {"rank", "weight"}, "in [[rank]]");
    const toml::node& rank = source.required(entry, "rank", "[[rank]]");
    const std::int64_t value = source.integer(rank, "rank", 0, std::int64_t{UINT32_MAX});
    if (!seen.insert(value).second) {
      fail(rank, source, "rank " + std::to_string(value) + " is listed twice");
    }
    out.ranks.push_back({static_cast<std::uint32_t>(value),
                         positive_weight(entry, source, "[[rank]]"), source.at(entry)});
  }
}

}  // namespace

Partition parse_partition(std::string_view text, const std::string& source_name,
                          std::size_t max_hosts) {
  const TomlSource source(text, source_name);
  const toml::table root = source.parse();
  source.check_keys(root, {"partition", "node", "rank"}, "in the partition file");
  Partition out;
  out.source = source_name;
  read_header(root, source, out);
  const std::vector<const toml::table*> nodes = source.tables_of(root, "node");
  const std::vector<const toml::table*> ranks = source.tables_of(root, "rank");
  if (out.by == Partition::By::node && root.contains("rank")) {
    fail(*root.get("rank"), source, "[[rank]] entries in a partition by node");
  }
  if (out.by == Partition::By::rank && root.contains("node")) {
    fail(*root.get("node"), source, "[[node]] entries in a partition by rank");
  }
  read_nodes(nodes, source, max_hosts, out);
  read_ranks(ranks, source, out);
  if (out.nodes.empty() && out.ranks.empty()) {
    throw ConfigError({source_name, 1, 1},
                      out.by == Partition::By::node ? "no [[node]] entry" : "no [[rank]] entry");
  }
  return out;
}

std::string format_partition(const Partition& partition) {
  auto quoted = [](const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {  // TOML forbids them raw
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(c));
        out += escape;
        continue;
      }
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + '"';
  };
  std::string out = "[partition]\nby = ";
  out += partition.by == Partition::By::node ? "\"node\"\n" : "\"rank\"\n";
  if (!partition.site.empty()) out += "site = " + quoted(partition.site) + "\n";
  if (!partition.node_list.empty()) out += "nodes = " + quoted(partition.node_list) + "\n";
  // Always a TOML float: "1e16" printed as "10000000000000000" would be an integer, and
  // toml++ gives no double for an integer beyond 2^53.
  auto number = [](double weight) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", weight);
    return std::string(text) + (std::strpbrk(text, ".en") == nullptr ? ".0" : "");
  };
  for (const auto& node : partition.nodes) {
    out += "\n[[node]]\nname = " + quoted(node.host) + "\nweight = " + number(node.weight) + "\n";
  }
  for (const auto& rank : partition.ranks) {
    out += "\n[[rank]]\nrank = " + std::to_string(rank.rank) + "\nweight = " + number(rank.weight) +
           "\n";
  }
  return out;
}

std::vector<double> weights_for_ranks(const Partition& partition,
                                      std::span<const std::string> rank_hosts) {
  const std::string name =
      partition.source.empty() ? std::string("the partition") : "partition " + partition.source;
  std::vector<double> weights(rank_hosts.size(), 0.0);
  if (partition.by == Partition::By::rank) {
    for (const auto& share : partition.ranks) {
      if (share.rank >= rank_hosts.size())
        throw Error(name + " lists rank " + std::to_string(share.rank) +
                    ", which is not in the run of " + std::to_string(rank_hosts.size()) + " ranks");
      weights[share.rank] = share.weight;
    }
    for (std::size_t r = 0; r < weights.size(); ++r)
      if (weights[r] == 0) throw Error(name + " does not list rank " + std::to_string(r));
  } else {
    // By host name, so that thousands of nodes and ranks take linear time, not their product.
    std::unordered_map<std::string_view, double> ranks_on;
    for (const std::string& host : rank_hosts) ranks_on[host] += 1;
    std::unordered_map<std::string_view, double> rank_weight;
    for (const auto& share : partition.nodes) {
      const auto ranks = ranks_on.find(share.host);
      if (ranks == ranks_on.end())
        throw Error(name + " lists node " + share.host + ", which runs no rank");
      rank_weight[share.host] = share.weight / ranks->second;
    }
    for (std::size_t r = 0; r < rank_hosts.size(); ++r) {
      const auto weight = rank_weight.find(rank_hosts[r]);
      if (weight != rank_weight.end()) weights[r] = weight->second;
    }
    for (std::size_t r = 0; r < weights.size(); ++r)
      if (weights[r] == 0)
        throw Error(name + " does not list node " + rank_hosts[r] + " (rank " + std::to_string(r) +
                    ")");
  }
  if (weights.empty()) return weights;
  normalise_shares(weights, {}, name);
  return weights;
}

namespace {

// The file name of the partition of `node_list`, and whether it is a digest.
std::pair<std::string, bool> partition_file_name(const std::string& node_list) {
  std::string name = node_list + ".toml";
  if (name.size() <= kMaxPartitionFileName) return {std::move(name), false};
  return {"nodes-" + to_hex(sha256(node_list)) + ".toml", true};
}

}  // namespace

std::filesystem::path user_partitions_dir(const std::filesystem::path& partitions, uid_t uid) {
  return partitions / ("uid-" + std::to_string(uid));
}

std::filesystem::path equalized_partition_path(const std::filesystem::path& partitions,
                                               std::span<const std::string> hosts, uid_t owner) {
  const std::filesystem::path dir = owner == 0 ? partitions : user_partitions_dir(partitions, owner);
  return dir / partition_file_name(compress_hostlist(hosts)).first;
}

void make_user_partitions_dir(const std::filesystem::path& partitions, uid_t uid) {
  const std::filesystem::path dir = user_partitions_dir(partitions, uid);
  if (::mkdir(dir.c_str(), 0755) == 0) {
    // Whatever the umask: the plugin reads it with the job user's privileges.
    if (::chmod(dir.c_str(), 0755) != 0)
      throw Error("cannot make " + dir.string() + " readable: " + std::strerror(errno));
    return;
  }
  if (errno != EEXIST) throw Error("cannot make the directory " + dir.string() + ": " + std::strerror(errno));
  const uid_t owners[] = {uid};
  if (std::optional<std::string> why = untrusted_reason(dir, owners)) {
    throw Error("cannot write equalized partitions to " + dir.string() + ": it " + *why +
                ", so the SPANK plugin would pass it over; its owner or an administrator must remove it");
  }
}

namespace {

// The partition file at `path` (named by `digest` or not) for the step on `hosts`, from one
// of `owners`; Error says why it is not used.
Partition read_trusted_partition(const std::filesystem::path& path, bool digest, const std::string& node_list,
                                 std::span<const std::string> hosts, std::span<const uid_t> owners) {
  std::string text;
  try {
    text = read_trusted_file(path, kMaxPartitionFileBytes, owners);
  } catch (const FileReadError& error) {
    throw Error("equalized partition " + path.string() + " ignored: it " + error.reason());
  }
  Partition partition = parse_partition(text, path.string(), hosts.size());
  if (digest && partition.node_list.empty()) {
    throw Error("partition " + path.string() + " names no 'nodes' (a file named by digest must)");
  }
  if (!partition.node_list.empty() && partition.node_list != node_list) {
    throw Error("partition " + path.string() + " was made for nodes " +
                partition.node_list.substr(0, 200) + ", the step runs on " +
                node_list.substr(0, 200));
  }
  return partition;
}

bool present(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

}  // namespace

Partition read_equalized_partition(const std::filesystem::path& partitions,
                                   std::span<const std::string> hosts, uid_t job_uid) {
  const std::string node_list = compress_hostlist(hosts);
  const auto [name, digest] = partition_file_name(node_list);
  std::string expected;
  std::string passed_over;
  if (job_uid != 0) {
    // The job's user's own file first, in a directory that is theirs: another user's
    // files, and a directory of that name someone else made, never count for this job.
    const std::filesystem::path dir = user_partitions_dir(partitions, job_uid);
    const std::filesystem::path path = dir / name;
    const uid_t owners[] = {0, job_uid};
    expected = path.string() + " or ";
    if (present(path)) {
      std::optional<std::string> why = untrusted_reason(dir, owners);
      if (!why) return read_trusted_partition(path, digest, node_list, hosts, owners);
      passed_over = "; " + dir.string() + " passed over: it " + *why;
    }
  }
  // The site's file, root's, which every job may use.
  const std::filesystem::path path = partitions / name;
  if (present(path)) {
    const uid_t root[] = {0};
    return read_trusted_partition(path, digest, node_list, hosts, root);
  }
  throw Error("no equalized partition for nodes " + node_list + " (expected " + expected + path.string() + ")" +
              passed_over);
}

}  // namespace hetscale
