// Speed units. "flops" is used, as in HPC, for floating-point operations per second;
// K/M/G/T/P are decimal (1e3...), KiB/MiB/GiB binary, as their names say.
#include "hetscale/units.hpp"

#include <array>
#include <string>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

constexpr std::array<SpeedUnit, 26> units{{
    {"flops", 1.0},          {"Kflops", 1e3},
    {"Mflops", 1e6},         {"Gflops", 1e9},
    {"Tflops", 1e12},        {"Pflops", 1e15},
    {"flop/s", 1.0},         {"Kflop/s", 1e3},
    {"Mflop/s", 1e6},        {"Gflop/s", 1e9},
    {"Tflop/s", 1e12},       {"Pflop/s", 1e15},
    {"op/s", 1.0},           {"Kop/s", 1e3},
    {"Mop/s", 1e6},          {"Gop/s", 1e9},
    {"Top/s", 1e12},         {"B/s", 1.0},
    {"KB/s", 1e3},           {"MB/s", 1e6},
    {"GB/s", 1e9},           {"TB/s", 1e12},
    {"KiB/s", 1024.0},       {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0},
}};

std::string known_names() {
  std::string out;
  for (const SpeedUnit& u : units) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

}  // namespace

std::span<const SpeedUnit> known_speed_units() {
  return units;
}

double speed_unit_scale(std::string_view unit) {
  for (const SpeedUnit& u : units) {
    if (u.name == unit) return u.scale;
  }
  throw Error("unknown speed unit '" + std::string(unit) + "' (known: " + known_names() + ")");
}

double to_base_speed(double speed, std::string_view unit) {
  return speed * speed_unit_scale(unit);
}

}  // namespace hetscale
