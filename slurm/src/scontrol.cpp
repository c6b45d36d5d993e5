// Reading scontrol's one-line records (slurm/include/hetscale/slurm/scontrol.hpp).
#include "hetscale/slurm/scontrol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>

#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"

namespace hetscale::slurm {
namespace {

// The fields of a node line whose values may hold blanks, in the order Slurm prints them;
// every one of them comes after every plain "Key=value" field.
constexpr std::array<std::string_view, 9> free_text_node_keys = {
    "Reason", "Comment", "Extra", "ReservationName", "InstanceId", "InstanceType", "TLSCertTokenSet",
    "TLSCertLastRenewal", "Topology"};

[[noreturn]] void refuse(std::string_view what, std::size_t line_number, std::string_view line) {
  throw Error(fmt::format("cannot read `scontrol show {} --oneliner`: line {} is not a {} record: '{}'", what,
                          line_number, what, line.substr(0, 200)));
}

// Where " Key=" of one of `keys` starts in `line` at or after `from`, or npos.
std::size_t next_free_text_field(std::string_view line, std::size_t from) {
  std::size_t best = std::string_view::npos;
  for (std::string_view key : free_text_node_keys) {
    for (std::size_t at = line.find(key, from); at != std::string_view::npos; at = line.find(key, at + 1)) {
      const bool starts_word = at == 0 || line[at - 1] == ' ';
      const bool has_value = at + key.size() < line.size() && line[at + key.size()] == '=';
      if (starts_word && has_value) {
        best = std::min(best, at);
        break;
      }
    }
  }
  return best;
}

// The free-text fields of a node line (from `at` on), by name.
std::vector<std::pair<std::string_view, std::string_view>> free_text_fields(std::string_view line,
                                                                           std::size_t at) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  while (at != std::string_view::npos) {
    const std::size_t eq = line.find('=', at);
    const std::size_t next = next_free_text_field(line, eq + 1);
    std::string_view value = line.substr(eq + 1, next == std::string_view::npos ? std::string_view::npos
                                                                                 : next - eq - 1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    out.emplace_back(line.substr(at, eq - at), value);
    at = next;
  }
  return out;
}

// scontrol writes a reason as "text [user@time]"; "(null)" and "none" mean none.
std::string reason_text(std::string_view value) {
  if (const auto bracket = value.rfind(" ["); bracket != std::string_view::npos && value.ends_with("]") &&
                                              value.find('@', bracket) != std::string_view::npos)
    value = value.substr(0, bracket);
  if (value == "(null)" || value == "none" || value == "None") return {};
  return std::string(value);
}

std::optional<std::uint64_t> digits(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;  // no overflow below 10^9 days
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

}  // namespace

std::optional<std::string> oneliner_field(std::string_view line, std::string_view key) {
  for (std::size_t at = 0; at < line.size();) {
    const std::size_t end = std::min(line.find_first_of(" \n", at), line.size());
    const std::string_view word = line.substr(at, end - at);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=')
      return std::string(word.substr(key.size() + 1));
    at = end + 1;
  }
  return std::nullopt;
}

std::vector<std::string_view> oneliner_lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.find_first_not_of(' ') != std::string_view::npos) out.push_back(line);
    at = end + 1;
  }
  return out;
}

std::vector<Node> parse_scontrol_nodes(std::string_view text) {
  std::vector<Node> out;
  const auto lines = oneliner_lines(text);
  if (lines.size() == 1 && lines.front() == "No nodes in the system") return out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (!line.starts_with("NodeName=")) refuse("node", i + 1, line);
    const std::size_t free_text = next_free_text_field(line, 0);
    const std::string_view plain = line.substr(0, free_text);
    Node node;
    node.name = oneliner_field(plain, "NodeName").value_or("");
    const auto state = oneliner_field(plain, "State");
    if (node.name.empty() || !state || state->empty()) refuse("node", i + 1, line);
    node.state = *state;
    if (free_text != std::string_view::npos) {
      for (const auto& [key, value] : free_text_fields(line, free_text)) {
        if (key == "Reason") node.reason = reason_text(value);
        if (key == "Comment" && value != "(null)") node.comment = std::string(value);
      }
    }
    out.push_back(std::move(node));
  }
  return out;
}

std::vector<Reservation> parse_scontrol_reservations(std::string_view text) {
  std::vector<Reservation> out;
  const auto lines = oneliner_lines(text);
  if (lines.size() == 1 && lines.front() == "No reservations in the system") return out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (!line.starts_with("ReservationName=")) refuse("reservation", i + 1, line);
    Reservation r;
    r.name = oneliner_field(line, "ReservationName").value_or("");
    const auto nodes = oneliner_field(line, "Nodes");
    const auto state = oneliner_field(line, "State");
    if (r.name.empty() || !state) refuse("reservation", i + 1, line);
    try {
      if (nodes && !nodes->empty() && *nodes != "(null)") r.nodes = expand_hostlist(*nodes);
    } catch (const Error&) {
      refuse("reservation", i + 1, line);
    }
    r.active = *state == "ACTIVE";
    r.end_time = oneliner_field(line, "EndTime").value_or("");
    out.push_back(std::move(r));
  }
  return out;
}

Partition parse_scontrol_partition(std::string_view text) {
  const auto name = oneliner_field(text, "PartitionName");
  const auto nodes = oneliner_field(text, "Nodes");
  if (!name || !nodes) throw Error(fmt::format("unexpected scontrol output: '{}'", text.substr(0, 200)));
  Partition out{*name, {}, std::nullopt};
  if (*nodes != "(null)") out.nodes = expand_hostlist(*nodes);
  if (const auto max_time = oneliner_field(text, "MaxTime"); max_time && *max_time != "UNLIMITED") {
    out.max_time_seconds = parse_slurm_time(*max_time);
    if (!out.max_time_seconds)
      throw Error(fmt::format("unexpected MaxTime '{}' in scontrol output: '{}'", *max_time, text.substr(0, 200)));
  }
  return out;
}

std::optional<std::string> cluster_name_of_config(std::string_view text) {
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    // "ClusterName             = hetscale"
    if (line.rfind("ClusterName", 0) != 0) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const auto begin = line.find_first_not_of(' ', eq + 1);
    if (begin == std::string::npos) return std::nullopt;
    const auto end = line.find_last_not_of(" \r");
    return line.substr(begin, end - begin + 1);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_slurm_time(std::string_view text) {
  std::uint64_t days = 0;
  std::string_view clock = text;
  const bool has_days = text.find('-') != std::string_view::npos;
  if (has_days) {
    const auto d = digits(text.substr(0, text.find('-')));
    if (!d) return std::nullopt;
    days = *d;
    clock = text.substr(text.find('-') + 1);
  }
  std::vector<std::uint64_t> fields;
  for (std::size_t start = 0;;) {
    const auto colon = clock.find(':', start);
    const auto v =
        digits(clock.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (!v) return std::nullopt;
    fields.push_back(*v);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (fields.size() > 3) return std::nullopt;
  std::uint64_t seconds = 0;
  if (has_days) {  // D-H, D-H:M, D-H:M:S
    const std::uint64_t unit[] = {3600, 60, 1};
    for (std::size_t i = 0; i < fields.size(); ++i) seconds += fields[i] * unit[i];
  } else if (fields.size() == 1) {  // M
    seconds = fields[0] * 60;
  } else if (fields.size() == 2) {  // M:S
    seconds = fields[0] * 60 + fields[1];
  } else {  // H:M:S
    seconds = fields[0] * 3600 + fields[1] * 60 + fields[2];
  }
  return days * 86400 + seconds;
}

std::string format_slurm_time(std::uint64_t seconds) {
  const std::uint64_t days = seconds / 86400;
  const std::uint64_t h = seconds % 86400 / 3600, m = seconds % 3600 / 60, s = seconds % 60;
  if (days > 0) return fmt::format("{}-{:02}:{:02}:{:02}", days, h, m, s);
  return fmt::format("{:02}:{:02}:{:02}", h, m, s);
}

}  // namespace hetscale::slurm
