// The geometry of a report page as Chromium lays it out: a copy of the page with a
// measuring script is opened headless at a given width (--dump-dom), and the script writes
// what it measured into the page, where load_page reads it. The report itself carries no
// script; the copy does.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hetscale::test {

struct PageGeometry {
  int width = 0;             // the window's width, px
  double page_height = 0;    // the document's height, px
  int sections = 0;          // <section>s measured
  int charts = 0;            // <svg>s measured
  int labels = 0;            // SVG <text> labels measured
  std::string summary_text;  // the text of <section id="summary">; empty when there is none
  std::vector<std::string> section_ids;
  /// Elements reaching past their section's box (or the page) outside a box that scrolls,
  /// one line each: section, element, width.
  std::vector<std::string> too_wide;
  /// Pairs of SVG text labels whose boxes (rotated as drawn) overlap.
  std::vector<std::string> overlapping;
  /// SVG text labels reaching outside their chart.
  std::vector<std::string> clipped;
  /// Tables wider than their box, which scrolls sideways, one line each: the table's id,
  /// its width and the box's.
  std::vector<std::string> scrolling;
};

/// Measures `page` at `width` px with Chromium; `work_dir` holds the copy and the
/// browser's profile. Throws std::runtime_error when Chromium fails or writes nothing.
PageGeometry measure_page(const std::filesystem::path& page, const std::filesystem::path& work_dir,
                          int width = 1280);

/// What is wrong with the page: a summary missing or not naming each of `experiments`,
/// elements too wide, overlapping or clipped labels, a page taller than `max_height` px.
std::vector<std::string> page_failures(const PageGeometry& geometry,
                                       const std::vector<std::string>& experiments,
                                       double max_height);

/// A copy of `page` that shows only the section `id` (no header, no navigation), for a
/// screenshot of it.
void write_section_page(const std::filesystem::path& page, const std::string& id,
                        const std::filesystem::path& copy);

}  // namespace hetscale::test
