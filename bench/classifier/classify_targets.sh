#!/usr/bin/env bash
# The classifier's timing targets over repeated rounds, with 95% confidence intervals
# (docs/performance.md): brings up the local cluster in its own run dir, runs
# bench_classify_targets against it, and brings it down again.
#   bench/classifier/classify_targets.sh [--rounds R] [--seconds S] [--size N]
#   (defaults: 10 rounds, 1 s, the benchmark's default dgemm order as in the main job)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${HETSCALE_BUILD_DIR:-build/default}
run_dir=$build/bench/classify-cluster
[ -x "$build/bin/bench_classify_targets" ] && [ -x "$build/bin/hetscale" ] || cmake --build "$build" --target bench_classify_targets hetscale
trap 'scripts/cluster.sh down --run-dir "$run_dir" >/dev/null' EXIT
scripts/cluster.sh restart --run-dir "$run_dir" --hetscale "$build/bin/hetscale"
# shellcheck source=/dev/null
source "$run_dir/env"
"$build/bin/bench_classify_targets" "$@"
