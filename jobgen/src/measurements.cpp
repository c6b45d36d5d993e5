#include "hetscale/jobgen/measurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetscale/base/error.hpp"
#include "hetscale/base/json_depth.hpp"
#include "hetscale/model/isospeed.hpp"
#include "hetscale/model/units.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;

double number(const nlohmann::json& record, const nlohmann::json::json_pointer& field) {
  if (!record.contains(field) || !record.at(field).is_number())
    throw Error(fmt::format("field '{}' must be a number", field.to_string().substr(1)));
  return record.at(field).get<double>();
}

// One record's run, or nothing when it belongs to another experiment.
std::optional<MeasuredRun> run_of(const nlohmann::json& record, const Round& round) {
  if (!record.is_object()) throw Error("a run record must be a JSON object");
  if (record.value("experiment", std::string()) != round.spec.name) return std::nullopt;
  MeasuredRun run;
  run.set_index = static_cast<std::size_t>(number(record, "/machine_set"_json_pointer));
  run.parameter = number(record, nlohmann::json::json_pointer("/parameters/" + round.spec.parameter.name));
  run.work = number(record, "/work"_json_pointer);
  run.wall_seconds = number(record, "/wall_seconds"_json_pointer);
  if (record.contains("marked_speed") && record["marked_speed"].is_number())
    run.marked_speed = record["marked_speed"].get<double>();
  if (record.contains("repetition") && record["repetition"].is_number_unsigned())
    run.repetition = record["repetition"].get<std::uint32_t>();
  return run;
}

const RoundSet* find_set(const Round& round, std::size_t index) {
  const auto set = std::find_if(round.sets.begin(), round.sets.end(),
                                [&](const RoundSet& s) { return s.set.index == index; });
  return set == round.sets.end() ? nullptr : &*set;
}

EfficiencyPoint point_of(const MeasuredRun& run, const Round& round) {
  const RoundSet* set = find_set(round, run.set_index);
  if (set == nullptr) throw Error(fmt::format("machine set {} is not in the plan", run.set_index));
  if (run.work <= 0 || run.wall_seconds <= 0) throw Error("work and wall_seconds must be positive");
  const double speed = run.marked_speed.value_or(0) > 0 ? *run.marked_speed : set->set.marked_speed;
  const std::string& unit = run.speed_unit.empty() ? round.site.speed_unit : run.speed_unit;
  return {run.parameter, isospeed::speed_efficiency(run.work, run.wall_seconds, to_base_speed(speed, unit))};
}

}  // namespace

std::map<std::size_t, std::vector<EfficiencyPoint>> measured_points(const std::vector<MeasuredRun>& runs,
                                                                    const Round& round) {
  std::map<std::size_t, std::vector<EfficiencyPoint>> out;
  for (const MeasuredRun& run : runs) {
    try {
      out[run.set_index].push_back(point_of(run, round));
    } catch (const std::exception& e) {
      throw Error(fmt::format("{}: {}", run.source, e.what()));
    }
  }
  return out;
}

std::map<std::size_t, std::map<double, std::uint32_t>> next_repetitions(const std::vector<MeasuredRun>& runs) {
  std::map<std::size_t, std::map<double, std::uint32_t>> out;
  for (const MeasuredRun& run : runs) {
    std::uint32_t& next = out[run.set_index][run.parameter];
    next = std::max(next, run.repetition + 1);
  }
  return out;
}

std::vector<MeasuredRun> read_record_runs(const fs::path& records_dir, const Round& round) {
  std::vector<fs::path> files;
  if (fs::is_directory(records_dir))
    for (const auto& entry : fs::directory_iterator(records_dir))
      if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // a stable order of points
  std::vector<MeasuredRun> out;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::size_t line_number = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_number;
      if (line.empty()) continue;
      const std::string source = fmt::format("{}:{}", file.string(), line_number);
      require_json_nesting_within_limit(line, file.string(), static_cast<std::uint32_t>(line_number));
      try {
        if (auto run = run_of(nlohmann::json::parse(line), round)) {
          run->source = source;
          point_of(*run, round);  // a bad record is reported with its line at once
          out.push_back(std::move(*run));
        }
      } catch (const std::exception& e) {
        throw Error(fmt::format("{}: {}", source, e.what()));
      }
    }
  }
  return out;
}

std::map<std::size_t, std::vector<EfficiencyPoint>> read_measurements(const fs::path& records_dir,
                                                                      const Round& round) {
  return measured_points(read_record_runs(records_dir, round), round);
}

}  // namespace hetscale::jobgen
