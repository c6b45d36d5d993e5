#include "plugin_args.hpp"

#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"

namespace hetscale::spank {
namespace {

std::string error_of(std::vector<std::string> args) {
  try {
    parse_plugin_args(args);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(PluginArgs, DefaultsWhenEmpty) {
  PluginArgs args = parse_plugin_args({});
  EXPECT_EQ(args.site, "/etc/hetscale/site.toml");
  EXPECT_EQ(args.default_mode, DefaultMode::off);
  EXPECT_EQ(args.partitions, "/etc/hetscale/partitions");
  EXPECT_EQ(args.on_missing, OnMissing::fail);
  EXPECT_EQ(args.cache, "/var/cache/hetscale");
}

TEST(PluginArgs, CacheDirectoryOrOff) {
  std::vector<std::string> off{"cache=off"};
  EXPECT_TRUE(parse_plugin_args(off).cache.empty());
  std::vector<std::string> dir{"cache=/run/hetscale"};
  EXPECT_EQ(parse_plugin_args(dir).cache, "/run/hetscale");
  EXPECT_EQ(error_of({"cache=tmp"}), "hetscale: config: cache= needs an absolute path, got 'tmp'");
}

TEST(PluginArgs, ReadsEveryKey) {
  std::vector<std::string> given{"on_missing=equal", "site=/s/site.toml", "default=marked",
                                 "partitions=/p"};
  PluginArgs args = parse_plugin_args(given);
  EXPECT_EQ(args.site, "/s/site.toml");
  EXPECT_EQ(args.default_mode, DefaultMode::marked);
  EXPECT_EQ(args.partitions, "/p");
  EXPECT_EQ(args.on_missing, OnMissing::equal);
}

TEST(PluginArgs, StrictMessages) {
  EXPECT_EQ(error_of({"color=blue"}),
            "hetscale: config: unknown argument 'color=blue' (keys: site, default, partitions, "
            "on_missing, cache)");
  EXPECT_EQ(error_of({"site"}),
            "hetscale: config: argument 'site' is not key=value (keys: site, default, partitions, "
            "on_missing, cache)");
  EXPECT_EQ(error_of({"default=on"}), "hetscale: config: default= must be off or marked, got 'on'");
  EXPECT_EQ(error_of({"on_missing=skip"}),
            "hetscale: config: on_missing= must be fail or equal, got 'skip'");
  EXPECT_EQ(error_of({"site=etc/site.toml"}),
            "hetscale: config: site= needs an absolute path, got 'etc/site.toml'");
  EXPECT_EQ(error_of({"partitions="}),
            "hetscale: config: partitions= needs an absolute path, got ''");
  EXPECT_EQ(error_of({"default=off", "default=marked"}),
            "hetscale: config: argument default= is given twice");
}

}  // namespace
}  // namespace hetscale::spank
