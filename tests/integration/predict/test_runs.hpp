// Synthetic run records for the equalize/predict tests, loaded with `hetscale collect`.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "record_text.hpp"

namespace hetscale::test {

/// A fresh directory under the temporary directory, removed at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("hetscale-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// One rank: host, weight and compute/communication seconds.
struct RankSpec {
  std::string host;
  double weight = 0;
  double compute = 0;
  double communication = 0;
};

/// A record of `ranks` (one per host here), with the run's wall time the slowest rank's.
inline nlohmann::json run_record(const std::string& experiment, double n, int set_index,
                                 int repetition, double marked_speed,
                                 const std::vector<RankSpec>& ranks, int serial) {
  double wall = 0;
  for (const auto& r : ranks) wall = std::max(wall, r.compute + r.communication);
  auto record = record_json(experiment, n, set_index, repetition, 2 * n * n * n, wall,
                            marked_speed, static_cast<int>(ranks.size()), serial);
  std::string hosts;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    auto& r = record["ranks"][i];
    r["host"] = ranks[i].host;
    r["weight"] = ranks[i].weight;
    r["marked_speed"] = marked_speed / static_cast<double>(ranks.size());
    r["compute_seconds"] = ranks[i].compute;
    r["communication_seconds"] = ranks[i].communication;
    r["wall_seconds"] = wall;
    hosts += (i ? "," : "") + ranks[i].host;
  }
  record["slurm"]["node_list"] = hosts;
  return record;
}

/// Writes the records and loads them with `hetscale collect`; returns its result.
inline cli::testing::Result collect(const std::string& uri, const std::filesystem::path& file,
                                    const std::vector<nlohmann::json>& records) {
  write_lines(file, dump_all(records));
  return cli::testing::run_cli({"collect", "--db", uri, file.string()});
}

}  // namespace hetscale::test
