#!/usr/bin/env bash
# Prints the wall time of `srun -N4 -n4 true` with the hetscale plugin loaded and weights
# requested, against the same command with an empty plugstack, alternating the two so
# that drift hits both equally; and the load average before and after (`uptime`).
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
trap 'echo "$line" >"$plugstack"' EXIT

time_one() {  # seconds of one srun, with the option when $1 = with
  local start end
  start=$(date +%s.%N)
  if [ "$1" = with ]; then srun -N4 -n4 --hetscale-weights=marked true; else srun -N4 -n4 true; fi
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.6f\n", b - a}'
}

echo "load before: $(uptime)"
with=() without=()
# Two runs of each per round, so that neither is always the first after a switch.
for ((i = 0; i < rounds; i++)); do
  : >"$plugstack"
  without+=("$(time_one without)" "$(time_one without)")
  echo "$line" >"$plugstack"
  with+=("$(time_one with)" "$(time_one with)")
done
echo "$line" >"$plugstack"
echo "load after:  $(uptime)"

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1; s+=$1} END {printf "median %.4f s  mean %.4f s  min %.4f s  (n=%d)", a[int((NR+1)/2)], s/NR, a[1], NR}'; }
echo "with plugin, weights requested: $(stats "${with[@]}")"
echo "without plugin:                 $(stats "${without[@]}")"
med_with=$(printf '%s\n' "${with[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
med_without=$(printf '%s\n' "${without[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
awk -v w="$med_with" -v o="$med_without" 'BEGIN {printf "overhead (median): %.1f %%\n", (w / o - 1) * 100}'
