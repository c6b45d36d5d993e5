#include "svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "number_format.hpp"

namespace hetscale::report {
namespace {

// Okabe-Ito: distinguishable with every common colour-vision deficiency.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                    "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
const char* colour(std::size_t i) {
  return kPalette[i % std::size(kPalette)];
}

// Advance widths of DejaVu Sans, characters 32 to 126, in em.
constexpr double kAdvance[] = {
    0.318, 0.401, 0.460, 0.838, 0.636, 0.950, 0.780, 0.275, 0.390, 0.390, 0.500, 0.838,
    0.318, 0.361, 0.318, 0.337, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636,
    0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531, 1.000, 0.684, 0.686, 0.698,
    0.770, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787,
    0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.390,
    0.337, 0.390, 0.838, 0.500, 0.500, 0.613, 0.635, 0.550, 0.635, 0.615, 0.352, 0.635,
    0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411, 0.521,
    0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838};
constexpr double kWideAdvance = 0.84;  // any other character (×, ⁴, →, ...), at most
constexpr double kBoldFactor = 1.1;    // DejaVu Sans Bold is at most 10% wider

constexpr double kTitleSize = 15;
constexpr double kAxisSize = 12;
constexpr double kCategorySize = 11;
constexpr double kSmallSize = 10;
constexpr double kMinPlotHeight = 180;
constexpr double kLongestCategory = 190;  // px along a rotated category label
constexpr double kLongestLegend = 240;

struct Frame {
  double left = 72, right = 24, top = 44, bottom = 58;
  double width = 0, height = 0;
  [[nodiscard]] double plot_width() const { return width - left - right; }
  [[nodiscard]] double plot_height() const { return height - top - bottom; }
  [[nodiscard]] double plot_bottom() const { return height - bottom; }
};

struct Axis {
  double low = 0, high = 1;
  bool log_scale = false;
  [[nodiscard]] double fraction(double v) const {
    if (log_scale) return (std::log10(v) - std::log10(low)) / (std::log10(high) - std::log10(low));
    return (v - low) / (high - low);
  }
};

/// What a chart draws: its marks (SVG elements) and its labels, on a frame of that size.
struct Drawing {
  Frame frame;
  std::string marks;
  std::vector<TextLabel> labels;
  std::string no_data;  // the "no data" text, when the chart has no mark
};

std::string number(double v) {
  return shown_number(v, 6);
}

/// `text` shortened with "…" to at most `width` px.
std::string shortened(const std::string& text, double width, double size, bool bold = false) {
  if (text_width(text, size, bold) <= width) return text;
  std::string out = text;
  while (!out.empty() && text_width(out + "…", size, bold) > width) {
    out.pop_back();
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  }
  return out + "…";
}

/// `text` broken at spaces into at most `lines` lines of at most `width` px, the last one
/// shortened when the text does not fit.
std::vector<std::string> wrapped(const std::string& text, double width, double size, bool bold,
                                 std::size_t lines) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size() && out.size() < lines) {
    if (out.size() + 1 == lines) {
      out.push_back(shortened(text.substr(at), width, size, bold));
      break;
    }
    std::size_t end = text.size();
    while (end > at && text_width(text.substr(at, end - at), size, bold) > width) {
      const std::size_t space = text.rfind(' ', end - 1);
      if (space == std::string::npos || space <= at) {
        end = at;  // no break fits: the last line shortens the word
        break;
      }
      end = space;
    }
    if (end == at) {
      out.push_back(shortened(text.substr(at), width, size, bold));
      break;
    }
    out.push_back(text.substr(at, end - at));
    at = end;
    while (at < text.size() && text[at] == ' ') ++at;
  }
  if (out.empty()) out.emplace_back();
  return out;
}

TextLabel label(std::string text, double x, double y, TextAnchor anchor, double size,
                std::string role) {
  TextLabel l;
  l.text = std::move(text);
  l.x = x;
  l.y = y;
  l.anchor = anchor;
  l.font_size = size;
  l.role = std::move(role);
  return l;
}

/// The title's lines (bold, 15 px, at most two, centred) from y = 20; returns the plot's top.
double place_title(const std::string& title, double width, std::vector<TextLabel>& labels) {
  const auto lines = wrapped(title, width - 16, kTitleSize, true, 2);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    TextLabel l = label(lines[i], width / 2, 20 + 19 * static_cast<double>(i), TextAnchor::middle,
                        kTitleSize, "chart-title");
    l.bold = true;
    if (lines.size() > 1 || lines[i] != title) l.tooltip = title;
    labels.push_back(std::move(l));
  }
  return 20 + 19 * static_cast<double>(lines.size() - 1) + 26;
}

/// The y label's lines (at most two, rotated, along the plot) and the x of the axis's tick
/// labels' left edge it leaves free.
struct YLabel {
  std::vector<std::string> lines;
  [[nodiscard]] double right_edge() const {
    return 12 + 15 * static_cast<double>(lines.size() - 1) + kAxisSize * kTextHeight / 2 + 4;
  }
};

YLabel fit_y_label(const std::string& text, double plot_height) {
  return {wrapped(text, plot_height, kAxisSize, false, 2)};
}

void place_y_label(const YLabel& y_label, const std::string& text, const Frame& f,
                   std::vector<TextLabel>& labels) {
  for (std::size_t i = 0; i < y_label.lines.size(); ++i) {
    TextLabel l = label(y_label.lines[i], 12 + 15 * static_cast<double>(i),
                        f.top + f.plot_height() / 2, TextAnchor::middle, kAxisSize, "y-label");
    l.angle = -90;
    if (y_label.lines.size() > 1 || y_label.lines[i] != text) l.tooltip = text;
    labels.push_back(std::move(l));
  }
}

/// The x label's lines (at most two) centred under the plot from `y`.
std::vector<std::string> fit_x_label(const std::string& text, double width) {
  return wrapped(text, width - 16, kAxisSize, false, 2);
}

void place_x_label(const std::vector<std::string>& lines, const std::string& text, double y,
                   const Frame& f, std::vector<TextLabel>& labels) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    TextLabel l = label(lines[i], f.width / 2, y + 15 * static_cast<double>(i),
                        TextAnchor::middle, kAxisSize, "x-label");
    if (lines.size() > 1 || lines[i] != text) l.tooltip = text;
    labels.push_back(std::move(l));
  }
}

/// The y axis's ticks: grid lines and labels, thinned so that labels keep apart.
std::string y_ticks(const Frame& f, const Axis& y, std::vector<TextLabel>& labels) {
  std::string s;
  double last = std::numeric_limits<double>::max();
  for (double t : nice_ticks(y.low, y.high, y.log_scale)) {
    const double py = f.top + f.plot_height() * (1 - y.fraction(t));
    s += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.2f}" y2="{:.2f}" stroke="#ddd"/>)", f.left,
                     f.left + f.plot_width(), py, py);
    if (last - py < kAxisSize * kTextHeight + 2) continue;
    labels.push_back(label(number(t), f.left - 6, py, TextAnchor::end, kAxisSize, "tick"));
    last = py;
  }
  return s;
}

double widest(const std::vector<std::string>& texts, double size) {
  double w = 0;
  for (const auto& t : texts) w = std::max(w, text_width(t, size));
  return w;
}

std::vector<std::string> tick_texts(const Axis& axis) {
  std::vector<std::string> out;
  for (double t : nice_ticks(axis.low, axis.high, axis.log_scale)) out.push_back(number(t));
  return out;
}

/// Where the legend goes: beside the plot while it takes at most kLegendShare of the width,
/// else under the x label, one entry a line.
constexpr double kLegendShare = 0.3;
constexpr double kLegendLine = 17;

struct Legend {
  std::vector<std::string> names;
  bool below = false;
  /// The right margin it leaves beside the plot, and the height it takes under it.
  [[nodiscard]] double margin() const;
  [[nodiscard]] double height() const {
    return below ? kLegendLine * static_cast<double>(names.size()) + 4 : 0;
  }
};

std::vector<std::string> legend_names(const std::vector<std::string>& names, double width) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(shortened(n, width, kAxisSize));
  return out;
}

double Legend::margin() const {
  if (names.empty() || below) return 24;
  return 10 + 24 + widest(legend_names(names, kLongestLegend), kAxisSize) + 8;
}

Legend place_legend(const std::vector<std::string>& names, double width) {
  Legend l{names, false};
  l.below = l.margin() > kLegendShare * width;
  return l;
}

/// The stroke of a dashed series, in the plot and in the legend.
constexpr const char* kDashed = R"( stroke-dasharray="5 3")";

/// How a legend entry is drawn: a line in a palette colour, dashed or not, or a band's
/// swatch.
struct LegendKey {
  std::size_t colour = 0;
  bool dashed = false;
  bool band = false;
};

/// The fill of a band, in the plot and in the legend.
constexpr const char* kBandOpacity = "0.22";

/// One entry per name, beside the plot from its top or under the plot from `below_y`;
/// `keys` (by index; default: a solid line in the colour of the index) says how to draw it.
std::string legend(const Frame& f, const Legend& legend_place, double below_y,
                   std::vector<TextLabel>& labels, const std::vector<LegendKey>& keys = {}) {
  std::string s;
  const auto& names = legend_place.names;
  // Under the plot an entry may reach the chart's right edge.
  const auto shown = legend_names(
      names, legend_place.below ? f.width - f.left - 24 - 4 : kLongestLegend);
  double y = legend_place.below ? below_y : f.top + 8;
  for (std::size_t i = 0; i < names.size(); ++i, y += kLegendLine) {
    const double x = legend_place.below ? f.left : f.left + f.plot_width() + 10;
    const LegendKey key = i < keys.size() ? keys[i] : LegendKey{i, false, false};
    if (key.band)
      s +=
          fmt::format(R"(<rect x="{}" y="{}" width="18" height="10" fill="{}" fill-opacity="{}"/>)",
                      x, y - 5, colour(key.colour), kBandOpacity);
    else
      s +=
          fmt::format(R"(<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" stroke-width="2.5"{}/>)",
                      x, x + 18, y, y, colour(key.colour), key.dashed ? kDashed : "");
    TextLabel l = label(shown[i], x + 24, y, TextAnchor::start, kAxisSize, "legend");
    if (shown[i] != names[i]) l.tooltip = names[i];
    labels.push_back(std::move(l));
  }
  return s;
}

std::string anchor_name(TextAnchor a) {
  switch (a) {
    case TextAnchor::start:
      return "start";
    case TextAnchor::middle:
      return "middle";
    case TextAnchor::end:
      return "end";
  }
  return "middle";
}

std::string text_element(const TextLabel& l) {
  std::string s = fmt::format(
      R"(<text class="{}" x="{:.2f}" y="{:.2f}" text-anchor="{}" dominant-baseline="central")",
      l.role, l.x, l.y, anchor_name(l.anchor));
  if (l.font_size != kAxisSize) s += fmt::format(R"( font-size="{}")", l.font_size);
  if (l.bold) s += R"( font-weight="bold")";
  if (!l.fill.empty()) s += fmt::format(R"( fill="{}")", l.fill);
  if (l.angle != 0) s += fmt::format(R"svg( transform="rotate({} {:.2f} {:.2f})")svg", l.angle, l.x, l.y);
  s += ">" + escape_xml(l.text);
  if (!l.tooltip.empty()) s += "<title>" + escape_xml(l.tooltip) + "</title>";
  return s + "</text>";
}

std::string svg_text(const std::string& title, const Drawing& d) {
  const Frame& f = d.frame;
  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 {0} {1}" width="{0}" height="{1}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12">)",
      f.width, f.height);
  s += fmt::format("<title>{}</title>", escape_xml(title));
  s += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#fff"/>)", f.width, f.height);
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>)",
                   f.left, f.top, f.plot_width(), f.plot_height());
  s += d.marks;
  for (const auto& l : d.labels) s += text_element(l);
  if (!d.no_data.empty())
    s += fmt::format(
        R"(<text class="no-data" x="{}" y="{}" text-anchor="middle" fill="#888">{}</text>)",
        f.left + f.plot_width() / 2, f.top + f.plot_height() / 2, d.no_data);
  return s + "</svg>";
}

/// Whether positive values from `low` to `high` call for a log axis.
bool spans_decades(double low, double high) {
  return low > 0 && high / low > kMaxLinearSpan;
}

// --- line charts -------------------------------------------------------------------------

Drawing draw(const LineChart& chart, int width, int height) {
  Drawing d;
  Frame& f = d.frame;
  f.width = width;
  f.height = height;
  std::vector<std::string> names;
  for (const auto& series : chart.series) names.push_back(series.name);
  for (const auto& band : chart.bands) names.push_back(band.name);
  const Legend key = place_legend(names, f.width);
  f.right = key.margin();
  f.top = place_title(chart.title, f.width, d.labels);
  // The bands' bounds count towards the axes as points do.
  const std::vector<Series> band_bounds = [&] {
    std::vector<Series> out;
    for (const auto& band : chart.bands) {
      Series& bounds = out.emplace_back();
      for (const auto& p : band.points)
        if (std::isfinite(p.low) && std::isfinite(p.high))
          bounds.points.insert(bounds.points.end(), {{p.x, p.low}, {p.x, p.high}});
    }
    return out;
  }();

  bool log_x = chart.log_x;
  bool log_y = chart.log_y;
  auto finite = [](const Point& p) { return std::isfinite(p.x) && std::isfinite(p.y); };
  // The ranges of the finite points, then of the positive ones: an axis of positive values
  // spanning decades is drawn on a log scale.
  double x_low = std::numeric_limits<double>::max(), x_high = std::numeric_limits<double>::lowest();
  double y_low = x_low, y_high = x_high;
  for (const auto* list : {&chart.series, &chart.highlights, &band_bounds})
    for (const auto& series : *list)
      for (const auto& p : series.points)
        if (finite(p)) {
          x_low = std::min(x_low, p.x);
          x_high = std::max(x_high, p.x);
          y_low = std::min(y_low, p.y);
          y_high = std::max(y_high, p.y);
        }
  for (const auto& g : chart.horizontal_lines) {
    y_low = std::min(y_low, g.y);
    y_high = std::max(y_high, g.y);
  }
  log_x = log_x || spans_decades(x_low, x_high);
  log_y = log_y || spans_decades(y_low, y_high);

  Axis x{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(), log_x};
  // A linear y axis starts at 0; a log one at the smallest value.
  Axis y{log_y ? std::numeric_limits<double>::max() : 0, std::numeric_limits<double>::lowest(),
         log_y};
  bool any = false;
  auto drawn = [&](const Point& p) {
    return finite(p) && !(log_x && p.x <= 0) && !(log_y && p.y <= 0);
  };
  for (const auto* list : {&chart.series, &chart.highlights, &band_bounds})
    for (const auto& series : *list)
      for (const auto& p : series.points) {
        if (!drawn(p)) continue;
        any = true;
        x.low = std::min(x.low, p.x);
        x.high = std::max(x.high, p.x);
        y.low = std::min(y.low, p.y);
        y.high = std::max(y.high, p.y);
      }
  const double plot_height_wanted = std::max(kMinPlotHeight, f.height - f.top - 64);
  const YLabel y_label = fit_y_label(chart.y_label, plot_height_wanted);
  const auto x_lines = fit_x_label(chart.x_label, f.width);
  const double x_label_y = 38;  // below the plot
  const double key_y = x_label_y + 15 * static_cast<double>(x_lines.size() - 1) + 20;
  f.bottom = x_label_y + 15 * static_cast<double>(x_lines.size() - 1) + 14 + key.height();
  f.height = std::max(f.height, f.top + f.bottom + plot_height_wanted);
  if (!any) {
    f.left = y_label.right_edge() + 40;
    place_y_label(y_label, chart.y_label, f, d.labels);
    place_x_label(x_lines, chart.x_label, f.plot_bottom() + x_label_y, f, d.labels);
    d.no_data = "no data";
    return d;
  }
  for (const auto& g : chart.horizontal_lines)
    if (!(log_y && g.y <= 0)) {
      y.high = std::max(y.high, g.y);
      y.low = std::min(y.low, g.y);
    }
  if (!log_y) y.low = std::min(y.low, 0.0);
  if (x.high == x.low) {
    x.low = log_x ? x.low / 2 : x.low - 1;
    x.high = log_x ? x.high * 2 : x.high + 1;
  } else if (log_x) {
    x.low /= 1.15;
    x.high *= 1.15;
  } else {
    const double pad = 0.05 * (x.high - x.low);
    x.low -= pad;
    x.high += pad;
  }
  if (log_y) {
    const double pad = y.high > y.low ? 1.3 : 2;
    y.low /= pad;
    y.high *= pad;
  } else {
    y.high = y.high > y.low ? y.high + 0.08 * (y.high - y.low) : y.low + 1;
  }
  f.left = y_label.right_edge() + widest(tick_texts(y), kAxisSize) + 10;
  auto px = [&](double v) { return f.left + f.plot_width() * x.fraction(v); };
  auto py = [&](double v) { return f.top + f.plot_height() * (1 - y.fraction(v)); };

  place_y_label(y_label, chart.y_label, f, d.labels);
  d.marks += y_ticks(f, y, d.labels);
  // x ticks, each label kept clear of the one before it and inside the chart.
  double last_right = std::numeric_limits<double>::lowest();
  for (double t : nice_ticks(x.low, x.high, log_x)) {
    d.marks += fmt::format(R"(<line x1="{0:.2f}" x2="{0:.2f}" y1="{1}" y2="{2}" stroke="#ddd"/>)",
                           px(t), f.top, f.top + f.plot_height());
    const std::string text = number(t);
    const double half = text_width(text, kAxisSize) / 2;
    if (px(t) - half < last_right + 8 || px(t) + half > f.width - 2) continue;
    d.labels.push_back(label(text, px(t), f.plot_bottom() + 16, TextAnchor::middle, kAxisSize, "tick"));
    last_right = px(t) + half;
  }
  place_x_label(x_lines, chart.x_label, f.plot_bottom() + x_label_y, f, d.labels);
  std::vector<TextLabel> guides;
  for (const auto& g : chart.horizontal_lines) {
    if (log_y && g.y <= 0) continue;
    d.marks += fmt::format(
        R"(<line class="guide" x1="{}" x2="{}" y1="{:.2f}" y2="{:.2f}" stroke="#C00" stroke-dasharray="6 4"/>)",
        f.left, f.left + f.plot_width(), py(g.y), py(g.y));
    TextLabel l = label(g.label, f.left + 6, py(g.y) - 9, TextAnchor::start, kAxisSize, "guide-label");
    l.fill = "#C00";
    // Beside the guide labels before it, when they would overlap.
    for (const auto& other : guides)
      if (overlap(l, other)) l.x = other.x + text_width(other.text, kAxisSize) + 12;
    guides.push_back(l);
    d.labels.push_back(std::move(l));
  }
  for (const auto& band : chart.bands) {
    d.marks += fmt::format(R"(<g class="band" data-name="{}">)", escape_xml(band.name));
    std::vector<BandPoint> points = band.points;
    std::sort(points.begin(), points.end(), [](BandPoint a, BandPoint b) { return a.x < b.x; });
    const auto closed = [&](const BandPoint& p) {
      return drawn({p.x, p.low}) && drawn({p.x, p.high});
    };
    const char* fill = colour(band.series);
    const auto tip = [&](const BandPoint& p) {
      return fmt::format("<title>{}: {} to {} at {}</title>", escape_xml(band.name), number(p.low),
                         number(p.high), number(p.x));
    };
    for (std::size_t a = 0; a < points.size();) {
      if (!closed(points[a])) {
        ++a;
        continue;
      }
      std::size_t b = a + 1;
      while (band.joined && b < points.size() && closed(points[b])) ++b;
      if (b - a == 1) {  // a bar of its own
        const BandPoint& p = points[a];
        d.marks += fmt::format(
            R"(<rect x="{:.2f}" y="{:.2f}" width="8" height="{:.2f}" fill="{}" fill-opacity="{}">{}</rect>)",
            px(p.x) - 4, py(p.high), std::max(1.0, py(p.low) - py(p.high)), fill, kBandOpacity,
            tip(p));
      } else {
        std::string outline;
        for (std::size_t k = a; k < b; ++k)
          outline += fmt::format("{}{:.2f},{:.2f}", outline.empty() ? "" : " ", px(points[k].x),
                                 py(points[k].high));
        for (std::size_t k = b; k-- > a;)
          outline += fmt::format(" {:.2f},{:.2f}", px(points[k].x), py(points[k].low));
        d.marks += fmt::format(
            R"(<polygon points="{}" fill="{}" fill-opacity="{}" stroke="none">{}</polygon>)",
            outline, fill, kBandOpacity, tip(points[a]));
      }
      a = b;
    }
    d.marks += "</g>";
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    std::string path;
    for (const auto& p : series.points) {
      if (!drawn(p)) continue;
      path += fmt::format("{}{:.2f},{:.2f}", path.empty() ? "" : " ", px(p.x), py(p.y));
    }
    d.marks += fmt::format(R"(<g class="series" data-name="{}">)", escape_xml(series.name));
    if (series.line && !path.empty())
      d.marks += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{}/>)",
                             path, colour(i), series.dashed ? kDashed : "");
    if (series.markers)
      for (const auto& p : series.points) {
        if (!drawn(p)) continue;
        d.marks += fmt::format(
            R"(<circle class="point" cx="{:.2f}" cy="{:.2f}" r="3.5" fill="{}"><title>{}: ({}, {})</title></circle>)",
            px(p.x), py(p.y), colour(i), escape_xml(series.name), number(p.x), number(p.y));
      }
    d.marks += "</g>";
  }
  for (const auto& series : chart.highlights)
    for (const auto& p : series.points) {
      if (!drawn(p)) continue;
      d.marks += fmt::format(
          R"(<path class="point highlight" d="M{0:.2f},{1:.2f} m-6,0 l6,-6 l6,6 l-6,6 z" fill="#fff" stroke="#C00" stroke-width="2"><title>{2}: ({3}, {4})</title></path>)",
          px(p.x), py(p.y), escape_xml(series.name), number(p.x), number(p.y));
    }
  std::vector<LegendKey> keys;
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    keys.push_back({i, chart.series[i].dashed, false});
  for (const auto& band : chart.bands) keys.push_back({band.series, false, true});
  d.marks += legend(f, key, f.plot_bottom() + key_y, d.labels, keys);
  return d;
}

// --- bar charts --------------------------------------------------------------------------

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

/// The category labels under the plot: level while they fit their group, else rotated by
/// 45 degrees, else upright (90 degrees), else upright and only every k-th one; each
/// shortened to kLongestCategory. `band` is the height they take below the plot, and
/// `leftmost` how far left of the chart's edge the first one reaches.
struct CategoryLayout {
  std::vector<TextLabel> labels;
  double band = 0;
  double leftmost = 0;
  std::size_t every = 1;
};

CategoryLayout layout_categories(const std::vector<std::string>& categories, double left,
                                 double group, double plot_bottom) {
  CategoryLayout out;
  const double level_width = widest(categories, kAxisSize);
  const double sin45 = std::numbers::sqrt2 / 2;
  double angle = 0;
  double size = kAxisSize;
  if (level_width > group - 6) {
    size = kCategorySize;
    angle = -45;
    if (group * sin45 < size * kTextHeight + 3) {
      size = kSmallSize;
      angle = -90;
      out.every = static_cast<std::size_t>(std::ceil((size * kTextHeight + 2) / group));
    }
  }
  out.leftmost = std::numeric_limits<double>::max();
  for (std::size_t c = 0; c < categories.size(); c += out.every) {
    const double centre = left + group * (static_cast<double>(c) + 0.5);
    const std::string text = angle == 0 ? categories[c] : shortened(categories[c], kLongestCategory, size);
    TextLabel l = label(text, centre, plot_bottom + 12, angle == 0 ? TextAnchor::middle : TextAnchor::end,
                        size, "category");
    if (angle != 0) {
      l.angle = angle;
      l.y = plot_bottom + 8;
      l.x = angle == -45 ? centre + 4 : centre;
    }
    if (text != categories[c]) l.tooltip = categories[c];
    for (const Point& p : corners(l)) {
      out.band = std::max(out.band, p.y - plot_bottom);
      out.leftmost = std::min(out.leftmost, p.x);
    }
    out.labels.push_back(std::move(l));
  }
  out.band += 4;
  return out;
}

/// The notes above the bars (e.g. "degraded"): level while they fit their group, else
/// upright, else a mark with the note as its tooltip.
void place_notes(const BarChart& chart, const Frame& f, double group, Drawing& d) {
  for (std::size_t c = 0; c < chart.categories.size() && c < chart.category_notes.size(); ++c) {
    const std::string& note = chart.category_notes[c];
    if (note.empty()) continue;
    const double centre = f.left + group * (static_cast<double>(c) + 0.5);
    if (text_width(note, kSmallSize) <= group - 2) {
      TextLabel l = label(note, centre, f.top + 10, TextAnchor::middle, kSmallSize, "note");
      l.fill = "#C00";
      d.labels.push_back(std::move(l));
    } else if (group >= kSmallSize * kTextHeight + 2) {
      TextLabel l = label(shortened(note, f.plot_height() / 2, kSmallSize), centre, f.top + 4,
                          TextAnchor::start, kSmallSize, "note");
      l.angle = 90;
      l.fill = "#C00";
      d.labels.push_back(std::move(l));
    } else {
      d.marks += fmt::format(
          R"(<path class="note-mark" d="M{0:.2f},{1:.2f} l-3,-5 l6,0 z" fill="#C00"><title>{2}: {3}</title></path>)",
          centre, f.top + 8, escape_xml(chart.categories[c]), escape_xml(note));
    }
  }
}

Drawing draw(const BarChart& chart, int width, int height) {
  Drawing d;
  Frame& f = d.frame;
  f.width = width;
  f.height = height;
  const BarColours colours = bar_colours(chart);
  const Legend key = place_legend(colours.legend, f.width);
  f.right = key.margin();
  f.top = place_title(chart.title, f.width, d.labels);
  double low = std::numeric_limits<double>::max();
  double high = std::numeric_limits<double>::lowest();
  for (const auto& row : chart.values)
    for (double v : row)
      if (std::isfinite(v)) {
        low = std::min(low, v);
        high = std::max(high, v);
      }
  const bool any = high >= low && !chart.categories.empty();
  const bool log_y = any && spans_decades(low, high);
  Axis y{0, 0, log_y};
  if (log_y) {
    y.low = std::pow(10.0, std::floor(std::log10(low)));
    y.high = high * 1.3;
  } else if (any) {
    y.low = std::min(low, 0.0);
    y.high = std::max(high, 0.0);
    y.high = y.high > y.low ? y.high * 1.08 : y.low + 1;
  }
  const double plot_height_wanted = std::max(kMinPlotHeight, f.height - f.top - 64);
  const YLabel y_label = fit_y_label(chart.y_label, plot_height_wanted);
  const auto x_lines = fit_x_label(chart.x_label, f.width);
  f.left = y_label.right_edge() + (any ? widest(tick_texts(y), kAxisSize) : 30) + 10;
  const double n = static_cast<double>(std::max<std::size_t>(1, chart.categories.size()));
  // The categories' labels need the plot's width, and may push the plot right.
  CategoryLayout categories;
  for (int pass = 0; pass < 3; ++pass) {
    categories = layout_categories(chart.categories, f.left, f.plot_width() / n, 0);
    if (categories.leftmost >= 2 || categories.labels.empty()) break;
    f.left += 2 - categories.leftmost;
  }
  const double key_y = categories.band + 12 + 15 * static_cast<double>(x_lines.size() - 1) + 20;
  f.bottom = categories.band + 12 + 15 * static_cast<double>(x_lines.size() - 1) + 14 + key.height();
  f.height = std::max(f.height, f.top + f.bottom + plot_height_wanted);
  for (auto& l : categories.labels) l.y += f.plot_bottom();
  place_y_label(y_label, chart.y_label, f, d.labels);
  place_x_label(x_lines, chart.x_label, f.plot_bottom() + categories.band + 12, f, d.labels);
  if (!any) {
    d.no_data = "no data";
    return d;
  }
  auto py = [&](double v) {
    return f.top + f.plot_height() * (1 - y.fraction(log_y ? std::max(v, y.low) : v));
  };
  d.marks += y_ticks(f, y, d.labels);
  const double group = f.plot_width() / n;
  const double bar =
      group * 0.8 / static_cast<double>(std::max<std::size_t>(1, chart.series.size()));
  const double base = log_y ? y.low : 0.0;
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    const double x0 = f.left + group * static_cast<double>(c) + group * 0.1;
    for (std::size_t k = 0; k < chart.series.size() && k < chart.values.size(); ++k) {
      if (c >= chart.values[k].size() || !std::isfinite(chart.values[k][c])) continue;
      const double v = chart.values[k][c];
      const double top = py(std::max(v, base));
      const std::size_t hue = colours.of_category.empty() ? k : colours.of_category[c];
      d.marks += fmt::format(
          R"(<rect class="point bar" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"><title>{} / {}: {}</title></rect>)",
          x0 + bar * static_cast<double>(k), top, bar, std::abs(py(v) - py(base)), colour(hue),
          escape_xml(chart.categories[c]), escape_xml(chart.series[k]), number(v));
    }
  }
  for (auto& l : categories.labels) d.labels.push_back(std::move(l));
  place_notes(chart, f, group, d);
  d.marks += legend(f, key, f.plot_bottom() + key_y, d.labels);
  return d;
}

}  // namespace

std::vector<double> nice_ticks(double low, double high, bool log_scale, int target) {
  std::vector<double> ticks;
  if (!(high > low)) return {low};
  if (log_scale) {
    const int first = static_cast<int>(std::floor(std::log10(low)));
    const int last = static_cast<int>(std::ceil(std::log10(high)));
    const bool dense = last - first <= 2;
    // Over many decades, every second (third, ...) power of ten.
    const int step = std::max(1, (last - first + target) / (target + 2));
    for (int e = first; e <= last; ++e) {
      if ((e - first) % step != 0) continue;
      for (double m : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double t = m * std::pow(10.0, e);
        if (t >= low * (1 - 1e-9) && t <= high * (1 + 1e-9)) ticks.push_back(t);
      }
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

double text_width(std::string_view text, double font_size, bool bold) {
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 32 && c <= 126) {
      em += kAdvance[c - 32];
    } else if ((c & 0xC0) != 0x80) {  // the first byte of any other character
      em += kWideAdvance;
    }
  }
  return em * font_size * (bold ? kBoldFactor : 1.0);
}

std::array<Point, 4> corners(const TextLabel& l) {
  const double w = text_width(l.text, l.font_size, l.bold);
  const double h = l.font_size * kTextHeight;
  const double x0 = l.anchor == TextAnchor::start ? 0 : l.anchor == TextAnchor::middle ? -w / 2 : -w;
  const double a = l.angle * std::numbers::pi / 180;
  const double c = std::cos(a);
  const double s = std::sin(a);
  std::array<Point, 4> out;
  const Point local[4] = {{x0, -h / 2}, {x0 + w, -h / 2}, {x0 + w, h / 2}, {x0, h / 2}};
  for (std::size_t i = 0; i < 4; ++i)
    out[i] = {l.x + local[i].x * c - local[i].y * s, l.y + local[i].x * s + local[i].y * c};
  return out;
}

bool overlap(const TextLabel& a, const TextLabel& b) {
  const auto pa = corners(a);
  const auto pb = corners(b);
  // Separating axes: the edge normals of both rectangles.
  for (const auto* poly : {&pa, &pb})
    for (std::size_t i = 0; i < 2; ++i) {
      const Point& p = (*poly)[i];
      const Point& q = (*poly)[i + 1];
      const double nx = -(q.y - p.y);
      const double ny = q.x - p.x;
      auto project = [&](const std::array<Point, 4>& r) {
        double lo = std::numeric_limits<double>::max();
        double hi = std::numeric_limits<double>::lowest();
        for (const Point& v : r) {
          const double t = v.x * nx + v.y * ny;
          lo = std::min(lo, t);
          hi = std::max(hi, t);
        }
        return std::pair{lo, hi};
      };
      const auto [alo, ahi] = project(pa);
      const auto [blo, bhi] = project(pb);
      if (ahi <= blo || bhi <= alo) return false;
    }
  return true;
}

ChartLabels chart_labels(const LineChart& chart, int width, int height) {
  const Drawing d = draw(chart, width, height);
  return {d.labels, static_cast<int>(d.frame.width), static_cast<int>(d.frame.height)};
}

ChartLabels chart_labels(const BarChart& chart, int width, int height) {
  const Drawing d = draw(chart, width, height);
  return {d.labels, static_cast<int>(d.frame.width), static_cast<int>(d.frame.height)};
}

std::string render_svg(const LineChart& chart, int width, int height) {
  return svg_text(chart.title, draw(chart, width, height));
}

std::string render_svg(const BarChart& chart, int width, int height) {
  return svg_text(chart.title, draw(chart, width, height));
}

}  // namespace hetscale::report
