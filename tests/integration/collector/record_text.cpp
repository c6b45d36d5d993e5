#include "record_text.hpp"

#include <fstream>

namespace hetscale::test {

nlohmann::json record_json(const std::string& experiment, double n, int set_index, int repetition,
                           double work, double seconds, double marked_speed, int ranks,
                           int serial) {
  nlohmann::json rank_list = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) {
    rank_list.push_back({{"rank", r},
                         {"host", "n" + std::to_string(r + 1)},
                         {"weight", 1.0 / ranks},
                         {"marked_speed", marked_speed / ranks},
                         {"compute_seconds", seconds * 0.75},
                         {"communication_seconds", seconds * 0.25},
                         {"wall_seconds", seconds}});
  }
  return {{"schema", 1},
          {"experiment", experiment},
          {"code", "mm"},
          {"workload", "2*N^3"},
          {"parameters", {{"N", n}}},
          {"work", work},
          {"wall_seconds", seconds},
          {"marked_speed", marked_speed},
          {"speed_unit", "Mflops"},
          {"weights_source", "marked"},
          {"ranks", rank_list},
          {"slurm",
           {{"job_id", 1000 + serial},
            {"array_job_id", 999},
            {"array_task_id", serial},
            {"step_id", 0},
            {"node_list", "n[1-" + std::to_string(ranks) + "]"}}},
          {"machine_set", set_index},
          {"repetition", repetition},
          {"start_time", "2026-11-21T06:00:00Z"},
          {"end_time", "2026-11-21T06:00:10Z"},
          {"verified", true},
          {"fingerprint", {{"software", {{"hetscale", "0.1.0"}}}}}};
}

void write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  for (const std::string& line : lines) out << line << '\n';
}

std::vector<std::string> dump_all(const std::vector<nlohmann::json>& records) {
  std::vector<std::string> out;
  out.reserve(records.size());
  for (const auto& r : records) out.push_back(r.dump());
  return out;
}

}  // namespace hetscale::test
