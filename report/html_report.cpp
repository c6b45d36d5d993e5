#include "html_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hetscale::report {
namespace {

constexpr const char* kStyle = R"(
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:24px}header p{margin:6px 0 0;opacity:.85}
nav{padding:8px 32px;background:#e8edf3;font-size:14px}nav a{margin-right:14px;color:#1f3a5f}
main{padding:8px 32px 40px;max-width:1200px}
section{background:#fff;border:1px solid #dde2e8;border-radius:6px;margin:18px 0;padding:8px 20px 16px}
h2{font-size:19px;color:#1f3a5f}h3{font-size:15px;margin:14px 0 6px}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{max-width:100%;height:auto;border:1px solid #eee}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{border:1px solid #d0d6de;padding:3px 8px;text-align:right}th{background:#eef2f6}
td:first-child,th:first-child{text-align:left}
.downloads{font-size:12px;margin-bottom:4px}.downloads a{margin-right:10px}
figure{margin:14px 0 22px}
.note{background:#fff4e0;border-left:4px solid #e69f00;padding:6px 10px;margin:8px 0;font-size:14px}
)";

std::string html(const std::string& text) {
  return escape_xml(text);
}

std::string percent_encode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ',' || c == ':')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string render_table(const ReportTable& table) {
  std::string s = fmt::format(R"(<h3 id="{}">{}</h3>)", html(table.id), html(table.title));
  s += fmt::format(
      R"(<div class="downloads">Download: <a download="{0}.csv" href="data:text/csv;charset=utf-8,{1}">CSV</a><a download="{0}.json" href="data:application/json;charset=utf-8,{2}">JSON</a></div>)",
      html(table.id), percent_encode(table_csv(table)), percent_encode(table_json(table)));
  s += "<table><thead><tr>";
  for (const auto& c : table.columns) s += "<th>" + html(c) + "</th>";
  s += "</tr></thead><tbody>";
  for (const auto& row : table.cells) {
    s += "<tr>";
    for (const auto& cell : row) s += "<td>" + html(cell) + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

/// The exported values: `raw` when it has the table's shape, else the shown cells.
const std::vector<std::vector<std::string>>& exported(const ReportTable& table) {
  return table.raw.size() == table.cells.size() ? table.raw : table.cells;
}

std::string render_figure(const Figure& figure) {
  std::string s = "<figure class=\"figure\">";
  if (!figure.heading.empty()) s += "<h3>" + html(figure.heading) + "</h3>";
  s += figure.chart;  // SVG, escaped inside
  for (const auto& table : figure.tables) s += render_table(table);
  return s + "</figure>";
}

}  // namespace

std::string table_csv(const ReportTable& table) {
  auto field = [](const std::string& v) {
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string s;
  for (std::size_t i = 0; i < table.columns.size(); ++i)
    s += (i ? "," : "") + field(table.columns[i]);
  s += "\n";
  for (const auto& row : exported(table)) {
    for (std::size_t i = 0; i < row.size(); ++i) s += (i ? "," : "") + field(row[i]);
    s += "\n";
  }
  return s;
}

namespace {

bool numeric(const ReportTable& table, std::size_t column) {
  return column < table.numeric.size() && table.numeric[column];
}

/// A value of a numeric column: empty is null, a finite number a number, else its text.
nlohmann::json number_json(const std::string& value) {
  if (value.empty()) return nullptr;
  try {
    std::size_t used = 0;
    const double v = std::stod(value, &used);
    if (used == value.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
    // not a number: text
  }
  return value;
}

}  // namespace

std::string table_json(const ReportTable& table) {
  auto rows = nlohmann::json::array();
  for (const auto& row : exported(table)) {
    auto object = nlohmann::json::object();
    for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i)
      object[table.columns[i]] = numeric(table, i) ? number_json(row[i]) : nlohmann::json(row[i]);
    rows.push_back(std::move(object));
  }
  return rows.dump();
}

std::string render_html(const Report& report) {
  std::string s = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  s += "<title>" + html(report.title) + "</title><style>" + kStyle + "</style></head><body>";
  s += "<header><h1>" + html(report.title) + "</h1><p>" + html(report.subtitle) +
       "</p></header><nav>";
  for (const auto& section : report.sections)
    s += fmt::format(R"(<a href="#{}">{}</a>)", html(section.id), html(section.title));
  s += "</nav><main>";
  for (const auto& section : report.sections) {
    s += fmt::format(R"(<section id="{}"><h2>{}</h2>)", html(section.id), html(section.title));
    if (!section.text.empty()) s += "<p>" + html(section.text) + "</p>";
    for (const auto& note : section.notes) s += "<div class=\"note\">" + html(note) + "</div>";
    if (!section.charts.empty()) {
      s += "<div class=\"charts\">";
      for (const auto& chart : section.charts) s += chart;  // already SVG, escaped inside
      s += "</div>";
    }
    for (const auto& table : section.tables) s += render_table(table);
    for (const auto& figure : section.figures) s += render_figure(figure);
    s += "</section>";
  }
  return s + "</main></body></html>\n";
}

}  // namespace hetscale::report
