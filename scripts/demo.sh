#!/usr/bin/env bash
# The README's main command. Installs what is missing, builds, then runs hetscale on the
# bundled example site tables: the machine sets of each, and the isospeed-e calculators.
#   scripts/demo.sh [--build-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/default
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

stage() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

stage "dependencies"
scripts/install-deps.sh

stage "build ($build)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target hetscale
hetscale="$build/bin/hetscale"

for site in site-configs/three-group-head.toml site-configs/modern-mixed.toml; do
  for policy in stop fill; do
    stage "machine sets of $site (policy $policy)"
    "$hetscale" sets --site "$site" --policy "$policy"
  done
done

stage "speed-efficiency of one run: ge, N = 2000, 80 s on a 4-node set of 3 x 20.29 + 42.15 Mflops"
"$hetscale" efficiency --workload ge --param N=2000 --seconds 80 --speed 103.02

stage "isospeed-e scalability psi over doubling sets (C:N that reached the target E_s)"
"$hetscale" psi --workload mm --point 242.04:600 --point 335.77:690 --point 523.23:830 --point 898.15:1020

stage "shared computers: proportional vs equalized vs best partition (Monte Carlo, seed 1)"
"$hetscale" simulate --computers tests/fixtures/cli/computers.csv --interval 10 \
  --partition proportional equalized linearised optimised

stage "done"
echo "Next: scripts/test.sh runs every test; docs/ has the guides."
