#include "hetscale/site/site_table_cache.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "hetscale/base/number_limits.hpp"

namespace hetscale {
namespace {

constexpr std::string_view kMagic = "hetscale-site-cache 1";

bool clean(std::string_view text) {
  return text.find_first_of("\t\n\r") == std::string_view::npos;
}

std::string number(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

// Splits one line on tabs into `fields`; returns the number of fields.
std::size_t split(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t start = 0;
  while (true) {
    std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab - start));
    if (tab == std::string_view::npos) return fields.size();
    start = tab + 1;
  }
}

template <typename T>
bool read_number(std::string_view text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// A marked speed as the site table allows it: from_chars also reads "inf" and "nan".
bool read_speed(std::string_view text, double& out) {
  return read_number(text, out) && std::isfinite(out) && out > 0 && out <= kMaxProcessorSpeed;
}

std::optional<NodeState> state_of(std::string_view text) {
  for (NodeState state : {NodeState::ok, NodeState::degraded, NodeState::excluded}) {
    if (to_string(state) == text) return state;
  }
  return std::nullopt;
}

// Applies one cache line to `table`; false when it is not understood.
bool apply_line(const std::vector<std::string_view>& f, SiteTable& table) {
  if (f[0] == "node" && f.size() == 6) {
    Node node;
    node.name = f[1];
    node.group = f[2];
    std::optional<NodeState> state = state_of(f[5]);
    if (!read_number(f[3], node.processors) || node.processors == 0 ||
        !read_speed(f[4], node.marked_speed) || !state) {
      return false;
    }
    node.state = *state;
    table.nodes.push_back(std::move(node));
    return true;
  }
  if (f[0] == "group" && f.size() == 3) {
    Group group;
    group.name = f[1];
    if (!read_speed(f[2], group.marked_speed)) return false;
    table.groups.push_back(std::move(group));
    return true;
  }
  if (f.size() != 2) return false;
  if (f[0] == "site")
    table.name = f[1];
  else if (f[0] == "unit")
    table.speed_unit = f[1];
  else if (f[0] == "benchmark")
    table.benchmark = f[1];
  else if (f[0] == "source")
    table.source = std::string(f[1]);
  else
    return false;
  return true;
}

}  // namespace

FileStamp stamp_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  return {static_cast<std::uint64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<std::uint64_t>(st.st_ino)};
}

std::optional<std::string> format_site_cache(const SiteTable& table, const FileStamp& stamp) {
  if (!clean(table.name) || !clean(table.speed_unit) || !clean(table.benchmark) ||
      !clean(table.source.string())) {
    return std::nullopt;
  }
  std::string out(kMagic);
  out += "\nstamp\t" + std::to_string(stamp.size) + '\t' + std::to_string(stamp.mtime_ns) + '\t' +
         std::to_string(stamp.inode) + '\n';
  out += "site\t" + table.name + "\nunit\t" + table.speed_unit + "\nbenchmark\t" + table.benchmark +
         "\nsource\t" + table.source.string() + '\n';
  for (const Group& group : table.groups) {
    if (!clean(group.name)) return std::nullopt;
    out += "group\t" + group.name + '\t' + number(group.marked_speed) + '\n';
  }
  for (const Node& node : table.nodes) {
    if (!clean(node.name) || !clean(node.group)) return std::nullopt;
    out += "node\t" + node.name + '\t' + node.group + '\t' + std::to_string(node.processors) +
           '\t' + number(node.marked_speed) + '\t' + std::string(to_string(node.state)) + '\n';
  }
  out += "end\n";
  return out;
}

std::optional<SiteTable> parse_site_cache(std::string_view text, const FileStamp& expected,
                                          std::span<const std::string> only_nodes) {
  std::unordered_set<std::string_view> wanted(only_nodes.begin(), only_nodes.end());
  std::string expected_head = std::string(kMagic) + "\nstamp\t" + std::to_string(expected.size) +
                              '\t' + std::to_string(expected.mtime_ns) + '\t' +
                              std::to_string(expected.inode) + '\n';
  if (text.substr(0, expected_head.size()) != expected_head) return std::nullopt;
  if (text.size() < 4 || text.substr(text.size() - 4) != "end\n") return std::nullopt;  // torn
  text = text.substr(expected_head.size(), text.size() - expected_head.size() - 4);
  SiteTable table;
  std::vector<std::string_view> fields;
  while (!text.empty()) {
    std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos) return std::nullopt;
    split(text.substr(0, eol), fields);
    bool skip =
        !wanted.empty() && fields[0] == "node" && fields.size() > 1 && !wanted.contains(fields[1]);
    if (!skip && !apply_line(fields, table)) return std::nullopt;
    text.remove_prefix(eol + 1);
  }
  table.index();
  return table;
}

}  // namespace hetscale
