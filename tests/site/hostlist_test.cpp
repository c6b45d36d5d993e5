#include "hetscale/site/hostlist.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

using ::testing::ElementsAre;

std::string joined(const std::vector<std::string>& hosts) {
  std::string out;
  for (const std::string& h : hosts) out += (out.empty() ? "" : " ") + h;
  return out;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

// "EXPR<TAB>EXPECTED" lines of a committed fixture, comments skipped.
std::vector<std::pair<std::string, std::string>> fixture_cases(const std::string& name) {
  std::ifstream in(std::string(HETSCALE_FIXTURES_DIR) + "/hostlist/" + name);
  std::vector<std::pair<std::string, std::string>> cases;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t tab = line.find('\t');
    cases.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return cases;
}

std::string error_of(std::string_view expression) {
  try {
    expand_hostlist(expression);
  } catch (const ExpressionError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExpandHostlist, RangesAndSingleNumbers) {
  EXPECT_THAT(expand_hostlist("n[1-3,7]"), ElementsAre("n1", "n2", "n3", "n7"));
}

TEST(ExpandHostlist, KeepsZeroPaddingOfTheLowerBound) {
  EXPECT_THAT(expand_hostlist("n[001-003]"), ElementsAre("n001", "n002", "n003"));
  EXPECT_THAT(expand_hostlist("n[8-10]"), ElementsAre("n8", "n9", "n10"));
  EXPECT_THAT(expand_hostlist("n[099-101]"), ElementsAre("n099", "n100", "n101"));
  EXPECT_THAT(expand_hostlist("n[1-02]"), ElementsAre("n1", "n2"));
  EXPECT_THAT(expand_hostlist("n[01-2]"), ElementsAre("n01", "n02"));
}

TEST(ExpandHostlist, SeveralTermsAtTopLevel) {
  EXPECT_THAT(expand_hostlist("a1,b[2-3],c"), ElementsAre("a1", "b2", "b3", "c"));
}

TEST(ExpandHostlist, PrefixAndSuffixAroundBrackets) {
  EXPECT_THAT(expand_hostlist("hpc-[1-4]-ib"),
              ElementsAre("hpc-1-ib", "hpc-2-ib", "hpc-3-ib", "hpc-4-ib"));
}

TEST(ExpandHostlist, SeveralBracketsMakeAProductLeftmostSlowest) {
  EXPECT_THAT(expand_hostlist("n[1-2]x[3-4]"), ElementsAre("n1x3", "n1x4", "n2x3", "n2x4"));
}

TEST(ExpandHostlist, KeepsOrderAndDuplicates) {
  EXPECT_THAT(expand_hostlist("n[3,1,1]"), ElementsAre("n3", "n1", "n1"));
}

TEST(ExpandHostlist, SaysWhereEachTermStarts) {
  std::vector<HostlistTerm> terms{{99, 99}};
  EXPECT_THAT(expand_hostlist("a1,b[2-3],c", terms), ElementsAre("a1", "b2", "b3", "c"));
  ASSERT_EQ(terms.size(), 3u);
  EXPECT_EQ(terms[0].column, 1u);
  EXPECT_EQ(terms[0].first_host, 0u);
  EXPECT_EQ(terms[1].column, 4u);
  EXPECT_EQ(terms[1].first_host, 1u);
  EXPECT_EQ(terms[2].column, 11u);
  EXPECT_EQ(terms[2].first_host, 3u);
}

TEST(ExpandHostlist, AcceptsTheCap) {
  EXPECT_EQ(expand_hostlist("n[1-1000000]").size(), 1'000'000u);
}

TEST(ExpandHostlist, MatchesScontrolOnCommittedCases) {
  auto cases = fixture_cases("cases.txt");
  ASSERT_GE(cases.size(), 30u);
  for (const auto& [expression, expected] : cases) {
    SCOPED_TRACE(expression);
    if (expected == "!invalid") {
      EXPECT_THROW(expand_hostlist(expression), ExpressionError);
    } else {
      EXPECT_EQ(joined(expand_hostlist(expression)), expected);
    }
  }
}

TEST(ExpandHostlistErrors, Brackets) {
  EXPECT_EQ(error_of("n[1-3"), "column 2: unbalanced '['");
  EXPECT_EQ(error_of("n["), "column 2: unbalanced '['");
  EXPECT_EQ(error_of("n1]"), "column 3: unbalanced ']'");
  EXPECT_EQ(error_of("n[1-2]]"), "column 7: unbalanced ']'");
  EXPECT_EQ(error_of("n[1[2]]"), "column 4: nested '['");
}

TEST(ExpandHostlistErrors, Ranges) {
  EXPECT_EQ(error_of("n[]"), "column 3: empty range");
  EXPECT_EQ(error_of("n[1,]"), "column 5: empty range");
  EXPECT_EQ(error_of("n[,1]"), "column 3: empty range");
  EXPECT_EQ(error_of("n[1-]"), "column 5: missing upper bound of range");
  EXPECT_EQ(error_of("ab[7,3-1]"), "column 6: descending range 3-1");
  EXPECT_EQ(error_of("n[-3]"), "column 3: invalid character '-' in range");
  EXPECT_EQ(error_of("n[1-2-3]"), "column 6: invalid character '-' in range");
  EXPECT_EQ(error_of("n[a-c]"), "column 3: invalid character 'a' in range");
  EXPECT_EQ(error_of("n[1x]"), "column 4: invalid character 'x' in range");
  EXPECT_EQ(error_of("n[1 ,2]"), "column 4: invalid character ' ' in range");
}

TEST(ExpandHostlistErrors, Names) {
  EXPECT_EQ(error_of(""), "column 1: empty host name");
  EXPECT_EQ(error_of(",n1"), "column 1: empty host name");
  EXPECT_EQ(error_of("n1,"), "column 4: empty host name");
  EXPECT_EQ(error_of("n1,,n2"), "column 4: empty host name");
  EXPECT_EQ(error_of("n 1"), "column 2: invalid character ' ' in host name");
  EXPECT_EQ(error_of("n1,n\"2"), "column 5: invalid character '\"' in host name");
}

TEST(ExpandHostlistErrors, AbsurdSizes) {
  EXPECT_EQ(error_of("n[1-1000001]"), "column 3: too many hosts (more than 1000000)");
  EXPECT_EQ(error_of("n[1-600000,1-600000]"), "column 2: too many hosts (more than 1000000)");
  EXPECT_EQ(error_of("a,n[1-1000]x[1-1001]"), "column 3: too many hosts (more than 1000000)");
  EXPECT_EQ(error_of("n[1-999999],m[1-2]"), "column 13: too many hosts (more than 1000000)");
  EXPECT_EQ(error_of("n[1234567890123456789]"), "column 3: number too large");
}

TEST(ExpandHostlistLimits, InputLengthBracketsAndBytesAreBoundedBeforeExpanding) {
  HostlistLimits limits;
  limits.max_length = 10;
  EXPECT_THROW(expand_hostlist("n[1-2],m[1-2]", limits), ExpressionError);
  try {
    expand_hostlist("n[1-2],m[1-2]", limits);
  } catch (const ExpressionError& e) {
    EXPECT_EQ(std::string(e.what()), "column 1: host list too long (more than 10 characters)");
  }
  // Deeply bracketed: refused at the ninth bracket, never recursed into.
  std::string deep = "n";
  for (int i = 0; i < 100000; ++i) deep += "[1]";
  EXPECT_EQ(error_of(deep), "column 26: more than 8 bracket groups in one host name");
  EXPECT_EQ(expand_hostlist("a[1]b[2]c[3]d[4]e[5]f[6]g[7]h[8]").front(), "a1b2c3d4e5f6g7h8");
  // A short expression whose names would fill gigabytes.
  std::string wide = std::string(1000, 'x') + "[1-1000]y[1-1000]";
  EXPECT_EQ(error_of(wide),
            "column 1: host names too long in total (more than 67108864 characters)");
  // The caller's own bound on hosts (the SPANK plugin passes the step's node count).
  limits = HostlistLimits{};
  limits.max_hosts = 4;
  EXPECT_EQ(expand_hostlist("n[1-2]x[1-2]", limits).size(), 4u);
  EXPECT_THROW(expand_hostlist("n[1-2]x[1-2],m1", limits), ExpressionError);
}

TEST(CompressHostlist, MergesConsecutiveNumbers) {
  std::vector<std::string> hosts{"n1", "n2", "n3", "n7"};
  EXPECT_EQ(compress_hostlist(hosts), "n[1-3,7]");
}

TEST(CompressHostlist, EmptyInputGivesEmptyExpression) {
  EXPECT_EQ(compress_hostlist({}), "");
}

TEST(CompressHostlist, KeepsOrderAndDuplicatesLikeScontrol) {
  std::vector<std::string> hosts{"n3", "n1", "n2", "n2"};
  EXPECT_EQ(compress_hostlist(hosts), "n[3,1-2,2]");
}

TEST(CompressHostlist, NumbersTooLongForSixtyFourBitsStayWhole) {
  std::vector<std::string> hosts{"n1234567890123456789", "n1234567890123456790"};
  EXPECT_EQ(compress_hostlist(hosts), "n1234567890123456789,n1234567890123456790");
}

TEST(CompressHostlist, MatchesScontrolOnCommittedCases) {
  auto cases = fixture_cases("compress.txt");
  ASSERT_GE(cases.size(), 25u);
  for (const auto& [hosts, expected] : cases) {
    SCOPED_TRACE(hosts);
    EXPECT_EQ(compress_hostlist(split(hosts, ',')), expected);
  }
}

TEST(CompressHostlist, ExpandUndoesCompress) {
  for (const auto& [hosts, expected] : fixture_cases("compress.txt")) {
    SCOPED_TRACE(hosts);
    std::vector<std::string> names = split(hosts, ',');
    EXPECT_EQ(expand_hostlist(compress_hostlist(names)), names);
  }
}

}  // namespace
}  // namespace hetscale

namespace hetscale {
namespace {

TEST(HostlistOrder, NaturalOrderComparesNumbersAsNumbers) {
  const std::vector<std::string> hosts{"n10", "n2", "hpc-65", "n1",   "hpc-0",
                                       "n02", "a",  "n1b",    "hpc-1"};
  EXPECT_EQ(sort_hostnames(hosts), (std::vector<std::string>{"a", "hpc-0", "hpc-1", "hpc-65", "n1",
                                                             "n1b", "n2", "n02", "n10"}));
  EXPECT_FALSE(natural_host_less("n1", "n1"));
  EXPECT_TRUE(natural_host_less("rack2-n9", "rack10-n1"));
  const std::vector<std::string> set{"hpc-0", "hpc-65", "hpc-1", "hpc-66"};
  EXPECT_EQ(compress_hostlist(sort_hostnames(set)), "hpc-[0-1,65-66]");
}

}  // namespace
}  // namespace hetscale
