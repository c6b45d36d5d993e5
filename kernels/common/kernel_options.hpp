// Command line shared by the kernels: -N <n> [--seed S] [--record FILE]
// [--weights equal|w1,w2,...] [--experiment NAME]. Pure: every rank parses the same argv
// and reaches the same verdict, so a bad argument never leaves a rank waiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hetscale::kernels {

struct KernelOptions {
  std::size_t n = 0;                    // problem size N (required)
  std::uint64_t seed = 1;               // input data seed
  std::optional<std::string> record;    // run record file; else HETSCALE_RECORD
  std::optional<std::string> weights;   // --weights text; else HETSCALE_WEIGHT
  std::optional<std::string> experiment;  // else HETSCALE_EXPERIMENT
  bool help = false;
};

/// args excludes the program name. Throws Error with a one-line message.
[[nodiscard]] KernelOptions parse_kernel_options(std::span<const std::string_view> args);

/// The usage text for `program`.
[[nodiscard]] std::string kernel_usage(std::string_view program);

}  // namespace hetscale::kernels
