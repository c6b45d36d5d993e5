// Speed profiles of the twin's platform text, read back from the XML and checked against
// the availability model itself: uniform values with mean a and sd sigma inside
// [a - sqrt(3) sigma, a + sqrt(3) sigma], intervals uniform in [0, max_interval], one
// stream per host, the same bytes from the same seed.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale {
namespace {

std::string fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/site/" + name;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Profile {
  std::string periodicity;
  std::vector<double> starts;
  std::vector<double> values;
  bool connected = false;  // a trace_connect of kind SPEED ties it to its host
};

// The <trace> of `host` in the platform text, parsed as SimGrid reads it: "TIME VALUE" lines.
Profile profile_of(const std::string& xml, const std::string& host) {
  Profile profile;
  const std::string open = "<trace id=\"speed:" + host + "\" periodicity=\"";
  const auto at = xml.find(open);
  if (at == std::string::npos) return profile;
  const auto quote = xml.find('"', at + open.size());
  profile.periodicity = xml.substr(at + open.size(), quote - at - open.size());
  const auto body = xml.find(">\n", quote) + 2;
  const auto end = xml.find("  </trace>", body);
  std::istringstream lines(xml.substr(body, end - body));
  for (double start = 0, value = 0; lines >> start >> value;) {
    profile.starts.push_back(start);
    profile.values.push_back(value);
  }
  profile.connected = contains(xml, "<trace_connect kind=\"SPEED\" trace=\"speed:" + host +
                                        "\" element=\"" + host + "\"/>");
  return profile;
}

double mean_of(const std::vector<double>& xs) {
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

double sd_of(const std::vector<double>& xs) {
  const double m = mean_of(xs);
  double sum = 0;
  for (double x : xs) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(xs.size() - 1));
}

TwinAvailability every_host(double mean, double sd) {
  TwinAvailability availability;
  availability.every_host = AvailabilitySetting{mean, sd};
  return availability;
}

TwinPlatform star(const TwinAvailability& availability) {
  return make_twin_platform(load_site_table(fixture("good-network-star.toml")),
                            {std::nullopt, availability});
}

TEST(TwinAvailability, ProfileFollowsTheModel) {
  TwinAvailability availability = every_host(0.6, 0.15);
  availability.max_interval = 20;
  availability.horizon = 400000;  // about 40000 steps per host
  const TwinPlatform p = star(availability);
  EXPECT_EQ(p.profiled_hosts, 3u);
  const Profile f1 = profile_of(p.xml, "f1");
  ASSERT_GT(f1.values.size(), 30000u);
  EXPECT_TRUE(f1.connected);
  EXPECT_EQ(f1.periodicity, "400000");
  // The values: mean 0.6 and sd 0.15 (the sample mean's own sd is under 0.001), all inside
  // 0.6 +/- sqrt(3) 0.15, and flat: a quarter of them in each quarter of that range.
  EXPECT_NEAR(mean_of(f1.values), 0.6, 0.005);
  EXPECT_NEAR(sd_of(f1.values), 0.15, 0.005);
  const double low = 0.6 - std::sqrt(3.0) * 0.15;
  const double high = 0.6 + std::sqrt(3.0) * 0.15;
  std::vector<double> quarters(4);
  for (double v : f1.values) {
    ASSERT_GE(v, low);
    ASSERT_LE(v, high);
    quarters[std::min(3, static_cast<int>(4 * (v - low) / (high - low)))] += 1;
  }
  for (double q : quarters) EXPECT_NEAR(q / static_cast<double>(f1.values.size()), 0.25, 0.01);
  // The intervals: from 0, each in [0, 20], mean 10 and sd 20 / sqrt(12); the last step
  // starts before the horizon.
  EXPECT_EQ(f1.starts.front(), 0);
  EXPECT_LT(f1.starts.back(), 400000);
  EXPECT_GT(f1.starts.back(), 400000 - 20);
  std::vector<double> intervals;
  for (std::size_t i = 1; i < f1.starts.size(); ++i) {
    intervals.push_back(f1.starts[i] - f1.starts[i - 1]);
    ASSERT_GE(intervals.back(), 0);
    ASSERT_LE(intervals.back(), 20 + 1e-9);
  }
  EXPECT_NEAR(mean_of(intervals), 10, 0.15);
  EXPECT_NEAR(sd_of(intervals), 20 / std::sqrt(12.0), 0.1);
}

TEST(TwinAvailability, SameSeedSameBytesOtherSeedOtherBytes) {
  TwinAvailability availability = every_host(0.5, 0.1);
  availability.horizon = 200;
  const TwinPlatform first = star(availability);
  EXPECT_EQ(star(availability).xml, first.xml);
  EXPECT_EQ(star(availability).sha256, first.sha256);
  availability.seed = 2;
  const TwinPlatform other = star(availability);
  EXPECT_NE(other.sha256, first.sha256);
  EXPECT_NE(profile_of(other.xml, "f1").values, profile_of(first.xml, "f1").values);
  EXPECT_TRUE(contains(other.xml, R"(<prop id="hetscale.availability.seed" value="2"/>)"))
      << other.xml;
  // Hosts draw from streams of their own: same setting, other values.
  EXPECT_NE(profile_of(first.xml, "f1").values, profile_of(first.xml, "f2").values);
  // A host's profile depends on its name, not on where it is in the table.
  SiteTable table = load_site_table(fixture("good-network-star.toml"));
  std::swap(table.nodes[0], table.nodes[1]);
  availability.seed = 1;
  const TwinPlatform swapped = make_twin_platform(table, {std::nullopt, availability});
  EXPECT_EQ(profile_of(swapped.xml, "f1").values, profile_of(first.xml, "f1").values);
  EXPECT_EQ(profile_of(swapped.xml, "f1").starts, profile_of(first.xml, "f1").starts);
}

TEST(TwinAvailability, GroupsOverrideEveryHostAndPropertiesSayTheSettings) {
  TwinAvailability availability = every_host(0.9, 0.05);
  availability.groups = {{"slow", {0.5, 0}}};
  availability.max_interval = 7.5;
  availability.horizon = 100;
  availability.seed = 3;
  const TwinPlatform p = star(availability);
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.availability" value="0.9:0.05 slow=0.5:0"/>)"))
      << p.xml;
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.availability.distribution" value="uniform"/>)"));
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.availability.max_interval_s" value="7.5"/>)"));
  EXPECT_TRUE(contains(p.xml, R"(<prop id="hetscale.availability.horizon_s" value="100"/>)"));
  EXPECT_TRUE(contains(p.xml, "<host id=\"s1\" speed=\"17500000f\" core=\"1\">\n"
                              "      <prop id=\"hetscale.availability\" value=\"0.5:0\"/>\n"
                              "    </host>\n"))
      << p.xml;
  // Constant availability is one step; the fast hosts vary around 0.9.
  const Profile s1 = profile_of(p.xml, "s1");
  EXPECT_EQ(s1.starts, std::vector<double>{0});
  EXPECT_EQ(s1.values, std::vector<double>{0.5});
  EXPECT_TRUE(s1.connected);
  const Profile f2 = profile_of(p.xml, "f2");
  EXPECT_GT(f2.values.size(), 5u);
  for (double v : f2.values) EXPECT_NEAR(v, 0.9, std::sqrt(3.0) * 0.05 + 1e-12);
  // Only the groups given get profiles when no setting is for every host.
  availability.every_host.reset();
  const TwinPlatform slow_only = star(availability);
  EXPECT_EQ(slow_only.profiled_hosts, 1u);
  EXPECT_TRUE(profile_of(slow_only.xml, "f1").values.empty());
  EXPECT_TRUE(contains(slow_only.xml, R"(<host id="f1" speed="45300000f" core="4"/>)"));
  // Without availability, no trace at all.
  EXPECT_FALSE(contains(star({}).xml, "<trace"));
  EXPECT_FALSE(contains(make_twin_platform(load_site_table(fixture("good-network-star.toml"))).xml,
                        "<trace"));
}

TEST(TwinAvailability, SwitchPerGroupHostsCarryTheirSettings) {
  TwinAvailability availability;
  availability.groups = {{"mid", {0.7, 0.1}}};
  const TwinPlatform p = make_twin_platform(
      load_site_table(fixture("good-network-switch-per-group.toml")), {std::nullopt, availability});
  EXPECT_EQ(p.profiled_hosts, 1u);
  EXPECT_TRUE(profile_of(p.xml, "mid1").connected);
  EXPECT_TRUE(contains(p.xml, "        <prop id=\"hetscale.availability\" value=\"0.7:0.1\"/>\n"))
      << p.xml;
}

std::string error_of(const TwinAvailability& availability) {
  try {
    (void)star(availability);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string option_error(const std::vector<std::string>& values) {
  TwinAvailability availability;
  try {
    for (const std::string& value : values) add_availability_option(availability, value);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TwinAvailability, Errors) {
  TwinAvailability availability;
  availability.groups = {{"gpu", {0.5, 0.1}}};
  EXPECT_EQ(error_of(availability), "availability for group 'gpu': the site table " +
                                        fixture("good-network-star.toml") +
                                        " has no such group (its groups: fast, slow)");
  EXPECT_EQ(error_of(every_host(0.5, 0.3)),
            "availability for every host: availability would leave [0, 1] (mean 0.5, sd 0.3: a "
            "+/- sqrt(3) sd reaches [-0.01962, 1.02])");
  EXPECT_EQ(error_of(every_host(1.2, 0)),
            "availability for every host: mean availability must be in (0, 1]");
  availability = every_host(0.5, 0.1);
  availability.max_interval = 1e-3;
  EXPECT_TRUE(contains(error_of(availability), "more than 1e+06: shorten the horizon"))
      << error_of(availability);
  availability.max_interval = 0;
  EXPECT_EQ(error_of(availability), "availability profiles need a positive, finite maximum "
                                    "interval and horizon, not 0 and 3600");

  EXPECT_EQ(option_error({"0.5:0.1", "fast=0.8:0", "slow=1:0"}), "no error");
  EXPECT_EQ(option_error({"0.5"}), "--availability '0.5': expected MEAN:SD or GROUP=MEAN:SD");
  EXPECT_EQ(option_error({"=0.5:0.1"}),
            "--availability '=0.5:0.1': expected MEAN:SD or GROUP=MEAN:SD");
  EXPECT_TRUE(contains(option_error({"fast=half:0.1"}), "--availability 'fast=half:0.1': the mean"))
      << option_error({"fast=half:0.1"});
  EXPECT_EQ(option_error({"fast=0.9:0.1"}),
            "--availability 'fast=0.9:0.1': availability would leave [0, 1] (mean 0.9, sd 0.1: a "
            "+/- sqrt(3) sd reaches [0.7268, 1.073])");
  EXPECT_EQ(option_error({"0:0"}), "--availability '0:0': mean availability must be in (0, 1]");
  EXPECT_EQ(option_error({"0.5:0.1", "0.6:0.1"}),
            "--availability '0.6:0.1': every host's availability is given twice");
  EXPECT_EQ(option_error({"fast=0.5:0.1", "fast=0.6:0.1"}),
            "--availability 'fast=0.6:0.1': group 'fast' is given twice");
}

TEST(TwinAvailability, HostStreamIsTheStartOfTheNamesSha256) {
  // sha256sum of "f1" begins 3f524cdc07a11d7c.
  EXPECT_EQ(twin_availability_stream("f1"), 0x3f524cdc07a11d7cULL);
  EXPECT_NE(twin_availability_stream("f1"), twin_availability_stream("f2"));
}

}  // namespace
}  // namespace hetscale
