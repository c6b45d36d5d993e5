#include "page_geometry.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "chromium.hpp"

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

/// Measures the laid-out page and writes the measurements as JSON into
/// <pre id="hetscale-geometry">. Elements inside an SVG are the labels' business: an SVG
/// counts as one element. A label's box is its getBBox() through its screen matrix, so a
/// rotated label is a rotated box; two boxes overlap when they overlap by more than half a
/// pixel on every axis of either box (separating axes).
constexpr const char* kScript = R"JS(
(function () {
  const out = {width: window.innerWidth, sections: 0, charts: 0, labels: 0, section_ids: [],
               too_wide: [], overlapping: [], clipped: [], scrolling: [], summary_text: ''};
  const slack = 0.5;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
      ' "' + (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 50) + '"';
  const scrolls = (el, section) => {
    for (let a = el.parentElement; a && a !== section; a = a.parentElement) {
      const x = getComputedStyle(a).overflowX;
      if (x === 'auto' || x === 'scroll' || x === 'hidden') return true;
    }
    return false;
  };
  const page = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > page + slack)
    out.too_wide.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
  for (const section of document.querySelectorAll('section')) {
    out.sections++;
    out.section_ids.push(section.id);
    const box = section.getBoundingClientRect();
    const style = getComputedStyle(section);
    const left = box.left + parseFloat(style.borderLeftWidth);
    const right = box.right - parseFloat(style.borderRightWidth);
    if (box.right > page + slack) out.too_wide.push(section.id + ': the section is wider than the page');
    const named = [];  // the outermost element too wide names its contents too
    for (const el of section.querySelectorAll('*')) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
      if (named.some((n) => n.contains(el))) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if ((r.right > right + slack || r.left < left - slack) && !scrolls(el, section)) {
        out.too_wide.push(section.id + ': ' + name(el) + ' ' + Math.round(r.width) + ' px');
        named.push(el);
      }
    }
  }
  // A table wider than its box, which then scrolls sideways: named by the id of its
  // heading, or of its downloads line for a table without a title.
  for (const box of document.querySelectorAll('.table-box')) {
    if (box.scrollWidth <= box.clientWidth + slack) continue;
    const downloads = box.previousElementSibling;
    const heading = downloads && downloads.previousElementSibling;
    const id = heading && heading.tagName === 'H3' && heading.id ? heading.id : (downloads && downloads.id) || '';
    out.scrolling.push(id + ': ' + box.scrollWidth + ' px in ' + box.clientWidth + ' px');
  }
  const corners = (t) => {
    const b = t.getBBox();
    const m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
        .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const apart = (p, q) => {
    for (const poly of [p, q])
      for (let i = 0; i < 2; i++) {
        const nx = -(poly[i + 1][1] - poly[i][1]), ny = poly[i + 1][0] - poly[i][0];
        const len = Math.hypot(nx, ny) || 1;
        const proj = (r) => r.map(([x, y]) => (x * nx + y * ny) / len);
        const a = proj(p), b = proj(q);
        if (Math.max(...a) <= Math.min(...b) + slack || Math.max(...b) <= Math.min(...a) + slack)
          return true;
      }
    return false;
  };
  for (const svg of document.querySelectorAll('svg')) {
    out.charts++;
    const title = (svg.querySelector('title') || {textContent: '(untitled chart)'}).textContent;
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.getBBox().width > 0);
    const boxes = texts.map(corners);
    out.labels += texts.length;
    for (let i = 0; i < texts.length; i++) {
      const label = (t) => '"' + t.firstChild.textContent + '"';
      if (boxes[i].some(([x, y]) => x < frame.left - slack || x > frame.right + slack ||
                                   y < frame.top - slack || y > frame.bottom + slack))
        out.clipped.push(title + ': ' + label(texts[i]));
      for (let j = i + 1; j < texts.length; j++)
        if (!apart(boxes[i], boxes[j]))
          out.overlapping.push(title + ': ' + label(texts[i]) + ' and ' + label(texts[j]));
    }
  }
  const summary = document.getElementById('summary');
  out.summary_text = summary ? summary.textContent : '';
  out.page_height = document.documentElement.scrollHeight;
  const pre = document.createElement('pre');
  pre.id = 'hetscale-geometry';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
)JS";

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// `text` with `insert` before the last occurrence of `before`.
std::string inserted(std::string text, const std::string& before, const std::string& insert) {
  const auto at = text.rfind(before);
  if (at == std::string::npos) throw std::runtime_error("the page has no " + before);
  return text.insert(at, insert);
}

std::string unescaped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    for (const auto& [entity, c] : {std::pair{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'},
                                    {"&quot;", '"'}, {"&#39;", '\''}, {"&nbsp;", ' '}})
      if (text.compare(i, std::strlen(entity), entity) == 0) {
        out += c;
        i += std::strlen(entity) - 1;
        break;
      }
  }
  return out;
}

std::vector<std::string> strings(const nlohmann::json& j) {
  return j.get<std::vector<std::string>>();
}

}  // namespace

PageGeometry measure_page(const fs::path& page, const fs::path& work_dir, int width) {
  fs::create_directories(work_dir);
  const fs::path copy = work_dir / "measured.html";
  std::ofstream(copy, std::ios::binary)
      << inserted(read_text(page), "</body>", std::string("<script>") + kScript + "</script>");
  const PageLoad load = load_page(copy, work_dir, {"--window-size=" + std::to_string(width) + ",1000"});
  if (!load.console.empty()) throw std::runtime_error("console: " + load.console.front());
  const std::string open = "<pre id=\"hetscale-geometry\">";
  const auto start = load.dom.find(open);
  const auto end = load.dom.find("</pre>", start);
  if (start == std::string::npos || end == std::string::npos)
    throw std::runtime_error("the measuring script wrote nothing (" + load.run.describe() + ")");
  const auto j = nlohmann::json::parse(unescaped(load.dom.substr(start + open.size(), end - start - open.size())));
  PageGeometry g;
  g.width = j.at("width");
  g.page_height = j.at("page_height");
  g.sections = j.at("sections");
  g.charts = j.at("charts");
  g.labels = j.at("labels");
  g.summary_text = j.at("summary_text");
  g.section_ids = strings(j.at("section_ids"));
  g.too_wide = strings(j.at("too_wide"));
  g.overlapping = strings(j.at("overlapping"));
  g.clipped = strings(j.at("clipped"));
  g.scrolling = strings(j.at("scrolling"));
  return g;
}

std::vector<std::string> page_failures(const PageGeometry& g,
                                       const std::vector<std::string>& experiments,
                                       double max_height) {
  std::vector<std::string> out;
  if (g.section_ids.empty() || g.section_ids.front() != "summary")
    out.push_back("the page does not open with <section id=\"summary\">");
  for (const auto& e : experiments)
    if (g.summary_text.find(e) == std::string::npos)
      out.push_back("the summary does not name experiment " + e);
  for (const auto& w : g.too_wide) out.push_back("wider than its section: " + w);
  for (const auto& o : g.overlapping) out.push_back("labels overlap: " + o);
  for (const auto& c : g.clipped) out.push_back("label outside its chart: " + c);
  if (g.page_height > max_height)
    out.push_back(fmt::format("the page is {} px tall, more than {} px", g.page_height, max_height));
  return out;
}

void write_section_page(const fs::path& page, const std::string& id, const fs::path& copy) {
  const std::string style = fmt::format(
      "<style>header,nav{{display:none}}main>section:not(#{}){{display:none}}"
      "main>section{{margin-top:0}}</style>",
      id);
  std::ofstream(copy, std::ios::binary) << inserted(read_text(page), "</head>", style);
}

}  // namespace hetscale::test
