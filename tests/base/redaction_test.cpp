#include "hetscale/base/redaction.hpp"

#include <gtest/gtest.h>

namespace hetscale {
namespace {

TEST(RedactConnectionPasswords, HidesThePasswordOfEveryPostgresUri) {
  EXPECT_EQ(redact_connection_passwords(
                "database = \"postgresql://alice:s3cr:et@db.example/hetscale\"\n"),
            "database = \"postgresql://alice:***@db.example/hetscale\"\n");
  EXPECT_EQ(redact_connection_passwords("a postgres://u:p@h b postgresql://v:q@k:5432/x"),
            "a postgres://u:***@h b postgresql://v:***@k:5432/x");
}

TEST(RedactConnectionPasswords, HidesAPasswordQueryParameterOfAUri) {
  EXPECT_EQ(redact_connection_passwords("postgresql://h/db?password=pw&sslmode=require"),
            "postgresql://h/db?password=***&sslmode=require");
  EXPECT_EQ(redact_connection_passwords("postgresql://h/db?user=u&password=pw"),
            "postgresql://h/db?user=u&password=***");
}

TEST(RedactConnectionPasswords, HidesThePasswordOfKeyValueStrings) {
  EXPECT_EQ(redact_connection_passwords("host=db user=alice password=s3cret dbname=hetscale"),
            "host=db user=alice password=*** dbname=hetscale");
  EXPECT_EQ(redact_connection_passwords("password = s3cret host=db"), "password = *** host=db");
  EXPECT_EQ(redact_connection_passwords("database = \"host=db password=pw\"\n"),
            "database = \"host=db password=***\"\n");
  EXPECT_EQ(redact_connection_passwords("database = 'host=db password=pw'"),
            "database = 'host=db password=***'");
}

TEST(RedactConnectionPasswords, HidesAQuotedPasswordWithItsEscapes) {
  EXPECT_EQ(redact_connection_passwords("host=db password='p w' user=a"),
            "host=db password='***' user=a");
  EXPECT_EQ(redact_connection_passwords(R"(password='it\'s \\ here' user=a)"),
            "password='***' user=a");
  EXPECT_EQ(redact_connection_passwords("password='never closed"), "password='***");
}

TEST(RedactConnectionPasswords, HidesBothFormsInOneText) {
  EXPECT_EQ(
      redact_connection_passwords("a = \"postgresql://u:one@h/db\"\nb = \"host=h password=two\"\n"),
      "a = \"postgresql://u:***@h/db\"\nb = \"host=h password=***\"\n");
}

TEST(RedactConnectionPasswords, LeavesTextWithoutAPasswordAlone) {
  for (const char* text :
       {"postgresql://alice@db/hetscale", "postgresql://db:5432/hetscale",
        "postgresql:///hetscale?host=/tmp&user=a", "name = \"a:b@c\"", "postgresql://", "",
        "host=db user=alice", "password=", "passwords=none", "oldpassword=x", "password"}) {
    EXPECT_EQ(redact_connection_passwords(text), text);
  }
}

TEST(RemoveConnectionPasswords, LeavesEveryFormUsableWithoutItsPassword) {
  EXPECT_EQ(remove_connection_passwords("database = \"postgresql://alice:s3cr:et@db.example/hetscale\"\n"),
            "database = \"postgresql://alice@db.example/hetscale\"\n");
  EXPECT_EQ(remove_connection_passwords("a postgres://u:p@h b postgresql://v:q@k:5432/x postgresql://k/y"),
            "a postgres://u@h b postgresql://v@k:5432/x postgresql://k/y");
  EXPECT_EQ(remove_connection_passwords("postgresql://h/db?password=pw&sslmode=require"),
            "postgresql://h/db?sslmode=require");
  EXPECT_EQ(remove_connection_passwords("postgresql://h/db?user=u&password=pw"), "postgresql://h/db?user=u");
  EXPECT_EQ(remove_connection_passwords("postgresql://h/db?password=pw"), "postgresql://h/db");
  EXPECT_EQ(remove_connection_passwords("host=db password=s3cret dbname=hetscale"), "host=db dbname=hetscale");
  EXPECT_EQ(remove_connection_passwords("host=db password = 'p w\\' x' dbname=d"), "host=db dbname=d");
  EXPECT_EQ(remove_connection_passwords("database = \"host=db password=pw\"\n"), "database = \"host=db\"\n");
  EXPECT_EQ(remove_connection_passwords("postgresql://alice@h/db"), "postgresql://alice@h/db");
  EXPECT_EQ(remove_connection_passwords("mypassword=x"), "mypassword=x");  // not the keyword
}

}  // namespace
}  // namespace hetscale
