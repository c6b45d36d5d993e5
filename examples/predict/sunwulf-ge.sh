#!/bin/bash
# Runs the analytic prediction of sunwulf-ge.args (the JPDC paper's worked example); any
# arguments are passed on, e.g. --format json.
#   examples/predict/sunwulf-ge.sh [--format json|csv]
# HETSCALE names the executable (default: build/default/bin/hetscale of this checkout if
# built, else `hetscale` on the PATH).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hetscale=${HETSCALE:-$here/../../build/default/bin/hetscale}
[ -x "$hetscale" ] || hetscale=hetscale
args=()
while IFS= read -r line; do
  case "$line" in '#'* | '') continue ;; esac
  args+=("$line")
done <"$here/sunwulf-ge.args"
exec "$hetscale" "${args[@]}" "$@"
