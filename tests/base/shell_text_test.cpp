#include "hetscale/base/shell_text.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace hetscale {
namespace {

TEST(ShellQuote, PlainWordsStayAndTheRestIsSingleQuoted) {
  EXPECT_EQ(shell_quote("/opt/hetscale/bin"), "/opt/hetscale/bin");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("a\nb"), "'a\nb'");
  EXPECT_EQ(shell_quote("$HOME;`x`"), "'$HOME;`x`'");
}

// What /bin/sh makes of `printf %s WORD`.
std::string through_the_shell(const std::string& word) {
  const std::string command = "printf %s " + word;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "<popen failed>";
  std::string out;
  std::array<char, 256> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  ::pclose(pipe);
  return out;
}

TEST(ShellQuote, EveryValueComesBackThroughTheShell) {
  for (const std::string value : {"plain", "a b", "it's", "'", "''x'", "a\nb\n", "$(touch /nonexistent)",
                                  "back\\slash", "semi;colon &", "*?[a]"}) {
    EXPECT_EQ(through_the_shell(shell_quote(value)), value) << value;
  }
}

}  // namespace
}  // namespace hetscale
