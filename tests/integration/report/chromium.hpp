// Opening a page in real headless Chromium (Debian package `chromium`) and reporting what
// a reader would notice: console messages, network requests the page made, the DOM.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace hetscale::test {

struct PageLoad {
  CommandResult run;                      // the chromium process
  std::string dom;                        // --dump-dom
  std::vector<std::string> console;       // console messages logged by the page
  std::vector<std::string> network_urls;  // non-file, non-data URLs the page requested
};

/// Loads `page` (a local file) with --dump-dom, console logging and a network log kept in
/// `work_dir`, and `flags` (e.g. a window size). Throws std::runtime_error when chromium
/// cannot be run.
PageLoad load_page(const std::filesystem::path& page, const std::filesystem::path& work_dir,
                   const std::vector<std::string>& flags = {});

/// Saves a screenshot of `page` at the given window size; returns the chromium run.
CommandResult screenshot(const std::filesystem::path& page, const std::filesystem::path& png,
                         const std::filesystem::path& work_dir, int width, int height);

/// The <svg>...</svg> elements of a DOM, in order.
std::vector<std::string> svg_elements(const std::string& dom);

}  // namespace hetscale::test
