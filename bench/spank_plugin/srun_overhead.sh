#!/usr/bin/env bash
# Prints the wall time of `srun -N4 -n4 true` with the hetscale plugin loaded and weights
# requested, against the same command with an empty plugstack, alternating the two so
# that drift hits both equally.
#   SLURM_CONF=... bench/spank_plugin/srun_overhead.sh PLUGSTACK_FILE "PLUGIN_LINE" [ROUNDS]
# PLUGSTACK_FILE is the file slurm.conf's PlugStackConfig names (rewritten here and left
# with PLUGIN_LINE); PLUGIN_LINE is e.g. "required /path/hetscale.so site=/path/site.toml".
set -euo pipefail
plugstack=$1 line=$2 rounds=${3:-20}
: "${SLURM_CONF:?set SLURM_CONF}"

time_one() {  # seconds of one srun, with the option when $1 = with
  local start end
  start=$(date +%s.%N)
  if [ "$1" = with ]; then srun -N4 -n4 --hetscale-weights=marked true; else srun -N4 -n4 true; fi
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.6f\n", b - a}'
}

with=() without=()
# Two runs of each per round, so that neither is always the first after a switch.
for ((i = 0; i < rounds; i++)); do
  : >"$plugstack"
  without+=("$(time_one without)" "$(time_one without)")
  echo "$line" >"$plugstack"
  with+=("$(time_one with)" "$(time_one with)")
done
echo "$line" >"$plugstack"

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1; s+=$1} END {printf "median %.4f s  mean %.4f s  min %.4f s  (n=%d)", a[int((NR+1)/2)], s/NR, a[1], NR}'; }
echo "with plugin, weights requested: $(stats "${with[@]}")"
echo "without plugin:                 $(stats "${without[@]}")"
med_with=$(printf '%s\n' "${with[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
med_without=$(printf '%s\n' "${without[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
awk -v w="$med_with" -v o="$med_without" 'BEGIN {printf "overhead (median): %.1f %%\n", (w / o - 1) * 100}'
