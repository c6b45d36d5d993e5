// Run records written as JSON text for the tests (the writer, to_json, belongs to the
// kernels; the collector must read what is in the file).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hetscale::test {

/// A valid record of `ranks` ranks on hosts n1..n<ranks>, weights equal, each rank taking
/// the wall time; `serial` makes the record unique (Slurm array task id).
nlohmann::json record_json(const std::string& experiment, double n, int set_index, int repetition,
                           double work, double seconds, double marked_speed, int ranks = 8,
                           int serial = 0);

/// Writes one line per record.
void write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines);
std::vector<std::string> dump_all(const std::vector<nlohmann::json>& records);

}  // namespace hetscale::test
