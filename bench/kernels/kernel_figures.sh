#!/usr/bin/env bash
# The kernels' figures in one run (docs/performance.md, "Kernels against dgemm"): brings
# up the local cluster with the SPANK plugin in its own run dir, runs bench_kernel_figures
# (which writes its section of docs/performance.md), and brings the cluster down again.
#   bench/kernels/kernel_figures.sh [--repeats R] [--cpu C] [--no-docs]   (defaults: 5, last)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${HETSCALE_BUILD_DIR:-build/default}
run_dir=$build/bench/kernel-figures-cluster
cmake --build "$build" --target bench_kernel_figures hetscale_spank hetscale >/dev/null
trap 'scripts/cluster.sh down --run-dir "$run_dir" >/dev/null' EXIT
scripts/cluster.sh restart --run-dir "$run_dir" --hetscale "$build/bin/hetscale" \
  --plugin "$build/spank_plugin/hetscale.so" \
  --plugin-args "site=$PWD/$run_dir/site.toml default=off"
# shellcheck source=/dev/null
source "$run_dir/env"
"$build/bin/bench_kernel_figures" "$@"
