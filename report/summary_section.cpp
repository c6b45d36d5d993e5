// The report's summary (docs/dashboards.md, "Summary"): per experiment and target, the
// figures a capacity planner asks for and a verdict derived from them by one rule.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "report_sections.hpp"
#include "section_parts.hpp"

namespace hetscale::report {

using namespace parts;

namespace {

std::string nodes_text(int n) {
  return fmt::format("{} node{}", n, n == 1 ? "" : "s");
}

std::set<double> targets(const ExperimentData& e) {
  std::set<double> out;
  for (const auto& f : e.forecasts) out.insert(f.target_efficiency);
  for (const auto& w : e.required_work) out.insert(w.target_efficiency);
  return out;
}

/// The largest measured set analysed at `target`.
const RequiredWork* largest_measured(const ExperimentData& e, double target) {
  const RequiredWork* out = nullptr;
  for (const auto& w : e.required_work)
    if (w.target_efficiency == target && (!out || w.node_count > out->node_count)) out = &w;
  return out;
}

/// The forecast row of `nodes` nodes at `target`: a doubling first, then a measured set,
/// then a what-if set.
const Forecast* forecast_at(const ExperimentData& e, double target, int nodes) {
  const Forecast* out = nullptr;
  auto rank = [](const std::string& kind) { return kind == "doubling" ? 0 : kind == "measured" ? 1 : 2; };
  for (const auto& f : e.forecasts)
    if (f.target_efficiency == target && f.node_count == nodes &&
        (!out || rank(f.kind) < rank(out->kind)))
      out = &f;
  return out;
}

const RequiredWork* twin_at(const ExperimentData* twin, double target, int nodes) {
  if (!twin) return nullptr;
  for (const auto& w : twin->required_work)
    if (w.target_efficiency == target && w.node_count == nodes) return &w;
  return nullptr;
}

/// The psi row into set `set_index` at `target`.
const PsiRow* psi_into(const ExperimentData& e, double target, int set_index) {
  for (const auto& p : e.psi)
    if (p.target_efficiency == target && p.next_set_index == set_index) return &p;
  return nullptr;
}

/// The row a forecast row's psi is against: a what-if set's base (its label after " on "),
/// else the row before it.
std::string forecast_psi_from(const ExperimentData& e, const Forecast& f) {
  if (f.kind == "what_if") {
    const auto on = f.label.rfind(" on ");
    return on == std::string::npos ? "the set it grows" : f.label.substr(on + 4);
  }
  for (const auto& g : e.forecasts)
    if (g.target_efficiency == f.target_efficiency && g.position == f.position - 1)
      return g.kind == "measured" ? fmt::format("{} ({})", g.label, nodes_text(g.node_count))
                                  : nodes_text(g.node_count);
  return "";
}

/// The row of a set's required work (measured or the twin's) and its psi into that set, of
/// `e`: `set` and `psi_from` name its set and the set psi is against.
SummaryRow required_work_row(const ExperimentData& e, const RequiredWork& w, const char* source,
                             std::string set, const std::function<std::string(int)>& psi_from) {
  SummaryRow r;
  r.node_count = w.node_count;
  r.source = source;
  r.set = std::move(set);
  r.parameter = w.parameter_value;
  r.parameter_interval = w.parameter_interval;
  r.work = w.work;
  r.work_interval = w.work_interval;
  if (const PsiRow* p = psi_into(e, w.target_efficiency, w.set_index)) {
    r.psi = p->psi;
    r.psi_interval = p->psi_interval;
    r.psi_from = psi_from(p->set_index);
  }
  if (!reaches_target(w.status)) r.note = w.status + ": " + w.explanation;
  return r;
}

SummaryRow measured_row(const ExperimentData& e, const RequiredWork& w) {
  return required_work_row(e, w, "measured", fmt::format("set {}", w.set_index),
                           [&e](int set) { return set_label(e, set); });
}

SummaryRow forecast_row(const ExperimentData& e, const Forecast* f, int nodes) {
  SummaryRow r;
  r.node_count = nodes;
  r.source = "forecast";
  if (!f) {
    r.note = "not forecast";
    return r;
  }
  r.set = f->kind + ": " + f->label;
  r.parameter = f->predicted_parameter;
  r.parameter_interval = f->predicted_parameter_interval;
  r.work = f->predicted_work;
  r.work_interval = f->predicted_work_interval;
  r.psi = f->predicted_psi;
  r.psi_interval = f->predicted_psi_interval;
  r.psi_from = forecast_psi_from(e, *f);
  if (!f->predicted_parameter) r.note = "no size reaches the target";
  return r;
}

SummaryRow twin_row(const ExperimentData* twin, const RequiredWork* w, const Forecast* f,
                    int nodes) {
  if (!w) {
    SummaryRow r;
    r.node_count = nodes;
    r.source = "twin";
    r.note = "not simulated";
    return r;
  }
  SummaryRow r = required_work_row(*twin, *w, "twin", fmt::format("twin set {}", w->set_index),
                                   [](int set) { return fmt::format("twin set {}", set); });
  if (f) r.forecast_versus_twin = relative_change(f->predicted_parameter, w->parameter_value);
  return r;
}

/// Whether the twin's parameter is within the forecast's interval, or, without one, within
/// kSummaryAgreement of the forecast's.
bool agrees(const Forecast& f, const RequiredWork& w) {
  const OptionalInterval& i = f.predicted_parameter_interval;
  if (i && i->low && i->high) return !outside_interval(w.parameter_value, i);
  return std::abs(relative_change(f.predicted_parameter, w.parameter_value)) <= kSummaryAgreement;
}

/// Why the figure's interval lacks a bound or is none (its detail, else its short reason),
/// as a verdict part; empty when it has both bounds or the view gives no interval.
std::string missing_interval(const std::string& what, const OptionalInterval& i) {
  if (!i) return "";
  const std::string& why = i->detail.empty() ? i->reason : i->detail;
  return why.empty() ? "" : what + ": " + why;
}

void judge_measured(const ExperimentData& e, const RequiredWork& w, ExperimentSummary& s) {
  const std::string set = set_label(e, w.set_index);
  const std::string parameter = parameter_name(e);
  if (reaches_target(w.status))
    s.holds.push_back(fmt::format("measured required {} and work on {}", parameter, set));
  else
    s.fails.push_back(fmt::format("measured required {} on {}: the target is not bracketed ({})",
                                  parameter, set, w.status));
  if (const PsiRow* p = psi_into(e, w.target_efficiency, w.set_index); p && p->psi)
    s.holds.push_back(fmt::format("measured psi {} from {}", shown_figure(p->psi, p->psi_interval),
                                  set_label(e, p->set_index)));
  else
    s.fails.push_back(fmt::format("no measured psi into {}: a set's required work is unknown", set));
  const PsiRow* psi = psi_into(e, w.target_efficiency, w.set_index);
  for (const std::string& why :
       {missing_interval("measured required " + parameter, w.parameter_interval),
        missing_interval("measured psi", psi ? psi->psi_interval : OptionalInterval())})
    if (!why.empty()) s.fails.push_back(why);
  long long most = 0;
  bool points = false;
  for (const auto& c : e.curve)
    if (c.set_index == w.set_index) {
      points = true;
      most = std::max(most, c.runs);
    }
  if (points && most < 2)
    s.fails.push_back(fmt::format("too few runs: one per size on {}, so the measured figures' "
                                  "spread is unknown",
                                  set));
}

/// Whether each set analysed at `target` reached the precision its refinement asks
/// ([refine] precision; collector::precision_check): said of every set, not of the largest
/// alone, since the refinement adds repetitions set by set.
void judge_precision(const ExperimentData& e, double target, ExperimentSummary& s) {
  for (const auto& w : e.required_work) {
    if (w.target_efficiency != target) continue;
    const auto check = collector::precision_check(e, w);
    if (!check) continue;
    const std::string said = fmt::format("{}: {}", set_label(e, w.set_index), check->text);
    if (check->reached)
      s.holds.push_back(said);
    else
      s.fails.push_back(w.max_runs_per_set
                            ? fmt::format("{} (budget {} runs per set)", said, *w.max_runs_per_set)
                            : said);
  }
}

void judge_forecast_of_measured(const ExperimentData& e, const RequiredWork& w,
                                ExperimentSummary& s) {
  const Forecast* f = nullptr;
  for (const auto& g : e.forecasts)
    if (g.target_efficiency == w.target_efficiency && g.kind == "measured" &&
        g.set_index == w.set_index)
      f = &g;
  if (!f || !f->relative_error) return;
  const std::string set = set_label(e, w.set_index);
  if (std::abs(*f->relative_error) <= kSummaryAgreement)
    s.holds.push_back(fmt::format("the forecast reproduces the measured {} on {} ({})",
                                  parameter_name(e), set, shown_percent(*f->relative_error)));
  else
    s.fails.push_back(fmt::format("the forecast misses the measured {} on {} by {} (beyond {})",
                                  parameter_name(e), set, shown_percent(*f->relative_error),
                                  shown_percent(kSummaryAgreement).substr(1)));
}

void judge_size(const ExperimentData& e, const ExperimentData* twin, double target, int nodes,
                ExperimentSummary& s) {
  const Forecast* f = forecast_at(e, target, nodes);
  const RequiredWork* w = twin_at(twin, target, nodes);
  const std::string at = "at " + nodes_text(nodes);
  if (!f) {
    s.fails.push_back(fmt::format("no forecast {}", at));
  } else if (!f->predicted_parameter) {
    s.fails.push_back(fmt::format("the forecast finds no {} reaching the target {}",
                                  parameter_name(e), at));
    return;
  } else if (const std::string why = missing_interval(
                 fmt::format("the forecast's {} {}", parameter_name(e), at),
                 f->predicted_parameter_interval);
             !why.empty()) {
    s.fails.push_back(why);
  }
  if (!twin) return;  // said once for the experiment
  if (!w) {
    if (f) s.fails.push_back(fmt::format("no twin {} to check the forecast against", at));
    return;
  }
  if (!reaches_target(w->status) || !w->parameter_value) {
    s.fails.push_back(fmt::format("the twin does not reach the target {} ({})", at, w->status));
    return;
  }
  if (!f) return;
  const double difference = relative_change(f->predicted_parameter, w->parameter_value);
  const bool interval = f->predicted_parameter_interval && f->predicted_parameter_interval->low;
  if (agrees(*f, *w))
    s.holds.push_back(interval ? fmt::format("the twin lies inside the forecast's interval {}", at)
                               : fmt::format("forecast and twin agree {} ({} of the twin's {})", at,
                                             shown_percent(difference), parameter_name(e)));
  else
    s.fails.push_back(
        interval ? fmt::format("the twin lies outside the forecast's interval {}", at)
                 : fmt::format("forecast and twin disagree {}: the forecast's {} is {} of the "
                               "twin's (beyond {})",
                               at, parameter_name(e), shown_percent(difference),
                               shown_percent(kSummaryAgreement).substr(1)));
}

std::string summary_id(const ExperimentData& e, double target) {
  return fmt::format("summary-{}-{}", slug(shown_name(e)), slug(fmt::format("{}", target)));
}

ReportTable summary_table(const ExperimentData& e, const ExperimentSummary& s) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& r : s.rows)
    rows.push_back({integer(r.node_count), text(r.source), text(r.set),
                    r.parameter ? figure(r.parameter, r.parameter_interval) : missing("n/a"),
                    r.work ? figure(r.work, r.work_interval) : missing("n/a"),
                    r.psi ? figure(r.psi, r.psi_interval) : missing("n/a"), text(r.psi_from),
                    percent(r.forecast_versus_twin), text(r.note)});
  for (auto& row : rows)
    if (row[7].shown == "n/a") row[7].shown = "";
  return make_table(summary_id(e, s.target), "",
                    {"nodes", "figures", "set", "required_" + parameter_name(e),
                     {"required_work", kWorkUnit}, "psi", "psi_from", "forecast_vs_twin", "note"},
                    rows);
}

}  // namespace

std::string ExperimentSummary::verdict() const {
  std::string out;
  if (!holds.empty()) out += fmt::format("Holds: {}.", fmt::join(holds, "; "));
  if (!fails.empty())
    out += fmt::format("{}Does not hold: {}.", out.empty() ? "" : " ", fmt::join(fails, "; "));
  return out;
}

std::vector<int> summary_nodes(const ExperimentData& measured, const ExperimentData* twin,
                               double target) {
  const RequiredWork* largest = largest_measured(measured, target);
  const int beyond = largest ? largest->node_count : 0;
  std::set<int> reached_nodes;
  for (const auto& f : measured.forecasts)
    if (f.target_efficiency == target && f.node_count > beyond) reached_nodes.insert(f.node_count);
  if (twin)
    for (const auto& w : twin->required_work)
      if (w.target_efficiency == target && w.node_count > beyond) reached_nodes.insert(w.node_count);
  std::vector<int> out;
  for (int n : kSummaryNodes)
    if (reached_nodes.contains(n)) out.push_back(n);
  if (out.empty() && !reached_nodes.empty()) out.push_back(*reached_nodes.rbegin());
  return out;
}

std::vector<ExperimentSummary> experiment_summaries(const ExperimentData& measured,
                                                    const ExperimentData* twin) {
  std::vector<ExperimentSummary> out;
  for (double target : targets(measured)) {
    ExperimentSummary& s = out.emplace_back();
    s.experiment = experiment_label(measured);
    s.target = target;
    if (const RequiredWork* w = largest_measured(measured, target)) {
      s.rows.push_back(measured_row(measured, *w));
      judge_measured(measured, *w, s);
      judge_precision(measured, target, s);
      judge_forecast_of_measured(measured, *w, s);
    } else {
      s.fails.push_back(fmt::format("no required work measured at {}: run hetscale analyze",
                                    target_label(target)));
    }
    if (std::none_of(measured.forecasts.begin(), measured.forecasts.end(),
                     [&](const Forecast& f) { return f.target_efficiency == target; }))
      s.fails.push_back("no forecast stored: run hetscale predict");
    const std::vector<int> nodes = summary_nodes(measured, twin, target);
    for (int n : nodes) {
      const Forecast* f = forecast_at(measured, target, n);
      s.rows.push_back(forecast_row(measured, f, n));
      if (twin) s.rows.push_back(twin_row(twin, twin_at(twin, target, n), f, n));
      judge_size(measured, twin, target, n, s);
    }
    if (!twin && !nodes.empty())
      s.fails.push_back("no twin to check the forecasts against (hetscale twin study)");
  }
  return out;
}

ReportSection summary_section(const ReportData& data) {
  ReportSection section{
      "summary",
      "Summary",
      fmt::format(
          "Per code, at its target E_s: the required problem size, work and psi on the largest "
          "measured set, and as forecast (hetscale predict) and simulated (the twin) at {} "
          "nodes where either reaches them; psi is against the set named beside it. A figure "
          "shows its interval where the database has one. A forecast holds where it lies "
          "within {} of the measured figure and of the twin (or, with an interval, where the "
          "twin lies inside it). Where the experiment's refinement asks a precision ([refine] "
          "precision), each set's required size holds when its interval's relative half-width "
          "is within it and does not when the runs of its budget left it wider. The line under "
          "each heading says which figures hold and which do not, and why. The sections below hold every figure.",
          fmt::join(kSummaryNodes, ", "), shown_percent(kSummaryAgreement).substr(1)),
      {},
      {},
      {},
      {}};
  for (const auto& e : data.experiments) {
    if (e.from_files) continue;
    const ExperimentData* twin = nullptr;
    for (const auto& pair : data.twins)
      if (pair.measured == shown_name(e)) twin = &pair.twin;
    for (const auto& s : experiment_summaries(e, twin)) {
      std::vector<OptionalInterval> intervals;
      for (const SummaryRow& r : s.rows)
        intervals.insert(intervals.end(), {r.parameter_interval, r.work_interval, r.psi_interval});
      add_figure(section,
                 captioned(fmt::format("{} at {}", experiment_label(e), target_label(s.target)),
                           intervals),
                 "", {summary_table(e, s)});
      section.figures.back().verdict = s.verdict();
    }
    if (targets(e).empty())
      section.notes.push_back(fmt::format(
          "{}: no required work or forecast stored: run hetscale analyze and hetscale predict",
          experiment_label(e)));
  }
  if (section.figures.empty() && section.notes.empty())
    section.notes.push_back("no experiment with data: run hetscale collect, then hetscale analyze");
  return section;
}

}  // namespace hetscale::report
