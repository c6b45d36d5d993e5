// The twin's SimGrid platform, made from the site table (docs/twin.md): one host per node
// that is not excluded, at its per-processor marked speed in flop/s with its processors
// as cores, connected as the table's [network] says. Pure text: no SimGrid dependency.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetscale/site_table.hpp"

namespace hetscale {

struct TwinPlatformOptions {
  /// flop/s of one unit of the table's speed_unit. Needed when the unit is not an
  /// operation rate (flops, flop/s, op/s and their prefixes), e.g. a "speed-factor";
  /// when given for an operation rate, it replaces the unit's own scale.
  std::optional<double> flops_per_unit;
};

struct TwinPlatform {
  std::string xml;               // SimGrid platform, DTD version 4.1
  std::string hostfile;          // one host name per line, in site-table order (smpirun -hostfile)
  std::string sha256;            // lower-case hex SHA-256 of `xml`: the platform's identity
  Network network;               // the network it models
  bool default_network = false;  // the table has no [network]: Network{}'s defaults
  double flops_per_unit = 0;     // flop/s of one unit of the table's speed_unit
  std::size_t hosts = 0;
};

/// flop/s of one unit of `table.speed_unit`: `given` when set, else the unit's own scale.
/// Throws ConfigError at the speed_unit value when the unit is no operation rate and
/// nothing is given, and Error when `given` is not positive and finite.
double twin_flops_per_unit(const SiteTable& table, std::optional<double> given);

/// The platform of `table`. Throws ConfigError (at the node or group entry) when a host
/// or, for switch-per-group, a group name is not a safe SimGrid id (letters, digits,
/// '.', '_', '-'), and when no node is left once the excluded ones are dropped.
TwinPlatform make_twin_platform(const SiteTable& table, const TwinPlatformOptions& options = {});

/// Where write_twin_platform puts things: DIR/platform.xml, DIR/hostfile and
/// DIR/platform.sha256 (one line, "HASH  platform.xml", as sha256sum writes it).
struct TwinPlatformFiles {
  std::filesystem::path platform;
  std::filesystem::path hostfile;
  std::filesystem::path hash;
};

/// The three files by name (platform.xml, hostfile, platform.sha256) and their text, for a
/// writer that puts them into a directory of its own making.
std::vector<std::pair<std::string, std::string>> twin_platform_file_texts(const TwinPlatform& platform);

/// Writes the three files into `dir` (created when missing), each atomically.
TwinPlatformFiles write_twin_platform(const TwinPlatform& platform,
                                      const std::filesystem::path& dir);

}  // namespace hetscale
