// Command line shared by the kernels: -N <n> [--seed S] [--record FILE]
// [--weights equal|marked|w1,w2,...|FILE] [--weights-file FILE] [--site FILE]
// [--experiment NAME] [--compute real|flops] [--platform-hash HEX]
// [--fft-planning estimate|measure] [--fft-wisdom FILE|none]
// [--message-piece-bytes B] [--mpi-count-limit C]. Pure: every rank
// parses the same argv and reaches the same verdict, so a bad argument never leaves a
// rank waiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/engine.hpp"
#include "common/layout.hpp"
#include "serial/fft.hpp"

namespace hetscale::kernels {

struct KernelOptions {
  std::size_t n = 0;                    // problem size N (required)
  std::uint64_t seed = 1;               // input data seed
  std::optional<std::string> record;    // run record file; else HETSCALE_RECORD
  std::optional<std::string> weights;   // --weights text; else HETSCALE_WEIGHT
  std::optional<std::string> weights_file;  // --weights-file: a partition file
  std::optional<std::string> site;          // --site: site table; else HETSCALE_SITE
  std::optional<std::string> experiment;  // else HETSCALE_EXPERIMENT
  ComputeMode compute = ComputeMode::real;   // --compute; default_compute_mode() of the build
  std::optional<std::string> platform_hash;  // --platform-hash (SimGrid build only)
  double compute_efficiency = 1;  // --compute-efficiency (SimGrid build): charged = ops / this
  double start_at = 0;  // --start-at (SimGrid build): simulated seconds every rank idles before the start line
  FftPlanning fft_planning = FftPlanning::measure;  // --fft-planning (conv2d)
  std::optional<std::string> fft_wisdom;  // --fft-wisdom (conv2d); "none": no saved wisdom
  MessageLimits message_limits;  // --message-piece-bytes, --mpi-count-limit (tests)
  bool help = false;
};

/// args excludes the program name; `simgrid` says which build parses (flops mode and
/// --platform-hash exist only there). Throws Error with a one-line message.
[[nodiscard]] KernelOptions parse_kernel_options(std::span<const std::string_view> args,
                                                 bool simgrid = simgrid_build);

/// The usage text for `program`.
[[nodiscard]] std::string kernel_usage(std::string_view program, bool simgrid = simgrid_build);

}  // namespace hetscale::kernels
