// The twin's SimGrid platform, made from the site table (docs/twin.md): one host per node
// that is not excluded, at its per-processor marked speed in flop/s with its processors
// as cores, connected as the table's [network] says, optionally with a speed profile per
// host drawn from the shared-computer availability model (availability.hpp). Pure text:
// no SimGrid dependency.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetscale/site/site_table.hpp"

namespace hetscale {

/// Mean a and standard deviation sigma of a host's availability.
struct AvailabilitySetting {
  double mean = 1;
  double sd = 0;
};

/// Speed profiles (docs/twin.md, "Availability profiles"): each host with a setting gets
/// an availability drawn uniformly with its mean and sd, held for intervals uniform in
/// [0, max_interval] seconds of simulated time and redrawn, from 0 to `horizon`, after
/// which the profile repeats. The random stream of a host is (seed, the first 8 bytes of
/// the SHA-256 of its name), so a host's profile depends on its name and setting only.
struct TwinAvailability {
  std::optional<AvailabilitySetting> every_host;
  /// Per site-table group; overrides `every_host` for the group's hosts.
  std::vector<std::pair<std::string, AvailabilitySetting>> groups;
  double max_interval = 20;
  double horizon = 3600;
  std::uint64_t seed = 1;
};

struct TwinPlatformOptions {
  /// flop/s of one unit of the table's speed_unit. Needed when the unit is not an
  /// operation rate (flops, flop/s, op/s and their prefixes), e.g. a "speed-factor";
  /// when given for an operation rate, it replaces the unit's own scale.
  std::optional<double> flops_per_unit;
  std::optional<TwinAvailability> availability = std::nullopt;  // none: every host at full speed
};

struct TwinPlatform {
  std::string xml;               // SimGrid platform, DTD version 4.1
  std::string hostfile;          // one host name per line, in site-table order (smpirun -hostfile)
  std::string sha256;            // lower-case hex SHA-256 of `xml`: the platform's identity
  Network network;               // the network it models
  bool default_network = false;  // the table has no [network]: Network{}'s defaults
  double flops_per_unit = 0;     // flop/s of one unit of the table's speed_unit
  std::size_t hosts = 0;
  std::size_t profiled_hosts = 0;  // hosts with a speed profile
};

/// The random stream of host `name`'s availability profile: the first 8 bytes of the
/// SHA-256 of the name, big-endian.
std::uint64_t twin_availability_stream(const std::string& name);

/// "0.5:0.1" for mean 0.5 and sd 0.1: how settings are written (options, properties).
std::string format_availability_setting(const AvailabilitySetting& setting);

/// Adds one `--availability` value to `availability`: "MEAN:SD" for every host or
/// "GROUP=MEAN:SD" for one group. Throws Error ("--availability 'TEXT': ...") when it is
/// malformed, out of the model's range (check_availability) or repeats what an earlier
/// value set.
void add_availability_option(TwinAvailability& availability, std::string_view text);

/// flop/s of one unit of `table.speed_unit`: `given` when set, else the unit's own scale.
/// Throws ConfigError at the speed_unit value when the unit is no operation rate and
/// nothing is given, and Error when `given` is not positive and finite.
double twin_flops_per_unit(const SiteTable& table, std::optional<double> given);

/// The platform of `table`. Throws ConfigError (at the node or group entry) when a host
/// or, for switch-per-group, a group name is not a safe SimGrid id (letters, digits,
/// '.', '_', '-'), and when no node is left once the excluded ones are dropped; Error
/// when an availability setting is invalid (check_availability), names a group the
/// table lacks or a group twice, or would give a host more than a million profile steps.
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
