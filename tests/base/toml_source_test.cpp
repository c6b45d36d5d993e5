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

}  // namespace
}  // namespace hetscale
