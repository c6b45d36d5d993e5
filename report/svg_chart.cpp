#include "svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetscale::report {
namespace {

// Okabe-Ito: distinguishable with every common colour-vision deficiency.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                    "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
const char* colour(std::size_t i) {
  return kPalette[i % std::size(kPalette)];
}

struct Frame {
  double left = 72, right = 24, top = 44, bottom = 58;
  int width = 0, height = 0;
  [[nodiscard]] double plot_width() const { return width - left - right; }
  [[nodiscard]] double plot_height() const { return height - top - bottom; }
};

struct Axis {
  double low = 0, high = 1;
  bool log_scale = false;
  [[nodiscard]] double fraction(double v) const {
    if (log_scale) return (std::log10(v) - std::log10(low)) / (std::log10(high) - std::log10(low));
    return (v - low) / (high - low);
  }
};

std::string number(double v) {
  if (v != 0 && (std::abs(v) >= 1e6 || std::abs(v) < 1e-3)) return fmt::format("{:.3g}", v);
  return fmt::format("{:.6g}", v);
}

std::string open_svg(const Frame& f, const std::string& title, const std::string& x_label,
                     const std::string& y_label) {
  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 {0} {1}" width="{0}" height="{1}" font-family="sans-serif" font-size="12">)",
      f.width, f.height);
  s += fmt::format("<title>{}</title>", escape_xml(title));
  s += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#fff"/>)", f.width, f.height);
  s += fmt::format(
      R"(<text class="chart-title" x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>)",
      f.width / 2.0, escape_xml(title));
  s += fmt::format(R"(<text class="x-label" x="{}" y="{}" text-anchor="middle">{}</text>)",
                   f.left + f.plot_width() / 2, f.height - 14, escape_xml(x_label));
  s += fmt::format(
      R"svg(<text class="y-label" transform="translate(16,{}) rotate(-90)" text-anchor="middle">{}</text>)svg",
      f.top + f.plot_height() / 2, escape_xml(y_label));
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>)",
                   f.left, f.top, f.plot_width(), f.plot_height());
  return s;
}

std::string y_ticks(const Frame& f, const Axis& y) {
  std::string s;
  for (double t : nice_ticks(y.low, y.high, y.log_scale)) {
    const double py = f.top + f.plot_height() * (1 - y.fraction(t));
    s += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.2f}" y2="{:.2f}" stroke="#ddd"/>)", f.left,
                     f.left + f.plot_width(), py, py);
    s += fmt::format(
        R"(<text x="{}" y="{:.2f}" text-anchor="end" dominant-baseline="middle">{}</text>)",
        f.left - 6, py, number(t));
  }
  return s;
}

/// Right margin that fits the legend beside the plot (about 6.6 px per character at 12 px).
double legend_margin(const std::vector<std::string>& names) {
  std::size_t longest = 0;
  for (const auto& n : names) longest = std::max(longest, n.size());
  return names.empty() ? 24 : std::min(300.0, 40 + 6.6 * static_cast<double>(longest));
}

/// The stroke of a dashed series, in the plot and in the legend.
constexpr const char* kDashed = R"( stroke-dasharray="5 3")";

/// One entry per name in the colour of its index; `dashed` (optional, by index) dashes it.
std::string legend(const Frame& f, const std::vector<std::string>& names,
                   const std::vector<bool>& dashed = {}) {
  std::string s;
  double y = f.top + 8;
  for (std::size_t i = 0; i < names.size(); ++i, y += 16) {
    const double x = f.left + f.plot_width() + 10;
    s += fmt::format(R"(<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" stroke-width="2.5"{}/>)",
                     x, x + 18, y, y, colour(i), i < dashed.size() && dashed[i] ? kDashed : "");
    s += fmt::format(R"(<text x="{}" y="{}" dominant-baseline="middle">{}</text>)", x + 24, y,
                     escape_xml(names[i]));
  }
  return s;
}

std::string no_data(const Frame& f) {
  return fmt::format(
      R"(<text class="no-data" x="{}" y="{}" text-anchor="middle" fill="#888">no data</text></svg>)",
      f.left + f.plot_width() / 2, f.top + f.plot_height() / 2);
}

}  // namespace

std::vector<double> nice_ticks(double low, double high, bool log_scale, int target) {
  std::vector<double> ticks;
  if (!(high > low)) return {low};
  if (log_scale) {
    const int first = static_cast<int>(std::floor(std::log10(low)));
    const int last = static_cast<int>(std::ceil(std::log10(high)));
    const bool dense = last - first <= 2;
    for (int e = first; e <= last; ++e)
      for (double m : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double t = m * std::pow(10.0, e);
        if (t >= low * (1 - 1e-9) && t <= high * (1 + 1e-9)) ticks.push_back(t);
      }
    if (ticks.size() < 2) ticks = {low, high};
    return ticks;
  }
  const double raw = (high - low) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  for (double t = std::ceil(low / step) * step; t <= high + step * 1e-9; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::string render_svg(const LineChart& chart, int width, int height) {
  Frame f;
  f.width = width;
  f.height = height;
  std::vector<std::string> names;
  for (const auto& series : chart.series) names.push_back(series.name);
  f.right = legend_margin(names);
  std::string s = open_svg(f, chart.title, chart.x_label, chart.y_label);
  Axis x{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(), chart.log_x};
  // A linear y axis starts at 0; a log one at the smallest value.
  Axis y{chart.log_y ? std::numeric_limits<double>::max() : 0,
         std::numeric_limits<double>::lowest(), chart.log_y};
  bool any = false;
  auto drawn = [&](const Point& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && !(chart.log_x && p.x <= 0) &&
           !(chart.log_y && p.y <= 0);
  };
  auto extend = [&](const Series& series) {
    for (const auto& p : series.points) {
      if (!drawn(p)) continue;
      any = true;
      x.low = std::min(x.low, p.x);
      x.high = std::max(x.high, p.x);
      y.low = std::min(y.low, p.y);
      y.high = std::max(y.high, p.y);
    }
  };
  for (const auto& series : chart.series) extend(series);
  for (const auto& series : chart.highlights) extend(series);
  if (!any) return s + no_data(f);
  for (const auto& g : chart.horizontal_lines) y.high = std::max(y.high, g.y);
  if (x.high == x.low) {
    x.low = chart.log_x ? x.low / 2 : x.low - 1;
    x.high = chart.log_x ? x.high * 2 : x.high + 1;
  } else if (chart.log_x) {
    x.low /= 1.15;
    x.high *= 1.15;
  } else {
    const double pad = 0.05 * (x.high - x.low);
    x.low -= pad;
    x.high += pad;
  }
  if (chart.log_y) {
    const double pad = y.high > y.low ? 1.3 : 2;
    y.low /= pad;
    y.high *= pad;
  } else {
    y.high = y.high > y.low ? y.high + 0.08 * (y.high - y.low) : y.low + 1;
  }
  auto px = [&](double v) { return f.left + f.plot_width() * x.fraction(v); };
  auto py = [&](double v) { return f.top + f.plot_height() * (1 - y.fraction(v)); };

  s += y_ticks(f, y);
  for (double t : nice_ticks(x.low, x.high, chart.log_x)) {
    s += fmt::format(R"(<line x1="{0:.2f}" x2="{0:.2f}" y1="{1}" y2="{2}" stroke="#ddd"/>)", px(t),
                     f.top, f.top + f.plot_height());
    s += fmt::format(R"(<text x="{:.2f}" y="{}" text-anchor="middle">{}</text>)", px(t),
                     f.top + f.plot_height() + 16, number(t));
  }
  for (const auto& g : chart.horizontal_lines) {
    s += fmt::format(
        R"(<line class="guide" x1="{}" x2="{}" y1="{:.2f}" y2="{:.2f}" stroke="#C00" stroke-dasharray="6 4"/>)",
        f.left, f.left + f.plot_width(), py(g.y), py(g.y));
    s += fmt::format(R"(<text x="{}" y="{:.2f}" fill="#C00">{}</text>)", f.left + 6, py(g.y) - 5,
                     escape_xml(g.label));
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    std::string path;
    for (const auto& p : series.points) {
      if (!drawn(p)) continue;
      path += fmt::format("{}{:.2f},{:.2f}", path.empty() ? "" : " ", px(p.x), py(p.y));
    }
    s += fmt::format(R"(<g class="series" data-name="{}">)", escape_xml(series.name));
    if (series.line && !path.empty())
      s += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{}/>)",
                       path, colour(i), series.dashed ? kDashed : "");
    if (series.markers)
      for (const auto& p : series.points) {
        if (!drawn(p)) continue;
        s += fmt::format(
            R"(<circle class="point" cx="{:.2f}" cy="{:.2f}" r="3.5" fill="{}"><title>{}: ({}, {})</title></circle>)",
            px(p.x), py(p.y), colour(i), escape_xml(series.name), number(p.x), number(p.y));
      }
    s += "</g>";
  }
  for (const auto& series : chart.highlights)
    for (const auto& p : series.points) {
      if (!drawn(p)) continue;
      s += fmt::format(
          R"(<path class="point highlight" d="M{0:.2f},{1:.2f} m-6,0 l6,-6 l6,6 l-6,6 z" fill="#fff" stroke="#C00" stroke-width="2"><title>{2}: ({3}, {4})</title></path>)",
          px(p.x), py(p.y), escape_xml(series.name), number(p.x), number(p.y));
    }
  std::vector<bool> dashed;
  for (const auto& series : chart.series) dashed.push_back(series.dashed);
  s += legend(f, names, dashed);
  return s + "</svg>";
}

namespace {

/// The legend entries of a bar chart and the colour index of each bar: by series, or by
/// category group when the chart colours one series by group.
struct BarColours {
  std::vector<std::string> legend;
  std::vector<std::size_t> of_category;  // empty: colour by series
};

BarColours bar_colours(const BarChart& chart) {
  BarColours c;
  const bool by_group =
      chart.series.size() == 1 && chart.category_groups.size() == chart.categories.size();
  if (!by_group) {
    if (chart.series.size() > 1) c.legend = chart.series;
    return c;
  }
  for (const auto& g : chart.category_groups) {
    auto at = std::find(c.legend.begin(), c.legend.end(), g);
    if (at == c.legend.end()) at = c.legend.insert(c.legend.end(), g);
    c.of_category.push_back(static_cast<std::size_t>(at - c.legend.begin()));
  }
  return c;
}

}  // namespace

std::string render_svg(const BarChart& chart, int width, int height) {
  Frame f;
  f.width = width;
  f.height = height;
  const BarColours colours = bar_colours(chart);
  if (!colours.legend.empty()) f.right = legend_margin(colours.legend);
  std::string s = open_svg(f, chart.title, chart.x_label, chart.y_label);
  Axis y{0, 0, false};
  bool any = false;
  for (const auto& row : chart.values)
    for (double v : row)
      if (std::isfinite(v)) {
        any = true;
        y.low = std::min(y.low, v);
        y.high = std::max(y.high, v);
      }
  if (!any || chart.categories.empty()) return s + no_data(f);
  y.high = y.high > y.low ? y.high * 1.08 : y.low + 1;
  auto py = [&](double v) { return f.top + f.plot_height() * (1 - y.fraction(v)); };
  s += y_ticks(f, y);
  const double group = f.plot_width() / static_cast<double>(chart.categories.size());
  const double bar =
      group * 0.8 / static_cast<double>(std::max<std::size_t>(1, chart.series.size()));
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    const double x0 = f.left + group * static_cast<double>(c) + group * 0.1;
    for (std::size_t k = 0; k < chart.series.size() && k < chart.values.size(); ++k) {
      if (c >= chart.values[k].size() || !std::isfinite(chart.values[k][c])) continue;
      const double v = chart.values[k][c];
      const double top = py(std::max(v, 0.0));
      const std::size_t hue = colours.of_category.empty() ? k : colours.of_category[c];
      s += fmt::format(
          R"(<rect class="point bar" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"><title>{} / {}: {}</title></rect>)",
          x0 + bar * static_cast<double>(k), top, bar, std::abs(py(v) - py(0)), colour(hue),
          escape_xml(chart.categories[c]), escape_xml(chart.series[k]), number(v));
    }
    const bool rotate = chart.categories.size() > 12;
    const double lx = x0 + group * 0.4;
    const double ly = f.top + f.plot_height() + 14;
    s +=
        rotate
            ? fmt::format(
                  R"svg(<text x="{0:.2f}" y="{1}" text-anchor="end" font-size="10" transform="rotate(-45 {0:.2f} {1})">{2}</text>)svg",
                  lx, ly, escape_xml(chart.categories[c]))
            : fmt::format(R"(<text x="{:.2f}" y="{}" text-anchor="middle">{}</text>)", lx, ly,
                          escape_xml(chart.categories[c]));
    if (c < chart.category_notes.size() && !chart.category_notes[c].empty())
      s += fmt::format(
          R"(<text class="note" x="{:.2f}" y="{}" text-anchor="middle" fill="#C00" font-size="10">{}</text>)",
          lx, f.top + 12, escape_xml(chart.category_notes[c]));
  }
  if (!colours.legend.empty()) s += legend(f, colours.legend);
  return s + "</svg>";
}

}  // namespace hetscale::report
