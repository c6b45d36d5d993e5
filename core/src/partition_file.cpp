// Parser of partition files (docs/partition-file.md); every error names file:line:col.
#include "hetscale/partition_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "hetscale/hostlist.hpp"

namespace hetscale {
namespace {

SourceLocation where_of(const toml::source_region& region, const std::string& file) {
  return {file, static_cast<std::uint32_t>(region.begin.line),
          static_cast<std::uint32_t>(region.begin.column)};
}

[[noreturn]] void fail(const toml::node& node, const std::string& file, const std::string& what) {
  throw ConfigError(where_of(node.source(), file), what);
}

// Rejects keys of `table` outside `allowed`, naming the first one.
void check_keys(const toml::table& table, std::initializer_list<std::string_view> allowed,
                const std::string& file, std::string_view context) {
  for (const auto& [key, value] : table) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
      throw ConfigError(where_of(key.source(), file),
                        "unknown key '" + std::string(key.str()) + "' in " + std::string(context));
    }
  }
}

const toml::node& required(const toml::table& table, std::string_view key, const std::string& file,
                           std::string_view context) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    throw ConfigError(where_of(table.source(), file),
                      "missing key '" + std::string(key) + "' in " + std::string(context));
  }
  return *node;
}

double positive_weight(const toml::table& entry, const std::string& file,
                       std::string_view context) {
  const toml::node& node = required(entry, "weight", file, context);
  std::optional<double> value = node.value<double>();  // integers convert too
  if (!node.is_number() || !value) fail(node, file, "weight must be a number");
  if (!std::isfinite(*value) || *value <= 0) {
    fail(node, file, "weight must be positive and finite");
  }
  return *value;
}

const toml::array* entries(const toml::table& root, std::string_view key, const std::string& file) {
  const toml::node* node = root.get(key);
  if (node == nullptr) return nullptr;
  const toml::array* array = node->as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    fail(*node, file,
         "'" + std::string(key) + "' must be an array of tables ([[" + std::string(key) + "]])");
  }
  return array;
}

void read_header(const toml::table& root, const std::string& file, Partition& out) {
  const toml::node* header = root.get("partition");
  if (header == nullptr) {
    throw ConfigError({file, 1, 1}, "missing table [partition]");
  }
  const toml::table* table = header->as_table();
  if (table == nullptr) fail(*header, file, "'partition' must be a table");
  check_keys(*table, {"by", "site"}, file, "[partition]");
  const toml::node& by = required(*table, "by", file, "[partition]");
  std::optional<std::string> by_value = by.value<std::string>();
  if (!by.is_string() || (*by_value != "node" && *by_value != "rank")) {
    fail(by, file, "'by' must be \"node\" or \"rank\"");
  }
  out.by = *by_value == "node" ? Partition::By::node : Partition::By::rank;
  if (const toml::node* site = table->get("site")) {
    if (!site->is_string()) fail(*site, file, "'site' must be a string");
    out.site = *site->value<std::string>();
  }
}

// Expands a host list ("n[1-4]"); an error points at its column inside the string.
std::vector<std::string> hosts_of(const toml::node& name, const std::string& file) {
  try {
    return expand_hostlist(*name.value<std::string>());
  } catch (const ExpressionError& error) {
    SourceLocation where = where_of(name.source(), file);
    where.column += static_cast<std::uint32_t>(error.column());  // past the opening quote
    throw ConfigError(where, "bad host list: " + error.message());
  }
}

void read_nodes(const toml::array& array, const std::string& file, Partition& out) {
  std::set<std::string> seen;
  for (const toml::node& element : array) {
    const toml::table& entry = *element.as_table();
    check_keys(entry, {"name", "weight"}, file, "[[node]]");
    const toml::node& name = required(entry, "name", file, "[[node]]");
    if (!name.is_string() || name.value<std::string>()->empty()) {
      fail(name, file, "'name' must be a non-empty host name or host list");
    }
    double weight = positive_weight(entry, file, "[[node]]");
    for (std::string& host : hosts_of(name, file)) {
      if (!seen.insert(host).second) fail(name, file, "node " + host + " is listed twice");
      out.nodes.push_back({std::move(host), weight, where_of(entry.source(), file)});
    }
  }
}

void read_ranks(const toml::array& array, const std::string& file, Partition& out) {
  std::set<std::int64_t> seen;
  for (const toml::node& element : array) {
    const toml::table& entry = *element.as_table();
    check_keys(entry, {"rank", "weight"}, file, "[[rank]]");
    const toml::node& rank = required(entry, "rank", file, "[[rank]]");
    std::optional<std::int64_t> value = rank.value<std::int64_t>();
    if (!rank.is_integer() || *value < 0 || *value > std::int64_t{UINT32_MAX}) {
      fail(rank, file, "'rank' must be an integer from 0 to 4294967295");
    }
    if (!seen.insert(*value).second) {
      fail(rank, file, "rank " + std::to_string(*value) + " is listed twice");
    }
    out.ranks.push_back({static_cast<std::uint32_t>(*value),
                         positive_weight(entry, file, "[[rank]]"), where_of(entry.source(), file)});
  }
}

}  // namespace

Partition parse_partition(std::string_view text, const std::string& source_name) {
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& error) {
    throw ConfigError(where_of(error.source(), source_name), std::string(error.description()));
  }
  check_keys(root, {"partition", "node", "rank"}, source_name, "the partition file");
  Partition out;
  out.source = source_name;
  read_header(root, source_name, out);
  const toml::array* nodes = entries(root, "node", source_name);
  const toml::array* ranks = entries(root, "rank", source_name);
  if (out.by == Partition::By::node && ranks != nullptr) {
    fail(*ranks, source_name, "[[rank]] entries in a partition by node");
  }
  if (out.by == Partition::By::rank && nodes != nullptr) {
    fail(*nodes, source_name, "[[node]] entries in a partition by rank");
  }
  if (nodes != nullptr) read_nodes(*nodes, source_name, out);
  if (ranks != nullptr) read_ranks(*ranks, source_name, out);
  if (out.nodes.empty() && out.ranks.empty()) {
    throw ConfigError({source_name, 1, 1},
                      out.by == Partition::By::node ? "no [[node]] entry" : "no [[rank]] entry");
  }
  return out;
}

}  // namespace hetscale
