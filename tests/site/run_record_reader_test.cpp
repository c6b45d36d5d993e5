#include "hetscale/site/run_record_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace hetscale {
namespace {

std::string record_line(int n) {
  return R"({"schema":1,"code":"mm","workload":"2*N^3","parameters":{"N":)" + std::to_string(n) +
         R"(},"work":1e9,"wall_seconds":1.5,"ranks":[{"rank":0,"host":"n1","weight":1,"wall_seconds":1.5}]})";
}

TEST(ReadRunRecords, ReadsLinesAndSkipsBlankOnes) {
  std::istringstream in(record_line(100) + "\n\n  \n" + record_line(200) + "\n");
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::fail);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[0].line, 1u);
  EXPECT_EQ(file.records[1].line, 4u);
  EXPECT_EQ(file.records[1].record.parameters.at("N"), 200);
  EXPECT_TRUE(file.rejected.empty());
}

TEST(ReadRunRecords, NamesFileAndLineOfACorruptLine) {
  std::istringstream in(record_line(1) + "\n" + record_line(2) + "\n{\"schema\":1,\"co\n" +
                        record_line(3) + "\n");
  try {
    read_run_records(in, "runs.jsonl", OnInvalid::fail);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, "runs.jsonl");
    EXPECT_EQ(e.where().line, 3u);
    EXPECT_STREQ(e.what(),
                 "runs.jsonl:3:16: invalid JSON: syntax error while parsing object key - invalid "
                 "string: missing closing quote; last read: '\"co'; expected string literal");
  }
}

TEST(ReadRunRecords, NamesFileLineAndFieldOfAnInvalidRecord) {
  std::string bad = record_line(2);
  bad.replace(bad.find("\"wall_seconds\":1.5,"), 19, "\"wall_seconds\":-1,");
  std::istringstream in(record_line(1) + "\n" + bad + "\n");
  try {
    read_run_records(in, "runs.jsonl", OnInvalid::fail);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "runs.jsonl:2: field 'wall_seconds' must be a positive number");
  }
}

TEST(ReadRunRecords, SetsInvalidLinesAsideWhenSkipping) {
  std::istringstream in(record_line(1) + "\nnot json\n" + record_line(3) + "\n");
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::skip);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[1].line, 3u);
  ASSERT_EQ(file.rejected.size(), 1u);
  EXPECT_EQ(file.rejected[0].where.str(), "runs.jsonl:2:2");
  EXPECT_EQ(file.rejected[0].text, "not json");
  EXPECT_EQ(file.rejected[0].message,
            "invalid JSON: syntax error while parsing value - invalid literal; last read: 'no'");
}

TEST(ReadRunRecords, RefusesALineNestedTooDeeplyBeforeParsingIt) {
  // 100,000 levels: a parser, or a message showing the value, would exhaust the stack.
  const std::string deep = R"({"schema":)" + std::string(100000, '[');
  {
    std::istringstream in(record_line(1) + "\n" + deep + "\n" + record_line(3) + "\n");
    try {
      read_run_records(in, "runs.jsonl", OnInvalid::fail);
      FAIL() << "no error";
    } catch (const ConfigError& e) {
      // '{' is level 1 at column 1; the 64th '[' (column 74) opens level 65.
      EXPECT_STREQ(e.what(), "runs.jsonl:2:74: invalid JSON: nesting deeper than 64");
    }
  }
  std::istringstream in(record_line(1) + "\n" + deep + "\n" + record_line(3) + "\n");
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::skip);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[1].line, 3u);
  ASSERT_EQ(file.rejected.size(), 1u);
  EXPECT_EQ(file.rejected[0].where.str(), "runs.jsonl:2:74");
  EXPECT_EQ(file.rejected[0].message, "invalid JSON: nesting deeper than 64");
}

TEST(ReadRunRecords, ShowsAWrongSchemaByItsKindNotWhole) {
  // A deep value under the limit is parsed; the message names its kind, not its text.
  std::string line = record_line(1);
  line.replace(line.find("\"schema\":1"), 10, "\"schema\":" + std::string(60, '[') + std::string(60, ']'));
  std::istringstream in(line + "\n");
  try {
    read_run_records(in, "runs.jsonl", OnInvalid::fail);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "runs.jsonl:1: field 'schema' must be 1 (got a list)");
  }
}

TEST(ReadRunRecords, SetsANumberBeyondADoubleAside) {
  // nlohmann reports it as out_of_range, not as a parse error (found by fuzz/run_record).
  std::string huge = record_line(2);
  huge.replace(huge.find("1e9"), 3, "1e400");
  std::istringstream in(record_line(1) + "\n" + huge + "\n");
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::skip);
  ASSERT_EQ(file.records.size(), 1u);
  ASSERT_EQ(file.rejected.size(), 1u);
  EXPECT_EQ(file.rejected[0].where.str(), "runs.jsonl:2");
  EXPECT_EQ(file.rejected[0].message, "invalid JSON: number overflow parsing '1e400'");
}

TEST(ReadRunRecords, ReportsAnUnreadableFile) {
  try {
    read_run_records(std::filesystem::path("/nonexistent/runs.jsonl"), OnInvalid::fail);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/runs.jsonl: cannot read");
  }
}

TEST(ReadRunRecords, HoldsBackAnUnterminatedLastLine) {
  const std::string complete = record_line(1) + "\n" + record_line(2) + "\n";
  const std::string partial = record_line(3).substr(0, 40);  // a writer still writing
  std::istringstream in(complete + partial);
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::fail);
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.held_back_line, 3u);
  EXPECT_TRUE(file.rejected.empty());

  // Complete, even valid, JSON without its '\n' is still held back: more may follow.
  std::istringstream whole_but_unterminated(complete + record_line(3));
  const RunRecordFile again =
      read_run_records(whole_but_unterminated, "runs.jsonl", OnInvalid::skip);
  EXPECT_EQ(again.records.size(), 2u);
  EXPECT_EQ(again.held_back_line, 3u);
  EXPECT_TRUE(again.rejected.empty());

  // Once the line ends, it is read.
  std::istringstream finished(complete + record_line(3) + "\n");
  const RunRecordFile done = read_run_records(finished, "runs.jsonl", OnInvalid::fail);
  EXPECT_EQ(done.records.size(), 3u);
  EXPECT_EQ(done.held_back_line, 0u);
}

TEST(ReadRunRecords, AnUnterminatedBlankLastLineIsNothingToHoldBack) {
  std::istringstream in(record_line(1) + "\n  ");
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::fail);
  EXPECT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.held_back_line, 0u);
}

// An input of several MiB is parsed by several threads (one per core), each a share of the
// lines: the records come out in line order, and the first invalid line is the one named,
// whichever share it is in.
std::string many_lines(int count, const std::vector<int>& bad) {
  std::string text;
  for (int n = 1; n <= count; ++n)
    text += (std::find(bad.begin(), bad.end(), n) != bad.end() ? std::string("not json")
                                                                : record_line(n)) + "\n";
  return text;
}

TEST(ReadRunRecords, ALargeInputReadsInLineOrderWhateverTheThreads) {
  constexpr int count = 70000;  // about 10 MiB
  std::istringstream in(many_lines(count, {5, 60000}));
  const RunRecordFile file = read_run_records(in, "runs.jsonl", OnInvalid::skip);
  ASSERT_EQ(file.records.size(), std::size_t{count - 2});
  std::uint32_t expected = 0;
  for (const NumberedRunRecord& r : file.records) {
    ++expected;
    if (expected == 5 || expected == 60000) ++expected;
    ASSERT_EQ(r.line, expected);
    ASSERT_EQ(r.record.parameters.at("N"), double(expected));
  }
  ASSERT_EQ(file.rejected.size(), 2u);
  EXPECT_EQ(file.rejected[0].where.line, 5u);
  EXPECT_EQ(file.rejected[1].where.line, 60000u);
}

TEST(ReadRunRecords, ALargeInputNamesItsFirstInvalidLine) {
  for (const std::vector<int>& bad : {std::vector<int>{60000}, std::vector<int>{7, 60000}}) {
    std::istringstream in(many_lines(70000, bad));
    try {
      read_run_records(in, "runs.jsonl", OnInvalid::fail);
      FAIL() << "no error";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.where().line, std::uint32_t(bad.front()));
    }
  }
}

}  // namespace
}  // namespace hetscale
