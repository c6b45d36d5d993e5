#include "hetscale/jobgen/experiment_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace hetscale::jobgen {
namespace {

using ::testing::ElementsAre;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The message a spec text fails with, or "" when it parses.
std::string error_of(const std::string& text, const std::string& name = "spec.toml") {
  try {
    (void)parse_experiment_spec(text, name);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ExperimentSpec, ReadsEveryKey) {
  const auto spec = parse_experiment_spec(R"(
[experiment]
name = "heat"
target_efficiency = 0.4
repetitions = 3
database = "postgresql:///hetscale"

[code]
command = "./heat --grid {M} --home ${HOME}"
workload = "5*M^2"

[parameter]
name = "M"
values = [100, 200, 400]
integer = true
psi_floor = 0.9
same_on_every_set = true

[machine_sets]
start = 4
max = 16
policy = "fill"
include_degraded = true
nodes = "n[1-16]"

[slurm]
partition = "batch"
account = "lab"
time_limit = "1-00:00:00"
tasks_per_node = 2
array_throttle = 3
chain = true
weights = "equalized"

[refine]
steps = [0.01, 0.03]
tolerance = 0.05
max_rounds = 5
)",
                                          "heat.toml");
  EXPECT_EQ(spec.name, "heat");
  EXPECT_DOUBLE_EQ(spec.target_efficiency, 0.4);
  EXPECT_EQ(spec.repetitions, 3U);
  EXPECT_EQ(spec.database, "postgresql:///hetscale");
  EXPECT_FALSE(spec.code.kernel.has_value());
  EXPECT_EQ(spec.code.command, "./heat --grid {M} --home ${HOME}");
  EXPECT_EQ(spec.code_label(), spec.code.command);
  EXPECT_EQ(spec.workload.text(), "5*M^2");
  EXPECT_EQ(spec.parameter.name, "M");
  EXPECT_THAT(spec.parameter.values, ElementsAre(100, 200, 400));
  EXPECT_DOUBLE_EQ(spec.parameter.psi_floor, 0.9);
  EXPECT_TRUE(spec.parameter.same_on_every_set);
  EXPECT_EQ(spec.machine_sets.options.start, 4U);
  EXPECT_EQ(spec.machine_sets.options.max, 16U);
  EXPECT_EQ(spec.machine_sets.options.policy, SetPolicy::fill);
  EXPECT_TRUE(spec.machine_sets.options.include_degraded);
  EXPECT_EQ(spec.machine_sets.nodes, "n[1-16]");
  EXPECT_EQ(spec.machine_sets.nodes_where.str(), "heat.toml:24:9");
  EXPECT_EQ(spec.slurm.partition, "batch");
  EXPECT_EQ(spec.slurm.account, "lab");
  EXPECT_EQ(spec.slurm.time_limit, "1-00:00:00");
  EXPECT_EQ(spec.slurm.tasks_per_node, 2U);
  EXPECT_EQ(spec.slurm.array_throttle, 3U);
  EXPECT_TRUE(spec.slurm.chain);
  EXPECT_THAT(spec.slurm.weights, ElementsAre("equalized"));
  EXPECT_THAT(spec.refine.steps, ElementsAre(0.01, 0.03));
  EXPECT_DOUBLE_EQ(spec.refine.tolerance, 0.05);
  EXPECT_EQ(spec.refine.max_rounds, 5U);
}

TEST(ExperimentSpec, PrecisionAndItsBudget) {
  const std::string head =
      "[experiment]\nname = \"mm\"\ntarget_efficiency = 0.3\n[code]\nkernel = \"mm\"\n"
      "[parameter]\nmin = 100\nmax = 400\npoints = 3\n[refine]\n";
  auto spec = parse_experiment_spec(head + "precision = 0.1\n", "mm.toml");
  EXPECT_EQ(spec.refine.precision, 0.1);
  EXPECT_EQ(spec.refine.max_runs_per_set, default_max_runs_per_set);
  spec = parse_experiment_spec(head + "precision = 0.05\nmax_runs_per_set = 24\n", "mm.toml");
  EXPECT_EQ(spec.refine.max_runs_per_set, 24U);
  EXPECT_FALSE(parse_experiment_spec(head, "mm.toml").refine.precision);
  EXPECT_EQ(error_of(head + "precision = 0.1\nmax_runs_per_set = 3\n"),
            "spec.toml:12:20: 'max_runs_per_set' must be between 4 and 100000, got 3");
  // Round 0 gives every set 3 sizes x 2 repetitions x 2 values of weights = 12 runs.
  const std::string twice =
      "[experiment]\nname = \"mm\"\ntarget_efficiency = 0.3\nrepetitions = 2\n[code]\nkernel = \"mm\"\n"
      "[parameter]\nmin = 100\nmax = 400\npoints = 3\n[slurm]\nweights = [\"marked\", \"equalized\"]\n[refine]\n"
      "precision = 0.1\n";
  EXPECT_EQ(parse_experiment_spec(twice + "max_runs_per_set = 12\n", "mm.toml").refine.max_runs_per_set, 12U);
  EXPECT_EQ(error_of(twice + "max_runs_per_set = 11\n"),
            "spec.toml:15:20: 'max_runs_per_set' = 11 is below the 12 runs round 0 gives every set (3 sizes x 2 "
            "repetition(s) x 2 value(s) of weights): no repetition could ever be added");
}

TEST(ExperimentSpec, ProbeTable) {
  const std::string head =
      "[experiment]\nname = \"mm\"\ntarget_efficiency = 0.3\n[code]\nkernel = \"mm\"\n"
      "[parameter]\nmin = 100\nmax = 400\npoints = 3\n";
  EXPECT_FALSE(parse_experiment_spec(head, "mm.toml").probe);
  auto spec = parse_experiment_spec(head + "[probe]\n", "mm.toml");
  ASSERT_TRUE(spec.probe);
  EXPECT_EQ(spec.probe->budget_seconds, 10U);
  EXPECT_EQ(spec.probe->max_bytes, 64U << 20);
  spec = parse_experiment_spec(head + "[probe]\nbudget_seconds = 4\nmax_bytes = 1048576\n", "mm.toml");
  EXPECT_EQ(spec.probe->budget_seconds, 4U);
  EXPECT_EQ(spec.probe->max_bytes, 1048576U);
  EXPECT_EQ(error_of(head + "[probe]\nbudget_seconds = 0\n"),
            "spec.toml:11:18: 'budget_seconds' must be between 1 and 3600, got 0");
  EXPECT_EQ(error_of(head + "[probe]\nmax_bytes = 2147483648\n"),
            "spec.toml:11:13: 'max_bytes' must be between 1 and 1073741824, got 2147483648");
  EXPECT_THAT(error_of(head + "[probe]\nsizes = 3\n"), ::testing::StartsWith("spec.toml:11:1: "));
}

TEST(ExperimentSpec, DefaultsForAKernel) {
  const auto spec = parse_experiment_spec(R"(
[experiment]
name = "mm"
target_efficiency = 0.3
[code]
kernel = "mm"
[parameter]
min = 100
max = 400
points = 3
)",
                                          "mm.toml");
  EXPECT_EQ(spec.code.kernel, Kernel::mm);
  EXPECT_EQ(spec.code_label(), "mm");
  EXPECT_EQ(spec.workload.text(), "mm");
  EXPECT_EQ(spec.workload.formula(), "2*N^3");
  EXPECT_EQ(spec.parameter.name, "N");
  EXPECT_THAT(spec.parameter.values, ElementsAre(100, 200, 400));
  EXPECT_TRUE(spec.parameter.integer);
  EXPECT_DOUBLE_EQ(spec.parameter.psi_floor, 0.7);
  EXPECT_FALSE(spec.parameter.same_on_every_set);
  EXPECT_EQ(spec.repetitions, 1U);
  EXPECT_EQ(spec.database, "");
  EXPECT_EQ(spec.machine_sets.options.start, 2U);
  EXPECT_EQ(spec.machine_sets.options.max, 0U);
  EXPECT_EQ(spec.machine_sets.options.policy, SetPolicy::stop);
  EXPECT_FALSE(spec.machine_sets.options.include_degraded);
  EXPECT_FALSE(spec.machine_sets.nodes.has_value());
  EXPECT_FALSE(spec.slurm.time_limit.has_value());  // estimated per set
  EXPECT_FALSE(spec.slurm.tasks_per_node.has_value());
  EXPECT_FALSE(spec.slurm.array_throttle.has_value());
  EXPECT_FALSE(spec.slurm.chain);
  EXPECT_THAT(spec.slurm.weights, ElementsAre("marked"));
  EXPECT_THAT(spec.refine.steps, ElementsAre(0.02, 0.04));
  EXPECT_DOUBLE_EQ(spec.refine.tolerance, 0.02);
  EXPECT_EQ(spec.refine.max_rounds, 3U);
}

TEST(ExperimentSpec, ExamplesParse) {
  for (const char* name : {"mm", "ge", "conv2d", "heat", "mm-weights"}) {
    const std::string path = std::string(HETSCALE_SOURCE_DIR) + "/examples/experiments/" + name + ".toml";
    EXPECT_NO_THROW((void)load_experiment_spec(path)) << path;
  }
}

TEST(ExperimentSpec, AnUnreadableFileIsAConfigError) {
  try {
    (void)load_experiment_spec("/nonexistent/spec.toml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/spec.toml: cannot read the experiment spec");
  }
}

TEST(ExperimentSpec, TimeLimitsInEverySlurmFormat) {
  const std::string base = "[experiment]\nname = \"x\"\ntarget_efficiency = 0.3\n[code]\nkernel = \"mm\"\n"
                           "[parameter]\nvalues = [1, 2]\n[slurm]\ntime_limit = ";
  for (const char* good : {"90", "10:30", "01:00:00", "2-0", "2-12:30", "1-00:00:00"})
    EXPECT_EQ(error_of(base + "\"" + good + "\"\n"), "") << good;
  for (const char* bad : {"1:2:3:4", "-5", "1-", "1h", "1-2:3:4:5", "::"})
    EXPECT_EQ(error_of(base + "\"" + bad + "\"\n"),
              std::string("spec.toml:9:14: 'time_limit' must be a Slurm time (minutes, HH:MM:SS or D-HH:MM:SS), got '") +
                  bad + "'")
        << bad;
}

// A spec whose [slurm] table is open for the keys a test appends.
const std::string slurm_base = R"([experiment]
name = "mm"
target_efficiency = 0.3
[code]
kernel = "mm"
[parameter]
values = [100, 200]
[slurm]
)";

TEST(ExperimentSpec, ProductionSlurmKeys) {
  const std::string& base = slurm_base;
  const auto spec = parse_experiment_spec(base + R"toml(qos = "normal"
reservation = "maint-1"
constraint = "intel&(ib|opa)"
exclusive = false
mpi = "pmi2"
array_throttle = 0
sbatch_options = ["--mail-type=END", "--comment=hetscale"]
)toml",
                                          "spec.toml");
  EXPECT_EQ(spec.slurm.qos, "normal");
  EXPECT_EQ(spec.slurm.reservation, "maint-1");
  EXPECT_EQ(spec.slurm.constraint, "intel&(ib|opa)");
  EXPECT_FALSE(spec.slurm.exclusive);
  EXPECT_EQ(spec.slurm.mpi, "pmi2");
  EXPECT_EQ(spec.slurm.array_throttle, 0U);
  EXPECT_THAT(spec.slurm.sbatch_options, ElementsAre("--mail-type=END", "--comment=hetscale"));
  const auto defaults = parse_experiment_spec(base, "spec.toml");
  EXPECT_TRUE(defaults.slurm.exclusive);
  EXPECT_EQ(defaults.slurm.mpi, "pmix");
  EXPECT_TRUE(defaults.slurm.sbatch_options.empty());

  EXPECT_EQ(error_of(base + "sbatch_options = \"--mail-type=END\"\n"),
            "spec.toml:9:18: 'sbatch_options' must be an array of strings, not a string");
  EXPECT_EQ(error_of(base + "sbatch_options = [\"-p batch\"]\n"),
            "spec.toml:9:19: 'sbatch_options' may hold only letters, digits and ._/+:=@,-&|[]*!() (got '-p batch')");
  EXPECT_EQ(error_of(base + "sbatch_options = [\"mail-type=END\"]\n"),
            "spec.toml:9:19: 'sbatch_options' entries are long options such as \"--mail-type=END\" (got "
            "'mail-type=END')");
  EXPECT_EQ(error_of(base + "sbatch_options = [\"--comment=x\", \"--exclusive\"]\n"),
            "spec.toml:9:34: 'sbatch_options': --exclusive is written by jobgen (use the [slurm] key or leave it "
            "out)");
  EXPECT_EQ(error_of(base + "qos = \"a b\"\n"),
            "spec.toml:9:7: 'qos' may hold only letters, digits and ._/+:=@,- (got 'a b')");
  EXPECT_EQ(error_of(base + "exclusive = \"yes\"\n"), "spec.toml:9:13: 'exclusive' must be a boolean, not a string");
}

TEST(ExperimentSpec, WhoWritesACommandsRecords) {
  const std::string head = "[experiment]\nname = \"x\"\ntarget_efficiency = 0.3\n[code]\n";
  const std::string command = head + "command = \"./a {N}\"\nworkload = \"N^2\"\n";
  const std::string rest = "[parameter]\nvalues = [10, 20]\n";
  const auto by_default = parse_experiment_spec(command + rest, "spec.toml");
  EXPECT_EQ(by_default.code.record, RecordWriter::step);
  EXPECT_EQ(by_default.code.record_where.str(), "<input>");  // not given
  const auto program = parse_experiment_spec(command + "record = \"program\"\n" + rest, "spec.toml");
  EXPECT_EQ(program.code.record, RecordWriter::program);
  EXPECT_EQ(program.code.record_where.str(), "spec.toml:7:10");
  EXPECT_EQ(parse_experiment_spec(command + "record = \"step\"\n" + rest, "spec.toml").code.record,
            RecordWriter::step);
  EXPECT_EQ(error_of(command + "record = \"wrapper\"\n" + rest),
            "spec.toml:7:10: unknown 'record' value 'wrapper' (expected step or program)");
  EXPECT_EQ(error_of(command + "record = true\n" + rest), "spec.toml:7:10: 'record' must be a string, not a boolean");
  EXPECT_EQ(error_of(head + "kernel = \"mm\"\nrecord = \"step\"\n" + rest),
            "spec.toml:6:10: 'record' is for a 'command': the bundled kernels write their own records");
}

TEST(ExperimentSpec, WeightsAreOneValueOrAList) {
  const std::string& base = slurm_base;
  const auto list = parse_experiment_spec(base + "weights = [\"equalized\", \"marked\", \"./part.toml\"]\n",
                                          "spec.toml");
  EXPECT_THAT(list.slurm.weights, ElementsAre("equalized", "marked", "./part.toml"));
  EXPECT_EQ(list.slurm.weights_where.str(), "spec.toml:9:11");
  EXPECT_THAT(parse_experiment_spec(base + "weights = \"off\"\n", "spec.toml").slurm.weights, ElementsAre("off"));
  EXPECT_THAT(parse_experiment_spec(base + "weights = [\"off\"]\n", "spec.toml").slurm.weights, ElementsAre("off"));

  EXPECT_EQ(error_of(base + "weights = []\n"), "spec.toml:9:11: 'weights' needs at least one value");
  EXPECT_EQ(error_of(base + "weights = [\"marked\", \"equalized\", \"marked\"]\n"),
            "spec.toml:9:35: 'weights' lists 'marked' twice");
  EXPECT_EQ(error_of(base + "weights = [\"marked\", \"equalised\"]\n"),
            "spec.toml:9:22: unknown 'weights[1]' value 'equalised' (expected off, marked, equalized or a partition "
            "file path containing '/', e.g. ./part.toml)");
  EXPECT_EQ(error_of(base + "weights = \"markd\"\n"),
            "spec.toml:9:11: unknown 'weights' value 'markd' (expected off, marked, equalized or a partition file "
            "path containing '/', e.g. ./part.toml)");
  EXPECT_EQ(error_of(base + "weights = [\"marked\", 2]\n"), "spec.toml:9:22: 'weights[1]' must be a string, not an integer");
  EXPECT_EQ(error_of(base + "weights = [\"marked\", \"a b/c\"]\n"),
            "spec.toml:9:22: 'weights[1]' may hold only letters, digits and ._/+:=@,- (got 'a b/c')");
}

TEST(ExperimentSpec, ParameterNamesMustNotClobberScriptVariables) {
  const std::string spec = "[experiment]\nname = \"x\"\ntarget_efficiency = 0.3\n[code]\ncommand = \"./a {NAME}\"\n"
                           "workload = \"NAME^2\"\n[parameter]\nname = \"NAME\"\nvalues = [1, 2]\n";
  const auto with = [&](const std::string& name) {
    std::string text = spec;
    for (auto pos = text.find("NAME"); pos != std::string::npos; pos = text.find("NAME"))
      text.replace(pos, 4, name);
    return error_of(text);
  };
  EXPECT_EQ(with("repetition"),
            "spec.toml:8:8: parameter name 'repetition' is taken by the job scripts or the shell; choose another");
  EXPECT_EQ(with("SLURM_NNODES"),
            "spec.toml:8:8: parameter name 'SLURM_NNODES' is taken by the job scripts or the shell; choose another");
  EXPECT_EQ(with("PATH"), "spec.toml:8:8: parameter name 'PATH' is taken by the job scripts or the shell; choose another");
  EXPECT_EQ(with("rows"), "");
}

struct BadSpec {
  const char* file;
  const char* message;
};

class BadSpecs : public ::testing::TestWithParam<BadSpec> {};

TEST_P(BadSpecs, FailWithFileLineColumnAndExactMessage) {
  const std::string path = std::string(HETSCALE_FIXTURES_DIR) + "/jobgen/bad/" + GetParam().file;
  const std::string text = read(path);
  ASSERT_FALSE(text.empty()) << path;
  EXPECT_EQ(error_of(text, GetParam().file), GetParam().message);
}

// One committed fixture per rule; the site-dependent ones are in round_test.cpp.
INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadSpecs,
    ::testing::Values(
        BadSpec{"syntax.toml", "syntax.toml:1:12: syntax error while parsing table header: expected ']', saw '\\n'"},
        BadSpec{"unknown-top-key.toml",
                "unknown-top-key.toml:13:2: unknown key 'slurmm' at top level (expected experiment, code, "
                "parameter, machine_sets, slurm, refine or probe)"},
        BadSpec{"unknown-key-code.toml",
                "unknown-key-code.toml:6:1: unknown key 'kernal' in [code] (expected kernel, command, workload or record)"},
        BadSpec{"wrong-type-repetitions.toml",
                "wrong-type-repetitions.toml:4:15: 'repetitions' must be an integer, not a string"},
        BadSpec{"workload-syntax.toml", "workload-syntax.toml:7:17: bad workload formula: unexpected token '^'"},
        BadSpec{"workload-other-parameter.toml",
                "workload-other-parameter.toml:7:19: workload formula uses 'M', which is not the parameter 'N'"},
        BadSpec{"workload-not-growing.toml",
                "workload-not-growing.toml:6:10: the workload must be positive and grow with N over the sizes of "
                "[parameter] (line 8), but W(1) = 0"},
        BadSpec{"workload-too-large.toml",
                "workload-too-large.toml:6:10: the workload must be at most 1e+30 over the sizes of [parameter] "
                "(line 8), but W(1000000000000) = 2e+36"},
        BadSpec{"parameter-too-large.toml",
                "parameter-too-large.toml:9:16: 'values[1]' must be at most 1e+15, not 1e+16"},
        BadSpec{"target-above-one.toml",
                "target-above-one.toml:3:21: 'target_efficiency' must be in (0, 1]: a speed-efficiency above 1 "
                "cannot be reached, got 1.5"},
        BadSpec{"target-zero.toml", "target-zero.toml:3:21: 'target_efficiency' must be in (0, 1], got 0"},
        BadSpec{"unknown-kernel.toml", "unknown-kernel.toml:6:10: unknown kernel 'fft' (expected mm, ge, conv2d or lu)"},
        BadSpec{"kernel-and-command.toml",
                "kernel-and-command.toml:7:11: give either 'kernel' or 'command' in [code], not both"},
        BadSpec{"command-unknown-placeholder.toml",
                "command-unknown-placeholder.toml:6:25: unknown placeholder '{n}' in command (the parameter is "
                "'{N}')"},
        BadSpec{"command-without-placeholder.toml",
                "command-without-placeholder.toml:6:11: command does not use the parameter as '{N}': every run "
                "would have the same size"},
        BadSpec{"missing-experiment.toml", "missing-experiment.toml:1:1: missing table [experiment]"},
        BadSpec{"missing-target.toml", "missing-target.toml:1:1: missing key 'target_efficiency' in [experiment]"},
        BadSpec{"range-and-values.toml",
                "range-and-values.toml:12:10: give either 'values' or 'min', 'max' and 'points' in [parameter], "
                "not both"},
        BadSpec{"values-descending.toml", "values-descending.toml:9:21: 'values' must be ascending: 200 follows 300"},
        BadSpec{"points-repeat.toml",
                "points-repeat.toml:11:10: 10 points between 1 and 3 repeat whole numbers; use fewer points, a "
                "wider range or integer = false"},
        BadSpec{"max-below-min.toml", "max-below-min.toml:10:7: 'max' must be larger than 'min' (100), got 50"},
        BadSpec{"sets-max-below-start.toml", "sets-max-below-start.toml:15:7: 'max' (2) is smaller than 'start' (4)"},
        BadSpec{"unknown-policy.toml", "unknown-policy.toml:14:10: unknown policy 'grow' (expected stop or fill)"},
        BadSpec{"nodes-hostlist.toml", "nodes-hostlist.toml:14:13: bad host list 'fat[1-': unbalanced '['"},
        BadSpec{"time-limit.toml",
                "time-limit.toml:14:14: 'time_limit' must be a Slurm time (minutes, HH:MM:SS or D-HH:MM:SS), got "
                "'2h'"},
        BadSpec{"tasks-per-node-word.toml",
                "tasks-per-node-word.toml:14:18: 'tasks_per_node' must be \"processors\" or a positive integer, "
                "got 'all'"},
        BadSpec{"partition-unsafe.toml",
                "partition-unsafe.toml:14:13: 'partition' may hold only letters, digits and ._/+:=@,- (got 'batch; "
                "rm -rf ~')"},
        BadSpec{"refine-steps-order.toml", "refine-steps-order.toml:14:16: 'steps' must be ascending: 0.02 follows 0.04"},
        BadSpec{"refine-tolerance.toml",
                "refine-tolerance.toml:14:13: 'tolerance' must be in (0, 1) (a fraction of the target), got 2"},
        BadSpec{"refine-precision.toml",
                "refine-precision.toml:14:13: 'precision' must be in (0, 1) (the relative half-width of the required "
                "parameter's interval: 0.05 is 5%), got 1.5"},
        BadSpec{"refine-budget-without-precision.toml",
                "refine-budget-without-precision.toml:14:20: 'max_runs_per_set' is the budget of 'precision': give "
                "'precision' in [refine] too"}),
    [](const ::testing::TestParamInfo<BadSpec>& param) {
      std::string name = param.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

}  // namespace
}  // namespace hetscale::jobgen
