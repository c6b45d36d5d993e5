#include "hetscale/jobgen/round_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;

class WriteRoundDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hetscale-write-round-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Entries of the parent folder: a failed write must leave no staging directory behind.
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(root_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path root_;
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(WriteRoundDirectory, WritesEveryFileWithFoldersAndExecutableScripts) {
  write_round_directory(root_ / "round",
                        {{"set0.sbatch", "#!/bin/bash\n", true}, {"hosts/set0.txt", "n1\nn1\n", false}});
  EXPECT_EQ(read(root_ / "round" / "set0.sbatch"), "#!/bin/bash\n");
  EXPECT_EQ(read(root_ / "round" / "hosts" / "set0.txt"), "n1\nn1\n");
  EXPECT_NE(fs::status(root_ / "round" / "set0.sbatch").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_EQ(fs::status(root_ / "round" / "hosts" / "set0.txt").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_TRUE(fs::is_directory(root_ / "round" / "records"));
  EXPECT_TRUE(fs::is_directory(root_ / "round" / "logs"));
  EXPECT_THAT(entries(), ::testing::ElementsAre("round"));
}

TEST_F(WriteRoundDirectory, AnEmptyDirectoryIsReplaced) {
  fs::create_directory(root_ / "round");
  write_round_directory(root_ / "round", {{"submit.sh", "#!/bin/sh\n", true}});
  EXPECT_EQ(read(root_ / "round" / "submit.sh"), "#!/bin/sh\n");
}

TEST_F(WriteRoundDirectory, ANonEmptyDirectoryIsLeftAlone) {
  fs::create_directory(root_ / "round");
  std::ofstream(root_ / "round" / "mine.txt") << "keep";
  try {
    write_round_directory(root_ / "round", {{"submit.sh", "x", true}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "'" + (root_ / "round").string() +
                  "' exists and is not an empty directory; choose a new output directory");
  }
  EXPECT_EQ(read(root_ / "round" / "mine.txt"), "keep");
  EXPECT_THAT(entries(), ::testing::ElementsAre("round"));
}

TEST_F(WriteRoundDirectory, AFailureHalfwayWritesNothing) {
  // The second file needs "a" to be a folder, but the first made it a file.
  EXPECT_THROW(write_round_directory(root_ / "round", {{"a", "x", false}, {"a/b", "y", false}}), Error);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace hetscale::jobgen
