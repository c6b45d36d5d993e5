// Slurm's array task lists and job states (slurm/include/hetscale/slurm/job_record.hpp).
#include "hetscale/slurm/job_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "hetscale/base/error.hpp"

namespace hetscale::slurm {
namespace {

constexpr std::uint64_t max_tasks = 10'000'000;

[[noreturn]] void refuse(std::string_view whole) {
  throw Error(fmt::format("not a Slurm array task list: '{}'", whole.substr(0, 100)));
}

std::uint64_t task_index(std::string_view text, std::string_view whole) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) refuse(whole);
  return value;
}

// "0x6": bit i set means task i; the last hex digit holds tasks 0 to 3.
std::vector<std::uint64_t> bitmap_tasks(std::string_view text) {
  const std::string_view digits = text.substr(2);
  if (digits.empty() || digits.size() > max_tasks / 4) refuse(text);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    const char c = digits[digits.size() - 1 - i];
    unsigned value = 0;
    if (c >= '0' && c <= '9') value = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') value = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') value = static_cast<unsigned>(c - 'A' + 10);
    else refuse(text);
    for (unsigned bit = 0; bit < 4; ++bit)
      if ((value >> bit) & 1U) out.push_back(i * 4 + bit);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::uint64_t> array_task_ids(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) return bitmap_tasks(text);
  const std::string_view list = text.substr(0, text.find('%'));
  std::vector<std::uint64_t> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::string_view item = list.substr(at, comma - at);
    std::uint64_t step = 1;
    if (const auto colon = item.find(':'); colon != std::string_view::npos) {
      step = task_index(item.substr(colon + 1), text);
      item = item.substr(0, colon);
      if (step == 0) refuse(text);
    }
    const auto dash = item.find('-');
    const std::uint64_t first = task_index(item.substr(0, dash), text);
    const std::uint64_t last = dash == std::string_view::npos ? first : task_index(item.substr(dash + 1), text);
    if (last < first || last - first > max_tasks || out.size() + (last - first) / step > max_tasks) refuse(text);
    for (std::uint64_t i = first; i <= last; i += step) out.push_back(i);
    at = comma + 1;
  }
  return out;
}

bool is_final_job_state(std::string_view state) {
  static constexpr std::array<std::string_view, 9> final_states = {
      "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
      "DEADLINE"};
  return std::find(final_states.begin(), final_states.end(), state) != final_states.end();
}

}  // namespace hetscale::slurm
