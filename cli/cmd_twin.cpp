// hetscale twin: the SimGrid twin of a site (docs/twin.md). `twin platform` writes the
// platform and host file that smpirun takes, made by core from the site table.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "hetscale/site_table.hpp"
#include "hetscale/twin_platform.hpp"

namespace hetscale::cli {
namespace {

struct PlatformArgs {
  std::string site;
  std::string output_dir;
  std::optional<double> flops_per_unit;
};

void run_platform(const PlatformArgs& args, Context& context) {
  if (args.flops_per_unit && !(*args.flops_per_unit > 0 && std::isfinite(*args.flops_per_unit)))
    throw UsageError(
        fmt::format("--flops-per-unit must be positive and finite, not {}", *args.flops_per_unit));
  const SiteTable table = load_site_table(args.site);
  const TwinPlatform platform = make_twin_platform(table, {args.flops_per_unit});
  const TwinPlatformFiles files = write_twin_platform(platform, args.output_dir);
  const Network& n = platform.network;
  if (platform.default_network)
    context.err << fmt::format(
        "hetscale twin platform: {} has no [network]; using the defaults: topology {}, "
        "latency {} us, bandwidth {} MBps per host link\n",
        args.site, to_string(n.topology), n.latency_us, n.bandwidth_MBps);
  if (args.flops_per_unit)
    context.err << fmt::format("hetscale twin platform: 1 {} = {} flop/s (--flops-per-unit)\n",
                               table.speed_unit, platform.flops_per_unit);
  context.out << fmt::format("platform: {} ({} hosts, {})\n", files.platform.string(),
                             platform.hosts, to_string(n.topology));
  context.out << fmt::format("hostfile: {}\n", files.hostfile.string());
  context.out << fmt::format("sha256: {}\n", platform.sha256);
}

}  // namespace

void register_twin(CLI::App& app, Context& context) {
  auto* twin = app.add_subcommand("twin", "The SimGrid twin of the site");
  twin->require_subcommand(1);

  auto args = std::make_shared<PlatformArgs>();
  auto* platform = twin->add_subcommand(
      "platform",
      "Write a SimGrid platform (platform.xml), an smpirun host file (hostfile) and the "
      "platform's SHA-256 (platform.sha256) from a site table");
  platform->add_option("--site", args->site, "Site table (TOML)")->required();
  platform->add_option("-o,--output", args->output_dir, "Directory to write into (created)")
      ->required();
  platform->add_option("--flops-per-unit", args->flops_per_unit,
                       "flop/s of one unit of the site's speed_unit; needed when that unit is "
                       "not an operation rate (e.g. speed-factor), replaces the unit's own "
                       "scale otherwise");
  platform->callback([args, &context] { run_platform(*args, context); });
}

}  // namespace hetscale::cli
