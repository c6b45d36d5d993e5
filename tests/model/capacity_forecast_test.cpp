#include "hetscale/model/capacity_forecast.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

TEST(WhatIf, ParsesBothForms) {
  const auto add = parse_what_if("add:4:blade");
  EXPECT_EQ(add.group, "blade");
  EXPECT_EQ(add.count, 4u);
  const auto synthetic = parse_what_if("group:250.5:3");
  EXPECT_TRUE(synthetic.group.empty());
  EXPECT_DOUBLE_EQ(synthetic.speed, 250.5);
  EXPECT_EQ(synthetic.count, 3u);
  for (const char* bad : {"add", "add:1", "add:-1:x", "group:0:2", "group:1e3:", "take:1:x",
                          "add:1:x:y"})
    EXPECT_THROW(parse_what_if(bad), Error) << bad;
}

ForecastSet base_set() {
  ForecastSet s;
  s.node_count = 4;
  s.marked_speed = 400;
  s.processes = 4;
  return s;
}

TEST(WhatIf, AddsSiteOrSyntheticNodes) {
  SiteTable site;
  site.groups = {{"blade", 100, {}}, {"server", 300, {}}};
  site.nodes = {{"s1", "server", 4, 300, NodeState::ok, {}}};
  site.index();
  const auto grown = apply_what_if(parse_what_if("add:2:server"), base_set(), &site);
  EXPECT_EQ(grown.node_count, 6u);
  EXPECT_EQ(grown.processes, 12u);
  EXPECT_DOUBLE_EQ(grown.marked_speed, 400 + 2 * 4 * 300);
  EXPECT_EQ(grown.kind, ForecastKind::what_if);
  EXPECT_EQ(grown.label, "add:2:server");  // a base without a label
  ForecastSet labelled = base_set();
  labelled.label = "set 3";
  EXPECT_EQ(apply_what_if(parse_what_if("add:2:server"), labelled, &site).label,
            "add:2:server on set 3");
  const auto synthetic = apply_what_if(parse_what_if("group:50:3"), base_set(), nullptr);
  EXPECT_DOUBLE_EQ(synthetic.marked_speed, 550);
  EXPECT_EQ(synthetic.processes, 7u);
  EXPECT_THROW(apply_what_if(parse_what_if("add:2:gpu"), base_set(), &site), Error);
  EXPECT_THROW(apply_what_if(parse_what_if("add:2:blade"), base_set(), nullptr), Error);
}

TEST(DoublingSets, SiteSetsThenTwiceThePrevious) {
  SiteTable site;
  site.groups = {{"g", 100, {}}};
  for (int i = 1; i <= 8; ++i) site.nodes.push_back({"n" + std::to_string(i), "g", 1, 100, NodeState::ok, {}});
  site.index();
  const auto sets = doubling_sets(base_set(), &site, 3);
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].node_count, 8u);  // the site's third set
  EXPECT_DOUBLE_EQ(sets[0].marked_speed, 800);
  EXPECT_EQ(sets[1].node_count, 16u);  // beyond the site
  EXPECT_DOUBLE_EQ(sets[2].marked_speed, 3200);
  EXPECT_EQ(sets[2].processes, 32u);
  EXPECT_EQ(doubling_sets(base_set(), nullptr, 1).front().node_count, 8u);
}

}  // namespace
}  // namespace hetscale
