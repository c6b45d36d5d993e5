// Bounded fuzzing of the site table parser (the SPANK plugin reads it in slurmstepd):
// random edits of a valid table must parse or raise ConfigError, nothing else. A fixed
// seed and an iteration cap keep it deterministic and under a second in CI.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "hetscale/site/site_table.hpp"

namespace hetscale {
namespace {

void fuzz_from(const std::string& seed) {
  ASSERT_NO_THROW(parse_site_table(seed, "seed.toml"));
  const std::string alphabet = "[]=\"\n #.,-0123456789abcdeghnoprstx_\\{}";
  std::mt19937 rng(6);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 20000 && std::chrono::steady_clock::now() < deadline; ++i) {
    std::string text = seed;
    for (int e = 1 + static_cast<int>(rng() % 4); e > 0; --e) {
      std::size_t at = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 1:
          if (at < text.size()) text.erase(at, 1);
          break;
        default:
          if (at < text.size()) text[at] = static_cast<char>(rng() % 256);
          break;
      }
    }
    try {
      parse_site_table(text, "fuzz.toml");
      ++parsed;
    } catch (const ConfigError&) {
      ++rejected;
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

TEST(SiteTableFuzz, MutatedTablesOnlyRaiseConfigError) {
  fuzz_from(
      "[site]\nname = \"s\"\nspeed_unit = \"Mflops\"\nbenchmark = \"dgemm\"\n"
      "[[group]]\nname = \"blade\"\nmarked_speed = 20.29\n"
      "[[node]]\nname = \"hpc-[1-16,18-20]\"\ngroup = \"blade\"\nprocessors = 2\n"
      "marked_speed = 19.5\nstate = \"degraded\"\n");
}

TEST(SiteTableFuzz, MutatedNetworkTablesOnlyRaiseConfigError) {
  fuzz_from(
      "[site]\nname = \"s\"\n"
      "[network]\ntopology = \"switch-per-group\"\nlatency_us = 1.5\nbandwidth_MBps = 1250\n"
      "backbone_latency_us = 10\nbackbone_bandwidth_MBps = 5000\n"
      "[[group]]\nname = \"blade\"\nmarked_speed = 20.29\n"
      "[[node]]\nname = \"hpc-[1-4]\"\ngroup = \"blade\"\n");
}

}  // namespace
}  // namespace hetscale
