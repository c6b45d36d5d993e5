// How the report names experiments of the views and finds the one an option names
// (hetscale/collector/report_views.hpp), without a database: labels where names are
// shared, and NAME, OWNER/NAME, CLUSTER:OWNER/NAME.
#include <gtest/gtest.h>

#include "hetscale/base/error.hpp"
#include "hetscale/collector/report_views.hpp"

namespace hetscale::collector {
namespace {

std::string error_of(const std::vector<ExperimentKey>& known, const std::string& given) {
  try {
    find_report_experiment(known, given);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const std::vector<ExperimentKey> known = {{"ge", "alice", "alpha"},
                                          {"mm", "alice", "alpha"},
                                          {"mm", "bob", "alpha"},
                                          {"st", "alice", "alpha"},
                                          {"st", "alice", "beta"}};

TEST(ExperimentKeys, ANameOfOneIsItsLabelASharedOneGetsItsOwner) {
  EXPECT_EQ(experiment_key_label(known[0], known), "ge");
  EXPECT_EQ(experiment_key_label(known[1], known), "alice/mm");
  EXPECT_EQ(experiment_key_label(known[2], known), "bob/mm");
  // One owner's name on two clusters: the cluster tells them apart.
  EXPECT_EQ(experiment_key_label(known[3], known), "alpha:alice/st");
  EXPECT_EQ(experiment_key_label(known[4], known), "beta:alice/st");
  // Before migration 12 the views have no owners: every key is a name alone.
  const std::vector<ExperimentKey> by_name = {{"ge", "", ""}, {"mm", "", ""}};
  EXPECT_EQ(experiment_key_label(by_name[1], by_name), "mm");
}

TEST(ExperimentKeys, FindsByNameOwnerAndNameOrClusterOwnerAndName) {
  EXPECT_EQ(find_report_experiment(known, "ge"), known[0]);
  EXPECT_EQ(find_report_experiment(known, "bob/mm"), known[2]);
  EXPECT_EQ(find_report_experiment(known, "beta:alice/st"), known[4]);
  // Every label finds its own experiment.
  for (const auto& key : known)
    EXPECT_EQ(find_report_experiment(known, experiment_key_label(key, known)), key);
}

TEST(ExperimentKeys, AnAmbiguousOrUnknownNameIsRefusedWithTheCandidates) {
  EXPECT_EQ(error_of(known, "mm"),
            "experiment 'mm' is ambiguous: alice/mm, bob/mm (name one as OWNER/NAME)");
  EXPECT_EQ(error_of(known, "alice/st"),
            "experiment 'alice/st' is ambiguous: alpha:alice/st, beta:alice/st (name one as "
            "CLUSTER:OWNER/NAME)");
  EXPECT_EQ(error_of(known, "carol/mm"),
            "no experiment 'carol/mm' in the views of the database (experiments with data: ge, "
            "alice/mm, bob/mm, alpha:alice/st, beta:alice/st)");
  EXPECT_EQ(error_of({}, "mm"),
            "no experiment 'mm' in the views of the database (no experiment has data yet)");
}

}  // namespace
}  // namespace hetscale::collector
