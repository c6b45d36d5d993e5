#include "common/kernel_options.hpp"

#include <charconv>
#include <climits>

#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/site/run_record.hpp"

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

// A finite number (finite_number) that `ok` accepts, else Error "OPTION: 'TEXT' is not WHAT".
template <typename Accept>
double parse_in_range(std::string_view text, std::string_view option, std::string_view what, Accept ok) {
  const std::optional<double> v = finite_number(text);
  if (!v || !ok(*v)) throw Error(std::string(option) + ": '" + std::string(text) + "' is not " + std::string(what));
  return *v;
}

}  // namespace

KernelOptions parse_kernel_options(std::span<const std::string_view> args, bool simgrid) {
  KernelOptions options;
  options.compute = default_compute_mode(simgrid);
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
    } else if (name == "--weights-file") {
      options.weights_file = std::string(value());
      if (options.weights_file->empty()) throw Error("--weights-file: empty file name");
    } else if (name == "--site") {
      options.site = std::string(value());
      if (options.site->empty()) throw Error("--site: empty file name");
    } else if (name == "--experiment") {
      options.experiment = std::string(value());
    } else if (name == "--compute") {
      options.compute = parse_compute_mode(value(), simgrid);
    } else if (name == "--platform-hash") {
      if (!simgrid)
        throw Error("--platform-hash: only the SimGrid build (hetscale-twin-*) runs on a platform");
      options.platform_hash = std::string(value());
      if (!is_platform_hash(*options.platform_hash)) {
        throw Error("--platform-hash: '" + *options.platform_hash + "' is not hexadecimal digits");
      }
    } else if (name == "--compute-efficiency") {
      if (!simgrid)
        throw Error("--compute-efficiency: only the SimGrid build (hetscale-twin-*) charges operations");
      options.compute_efficiency = parse_in_range(value(), "--compute-efficiency", "a number in (0, 2]",
                                                  [](double e) { return e > 0 && e <= 2; });
    } else if (name == "--start-at") {
      if (!simgrid) throw Error("--start-at: only the SimGrid build (hetscale-twin-*) has a simulated clock");
      options.start_at = parse_in_range(value(), "--start-at", "a number of seconds in [0, 1e7]",
                                        [](double t) { return t >= 0 && t <= 1e7; });
    } else if (name == "--fft-planning") {
      try {
        options.fft_planning = parse_fft_planning(value());
      } catch (const Error& e) {
        throw Error(std::string("--fft-planning: ") + e.what());
      }
    } else if (name == "--message-piece-bytes") {
      options.message_limits.piece_bytes = parse_integer<std::size_t>(value(), "--message-piece-bytes");
      if (options.message_limits.piece_bytes == 0) throw Error("--message-piece-bytes: must be at least 1");
    } else if (name == "--synchronous-send-bytes") {
      options.message_limits.synchronous_bytes = parse_integer<std::size_t>(value(), "--synchronous-send-bytes");
      if (options.message_limits.synchronous_bytes > synchronous_send_bytes)
        throw Error("--synchronous-send-bytes: must be in [0, " + std::to_string(synchronous_send_bytes) + "]");
    } else if (name == "--mpi-count-limit") {
      options.message_limits.max_count = parse_integer<std::size_t>(value(), "--mpi-count-limit");
      if (options.message_limits.max_count == 0 || options.message_limits.max_count > INT_MAX)
        throw Error("--mpi-count-limit: must be in [1, " + std::to_string(INT_MAX) + "]");
    } else if (name == "--fft-wisdom") {
      options.fft_wisdom = std::string(value());
      if (options.fft_wisdom->empty()) throw Error("--fft-wisdom: empty file name");
    } else {
      throw Error("unknown argument '" + std::string(args[i]) + "' (see --help)");
    }
  }
  if (!have_n && !options.help) throw Error("missing -N <n>, the problem size");
  if (options.weights && options.weights_file)
    throw Error("give --weights or --weights-file, not both");
  return options;
}

std::string kernel_usage(std::string_view program, bool simgrid) {
  std::string usage =
      "usage: " + std::string(program) +
      " -N <n> [--seed S] [--record FILE] [--weights equal|marked|w1,w2,...|FILE]\n"
      "       [--fft-planning estimate|measure] [--fft-wisdom FILE|none]\n"
      "       [--message-piece-bytes B] [--synchronous-send-bytes B] [--mpi-count-limit C]\n"
      "       [--weights-file FILE] [--site FILE] [--experiment NAME] [--compute real" +
      (simgrid ? "|flops] [--platform-hash HEX]\n       [--compute-efficiency E] [--start-at S]\n" : "]\n") +
      "  -N <n>             problem size (N x N)\n"
      "  --seed S           input data seed (default 1)\n"
      "  --record FILE      append the run record here (default: $HETSCALE_RECORD; none if unset)\n"
      "  --weights W        'equal', 'marked' (from the site table), one positive weight per\n"
      "                     rank, or a partition file (a path with a '/', e.g. ./part.toml;\n"
      "                     default: each rank's $HETSCALE_WEIGHT; equal weights when absent)\n"
      "  --weights-file F   the weights from partition file F (by rank or by node)\n"
      "  --site FILE        site table for 'marked' and for marked speeds (default: "
      "$HETSCALE_SITE)\n"
      "  --experiment X     experiment name (default: $HETSCALE_EXPERIMENT)\n"
      "  --fft-planning P   conv2d: 'measure' (default: FFTW times candidate algorithms\n"
      "                     before the timed region) or 'estimate' (FFTW's model)\n"
      "  --fft-wisdom FILE  conv2d: FFTW wisdom read before planning and saved after (default:\n"
      "                     $HETSCALE_FFTW_WISDOM, else /var/tmp/hetscale-fftw-wisdom.<uid>;\n"
      "                     'none': plan from scratch, save nothing)\n"
      "  --message-piece-bytes B  for tests: no message larger than B bytes (default: as\n"
      "                     large as one call's count allows); larger ones go in pieces\n"
      "  --synchronous-send-bytes B  for tests: in the twin, messages above B bytes are sent\n"
      "                     synchronously, their broadcasts by the kernel's own binomial tree\n"
      "                     (default and maximum 2147483647)\n"
      "  --mpi-count-limit C  for tests: no MPI count or displacement above C (default and\n"
      "                     maximum INT_MAX); larger layouts go in several calls\n";
  if (simgrid) {
    usage +=
        "  --compute M        flops (default): charge each rank's operations to its simulated\n"
        "                     host, unverified; real: compute and verify\n"
        "  --platform-hash H  hash of the platform file, copied into the run record\n"
        "  --compute-efficiency E  the fraction of its host's speed the code attains, in (0, 2]\n"
        "                     (default 1): a charged computation of X operations costs X / E\n"
        "  --start-at S       every rank idles S simulated seconds before the timed region (default 0):\n"
        "                     the run meets the hosts' speed profiles S seconds in\n";
  } else {
    usage += "  --compute real     compute and verify (the only mode of this build)\n";
  }
  return usage;
}

}  // namespace hetscale::kernels
