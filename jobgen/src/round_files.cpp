#include "hetscale/jobgen/round_files.hpp"

#include <fmt/format.h>

#include <random>

#include "hetscale/base/atomic_file.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/base/redaction.hpp"

namespace hetscale::jobgen {
namespace fs = std::filesystem;

GeneratedFile spec_copy(fs::path path, const std::string& text) {
  return {std::move(path), remove_connection_passwords(text), false, true};
}

std::vector<GeneratedFile> round_files(const Round& round, const RenderOptions& options, const std::string& created) {
  std::vector<GeneratedFile> files;
  for (const RoundSet& set : round.sets) {
    if (set.parameter_values.empty()) continue;  // a set without jobs (refinement)
    files.push_back({set_script_name(set), render_set_script(round, set, options), true});
    if (!set.uniform_tasks()) files.push_back({host_file_name(set), render_host_file(set), false});
  }
  files.push_back({"submit.sh", render_submit_script(round), true});
  files.push_back({"plan.json", to_json(plan_of_round(round, created)).dump(2) + "\n", false});
  return files;
}

namespace {

// A fresh sibling of `dir` to write the round into, so that the final rename stays on one
// file system.
fs::path staging_directory(const fs::path& dir) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = dir.parent_path() / fmt::format(".{}.jobgen-{:08x}", dir.filename().string(), random());
    if (fs::create_directory(candidate)) return candidate;
  }
  throw Error(fmt::format("cannot create a temporary directory next to '{}'", dir.string()));
}

}  // namespace

void write_round_directory(const fs::path& target, const std::vector<GeneratedFile>& files) {
  const fs::path dir = fs::absolute(target).lexically_normal();
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    throw Error(fmt::format("'{}' exists and is not an empty directory; choose a new output directory",
                            target.string()));
  fs::create_directories(dir.parent_path());
  const fs::path staging = staging_directory(dir);
  try {
    for (const GeneratedFile& file : files)
      write_file_atomically(staging / file.path, file.content, file.executable ? 0755 : (file.settings ? 0600 : 0644));
    fs::create_directory(staging / "records");
    fs::create_directory(staging / "logs");
    fs::permissions(staging, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
    // The whole round appears at once: rename(2) of a directory replaces an empty one
    // atomically (files are replaced one by one with write_file_atomically instead).
    fs::rename(staging, dir);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(staging, ec);
    throw Error(fmt::format("cannot write the study into '{}': {}", target.string(), e.code().message()));
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
}

}  // namespace hetscale::jobgen
