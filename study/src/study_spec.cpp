// The study spec reader: TomlSource positions, one ConfigError per fault.
#include "hetscale/study/study_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "hetscale/base/text_file.hpp"
#include "hetscale/base/toml_source.hpp"
#include "hetscale/slurm/scontrol.hpp"

namespace hetscale::study {
namespace {

namespace fs = std::filesystem;

// A name Slurm takes as it is (a job name, a partition): letters, digits, '.', '_' or '-'.
bool is_word(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

class StudySpecReader {
 public:
  StudySpecReader(std::string_view text, const std::string& source_name, fs::path base_dir)
      : toml_(text, source_name), base_dir_(std::move(base_dir)) {
    spec_.source = source_name;
  }

  StudySpec read() {
    const toml::table root = toml_.parse();
    toml_.check_keys(root, {"study", "experiment", "equalize", "predict", "twin"}, "at top level");
    read_study(toml_.table_of(root, "study"));
    read_experiments(root);
    if (const toml::table* t = toml_.optional_table_of(root, "equalize")) read_equalize(*t);
    if (const toml::table* t = toml_.optional_table_of(root, "predict")) read_predict(*t);
    if (const toml::table* t = toml_.optional_table_of(root, "twin")) read_twin(*t);
    check_twin_nodes();
    return std::move(spec_);
  }

 private:
  std::uint32_t count(const toml::node& node, std::string_view key, std::int64_t min, std::int64_t max) const {
    return static_cast<std::uint32_t>(toml_.integer(node, key, min, max));
  }

  void read_study(const toml::table& t) {
    toml_.check_keys(t, {"name", "title", "max_rounds", "replace_unavailable", "controller_time_limit"},
                     "in [study]");
    spec_.name = toml_.required_string(t, "name", "[study]");
    if (!is_word(spec_.name))
      toml_.fail(toml_.at(*t.get("name")), "'name' must be letters, digits, '.', '_' or '-' (it names the study's "
                                             "controller jobs)");
    spec_.title = t.contains("title") ? toml_.required_string(t, "title", "[study]") : "hetscale study " + spec_.name;
    if (const toml::node* n = t.get("max_rounds")) spec_.max_rounds = count(*n, "max_rounds", 0, 20);
    if (const toml::node* n = t.get("replace_unavailable"))
      spec_.replace_unavailable = toml_.boolean(*n, "replace_unavailable");
    if (const toml::node* n = t.get("controller_time_limit")) {
      const std::string limit = toml_.string(*n, "controller_time_limit");
      if (!slurm::parse_slurm_time(limit) || *slurm::parse_slurm_time(limit) == 0)
        toml_.fail(toml_.at(*n), fmt::format("'controller_time_limit' must be a Slurm time (minutes, HH:MM:SS or "
                                             "D-HH:MM:SS), got '{}'", limit));
      spec_.controller_time_limit = limit;
    }
  }

  void read_experiments(const toml::table& root) {
    const toml::node* node = root.get("experiment");
    if (node == nullptr) toml_.fail(toml_.at(root), "missing [[experiment]]: a study runs at least one experiment spec");
    if (!node->is_array_of_tables())
      toml_.fail(toml_.at(*node), "'experiment' must be an array of tables ([[experiment]] with spec = \"FILE\")");
    for (const toml::node& e : *node->as_array()) {
      const toml::table& t = *e.as_table();
      toml_.check_keys(t, {"spec", "twin_rounds", "twin_nodes"}, "in [[experiment]]");
      StudyExperiment x;
      const std::string path = toml_.required_string(t, "spec", "[[experiment]]");
      x.where = toml_.at(*t.get("spec"));
      x.path = fs::path(path).is_absolute() ? fs::path(path) : base_dir_ / path;
      if (!fs::is_regular_file(x.path))
        toml_.fail(x.where, fmt::format("no experiment spec at '{}'", x.path.string()));
      x.spec = jobgen::load_experiment_spec(x.path);  // its own errors name its own file
      if (const toml::node* r = t.get("twin_rounds")) x.twin_rounds = count(*r, "twin_rounds", 0, kMaxTwinRounds);
      twin_nodes_at_.emplace_back();
      if (const toml::node* n = t.get("twin_nodes")) {
        x.twin_nodes = count(*n, "twin_nodes", 1, 1 << 20);
        twin_nodes_at_.back() = toml_.at(*n);
      }
      for (const auto& other : spec_.experiments)
        if (other.spec.name == x.spec.name)
          toml_.fail(x.where, fmt::format("experiment '{}' is already in the study ({})", x.spec.name,
                                          other.where.str()));
      spec_.experiments.push_back(std::move(x));
    }
  }

  void read_equalize(const toml::table& t) {
    toml_.check_keys(t, {"experiment", "repetitions"}, "in [equalize]");
    spec_.equalize.enabled = true;
    spec_.equalize.where = toml_.at(t);
    spec_.equalize.experiment = toml_.required_string(t, "experiment", "[equalize]");
    const auto known = std::find_if(spec_.experiments.begin(), spec_.experiments.end(),
                                    [&](const auto& e) { return e.spec.name == spec_.equalize.experiment; });
    if (known == spec_.experiments.end())
      toml_.fail(toml_.at(*t.get("experiment")),
                 fmt::format("'{}' is not an experiment of the study", spec_.equalize.experiment));
    if (const toml::node* n = t.get("repetitions")) spec_.equalize.repetitions = count(*n, "repetitions", 1, 100);
  }

  void read_predict(const toml::table& t) {
    toml_.check_keys(t, {"doublings", "what_if"}, "in [predict]");
    if (const toml::node* n = t.get("doublings")) spec_.predict.doublings = count(*n, "doublings", 0, 20);
    const toml::node* sets = t.get("what_if");
    if (sets == nullptr) return;
    if (!sets->is_array_of_tables())
      toml_.fail(toml_.at(*sets), "'what_if' must be an array of tables ([[predict.what_if]])");
    for (const toml::node& e : *sets->as_array()) {
      const toml::table& w = *e.as_table();
      toml_.check_keys(w, {"nodes", "speed_of_fastest"}, "in [[predict.what_if]]");
      WhatIfSet set;
      if (const toml::node* n = w.get("nodes")) set.nodes = count(*n, "nodes", 1, 1 << 20);
      if (const toml::node* n = w.get("speed_of_fastest")) set.speed_of_fastest = toml_.positive(*n, "speed_of_fastest");
      spec_.predict.what_if.push_back(set);
    }
  }

  void read_twin(const toml::table& t) {
    toml_.check_keys(t, {"nodes", "rounds", "psi_floor", "partition", "start", "first_round_nodes"}, "in [twin]");
    const toml::node* n = t.get("nodes");
    if (n == nullptr) toml_.fail(toml_.at(t), "missing key 'nodes' in [twin] (the twin's largest set; leave [twin] out for none)");
    spec_.twin_nodes = count(*n, "nodes", 1, 1 << 20);
    if (const toml::node* r = t.get("rounds")) spec_.twin_rounds = count(*r, "rounds", 0, kMaxTwinRounds);
    if (const toml::node* f = t.get("psi_floor")) spec_.twin_psi_floor = toml_.positive(*f, "psi_floor", 1);
    if (const toml::node* f = t.get("first_round_nodes"))
      spec_.twin_first_round_nodes = count(*f, "first_round_nodes", 1, 1 << 20);
    if (const toml::node* p = t.get("partition")) {
      spec_.twin_partition = toml_.string(*p, "partition");
      if (!is_word(spec_.twin_partition))
        toml_.fail(toml_.at(*p), fmt::format("'partition' must be a Slurm partition's name (letters, digits, '.', "
                                             "'_' or '-'), got '{}'", spec_.twin_partition));
    }
    if (const toml::node* s = t.get("start")) {
      const std::string start = toml_.string(*s, "start");
      if (start == to_string(TwinStart::beside))
        spec_.twin_start = TwinStart::beside;
      else if (start != to_string(TwinStart::after))
        toml_.fail(toml_.at(*s), fmt::format("'start' must be \"after\" (the measured rounds) or \"beside\" "
                                             "(them, from round 0's records on), got '{}'", start));
    }
  }

  // An experiment's twin_nodes bounds its twin within the study's: [twin] nodes at most.
  void check_twin_nodes() const {
    for (std::size_t i = 0; i < spec_.experiments.size(); ++i) {
      const auto& x = spec_.experiments[i];
      if (!x.twin_nodes) continue;
      const SourceLocation& at = *twin_nodes_at_[i];
      if (spec_.twin_nodes == 0) toml_.fail(at, "'twin_nodes' needs a [twin] table (the study's twin)");
      if (*x.twin_nodes > spec_.twin_nodes)
        toml_.fail(at, fmt::format("'twin_nodes' must be at most [twin] nodes ({}), got {}", spec_.twin_nodes,
                                   *x.twin_nodes));
    }
  }

  TomlSource toml_;
  fs::path base_dir_;
  StudySpec spec_;
  std::vector<std::optional<SourceLocation>> twin_nodes_at_;  // per experiment: where its twin_nodes is
};

}  // namespace

std::string_view to_string(TwinStart start) { return start == TwinStart::beside ? "beside" : "after"; }

const StudyExperiment& StudySpec::experiment(std::string_view experiment_name) const {
  for (const auto& e : experiments)
    if (e.spec.name == experiment_name) return e;
  throw Error(fmt::format("{}: no experiment '{}' in the study", source.string(), experiment_name));
}

StudySpec parse_study_spec(std::string_view text, const std::string& source_name, const fs::path& base_dir) {
  return StudySpecReader(text, source_name, base_dir).read();
}

StudySpec load_study_spec(const fs::path& path) {
  const std::string text = read_text_file(path, "study spec");
  auto spec = parse_study_spec(text, path.string(), path.parent_path());
  spec.source = path;
  return spec;
}

}  // namespace hetscale::study
