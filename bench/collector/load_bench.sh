#!/usr/bin/env bash
# The collector's load rate against psql \copy of the same rows, on a PostgreSQL server of
# its own (docs/collector.md, "Performance"): brings the server up, runs
# bench_collector_load against it, and brings it down again.
#   bench/collector/load_bench.sh [RECORDS]        (default: 12,500 records of 8 ranks)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${HETSCALE_BUILD_DIR:-build/default}
run_dir=$build/bench/load-pg
port=${HETSCALE_BENCH_PG_PORT:-15433}
cmake --build "$build" --target bench_collector_load >/dev/null
trap 'scripts/pg.sh down --run-dir "$run_dir" >/dev/null' EXIT
scripts/pg.sh restart --run-dir "$run_dir" --port "$port" >/dev/null
"$build/bin/bench_collector_load" "$(cat "$run_dir/uri")" "$@"
