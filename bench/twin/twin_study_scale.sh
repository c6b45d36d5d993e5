#!/usr/bin/env bash
# A whole twin study at capacity-planning scale: the spec's doubling sets of 2 to 1024
# nodes on validation/twin/mixed72.toml grown to 1536 nodes (docs/performance.md, "The
# twin: a study of 2 to 1024 nodes"), then refinement rounds (hetscale twin refine)
# until no set needs more runs or --rounds is reached, each round collected into a
# PostgreSQL of its own (scripts/pg.sh). Prints each round's runs, wall time and largest
# simulation, then `hetscale analyze` of the experiment: the required work per set.
#   bench/twin/twin_study_scale.sh [--bin build/default/bin] [--spec bench/twin/scale-mm.toml]
#                                  [--nodes 1536] [--max-set NODES] [--rounds 3] [--run-dir DIR]
#                                  [--port P] [--overcommit]
# --nodes: the site's size; grown to 1536 its group-balanced sets reach 1024 nodes
# (grown to 1024, the doubling stops at 512). --max-set: the largest set (default: --nodes).
# --overcommit (as root) sets vm.overcommit_memory to 1 for the run and puts the old
# value back, for a spec whose folded buffers are larger than memory and swap (a charged
# mm or lu folds one broadcast piece or one rank's part: scale-mm and scale-lu need not).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
bin=build/default/bin spec=bench/twin/scale-mm.toml nodes=1536 max_set= rounds=3 run=build/twin-scale port=16961
overcommit=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --spec) spec=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --max-set) max_set=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --run-dir) run=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --overcommit) overcommit=1; shift ;;
    *) echo "twin_study_scale.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
hetscale=$bin/hetscale
max_set=${max_set:-$nodes}
site=validation/twin/mixed72.toml
name=$(basename "$spec" .toml)-twin

rm -rf "$run"
mkdir -p "$run"
. scripts/lib/overcommit.sh
cleanup() {
  scripts/pg.sh down --run-dir "$run/pg" >/dev/null || true
  overcommit_restore
}
trap cleanup EXIT
[ "$overcommit" = 0 ] || overcommit_allow
scripts/pg.sh restart --run-dir "$run/pg" --port "$port" >/dev/null
db=$(cat "$run/pg/uri")
"$hetscale" db migrate --db "$db" >/dev/null

echo "# twin study of $spec on $site grown to $nodes nodes, sets up to $max_set, $(nproc) processors, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%FT%TZ)"
printf '%-7s %6s %8s %14s %14s\n' round runs wall_s slowest_run_s peak_RSS_MiB
# One round: its runs (status.tsv), wall time, the longest simulation and the peak RSS
# of the largest process (/usr/bin/time over the round's command), which counts every
# mapping of a folded buffer's blocks: about the largest folded buffer, not memory held
# (bench/kernels/twin_scaling.sh measures that, as Pss).
report() {  # ROUND DIR SECONDS KIB
  local slowest runs
  runs=$(($(wc -l <"$2/status.tsv") - 1))
  slowest=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "host_seconds") c = i; next }
                        $c > m { m = $c } END { printf "%.1f", m }' "$2/status.tsv")
  printf '%-7s %6d %8.0f %14s %14d\n' "$1" "$runs" "$3" "$slowest" $(($4 / 1024))
}
total_start=$SECONDS
/usr/bin/time -f '%e %M' -o "$run/round0.time" \
  "$hetscale" twin study "$spec" --site "$site" --nodes "$nodes" --max-set-nodes "$max_set" --repetitions 1 \
  -o "$run/round0" --kernel-dir "$bin" 2>"$run/round0.progress" >"$run/round0.out"
read -r wall kib <"$run/round0.time"
report 0 "$run/round0" "$wall" "$kib"
"$hetscale" collect --db "$db" "$run/round0" >/dev/null
for ((r = 1; r <= rounds; r++)); do
  /usr/bin/time -f '%e %M' -o "$run/round$r.time" \
    "$hetscale" twin refine --db "$db" --from "$run/round0" -o "$run/round$r" --kernel-dir "$bin" \
    2>"$run/round$r.progress" >"$run/round$r.out"
  [ -d "$run/round$r" ] || { echo "round $r: $(cat "$run/round$r.out")"; break; }
  read -r wall kib <"$run/round$r.time"
  report "$r" "$run/round$r" "$wall" "$kib"
  "$hetscale" collect --db "$db" "$run/round$r" >/dev/null
done
echo "whole study: $((SECONDS - total_start)) s"
echo
"$hetscale" analyze --db "$db" --experiment "$name"
