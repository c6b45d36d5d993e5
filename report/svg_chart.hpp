// Charts drawn as inline SVG, so a report opens offline with no JavaScript library:
// line/point charts and grouped bar charts, each with a title, axis labels with units,
// ticks and a legend. An axis whose positive values span more than two decades is drawn
// on a log scale. Every text label is placed from an estimate of its size (text_width), so
// that no two labels overlap: category labels are rotated, then set upright, then thinned
// as the categories crowd; long texts are wrapped or shortened (the whole text kept as the
// label's tooltip). chart_labels gives the labels as drawn, for tests.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/xml_text.hpp"

namespace hetscale::report {

struct Point {
  double x = 0;
  double y = 0;
};

struct Series {
  std::string name;
  std::vector<Point> points;
  bool line = true;     // join the points
  bool markers = true;  // draw a marker at each point
  bool dashed = false;
};

/// The range of a band at one x; a NaN bound leaves the band open there (not drawn).
struct BandPoint {
  double x = 0;
  double low = 0;
  double high = 0;
};

/// A shaded range low..high around a series (e.g. the interval of each point), in the
/// colour of that series, under every line, with its own legend entry. Joined: one area
/// through consecutive points with both bounds (by x); else a bar at each point.
struct Band {
  std::string name;
  std::size_t series = 0;  // index into LineChart::series: the colour
  std::vector<BandPoint> points;
  bool joined = true;
};

/// A labelled reference: a horizontal line (e.g. the target E_s) or a marked point
/// (e.g. a read-off).
struct Guide {
  std::string label;
  double y = 0;
};

struct LineChart {
  std::string title;
  std::string x_label;  // with unit, e.g. "problem size N"
  std::string y_label;
  bool log_x = false;  // also when the positive x values span more than two decades
  bool log_y = false;  // also when the positive y values span more than two decades
  std::vector<Series> series;
  std::vector<Band> bands;  // listed in the legend after the series
  std::vector<Guide> horizontal_lines;
  std::vector<Series> highlights;  // drawn on top, markers only (read-off points)
};

struct BarChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;      // one group of bars per category
  std::vector<std::string> series;          // one bar per series in each group
  std::vector<std::vector<double>> values;  // [series][category]; NaN = no bar
  std::vector<std::string> category_notes;  // optional marker per category (e.g. "degraded")
  /// Optional, with one series: colours each bar by its category's group (e.g. the node
  /// group of a host) and lists the groups in the legend.
  std::vector<std::string> category_groups;
};

/// The height of the SVGs is at least `height`; a chart whose category labels need more
/// room below the plot grows taller.
std::string render_svg(const LineChart& chart, int width = 720, int height = 420);
std::string render_svg(const BarChart& chart, int width = 720, int height = 420);

/// A linear axis whose positive values span more than this factor is drawn on a log scale.
inline constexpr double kMaxLinearSpan = 100;

/// Tick positions: "nice" 1-2-5 steps on linear axes, powers of ten (and 2, 5) on log axes.
std::vector<double> nice_ticks(double low, double high, bool log_scale, int target = 6);

// --- label geometry --------------------------------------------------------------------

enum class TextAnchor { start, middle, end };

/// A text label as the chart draws it: anchored at (x, y), centred vertically on y
/// (dominant-baseline central), rotated clockwise by `angle` degrees about the anchor, as
/// SVG's rotate() does.
struct TextLabel {
  std::string text;
  double x = 0;
  double y = 0;
  TextAnchor anchor = TextAnchor::middle;
  double font_size = 12;
  double angle = 0;
  bool bold = false;
  std::string role;       // class of the <text>: title, tick, category, note, legend, ...
  std::string fill = {};  // empty: black
  std::string tooltip = {};  // the whole text when `text` is shortened
};

/// Width of `text` in px at `font_size` in DejaVu Sans, the font the charts name first
/// (one of the widest sans-serif faces, so a browser's fallback is narrower).
double text_width(std::string_view text, double font_size, bool bold = false);

/// Height of a line of text: its box is font_size x this, centred on the anchor's y.
inline constexpr double kTextHeight = 1.17;

/// The corners of a label's box on the page (rotated).
std::array<Point, 4> corners(const TextLabel& label);

/// Whether two labels' boxes overlap (separating-axis test on the rotated boxes).
bool overlap(const TextLabel& a, const TextLabel& b);

/// The text labels of the chart as render_svg draws them at that size, and the size it draws.
struct ChartLabels {
  std::vector<TextLabel> labels;
  int width = 0;
  int height = 0;
};
ChartLabels chart_labels(const LineChart& chart, int width = 720, int height = 420);
ChartLabels chart_labels(const BarChart& chart, int width = 720, int height = 420);

/// Escapes text for XML/HTML (the one escaping function, in core).
using hetscale::escape_xml;

}  // namespace hetscale::report
