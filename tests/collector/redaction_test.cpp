#include <gtest/gtest.h>

#include "hetscale/collector/plan_loader.hpp"

namespace hetscale::collector {
namespace {

TEST(RedactUriPasswords, HidesThePasswordOfEveryPostgresUri) {
  EXPECT_EQ(redact_uri_passwords("database = \"postgresql://alice:s3cr:et@db.example/hetscale\"\n"),
            "database = \"postgresql://alice:***@db.example/hetscale\"\n");
  EXPECT_EQ(redact_uri_passwords("a postgres://u:p@h b postgresql://v:q@k:5432/x"),
            "a postgres://u:***@h b postgresql://v:***@k:5432/x");
}

TEST(RedactUriPasswords, LeavesUrisWithoutAPasswordAndOtherTextAlone) {
  for (const char* text : {"postgresql://alice@db/hetscale", "postgresql://db:5432/hetscale",
                           "postgresql:///hetscale?host=/tmp&user=a", "name = \"a:b@c\"",
                           "postgresql://", ""}) {
    EXPECT_EQ(redact_uri_passwords(text), text);
  }
}

}  // namespace
}  // namespace hetscale::collector
