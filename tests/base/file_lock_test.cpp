#include "hetscale/base/file_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

TEST(ExclusiveFileLock, ASecondHolderIsRefusedNamingTheFirstUntilItLetsGo) {
  const fs::path dir = fs::temp_directory_path() / ("hetscale-lock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "study.lock";
  std::optional<ExclusiveFileLock> first;
  first.emplace(path, "a study step");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  try {
    ExclusiveFileLock second(path, "a study step");
    FAIL() << "two holders of one lock";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "a study step is already running (process " + std::to_string(::getpid()) +
                                         ", lock " + path.string() + ")");
  }
  first.reset();
  EXPECT_NO_THROW(ExclusiveFileLock(path, "a study step"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetscale
