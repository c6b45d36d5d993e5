#!/usr/bin/env bash
# Builds the SPANK plugin (the module hetscale.so, target hetscale_spank) for one Slurm
# release of the testbed (docs/testbed.md, "Slurm releases").
#   scripts/build-plugin.sh --slurm RELEASE [BUILD_DIR]
# RELEASE is this machine's Slurm (22.05) or one of scripts/slurm-roots/ (24.11, 26.05),
# whose root scripts/slurm-root.sh provides (built when missing). BUILD_DIR defaults to
# <repo>/build/slurm-RELEASE. The project is configured there with the host's compiler
# against that release's headers (cmake/Slurm.cmake reads the release from them), without
# the test suites, and only hetscale_spank is built, with the test-only SPANK plugin the
# integration tests load beside it (hetscale_test_spoof_env.so, never installed). Prints
# the module's path. A plugin loads only into the release it was built for.
set -euo pipefail

SCRIPT=build-plugin.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

RELEASE="" BUILD=""
while [ $# -gt 0 ]; do
  case "$1" in
    --slurm) RELEASE=${2:?--slurm needs a release}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$BUILD" ] || die "one build directory only"; BUILD=$1; shift ;;
  esac
done
[ -n "$RELEASE" ] || die "--slurm RELEASE is required (try --help)"
BUILD=$(abs_path "${BUILD:-$REPO/build/slurm-$RELEASE}")

HOST_RELEASE=$(slurmd -V 2>/dev/null | awk '{print $2}' | cut -d. -f1,2) || true
args=(-DHETSCALE_BUILD_TESTS=OFF -DHETSCALE_SPANK_TEST_PLUGIN=ON)
if [ "$RELEASE" != "$HOST_RELEASE" ]; then
  ROOT=$("$REPO/scripts/slurm-root.sh" ensure "$RELEASE")
  # Only the root's slurm/ headers: -I<root>/usr/include would put the root's C library
  # headers before the host's, whose compiler and C library build the module.
  mkdir -p "$BUILD/slurm-include"
  ln -sfn "$ROOT/usr/include/slurm" "$BUILD/slurm-include/slurm"
  plugin_dir=$(dirname "$(find "$ROOT/usr/lib" -name auth_munge.so -print -quit)")
  args+=(-DSLURM_INCLUDE_DIR="$BUILD/slurm-include" -DHETSCALE_SLURM_PLUGIN_DIR="$plugin_dir")
fi

if ! grep -qx 'HETSCALE_SPANK_TEST_PLUGIN:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETSCALE_WERROR=ON "${args[@]}" >"$BUILD.configure.log" 2>&1 ||
    { tail -n 20 "$BUILD.configure.log" >&2; die "configuring $BUILD failed (log: $BUILD.configure.log)"; }
fi
built=$(sed -n 's/^HETSCALE_SLURM_RELEASE:INTERNAL=//p' "$BUILD/CMakeCache.txt")
[ "$built" = "$RELEASE" ] || die "$BUILD is configured for Slurm $built, not $RELEASE"
cmake --build "$BUILD" --target hetscale_spank hetscale_test_spoof_env >&2
find "$BUILD" -name hetscale.so -path '*spank_plugin*' -print -quit
