#include "report_file.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/collector/report_views.hpp"
#include "hetscale/collector/session.hpp"
#include "html_report.hpp"
#include "report_sections.hpp"

namespace hetscale::report {
namespace {

std::string subtitle(const ReportData& data) {
  std::vector<std::string> names;
  for (const auto& e : data.experiments) {
    if (e.name.empty()) continue;
    names.push_back(shown_name(e));
    for (const auto& pair : data.twins)
      if (pair.measured == names.back()) names.back() += " (twin " + shown_name(pair.twin) + ")";
  }
  const std::tm now = fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
  return fmt::format("experiments: {}; generated {:%Y-%m-%d %H:%M:%S} UTC",
                     names.empty() ? std::string("none with data") : fmt::format("{}", fmt::join(names, ", ")), now);
}

}  // namespace

ReportResult write_report(const ReportOptions& options) {
  collector::Session session(options.db, {});
  const ReportData data =  // every view as of one moment
      collector::read_report_data(session.connection(), options.experiments, options.twins);
  const Report page = build_report(data, options.title, subtitle(data));
  ReportResult result{std::filesystem::absolute(options.output_dir / "index.html")};
  write_file_atomically(result.file, render_html(page));  // readers never see half a report
  return result;
}

}  // namespace hetscale::report
