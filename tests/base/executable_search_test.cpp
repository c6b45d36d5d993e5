#include "hetscale/base/executable_search.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace hetscale {
namespace {

namespace fs = std::filesystem;

class FindOnPath : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("find-on-path-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    for (const char* d : {"a", "b", "c", "rel/bin"}) fs::create_directories(root_ / d);
    program(root_ / "b/tool", true);
    program(root_ / "c/tool", true);
    program(root_ / "a/plain", false);           // not executable
    fs::create_directories(root_ / "a/tool");    // a directory is no program
    program(root_ / "rel/bin/mine", true);
    program(root_ / "here", true);
  }
  void TearDown() override { fs::remove_all(root_); }
  static void program(const fs::path& path, bool executable) {
    std::ofstream(path) << "#!/bin/sh\n";
    fs::permissions(path, executable ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write);
  }
  fs::path root_;
};

TEST_F(FindOnPath, TakesTheFirstExecutableFileInOrder) {
  const std::string list = (root_ / "a").string() + ":" + (root_ / "b").string() + ":" + (root_ / "c").string();
  EXPECT_EQ(find_on_path("tool", list, "/nowhere"), root_ / "b/tool");
  EXPECT_EQ(find_on_path("plain", list, "/nowhere"), std::nullopt);
  EXPECT_EQ(find_on_path("missing", list, "/nowhere"), std::nullopt);
}

TEST_F(FindOnPath, EmptyAndRelativeEntriesAreUnderTheBase) {
  EXPECT_EQ(find_on_path("mine", "/nowhere:rel/bin", root_), root_ / "rel/bin/mine");
  EXPECT_EQ(find_on_path("here", "/nowhere::", root_), root_ / "here");
  EXPECT_EQ(find_on_path("here", "/nowhere", root_), std::nullopt);
}

}  // namespace
}  // namespace hetscale
