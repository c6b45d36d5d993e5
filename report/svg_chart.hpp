// Charts drawn as inline SVG, so a report opens offline with no JavaScript library:
// line/point charts (linear or log x axis) and grouped bar charts, each with a title,
// axis labels with units, ticks and a legend.
#pragma once

#include <string>

#include "hetscale/base/xml_text.hpp"
#include <vector>

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
  bool log_x = false;
  bool log_y = false;  // for quantities spanning decades (e.g. required work)
  std::vector<Series> series;
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

std::string render_svg(const LineChart& chart, int width = 720, int height = 420);
std::string render_svg(const BarChart& chart, int width = 720, int height = 420);

/// Tick positions: "nice" 1-2-5 steps on linear axes, powers of ten (and 2, 5) on log axes.
std::vector<double> nice_ticks(double low, double high, bool log_scale, int target = 6);

/// Escapes text for XML/HTML (the one escaping function, in core).
using hetscale::escape_xml;

}  // namespace hetscale::report
