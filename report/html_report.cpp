#include "html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hetscale::report {
namespace {

constexpr const char* kStyle = R"(
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:24px}header p{margin:6px 0 0;opacity:.85;overflow-wrap:anywhere}
nav{padding:8px 32px;background:#e8edf3;font-size:14px}nav a{margin-right:14px;color:#1f3a5f}
main{padding:8px 24px 40px;max-width:1232px;box-sizing:border-box}
section{background:#fff;border:1px solid #dde2e8;border-radius:6px;margin:18px 0;padding:8px 20px 16px}
h2{font-size:19px;color:#1f3a5f}h3{font-size:15px;margin:14px 0 6px}
p,.note,.verdict{overflow-wrap:anywhere}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart-box{max-width:100%}.chart-box svg{display:block;max-width:100%;height:auto;border:1px solid #eee}
.table-box{overflow-x:auto;max-width:100%;margin:6px 0}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #d0d6de;padding:3px 8px;text-align:left;overflow-wrap:break-word}
th{background:#eef2f6;font-weight:600}.num{text-align:right}td.num>span{white-space:nowrap}
td.long{min-width:16em}
.downloads{font-size:12px;margin-bottom:4px}.downloads a{margin-right:10px}
.footnotes{font-size:12px;color:#444;margin:2px 0 10px;padding-left:24px}
details>summary{cursor:pointer;font-size:13px;color:#1f3a5f;margin:4px 0}
figure{margin:14px 0 22px}
.note{background:#fff4e0;border-left:4px solid #e69f00;padding:6px 10px;margin:8px 0;font-size:14px}
.verdict{background:#eef2f7;border-left:4px solid #4a6fa5;padding:6px 10px;margin:6px 0;font-size:14px}
@media print{
@page{size:A4;margin:12mm}
body{background:#fff;font-size:10pt}
header{background:none;color:#000;padding:0 0 6pt;border-bottom:1pt solid #000}
nav,.downloads{display:none}
main{padding:0;max-width:none}
section{border:none;border-radius:0;padding:0;margin:0 0 14pt}
h2,h3{break-after:avoid}
.chart-box,.note,.verdict,tr{break-inside:avoid}
.table-box{overflow:visible}
table{font-size:8pt}th,td{padding:1pt 3pt}td.long{min-width:10em}
}
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

bool numeric(const ReportTable& table, std::size_t column) {
  return column < table.numeric.size() && table.numeric[column];
}

bool shown(const ReportTable& table, std::size_t column) {
  return column >= table.hidden.size() || !table.hidden[column];
}

/// A column's name as the page shows it: spaces for underscores, then its unit.
std::string header_text(const ReportTable& table, std::size_t column) {
  std::string name = table.columns[column];
  std::replace(name.begin(), name.end(), '_', ' ');
  if (column < table.units.size() && !table.units[column].empty())
    name += " (" + table.units[column] + ")";
  return name;
}

// A number's cell: the figure, and its interval or reason after it, each kept on one line;
// where the column is short of room the interval goes under the figure, not out of sight.
std::string numeric_cell_html(const std::string& cell) {
  const std::size_t after = cell.find_first_of("[(");
  if (after == std::string::npos || after == 0 || cell[after - 1] != ' ')
    return "<span>" + html(cell) + "</span>";
  return "<span>" + html(cell.substr(0, after - 1)) + "</span> <span>" + html(cell.substr(after)) + "</span>";
}

std::string render_table(const ReportTable& table) {
  // A table without a title is named by the heading above it; its id goes on the downloads.
  std::string s = table.title.empty() ? std::string()
                                      : fmt::format(R"(<h3 id="{}">{}</h3>)", html(table.id),
                                                    html(table.title));
  s += fmt::format(
      R"(<div class="downloads"{3}>Download: <a download="{0}.csv" href="data:text/csv;charset=utf-8,{1}">CSV</a><a download="{0}.json" href="data:application/json;charset=utf-8,{2}">JSON</a></div>)",
      html(table.id), percent_encode(table_csv(table)), percent_encode(table_json(table)),
      table.title.empty() ? fmt::format(R"( id="{}")", html(table.id)) : "");
  std::string box = "<div class=\"table-box\"><table><thead><tr>";
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    if (shown(table, c))
      box += (numeric(table, c) ? "<th class=\"num\">" : "<th>") + html(header_text(table, c)) +
             "</th>";
  box += "</tr></thead><tbody>";
  std::vector<std::string> footnotes;  // distinct long texts, in order
  // The link to the footnote of `note`, numbered in order of first use.
  const auto footnote = [&](const std::string& note, const std::string& text) {
    auto at = std::find(footnotes.begin(), footnotes.end(), note);
    if (at == footnotes.end()) at = footnotes.insert(at, note);
    return fmt::format(R"(<a href="#{}-note-{}">{}{}</a>)", html(table.id),
                       at - footnotes.begin() + 1, text, at - footnotes.begin() + 1);
  };
  for (std::size_t r = 0; r < table.cells.size(); ++r) {
    const auto& row = table.cells[r];
    box += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (!shown(table, c)) continue;
      const std::string& cell = row[c];
      const std::string* note = r < table.footnotes.size() && c < table.footnotes[r].size() &&
                                        !table.footnotes[r][c].empty()
                                    ? &table.footnotes[r][c]
                                    : nullptr;
      if (numeric(table, c)) {
        box += "<td class=\"num\">" + numeric_cell_html(cell) +
               (note ? "<sup>" + footnote(*note, "") + "</sup>" : std::string()) + "</td>";
      } else if (cell.size() > kFootnoteChars) {
        box += "<td>" + footnote(cell, "note ") + "</td>";
      } else {
        // A text of some length keeps a column wide enough to read it in two lines or so.
        box += (cell.size() > kLongCellChars ? "<td class=\"long\">" : "<td>") + html(cell) +
               "</td>";
      }
    }
    box += "</tr>";
  }
  box += "</tbody></table></div>";
  if (!footnotes.empty()) {
    box += "<ol class=\"footnotes\">";
    for (std::size_t i = 0; i < footnotes.size(); ++i)
      box += fmt::format(R"(<li id="{}-note-{}">{}</li>)", html(table.id), i + 1, html(footnotes[i]));
    box += "</ol>";
  }
  if (table.folded)
    return s + fmt::format("<details><summary>{} rows</summary>{}</details>", table.cells.size(),
                           box);
  return s + box;
}

/// The exported values: `raw` when it has the table's shape, else the shown cells.
const std::vector<std::vector<std::string>>& exported(const ReportTable& table) {
  return table.raw.size() == table.cells.size() ? table.raw : table.cells;
}

std::string render_figure(const Figure& figure) {
  std::string s = "<figure class=\"figure\">";
  if (!figure.heading.empty()) s += "<h3>" + html(figure.heading) + "</h3>";
  if (!figure.verdict.empty()) s += "<p class=\"verdict\">" + html(figure.verdict) + "</p>";
  if (!figure.beside.empty()) s += "<div class=\"charts\">";
  if (!figure.chart.empty()) s += "<div class=\"chart-box\">" + figure.chart + "</div>";  // SVG
  for (const auto& chart : figure.beside) s += "<div class=\"chart-box\">" + chart + "</div>";
  if (!figure.beside.empty()) s += "</div>";
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
      for (const auto& chart : section.charts)
        s += "<div class=\"chart-box\">" + chart + "</div>";  // already SVG, escaped inside
      s += "</div>";
    }
    for (const auto& table : section.tables) s += render_table(table);
    for (const auto& figure : section.figures) s += render_figure(figure);
    s += "</section>";
  }
  return s + "</main></body></html>\n";
}

}  // namespace hetscale::report
