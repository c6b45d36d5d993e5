#include "hetscale/site/task_times.hpp"

#include <sys/wait.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "hetscale/base/error.hpp"
#include "hetscale/site/run_record.hpp"

namespace hetscale {
namespace {

template <typename Number>
Number field(std::string_view& rest, const std::string& where, const char* what) {
  const std::size_t begin = rest.find_first_not_of(' ');
  if (begin == std::string_view::npos) throw Error(fmt::format("{}: no {}", where, what));
  rest.remove_prefix(begin);
  Number value{};
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (ec != std::errc() || (end != rest.data() + rest.size() && *end != ' ')) {
    throw Error(fmt::format("{}: the {} is not an integer", where, what));
  }
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  return value;
}

}  // namespace

std::filesystem::path task_times_file(const std::filesystem::path& dir, std::string_view host) {
  if (host.empty() || host.find('/') != std::string_view::npos || host.find("..") != std::string_view::npos) {
    throw Error(fmt::format("'{}' cannot name a task times file", host));
  }
  return dir / (std::string(host) + ".tasks");
}

std::string task_time_line(const TaskTime& time) {
  return fmt::format("{} {} {} {}\n", time.task, time.start_ns, time.exit_ns, time.wait_status);
}

std::vector<TaskTime> parse_task_times(std::string_view text, const std::string& file) {
  std::vector<TaskTime> out;
  std::set<std::uint32_t> seen;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) break;  // a node still writing its last line
    std::string_view rest = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    const std::string where = fmt::format("{}:{}", file, ++line_number);
    if (line_number > kMaxTaskTimesPerNode) {
      throw Error(fmt::format("{}: more than {} tasks", where, kMaxTaskTimesPerNode));
    }
    TaskTime time;
    time.task = field<std::uint32_t>(rest, where, "task id");
    time.start_ns = field<std::int64_t>(rest, where, "start");
    time.exit_ns = field<std::int64_t>(rest, where, "exit");
    time.wait_status = field<int>(rest, where, "wait status");
    if (rest.find_first_not_of(' ') != std::string_view::npos) {
      throw Error(fmt::format("{}: more than four fields", where));
    }
    if (time.start_ns <= 0 || time.exit_ns < time.start_ns) {
      throw Error(fmt::format("{}: task {} exits at {} ns, before its start at {} ns", where, time.task,
                              time.exit_ns, time.start_ns));
    }
    if (!seen.insert(time.task).second) throw Error(fmt::format("{}: task {} a second time", where, time.task));
    out.push_back(time);
  }
  return out;
}

int shell_exit_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return std::min(128 + WTERMSIG(wait_status), max_exit_status);
  return 1;
}

}  // namespace hetscale
