#include "hetscale/base/toml_source.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hetscale {
namespace {

// "file:line:col: message" of what `read` throws on `text`.
template <typename Read>
std::string error_of(const std::string& text, Read read) {
  const TomlSource source(text, "t.toml");
  const toml::table root = source.parse();
  try {
    read(source, root);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// "file:line:col: message" of what parse() throws on `text`.
std::string parse_error_of(const std::string& text) {
  try {
    (void)TomlSource(text, "t.toml").parse();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// toml++ 3.3 asserts on these (a table header whose first key starts with neither a key
// character nor a quote) before its parser reports them; they are syntax errors with a place.
TEST(TomlSource, TableHeaderStartingWithoutAKeyIsASyntaxErrorWithItsPlace) {
  for (const std::string header : {"[{]", "[=]", "[.]", "[\x01]", "[[\x1b]]", "[\xc3\xa9]"}) {
    const std::string error = parse_error_of("a = 1\n" + header + "\nb = 2\n");
    EXPECT_TRUE(error.starts_with("t.toml:2:")) << header << ": " << error;
    EXPECT_NE(error.find("key"), std::string::npos) << header << ": " << error;
  }
}

// A non-ASCII character outside strings and comments: toml++ 3.3's character tables reached
// an unreachable point for characters such as U+013A (undefined behaviour; the sanitizer
// build stops there). It is a syntax error with its place; inside a string it is text.
TEST(TomlSource, NonAsciiCharacterOutsideStringsIsASyntaxErrorWithItsPlace) {
  for (const std::string text : {"[r\xc4\xba]\n", "a = 1 \xc4\xba\n", "\xc4\xba = 1\n", "a = [1, \xe2\x80\x83 2]\n"}) {
    const std::string error = parse_error_of("x = 1\n" + text);
    EXPECT_TRUE(error.starts_with("t.toml:2:")) << text << ": " << error;
  }
  EXPECT_EQ(parse_error_of("name = \"\xc4\xba\"\n# \xc4\xba\n"), "no error");
}

// The same characters inside a multi-line array are values, not a header.
TEST(TomlSource, BracketAtLineStartInsideAnArrayIsNotAHeader) {
  EXPECT_EQ(parse_error_of("a = [\n[{x = 1}],\n]\n"), "no error");
}

TEST(TomlSource, RequiredGivesTheValue) {
  const std::string text = "[a]\nname = \"x\"\n";
  const TomlSource source(text, "t.toml");
  const toml::table root = source.parse();
  EXPECT_EQ(source.required_string(*root["a"].as_table(), "name", "[a]"), "x");
}

TEST(TomlSource, MissingKeyNamesTheTableAndItsPosition) {
  EXPECT_EQ(error_of("x = 1\n[a]\nother = 2\n",
                     [](const TomlSource& s, const toml::table& root) {
                       (void)s.required(*root["a"].as_table(), "name", "[a]");
                     }),
            "t.toml:2:1: missing key 'name' in [a]");
}

TEST(TomlSource, StringMustBeANonEmptyString) {
  const auto read = [](const TomlSource& s, const toml::table& root) {
    (void)s.required_string(root, "name", "the file");
  };
  EXPECT_EQ(error_of("name = 3\n", read), "t.toml:1:8: 'name' must be a string, not an integer");
  EXPECT_EQ(error_of("\nname = ''\n", read), "t.toml:2:8: 'name' must not be empty");
}

TEST(TomlSource, StringMustBeOneLine) {
  // A line break in a name or a formula broke the comment lines of generated scripts.
  const auto read = [](const TomlSource& s, const toml::table& root) {
    (void)s.required_string(root, "name", "the file");
  };
  EXPECT_EQ(error_of("x = 1\nname = \"a\\nb\"\n", read),
            "t.toml:2:8: 'name' must be one line, without a line break");
  EXPECT_EQ(error_of("name = \"\"\"\nab\ncd\"\"\"\n", read),
            "t.toml:1:8: 'name' must be one line, without a line break");
  EXPECT_EQ(error_of("name = \"a\\rb\"\n", read), "t.toml:1:8: 'name' must be one line, without a line break");
  EXPECT_EQ(error_of("name = \"a\\u0007b\"\n", read),
            "t.toml:1:8: 'name' must not hold the control character U+0007");
  EXPECT_EQ(error_of("name = \"a\\tb\"\n", read), "no error");  // a tab breaks no line
}

}  // namespace
}  // namespace hetscale
