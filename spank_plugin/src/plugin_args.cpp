#include "plugin_args.hpp"

#include <set>

#include "hetscale/base/error.hpp"

namespace hetscale::spank {
namespace {

[[noreturn]] void bad(const std::string& message) {
  throw Error("hetscale: config: " + message);
}

std::filesystem::path absolute_path(const std::string& key, const std::string& value) {
  if (value.empty() || value.front() != '/') {
    bad(key + "= needs an absolute path, got '" + value + "'");
  }
  return value;
}

}  // namespace

PluginArgs parse_plugin_args(std::span<const std::string> args) {
  PluginArgs out;
  std::set<std::string> seen;
  for (const std::string& arg : args) {
    std::size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      bad("argument '" + arg +
          "' is not key=value (keys: site, default, partitions, on_missing, cache)");
    }
    std::string key = arg.substr(0, eq);
    std::string value = arg.substr(eq + 1);
    if (!seen.insert(key).second) bad("argument " + key + "= is given twice");
    if (key == "site") {
      out.site = absolute_path(key, value);
    } else if (key == "partitions") {
      out.partitions = absolute_path(key, value);
    } else if (key == "cache") {
      out.cache = value == "off" ? std::filesystem::path() : absolute_path(key, value);
    } else if (key == "default") {
      if (value != "off" && value != "marked")
        bad("default= must be off or marked, got '" + value + "'");
      out.default_mode = value == "off" ? DefaultMode::off : DefaultMode::marked;
    } else if (key == "on_missing") {
      if (value != "fail" && value != "equal") {
        bad("on_missing= must be fail or equal, got '" + value + "'");
      }
      out.on_missing = value == "fail" ? OnMissing::fail : OnMissing::equal;
    } else {
      bad("unknown argument '" + arg + "' (keys: site, default, partitions, on_missing, cache)");
    }
  }
  return out;
}

}  // namespace hetscale::spank
