// report_page_check PAGE --max-height PX [--width PX] [--experiment NAME ...]: the browser
// checks of a report page (page_geometry.hpp), for scripts that have a report but no test
// of their own to run them in (tests/integration/study/check_study.sh). Prints the page's
// measurements and every failure; exits 1 when there is one, 2 on bad arguments or when
// Chromium cannot measure the page.
#include <iostream>
#include <string>
#include <vector>

#include "page_geometry.hpp"

int main(int argc, char** argv) {
  std::string page;
  std::vector<std::string> experiments;
  double max_height = 0;
  int width = 1280;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool value = i + 1 < argc;
    if (arg == "--experiment" && value) {
      experiments.push_back(argv[++i]);
    } else if (arg == "--max-height" && value) {
      max_height = std::stod(argv[++i]);
    } else if (arg == "--width" && value) {
      width = std::stoi(argv[++i]);
    } else if (page.empty() && !arg.starts_with("-")) {
      page = arg;
    } else {
      std::cerr << "usage: report_page_check PAGE --max-height PX [--width PX] [--experiment NAME ...]\n";
      return 2;
    }
  }
  if (page.empty() || max_height <= 0) {
    std::cerr << "usage: report_page_check PAGE --max-height PX [--width PX] [--experiment NAME ...]\n";
    return 2;
  }
  try {
    const std::filesystem::path work = std::filesystem::path(page).parent_path() / "page-check";
    const auto geometry = hetscale::test::measure_page(page, work, width);
    std::filesystem::remove_all(work);
    std::cout << "report_page_check: " << page << " at " << geometry.width << " px: "
              << geometry.page_height << " px tall, " << geometry.sections << " sections, "
              << geometry.charts << " charts, " << geometry.labels << " labels\n";
    const auto failures = hetscale::test::page_failures(geometry, experiments, max_height);
    for (const auto& f : failures) std::cout << "report_page_check: FAILED: " << f << '\n';
    return failures.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "report_page_check: " << e.what() << '\n';
    return 2;
  }
}
