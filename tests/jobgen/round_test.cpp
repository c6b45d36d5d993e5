#include "hetscale/jobgen/round.hpp"
#include "hetscale/jobgen/scripts.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace hetscale::jobgen {
namespace {

const std::string study_token = "0a1b2c3d";  // fixed: the same job names on every run

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string fixtures = std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/";
const std::string site_path = fixtures + "site-example.toml";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ExperimentSpec example(const std::string& name) {
  return load_experiment_spec(std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/" + name + ".toml");
}

TEST(Round, MatrixMultiplicationExample) {
  const Round round = plan_round(example("mm"), load_site_table(site_path), study_token);
  ASSERT_EQ(round.sets.size(), 3U);  // 2, 4, 8 nodes: a fourth set would need 4 more fat nodes
  EXPECT_THAT(round.sets[0].set.nodes, ElementsAre("fat1", "blade01"));
  EXPECT_THAT(round.sets[2].set.nodes,
              ElementsAre("fat1", "blade01", "fat2", "blade02", "fat3", "fat4", "blade03", "blade04"));
  // One task per processor: fat nodes run 2 ranks of 40 Mflops each.
  EXPECT_EQ(round.sets[0].members[0].tasks, 2U);
  EXPECT_EQ(round.sets[0].members[1].tasks, 1U);
  EXPECT_FALSE(round.sets[0].uniform_tasks());
  EXPECT_EQ(round.sets[2].total_tasks(), 12U);
  EXPECT_DOUBLE_EQ(round.sets[0].set.marked_speed, 100);
  EXPECT_DOUBLE_EQ(round.sets[1].set.marked_speed, 200);
  EXPECT_DOUBLE_EQ(round.sets[2].set.marked_speed, 400);
  EXPECT_THAT(round.sets[0].parameter_values, ElementsAre(400, 566, 800, 1131, 1600));
  // Set 1 doubles C: the bottom keeps W/C (N = 400 * 2^(1/3) = 504), the top allows
  // psi = 0.7 (N = 1600 * (2/0.7)^(1/3) = 2270).
  EXPECT_THAT(round.sets[1].parameter_values, ElementsAre(504, 734, 1070, 1558, 2270));
  EXPECT_EQ(round.sets[2].parameter_values.front(), 635);
  EXPECT_EQ(round.sets[2].parameter_values.back(), 3222);
}

// same_on_every_set: every set runs the first set's sizes unscaled, so the runs form a
// grid over (processors, N) that Extra-P can model in both parameters.
TEST(Round, SameSizesOnEverySetWhenTheSpecSaysSo) {
  ExperimentSpec spec = example("mm");
  spec.parameter.same_on_every_set = true;
  const Round round = plan_round(spec, load_site_table(site_path), study_token);
  ASSERT_EQ(round.sets.size(), 3U);
  for (const RoundSet& s : round.sets)
    EXPECT_THAT(s.parameter_values, ElementsAre(400, 566, 800, 1131, 1600)) << "set " << s.set.index;
}

TEST(Round, LuStudySpecsPlanTheBundledKernel) {
  for (const char* name : {"study-lu-quick", "study-lu"}) {
    const ExperimentSpec spec = example(name);
    ASSERT_TRUE(spec.code.kernel.has_value()) << name;
    EXPECT_EQ(*spec.code.kernel, Kernel::lu) << name;
    const Round round = plan_round(spec, load_site_table(site_path), study_token);
    EXPECT_FALSE(round.sets.empty()) << name;
  }
}

TEST(Round, TasksPerNodeSetsTheMarkedSpeedUsed) {
  const Round round = plan_round(example("ge"), load_site_table(site_path), study_token);
  ASSERT_FALSE(round.sets.empty());
  EXPECT_TRUE(round.sets[0].uniform_tasks());
  EXPECT_EQ(round.sets[0].members[0].tasks, 1U);
  EXPECT_DOUBLE_EQ(round.sets[0].set.marked_speed, 60);  // one 40 + one 20 processor
}

// Whole nodes and one array task at a time by default; shared nodes, a wider throttle and
// several processors per rank when the spec says so.
TEST(Round, SetScriptsTakeWholeNodesAndThrottleTheArrayByDefault) {
  ExperimentSpec spec = example("ge");
  const SiteTable site = load_site_table(site_path);
  const std::string script = render_set_script(plan_round(spec, site, study_token), plan_round(spec, site, study_token).sets[0], {});
  EXPECT_THAT(script, HasSubstr("#SBATCH --exclusive\n"));
  EXPECT_THAT(script, HasSubstr("#SBATCH --array=0-3%1\n"));
  EXPECT_THAT(script, HasSubstr("srun --mpi=pmix "));
  EXPECT_THAT(script, Not(HasSubstr("--cpus-per-task")));

  spec.slurm.exclusive = false;
  spec.slurm.array_throttle = 0;
  spec.slurm.mpi = "pmi2";
  spec.slurm.qos = "long";
  spec.slurm.sbatch_options = {"--mail-type=END"};
  const Round shared = plan_round(spec, site, study_token);
  const std::string relaxed = render_set_script(shared, shared.sets[0], {});
  EXPECT_THAT(relaxed, Not(HasSubstr("--exclusive")));
  EXPECT_THAT(relaxed, HasSubstr("#SBATCH --array=0-3\n"));
  EXPECT_THAT(relaxed, HasSubstr("#SBATCH --qos=long\n"));
  EXPECT_THAT(relaxed, HasSubstr("#SBATCH --mail-type=END\n"));
  EXPECT_THAT(relaxed, HasSubstr("srun --mpi=pmi2 "));

  // mm runs one rank per processor: the fat nodes' two ranks need every CPU, so the job
  // stays exclusive even when the spec allows sharing.
  ExperimentSpec mm = example("mm");
  mm.slurm.exclusive = false;
  const Round per_processor = plan_round(mm, site, study_token);
  EXPECT_THAT(render_set_script(per_processor, per_processor.sets[0], {}), HasSubstr("#SBATCH --exclusive\n"));
}

TEST(Round, OneRankPerNodeGetsTheNodesProcessors) {
  ExperimentSpec spec = example("mm");
  spec.slurm.tasks_per_node = 1;
  const SiteTable site = load_site_table(site_path);
  const Round mixed = plan_round(spec, site, study_token);
  // Set 0 is a 2-processor fat node and a 1-processor blade: the job's one figure is the
  // smaller, so no --cpus-per-task.
  EXPECT_EQ(mixed.sets[0].members[0].cpus_per_task, 2U);
  EXPECT_EQ(mixed.sets[0].members[1].cpus_per_task, 1U);
  EXPECT_THAT(render_set_script(mixed, mixed.sets[0], {}), Not(HasSubstr("--cpus-per-task")));
  spec.machine_sets.nodes = "fat[1-4]";
  spec.machine_sets.options.max = 4;
  const Round fat = plan_round(spec, site, study_token);
  EXPECT_THAT(render_set_script(fat, fat.sets[0], {}), HasSubstr("#SBATCH --cpus-per-task=2\n"));
}

TEST(Round, NodesRestrictTheSite) {
  const Round round = plan_round(example("conv2d"), load_site_table(site_path), study_token);
  ASSERT_EQ(round.sets.size(), 2U);
  EXPECT_EQ(round.site.nodes.size(), 4U);
  EXPECT_THAT(round.sets[1].set.nodes, ElementsAre("fat1", "fat2", "fat3", "fat4"));
  EXPECT_DOUBLE_EQ(round.sets[1].set.marked_speed, 320);
}

struct BadSpec {
  const char* file;
  std::string message;  // after "<file>:"
};

class SiteDependentErrors : public ::testing::TestWithParam<BadSpec> {};

TEST_P(SiteDependentErrors, NameTheSpecKeyAndTheSite) {
  const std::string path = fixtures + "bad/" + GetParam().file;
  const auto spec = parse_experiment_spec(read(path), GetParam().file);
  try {
    (void)plan_round(spec, load_site_table(site_path), study_token);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.what(), std::string(GetParam().file) + ":" + GetParam().message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, SiteDependentErrors,
    ::testing::Values(
        BadSpec{"set-larger-than-site.toml", "15:7: a set of up to 32 nodes is larger than the 16 eligible nodes of the "
                                             "site 'example' (" + site_path +
                                                 "); degraded nodes count only with include_degraded = true"},
        BadSpec{"first-set-larger-than-site.toml",
                "14:9: a first set of 17 nodes is larger than the 16 eligible nodes of the site 'example' (" +
                    site_path + "); degraded nodes count only with include_degraded = true"},
        BadSpec{"unknown-node.toml", "14:9: node 'fat5' is not in the site 'example' (" + site_path + ")"},
        BadSpec{"tasks-exceed-processors.toml",
                "14:18: tasks_per_node = 3 is more than the 2 processors of node 'fat1' (" + site_path + ":16:1)"}),
    [](const ::testing::TestParamInfo<BadSpec>& param) {
      std::string name = param.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

}  // namespace
}  // namespace hetscale::jobgen
