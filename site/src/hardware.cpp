#include "hetscale/site/hardware.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>

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

// "kind=1:IntelCore:6c12p;": a kind's rank, core type and size; not its frequencies.
std::string kind_text(const CpuKind& kind) {
  return fmt::format("kind={}:{}:{}c{}p;",
                     kind.efficiency ? std::to_string(*kind.efficiency) : std::string("?"),
                     kind.core_type.empty() ? "-" : kind.core_type, kind.cores, kind.cpus.size());
}

bool only_dram(const std::vector<MemoryTier>& memory) {
  return std::all_of(memory.begin(), memory.end(),
                     [](const MemoryTier& t) { return t.kind == "DRAM"; });
}

// The memory tiers as "tier=HBM:16x4;" (kind, nominal GiB of one node, how many nodes).
std::string tiers_text(const std::vector<MemoryTier>& memory) {
  std::map<std::pair<std::string, std::string>, unsigned> tiers;
  for (const MemoryTier& t : memory)
    ++tiers[{t.kind, t.bytes ? std::to_string(nominal_memory_gib(*t.bytes)) : std::string("?")}];
  std::string text;
  for (const auto& [tier, count] : tiers)
    text += fmt::format("tier={}:{}x{};", tier.first, tier.second, count);
  return text;
}

// "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" -> "Intel Xeon Gold 6248": the marks, the
// word "CPU", "Processor", the clock and "64-Core" go.
std::string short_cpu_model(const std::string& cpu_model) {
  std::string model = cpu_model;
  if (const auto at = model.find(" @ "); at != std::string::npos) model.resize(at);
  for (const std::string_view noise : {"(R)", "(r)", "(TM)", "(tm)", " CPU", " Processor"}) {
    for (auto at = model.find(noise); at != std::string::npos; at = model.find(noise))
      model.erase(at, noise.size());
  }
  std::string out;
  std::size_t start = 0;
  model = normalise_text(model);
  while (start < model.size()) {
    const std::size_t end = std::min(model.find(' ', start), model.size());
    const std::string_view word = std::string_view(model).substr(start, end - start);
    const bool core_count = word.ends_with("-Core") && word.size() > 5 &&
                            std::all_of(word.begin(), word.end() - 5, [](char c) {
                              return std::isdigit(static_cast<unsigned char>(c)) != 0;
                            });
    if (!core_count) {
      if (!out.empty()) out += ' ';
      out += word;
    }
    start = end + 1;
  }
  return out;
}

// Bytes in GiB, rounded up to the fingerprint's unit and written "GB" as vendors label
// memory: a 32 GiB laptop's 31 GiB of MemTotal reads "32 GB", a P100's 15.9 GiB "16 GB".
std::string gigabytes(std::uint64_t bytes) {
  const std::uint64_t unit = std::max(gib, std::bit_floor(bytes) / 8);
  return fmt::format("{} GB", (bytes + unit - 1) / unit * unit / gib);
}

std::string cpu_summary(const HardwareParts& h) {
  std::string model = short_cpu_model(h.cpu_model);
  if (model.empty()) model = h.architecture.empty() ? "unknown CPU" : h.architecture;
  std::string text = model;
  if (h.cores > 0)
    text = h.packages > 0 && h.cores % h.packages == 0
               ? fmt::format("{}x{}c {}", h.packages, h.cores / h.packages, model)
               : fmt::format("{}c {}", h.cores, model);
  if (h.cpu_kinds.size() > 1) {
    std::vector<std::string> sizes;
    for (auto kind = h.cpu_kinds.rbegin(); kind != h.cpu_kinds.rend(); ++kind)
      sizes.push_back(std::to_string(kind->cores));
    text += fmt::format(" ({} cores of {} kinds)", fmt::join(sizes, " + "), h.cpu_kinds.size());
  }
  return text;
}

std::string accelerator_label(const Accelerator& a) {
  std::string label = a.model;
  if (label.empty())
    label = fmt::format("{} {}", a.vendor.empty() ? a.kind : a.vendor,
                        a.pci_id.empty() ? "device" : a.pci_id);
  if (a.memory_bytes) label += " " + gigabytes(*a.memory_bytes);
  return label;
}

std::string memory_summary(const HardwareParts& h) {
  std::vector<std::string> parts;
  std::map<std::string, std::uint64_t> by_kind;
  bool unknown = h.memory.empty();
  for (const MemoryTier& t : h.memory) {
    if (t.bytes)
      by_kind[t.kind] += *t.bytes;
    else
      unknown = true;
  }
  if (unknown || by_kind.empty()) {
    if (h.memory_bytes) parts.push_back(gigabytes(*h.memory_bytes) + " memory");
  } else {
    for (const auto& [kind, bytes] : by_kind) parts.push_back(gigabytes(bytes) + " " + kind);
  }
  std::uint64_t cache = 0;
  for (const CacheLevel& c : h.caches)
    if (c.memory_side) cache += c.size_bytes * c.count;
  if (cache > 0) parts.push_back(gigabytes(cache) + " memory-side cache");
  return fmt::format("{}", fmt::join(parts, " + "));
}

}  // namespace

std::uint64_t nominal_memory_gib(std::uint64_t memory_bytes) {
  if (memory_bytes == 0) return 0;
  const std::uint64_t unit = std::max(gib, std::bit_floor(memory_bytes) / 8);
  const std::uint64_t units = (memory_bytes + unit / 2) / unit;
  return std::max<std::uint64_t>(units, 1) * unit / gib;
}

std::string accelerator_identity(const Accelerator& accelerator) {
  if (!accelerator.pci_id.empty()) return accelerator.kind + " " + accelerator.pci_id;
  return normalise_text(accelerator.kind + " " + accelerator.model);
}

std::string fingerprint_text(const HardwareParts& parts) {
  std::string text = fmt::format("vendor={};model={};packages={};cores={};pus={};numa={};",
                                 normalise_text(parts.cpu_vendor), normalise_text(parts.cpu_model),
                                 parts.packages, parts.cores, parts.pus, parts.numa_nodes);
  std::vector<CacheLevel> caches = parts.caches;
  std::stable_sort(caches.begin(), caches.end(), [](const CacheLevel& a, const CacheLevel& b) {
    return std::pair(a.memory_side, a.level) < std::pair(b.memory_side, b.level);
  });
  for (const CacheLevel& c : caches)
    if (!c.memory_side) text += fmt::format("L{}={}x{};", c.level, c.size_bytes, c.count);
  text += fmt::format("memory_gib={};", nominal_memory_gib(parts.memory_bytes.value_or(0)));
  std::vector<std::string> accelerators;
  for (const Accelerator& a : parts.accelerators) accelerators.push_back(accelerator_identity(a));
  std::sort(accelerators.begin(), accelerators.end());
  for (const std::string& a : accelerators) text += "accelerator=" + a + ";";
  // Added parts only where they tell nodes apart, so that a homogeneous node's text (and
  // every fingerprint recorded before they were added) stays the same.
  if (parts.cpu_kinds.size() > 1)
    for (const CpuKind& kind : parts.cpu_kinds) text += kind_text(kind);
  for (const CacheLevel& c : caches)
    if (c.memory_side)
      text += fmt::format("memory_side_L{}={}x{};", c.level, c.size_bytes, c.count);
  if (!only_dram(parts.memory)) text += tiers_text(parts.memory);
  return text;
}

std::string hardware_fingerprint(const HardwareParts& parts) {
  return fmt::format("{:016x}", fnv1a64(fingerprint_text(parts)));
}

std::string hardware_summary(const HardwareParts& parts) {
  std::vector<std::string> items{cpu_summary(parts)};
  std::vector<std::pair<std::string, unsigned>> accelerators;  // label, count, in first-seen order
  for (const Accelerator& a : parts.accelerators) {
    const std::string label = accelerator_label(a);
    auto it = std::find_if(accelerators.begin(), accelerators.end(),
                           [&](const auto& entry) { return entry.first == label; });
    if (it == accelerators.end())
      accelerators.emplace_back(label, 1);
    else
      ++it->second;
  }
  for (const auto& [label, count] : accelerators)
    items.push_back(fmt::format("{}x {}", count, label));
  if (std::string memory = memory_summary(parts); !memory.empty()) items.push_back(memory);
  return fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace hetscale
