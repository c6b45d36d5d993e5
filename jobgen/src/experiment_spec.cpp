// Reading the experiment spec (docs/experiment-spec.md). Everything that can be checked
// without the site table is checked here; the site-dependent checks (set sizes, node
// names, tasks per node) are in round.cpp, with the positions kept in the spec.
#include "hetscale/jobgen/experiment_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "hetscale/base/text_file.hpp"
#include "hetscale/base/toml_source.hpp"
#include "hetscale/jobgen/problem_sizes.hpp"
#include "hetscale/jobgen/time_limit.hpp"
#include "hetscale/site/hostlist.hpp"
#include "hetscale/site/weights_request.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::jobgen {

std::string_view to_string(Kernel kernel) {
  switch (kernel) {
    case Kernel::mm: return "mm";
    case Kernel::ge: return "ge";
    case Kernel::conv2d: return "conv2d";
    case Kernel::lu: return "lu";
  }
  return "unknown";
}

std::string ExperimentSpec::code_label() const {
  return code.kernel ? std::string(to_string(*code.kernel)) : code.command;
}

namespace {

constexpr std::int64_t max_count = 1'000'000;

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Letters, digits and the given punctuation only (values pasted into scripts and names).
bool only_chars(std::string_view s, std::string_view punctuation) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || punctuation.find(c) != std::string_view::npos;
  });
}

// The scripts hold the parameter in a shell variable of its name: it must not clobber
// theirs or the shell's.
bool is_reserved(std::string_view name) {
  static constexpr std::string_view taken[] = {"study_dir", "bin_dir", "repetition", "PATH", "HOME", "IFS",
                                               "PWD", "OLDPWD", "SHELL", "USER", "LANG", "TMPDIR", "HOSTNAME",
                                               "UID", "EUID", "PPID", "RANDOM", "SECONDS", "LINENO", "BASH"};
  if (name.starts_with("SLURM_") || name.starts_with("HETSCALE_") || name.starts_with("BASH_")) return true;
  return std::find(std::begin(taken), std::end(taken), name) != std::end(taken);
}

// 1-based column of the first whole-word occurrence of `name` in `text` (1 if none).
std::size_t word_column(std::string_view text, std::string_view name) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t pos = text.find(name); pos != std::string_view::npos; pos = text.find(name, pos + 1)) {
    const bool starts = pos == 0 || !is_word(text[pos - 1]);
    const bool ends = pos + name.size() == text.size() || !is_word(text[pos + name.size()]);
    if (starts && ends) return pos + 1;
  }
  return 1;
}

class SpecReader {
 public:
  SpecReader(std::string_view text, const std::string& source_name) : toml_(text, source_name) {
    spec_.source = source_name;
  }

  ExperimentSpec read() {
    const toml::table root = toml_.parse();
    toml_.check_keys(root, {"experiment", "code", "parameter", "machine_sets", "slurm", "refine", "probe"},
                     "at top level");
    read_experiment(toml_.table_of(root, "experiment"));
    // The parameter's name is needed to check the formula and the command's placeholders.
    const toml::table& parameter = toml_.table_of(root, "parameter");
    read_parameter_name(parameter);
    read_code(toml_.table_of(root, "code"));
    read_parameter_values(parameter);
    if (const toml::table* sets = toml_.optional_table_of(root, "machine_sets")) read_machine_sets(*sets);
    else spec_.machine_sets.start_where = spec_.machine_sets.max_where = toml_.at(root);
    if (const toml::table* slurm = toml_.optional_table_of(root, "slurm")) read_slurm(*slurm);
    if (const toml::table* refine = toml_.optional_table_of(root, "refine")) read_refine(*refine);
    if (const toml::table* probe = toml_.optional_table_of(root, "probe")) read_probe(*probe);
    return std::move(spec_);
  }

 private:
  void read_experiment(const toml::table& t) {
    toml_.check_keys(t, {"name", "target_efficiency", "repetitions", "database"}, "in [experiment]");
    const toml::node& name = toml_.required(t, "name", "[experiment]");
    spec_.name = toml_.string(name, "name");
    if (!std::isalnum(static_cast<unsigned char>(spec_.name[0])) || !only_chars(spec_.name, "._-"))
      toml_.fail(toml_.at(name), fmt::format("'name' must be letters, digits, '.', '_' or '-' (it names "
                                             "files and jobs), got '{}'", spec_.name));
    const toml::node& target = toml_.required(t, "target_efficiency", "[experiment]");
    spec_.target_efficiency = toml_.number(target, "target_efficiency");
    if (spec_.target_efficiency <= 0)
      toml_.fail(toml_.at(target), fmt::format("'target_efficiency' must be in (0, 1], got {}", spec_.target_efficiency));
    if (spec_.target_efficiency > 1)
      toml_.fail(toml_.at(target), fmt::format("'target_efficiency' must be in (0, 1]: a speed-efficiency above 1 "
                                               "cannot be reached, got {}", spec_.target_efficiency));
    if (const toml::node* reps = t.get("repetitions"))
      spec_.repetitions = static_cast<std::uint32_t>(toml_.integer(*reps, "repetitions", 1, 1000));
    if (const toml::node* db = t.get("database")) spec_.database = toml_.string(*db, "database");
  }

  void read_code(const toml::table& t) {
    toml_.check_keys(t, {"kernel", "command", "workload", "record"}, "in [code]");
    const toml::node* kernel = t.get("kernel");
    const toml::node* command = t.get("command");
    if (kernel != nullptr && command != nullptr)
      toml_.fail(toml_.at(*command), "give either 'kernel' or 'command' in [code], not both");
    if (kernel == nullptr && command == nullptr) toml_.fail(toml_.at(t), "missing key 'kernel' or 'command' in [code]");
    if (kernel != nullptr) read_kernel(*kernel);
    const toml::node* workload = t.get("workload");
    if (workload != nullptr) read_workload(*workload);
    else if (command != nullptr) toml_.fail(toml_.at(t), "missing key 'workload' in [code] (needed with 'command')");
    else set_kernel_workload(*kernel);
    if (command != nullptr) read_command(*command);
    if (const toml::node* record = t.get("record")) read_record(*record, kernel != nullptr);
  }

  void read_record(const toml::node& value, bool kernel) {
    const std::string writer = toml_.string(value, "record");
    spec_.code.record_where = toml_.at(value);
    if (kernel) toml_.fail(toml_.at(value), "'record' is for a 'command': the bundled kernels write their own records");
    if (writer == "step") spec_.code.record = RecordWriter::step;
    else if (writer == "program") spec_.code.record = RecordWriter::program;
    else toml_.fail(toml_.at(value), fmt::format("unknown 'record' value '{}' (expected step or program)", writer));
  }

  void read_kernel(const toml::node& value) {
    const std::string name = toml_.string(value, "kernel");
    for (Kernel k : {Kernel::mm, Kernel::ge, Kernel::conv2d, Kernel::lu})
      if (name == to_string(k)) spec_.code.kernel = k;
    if (!spec_.code.kernel)
      toml_.fail(toml_.at(value), fmt::format("unknown kernel '{}' (expected mm, ge, conv2d or lu)", name));
    if (spec_.parameter.name != "N")
      toml_.fail(toml_.at(value), fmt::format("the bundled kernels take the parameter 'N', not '{}'",
                                              spec_.parameter.name));
  }

  // A kernel without an explicit formula uses its built-in one (Workload knows the names).
  void set_kernel_workload(const toml::node& kernel) {
    spec_.workload = Workload::parse(to_string(*spec_.code.kernel));
    spec_.workload_where = toml_.at(kernel);
  }

  void read_workload(const toml::node& value) {
    const std::string text = toml_.string(value, "workload");
    spec_.workload_where = toml_.at(value);
    try {
      spec_.workload = Workload::parse(text);
    } catch (const ExpressionError& e) {
      toml_.fail(toml_.inside(value, e.column()), fmt::format("bad workload formula: {}", e.message()));
    }
    const auto& names = spec_.workload.parameters();
    for (const std::string& name : names) {
      if (name != spec_.parameter.name)
        toml_.fail(toml_.inside(value, word_column(text, name)),
                   fmt::format("workload formula uses '{}', which is not the parameter '{}'", name,
                               spec_.parameter.name));
    }
    if (names.empty())
      toml_.fail(toml_.at(value), fmt::format("workload formula does not use the parameter '{}'",
                                              spec_.parameter.name));
  }

  // {N} is a placeholder; ${...} belongs to the shell and is left alone.
  void read_command(const toml::node& value) {
    spec_.code.command = toml_.string(value, "command");
    spec_.code.command_where = toml_.at(value);
    const std::string& cmd = spec_.code.command;
    bool used = false;
    for (std::size_t open = cmd.find('{'); open != std::string::npos; open = cmd.find('{', open + 1)) {
      if (open > 0 && cmd[open - 1] == '$') continue;
      const std::size_t close = cmd.find('}', open);
      const std::string name = close == std::string::npos ? "" : cmd.substr(open + 1, close - open - 1);
      if (name != spec_.parameter.name)
        toml_.fail(toml_.inside(value, open + 1),
                   fmt::format("unknown placeholder '{}' in command (the parameter is '{{{}}}')",
                               cmd.substr(open, close == std::string::npos ? 1 : close - open + 1),
                               spec_.parameter.name));
      used = true;
    }
    if (!used)
      toml_.fail(toml_.at(value), fmt::format("command does not use the parameter as '{{{}}}': every run "
                                              "would have the same size", spec_.parameter.name));
  }

  void read_parameter_name(const toml::table& t) {
    toml_.check_keys(t, {"name", "min", "max", "points", "values", "integer", "psi_floor", "same_on_every_set"}, "in [parameter]");
    spec_.parameter.where = toml_.at(t);
    if (const toml::node* name = t.get("name")) {
      spec_.parameter.name = toml_.string(*name, "name");
      if (!is_identifier(spec_.parameter.name))
        toml_.fail(toml_.at(*name), fmt::format("parameter name '{}' is not a name (letters, digits, '_')",
                                                spec_.parameter.name));
      if (is_reserved(spec_.parameter.name))
        toml_.fail(toml_.at(*name), fmt::format("parameter name '{}' is taken by the job scripts or the shell; "
                                                "choose another", spec_.parameter.name));
    }
  }

  void read_parameter_values(const toml::table& t) {
    ParameterSpec& p = spec_.parameter;
    if (const toml::node* integer = t.get("integer")) p.integer = toml_.boolean(*integer, "integer");
    if (const toml::node* same = t.get("same_on_every_set"))
      p.same_on_every_set = toml_.boolean(*same, "same_on_every_set");
    if (const toml::node* floor = t.get("psi_floor")) {
      p.psi_floor = toml_.number(*floor, "psi_floor");
      if (p.psi_floor <= 0 || p.psi_floor > 1)
        toml_.fail(toml_.at(*floor), fmt::format("'psi_floor' must be in (0, 1], got {}", p.psi_floor));
    }
    const toml::node* values = t.get("values");
    const bool has_range = t.get("min") != nullptr || t.get("max") != nullptr || t.get("points") != nullptr;
    if (values != nullptr && has_range)
      toml_.fail(toml_.at(*values), "give either 'values' or 'min', 'max' and 'points' in [parameter], not both");
    if (values != nullptr) read_value_list(*values);
    else read_range(t);
    check_workload_grows(t);
  }

  void read_range(const toml::table& t) {
    const toml::node& min = toml_.required(t, "min", "[parameter] (or give 'values')");
    const toml::node& max = toml_.required(t, "max", "[parameter] (or give 'values')");
    const toml::node& points = toml_.required(t, "points", "[parameter] (or give 'values')");
    const double lo = toml_.number(min, "min", kMaxParameter);
    const double hi = toml_.number(max, "max", kMaxParameter);
    const auto n = static_cast<std::size_t>(toml_.integer(points, "points", 2, 64));
    if (lo <= 0) toml_.fail(toml_.at(min), fmt::format("'min' must be positive, got {}", lo));
    if (hi <= lo) toml_.fail(toml_.at(max), fmt::format("'max' must be larger than 'min' ({}), got {}", lo, hi));
    spec_.parameter.values = geometric_values(lo, hi, n, spec_.parameter.integer);
    if (spec_.parameter.values.size() != n)
      toml_.fail(toml_.at(points), fmt::format("{} points between {} and {} repeat whole numbers; use fewer "
                                               "points, a wider range or integer = false", n, lo, hi));
  }

  void read_value_list(const toml::node& node) {
    const toml::array& list = toml_.array(node, "values");
    if (list.size() < 2) toml_.fail(toml_.at(node), "'values' needs at least 2 sizes to bracket the target");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string key = fmt::format("values[{}]", i);
      const double v = toml_.number(list[i], key, kMaxParameter);
      if (v <= 0) toml_.fail(toml_.at(list[i]), fmt::format("'{}' must be positive, got {}", key, v));
      if (spec_.parameter.integer && v != std::floor(v))
        toml_.fail(toml_.at(list[i]), fmt::format("'{}' must be a whole number (integer = true), got {}", key, v));
      if (i > 0 && v <= spec_.parameter.values.back())
        toml_.fail(toml_.at(list[i]), fmt::format("'values' must be ascending: {} follows {}", v,
                                                  spec_.parameter.values.back()));
      spec_.parameter.values.push_back(v);
    }
  }

  // Sizes are scaled through W, so W must be positive and grow over the first set's sizes.
  void check_workload_grows(const toml::table& t) {
    const SourceLocation where = spec_.workload_where;
    double previous = 0;
    for (double v : spec_.parameter.values) {
      const double w = spec_.workload.evaluate(std::span<const double>(&v, 1));
      if (!std::isfinite(w) || w <= previous)
        toml_.fail(where, fmt::format("the workload must be positive and grow with {} over the sizes of "
                                      "[parameter] (line {}), but W({}) = {}", spec_.parameter.name,
                                      toml_.at(t).line, v, w));
      if (w > kMaxWork)
        toml_.fail(where, fmt::format("the workload must be at most {} over the sizes of [parameter] "
                                      "(line {}), but W({}) = {}", kMaxWork, toml_.at(t).line, v, w));
      previous = w;
    }
  }

  void read_machine_sets(const toml::table& t) {
    toml_.check_keys(t, {"start", "max", "policy", "include_degraded", "nodes"}, "in [machine_sets]");
    MachineSetSpec& m = spec_.machine_sets;
    m.start_where = m.max_where = toml_.at(t);
    if (const toml::node* start = t.get("start")) {
      m.options.start = static_cast<std::size_t>(toml_.integer(*start, "start", 1, max_count));
      m.start_where = toml_.at(*start);
    }
    if (const toml::node* max = t.get("max")) {
      m.options.max = static_cast<std::size_t>(toml_.integer(*max, "max", 0, max_count));
      m.max_where = toml_.at(*max);
      if (m.options.max != 0 && m.options.max < m.options.start)
        toml_.fail(m.max_where, fmt::format("'max' ({}) is smaller than 'start' ({})", m.options.max,
                                            m.options.start));
    }
    if (const toml::node* policy = t.get("policy")) {
      const std::string value = toml_.string(*policy, "policy");
      if (value == "stop") m.options.policy = SetPolicy::stop;
      else if (value == "fill") m.options.policy = SetPolicy::fill;
      else toml_.fail(toml_.at(*policy), fmt::format("unknown policy '{}' (expected stop or fill)", value));
    }
    if (const toml::node* degraded = t.get("include_degraded"))
      m.options.include_degraded = toml_.boolean(*degraded, "include_degraded");
    if (const toml::node* nodes = t.get("nodes")) read_nodes(*nodes);
  }

  void read_nodes(const toml::node& value) {
    const std::string expression = toml_.string(value, "nodes");
    try {
      (void)expand_hostlist(expression);
    } catch (const ExpressionError& e) {
      toml_.fail(toml_.inside(value, e.column()), fmt::format("bad host list '{}': {}", expression, e.message()));
    }
    spec_.machine_sets.nodes = expression;
    spec_.machine_sets.nodes_where = toml_.at(value);
  }

  void read_slurm(const toml::table& t) {
    toml_.check_keys(t,
                     {"partition", "account", "qos", "reservation", "constraint", "time_limit", "tasks_per_node",
                      "array_throttle", "exclusive", "mpi", "sbatch_options", "chain", "weights"},
                     "in [slurm]");
    SlurmSpec& s = spec_.slurm;
    s.table_where = toml_.at(t);
    for (const auto& [key, value] : t) s.key_where.emplace(std::string(key.str()), toml_.at(value));
    if (const toml::node* v = t.get("partition")) {
      s.partition = shell_safe(*v, "partition");
      s.partition_where = toml_.at(*v);
    }
    if (const toml::node* v = t.get("account")) s.account = shell_safe(*v, "account");
    if (const toml::node* v = t.get("qos")) s.qos = shell_safe(*v, "qos");
    if (const toml::node* v = t.get("reservation")) s.reservation = shell_safe(*v, "reservation");
    if (const toml::node* v = t.get("constraint")) s.constraint = sbatch_safe(*v, "constraint");
    if (const toml::node* v = t.get("exclusive")) s.exclusive = toml_.boolean(*v, "exclusive");
    if (const toml::node* v = t.get("mpi")) s.mpi = shell_safe(*v, "mpi");
    if (const toml::node* v = t.get("sbatch_options")) read_sbatch_options(*v);
    if (const toml::node* v = t.get("time_limit")) read_time_limit(*v);
    if (const toml::node* v = t.get("tasks_per_node")) read_tasks_per_node(*v);
    if (const toml::node* v = t.get("array_throttle"))
      s.array_throttle = static_cast<std::uint32_t>(toml_.integer(*v, "array_throttle", 0, max_count));
    if (const toml::node* v = t.get("chain")) s.chain = toml_.boolean(*v, "chain");
    if (const toml::node* v = t.get("weights")) read_weights(*v);
  }

  // One value ("marked") or a list of them (["marked", "equalized"]): each a value the
  // SPANK plugin takes, pasted into the script's #SBATCH or srun lines.
  void read_weights(const toml::node& value) {
    SlurmSpec& s = spec_.slurm;
    s.weights_where = toml_.at(value);
    if (value.as_array() == nullptr) {
      s.weights = {weights_value(value, "weights")};
      return;
    }
    const toml::array& list = *value.as_array();
    if (list.empty()) toml_.fail(toml_.at(value), "'weights' needs at least one value");
    s.weights.clear();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string w = weights_value(list[i], fmt::format("weights[{}]", i));
      if (std::find(s.weights.begin(), s.weights.end(), w) != s.weights.end())
        toml_.fail(toml_.at(list[i]), fmt::format("'weights' lists '{}' twice", w));
      s.weights.push_back(std::move(w));
    }
  }

  std::string weights_value(const toml::node& value, std::string_view key) const {
    std::string w = shell_safe(value, key);
    try {
      (void)parse_weights_request(w);
    } catch (const Error&) {
      toml_.fail(toml_.at(value), fmt::format("unknown '{}' value '{}' (expected {})", key, w,
                                              weights_request_values));
    }
    return w;
  }

  // Values pasted into #SBATCH lines must not break the script.
  std::string shell_safe(const toml::node& value, std::string_view key) const {
    std::string s = toml_.string(value, key);
    if (!only_chars(s, "._/+:=@,-"))
      toml_.fail(toml_.at(value), fmt::format("'{}' may hold only letters, digits and ._/+:=@,- (got '{}')", key, s));
    return s;
  }

  // An #SBATCH line is not read by a shell, so Slurm's expression characters may appear;
  // white space would end the value.
  std::string sbatch_safe(const toml::node& value, std::string_view key) const {
    std::string s = toml_.string(value, key);
    if (s.empty() || !only_chars(s, "._/+:=@,-&|[]*!()"))
      toml_.fail(toml_.at(value), fmt::format("'{}' may hold only letters, digits and ._/+:=@,-&|[]*!() "
                                              "(got '{}')", key, s));
    return s;
  }

  // Options jobgen writes itself cannot be given again: the script would contradict itself.
  void read_sbatch_options(const toml::node& value) {
    const toml::array* options = value.as_array();
    if (options == nullptr)
      toml_.fail(toml_.at(value), fmt::format("'sbatch_options' must be an array of strings, not {}",
                                              toml_type_name(value)));
    static constexpr std::string_view generated[] = {
        "--job-name", "--nodes", "--nodelist", "--ntasks", "--ntasks-per-node", "--cpus-per-task",
        "--array", "--output", "--exclusive", "--hetscale-weights", "--partition", "--account",
        "--qos", "--reservation", "--constraint", "--time", "--dependency"};
    for (const toml::node& option : *options) {
      const std::string text = sbatch_safe(option, "sbatch_options");
      const std::string_view name = std::string_view(text).substr(0, text.find('='));
      if (!name.starts_with("--") || name.size() < 3)
        toml_.fail(toml_.at(option), fmt::format("'sbatch_options' entries are long options such as "
                                                 "\"--mail-type=END\" (got '{}')", text));
      for (std::string_view g : generated) {
        if (name == g)
          toml_.fail(toml_.at(option), fmt::format("'sbatch_options': {} is written by jobgen (use the [slurm] "
                                                   "key or leave it out)", name));
      }
      spec_.slurm.sbatch_options.push_back(text);
    }
  }

  // Slurm's formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
  void read_time_limit(const toml::node& value) {
    const std::string s = toml_.string(value, "time_limit");
    if (!slurm::parse_slurm_time(s))
      toml_.fail(toml_.at(value), fmt::format("'time_limit' must be a Slurm time (minutes, HH:MM:SS or "
                                              "D-HH:MM:SS), got '{}'", s));
    spec_.slurm.time_limit = s;
  }

  void read_tasks_per_node(const toml::node& value) {
    spec_.slurm.tasks_per_node_where = toml_.at(value);
    if (const auto* s = value.as_string()) {
      if (s->get() != "processors")
        toml_.fail(toml_.at(value), fmt::format("'tasks_per_node' must be \"processors\" or a positive integer, "
                                                "got '{}'", s->get()));
      return;
    }
    if (value.as_integer() == nullptr)
      toml_.fail(toml_.at(value), fmt::format("'tasks_per_node' must be \"processors\" or a positive integer, "
                                              "not {}", toml_type_name(value)));
    spec_.slurm.tasks_per_node = static_cast<std::uint32_t>(toml_.integer(value, "tasks_per_node", 1, 4096));
  }

  void read_refine(const toml::table& t) {
    toml_.check_keys(t, {"steps", "tolerance", "max_rounds", "precision", "max_runs_per_set"}, "in [refine]");
    RefineSpec& r = spec_.refine;
    if (const toml::node* steps = t.get("steps")) read_steps(*steps);
    if (const toml::node* tolerance = t.get("tolerance")) {
      r.tolerance = toml_.number(*tolerance, "tolerance");
      if (r.tolerance <= 0 || r.tolerance >= 1)
        toml_.fail(toml_.at(*tolerance), fmt::format("'tolerance' must be in (0, 1) (a fraction of the "
                                                     "target), got {}", r.tolerance));
    }
    if (const toml::node* rounds = t.get("max_rounds"))
      r.max_rounds = static_cast<std::uint32_t>(toml_.integer(*rounds, "max_rounds", 0, 100));
    if (const toml::node* precision = t.get("precision")) {
      r.precision = toml_.number(*precision, "precision");
      if (*r.precision <= 0 || *r.precision >= 1)
        toml_.fail(toml_.at(*precision), fmt::format("'precision' must be in (0, 1) (the relative half-width of "
                                                     "the required parameter's interval: 0.05 is 5%), got {}",
                                                     *r.precision));
    }
    if (const toml::node* runs = t.get("max_runs_per_set")) {
      if (!r.precision)
        toml_.fail(toml_.at(*runs), "'max_runs_per_set' is the budget of 'precision': give 'precision' in [refine] too");
      r.max_runs_per_set = static_cast<std::uint32_t>(toml_.integer(*runs, "max_runs_per_set", 4, 100000));
      // Round 0 alone gives every set one run per size, repetition and value of weights: a
      // budget below that could never add a repetition.
      const std::size_t first_round = spec_.parameter.values.size() * spec_.repetitions * spec_.slurm.weights.size();
      if (r.max_runs_per_set < first_round)
        toml_.fail(toml_.at(*runs),
                   fmt::format("'max_runs_per_set' = {} is below the {} runs round 0 gives every set ({} sizes x {} "
                               "repetition(s) x {} value(s) of weights): no repetition could ever be added",
                               r.max_runs_per_set, first_round, spec_.parameter.values.size(), spec_.repetitions,
                               spec_.slurm.weights.size()));
    }
  }

  void read_probe(const toml::table& t) {
    toml_.check_keys(t, {"budget_seconds", "max_bytes"}, "in [probe]");
    ProbeSpec& p = spec_.probe.emplace();
    p.where = toml_.at(t);
    if (const toml::node* budget = t.get("budget_seconds"))
      p.budget_seconds = static_cast<std::uint32_t>(toml_.integer(*budget, "budget_seconds", 1, 3600));
    if (const toml::node* bytes = t.get("max_bytes"))
      p.max_bytes = static_cast<std::uint64_t>(toml_.integer(*bytes, "max_bytes", 1, std::int64_t{1} << 30));
  }

  void read_steps(const toml::node& node) {
    const toml::array& list = toml_.array(node, "steps");
    if (list.empty()) toml_.fail(toml_.at(node), "'steps' needs at least one step");
    std::vector<double> steps;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string key = fmt::format("steps[{}]", i);
      const double v = toml_.number(list[i], key);
      if (v <= 0 || v >= 1)
        toml_.fail(toml_.at(list[i]), fmt::format("'{}' must be in (0, 1) (0.02 is 2%), got {}", key, v));
      if (!steps.empty() && v <= steps.back())
        toml_.fail(toml_.at(list[i]), fmt::format("'steps' must be ascending: {} follows {}", v, steps.back()));
      steps.push_back(v);
    }
    spec_.refine.steps = std::move(steps);
  }

  TomlSource toml_;
  ExperimentSpec spec_;
};

}  // namespace

ExperimentSpec parse_experiment_spec(std::string_view text, const std::string& source_name) {
  ExperimentSpec spec = SpecReader(text, source_name).read();
  spec.text = text;
  return spec;
}

ExperimentSpec load_experiment_spec(const std::filesystem::path& path) {
  ExperimentSpec spec = parse_experiment_spec(read_text_file(path, "experiment spec"), path.string());
  spec.source = path;
  return spec;
}

}  // namespace hetscale::jobgen
