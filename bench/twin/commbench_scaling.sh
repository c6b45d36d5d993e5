#!/usr/bin/env bash
# Prints what the network probe on the twin (hetscale-twin-commbench) costs the simulating
# machine: simulation wall time and peak memory for 64, 128, ..., 1024 ranks, with what the
# probe measured in that time (docs/performance.md, "The network probe").
#   bench/twin/commbench_scaling.sh [--bin build/default/bin] [--min-ranks 64] [--max-ranks 1024]
#                                   [-- COMMBENCH OPTIONS]
# The platform is a star of identical hosts written on the fly (a SimGrid <cluster>: 20 Gflop/s
# per host, 1.25 GB/s and 5 us per link), one rank per host, the probe's defaults unless
# options follow `--`. Needs smpirun and /usr/bin/time.
set -euo pipefail
bin=build/default/bin min=64 max=1024 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --min-ranks) min=$2; shift 2 ;;
    --max-ranks) max=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "commbench_scaling.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
. "$(dirname "$0")/../../scripts/lib/star_platform.sh"
trap 'rm -rf "$work"' EXIT
star_platform "$work" "$max"
echo "# hetscale-twin-commbench ${extra[*]:-(defaults)}, $(nproc) processors, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%6s %8s %8s %10s %12s %7s %12s %7s\n' ranks wall_s cpu_s peak_MiB simulated_s sizes largest_B colls
for ((p = min; p <= max; p *= 2)); do
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
    smpirun -no-privatize -platform "$work/platform.xml" -hostfile "$work/hosts" -np "$p" \
    --cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree --cfg=smpi/wtime:0 --log=root.thres:warning \
    "$bin/hetscale-twin-commbench" --output "$work/probe.json" "${extra[@]}" >"$work/log" 2>&1 ||
    { echo "$p ranks failed:"; tail -5 "$work/log"; exit 1; }
  read -r wall user sys kib <"$work/time"
  python3 - "$work/probe.json" "$p" "$wall" "$user" "$sys" "$kib" <<'PY'
import json, sys
probe = json.load(open(sys.argv[1]))
samples = probe["point_to_point"]["remote"]["samples"]
print(f"{sys.argv[2]:>6} {float(sys.argv[3]):>8.1f} {float(sys.argv[4]) + float(sys.argv[5]):>8.1f} "
      f"{int(sys.argv[6]) / 1024:>10.0f} "
      f"{probe['elapsed_seconds']:>12.1f} {len(samples):>7} {max(s['bytes'] for s in samples):>12.0f} "
      f"{len(probe['collectives']):>7}")
PY
done
