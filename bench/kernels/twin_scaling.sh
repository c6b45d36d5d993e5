#!/usr/bin/env bash
# Prints what a charged run of the twin mm costs the simulating machine: simulation wall
# time and peak memory for 2, 4, ..., 1024 ranks (docs/kernels.md, "The twin build").
#   bench/kernels/twin_scaling.sh [--bin build/default/bin] [-N 8192] [--max-ranks 1024]
# The platform is a star of identical hosts written on the fly (a SimGrid <cluster>:
# 20 Gflop/s per host, 1.25 GB/s and 5 us per link). Needs smpirun and /usr/bin/time.
set -euo pipefail
bin=build/default/bin n=8192 max=1024
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    -N) n=$2; shift 2 ;;
    --max-ranks) max=$2; shift 2 ;;
    *) echo "twin_scaling.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/platform.xml" <<XML
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="star" prefix="h" suffix="" radical="0-$((max - 1))" speed="20Gf" bw="1.25GBps" lat="5us"/>
</platform>
XML
seq 0 $((max - 1)) | sed 's/^/h/' >"$work/hosts"
echo "# hetscale-twin-mm -N $n --compute flops, $(nproc) processors, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%6s %12s %12s %14s\n' ranks wall_s peak_MiB simulated_T_s
for ((p = 2; p <= max; p *= 2)); do
  /usr/bin/time -f '%e %M' -o "$work/time" \
    smpirun -no-privatize -platform "$work/platform.xml" -hostfile "$work/hosts" -np "$p" \
    --cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree --log=root.thres:warning \
    "$bin/hetscale-twin-mm" -N "$n" --weights equal --record "$work/runs.jsonl" >/dev/null
  read -r wall kib <"$work/time"
  simulated=$(tail -n 1 "$work/runs.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["wall_seconds"])')
  printf '%6d %12s %12d %14.6f\n' "$p" "$wall" $((kib / 1024)) "$simulated"
done
