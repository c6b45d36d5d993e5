#!/usr/bin/env bash
# The README's test command: installs what is missing, builds from scratch, runs every
# test (the unit tests that need the main build; integration with the local Slurm cluster
# and PostgreSQL brought up and torn down by CTest fixtures, then the timing sanity bounds,
# where a failed test is run once more), then the same test binaries against the testbed's
# other Slurm releases (scripts/test-slurm-releases.sh --ci: their roots, plugins and
# recordings are made in the background while this machine's build runs), then a short run
# of every fuzz target and every unit suite under ASan + UBSan. The sanitizer and fuzz
# builds run from the start in a cgroup of the lowest CPU weight, on the processor time the
# main build and the testbed tests leave. Prints the time of each step.
#   scripts/test.sh            everything
#   scripts/test.sh --no-asan  skip the sanitizer pass (the main build then holds every unit suite)
#   scripts/test.sh --no-fuzz  skip the fuzzing step
#   scripts/test.sh --no-legs  skip the other Slurm releases
set -euo pipefail
cd "$(dirname "$0")/.."

asan=1
fuzz=1
legs=1
# Seconds each fuzz target runs: 14 targets, one per processor at a time, about a minute in
# all (docs/fuzzing.md).
fuzz_seconds=8
for arg in "$@"; do
  case "$arg" in
    --no-asan) asan=0 ;;
    --no-fuzz) fuzz=0 ;;
    --no-legs) legs=0 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

# Each step prints how long the one before it took, and the run its total at the end.
# The end repeats every step's time in one table, as the last lines of the output.
SCRIPT=test.sh
# shellcheck source=lib/testbed-common.sh
. scripts/lib/testbed-common.sh
step_name="" step_start=$SECONDS
step_done() {
  [ -n "$step_name" ] || return 0
  printf '==> %s: %d s\n' "$step_name" $((SECONDS - step_start))
  step_row "${step_name%% (*}" $((SECONDS - step_start))
  step_name=""
}
step() { step_done; step_name=$*; step_start=$SECONDS; printf '\n==> %s\n' "$*"; }
# At the end, also what is left of the background builds (a step that failed leaves them
# running): background_cg names their cgroup once the cgroups are found.
background_cg=""
on_exit() {
  [ -z "$background_cg" ] || cg_destroy "$background_cg"
  step_done
  printf '\n==> test.sh: the steps\n'
  print_step_rows
  printf '==> test.sh: %d s in all\n' $SECONDS
}
trap on_exit EXIT

step "Debian packages and servers (scripts/install-deps.sh)"
scripts/install-deps.sh

# A run that was killed midway may have left its testbed running (the CTest cleanup
# fixtures never ran): stop it before its run directories are deleted. Both scripts find
# their processes through cgroups named after the run dir, so this works in any state.
stop_leftover_testbed() {
  scripts/cluster.sh down --run-dir build/test/testbed/cluster >/dev/null
  scripts/pg.sh down --run-dir build/test/testbed/pg >/dev/null
}

# The other Slurm releases' roots (debootstrap and apt, mostly waiting on the network and
# dpkg), their plugins and the recordings of what they print (a cluster waiting on a job
# that times out) are made in the background while this machine's tree builds.
if [ "$legs" = 1 ]; then
  step "Slurm releases: roots, plugins and recordings, in the background (log build/slurm-releases-prepare.log)"
  mkdir -p build
  (
    for release in $(find scripts/slurm-roots -maxdepth 1 -type f -printf '%f\n' | sort -V); do
      start=$SECONDS
      scripts/slurm-root.sh ensure "$release" >/dev/null || exit 1
      echo "root $release: $((SECONDS - start)) s"
      start=$SECONDS
      CMAKE_BUILD_PARALLEL_LEVEL=1 scripts/build-plugin.sh --slurm "$release" >/dev/null || exit 1
      echo "plugin $release: $((SECONDS - start)) s"
      start=$SECONDS
      scripts/test-slurm-releases.sh --record-only "$release" >/dev/null || exit 1
      echo "recording $release: $((SECONDS - start)) s"
    done
  ) >build/slurm-releases-prepare.log 2>&1 &
  legs_prepare=$!
fi

# The sanitizer build (gcc, build/asan: the unit tests only) and the fuzz targets' build
# (clang + libFuzzer, build/fuzz) need no testbed: they start now, in a cgroup whose CPU
# weight is the lowest, so they take only processor time nobody else wants (the main build's
# links and single long compiles, the testbed tests' waits on Slurm, MPI and PostgreSQL)
# and never slow the main build or the testbed's node quotas. Their steps below wait for them.
cg_detect
background_cg=$CG_ROOT/hetscale-test-background
cg_destroy "$background_cg"  # what a killed run left
background_builds() {
  local start
  if [ "$asan" = 1 ]; then
    start=$SECONDS
    # Only the unit tests run under the sanitizers: the integration suites and the
    # benchmarks built on their support code are left out of this build.
    # Line tables only (-g1): the sanitizers' reports keep their files and lines.
    cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHETSCALE_SANITIZE=ON -DHETSCALE_WERROR=ON \
      -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DHETSCALE_INTEGRATION_TESTS=OFF >/dev/null
    cmake --build build/asan -j "$(nproc)"
    echo "background: sanitizer build (build/asan) $((SECONDS - start)) s"
  fi
  if [ "$fuzz" = 1 ]; then
    start=$SECONDS
    # A hard bound, so that a hanging build cannot hold the run.
    timeout 1800 scripts/fuzz.sh --build-only
    echo "background: fuzz targets' build (build/fuzz) $((SECONDS - start)) s"
  fi
}
if [ "$asan" = 1 ] || [ "$fuzz" = 1 ]; then
  step "sanitizer and fuzz builds, from scratch, at the lowest CPU weight in the background (log build/background-builds.log)"
  rm -rf build/asan build/fuzz
  mkdir -p build
  cg_create "$background_cg"
  cg_lowest_weight "$background_cg"
  (echo "$BASHPID" >"$background_cg/cgroup.procs" && background_builds) >build/background-builds.log 2>&1 &
  background_pid=$!
fi

# The main build holds the integration suites and, of the unit suites, those that need it:
# slurm's (the Slurm releases' step replays their recordings with it), the plugin module's
# checks (its exports and libraries, of the real build) and the twin's (SimGrid, which a
# sanitizer build cannot load). Every unit suite runs in the sanitizer build, under ASan +
# UBSan; one build of each suite is enough. Without the sanitizer pass, the main build
# holds them all.
main_unit_suites='slurm;spank_plugin;twin'
[ "$asan" = 1 ] || main_unit_suites=all
step "configure and build (build/test, from scratch; the test suites' own code at -O1)"
stop_leftover_testbed
rm -rf build/test
# The Release build a packager runs (-O3), with warnings as errors, plus line tables (-g1):
# a failure's backtrace keeps its files and lines, at a quarter less compile time than full
# debug information.
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=Release -DHETSCALE_WERROR=ON \
  '-DCMAKE_CXX_FLAGS_RELEASE=-O3 -g1 -DNDEBUG' '-DCMAKE_C_FLAGS_RELEASE=-O3 -g1 -DNDEBUG' \
  -DHETSCALE_QUICK_TEST_CODE=ON "-DHETSCALE_UNIT_SUITES=$main_unit_suites" >/dev/null
cmake --build build/test -j "$(nproc)"

step "unit tests of the main build (slurm, the plugin module, the twin; the repository's own checks)"
ctest --test-dir build/test --output-on-failure --no-tests=error -LE integration

# The background preparation runs clusters of its own (the recordings): it ends before the
# testbed tests start, so that their nodes' CPU quotas get the cores they are promised.
if [ "$legs" = 1 ]; then
  step "the other Slurm releases' roots, plugins and recordings (made in the background)"
  wait "$legs_prepare" || { cat build/slurm-releases-prepare.log; echo "test.sh: preparing the Slurm releases failed"; exit 1; }
  cat build/slurm-releases-prepare.log
fi

# The integration tests run the real cluster, MPI and PostgreSQL. Correctness tests run
# once: one that fails has failed. The tests labelled `timing` assert a sanity bound on a
# speed or time measured on a machine that shares its host; one that fails is run once
# more, its failed attempt is printed in full above the retry and named again at the end,
# so a flaky timing is visible and a broken one still fails (twice). The timing targets
# themselves are benchmarks (docs/performance.md).
step "integration tests (real Slurm, Open MPI, PostgreSQL), each run once"
# The cross-release test needs a plugin of another release: the legs' step runs it.
ctest --test-dir build/test --output-on-failure --no-tests=error -L integration -LE timing \
  -E '^integration\.spank_plugin\.PluginAcrossReleases\.'

step "timing tests (sanity bounds on measured speeds; a failed one is run once more)"
log=build/test/timing.log
ctest --test-dir build/test --output-on-failure --no-tests=error -L timing \
  --repeat until-pass:2 | tee "$log"
retried=$({ grep -oE 'Test +#[0-9]+: [^ ]+ \.+\*\*\*[A-Za-z]+' "$log" || true; } | awk '{print $3}' | sort -u)
if [ -n "$retried" ]; then
  echo "test.sh: these timing tests failed once and passed when run again:"
  printf '  %s\n' $retried
fi

if [ "$legs" = 1 ]; then
  step "Slurm releases: plugin suite, cross-release loading, recordings, production site (scripts/test-slurm-releases.sh --ci)"
  scripts/test-slurm-releases.sh --ci --recorded --build build/test
fi

if [ "$asan" = 1 ] || [ "$fuzz" = 1 ]; then
  step "the rest of the sanitizer and fuzz builds (begun in the background)"
  wait "$background_pid" || { cat build/background-builds.log; echo "test.sh: the sanitizer or fuzz build failed"; exit 1; }
  grep '^background:' build/background-builds.log
fi

if [ "$fuzz" = 1 ]; then
  step "fuzz targets, ${fuzz_seconds} s each (clang + libFuzzer, build/fuzz)"
  # A hard bound, so that a hanging target cannot hold the run.
  timeout 600 scripts/fuzz.sh --seconds "$fuzz_seconds"
fi

if [ "$asan" = 1 ]; then
  step "unit tests under AddressSanitizer + UndefinedBehaviorSanitizer (build/asan)"
  # Unit tests are independent of each other (no testbed): side by side, on every processor.
  ctest --test-dir build/asan --output-on-failure --no-tests=error -LE integration -j "$(nproc)"
fi
