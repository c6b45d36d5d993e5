#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>

#include "hetscale/collector/pg.hpp"

namespace hetscale::pg {
namespace {

std::map<std::string, std::string> options(const std::string& conninfo) {
  std::map<std::string, std::string> out;
  for (const auto& [keyword, value] : connection_options(conninfo)) {
    EXPECT_TRUE(out.emplace(keyword, value).second) << keyword << " given twice";
  }
  return out;
}

void expect_defaults(const std::map<std::string, std::string>& o) {
  EXPECT_EQ(o.at("connect_timeout"), "10");
  EXPECT_EQ(o.at("keepalives"), "1");
  EXPECT_EQ(o.at("keepalives_idle"), "30");
  EXPECT_EQ(o.at("keepalives_interval"), "10");
  EXPECT_EQ(o.at("keepalives_count"), "3");
  EXPECT_EQ(o.at("tcp_user_timeout"), "60000");
  EXPECT_EQ(o.at("fallback_application_name"), "hetscale");
}

class ConnectionOptions : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv("PGCONNECT_TIMEOUT"); }
};

TEST_F(ConnectionOptions, AUriGetsTimeoutsAndKeepalives) {
  const auto o = options("postgresql://alice:pw@db.example:5433/hetscale?sslmode=disable");
  EXPECT_EQ(o.at("host"), "db.example");
  EXPECT_EQ(o.at("port"), "5433");
  EXPECT_EQ(o.at("dbname"), "hetscale");
  EXPECT_EQ(o.at("user"), "alice");
  EXPECT_EQ(o.at("password"), "pw");
  EXPECT_EQ(o.at("sslmode"), "disable");
  expect_defaults(o);
}

TEST_F(ConnectionOptions, AKeyValueStringGetsThemToo) {
  const auto o = options("host=/tmp/sock port=5432 dbname=hetscale password='p w'");
  EXPECT_EQ(o.at("host"), "/tmp/sock");
  EXPECT_EQ(o.at("password"), "p w");
  expect_defaults(o);
}

TEST_F(ConnectionOptions, WhatTheUserGaveIsKept) {
  auto o = options("postgresql://db/hetscale?connect_timeout=3&keepalives_idle=7&keepalives=0");
  EXPECT_EQ(o.at("connect_timeout"), "3");
  EXPECT_EQ(o.at("keepalives_idle"), "7");
  EXPECT_EQ(o.at("keepalives"), "0");
  EXPECT_EQ(o.at("keepalives_count"), "3");
  o = options("host=db connect_timeout=5 tcp_user_timeout=0 application_name=mine");
  EXPECT_EQ(o.at("connect_timeout"), "5");
  EXPECT_EQ(o.at("tcp_user_timeout"), "0");
  EXPECT_EQ(o.at("application_name"), "mine");
}

TEST_F(ConnectionOptions, PgconnectTimeoutInTheEnvironmentIsKept) {
  ::setenv("PGCONNECT_TIMEOUT", "4", 1);
  const auto o = options("host=db");
  ::unsetenv("PGCONNECT_TIMEOUT");
  EXPECT_EQ(o.count("connect_timeout"), 0u);  // libpq reads the environment itself
  EXPECT_EQ(o.at("keepalives"), "1");
}

TEST_F(ConnectionOptions, AnUnreadableStringIsAnErrorThatHidesItsValues) {
  try {
    connection_options("host=db user=alice secretpart");
    FAIL() << "no error";
  } catch (const DbError& e) {
    EXPECT_FALSE(e.retryable());
    EXPECT_EQ(std::string(e.what()).find("secretpart"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("database: invalid connection string: ", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(connection_options("postgresql://db/x?nosuchoption=1"), DbError);
}

TEST(DbErrorRetry, ALockTimeoutIsRetried) {
  EXPECT_TRUE(DbError("x", "55P03", false).retryable());
  EXPECT_TRUE(DbError("x", "23505", false).retryable());
  EXPECT_FALSE(DbError("x", "42501", false).retryable());
}

}  // namespace
}  // namespace hetscale::pg
