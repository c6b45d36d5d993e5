// The facts hwloc lacks on some machines, read from Linux's /proc files (some
// virtual machines give no clock through hwloc and a wrong memory total).
#pragma once

#include <cstdint>
#include <istream>
#include <string>

namespace hetscale {

/// MemTotal of /proc/meminfo in bytes; 0 when the line is missing or malformed.
std::uint64_t meminfo_total_bytes(std::istream& meminfo);

struct CpuinfoFacts {
  std::string vendor;       // "vendor_id" (x86); empty when absent
  std::string model;        // "model name"; empty when absent
  std::string implementer;  // "CPU implementer" (Arm, "0x41"); empty when absent
  std::string part;         // "CPU part" (Arm, "0xd0c"); empty when absent
  double mhz = 0;           // highest "cpu MHz" over the processors; 0 when absent
};

/// Reads /proc/cpuinfo's text.
CpuinfoFacts parse_cpuinfo(std::istream& cpuinfo);

}  // namespace hetscale
