// The parts every section of the report is made of: table cells (shown and exported), the
// tables built from them, and the labels of experiments, sets and targets. Internal to
// report/ (report_sections.cpp and summary_section.cpp).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "html_report.hpp"
#include "number_format.hpp"
#include "report_sections.hpp"

namespace hetscale::report::parts {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline double or_nan(const OptionalNumber& v) {
  return v ? *v : kNaN;
}

/// (value - reference) / reference, the one relative difference of the report; NaN when
/// either is absent or the reference is 0.
double relative_change(const OptionalNumber& value, const OptionalNumber& reference);

/// Whether a set_required_work status gives the parameter at the target: "found" or
/// "within_tolerance" (the model's TargetReading::has_parameter, as the view names it).
bool reaches_target(const std::string& status);

/// Whether `value` lies beyond a bound of `interval` (an absent bound is open: it holds
/// everything on its side); false without either.
bool outside_interval(const OptionalNumber& value, const OptionalInterval& interval);

// --- table cells -------------------------------------------------------------------

/// A cell as shown (shown_number: at most 4 significant digits) and as exported
/// (round-trip precision), and the footnote the page gives it (e.g. why its figure has no
/// interval, in full).
struct Cell {
  std::string shown;
  std::string raw;
  bool numeric = false;
  std::string footnote = {};
};

Cell text(const std::string& value);
Cell number(double value);
Cell number(const OptionalNumber& value);
/// A figure with its interval where the view gives one (shown_figure: bounds, or the short
/// reason there are none), the interval's detail as its footnote; exported bare.
Cell figure(const OptionalNumber& value, const OptionalInterval& interval);
Cell integer(long long value);
/// A fraction shown as a signed percentage (shown_percent).
Cell percent(double fraction);
/// An empty numeric cell with `why` shown (e.g. "not simulated").
Cell missing(const std::string& why);

/// A column of a table: its name (also the downloads' key), unit and whether the page
/// shows it.
struct Column {
  Column(const char* column_name) : name(column_name) {}  // NOLINT: a name alone is a column
  Column(std::string column_name) : name(std::move(column_name)) {}  // NOLINT: as above
  Column(std::string column_name, std::string column_unit, bool hide = false)
      : name(std::move(column_name)), unit(std::move(column_unit)), hidden(hide) {}
  std::string name;
  std::string unit;
  bool hidden = false;
};

/// `title`, then in brackets what `intervals` are (interval_caption), when any is one.
std::string captioned(const std::string& title, const std::vector<OptionalInterval>& intervals);

/// captioned with the `interval` of each of `rows`.
template <typename Row>
std::string captioned(const std::string& title, const std::vector<Row>& rows,
                      OptionalInterval Row::*interval) {
  std::vector<OptionalInterval> intervals;
  for (const Row& r : rows) intervals.push_back(r.*interval);
  return captioned(title, intervals);
}

ReportTable make_table(const std::string& id, const std::string& title,
                       const std::vector<Column>& columns,
                       const std::vector<std::vector<Cell>>& rows);

// --- labels ------------------------------------------------------------------------

/// A file-name-safe id part: lower-case letters, digits and '-'.
std::string slug(const std::string& text);
std::string experiment_label(const ExperimentData& e);
std::string parameter_label(const ExperimentData& e);
/// The experiment's parameter's name, or "parameter".
std::string parameter_name(const ExperimentData& e);
std::string unit_of(const ExperimentData& e);
std::string target_label(double target);
/// "set 1 (4 nodes)" when the node count is known from required work or forecasts.
std::string set_label(const ExperimentData& e, int set_index);
std::string set_label(const std::optional<int>& set_index);

void add_figure(ReportSection& section, std::string heading, std::string svg,
                std::vector<ReportTable> tables);

/// The unit of work in the tables: operations (flop for the bundled kernels).
inline constexpr const char* kWorkUnit = "op";

}  // namespace hetscale::report::parts
