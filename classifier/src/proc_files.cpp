#include "hetscale/classifier/proc_files.hpp"

#include <algorithm>
#include <charconv>

namespace hetscale {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::uint64_t meminfo_total_bytes(std::istream& meminfo) {
  std::string line;
  while (std::getline(meminfo, line)) {
    if (!line.starts_with("MemTotal:")) continue;
    const std::string value = trim(line.substr(9));
    std::uint64_t kib = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), kib);
    if (error != std::errc() || trim(std::string(end, value.data() + value.size())) != "kB")
      return 0;
    return kib * 1024;
  }
  return 0;
}

CpuinfoFacts parse_cpuinfo(std::istream& cpuinfo) {
  CpuinfoFacts facts;
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "vendor_id" && facts.vendor.empty()) {
      facts.vendor = value;
    } else if (key == "CPU implementer" && facts.implementer.empty()) {
      facts.implementer = value;
    } else if (key == "CPU part" && facts.part.empty()) {
      facts.part = value;
    } else if (key == "model name" && facts.model.empty()) {
      facts.model = value;
    } else if (key == "cpu MHz") {
      double mhz = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), mhz);
      if (error == std::errc() && end == value.data() + value.size())
        facts.mhz = std::max(facts.mhz, mhz);
    }
  }
  return facts;
}

}  // namespace hetscale
