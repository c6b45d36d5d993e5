#include "common/kernel_options.hpp"

#include <charconv>

#include "hetscale/error.hpp"

namespace hetscale::kernels {
namespace {

template <typename Int>
Int parse_integer(std::string_view text, std::string_view option) {
  Int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw Error(std::string(option) + ": '" + std::string(text) + "' is not a non-negative integer");
  }
  return value;
}

}  // namespace

KernelOptions parse_kernel_options(std::span<const std::string_view> args) {
  KernelOptions options;
  bool have_n = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view name = args[i];
    std::optional<std::string_view> inline_value;
    if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string_view::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "-h" || name == "--help") {
      options.help = true;
      continue;
    }
    auto value = [&]() -> std::string_view {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) throw Error(std::string(name) + " needs a value");
      return args[++i];
    };
    if (name == "-N" || name == "--N") {
      options.n = parse_integer<std::size_t>(value(), "-N");
      if (options.n == 0) throw Error("-N: the problem size must be at least 1");
      have_n = true;
    } else if (name == "--seed") {
      options.seed = parse_integer<std::uint64_t>(value(), "--seed");
    } else if (name == "--record") {
      options.record = std::string(value());
      if (options.record->empty()) throw Error("--record: empty file name");
    } else if (name == "--weights") {
      options.weights = std::string(value());
    } else if (name == "--experiment") {
      options.experiment = std::string(value());
    } else {
      throw Error("unknown argument '" + std::string(args[i]) + "' (see --help)");
    }
  }
  if (!have_n && !options.help) throw Error("missing -N <n>, the problem size");
  return options;
}

std::string kernel_usage(std::string_view program) {
  return "usage: " + std::string(program) +
         " -N <n> [--seed S] [--record FILE] [--weights equal|w1,w2,...] [--experiment NAME]\n"
         "  -N <n>          problem size (N x N)\n"
         "  --seed S        input data seed (default 1)\n"
         "  --record FILE   append the run record here (default: $HETSCALE_RECORD; none if unset)\n"
         "  --weights W     'equal' or one positive weight per rank (default: each rank's\n"
         "                  $HETSCALE_WEIGHT; equal weights when absent)\n"
         "  --experiment X  experiment name (default: $HETSCALE_EXPERIMENT)\n";
}

}  // namespace hetscale::kernels
