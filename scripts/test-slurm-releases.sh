#!/usr/bin/env bash
# Runs the tests on other Slurm releases of the testbed ("legs", docs/testbed.md, "Slurm
# releases"), with the test binaries of one host build tree:
#   scripts/test-slurm-releases.sh [--ci [--recorded] | --full | --record-only] [--build DIR] [RELEASE...]
# RELEASE: one of scripts/slurm-roots/ (default: all of them, 24.11 and 26.05). DIR: a
# configured and built tree of this machine (default build/default; scripts/test.sh gives
# build/test). For each release, in turn: its root (scripts/slurm-root.sh ensure), the
# plugin built for it (scripts/build-plugin.sh) and its exports, then
#   --ci (default): the plugin suite on a cluster of that release (integration.spank_plugin,
#        with the cross-release test: this tree's plugin in that release's snippet); the
#        cross-release test the other way (that release's plugin on this machine's Slurm);
#        a recording of what that release's Slurm prints now (record-slurm-outputs.sh
#        --out build/slurm-recordings/RELEASE; with --recorded, the one --record-only
#        made) read by the Slurm gateway's tests (tests/slurm, when the tree has them);
#        the production-site suite (integration.jobgen_site) on that release;
#   --full: every integration suite but the timing ones on that release;
#   --record-only: only the root and the recording (scripts/test.sh makes them in the
#        background while it builds, then runs --ci --recorded).
# Each phase's time is printed as it ends, and a table of all at the end. Exit status 1 when
# any phase failed (the others still run). HETSCALE_TEST_SLURM and the other variables the
# tests read are set here (tests/integration/cluster_fixture.sh).
set -uo pipefail

SCRIPT=test-slurm-releases.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }

mode=ci recorded=0 BUILD=$REPO/build/default RELEASES=()
RECORDINGS=$REPO/build/slurm-recordings
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) mode=ci; shift ;;
    --full) mode=full; shift ;;
    --record-only) mode=record; shift ;;
    --recorded) recorded=1; shift ;;
    --build) BUILD=${2:?--build needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) RELEASES+=("$1"); shift ;;
  esac
done
[ ${#RELEASES[@]} -gt 0 ] || mapfile -t RELEASES < <(find "$REPO/scripts/slurm-roots" -maxdepth 1 -type f -printf '%f\n' | sort -V)
BUILD=$(abs_path "$BUILD")
[ "$mode" = record ] || [ -f "$BUILD/CTestTestfile.cmake" ] || die "$BUILD is not a configured build tree (cmake --preset default && cmake --build --preset default)"
[ "$(id -u)" -eq 0 ] || die "must run as root (the testbed)"

failed=0
# phase NAME CMD...: runs CMD, prints and records its time and result.
phase() {
  local name=$1 start=$SECONDS rc
  shift
  printf '\n==> %s\n' "$name"
  "$@"
  rc=$?
  step_row "$name" $((SECONDS - start)) "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")"
  printf '==> %s: %d s, %s\n' "$name" $((SECONDS - start)) "$([ $rc = 0 ] && echo ok || echo "FAILED (exit status $rc)")"
  [ $rc = 0 ] || failed=1
  return $rc
}

run_ctest() { ctest --test-dir "$BUILD" --output-on-failure --no-tests=error "$@"; }

# record RELEASE: what RELEASE's Slurm prints now, into RECORDINGS/RELEASE.
record() {
  rm -rf "${RECORDINGS:?}/$1"
  mkdir -p "$RECORDINGS"
  "$REPO/scripts/record-slurm-outputs.sh" --slurm "$1" --out "$RECORDINGS/$1" --no-corpus \
    --run-dir "/tmp/hetscale-record-$1"
}

# The Slurm gateway's tests (tests/slurm) on a fresh recording of RELEASE.
recording_check() {
  local release=$1 out=$RECORDINGS/$1
  if [ "$recorded" = 1 ]; then
    [ -f "$out/README.md" ] || { echo "no recording of $release in $out (--record-only makes it)"; return 1; }
    echo "the recording made by --record-only: $out"
  else
    record "$release" || return 1
  fi
  if ! ctest --test-dir "$BUILD" -N -R '^slurm\.' | grep -q 'Test *#'; then
    echo "$BUILD has no tests of the Slurm gateway (tests/slurm): the recording is not checked"
    return 0
  fi
  HETSCALE_TEST_SLURM=$release HETSCALE_TEST_SLURM_RECORDED=$out run_ctest -R '^slurm\.'
}

# The tests that start MPI ranks with `srun --mpi=pmix`: on a release whose Slurm has no
# PMIx plugin (Debian's 26.05) they cannot run, and fail saying so; they are left out there.
PMIX_TESTS='PluginKernel\.MmRecordsTheInjectedWeights|ProductionSite\.StatusMatchesSacctAndResubmitCompletesAKilledTask|WeightsInTurn\.'

total=$SECONDS
for release in "${RELEASES[@]}"; do
  phase "$release: root (slurm-root.sh ensure)" "$REPO/scripts/slurm-root.sh" ensure "$release" || continue
  root=$("$REPO/scripts/slurm-root.sh" ensure "$release" | tail -n 1)
  without_pmix=()
  if ! compgen -G "$root/usr/lib/*/slurm-wlm/mpi_pmix*.so" >/dev/null; then
    echo "Slurm $release has no mpi/pmix plugin: the tests that need it are left out"
    without_pmix=(-E "$PMIX_TESTS")
  fi
  if [ "$mode" = record ]; then
    phase "$release: recording (record-slurm-outputs.sh)" record "$release"
    continue
  fi
  phase "$release: plugin (build-plugin.sh)" "$REPO/scripts/build-plugin.sh" --slurm "$release" || continue
  plugin=$REPO/build/slurm-$release/spank_plugin/hetscale.so
  # Only the SPANK symbols, and slurm_spank_init_failure_mode exactly where spank.h has it.
  phase "$release: plugin exports" "$REPO/tests/spank_plugin/check_exports.sh" "$plugin" \
    "$(sed -n 's/^HETSCALE_SPANK_HAS_INIT_FAILURE_MODE:INTERNAL=//p' "$REPO/build/slurm-$release/CMakeCache.txt")"
  if [ "$mode" = full ]; then
    phase "$release: every integration suite" env HETSCALE_TEST_SLURM="$release" \
      ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -L integration -LE timing "${without_pmix[@]}"
    continue
  fi
  phase "$release: plugin suite on $release" env HETSCALE_TEST_SLURM="$release" \
    ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -L integration -R '^integration\.spank_plugin\.' \
    "${without_pmix[@]}"
  phase "$release: its plugin on this machine's Slurm" env HETSCALE_TEST_FOREIGN_PLUGIN="$plugin" \
    ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -L integration -R 'PluginAcrossReleases'
  phase "$release: recording and the gateway's readers" recording_check "$release"
  phase "$release: production-site suite on $release" env HETSCALE_TEST_SLURM="$release" \
    ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -L integration -R '^integration\.jobgen_site\.' \
    "${without_pmix[@]}"
done

printf '\n==> Slurm releases (%s): %d s in all\n' "$mode" $((SECONDS - total))
print_step_rows
exit $failed
