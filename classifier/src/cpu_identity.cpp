// The tables behind cpu_identity.hpp. Arm codes: the Arm Architecture Reference Manual's
// MIDR_EL1 implementer codes and the part numbers of the cores found in servers; PCI
// vendor ids: the PCI-SIG assignments of the makers of accelerators.
#include "hetscale/classifier/cpu_identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

namespace hetscale {
namespace {

// "0x41", "0X41" or "65" as a number; none when it is no number.
std::optional<unsigned long> code_value(std::string_view code) {
  const std::string text(code);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 0);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return value;
}

struct ArmImplementer {
  unsigned long code;
  const char* name;
};

constexpr ArmImplementer arm_implementers[] = {
    {0x41, "ARM"},       {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x53, "Samsung"},   {0x56, "Marvell"},  {0x61, "Apple"},  {0x69, "Intel"},
    {0x6d, "Microsoft"}, {0x70, "Phytium"},  {0xc0, "Ampere"},
};

struct ArmPart {
  unsigned long implementer;
  unsigned long part;
  const char* name;
};

constexpr ArmPart arm_parts[] = {
    {0x41, 0xc09, "Cortex-A9"},   {0x41, 0xd03, "Cortex-A53"},   {0x41, 0xd05, "Cortex-A55"},
    {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},   {0x41, 0xd0b, "Cortex-A76"},
    {0x41, 0xd0c, "Neoverse-N1"}, {0x41, 0xd40, "Neoverse-V1"},  {0x41, 0xd49, "Neoverse-N2"},
    {0x41, 0xd4f, "Neoverse-V2"}, {0x41, 0xd84, "Neoverse-V3"},  {0x41, 0xd8e, "Neoverse-N3"},
    {0x41, 0xd85, "Cortex-X925"}, {0x41, 0xd87, "Cortex-A725"},  {0x43, 0x0af, "ThunderX2-99xx"},
    {0x46, 0x001, "A64FX"},       {0x48, 0xd01, "TaiShan-v110"}, {0x48, 0xd02, "TaiShan-v120"},
    {0x4e, 0x004, "Carmel"},      {0x70, 0x662, "FTC662"},       {0x70, 0x663, "FTC663"},
    {0xc0, 0xac3, "Ampere-1"},    {0xc0, 0xac4, "Ampere-1a"},
};

struct PciVendor {
  std::uint16_t id;
  const char* name;
};

constexpr PciVendor pci_vendors[] = {
    {0x1002, "AMD"},    {0x1022, "AMD"},         {0x10de, "NVIDIA"}, {0x8086, "Intel"},
    {0x1bcf, "NEC"},    {0x10ee, "Xilinx"},      {0x1172, "Altera"}, {0x1da3, "Habana Labs"},
    {0x1d0f, "Amazon"}, {0x1e52, "Tenstorrent"}, {0x19e5, "Huawei"}, {0x1014, "IBM"},
    {0x1a03, "ASPEED"}, {0x102b, "Matrox"},
};

}  // namespace

std::string arm_implementer_name(std::string_view implementer) {
  if (implementer.empty()) return "";
  if (const auto code = code_value(implementer)) {
    for (const ArmImplementer& known : arm_implementers)
      if (known.code == *code) return known.name;
  }
  return fmt::format("Arm implementer {}", implementer);
}

std::string arm_part_name(std::string_view implementer, std::string_view part) {
  if (part.empty()) return "";
  const auto vendor = code_value(implementer);
  const auto number = code_value(part);
  if (vendor && number) {
    for (const ArmPart& known : arm_parts)
      if (known.implementer == *vendor && known.part == *number) return known.name;
  }
  return fmt::format("part {}", part);
}

std::string architecture_vendor(std::string_view architecture) {
  std::string arch(architecture);
  std::transform(arch.begin(), arch.end(), arch.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (arch.starts_with("ppc") || arch.starts_with("power") || arch.starts_with("s390"))
    return "IBM";
  return "";
}

std::string pci_vendor_name(std::uint16_t vendor_id) {
  for (const PciVendor& known : pci_vendors)
    if (known.id == vendor_id) return known.name;
  return "";
}

}  // namespace hetscale
