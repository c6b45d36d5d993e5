#include "hetscale/jobgen/measurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetscale/error.hpp"
#include "hetscale/units.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;

double number(const nlohmann::json& record, const nlohmann::json::json_pointer& field) {
  if (!record.contains(field) || !record.at(field).is_number())
    throw Error(fmt::format("field '{}' must be a number", field.to_string().substr(1)));
  return record.at(field).get<double>();
}

// One record's point, or nothing when it belongs to another experiment.
std::optional<std::pair<std::size_t, EfficiencyPoint>> point_of(const nlohmann::json& record, const Study& study) {
  if (!record.is_object()) throw Error("a run record must be a JSON object");
  if (record.value("experiment", std::string()) != study.spec.name) return std::nullopt;
  const auto set_index = static_cast<std::size_t>(number(record, "/machine_set"_json_pointer));
  const auto set = std::find_if(study.sets.begin(), study.sets.end(),
                                [&](const StudySet& s) { return s.set.index == set_index; });
  if (set == study.sets.end()) throw Error(fmt::format("machine set {} is not in the plan", set_index));
  const double parameter = number(record, nlohmann::json::json_pointer("/parameters/" + study.spec.parameter.name));
  const double work = number(record, "/work"_json_pointer);
  const double seconds = number(record, "/wall_seconds"_json_pointer);
  double speed = record.contains("marked_speed") && record["marked_speed"].is_number() ? record["marked_speed"].get<double>() : 0;
  if (speed <= 0) speed = set->set.marked_speed;
  if (work <= 0 || seconds <= 0) throw Error("work and wall_seconds must be positive");
  const double efficiency = work / (seconds * to_base_speed(speed, study.site.speed_unit));
  return std::pair{set_index, EfficiencyPoint{parameter, efficiency}};
}

}  // namespace

std::map<std::size_t, std::vector<EfficiencyPoint>> read_measurements(const fs::path& records_dir, const Study& study) {
  std::vector<fs::path> files;
  if (fs::is_directory(records_dir))
    for (const auto& entry : fs::directory_iterator(records_dir))
      if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // a stable order of points
  std::map<std::size_t, std::vector<EfficiencyPoint>> out;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::size_t line_number = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_number;
      if (line.empty()) continue;
      try {
        if (auto point = point_of(nlohmann::json::parse(line), study)) out[point->first].push_back(point->second);
      } catch (const std::exception& e) {
        throw Error(fmt::format("{}:{}: {}", file.string(), line_number, e.what()));
      }
    }
  }
  return out;
}

}  // namespace hetscale::jobgen
