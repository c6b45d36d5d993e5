#include "hetscale/base/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test: CTest may run the cases in parallel processes.
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("atomic-file-test-") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesLeavingNoTemporary) {
  const fs::path file = dir_ / "sub" / "out.txt";  // parents are created
  write_file_atomically(file, "first\n");
  EXPECT_EQ(read(file), "first\n");
  write_file_atomically(file, std::string(100000, 'x'));
  EXPECT_EQ(read(file), std::string(100000, 'x'));
  EXPECT_EQ((fs::status(file).permissions() & fs::perms::all),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(AtomicFile, FailureNamesTheFileAndKeepsTheOldOne) {
  const fs::path file = dir_ / "taken";
  fs::create_directories(file / "inner");  // a non-empty directory cannot be renamed over
  try {
    write_file_atomically(file, "text");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + file.string() + ": Is a directory");
  }
  EXPECT_TRUE(fs::is_directory(file / "inner"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1u);  // the temporary is gone
}

TEST_F(AtomicFile, AReaderHoldingTheOldFileKeepsReadingItWhole) {
  const fs::path file = dir_ / "n[1-2].toml";
  write_file_atomically(file, "old\n");
  std::ifstream reader(file, std::ios::binary);  // opened before the replacement
  write_file_atomically(file, "new\n");
  std::string line;
  std::getline(reader, line);
  EXPECT_EQ(line, "old");  // the old file, never a mix
  EXPECT_EQ(read(file), "new\n");
}

TEST_F(AtomicFile, TakesTheModeGiven) {
  const fs::path file = dir_ / "cache";
  write_file_atomically(file, "x", 0600);
  EXPECT_EQ((fs::status(file).permissions() & fs::perms::all),
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(AtomicFile, MovesAFinishedFileIntoPlace) {
  const fs::path partial = dir_ / ".run.partial";
  const fs::path final_path = dir_ / "run.jsonl";
  write_file_atomically(final_path, "old\n");
  write_file_atomically(partial, "new\n");
  move_file_into_place(partial, final_path);
  EXPECT_EQ(read(final_path), "new\n");
  EXPECT_FALSE(fs::exists(partial));
}

TEST_F(AtomicFile, AFailedMoveNamesTheTargetAndKeepsBoth) {
  const fs::path partial = dir_ / ".run.partial";
  const fs::path taken = dir_ / "taken";
  write_file_atomically(partial, "new\n");
  fs::create_directories(taken / "inner");
  try {
    move_file_into_place(partial, taken);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + taken.string() + ": Is a directory");
  }
  EXPECT_EQ(read(partial), "new\n");
  EXPECT_TRUE(fs::is_directory(taken / "inner"));
}

}  // namespace
}  // namespace hetscale
