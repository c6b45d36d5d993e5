// Speed units. "flops" is used, as in HPC, for floating-point operations per second;
// K/M/G/T/P are decimal (1e3...), KiB/MiB/GiB binary, as their names say.
#include "hetscale/model/units.hpp"

#include <array>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

constexpr std::array<SpeedUnit, 26> units{{
    {"flops", 1.0, true},
    {"Kflops", 1e3, true},
    {"Mflops", 1e6, true},
    {"Gflops", 1e9, true},
    {"Tflops", 1e12, true},
    {"Pflops", 1e15, true},
    {"flop/s", 1.0, true},
    {"Kflop/s", 1e3, true},
    {"Mflop/s", 1e6, true},
    {"Gflop/s", 1e9, true},
    {"Tflop/s", 1e12, true},
    {"Pflop/s", 1e15, true},
    {"op/s", 1.0, true},
    {"Kop/s", 1e3, true},
    {"Mop/s", 1e6, true},
    {"Gop/s", 1e9, true},
    {"Top/s", 1e12, true},
    {"B/s", 1.0, false},
    {"KB/s", 1e3, false},
    {"MB/s", 1e6, false},
    {"GB/s", 1e9, false},
    {"TB/s", 1e12, false},
    {"KiB/s", 1024.0, false},
    {"MiB/s", 1048576.0, false},
    {"GiB/s", 1073741824.0, false},
    {"TiB/s", 1099511627776.0, false},
}};

std::string known_names() {
  std::string out;
  for (const SpeedUnit& u : units) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

struct TimeUnit {
  std::string_view name;
  double seconds;
};

constexpr std::array<TimeUnit, 6> time_units{{
    {"s", 1.0},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"ns", 1e-9},
    {"min", 60.0},
    {"h", 3600.0},
}};

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

std::optional<double> flops_scale(std::string_view unit) {
  for (const SpeedUnit& u : units) {
    if (u.name == unit) return u.operations ? std::optional<double>(u.scale) : std::nullopt;
  }
  return std::nullopt;
}

double time_unit_seconds(std::string_view unit) {
  std::string known;
  for (const TimeUnit& u : time_units) {
    if (u.name == unit) return u.seconds;
    known += (known.empty() ? "" : ", ") + std::string(u.name);
  }
  throw Error("unknown time unit '" + std::string(unit) + "' (known: " + known + ")");
}

}  // namespace hetscale
