#include "hetscale/site/record_environment.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "hetscale/base/error.hpp"

namespace hetscale {
namespace {

GetEnv fake(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

std::optional<std::uint64_t> step_id_of(const std::string& value) {
  return read_record_environment(fake({{"SLURM_STEP_ID", value}})).slurm.step_id;
}

TEST(RecordEnvironment, ANumberedStepKeepsItsId) {
  EXPECT_EQ(step_id_of("0"), 0U);
  EXPECT_EQ(step_id_of("12"), 12U);
  EXPECT_EQ(step_id_of("4294967280"), 4294967280U);  // SLURM_MAX_NORMAL_STEP_ID
  EXPECT_FALSE(read_record_environment(fake({})).slurm.step_id);
  EXPECT_FALSE(step_id_of(""));
}

// Slurm 26.05 sets SLURM_STEP_ID=-5 in the batch step (SLURM_BATCH_SCRIPT printed signed),
// 22.05 and 24.11 set nothing there: a step without a number has no step_id.
TEST(RecordEnvironment, StepsWithoutANumberHaveNoId) {
  for (const char* value : {"-5", "-4", "-6", "-1", "-15", "batch", "4294967291", "4294967292", "4294967295",
                            "4294967281"}) {
    SCOPED_TRACE(value);
    EXPECT_FALSE(step_id_of(value));
  }
}

TEST(RecordEnvironment, AnythingElseIsNamed) {
  for (const char* value : {"-16", "4294967296", "two", "1.5", "-", "5 "}) {
    try {
      (void)step_id_of(value);
      ADD_FAILURE() << value << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("SLURM_STEP_ID: '") + value + "' is not a job step's id");
    }
  }
}

}  // namespace
}  // namespace hetscale
