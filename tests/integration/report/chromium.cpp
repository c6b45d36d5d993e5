#include "chromium.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hetscale::test {
namespace {

namespace fs = std::filesystem;

/// Flags for a quiet, isolated browser: its own profile, no background services.
std::vector<std::string> chromium_command(const fs::path& work_dir) {
  return {"chromium",
          "--headless",
          "--disable-gpu",
          "--no-sandbox",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--user-data-dir=" + (work_dir / "profile").string()};
}

std::string file_url(const fs::path& page) {
  return "file://" + fs::absolute(page).string();
}

/// Chromium logs every console message as "...:INFO:CONSOLE(...)] "text", source: ...".
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  for (const auto& line : split_lines(log))
    if (line.find(":CONSOLE") != std::string::npos) out.push_back(line);
  return out;
}

/// URL requests started on behalf of a file:// page (its network isolation key is
/// file://), other than file: and data: URLs. The browser's own background requests
/// have other keys.
std::vector<std::string> page_requests(const fs::path& net_log) {
  std::ifstream in(net_log);
  if (!in) throw std::runtime_error("chromium wrote no network log at " + net_log.string());
  const auto log = nlohmann::json::parse(in);
  const int start_job = log.at("constants").at("logEventTypes").at("URL_REQUEST_START_JOB");
  std::vector<std::string> out;
  for (const auto& event : log.at("events")) {
    if (event.value("type", -1) != start_job || !event.contains("params")) continue;
    const auto& p = event["params"];
    const std::string url = p.value("url", "");
    const std::string key = p.value("network_isolation_key", "");
    if (key.rfind("file://", 0) == 0 && url.rfind("file:", 0) != 0 && url.rfind("data:", 0) != 0)
      out.push_back(url);
  }
  return out;
}

}  // namespace

PageLoad load_page(const fs::path& page, const fs::path& work_dir,
                   const std::vector<std::string>& flags) {
  fs::create_directories(work_dir);
  const fs::path net_log = work_dir / "netlog.json";
  auto argv = chromium_command(work_dir);
  for (const char* flag : {"--enable-logging=stderr", "--v=0", "--dump-dom"})
    argv.emplace_back(flag);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("--log-net-log=" + net_log.string());
  argv.push_back(file_url(page));
  PageLoad load;
  load.run = run_command(argv, std::chrono::seconds(90));
  if (!load.run.ok()) throw std::runtime_error("chromium failed: " + load.run.describe());
  load.dom = load.run.out;
  load.console = console_lines(load.run.err);
  load.network_urls = page_requests(net_log);
  return load;
}

CommandResult screenshot(const fs::path& page, const fs::path& png, const fs::path& work_dir,
                         int width, int height) {
  fs::create_directories(work_dir);
  auto argv = chromium_command(work_dir);
  argv.push_back("--screenshot=" + png.string());
  argv.push_back("--window-size=" + std::to_string(width) + "," + std::to_string(height));
  argv.push_back(file_url(page));
  return run_command(argv, std::chrono::seconds(90));
}

std::vector<std::string> svg_elements(const std::string& dom) {
  std::vector<std::string> out;
  for (auto at = dom.find("<svg"); at != std::string::npos; at = dom.find("<svg", at + 1)) {
    const auto end = dom.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(dom.substr(at, end + 6 - at));
    at = end;
  }
  return out;
}

}  // namespace hetscale::test
