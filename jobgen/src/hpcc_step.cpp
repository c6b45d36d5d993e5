#include "hetscale/jobgen/hpcc_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/number_text.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/jobgen/step_record.hpp"
#include "hetscale/model/workload.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/record_after_step.hpp"
#include "hetscale/site/site_table.hpp"
#include "hetscale/site/step_layout.hpp"

namespace hetscale::jobgen {
namespace fs = std::filesystem;

HpccGrid hpcc_process_grid(std::size_t ranks) {
  if (ranks == 0) throw Error("an HPL process grid needs at least one rank");
  HpccGrid grid{1, ranks};
  for (std::size_t p = 1; p * p <= ranks; ++p)
    if (ranks % p == 0) grid = {p, ranks / p};
  return grid;
}

std::string hpcc_input_text(long long n, int nb, HpccGrid grid) {
  if (n < 1) throw Error(fmt::format("HPL's problem size must be at least 1, not {}", n));
  if (nb < 1) throw Error(fmt::format("HPL's block size must be at least 1, not {}", nb));
  // Lines 1-31 are HPL's input (lines 3 and 4 are ignored by hpcc, which always writes
  // hpccoutf.txt); line 32 is a separator; lines 33-36 give PTRANS extra sizes (none).
  return fmt::format(
      "HPLinpack benchmark input file\n"
      "written by hetscale record hpcc\n"
      "HPL.out      output file name (if any)\n"
      "8            device out (6=stdout,7=stderr,file)\n"
      "1            # of problems sizes (N)\n"
      "{:<12} Ns\n"
      "1            # of NBs\n"
      "{:<12} NBs\n"
      "0            PMAP process mapping (0=Row-,1=Column-major)\n"
      "1            # of process grids (P x Q)\n"
      "{:<12} Ps\n"
      "{:<12} Qs\n"
      "16.0         threshold\n"
      "1            # of panel fact\n"
      "2            PFACTs (0=left, 1=Crout, 2=Right)\n"
      "1            # of recursive stopping criterium\n"
      "4            NBMINs (>= 1)\n"
      "1            # of panels in recursion\n"
      "2            NDIVs\n"
      "1            # of recursive panel fact.\n"
      "1            RFACTs (0=left, 1=Crout, 2=Right)\n"
      "1            # of broadcast\n"
      "1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)\n"
      "1            # of lookahead depth\n"
      "1            DEPTHs (>=0)\n"
      "2            SWAP (0=bin-exch,1=long,2=mix)\n"
      "64           swapping threshold\n"
      "0            L1 in (0=transposed,1=no-transposed) form\n"
      "0            U  in (0=transposed,1=no-transposed) form\n"
      "1            Equilibration (0=no,1=yes)\n"
      "8            memory alignment in double (> 0)\n"
      "##### This line (no. 32) is ignored (it serves as a separator). ######\n"
      "0            Number of additional problem sizes for PTRANS\n"
      "{:<12} values of N\n"
      "0            number of additional blocking sizes for PTRANS\n"
      "{:<12} values of NB\n",
      n, nb, grid.p, grid.q, n, nb);
}

namespace {

// The key=value lines of the last summary section of hpccoutf.txt.
std::map<std::string, std::string, std::less<>> summary_of(std::string_view text, std::string_view origin) {
  constexpr std::string_view begin = "Begin of Summary section.";
  const auto at = text.rfind(begin);
  if (at == std::string_view::npos)
    throw Error(fmt::format("{}: no summary section: hpcc did not finish", origin));
  std::string_view rest = text.substr(at + begin.size());
  rest = rest.substr(0, rest.find("End of Summary section."));
  std::map<std::string, std::string, std::less<>> out;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const auto equals = line.find('=');
    if (equals != std::string_view::npos) out[std::string(line.substr(0, equals))] = line.substr(equals + 1);
  }
  return out;
}

// HPL's scaled residual check: the last HPL section's result line ends in PASSED.
bool residual_check_passed(std::string_view text) {
  const auto section = text.rfind("Begin of HPL section.");
  if (section == std::string_view::npos) return false;
  const std::string_view hpl = text.substr(section, text.find("End of HPL section.", section) - section);
  const auto check = hpl.find("||Ax-b||_oo/(eps*");
  if (check == std::string_view::npos) return false;
  const std::string_view line = hpl.substr(check, hpl.find('\n', check) - check);
  return line.ends_with("PASSED");
}

}  // namespace

HpccResult read_hpcc_output(std::string_view text, std::string_view origin) {
  const auto summary = summary_of(text, origin);
  auto figure = [&](std::string_view key) {
    const auto it = summary.find(key);
    if (it == summary.end()) throw Error(fmt::format("{}: the summary section has no {}", origin, key));
    return parse_number(it->second, fmt::format("{}: {}", origin, key));
  };
  auto count = [&](std::string_view key) {
    const double value = figure(key);
    if (value < 1 || value != std::floor(value))
      throw Error(fmt::format("{}: {} must be a positive integer, not {}", origin, key, summary.find(key)->second));
    return value;
  };
  HpccResult r;
  r.hpl_seconds = figure("HPL_time");
  if (!(r.hpl_seconds > 0)) throw Error(fmt::format("{}: HPL_time must be positive, not {}", origin, r.hpl_seconds));
  r.hpl_tflops = figure("HPL_Tflops");
  r.n = static_cast<long long>(count("HPL_N"));
  r.nb = static_cast<int>(count("HPL_NB"));
  r.p = static_cast<std::size_t>(count("HPL_nprow"));
  r.q = static_cast<std::size_t>(count("HPL_npcol"));
  r.passed = residual_check_passed(text);
  return r;
}

fs::path hpcc_step_directory(const fs::path& base, const GetEnv& getenv) {
  const char* job = getenv("SLURM_JOB_ID");
  const char* step = getenv("SLURM_STEP_ID");
  if (job == nullptr || step == nullptr)
    throw Error("hetscale record hpcc runs as a task of a Slurm job step (srun): SLURM_JOB_ID or SLURM_STEP_ID is not set");
  const std::string name = fmt::format("hpcc-{}.{}", job, step);
  if (name.find('/') != std::string::npos) throw Error(fmt::format("not a job step's name: '{}'", name));
  return base / name;
}

std::vector<std::string> step_rank_hosts(const GetEnv& getenv) {
  const char* nodes = getenv("SLURM_STEP_NODELIST");
  const char* tasks = getenv("SLURM_STEP_TASKS_PER_NODE");
  if (nodes == nullptr || tasks == nullptr)
    throw Error("SLURM_STEP_NODELIST or SLURM_STEP_TASKS_PER_NODE is not set: not a task of a Slurm job step");
  const std::vector<std::string> hosts = expand_hostlist(nodes);
  const std::vector<std::uint32_t> counts = parse_tasks_per_node(tasks, hosts.size());
  const StepLayout layout = make_step_layout(hosts, counts, 1);
  std::vector<std::string> out;
  for (const StepNode& node : layout.nodes)
    for (std::uint32_t t = 0; t < node.tasks; ++t) out.push_back(node.host);
  return out;
}

RunRecord hpcc_run_record(const HpccStep& step, const HpccResult& result, const std::vector<std::string>& rank_hosts,
                          const GetEnv& getenv, const RecordEnvironment& environment) {
  if (static_cast<double>(result.n) != step.parameter_value)
    throw Error(fmt::format("hpcc solved N = {}, not the step's {} = {}", result.n, step.parameter,
                            step.parameter_value));
  if (result.p * result.q != rank_hosts.size())
    throw Error(fmt::format("hpcc ran HPL on a {} x {} grid, not on the step's {} ranks", result.p, result.q,
                            rank_hosts.size()));
  // A step's record (W, the ranks' nominal shares, the nodes, set and repetition) with
  // HPL's own time in place of the step's, then what HPL itself says.
  StepDescription described{"hpcc", step.workload, step.parameter, step.parameter_value, "off", 0, "", rank_hosts};
  if (const char* speed = getenv("HETSCALE_SYSTEM_SPEED"); speed != nullptr && *speed != '\0')
    described.marked_speed = parse_number(speed, "HETSCALE_SYSTEM_SPEED");
  if (const char* site = getenv("HETSCALE_SITE"); site != nullptr && *site != '\0')
    described.speed_unit = load_site_table(site).speed_unit;
  RunRecord record = step_run_record(described, StepOutcome{result.hpl_seconds, 0, {}, {}}, environment);
  record.weights_source = "equal";  // HPL's blocks are dealt out evenly over the grid
  record.slurm.step_id = environment.slurm.step_id;  // run in the srun step itself
  record.verified = result.passed;
  record.fingerprint = {{"software",
                         {{"timed_until", "hpl_time"},
                          {"hpl_tflops", result.hpl_tflops},
                          {"hpl_grid", fmt::format("{}x{}", result.p, result.q)},
                          {"hpl_nb", result.nb}}},
                        {"hardware", nlohmann::json::object()}};
  record.timed_by = "program";
  record.exit_status.reset();
  return record;
}

HpccTaskResult run_hpcc_task(const HpccStep& step, const GetEnv& getenv) {
  const char* procid = getenv("SLURM_PROCID");
  const char* ntasks = getenv("SLURM_NTASKS");
  if (procid == nullptr || ntasks == nullptr)
    throw Error("hetscale record hpcc runs as a task of a Slurm job step (srun): SLURM_PROCID or SLURM_NTASKS is not set");
  const double ranks = parse_number(ntasks, "SLURM_NTASKS");
  if (ranks < 1 || ranks != std::floor(ranks)) throw Error(fmt::format("SLURM_NTASKS: '{}' is not a count", ntasks));
  const bool rank0 = std::string_view(procid) == "0";
  if (step.parameter_value < 1 || step.parameter_value != std::floor(step.parameter_value))
    throw Error(fmt::format("HPL's {} must be a positive integer, not {}", step.parameter, step.parameter_value));
  // Checked before hpcc runs: a formula that gives no W must not cost a step.
  const RecordEnvironment environment = read_record_environment(getenv);
  (void)Workload::parse(step.workload).evaluate({{step.parameter, step.parameter_value}});

  HpccTaskResult out;
  out.directory = hpcc_step_directory(step.base, getenv);
  // Every task writes the same text, each through its own temporary file: whichever
  // rename comes last, hpcc reads a whole file.
  write_file_atomically(out.directory / "hpccinf.txt",
                        hpcc_input_text(static_cast<long long>(step.parameter_value), step.block_size,
                                        hpcc_process_grid(static_cast<std::size_t>(ranks))));
  const StepOutcome ran = run_timed_step(step.hpcc, out.directory);
  out.exit_status = ran.exit_status;
  if (!rank0) {
    out.message = fmt::format("hpcc exited with status {}", ran.exit_status);
    return out;
  }
  if (ran.exit_status != 0) {
    out.message = fmt::format("hpcc exited with status {}: no record written", ran.exit_status);
    return out;
  }
  // hpcc has run: from here on a failure costs the record, never hpcc's exit status.
  const fs::path output = out.directory / "hpccoutf.txt";
  if (!environment.record_file) {
    out.message = "hpcc exited with status 0; no record written: HETSCALE_RECORD is not set";
    return out;
  }
  std::string solved;
  const RecordAfterStep record = append_record_after_step(*environment.record_file, [&]() -> std::optional<RunRecord> {
    const HpccResult result = read_hpcc_output(read_text_file(output, "hpcc output"), output.string());
    solved = fmt::format("HPL_time {} s ({} Tflops, residual check {})", result.hpl_seconds, result.hpl_tflops,
                         result.passed ? "passed" : "failed");
    RunRecord made = hpcc_run_record(step, result, step_rank_hosts(getenv), getenv, environment);
    // The solve ended before hpcc's other tests: its start and end are not known, only
    // that both lie within hpcc's run.
    made.start_time = utc_timestamp(ran.start);
    made.end_time = utc_timestamp(ran.end);
    return made;
  });
  out.record_written = record.written;
  out.not_written_because = record.not_written_because;
  out.message = record.written ? fmt::format("{}; record appended to {}", solved, *environment.record_file)
                               : fmt::format("hpcc exited with status 0; no record written: {}", *record.not_written_because);
  return out;
}

}  // namespace hetscale::jobgen
