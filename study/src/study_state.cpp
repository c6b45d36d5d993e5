// The study state file (JSON): written atomically with base's write_file_atomically.
#include "hetscale/study/study_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <nlohmann/json.hpp>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/json_depth.hpp"
#include "hetscale/base/redaction.hpp"
#include "hetscale/base/text_file.hpp"
#include "hetscale/base/utc_time.hpp"
#include "hetscale/site/study_token.hpp"

namespace hetscale::study {
namespace {

using nlohmann::json;

constexpr std::string_view phase_names[] = {"measure", "rerun", "twin", "done", "failed"};
constexpr std::string_view twin_phase_names[] = {"waiting", "simulate", "done", "failed"};

template <typename P, std::size_t N>
P named_phase(const std::string_view (&names)[N], const std::string& name, const std::string& source) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<P>(i);
  throw Error(fmt::format("{}: unknown stage '{}'", source, name));
}

Phase phase_from(const std::string& name, const std::string& source) {
  return named_phase<Phase>(phase_names, name, source);
}

json twin_chain_json(const TwinChain& t) {
  json arrays = json::array();
  for (const auto& a : t.arrays)
    arrays.push_back({{"experiment", a.experiment},
                      {"round", a.round},
                      {"job_id", a.job_id},
                      {"directory", a.directory},
                      {"controller", a.controller ? json(*a.controller) : json(nullptr)}});
  return {{"stage", to_string(t.phase)},
          {"arrays", arrays},
          {"begun", t.begun},
          {"failure", remove_connection_passwords(t.failure)}};
}

TwinChain twin_chain_from(const json& in, const std::string& source) {
  TwinChain t;
  t.phase = named_phase<TwinPhase>(twin_phase_names, in.at("stage").get<std::string>(), source);
  for (const auto& a : in.at("arrays")) {
    TwinArray array{a.at("experiment").get<std::string>(), a.at("round").get<std::uint32_t>(),
                    a.at("job_id").get<std::uint64_t>(), a.at("directory").get<std::string>(), std::nullopt};
    if (!a.at("controller").is_null()) array.controller = a.at("controller").get<std::uint64_t>();
    t.arrays.push_back(std::move(array));
  }
  t.begun = in.at("begun").get<std::vector<std::string>>();
  t.failure = in.at("failure").get<std::string>();
  return t;
}

constexpr std::string_view pending_kind_names[] = {"array", "controller", "twin_array", "twin_controller"};

// A pending submission (a state without `round` in it, written before twin submissions
// were saved, reads as round 0). A twin's submission needs the twin's chain to go into.
PendingSubmission pending_from(const json& p, const StudyState& s, const std::string& source) {
  PendingSubmission pending;
  const std::string kind = p.at("kind").get<std::string>();
  const auto* named = std::find(std::begin(pending_kind_names), std::end(pending_kind_names), kind);
  if (named == std::end(pending_kind_names))
    throw Error(fmt::format("{}: pending.kind must be array, controller, twin_array or twin_controller, got '{}'",
                            source, kind));
  pending.kind = static_cast<PendingSubmission::Kind>(named - std::begin(pending_kind_names));
  pending.job_name = p.at("job_name").get<std::string>();
  pending.comment = p.at("comment").get<std::string>();
  pending.attempted = p.at("attempted").get<std::int64_t>();
  pending.experiment = p.at("experiment").get<std::string>();
  pending.set_index = p.at("set").get<std::uint32_t>();
  if (p.contains("round")) pending.round = p.at("round").get<std::uint32_t>();
  pending.directory = p.at("directory").get<std::string>();
  if (pending.of_twin() && !s.twin) throw Error(fmt::format("{}: pending.kind {} in a study without twin_chain", source, kind));
  return pending;
}

}  // namespace

std::string_view to_string(Phase phase) { return phase_names[static_cast<std::size_t>(phase)]; }
std::string_view to_string(TwinPhase phase) { return twin_phase_names[static_cast<std::size_t>(phase)]; }
std::string_view to_string(PendingSubmission::Kind kind) {
  return pending_kind_names[static_cast<std::size_t>(kind)];
}

std::vector<std::uint64_t> StudyState::array_job_ids() const {
  std::vector<std::uint64_t> ids;
  for (const auto& a : arrays) ids.push_back(a.job_id);
  return ids;
}

std::vector<std::uint64_t> TwinChain::array_job_ids() const {
  std::vector<std::uint64_t> ids;
  for (const auto& a : arrays) ids.push_back(a.job_id);
  return ids;
}

TwinArray* TwinChain::array_of(std::string_view experiment) {
  for (TwinArray& a : arrays)
    if (a.experiment == experiment) return &a;
  return nullptr;
}

bool TwinChain::has_begun(std::string_view experiment) const {
  return std::find(begun.begin(), begun.end(), experiment) != begun.end();
}

void TwinChain::mark_begun(const std::string& experiment) {
  if (!has_begun(experiment)) begun.push_back(experiment);
}

std::vector<std::uint64_t> TwinChain::controllers() const {
  std::vector<std::uint64_t> ids;
  for (const auto& a : arrays)
    if (a.controller) ids.push_back(*a.controller);
  return ids;
}

std::string state_json(const StudyState& s) {
  json arrays = json::array();
  for (const auto& a : s.arrays)
    arrays.push_back({{"experiment", a.experiment}, {"set", a.set_index}, {"job_id", a.job_id},
                      {"directory", a.directory}});
  json history = json::array();
  for (const auto& h : s.history)
    history.push_back({{"time", h.time}, {"stage", h.stage}, {"text", remove_connection_passwords(h.text)}});
  // No password in the file: the controller's libpq takes it from PGPASSWORD, PGPASSFILE
  // or ~/.pgpass.
  json out = {{"spec", s.spec},         {"site", s.site},       {"db", remove_connection_passwords(s.db)},
              {"kernel_dir", s.kernel_dir}, {"partitions", s.partitions}, {"hetscale", s.hetscale},
              {"stage", to_string(s.phase)}, {"round", s.round}, {"arrays", arrays},
              {"controller", s.controller ? json(*s.controller) : json(nullptr)},
              {"history", history},     {"failure", remove_connection_passwords(s.failure)}};
  if (s.twin_nodes) out["twin_nodes"] = *s.twin_nodes;
  if (!s.study_token.empty()) out["study_token"] = s.study_token;
  if (s.failed_phase) out["failed_stage"] = to_string(*s.failed_phase);
  if (s.submissions > 0) out["submissions"] = s.submissions;
  if (s.pending) {
    const PendingSubmission& p = *s.pending;
    out["pending"] = {{"kind", to_string(p.kind)},
                      {"job_name", p.job_name},
                      {"comment", p.comment},
                      {"attempted", p.attempted},
                      {"experiment", p.experiment},
                      {"set", p.set_index},
                      {"round", p.round},
                      {"directory", p.directory}};
  }
  if (s.twin) out["twin_chain"] = twin_chain_json(*s.twin);
  return out.dump(2) + "\n";
}

StudyState parse_state(std::string_view text, const std::string& source) {
  require_json_nesting_within_limit(text, source);
  try {
    const json in = json::parse(text);
    StudyState s;
    s.spec = in.at("spec").get<std::string>();
    s.site = in.at("site").get<std::string>();
    s.db = in.at("db").get<std::string>();
    s.kernel_dir = in.at("kernel_dir").get<std::string>();
    s.partitions = in.at("partitions").get<std::string>();
    s.hetscale = in.at("hetscale").get<std::string>();
    s.phase = phase_from(in.at("stage").get<std::string>(), source);
    s.round = in.at("round").get<std::uint32_t>();
    for (const auto& a : in.at("arrays"))
      s.arrays.push_back({a.at("experiment").get<std::string>(), a.at("set").get<std::uint32_t>(),
                          a.at("job_id").get<std::uint64_t>(), a.at("directory").get<std::string>()});
    if (!in.at("controller").is_null()) s.controller = in.at("controller").get<std::uint64_t>();
    for (const auto& h : in.at("history"))
      s.history.push_back({h.at("time").get<std::string>(), h.at("stage").get<std::string>(),
                           h.at("text").get<std::string>()});
    s.failure = in.at("failure").get<std::string>();
    if (in.contains("twin_nodes")) s.twin_nodes = in.at("twin_nodes").get<std::uint32_t>();
    if (in.contains("study_token")) {
      s.study_token = in.at("study_token").get<std::string>();
      if (!is_study_token(s.study_token))
        throw Error(fmt::format("{}: study_token must be {} lowercase hexadecimal digits", source,
                                study_token_length));
    }
    if (in.contains("failed_stage")) s.failed_phase = phase_from(in.at("failed_stage").get<std::string>(), source);
    if (in.contains("submissions")) s.submissions = in.at("submissions").get<std::uint64_t>();
    if (in.contains("twin_chain")) s.twin = twin_chain_from(in.at("twin_chain"), source);
    if (in.contains("pending")) s.pending = pending_from(in.at("pending"), s, source);
    return s;
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not a study state file: {}", source, e.what()));
  }
}

// JSON, named so that `hetscale collect DIR` does not take it for a plan file.
std::filesystem::path state_path(const std::filesystem::path& dir) { return dir / "study.state"; }

StudyState load_state(const std::filesystem::path& dir) {
  const auto path = state_path(dir);
  if (!std::filesystem::exists(path))
    throw Error(fmt::format("{} holds no study (no {}): start one with hetscale study run", dir.string(),
                            path.filename().string()));
  return parse_state(read_text_file(path, "study state"), path.string());
}

void save_state(const std::filesystem::path& dir, const StudyState& state) {
  write_file_atomically(state_path(dir), state_json(state), 0600);  // settings: the owner's only
}

void record(StudyState& state, std::string_view stage, std::string text) {
  state.history.push_back({utc_time_now(), std::string(stage), std::move(text)});
}

}  // namespace hetscale::study
