#!/usr/bin/env bash
# Regenerates the report's screenshots in docs/images/ (docs/dashboards.md): a throwaway
# PostgreSQL server, the capacity-planning fixture of the report tests loaded into it and
# its report written (report_fixture, tests/integration/report/), PNGs of the sections
# summary and capacity at 1280 px, then the server taken down.
#   scripts/report-screenshots.sh [--build-dir DIR] [--run-dir DIR] [--port P]
# Builds the programs it needs in the build tree (default build/default, configured).
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/default
run=run/report-screenshots
port=15499
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --run-dir) run="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "report-screenshots.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

cmake --build "$build" --target report_fixture
rm -rf "$run"
mkdir -p "$run"
scripts/pg.sh up --run-dir "$run/pg" --port "$port" >/dev/null
trap 'scripts/pg.sh down --run-dir "$run/pg" >/dev/null' EXIT
"$build/bin/report_fixture" --db "$(cat "$run/pg/uri")" --dir "$run/fixture" --screenshots docs/images
