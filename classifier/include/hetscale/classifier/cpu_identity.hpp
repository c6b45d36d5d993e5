// Names for the identity codes hwloc and Linux give instead of names: an Arm CPU's
// implementer and part (from its MIDR, "CPU implementer"/"CPU part" of /proc/cpuinfo),
// a PCI vendor id, and the vendor of an architecture only one vendor makes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hetscale {

/// "ARM" for "0x41", "HiSilicon" for "0x48", "NVIDIA" for "0x4e"...; an unknown code
/// gives "Arm implementer 0x.."; an empty code gives "".
std::string arm_implementer_name(std::string_view implementer);

/// "Neoverse-N1" for implementer "0x41" and part "0xd0c", "TaiShan-v110" for "0x48"
/// "0xd01"...; an unknown pair gives "part 0xd0c"; an empty part gives "".
std::string arm_part_name(std::string_view implementer, std::string_view part);

/// "IBM" for POWER ("ppc64le", "ppc", "power9") and s390x, the architectures one vendor
/// makes; "" for any other (x86_64 and aarch64 have many).
std::string architecture_vendor(std::string_view architecture);

/// "NVIDIA" for 0x10de, "AMD" for 0x1002, "NEC" for 0x1bcf...; "" when unknown.
std::string pci_vendor_name(std::uint16_t vendor_id);

}  // namespace hetscale
