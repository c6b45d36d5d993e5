#include "hetscale/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "hetscale/error.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetscale-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }

  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesWholeLeavingNoTemporaryFile) {
  const fs::path file = dir_ / "site.toml";
  write_file_atomically(file, "first\n");
  EXPECT_EQ(read(file), "first\n");
  write_file_atomically(file, "second, longer\n");
  EXPECT_EQ(read(file), "second, longer\n");
  EXPECT_EQ(entries(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AtomicFile, AReaderHoldingTheOldFileKeepsReadingIt) {
  const fs::path file = dir_ / "n[1-2].toml";
  write_file_atomically(file, "old\n");
  std::ifstream reader(file, std::ios::binary);  // opened before the replacement
  write_file_atomically(file, "new\n");
  std::string line;
  std::getline(reader, line);
  EXPECT_EQ(line, "old");  // the old inode, whole; never a mix
  EXPECT_EQ(read(file), "new\n");
}

TEST_F(AtomicFile, TakesTheModeGiven) {
  const fs::path file = dir_ / "cache";
  write_file_atomically(file, "x", 0600);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(AtomicFile, AFailureLeavesTheOldFileAndNoTemporary) {
  try {
    write_file_atomically(dir_ / "missing-dir" / "site.toml", "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " +
                                         (dir_ / "missing-dir" / "site.toml").string() +
                                         ": No such file or directory");
  }
  // Renaming over a directory fails after the temporary file was written: it goes again.
  fs::create_directories(dir_ / "taken");
  EXPECT_THROW(write_file_atomically(dir_ / "taken", "x"), Error);
  EXPECT_EQ(entries(), 1u);
  EXPECT_TRUE(fs::is_directory(dir_ / "taken"));
}

}  // namespace
}  // namespace hetscale
