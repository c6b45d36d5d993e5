#include "hetscale/site/site_table_cache.hpp"

#include <gtest/gtest.h>

#include <random>

namespace hetscale {
namespace {

SiteTable sample() {
  SiteTable table;
  table.name = "example";
  table.speed_unit = "Gflops";
  table.benchmark = "dgemm";
  table.source = "/etc/hetscale/site.toml";
  table.groups = {{"blade", 20.29, {}}};
  table.nodes = {{"n1", "blade", 2, 20.29, NodeState::ok, {}},
                 {"n2", "blade", 4, 0.1, NodeState::degraded, {}}};
  table.index();
  return table;
}

const FileStamp kStamp{1234, 1700000000123456789, 42};

TEST(SiteTableCache, RoundTripsEveryField) {
  std::string text = format_site_cache(sample(), kStamp).value();
  std::optional<SiteTable> back = parse_site_cache(text, kStamp);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->name, "example");
  EXPECT_EQ(back->speed_unit, "Gflops");
  EXPECT_EQ(back->source, "/etc/hetscale/site.toml");
  ASSERT_EQ(back->groups.size(), 1u);
  EXPECT_DOUBLE_EQ(back->groups[0].marked_speed, 20.29);
  const Node* n2 = back->find_node("n2");
  ASSERT_NE(n2, nullptr);
  EXPECT_EQ(n2->processors, 4u);
  EXPECT_EQ(n2->marked_speed, 0.1);  // exact: shortest round-trip text
  EXPECT_EQ(n2->state, NodeState::degraded);
}

TEST(SiteTableCache, StaleTornOrMalformedIsIgnored) {
  std::string text = format_site_cache(sample(), kStamp).value();
  EXPECT_FALSE(parse_site_cache(text, {1234, 1700000000123456789, 43}).has_value());
  EXPECT_FALSE(parse_site_cache(text.substr(0, text.size() - 10), kStamp).has_value());
  std::string bad = text;
  bad.replace(bad.find("\t4\t"), 3, "\tx\t");
  EXPECT_FALSE(parse_site_cache(bad, kStamp).has_value());
  EXPECT_FALSE(parse_site_cache("", kStamp).has_value());
}

TEST(SiteTableCache, SpeedsOutsideTheTablesRangeAreMalformed) {
  // from_chars reads "inf" and "nan": such a cache gave infinite or NaN weights.
  std::string text = format_site_cache(sample(), kStamp).value();
  for (const char* speed : {"inf", "nan", "-20.29", "0", "1e+19"}) {
    std::string bad = text;
    bad.replace(bad.find("\t20.29\tok"), 6, std::string("\t") + speed);
    EXPECT_FALSE(parse_site_cache(bad, kStamp).has_value()) << speed;
    bad = text;
    bad.replace(bad.find("blade\t20.29\n"), 12, std::string("blade\t") + speed + "\n");
    EXPECT_FALSE(parse_site_cache(bad, kStamp).has_value()) << speed;
  }
  std::string no_cpus = text;
  no_cpus.replace(no_cpus.find("\t4\t"), 3, "\t0\t");
  EXPECT_FALSE(parse_site_cache(no_cpus, kStamp).has_value());
}

// The cache keeps what a job step needs and no [network] figure: a table's network is left
// out, and a cache line that would carry one (inf, NaN or any value) is malformed, so that
// the network figures have one reader, the site table's, with its ranges.
TEST(SiteTableCache, HoldsNoNetworkFigures) {
  SiteTable table = sample();
  table.network = Network{NetworkTopology::star, 7.25, 4321.5, 1.5, 1250, {}, {}, {}, {}};
  const std::string text = format_site_cache(table, kStamp).value();
  EXPECT_EQ(text.find("7.25"), std::string::npos) << text;
  EXPECT_EQ(text.find("4321.5"), std::string::npos) << text;
  const std::optional<SiteTable> back = parse_site_cache(text, kStamp);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->network.has_value());
  for (const char* line : {"network\tstar\t1.5\t1250\n", "latency_us\tinf\n",
                           "bandwidth_MBps\tnan\n"}) {
    std::string bad = text;
    bad.insert(bad.find("group\t"), line);
    EXPECT_FALSE(parse_site_cache(bad, kStamp).has_value()) << line;
  }
}

TEST(SiteTableCache, NamesWithTabsAreNotCached) {
  SiteTable table = sample();
  table.nodes[0].group = "a\tb";
  EXPECT_FALSE(format_site_cache(table, kStamp).has_value());
}

TEST(SiteTableCache, StampOfAMissingFile) {
  try {
    stamp_of("/nonexistent/site.toml");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "cannot read /nonexistent/site.toml: No such file or directory");
  }
}

}  // namespace
}  // namespace hetscale

namespace hetscale {
namespace {

// Bounded fuzzing of the cache reader: random edits of a valid cache must give a table
// or nullopt, never crash (the cache is on disk, so it may be anything).
TEST(SiteTableCache, FuzzedCacheNeverCrashes) {
  std::string seed = format_site_cache(sample(), kStamp).value();
  std::mt19937 rng(7);
  int accepted = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text = seed;
    for (int e = 0; e < 3; ++e) {
      std::size_t at = rng() % text.size();
      if (rng() % 2)
        text[at] = static_cast<char>(rng() % 256);
      else
        text.erase(at, 1 + rng() % 8);
      if (text.empty()) break;
    }
    if (parse_site_cache(text, kStamp)) ++accepted;
  }
  EXPECT_LT(accepted, 5000);
}

}  // namespace
}  // namespace hetscale

namespace hetscale {
namespace {

TEST(SiteTableCache, KeepsOnlyTheNodesAsked) {
  std::string text = format_site_cache(sample(), kStamp).value();
  std::vector<std::string> only{"n2", "n7"};
  std::optional<SiteTable> back = parse_site_cache(text, kStamp, only);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->nodes.size(), 1u);
  EXPECT_EQ(back->find_node("n1"), nullptr);
  EXPECT_NE(back->find_node("n2"), nullptr);
  EXPECT_EQ(back->groups.size(), 1u);
}

}  // namespace
}  // namespace hetscale
