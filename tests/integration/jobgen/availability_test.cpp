// `hetscale jobgen` asks the testbed's Slurm for its node states (scripts/cluster.sh:
// n1 head, n2-n3 full, n4-n5 half). The spec's sets are {n1, n2} and {n1, n2, n3, n4};
// n5 is the spare of group half. A drained member stops jobgen with its name, and
// --replace-unavailable swaps it for the spare. Every node drained or reservation made
// here is undone when the test ends, also when it fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/drained_node.hpp"
#include "support/process.hpp"
#include "support/testbed.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* spec_text = R"([experiment]
name = "availability"
target_efficiency = 0.3

[code]
kernel = "mm"

[parameter]
values = [64, 128]

[machine_sets]
start = 2
max = 4

[slurm]
partition = "testbed"
)";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A reservation on one node for the lifetime of the object.
class Reservation {
 public:
  Reservation(std::string name, const std::string& node) : name_(std::move(name)) {
    const auto r = run_command({"scontrol", "create", "reservation", "reservationname=" + name_, "starttime=now",
                                "duration=30", "nodes=" + node, "users=root"});
    if (!r.ok()) throw std::runtime_error("cannot reserve " + node + ": " + r.describe());
  }
  ~Reservation() { (void)run_command({"scontrol", "delete", "reservationname=" + name_}); }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;

 private:
  std::string name_;
};

class Availability : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-availability-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  CommandResult jobgen(const std::string& out, std::vector<std::string> extra = {},
                       const std::string& spec_extra = "") {
    std::ofstream(root_ / "spec.toml") << spec_text << spec_extra;
    std::vector<std::string> argv{HETSCALE_EXECUTABLE, "jobgen", "--site", Testbed::from_env().site_table().string(),
                                  "--experiment", (root_ / "spec.toml").string(), "-o", (root_ / out).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
  }

  nlohmann::json plan(const std::string& out) { return nlohmann::json::parse(read(root_ / out / "plan.json")); }

  fs::path root_;
};

TEST_F(Availability, ADrainedMemberStopsJobgenAndIsReplacedOnRequest) {
  const auto healthy = jobgen("healthy");
  ASSERT_TRUE(healthy.ok()) << healthy.describe();
  EXPECT_EQ(healthy.err, "");  // asked, nothing to say
  ASSERT_EQ(plan("healthy")["machine_sets"][1]["nodes"], nlohmann::json::parse(R"(["n1", "n2", "n3", "n4"])"));

  const DrainedNode drained("n4");
  const auto stopped = jobgen("stopped");
  EXPECT_EQ(stopped.exit_code, 1) << stopped.describe();
  EXPECT_EQ(stopped.err,
            "hetscale jobgen: set 1 member n4 is DRAINED (reason \"hetscale availability test\"); nothing written "
            "(--replace-unavailable swaps them for available nodes of their groups)\n");
  EXPECT_FALSE(fs::exists(root_ / "stopped"));

  const auto replaced = jobgen("replaced", {"--replace-unavailable"});
  ASSERT_TRUE(replaced.ok()) << replaced.describe();
  EXPECT_TRUE(replaced.out.starts_with(
      "n4 (group half, DRAINED (reason \"hetscale availability test\")) replaced by n5 in set 1 (C1 = 3.5 "
      "speed-factor)\n"))
      << replaced.out;
  const auto sets = plan("replaced")["machine_sets"];
  const auto before = plan("healthy")["machine_sets"];
  EXPECT_EQ(sets[1]["nodes"], nlohmann::json::parse(R"(["n1", "n2", "n3", "n5"])"));
  EXPECT_EQ(sets[0]["nodes"], before[0]["nodes"]);
  EXPECT_EQ(sets[1]["group_counts"], before[1]["group_counts"]);  // still balanced
  EXPECT_NE(read(root_ / "replaced" / "set1.sbatch").find("#SBATCH --nodelist=n[1-3,5]\n"), std::string::npos);
}

TEST_F(Availability, AGroupWithoutASpareIsNamed) {
  const DrainedNode drained("n2");  // group full: n3 is in the sets already
  const auto r = jobgen("out", {"--replace-unavailable"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(r.err,
            "hetscale jobgen: group 'full' has no available node to replace n2 (n2 is DRAINED (reason \"hetscale "
            "availability test\")): every other eligible node of the group is in the sets or unavailable\n");
  EXPECT_FALSE(fs::exists(root_ / "out"));
}

TEST_F(Availability, AnotherReservationIsUnavailableTheSpecsIsNot) {
  // Every member of the sets: a job of the reservation must run on its nodes alone.
  const Reservation reservation("hetscale-avail", "n[1-4]");
  const auto r = jobgen("other");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_TRUE(r.err.starts_with("hetscale jobgen: set 0 member n1 is in reservation 'hetscale-avail' (until "))
      << r.err;
  EXPECT_NE(r.err.find("; set 1 member n4 is in reservation 'hetscale-avail'"), std::string::npos) << r.err;
  const auto own = jobgen("own", {}, "reservation = \"hetscale-avail\"\n");
  EXPECT_TRUE(own.ok()) << own.describe();
}

}  // namespace
}  // namespace hetscale::test
