// hetscale record step: a job step timed from outside, and its run record appended when
// the step wrote none (docs/run-record.md). The logic is hetscale::jobgen::record_step.
// hetscale record hpcc: one task of a step running Debian's HPC Challenge, its record
// timed by HPL itself (docs/workload.md). The logic is hetscale::jobgen::run_hpcc_task.
#include <cstdlib>

#include <fmt/format.h>

#include <tuple>

#include "arguments.hpp"
#include "commands.hpp"
#include "hetscale/jobgen/hpcc_step.hpp"
#include "hetscale/jobgen/step_record.hpp"

namespace hetscale::cli {
namespace {

struct RecordStepArgs {
  jobgen::StepDescription step;
  std::string param;  // NAME=VALUE
  std::string nodes;
  std::size_t tasks_per_node = 1;
  std::string host_file;
  std::vector<std::string> command;
};

void run_record_step(RecordStepArgs& args, Context& context) {
  std::tie(args.step.parameter, args.step.parameter_value) = parse_assignment(args.param, "--param");
  args.step.rank_hosts = args.host_file.empty() ? jobgen::rank_hosts_of(args.nodes, args.tasks_per_node)
                                                : jobgen::rank_hosts_of_file(args.host_file);
  const RecordEnvironment environment = read_record_environment([](const char* name) { return std::getenv(name); });
  const jobgen::StepRecordResult result = jobgen::record_step(args.step, args.command, environment);
  context.out << fmt::format("hetscale record step: exit status {} after {:.6g} s; {}\n", result.outcome.exit_status,
                             result.outcome.wall_seconds,
                             result.written ? "record appended to " + *environment.record_file
                                            : "no record written: " + result.skipped_because.value_or("it could not be written"));
  if (result.nominal_because) {
    context.out << "hetscale record step: the ranks' times are the step's (nominal): " << *result.nominal_because << "\n";
  }
  if (result.not_written_because) {
    context.err << "hetscale record step: the run record was not written: " << *result.not_written_because << "\n";
  }
  // The step's status whatever became of its record: the batch script goes on as after srun.
  context.exit_code = result.outcome.exit_status;
}

struct RecordHpccArgs {
  jobgen::HpccStep step;
  std::string param;  // NAME=VALUE
  std::vector<std::string> command;
};

void run_record_hpcc(RecordHpccArgs& args, Context& context) {
  std::tie(args.step.parameter, args.step.parameter_value) = parse_assignment(args.param, "--param");
  if (!args.command.empty()) args.step.hpcc = args.command;
  const jobgen::HpccTaskResult result =
      jobgen::run_hpcc_task(args.step, [](const char* name) { return std::getenv(name); });
  context.out << "hetscale record hpcc: " << result.message << "\n";
  if (result.not_written_because) {
    context.err << "hetscale record hpcc: the run record was not written: " << *result.not_written_because << "\n";
  }
  // hpcc's status whatever became of its record, as for `record step`.
  context.exit_code = result.exit_status;
}

void register_record_hpcc(CLI::App& record, Context& context) {
  auto args = std::make_shared<RecordHpccArgs>();
  auto* cmd = record.add_subcommand(
      "hpcc",
      "Run as every task of a job step (srun ... hetscale record hpcc ...): write hpccinf.txt for HPL's N and "
      "the step's P x Q into the step's directory, run hpcc there and, on rank 0, append a run record with "
      "HPL's own wall time (HPL_time of hpccoutf.txt); exit with hpcc's status");
  cmd->add_option("--workload", args->step.workload, "Workload formula W of the spec, e.g. '2/3*N^3 + 3/2*N^2'")
      ->required();
  cmd->add_option("--param", args->param, "HPL's problem size in this step, NAME=VALUE")->required();
  cmd->add_option("--block-size", args->step.block_size, "HPL's block size NB")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  args->step.base = ".";
  cmd->add_option("--dir", args->step.base,
                  "Where the step's directory hpcc-<job>.<step> is made (shared by the step's nodes)")
      ->capture_default_str();
  cmd->add_option("command", args->command, "The hpcc program and its arguments (after --; default: hpcc)");
  cmd->callback([args, &context] { run_record_hpcc(*args, context); });
}

}  // namespace

void register_record(CLI::App& app, Context& context) {
  auto* record = app.add_subcommand("record", "Run records written from a job script");
  record->require_subcommand(1);
  auto args = std::make_shared<RecordStepArgs>();
  auto* cmd = record->add_subcommand(
      "step",
      "Run a job step (everything after --), time it from outside and, unless the step appended a run record "
      "to $HETSCALE_RECORD itself, append one (timed_by \"step\", the step's exit status); exit with the "
      "step's exit status");
  cmd->add_option("--code", args->step.code, "The code as the experiment spec names it ([code] command)")
      ->required();
  cmd->add_option("--workload", args->step.workload, "Workload formula W of the spec, e.g. '500*M^2'")->required();
  cmd->add_option("--param", args->param, "The parameter's value in this step, NAME=VALUE")->required();
  cmd->add_option("--weights", args->step.weights,
                  "The weights the step asked for (--hetscale-weights): marked, equalized, FILE or off")
      ->required();
  cmd->add_option("--marked-speed", args->step.marked_speed, "Marked speed C of the machine set (0: not known)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--speed-unit", args->step.speed_unit, "Unit of --marked-speed (the site table's speed_unit)");
  auto* nodes = cmd->add_option("--nodes", args->nodes, "The step's nodes as a host list, e.g. n[1-4]");
  cmd->add_option("--tasks-per-node", args->tasks_per_node, "Ranks on each node of --nodes")
      ->needs(nodes)
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto* hosts = cmd->add_option("--host-file", args->host_file, "A file with one host per rank, in rank order");
  nodes->excludes(hosts);
  hosts->excludes(nodes);
  cmd->add_option("command", args->command, "The step: srun ... <command> (after --)")->required();
  cmd->callback([args, nodes, hosts, &context] {
    if (nodes->count() == 0 && hosts->count() == 0) throw UsageError("give the step's ranks: --nodes or --host-file");
    run_record_step(*args, context);
  });
  register_record_hpcc(*record, context);
}

}  // namespace hetscale::cli
