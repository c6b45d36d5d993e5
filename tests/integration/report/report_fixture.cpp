// report_fixture --db URI --dir DIR [--screenshots DIR]: the capacity-planning fixture of
// the report tests (synthetic_study.hpp, load_capacity_study) loaded into a migrated, empty
// database, its report written to DIR/index.html, and with --screenshots, PNGs of the
// sections summary and capacity at 1280 px (report-summary.png, report-capacity.png),
// each as tall as the section. scripts/report-screenshots.sh runs it for docs/images/.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "chromium.hpp"
#include "page_geometry.hpp"
#include "synthetic_study.hpp"

namespace fs = std::filesystem;
using namespace hetscale::test;

namespace {

/// A PNG of section `id` of the page, as tall as the section at `width` px.
void section_screenshot(const fs::path& page, const std::string& id, const fs::path& png,
                        const fs::path& work, int width) {
  fs::create_directories(work);
  const fs::path copy = work / ("section-" + id + ".html");
  write_section_page(page, id, copy);
  const PageGeometry g = measure_page(copy, work / "measure", width);
  const CommandResult shot =
      screenshot(copy, png, work / "shot", width, static_cast<int>(g.page_height));
  if (!shot.ok()) throw std::runtime_error("chromium --screenshot failed: " + shot.describe());
  std::cout << "report_fixture: " << png.string() << " (section " << id << ", " << width << " x "
            << g.page_height << " px)\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string db;
  fs::path dir;
  fs::path screenshots;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--db") db = argv[i + 1];
    else if (arg == "--dir") dir = argv[i + 1];
    else if (arg == "--screenshots") screenshots = argv[i + 1];
    else db.clear();
  }
  if (db.empty() || dir.empty() || argc % 2 == 0) {
    std::cerr << "usage: report_fixture --db URI --dir DIR [--screenshots DIR]\n";
    return 2;
  }
  try {
    load_capacity_study(db, dir / "inputs");
    std::string out;
    std::string err;
    if (hetscale_cli({"report", "--db", db, "-o", (dir / "report").string(), "--title",
                      "hetscale scalability report (capacity-planning fixture)"},
                     out, err) != 0)
      throw std::runtime_error("hetscale report failed: " + err);
    const fs::path page = dir / "report" / "index.html";
    std::cout << "report_fixture: " << page.string() << '\n';
    if (!screenshots.empty()) {
      fs::create_directories(screenshots);
      for (const std::string id : {"summary", "capacity"})
        section_screenshot(page, id, screenshots / ("report-" + id + ".png"), dir / "chromium", 1280);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "report_fixture: " << e.what() << '\n';
    return 1;
  }
}
