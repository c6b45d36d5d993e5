#!/usr/bin/env bash
# Proportional against equalized partitions on the twin with changing availability, and
# both against `hetscale simulate` (docs/validation-availability.md, "The twin under
# simulated availability"): builds what it needs and runs twin_availability_validation, which
# prints the table. Simulations run one at a time.
#   validation/twin_availability.sh [--seeds S] [--repetitions R]   (defaults: 300, 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${HETSCALE_BUILD_DIR:-build/default}
cmake --build "$build" --target hetscale hetscale-twin-mm twin_availability_validation >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/twin_availability_validation" --hetscale "$build/bin/hetscale" \
  --smpirun "$(command -v smpirun)" --kernel "$build/bin/hetscale-twin-mm" --work "$work" "$@"
