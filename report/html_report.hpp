// A self-contained HTML report: sections of charts (inline SVG) with their tables under
// them, each table downloadable as CSV and JSON through data: links. No network, no script.
#pragma once

#include <string>
#include <vector>

#include "svg_chart.hpp"

namespace hetscale::report {

/// A table; `cells` are the texts shown, `raw` (same shape, optional) the values exported
/// at full precision, `footnotes` (same shape, optional) a text the page gives a cell as a
/// footnote (e.g. why a figure has no interval, in full). In the JSON download a column
/// marked in `numeric` holds numbers, with an empty value as null; other columns hold text.
/// The page shows a column's name with spaces for underscores and its unit after it; a text
/// cell longer than kFootnoteChars, and a cell's footnote, as a footnote under the table
/// (one per distinct text); the table in a box of its own that scrolls sideways when the
/// table is wider than the page.
struct ReportTable {
  std::string id;  // file name stem of the downloads, e.g. "psi-mm"
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> cells;
  std::vector<std::vector<std::string>> raw = {};
  std::vector<bool> numeric = {};
  std::vector<std::string> units = {};  // by column, e.g. "s"; empty: none
  std::vector<bool> hidden = {};        // columns in the downloads only
  bool folded = false;                  // shown closed (<details>), e.g. one row per node
  std::vector<std::vector<std::string>> footnotes = {};  // by cell; empty: none
};

/// A text cell longer than this is shown as a footnote of its table.
inline constexpr std::size_t kFootnoteChars = 60;
/// A text cell longer than this keeps its column wide enough to read it (CSS min-width).
inline constexpr std::size_t kLongCellChars = 24;

/// A chart with the tables of its data right under it.
struct Figure {
  std::string heading;  // optional sub-heading (e.g. the experiment)
  std::string chart;    // rendered SVG; may be empty
  std::vector<ReportTable> tables;
  std::string verdict = {};  // optional conclusion shown under the heading (the summary's)
  std::vector<std::string> beside = {};  // more charts in a row with `chart`, wrapping
};

/// The width of a chart drawn beside another: two fit a row of the page.
inline constexpr int kHalfChartWidth = 560;

struct ReportSection {
  std::string id;
  std::string title;
  std::string text;                 // short explanation (plain text, escaped)
  std::vector<std::string> charts;  // rendered SVG
  std::vector<ReportTable> tables;
  std::vector<std::string> notes;  // warnings shown prominently (e.g. target not bracketed)
  std::vector<Figure> figures = {};  // after the charts and tables above, in order
};

struct Report {
  std::string title;
  std::string subtitle;  // site, experiments, time of generation
  std::vector<ReportSection> sections;
};

std::string render_html(const Report& report);

/// CSV text of a table (RFC 4180 quoting) and its JSON (array of objects by column).
std::string table_csv(const ReportTable& table);
std::string table_json(const ReportTable& table);

}  // namespace hetscale::report
