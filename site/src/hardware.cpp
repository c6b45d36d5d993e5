#include "hetscale/site/hardware.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace hetscale {
namespace {

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

// Trims and collapses runs of blanks: "Intel(R)  Xeon(R) " and "Intel(R) Xeon(R)" are
// the same model.
std::string normalise_text(const std::string& text) {
  std::string out;
  bool blank = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

std::uint64_t nominal_memory_gib(std::uint64_t memory_bytes) {
  if (memory_bytes == 0) return 0;
  const std::uint64_t unit = std::max(gib, std::bit_floor(memory_bytes) / 8);
  const std::uint64_t units = (memory_bytes + unit / 2) / unit;
  return std::max<std::uint64_t>(units, 1) * unit / gib;
}

std::string fingerprint_text(const HardwareParts& parts) {
  std::string text = fmt::format("vendor={};model={};packages={};cores={};pus={};numa={};",
                                 normalise_text(parts.cpu_vendor), normalise_text(parts.cpu_model),
                                 parts.packages, parts.cores, parts.pus, parts.numa_nodes);
  std::vector<CacheLevel> caches = parts.caches;
  std::sort(caches.begin(), caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  for (const CacheLevel& c : caches)
    text += fmt::format("L{}={}x{};", c.level, c.size_bytes, c.count);
  text += fmt::format("memory_gib={};", nominal_memory_gib(parts.memory_bytes));
  std::vector<std::string> accelerators;
  for (const std::string& a : parts.accelerators) accelerators.push_back(normalise_text(a));
  std::sort(accelerators.begin(), accelerators.end());
  for (const std::string& a : accelerators) text += "accelerator=" + a + ";";
  return text;
}

std::string hardware_fingerprint(const HardwareParts& parts) {
  return fmt::format("{:016x}", fnv1a64(fingerprint_text(parts)));
}

}  // namespace hetscale
