#!/usr/bin/env bash
# Prints how much marked-speed weights save over equal weights for mm on a full-speed
# and a half-speed node of the local cluster (docs/kernels.md). Needs a running testbed:
#   scripts/cluster.sh up && source run/cluster/env
#   bench/kernels/weighted_vs_equal.sh [--bin build/default/bin] [-N 1500] [--repeats 3]
# Runs alternate (weighted, equal, weighted, ...) so that both see the same conditions.
set -euo pipefail
bin=build/default/bin n=1500 repeats=3 fast=n2 slow=n4
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    -N) n=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --nodes) fast=${2%,*}; slow=${2#*,}; shift 2 ;;
    *) echo "weighted_vs_equal.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
: "${SLURM_CONF:?start the testbed and source its env first (scripts/cluster.sh up)}"
record=$(mktemp)
trap 'rm -f "$record"' EXIT
# Slurm orders a step's tasks by node name: rank 0 on $fast, rank 1 on $slow.
for _ in $(seq "$repeats"); do
  for weights in 1,0.5 equal; do
    srun --mpi=pmix -w "$fast,$slow" -N2 -n2 --ntasks-per-node=1 \
      "$bin/hetscale-mm" -N "$n" --weights "$weights" --record "$record" >/dev/null
  done
done
python3 - "$record" "$n" "$fast" "$slow" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
assert all(r["verified"] for r in runs)
by = {}
for r in runs:
    by.setdefault(r["weights_source"], []).append(r["wall_seconds"])
hosts = [x["host"] for x in runs[0]["ranks"]]
weighted, equal = statistics.median(by["option"]), statistics.median(by["equal"])
print(f"mm N={sys.argv[2]} on {hosts[0]} (rank 0, speed 1.0) + {hosts[1]} (rank 1, speed 0.5), "
      f"{len(by['option'])} runs each")
print(f"  weights 1,0.5 : median T = {weighted:.3f} s  {sorted(by['option'])}")
print(f"  equal weights : median T = {equal:.3f} s  {sorted(by['equal'])}")
print(f"  weighted / equal = {weighted / equal:.3f}  (ideal 0.667, target <= 0.75)")
PY
