#!/usr/bin/env bash
# The `cluster` fixture of the integration suites (tests/integration/CMakeLists.txt,
# docs/testbed.md, "CTest fixtures"): brings up the cluster the tests run against, of the
# Slurm release HETSCALE_TEST_SLURM names at run time, so the same host-built test
# binaries run on any release of the testbed:
#   cluster_fixture.sh up RUN_DIR BIN_DIR PLUGIN PLUGIN_ARGS
#   cluster_fixture.sh down RUN_DIR
# Without HETSCALE_TEST_SLURM (or naming this machine's release) the cluster is this
# machine's Slurm with PLUGIN, the plugin of this build tree (none when empty); its site
# table is written by this build tree's BIN_DIR/hetscale (cluster.sh --hetscale). With
# another release R it runs from R's root (scripts/cluster.sh --slurm R) and loads
# HETSCALE_TEST_PLUGIN, by default the plugin scripts/build-plugin.sh --slurm R built
# (<repo>/build/slurm-R/spank_plugin/hetscale.so); jobs there run this tree's programs
# (BIN_DIR/hetscale and BIN_DIR/hetscale-*), so the host libraries they need that the root
# lacks go into the cluster's view (HETSCALE_TESTBED_HOST_PROGRAMS).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$REPO/scripts/cluster.sh
verb=${1:?up or down} run_dir=${2:?run dir}
if [ "$verb" = down ]; then exec "$cluster" down --run-dir "$run_dir"; fi
[ "$verb" = up ] || { echo "cluster_fixture.sh: up or down, not '$verb'" >&2; exit 2; }
bin_dir=${3:?bin dir} plugin=${4-} plugin_args=${5-}

release=${HETSCALE_TEST_SLURM:-}
host_release=$(slurmd -V 2>/dev/null | awk '{print $2}' | cut -d. -f1,2) || true
args=(--run-dir "$run_dir" --hetscale "$bin_dir/hetscale")
if [ -n "$release" ] && [ "$release" != "$host_release" ]; then
  plugin=${HETSCALE_TEST_PLUGIN:-$REPO/build/slurm-$release/spank_plugin/hetscale.so}
  [ -f "$plugin" ] || { echo "cluster_fixture.sh: no plugin for Slurm $release at $plugin (scripts/build-plugin.sh --slurm $release)" >&2; exit 1; }
  args+=(--slurm "$release")
  programs=""
  for p in "$bin_dir"/hetscale "$bin_dir"/hetscale-*; do [ -x "$p" ] && programs+="${programs:+:}$p"; done
  export HETSCALE_TESTBED_HOST_PROGRAMS=$programs
fi
[ -z "$plugin" ] || args+=(--plugin "$plugin" --plugin-args "$plugin_args")
# `restart` = down then up: a cluster left running by a killed run is replaced.
exec "$cluster" restart "${args[@]}"
