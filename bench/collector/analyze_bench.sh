#!/usr/bin/env bash
# `hetscale analyze` on 100,000 runs, cold and warm (docs/collector.md, "Performance"): a
# PostgreSQL server of its own, the study generated and collected, the server bounced
# (so PostgreSQL's own buffers are empty: "cold"; the OS page cache is not dropped), then
# analyze timed ROUNDS times.
#   bench/collector/analyze_bench.sh [RUNS] [ROUNDS]      (defaults: 100000, 4)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${HETSCALE_BUILD_DIR:-build/default}
run_dir=$build/bench/analyze-pg
port=${HETSCALE_BENCH_PG_PORT:-15434}
cmake --build "$build" --target bench_analyze >/dev/null
trap 'scripts/pg.sh down --run-dir "$run_dir" >/dev/null' EXIT
scripts/pg.sh restart --run-dir "$run_dir" --port "$port" >/dev/null
"$build/bin/bench_analyze" "$(cat "$run_dir/uri")" load "${1:-100000}"
scripts/pg.sh bounce --run-dir "$run_dir" >/dev/null
"$build/bin/bench_analyze" "$(cat "$run_dir/uri")" analyze "${2:-4}"
