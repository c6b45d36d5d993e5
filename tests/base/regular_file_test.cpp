// read_regular_file on the kinds of path a user can name: only a regular file within the
// cap is read; FIFOs, devices, /proc and huge files are refused at once, without reading.
#include "hetscale/base/regular_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

namespace hetscale {
namespace {

std::filesystem::path scratch(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(HETSCALE_BINARY_DIR) / "regular_file_test";
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / name;
  std::filesystem::remove(path);
  return path;
}

std::string refusal(const std::filesystem::path& path, std::size_t cap = 1024) {
  try {
    read_regular_file(path, cap);
  } catch (const FileReadError& error) {
    return error.what();
  }
  return "read";
}

TEST(ReadRegularFile, ReadsARegularFileUpToTheCap) {
  std::filesystem::path path = scratch("ok.toml");
  std::ofstream(path) << std::string(1024, 'x');
  EXPECT_EQ(read_regular_file(path, 1024), std::string(1024, 'x'));
  EXPECT_EQ(refusal(path, 1023),
            "cannot read " + path.string() + ": is larger than the 1023 bytes allowed");
  std::filesystem::path empty = scratch("empty.toml");
  std::ofstream(empty).flush();
  EXPECT_EQ(read_regular_file(empty, 0), "");
}

TEST(ReadRegularFile, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(refusal("/nonexistent/x.toml"),
            "cannot read /nonexistent/x.toml: No such file or directory");
  EXPECT_EQ(refusal("/tmp"), "cannot read /tmp: is a directory, not a regular file");
  EXPECT_EQ(refusal("/dev/zero"),
            "cannot read /dev/zero: is a character device, not a regular file");
  EXPECT_EQ(FileReadError("/x", "why").reason(), "why");
}

TEST(ReadRegularFile, AFifoWithNoWriterIsRefusedWithoutWaiting) {
  std::filesystem::path fifo = scratch("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal(fifo), "cannot read " + fifo.string() + ": is a FIFO, not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ReadRegularFile, ProcIsNeverRead) {
  EXPECT_EQ(refusal("/proc/self/status"),
            "cannot read /proc/self/status: is on /proc, which is never read");
  // Also through a symbolic link from elsewhere.
  std::filesystem::path link = scratch("status-link");
  std::filesystem::create_symlink("/proc/self/status", link);
  EXPECT_EQ(refusal(link), "cannot read " + link.string() + ": is on /proc, which is never read");
}

TEST(ReadRegularFile, AHugeFileIsRefusedWithoutReadingIt) {
  std::filesystem::path big = scratch("sparse-1GiB");
  std::ofstream(big).flush();
  std::filesystem::resize_file(big, 1ull << 30);  // sparse: costs no disk
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal(big, kMaxPartitionFileBytes),
            "cannot read " + big.string() + ": is larger than the 4194304 bytes allowed");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::filesystem::remove(big);
}

}  // namespace
}  // namespace hetscale
