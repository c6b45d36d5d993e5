#include "hetscale/model/workload.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

double eval(std::string_view text, const ParameterValues& values = {}) {
  return Workload::parse(text).evaluate(values);
}

// Asserts that parsing fails with exactly this column and message.
void expect_parse_error(std::string_view text, std::size_t column, const std::string& message) {
  try {
    (void)Workload::parse(text);
    ADD_FAILURE() << "no error for '" << text << "'";
  } catch (const ExpressionError& e) {
    EXPECT_EQ(e.column(), column) << text;
    EXPECT_EQ(e.message(), message) << text;
  }
}

TEST(WorkloadNumbers, AllForms) {
  EXPECT_EQ(eval("42"), 42.0);
  EXPECT_EQ(eval("2.5"), 2.5);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("3."), 3.0);
  EXPECT_EQ(eval("1e6"), 1e6);
  EXPECT_EQ(eval("2.5E-3"), 2.5e-3);
  EXPECT_EQ(eval("1e+2"), 100.0);
}

TEST(WorkloadPrecedence, MultiplicationBeforeAddition) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14.0);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20.0);
  EXPECT_EQ(eval("2 * 3 ^ 2"), 18.0);
  EXPECT_EQ(eval("12 / 2 ^ 2"), 3.0);
}

TEST(WorkloadPrecedence, PowerBindsTighterThanUnaryMinus) {
  EXPECT_EQ(eval("-N^2", {{"N", 3}}), -9.0);
  EXPECT_EQ(eval("-2^2"), -4.0);
  EXPECT_EQ(eval("(-2)^2"), 4.0);
  EXPECT_EQ(eval("2^-1"), 0.5);
  EXPECT_EQ(eval("2^-N^2", {{"N", 2}}), 1.0 / 16);
  EXPECT_EQ(eval("--3"), 3.0);
  EXPECT_EQ(eval("2*-3"), -6.0);
}

TEST(WorkloadAssociativity, LeftForArithmeticRightForPower) {
  EXPECT_EQ(eval("10 - 4 - 3"), 3.0);
  EXPECT_EQ(eval("64 / 4 / 2"), 8.0);
  EXPECT_EQ(eval("2 ^ 3 ^ 2"), 512.0);
  EXPECT_EQ(eval("N ^ 3 ^ 2", {{"N", 2}}), 512.0);
  EXPECT_EQ(eval("a - b - c", {{"a", 10}, {"b", 4}, {"c", 3}}), 3.0);
  EXPECT_EQ(eval("a / b / c", {{"a", 64}, {"b", 4}, {"c", 2}}), 8.0);
}

TEST(WorkloadPower, IntegerAndFractionalExponents) {
  EXPECT_EQ(eval("N^0", {{"N", 7}}), 1.0);
  EXPECT_EQ(eval("N^1", {{"N", 7}}), 7.0);
  EXPECT_EQ(eval("N^3", {{"N", 1200}}), 1728000000.0);
  EXPECT_EQ(eval("N^10", {{"N", 2}}), 1024.0);
  EXPECT_DOUBLE_EQ(eval("N^0.5", {{"N", 2}}), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(eval("N^-2", {{"N", 4}}), 1.0 / 16);
  EXPECT_DOUBLE_EQ(eval("N^100", {{"N", 1.01}}), std::pow(1.01, 100));
}

TEST(WorkloadFolding, ConstantsGiveTheSameAsParameters) {
  // Constant sub-expressions are folded at compile time; the same formula with the
  // constants passed as parameters runs unfolded and must agree bit for bit.
  const ParameterValues v{{"N", 1234}, {"one", 1}, {"two", 2}, {"three", 3}};
  EXPECT_EQ(eval("2/3*N^3 - 1/2*N^2", v), eval("two/three*N^3 - one/two*N^2", v));
  EXPECT_EQ(eval("(2-3)-4"), -5.0);
  EXPECT_EQ(eval("2-(3-4)"), 3.0);
  EXPECT_EQ(eval("max(2, 3) * N", v), eval("max(two, three) * N", v));
  EXPECT_EQ(eval("sqrt(2) * N", v), eval("sqrt(two) * N", v));
  EXPECT_EQ(eval("N^(1+2)", v), eval("N^three", v));
}

TEST(WorkloadFunctions, EveryFunction) {
  EXPECT_EQ(eval("lg(1024)"), 10.0);
  EXPECT_EQ(eval("log2(N)", {{"N", 8}}), 3.0);
  EXPECT_DOUBLE_EQ(eval("ln(N)", {{"N", std::exp(2.0)}}), 2.0);
  EXPECT_DOUBLE_EQ(eval("log10(N)", {{"N", 1000}}), 3.0);
  EXPECT_EQ(eval("sqrt(N)", {{"N", 144}}), 12.0);
  EXPECT_DOUBLE_EQ(eval("exp(N)", {{"N", 1}}), std::exp(1.0));
  EXPECT_EQ(eval("min(N, 3)", {{"N", 5}}), 3.0);
  EXPECT_EQ(eval("max(N, 3)", {{"N", 5}}), 5.0);
  EXPECT_EQ(eval("min(4, N, 2, 9)", {{"N", 5}}), 2.0);
  EXPECT_EQ(eval("max(4, N, 2, 9)", {{"N", 5}}), 9.0);
  EXPECT_EQ(eval("max(1, 2, 3)"), 3.0);
  EXPECT_EQ(eval("sqrt(max(N, 16)) + lg(min(N, 4))", {{"N", 100}}), 12.0);
}

TEST(WorkloadFunctions, DomainErrorsGiveNanOrInfinity) {
  EXPECT_TRUE(std::isnan(eval("lg(N)", {{"N", -1}})));
  EXPECT_EQ(eval("ln(N)", {{"N", 0}}), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(eval("sqrt(N)", {{"N", -4}})));
  EXPECT_EQ(eval("1/N", {{"N", 0}}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(eval("exp(N)", {{"N", 1000}}), std::numeric_limits<double>::infinity());
  // NaN is not hidden by min/max.
  EXPECT_TRUE(std::isnan(eval("max(sqrt(N), 5)", {{"N", -1}})));
  EXPECT_TRUE(std::isnan(eval("min(5, sqrt(N))", {{"N", -1}})));
}

TEST(WorkloadParameters, OrderOfFirstAppearance) {
  const auto w = Workload::parse("b*N + a*N^2 + b");
  EXPECT_EQ(w.parameters(), (std::vector<std::string>{"b", "N", "a"}));
  const std::vector<double> values{2, 10, 3};
  EXPECT_EQ(w.evaluate(values), 2 * 10 + 3 * 100 + 2.0);
  EXPECT_EQ(w.evaluate(ParameterValues{{"a", 3}, {"b", 2}, {"N", 10}, {"unused", 1}}), 322.0);
  EXPECT_TRUE(Workload::parse("3*4").parameters().empty());
}

TEST(WorkloadParameters, OverheadInNAndP) {
  // An overhead model T0(N, p) (docs/predict.md): p is an ordinary second parameter, and
  // lg(p) a tree's depth. At N = 310, p = 3: 0.81 + 4 * 0.1786 + 310 * 2.79 = 866.4244.
  const auto t0 = Workload::parse(
      "(0.12 + 0.23*p) + 2*(p - 1)*((0.08 + 0.00003*N) + (0.08 + 0.00003*N)) + "
      "N*(2*(0.12 + 0.23*p) + 0.39*p)");
  EXPECT_EQ(t0.parameters(), (std::vector<std::string>{"p", "N"}));
  EXPECT_NEAR(t0.evaluate(ParameterValues{{"N", 310}, {"p", 3}}), 866.4244, 1e-9);
  const std::vector<double> by_position{3, 310};
  EXPECT_EQ(t0.evaluate(by_position), t0.evaluate(ParameterValues{{"N", 310}, {"p", 3}}));
  EXPECT_EQ(eval("lg(p)*N", {{"p", 8}, {"N", 5}}), 15.0);
}

TEST(WorkloadParameters, NamesWithDigitsAndUnderscores) {
  EXPECT_EQ(eval("N_2 * n3", {{"N_2", 4}, {"n3", 5}}), 20.0);
  EXPECT_EQ(eval("_x + 1", {{"_x", 1}}), 2.0);
}

TEST(WorkloadParameters, MissingNamedValue) {
  const auto w = Workload::parse("2*N^3 + M");
  try {
    (void)w.evaluate(ParameterValues{{"N", 2}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "workload '2*N^3 + M' needs a value for parameter 'M'");
  }
}

TEST(WorkloadParameters, WrongNumberOfPositionalValues) {
  const auto w = Workload::parse("N*M");
  const std::vector<double> one{1};
  try {
    (void)w.evaluate(one);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "workload 'N*M' takes 2 parameter value(s), got 1");
  }
}

TEST(WorkloadBuiltins, MatrixMultiplication) {
  const auto w = Workload::parse("mm");
  EXPECT_EQ(w.text(), "mm");
  EXPECT_EQ(w.formula(), "2*N^3");
  EXPECT_EQ(w.parameters(), std::vector<std::string>{"N"});
  EXPECT_EQ(w.evaluate(ParameterValues{{"N", 1000}}), 2e9);
  EXPECT_EQ(w.evaluate(ParameterValues{{"N", 3}}), 54.0);
}

TEST(WorkloadBuiltins, GaussianElimination) {
  // 2/3*27 - 1/2*9 - (19/6)*3 + 3 = 18 - 4.5 - 9.5 + 3 = 7
  EXPECT_NEAR(eval("ge", {{"N", 3}}), 7.0, 1e-12);
  // N = 600: 144e6 - 180000 - 1900 + 3
  EXPECT_NEAR(eval("ge", {{"N", 600}}), 143818103.0, 1e-4);
  EXPECT_EQ(Workload::parse("ge").formula(), "2/3*N^3 - 1/2*N^2 - (3 + 1/6)*N + 3");
}

TEST(WorkloadBuiltins, BlockedLu) {
  // Only the leading term: 2/3 * 4096^3 = 45812984490.67
  EXPECT_NEAR(eval("lu", {{"N", 4096}}), 2.0 / 3.0 * 4096.0 * 4096.0 * 4096.0, 1e-3);
  EXPECT_NEAR(eval("lu", {{"N", 3}}), 18.0, 1e-12);
  EXPECT_EQ(Workload::parse("lu").formula(), "2/3*N^3");
}

TEST(WorkloadBuiltins, Convolution2d) {
  // N = 1024, lg N = 10: 66*1048576*10 + 21*1048576 + 84*1024*10
  EXPECT_EQ(eval("conv2d", {{"N", 1024}}), 692060160.0 + 22020096.0 + 860160.0);
  // N = 2: 66*4 + 21*4 + 84*2 = 516
  EXPECT_EQ(eval("conv2d", {{"N", 2}}), 516.0);
}

TEST(WorkloadBuiltins, OnlyAWholeExpressionIsABuiltin) {
  EXPECT_EQ(eval("  mm ", {{"N", 2}}), 16.0);
  // Inside a larger expression the name is an ordinary parameter.
  const auto w = Workload::parse("mm + 1");
  EXPECT_EQ(w.parameters(), std::vector<std::string>{"mm"});
  EXPECT_EQ(w.formula(), "mm + 1");
}

TEST(WorkloadCopy, CopiesAreIndependent) {
  auto a = Workload::parse("N+1");
  auto b = a;
  EXPECT_EQ(b.evaluate(ParameterValues{{"N", 1}}), 2.0);
  a = Workload::parse("mm");
  EXPECT_EQ(b.text(), "N+1");
  EXPECT_EQ(a.text(), "mm");
  Workload c = std::move(a);
  EXPECT_EQ(c.evaluate(ParameterValues{{"N", 1}}), 2.0);
}

TEST(WorkloadStack, DeepExpressionsUseTheHeapStack) {
  std::string text = "N";
  for (int i = 0; i < 60; ++i) text = "1+(" + text + ")";
  EXPECT_EQ(eval(text, {{"N", 1}}), 61.0);
  std::string many = "max(N";
  for (int i = 0; i < 100; ++i) many += ", " + std::to_string(i);
  many += ")";
  EXPECT_EQ(eval(many, {{"N", 5}}), 99.0);
}

TEST(WorkloadErrors, UnexpectedCharacter) {
  expect_parse_error("2*N # 3", 5, "unexpected character '#'");
  expect_parse_error("N\xc3\xa9", 2, "unexpected character 0xc3");
}

TEST(WorkloadErrors, UnexpectedToken) {
  expect_parse_error("1 + * 2", 5, "unexpected token '*'");
  expect_parse_error("()", 2, "unexpected token ')'");
  expect_parse_error("2 * (, 3)", 6, "unexpected token ','");
  expect_parse_error("+N", 1, "unexpected token '+'");
  expect_parse_error("N +", 4, "unexpected end of expression");
}

TEST(WorkloadErrors, MissingCloseParenthesis) {
  expect_parse_error("2*(N+1", 7, "missing ')' for '(' at column 3");
  expect_parse_error("sqrt(2 3)", 8, "missing ')' for '(' at column 5");
  expect_parse_error("max(1, 2", 9, "missing ')' for '(' at column 4");
}

TEST(WorkloadErrors, UnmatchedCloseParenthesis) {
  expect_parse_error("(N+1))", 6, "unmatched ')'");
}

TEST(WorkloadErrors, UnknownFunction) {
  expect_parse_error("2 * foo(N)", 5, "unknown function 'foo'");
  expect_parse_error("log(N)", 1, "unknown function 'log'");
}

TEST(WorkloadErrors, FunctionWithoutArguments) {
  expect_parse_error("N * lg + 1", 8, "expected '(' after function 'lg'");
}

TEST(WorkloadErrors, WrongArgumentCount) {
  expect_parse_error("1 + sqrt(1, 2)", 5, "function 'sqrt' takes 1 argument, got 2");
  expect_parse_error("lg()", 1, "function 'lg' takes 1 argument, got 0");
  expect_parse_error("max(N)", 1, "function 'max' takes at least 2 arguments, got 1");
  expect_parse_error("min()", 1, "function 'min' takes at least 2 arguments, got 0");
}

TEST(WorkloadErrors, EmptyExpression) {
  expect_parse_error("", 1, "empty expression");
  expect_parse_error("   ", 1, "empty expression");
}

TEST(WorkloadErrors, TrailingInput) {
  expect_parse_error("2 N", 3, "trailing input 'N'");
  expect_parse_error("2N", 2, "trailing input 'N'");
  expect_parse_error("1.2.3", 4, "trailing input '.3'");
}

TEST(WorkloadErrors, NumbersOutOfRangeOrMalformed) {
  expect_parse_error("2 * 1e999", 5, "number out of range '1e999'");
  expect_parse_error("1e-999", 1, "number out of range '1e-999'");
  expect_parse_error("N * 1e", 5, "malformed number '1e'");
  expect_parse_error("1e+", 1, "malformed number '1e+'");
}

TEST(WorkloadErrors, NestingTooDeep) {
  const std::string text = std::string(300, '(') + "1" + std::string(300, ')');
  expect_parse_error(text, 201, "expression nested too deeply");
}

TEST(WorkloadErrors, WhatNamesTheColumn) {
  try {
    (void)Workload::parse("N +");
    ADD_FAILURE() << "no error";
  } catch (const ExpressionError& e) {
    EXPECT_STREQ(e.what(), "column 4: unexpected end of expression");
  }
}

}  // namespace
}  // namespace hetscale
