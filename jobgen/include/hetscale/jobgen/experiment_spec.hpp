// The experiment spec (docs/experiment-spec.md):
// what to run, how its work grows, on which machine sets, and how to submit it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/model/efficiency_fit.hpp"
#include "hetscale/model/machine_sets.hpp"
#include "hetscale/model/workload.hpp"

namespace hetscale::jobgen {

/// The bundled MPI kernels (binaries hetscale-<name>).
enum class Kernel { mm, ge, conv2d, lu };
std::string_view to_string(Kernel kernel);

// Who writes a command's run records ([code] record): `step`, the generated script's
// `hetscale record step` wrapper, whenever the step appended none itself; `program`, the
// program alone (through jobgen/helpers/hetscale_record.h).
enum class RecordWriter { step, program };

struct CodeSpec {
  std::optional<Kernel> kernel;  // exactly one of kernel / command is set
  std::string command;           // the user's shell command line with {N}-style placeholders
  SourceLocation command_where;
  RecordWriter record = RecordWriter::step;  // a command's; the kernels write their own
  SourceLocation record_where;   // its value in the spec (unset when not given there)
};

struct ParameterSpec {
  std::string name = "N";
  std::vector<double> values;   // the first set's sizes, ascending (from min/max/points or values)
  bool integer = true;          // round every size to a whole number
  double psi_floor = 0.7;       // lowest psi expected between consecutive sets
  bool same_on_every_set = false;  // every set runs `values` unscaled (psi_floor unused)
  SourceLocation where;         // the [parameter] table
};

struct MachineSetSpec {
  MachineSetOptions options;         // start, max (0 = no limit), policy, include_degraded
  std::optional<std::string> nodes;  // host list the sets are drawn from (all nodes if absent)
  SourceLocation start_where;
  SourceLocation max_where;
  SourceLocation nodes_where;
};

struct SlurmSpec {
  std::string partition;          // empty: the cluster's default
  SourceLocation partition_where; // its value in the spec (unset when not given there)
  std::string account;            // empty: the user's default
  std::string qos;                // empty: the association's default
  std::string reservation;        // empty: none
  std::string constraint;         // empty: none (Slurm's feature expression, e.g. "intel&ib")
  std::optional<std::string> time_limit;  // absent: estimated per set (time_limit.hpp)
  std::optional<std::uint32_t> tasks_per_node;  // absent: one task per processor
  SourceLocation tasks_per_node_where;
  // The %N of --array. A machine set's array defaults to 1 (its tasks never share its
  // nodes); 0 means no throttle. The twin's array has none unless given.
  std::optional<std::uint32_t> array_throttle;
  bool exclusive = true;          // whole nodes for every set's job
  std::string mpi = "pmix";       // srun --mpi=<mpi>
  std::vector<std::string> sbatch_options;  // extra "#SBATCH" options, each "--name[=value]"
  bool chain = false;             // each set waits for the previous (afterany)
  // Values of --hetscale-weights, one step per value in each repetition, in this order
  // (never empty, no value twice).
  std::vector<std::string> weights = {"marked"};
  SourceLocation weights_where;   // its value in the spec (unset when not given there)
  SourceLocation table_where;     // the [slurm] table (unset when the spec has none)
  // Where each key given in [slurm] has its value, by key name (for Slurm's refusals).
  std::map<std::string, SourceLocation, std::less<>> key_where;
};

/// The budget of runs per set when [refine] precision is given without max_runs_per_set.
inline constexpr std::uint32_t default_max_runs_per_set = 60;

struct RefineSpec {
  std::vector<double> steps = {0.02, 0.04};  // relative steps around the estimate, each +/-
  double tolerance = default_efficiency_tolerance;  // |E_s - target| <= tolerance * target: reached
  std::uint32_t max_rounds = 3;
  // The relative half-width the required parameter's 95% interval must reach, in (0, 1);
  // absent: the rule of `tolerance` alone (docs/experiment-spec.md, "Repetitions by precision").
  std::optional<double> precision{};
  // The runs a set may have over all rounds before repetitions stop (with precision only).
  std::uint32_t max_runs_per_set = default_max_runs_per_set;
};

/// The network probe of every machine set ([probe], docs/experiment-spec.md): when the spec
/// has the table, each set's script of round 0 runs hetscale-commbench on the set's nodes,
/// one rank a node, before the set's first run; its output goes where `hetscale collect`
/// stores it from (probe_file_name, scripts.hpp).
struct ProbeSpec {
  std::uint32_t budget_seconds = 10;  // hetscale-commbench --budget-seconds
  std::uint64_t max_bytes = 64ULL << 20;  // --max-bytes: the sweep's largest message
  SourceLocation where;           // the [probe] table
};

struct ExperimentSpec {
  std::filesystem::path source;   // file it was read from
  std::string text;               // the TOML text it was parsed from (the plan file keeps it)
  std::string name;
  CodeSpec code;
  Workload workload = Workload::parse("N");
  SourceLocation workload_where;
  ParameterSpec parameter;
  double target_efficiency = 0;
  std::uint32_t repetitions = 1;
  std::string database;           // URI to collect into; empty when not given
  MachineSetSpec machine_sets;
  SlurmSpec slurm;
  RefineSpec refine;
  std::optional<ProbeSpec> probe;  // absent: no probe

  /// What the code is called in records and the plan: the kernel name or the command.
  [[nodiscard]] std::string code_label() const;
};

/// Parses a spec; `source_name` is the file name used in messages. Throws ConfigError
/// "file:line:col: message" for syntax errors, unknown keys, wrong types, missing keys,
/// out-of-range values, a workload formula that does not parse (column inside the
/// string) or that uses another parameter, and command placeholders naming no parameter.
ExperimentSpec parse_experiment_spec(std::string_view text, const std::string& source_name);

/// Reads and parses a spec file; an unreadable file is a ConfigError too.
ExperimentSpec load_experiment_spec(const std::filesystem::path& path);

}  // namespace hetscale::jobgen
