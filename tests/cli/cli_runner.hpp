// Runs the hetscale CLI in-process and captures what it prints.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace hetscale::cli::testing {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline Result run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "hetscale");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  Result result;
  result.code = run(static_cast<int>(argv.size()), argv.data(), out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

/// run_cli under the name the integration tests' command lines read best with.
inline Result hetscale(std::vector<std::string> args) {
  return run_cli(std::move(args));
}

/// A file's whole content ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string site_config(const std::string& name) {
  return std::string(HETSCALE_SOURCE_DIR) + "/site-configs/" + name;
}

}  // namespace hetscale::cli::testing
