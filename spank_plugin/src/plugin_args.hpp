// The plugstack.conf arguments of the plugin: strict key=value pairs, defaults first.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "hetscale/site/step_weights.hpp"

namespace hetscale::spank {

/// What a job gets when it does not ask.
enum class DefaultMode { off, marked };

struct PluginArgs {
  std::filesystem::path site = "/etc/hetscale/site.toml";
  DefaultMode default_mode = DefaultMode::off;
  std::filesystem::path partitions = "/etc/hetscale/partitions";
  OnMissing on_missing = OnMissing::fail;
  std::filesystem::path cache = "/var/cache/hetscale";  // empty: no site table cache
};

/// Parses "site=PATH default=off|marked partitions=DIR on_missing=fail|equal
/// cache=DIR|off" (any order, each at most once). Throws Error "hetscale: config: ..." naming the
/// bad argument.
PluginArgs parse_plugin_args(std::span<const std::string> args);

}  // namespace hetscale::spank
