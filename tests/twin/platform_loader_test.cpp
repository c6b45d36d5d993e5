// The platforms the twin library writes, loaded by SimGrid's own loader (simgrid_platform_probe), must
// give back the site table: every host at its speed with its cores, and routes whose
// latency is the sum of their links' latencies, for both topologies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hetscale/site/site_table.hpp"
#include "hetscale/twin/twin_platform.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(HETSCALE_FIXTURES_DIR) + "/site/" + name;
}

struct LoadedHost {
  double speed = 0;
  int cores = 0;
};

struct LoadedLink {
  double latency = 0;
  double bandwidth = 0;
};

struct LoadedRoute {
  double latency = 0;
  std::vector<std::string> links;
};

// What SimGrid made of a platform file.
struct Loaded {
  std::map<std::string, LoadedHost> hosts;
  std::map<std::string, LoadedLink> links;
  std::map<std::pair<std::string, std::string>, LoadedRoute> routes;
  std::map<std::pair<double, std::string>, double> available;  // (time, host) -> speed ratio
};

// `times`, when given, are the simulated times at which the probe reads the hosts' speed
// profiles ("t1,t2,...").
Loaded load_with_simgrid(const fs::path& platform, const std::string& times = "") {
  const fs::path log = platform.parent_path() / "probe.log";
  const std::string command = std::string(HETSCALE_SIMGRID_PROBE) + " '" + platform.string() +
                              "' " + times + " --log=root.thres:warning 2>'" + log.string() + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string output;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, n);
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << command << "\n" << output;
  Loaded loaded;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "host") {
      std::string name;
      LoadedHost host;
      words >> name >> host.speed >> host.cores;
      loaded.hosts[name] = host;
    } else if (kind == "link") {
      std::string name;
      LoadedLink link;
      words >> name >> link.latency >> link.bandwidth;
      loaded.links[name] = link;
    } else if (kind == "route") {
      std::string from;
      std::string to;
      LoadedRoute route;
      words >> from >> to >> route.latency;
      for (std::string link; words >> link;) route.links.push_back(link);
      loaded.routes[{from, to}] = route;
    } else if (kind == "available") {
      double time = 0;
      std::string host;
      double ratio = 0;
      words >> time >> host >> ratio;
      loaded.available[{time, host}] = ratio;
    } else {
      ADD_FAILURE() << "unexpected probe output: " << line;
    }
  }
  return loaded;
}

void expect_relative(double actual, double expected, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), 1e-9 * std::abs(expected))
      << what << ": " << actual << " vs " << expected;
}

class PlatformLoader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("twin-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes the platform of `table` and loads it; checks hosts and link latency sums.
  Loaded write_and_load(const SiteTable& table, const TwinPlatformOptions& options = {}) {
    const TwinPlatform platform = make_twin_platform(table, options);
    const TwinPlatformFiles files = write_twin_platform(platform, dir_);
    Loaded loaded = load_with_simgrid(files.platform);

    std::size_t expected_hosts = 0;
    for (const Node& node : table.nodes) {
      if (node.state == NodeState::excluded) {
        EXPECT_EQ(loaded.hosts.count(node.name), 0u) << node.name;
        continue;
      }
      ++expected_hosts;
      auto host = loaded.hosts.find(node.name);
      if (host == loaded.hosts.end()) {
        ADD_FAILURE() << "SimGrid has no host " << node.name;
        continue;
      }
      expect_relative(host->second.speed, node.marked_speed * platform.flops_per_unit,
                      node.name + " speed");
      EXPECT_EQ(host->second.cores, static_cast<int>(node.processors)) << node.name;
    }
    EXPECT_EQ(loaded.hosts.size(), expected_hosts);
    EXPECT_EQ(loaded.routes.size(), expected_hosts * (expected_hosts - 1));
    for (const auto& [pair, route] : loaded.routes) {
      double sum = 0;
      for (const std::string& link : route.links) sum += loaded.links.at(link).latency;
      expect_relative(route.latency, sum, pair.first + " -> " + pair.second + " latency sum");
    }
    return loaded;
  }

  fs::path dir_;
};

TEST_F(PlatformLoader, StarFromTheSiteTable) {
  const SiteTable table = load_site_table(fixture("good-network-star.toml"));
  const Loaded loaded = write_and_load(table);
  ASSERT_EQ(loaded.hosts.size(), 3u);
  for (const auto& [name, link] : loaded.links) {
    if (!name.starts_with("link:")) continue;  // SimGrid's own __loopback__
    expect_relative(link.latency, 2.5e-6, name);
    expect_relative(link.bandwidth, 1250e6, name);
  }
  const LoadedRoute& route = loaded.routes.at({"f1", "s1"});
  EXPECT_EQ(route.links, (std::vector<std::string>{"link:f1_UP", "link:s1_DOWN"}));
  expect_relative(route.latency, 2 * 2.5e-6, "f1 -> s1");
  EXPECT_EQ(loaded.routes.at({"s1", "f2"}).links,
            (std::vector<std::string>{"link:s1_UP", "link:f2_DOWN"}));
}

TEST_F(PlatformLoader, SwitchPerGroupCrossesTheBackboneBetweenGroups) {
  const SiteTable table = load_site_table(fixture("good-network-switch-per-group.toml"));
  const Loaded loaded = write_and_load(table);
  ASSERT_EQ(loaded.hosts.size(), 5u);
  expect_relative(loaded.links.at("backbone:site").latency, 10e-6, "backbone latency");
  expect_relative(loaded.links.at("backbone:site").bandwidth, 5000e6, "backbone bandwidth");
  expect_relative(loaded.links.at("link:mid1_UP").bandwidth, 1250e6, "host link bandwidth");

  const std::map<std::string, std::string> group{{"fast-01", "fast"},
                                                 {"fast-02", "fast"},
                                                 {"mid1", "mid"},
                                                 {"slow1", "slow"},
                                                 {"slow2", "slow"}};
  for (const auto& [pair, route] : loaded.routes) {
    const auto& [from, to] = pair;
    SCOPED_TRACE(from + " -> " + to);
    if (group.at(from) == group.at(to)) {
      EXPECT_EQ(route.links,
                (std::vector<std::string>{"link:" + from + "_UP", "link:" + to + "_DOWN"}));
      expect_relative(route.latency, 2 * 1.5e-6, "same switch");
    } else {
      EXPECT_EQ(route.links, (std::vector<std::string>{"link:" + from + "_UP", "backbone:site",
                                                       "link:" + to + "_DOWN"}));
      expect_relative(route.latency, 2 * 1.5e-6 + 10e-6, "over the backbone");
    }
  }
}

TEST_F(PlatformLoader, DefaultNetworkWhenTheTableHasNone) {
  const SiteTable table = load_site_table(fixture("good-three-groups.toml"));
  const Loaded loaded = write_and_load(table);
  ASSERT_EQ(loaded.hosts.size(), 6u);
  const LoadedRoute& route = loaded.routes.at({"head0", "hpc-04"});
  expect_relative(route.latency, 2 * 1.5e-6, "default latency");
  expect_relative(loaded.links.at("link:head0_UP").bandwidth, 1250e6, "default bandwidth");
}

TEST_F(PlatformLoader, GivenConversionForANonOperationUnit) {
  const SiteTable table = load_site_table(fixture("good-speed-factor.toml"));
  const Loaded loaded = write_and_load(table, {20.88e9});
  expect_relative(loaded.hosts.at("n1").speed, 20.88e9, "n1 speed");
}

TEST_F(PlatformLoader, AwkwardSpeedsSurviveTheTextExactly) {
  SiteTable table = load_site_table(fixture("good-network-switch-per-group.toml"));
  table.nodes[0].marked_speed = 0.1 + 0.2;
  table.nodes[2].marked_speed = 1.0 / 3.0;
  table.nodes[4].marked_speed = 123456.789012345;
  const Loaded loaded = write_and_load(table);
  EXPECT_EQ(loaded.hosts.at("fast-01").speed, (0.1 + 0.2) * 1e9);
}

// The "TIME VALUE" steps of `host`'s speed profile in the platform text; none without one.
std::vector<std::pair<double, double>> written_steps(const std::string& xml,
                                                     const std::string& host) {
  std::vector<std::pair<double, double>> steps;
  const auto at = xml.find("<trace id=\"speed:" + host + "\"");
  if (at == std::string::npos) return steps;
  const auto body = xml.find(">\n", at) + 2;
  std::istringstream lines(xml.substr(body, xml.find("  </trace>", body) - body));
  for (double start = 0, value = 0; lines >> start >> value;) steps.emplace_back(start, value);
  return steps;
}

// The availability written for `host` at time `t`: the profile repeats with period
// `horizon`; without a profile the host has its full speed.
double written_availability(const std::string& xml, const std::string& host, double t,
                            double horizon) {
  double value = 1;
  for (const auto& [start, v] : written_steps(xml, host))
    if (start <= std::fmod(t, horizon)) value = v;
  return value;
}

TEST_F(PlatformLoader, SpeedProfilesAreWhatSimGridApplies) {
  SiteTable table = load_site_table(fixture("good-network-switch-per-group.toml"));
  TwinAvailability availability;
  availability.every_host = AvailabilitySetting{0.5, 0.2};
  availability.groups = {{"mid", {0.25, 0}}};
  availability.max_interval = 20;
  availability.horizon = 100;
  const TwinPlatform platform = make_twin_platform(table, {std::nullopt, availability});
  // Sample in the middle of fast-01's steps, in the first period and in the next two (the
  // profile repeats after the horizon).
  std::vector<double> starts;
  for (const auto& [start, value] : written_steps(platform.xml, "fast-01")) starts.push_back(start);
  starts.push_back(availability.horizon);
  ASSERT_GT(starts.size(), 4u);
  std::vector<double> times;
  for (double period : {0.0, 100.0, 200.0})
    for (std::size_t i = 0; i + 1 < starts.size(); ++i)
      times.push_back(period + (starts[i] + starts[i + 1]) / 2);
  std::ostringstream list;
  list.precision(17);
  for (std::size_t i = 0; i < times.size(); ++i) list << (i == 0 ? "" : ",") << times[i];
  const TwinPlatformFiles files = write_twin_platform(platform, dir_);
  const Loaded loaded = load_with_simgrid(files.platform, list.str());
  ASSERT_EQ(loaded.hosts.size(), 5u);
  ASSERT_EQ(loaded.available.size(), times.size() * 5);
  bool varies = false;
  for (const auto& [key, ratio] : loaded.available) {
    const auto& [time, host] = key;
    const double written = written_availability(platform.xml, host, time, availability.horizon);
    EXPECT_NEAR(ratio, written, 1e-12) << host << " at " << time;
    if (host == "mid1") {
      EXPECT_EQ(ratio, 0.25) << "at " << time;
    }
    varies = varies || ratio != loaded.available.begin()->second;
  }
  EXPECT_TRUE(varies);
}

}  // namespace
}  // namespace hetscale
