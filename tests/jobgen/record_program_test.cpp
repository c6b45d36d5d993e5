// A command's program against [code] record = "program": the record helpers' sign in real
// programs (built from tests/jobgen/programs/, stripped) and scripts written here, how the
// program is found, and the warning.
#include "hetscale/jobgen/record_program.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "hetscale/base/regular_file.hpp"

namespace hetscale::jobgen {
namespace {

namespace fs = std::filesystem;

class RecordProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A file of `text` in the test's directory, executable unless said otherwise.
  fs::path file(const std::string& name, const std::string& text, bool executable = true) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    if (executable) fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add);
    return path;
  }

  // The job runs in the test's directory with these variables (PATH: its bin/ alone).
  ProgramLookup lookup(std::map<std::string, std::string> variables = {}) const {
    variables.emplace("PATH", (dir_ / "bin").string());
    return {dir_, [variables](const std::string& name) -> std::optional<std::string> {
              const auto v = variables.find(name);
              return v == variables.end() ? std::nullopt : std::optional<std::string>(v->second);
            }};
  }

  // What resolve_program makes of `command`: the path found, or "problem: ...".
  std::string resolved(const std::string& command, std::map<std::string, std::string> variables = {}) const {
    const ResolvedProgram p = resolve_program(command, "M", lookup(std::move(variables)));
    return p.path ? p.path->string() : "problem: " + p.problem;
  }

  fs::path dir_ = fs::temp_directory_path() / ("hetscale-record-program-" + std::to_string(::getpid()));
};

TEST_F(RecordProgram, ACompiledProgramShowsTheHelperOrTheLibrary) {
  EXPECT_EQ(record_sign(PROGRAM_USES_RECORD_HEADER).what, "holds HETSCALE_RECORD");
  EXPECT_EQ(record_sign(PROGRAM_USES_RECORD_LIBRARY).what, "needs libhetscale_record.so.1");
  EXPECT_FALSE(record_sign(PROGRAM_NO_RECORD).found());
}

TEST_F(RecordProgram, AScriptShowsItByName) {
  EXPECT_EQ(record_sign(file("heat.py", "#!/usr/bin/env python3\nimport hetscale_record\n")).what,
            "names hetscale_record");
  EXPECT_EQ(record_sign(file("heat.sh", "#!/bin/sh\necho '{}' >> \"$HETSCALE_RECORD\"\n")).what,
            "names HETSCALE_RECORD");
  EXPECT_FALSE(record_sign(file("wrapper.sh", "#!/bin/sh\nexec heat \"$@\"\n")).found());
  // Read a chunk at a time: a marker across two chunks is found too.
  EXPECT_EQ(record_sign(file("long.sh", "#!/bin/sh\n" + std::string((1U << 20) - 15, '#') + "\nHETSCALE_RECORD=x\n")).what,
            "names HETSCALE_RECORD");
  // Neither an ELF file nor a script: no sign, whatever its text.
  EXPECT_FALSE(record_sign(file("notes.txt", "HETSCALE_RECORD hetscale_record\n")).found());
  EXPECT_THROW((void)record_sign(dir_ / "bin"), FileReadError);
}

TEST_F(RecordProgram, FindsTheProgramAsTheJobWould) {
  const std::string heat = file("bin/heat", "#!/bin/sh\n").string();
  const std::string local = file("heat", "#!/bin/sh\n").string();
  EXPECT_EQ(resolved("heat --grid {M}"), heat);
  EXPECT_EQ(resolved("OMP_NUM_THREADS=2 A='x y' heat --grid {M}"), heat);
  EXPECT_EQ(resolved(heat + " --grid {M}"), heat);
  EXPECT_EQ(resolved("./heat --grid {M}"), local);  // in the study directory
  EXPECT_EQ(resolved("$BIN/heat --grid {M}", {{"BIN", (dir_ / "bin").string()}}), heat);
  EXPECT_EQ(resolved("\"${BIN}\"'/he'at --grid {M}", {{"BIN", (dir_ / "bin").string()}}), heat);
  EXPECT_EQ(resolved("~/heat {M}", {{"HOME", dir_.string()}}), local);
  EXPECT_EQ(resolved("$study_dir/heat {M}"), local);
  EXPECT_EQ(resolved("heat {M}", {{"PATH", "/nonexistent::" + (dir_ / "bin").string()}}), (dir_ / "heat").string());
}

TEST_F(RecordProgram, SaysWhyAProgramIsNotFound) {
  (void)file("bin/data", "#!/bin/sh\n", false);
  EXPECT_EQ(resolved("heat {M}"), "problem: is not on the PATH");
  EXPECT_EQ(resolved("data {M}"), "problem: is not on the PATH");
  EXPECT_EQ(resolved("bin/data {M}"),
            "problem: is not an executable file (" + (dir_ / "bin/data").string() +
                ": a relative path starts in the study directory, where the job runs)");
  EXPECT_EQ(resolved("/nonexistent/heat {M}"), "problem: does not exist");
  EXPECT_EQ(resolved("$BIN/heat {M}", {{"BIN", "/nonexistent"}}), "problem: does not exist (/nonexistent/heat)");
  EXPECT_EQ(resolved("A=1 {M}"), "problem: names $M, which is set only when the job runs");
  EXPECT_EQ(resolved("A=1; heat {M}"), "problem: is an assignment, not a program");
  EXPECT_EQ(resolved("'heat {M}"), "problem: has a quote that is not closed");
}

TEST_F(RecordProgram, SaysWhichVariableIsKnownOnlyWhenTheJobRuns) {
  EXPECT_EQ(resolved("$PROG --grid {M}"), "problem: names $PROG, which is not set here");
  EXPECT_EQ(resolved("./heat-{M}"), "problem: names $M, which is set only when the job runs");
  EXPECT_EQ(resolved("\"${M}\"/heat"), "problem: names $M, which is set only when the job runs");
  EXPECT_EQ(resolved("$SLURM_SUBMIT_DIR/heat {M}"), "problem: names $SLURM_SUBMIT_DIR, which is set only when the job runs");
  EXPECT_EQ(resolved("$repetition/heat {M}"), "problem: names $repetition, which is set only when the job runs");
  EXPECT_EQ(resolved("$(which heat) {M}"), "problem: holds a shell expansion done only when the job runs");
  const ResolvedProgram found = resolve_program("$(dirname $(which x))/heat {M}", "M", lookup());
  EXPECT_EQ(found.word, "$(dirname $(which x))/heat");
  EXPECT_EQ(resolve_program("`which heat` {M}", "M", lookup()).word, "`which heat`");
  EXPECT_EQ(resolved("${BIN:-/usr/bin}/heat {M}"), "problem: holds a shell expansion done only when the job runs");
}

// A spec whose [code] has `code` (record on line 7, its value at column 10).
ExperimentSpec spec_with(const std::string& code) {
  return parse_experiment_spec("[experiment]\nname = \"x\"\ntarget_efficiency = 0.3\n[code]\nworkload = \"M^2\"\n" +
                                   code + "\n[parameter]\nname = \"M\"\nvalues = [10, 20]\n",
                               "spec.toml");
}

TEST_F(RecordProgram, WarnsWhenTheProgramShowsNoSign) {
  const std::string none = PROGRAM_NO_RECORD;
  EXPECT_EQ(record_program_warning(spec_with("command = '" + none + " {M}'\nrecord = \"program\""), lookup()),
            "spec.toml:7:10: warning: [code] record = \"program\" but '" + none +
                "' shows no sign of writing a run record (it does not use hetscale_record.h, libhetscale_record or "
                "HETSCALE_RECORD); its tasks would run and record nothing: set [code] record = \"step\" to have each "
                "step timed from outside");
  EXPECT_EQ(record_program_warning(spec_with("command = '$PROG {M}'\nrecord = \"program\""), lookup()),
            "spec.toml:7:10: warning: [code] record = \"program\" but the command's program '$PROG' names $PROG, "
            "which is not set here, so it is not checked for a sign of writing a run record; if it writes none, its "
            "tasks would run and record nothing: set [code] record = \"step\" to have each step timed from outside");
  EXPECT_EQ(record_program_warning(spec_with("command = 'heat {M}'\nrecord = \"program\""), lookup()),
            "spec.toml:7:10: warning: [code] record = \"program\" but the command's program 'heat' is not on the "
            "PATH, so it is not checked for a sign of writing a run record; if it writes none, its tasks would run "
            "and record nothing: set [code] record = \"step\" to have each step timed from outside");
}

TEST_F(RecordProgram, NoWarningForAProgramWithASignAStepOrAKernel) {
  const std::string helper = PROGRAM_USES_RECORD_HEADER;
  EXPECT_EQ(record_program_warning(spec_with("command = '" + helper + " {M}'\nrecord = \"program\""), lookup()),
            std::nullopt);
  EXPECT_EQ(record_program_warning(spec_with("command = 'heat {M}'\nrecord = \"step\""), lookup()), std::nullopt);
  EXPECT_EQ(record_program_warning(spec_with("command = 'heat {M}'"), lookup()), std::nullopt);
  const auto kernel = parse_experiment_spec(
      "[experiment]\nname = \"x\"\ntarget_efficiency = 0.3\n[code]\nkernel = \"mm\"\n[parameter]\nvalues = [10, 20]\n",
      "spec.toml");
  EXPECT_EQ(record_program_warning(kernel, lookup()), std::nullopt);
}

}  // namespace
}  // namespace hetscale::jobgen
