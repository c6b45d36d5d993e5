#!/usr/bin/env bash
# Prints the wall time of `srun -N4 -n4 true` with the hetscale plugin loaded and weights
# requested, and with the plugin writing the tasks' times (HETSCALE_TASK_TIMES_DIR, a new
# directory each time, as `hetscale record step` gives), against the same command with an
# empty plugstack, alternating the three so that drift hits all equally; and the load
# average before and after (`uptime`).
#   SLURM_CONF=... bench/spank_plugin/srun_overhead.sh PLUGSTACK_FILE "PLUGIN_LINE" [ROUNDS]
#   source <testbed run dir>/env; bench/spank_plugin/srun_overhead.sh [ROUNDS]
# PLUGSTACK_FILE is the file slurm.conf's PlugStackConfig names (rewritten here and left
# with PLUGIN_LINE); PLUGIN_LINE is e.g. "required /path/hetscale.so site=/path/site.toml".
# The second form uses the testbed's plugstack ($HETSCALE_TESTBED_DIR/plugstack.conf, from
# `scripts/cluster.sh up --plugin ...`) and its current line, which it puts back at the end,
# also when interrupted (docs/admin.md, "Performance").
set -euo pipefail
: "${SLURM_CONF:?set SLURM_CONF}"
if [ $# -le 1 ]; then
  : "${HETSCALE_TESTBED_DIR:?give PLUGSTACK_FILE and PLUGIN_LINE, or source a testbed env file}"
  plugstack=$HETSCALE_TESTBED_DIR/plugstack.conf rounds=${1:-20}
  line=$(cat "$plugstack")
  [ -n "$line" ] || { echo "srun_overhead.sh: $plugstack is empty: bring the testbed up with --plugin" >&2; exit 2; }
else
  plugstack=$1 line=$2 rounds=${3:-20}
fi
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "srun_overhead.sh: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2; }

times_base=$(mktemp -d "${TMPDIR:-/tmp}/srun-overhead.XXXXXX")
trap 'echo "$line" >"$plugstack"; rm -rf "$times_base"' EXIT

time_one() {  # seconds of one srun: $1 = with (weights), times (task times) or without
  local start end dir
  dir=$times_base/$RANDOM$RANDOM
  [ "$1" != times ] || mkdir "$dir"
  start=$(date +%s.%N)
  case "$1" in
    with) srun -N4 -n4 --hetscale-weights=marked true ;;
    times) HETSCALE_TASK_TIMES_DIR=$dir srun -N4 -n4 true ;;
    *) srun -N4 -n4 true ;;
  esac
  end=$(date +%s.%N)
  [ "$1" != times ] || [ "$(ls "$dir" | wc -l)" = 4 ] ||
    { echo "srun_overhead.sh: the plugin wrote no task times in $dir" >&2; exit 1; }
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.6f\n", b - a}'
}

echo "load before: $(uptime)"
with=() times=() without=()
# Two runs of each per round, so that none is always the first after a switch.
for ((i = 0; i < rounds; i++)); do
  : >"$plugstack"
  without+=("$(time_one without)" "$(time_one without)")
  echo "$line" >"$plugstack"
  with+=("$(time_one with)" "$(time_one with)")
  for _ in 1 2; do t=$(time_one times) || exit 1; times+=("$t"); done
done
echo "$line" >"$plugstack"
echo "load after:  $(uptime)"

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1; s+=$1} END {printf "median %.4f s  mean %.4f s  min %.4f s  (n=%d)", a[int((NR+1)/2)], s/NR, a[1], NR}'; }
echo "with plugin, weights requested: $(stats "${with[@]}")"
echo "with plugin, task times:        $(stats "${times[@]}")"
echo "without plugin:                 $(stats "${without[@]}")"
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
med_without=$(median "${without[@]}")
awk -v w="$(median "${with[@]}")" -v o="$med_without" 'BEGIN {printf "overhead (median): %.1f %%\n", (w / o - 1) * 100}'
awk -v w="$(median "${times[@]}")" -v o="$med_without" \
  'BEGIN {printf "overhead of the task times (median): %.1f %%\n", (w / o - 1) * 100}'
