#include "section_parts.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace hetscale::report::parts {

double relative_change(const OptionalNumber& value, const OptionalNumber& reference) {
  return value && reference && *reference != 0 ? (*value - *reference) / *reference : kNaN;
}

bool reaches_target(const std::string& status) {
  return status == "found" || status == "within_tolerance";
}

bool outside_interval(const OptionalNumber& value, const OptionalInterval& interval) {
  if (!value || !interval) return false;
  return (interval->low && *value < *interval->low) || (interval->high && *value > *interval->high);
}

Cell text(const std::string& value) {
  return {value, value, false};
}

Cell number(double value) {
  if (!std::isfinite(value)) return {"n/a", "", true};
  return {shown_number(value), fmt::format("{}", value), true};
}

Cell number(const OptionalNumber& value) {
  return value ? number(*value) : Cell{"n/a", "", true};
}

Cell figure(const OptionalNumber& value, const OptionalInterval& interval) {
  if (!value || !std::isfinite(*value)) return {"n/a", "", true};
  const bool detailed = interval && interval->detail != interval->reason;
  return {shown_figure(value, interval), fmt::format("{}", *value), true,
          detailed ? interval->detail : std::string()};
}

Cell integer(long long value) {
  return {std::to_string(value), std::to_string(value), true};
}

Cell percent(double fraction) {
  if (!std::isfinite(fraction)) return {"n/a", "", true};
  return {shown_percent(fraction), fmt::format("{}", fraction), true};
}

Cell missing(const std::string& why) {
  return {why, "", true};
}

std::string captioned(const std::string& title, const std::vector<OptionalInterval>& intervals) {
  const std::string caption = interval_caption(intervals);
  return caption.empty() ? title : title + " (" + caption + ")";
}

ReportTable make_table(const std::string& id, const std::string& title,
                       const std::vector<Column>& columns,
                       const std::vector<std::vector<Cell>>& rows) {
  ReportTable t{id, title, {}, {}, {}, {}};
  for (const auto& c : columns) {
    t.columns.push_back(c.name);
    t.units.push_back(c.unit);
    t.hidden.push_back(c.hidden);
  }
  t.numeric.assign(t.columns.size(), false);
  for (const auto& row : rows) {
    std::vector<std::string> shown;
    std::vector<std::string> raw;
    std::vector<std::string> footnotes;
    for (std::size_t i = 0; i < row.size(); ++i) {
      shown.push_back(row[i].shown);
      raw.push_back(row[i].raw);
      footnotes.push_back(row[i].footnote);
      if (i < t.numeric.size() && row[i].numeric) t.numeric[i] = true;
    }
    t.cells.push_back(std::move(shown));
    t.raw.push_back(std::move(raw));
    t.footnotes.push_back(std::move(footnotes));
  }
  return t;
}

std::string slug(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" : out;
}

std::string experiment_label(const ExperimentData& e) {
  if (e.from_files) return "(input file)";
  return shown_name(e).empty() ? "(unnamed experiment)" : shown_name(e);
}

std::string parameter_label(const ExperimentData& e) {
  return e.parameter.empty() ? "problem parameter" : "problem parameter " + e.parameter;
}

std::string parameter_name(const ExperimentData& e) {
  return e.parameter.empty() ? "parameter" : e.parameter;
}

std::string unit_of(const ExperimentData& e) {
  return e.speed_unit.empty() ? "site speed unit" : e.speed_unit;
}

std::string target_label(double target) {
  return fmt::format("E_s {:.4g}", target);
}

std::string set_label(const ExperimentData& e, int set_index) {
  for (const auto& w : e.required_work)
    if (w.set_index == set_index) return fmt::format("set {} ({} nodes)", set_index, w.node_count);
  for (const auto& f : e.forecasts)
    if (f.set_index == set_index) return fmt::format("set {} ({} nodes)", set_index, f.node_count);
  return fmt::format("set {}", set_index);
}

std::string set_label(const std::optional<int>& set_index) {
  return set_index ? fmt::format("set {}", *set_index) : std::string("no set");
}

void add_figure(ReportSection& section, std::string heading, std::string svg,
                std::vector<ReportTable> tables) {
  section.figures.push_back({std::move(heading), std::move(svg), std::move(tables)});
}

}  // namespace hetscale::report::parts
