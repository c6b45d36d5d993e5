#!/usr/bin/env bash
# Prints what a charged run of a twin kernel (default mm) costs the simulating machine:
# simulation wall time and peak memory for 2, 4, ..., 1024 ranks (docs/kernels.md, "The
# twin build"). Sizes whose messages exceed 2 GiB (N > 16383 for mm) show what the
# pieces cost (docs/kernels.md, "Messages of any size").
#   bench/kernels/twin_scaling.sh [--bin build/default/bin] [--kernel mm|ge|lu|conv2d] [-N 8192]
#                                 [--min-ranks 2] [--max-ranks 1024] [--overcommit]
# --overcommit (as root) sets vm.overcommit_memory to 1 for the runs and puts the old value
# back at the end: a folded buffer larger than memory and swap (mm's 80 GB at N = 100,000)
# is a mapping Linux's default heuristic refuses (docs/twin.md, "Problem sizes").
# The platform is a star of identical hosts written on the fly (a SimGrid <cluster>:
# 20 Gflop/s per host, 1.25 GB/s and 5 us per link). Needs smpirun and /usr/bin/time.
set -euo pipefail
bin=build/default/bin kernel=mm n=8192 min=2 max=1024 overcommit=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    -N) n=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --min-ranks) min=$2; shift 2 ;;
    --max-ranks) max=$2; shift 2 ;;
    --overcommit) overcommit=1; shift ;;
    *) echo "twin_scaling.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
. "$(dirname "$0")/../../scripts/lib/overcommit.sh"
. "$(dirname "$0")/../../scripts/lib/star_platform.sh"
trap 'rm -rf "$work"; overcommit_restore' EXIT
[ "$overcommit" = 0 ] || overcommit_allow
star_platform "$work" "$max"
echo "# hetscale-twin-$kernel -N $n --compute flops, $(nproc) processors, load $(cut -d' ' -f1 /proc/loadavg), vm.overcommit_memory $(cat /proc/sys/vm/overcommit_memory)"
printf '%6s %12s %12s %12s %14s\n' ranks wall_s peak_MiB real_MiB simulated_T_s
# Peak RSS counts every mapping of the folded region's one block, so it reads about the
# size of the largest folded buffer; real_MiB is the largest proportional set size (Pss,
# /proc/PID/smaps_rollup) sampled every 2 s (reading it walks every mapping: at 80 GB of
# folded mappings a reading every 200 ms took a quarter of the machine): the memory the
# simulation really holds.
peak_pss() {  # of the processes whose command line names this run's record
  local most=0 kib pid
  while [ -e "$work/running" ]; do
    for pid in $(pgrep -f -- "$work/runs.jsonl"); do
      kib=$(awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null) || true
      [ -n "$kib" ] && [ "$kib" -gt "$most" ] && most=$kib
    done
    sleep 2
  done
  echo "$most" >"$work/pss"
}
for ((p = min; p <= max; p *= 2)); do
  touch "$work/running"
  peak_pss &
  sampler=$!
  /usr/bin/time -f '%e %M' -o "$work/time" \
    smpirun -no-privatize -platform "$work/platform.xml" -hostfile "$work/hosts" -np "$p" \
    --cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree --cfg=smpi/wtime:0 --log=root.thres:warning \
    "$bin/hetscale-twin-$kernel" -N "$n" --weights equal --record "$work/runs.jsonl" >/dev/null
  rm "$work/running"
  wait "$sampler"
  read -r wall kib <"$work/time"
  read -r pss <"$work/pss"
  simulated=$(tail -n 1 "$work/runs.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["wall_seconds"])')
  real=$((pss / 1024)); [ "$pss" -gt 0 ] || real=-  # - : over before the first sample
  printf '%6d %12s %12d %12s %14.6f\n' "$p" "$wall" $((kib / 1024)) "$real" "$simulated"
done
