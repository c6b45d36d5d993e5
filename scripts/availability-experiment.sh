#!/usr/bin/env bash
# The real availability experiment (docs/validation-availability.md): on the local
# cluster, one node's availability is made to vary for real by a competing load switched
# on and off inside its CPU cgroup; do equalized weights (docs/science.md section 3) shorten mm
# against marked-speed weights by what the simulator predicts for the measured TH?
#   scripts/availability-experiment.sh [options]
#     --run-dir DIR     cluster and results (default <repo>/run/avail; results in DIR/out)
#     --build-dir DIR   build tree with bin/hetscale, bin/hetscale-mm, spank_plugin/hetscale.so
#                       (default <repo>/build/default)
#     --runs N          runs per series: phase A N marked, phase B N marked + N equalized
#                       (30; about 4 min of runs, then about 1 min of calibration)
#     --seed S          load schedule, simulator and bootstrap seed (1)
#     --size N          mm problem size (2500: timed region 0.9-2.5 s, about 2.7 s a step)
#     --interval I      load intervals are uniform in (0, I] seconds (2)
#     --steady NODE     the node left alone (n2); --variable NODE: the loaded one (n3)
#     --keep            leave the cluster running at the end (the load is always stopped)
set -euo pipefail

# shellcheck disable=SC2034 # SCRIPT names us in the messages of the sourced helpers
SCRIPT=availability-experiment.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"
STATS=$REPO/validation/availability_stats.py

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

parse_args() {
  RUN_DIR=$REPO/run/avail BUILD_DIR=$REPO/build/default
  RUNS=30 SEED=1 SIZE=2500 INTERVAL=2 STEADY=n2 VARIABLE=n3 KEEP=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --run-dir) RUN_DIR=${2:?--run-dir needs a value}; shift 2 ;;
      --build-dir) BUILD_DIR=${2:?--build-dir needs a value}; shift 2 ;;
      --runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
      --seed) SEED=${2:?--seed needs a value}; shift 2 ;;
      --size) SIZE=${2:?--size needs a value}; shift 2 ;;
      --interval) INTERVAL=${2:?--interval needs a value}; shift 2 ;;
      --steady) STEADY=${2:?--steady needs a value}; shift 2 ;;
      --variable) VARIABLE=${2:?--variable needs a value}; shift 2 ;;
      --keep) KEEP=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown argument '$1' (try --help)" ;;
    esac
  done
  if ! [[ "$RUNS" =~ ^[0-9]+$ ]] || [ "$RUNS" -lt 3 ]; then die "--runs must be an integer >= 3, got '$RUNS'"; fi
  [[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer, got '$SEED'"
  [[ "$SIZE" =~ ^[1-9][0-9]*$ ]] || die "--size must be a positive integer, got '$SIZE'"
  awk "BEGIN{exit !($INTERVAL > 0)}" 2>/dev/null || die "--interval must be positive, got '$INTERVAL'"
  [ "$STEADY" != "$VARIABLE" ] || die "--steady and --variable must be different nodes"
  RUN_DIR=$(abs_path "$RUN_DIR") BUILD_DIR=$(abs_path "$BUILD_DIR")
  OUT=$RUN_DIR/out PARTITIONS=$RUN_DIR/partitions
  HETSCALE=$BUILD_DIR/bin/hetscale MM=$BUILD_DIR/bin/hetscale-mm
  PLUGIN=$BUILD_DIR/spank_plugin/hetscale.so
}

check_prerequisites() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (the cluster's cgroups and slurmd)"
  local f
  for f in "$HETSCALE" "$MM" "$PLUGIN"; do
    [ -e "$f" ] || die "$f is missing: cmake --build $BUILD_DIR --target hetscale hetscale-mm hetscale_spank"
  done
  command -v python3 >/dev/null || die "python3 is needed for the statistics"
  command -v jq >/dev/null || die "jq is needed to read the simulator's JSON"
}

# ---------------------------------------------------------------------------- cleanup
CLUSTER_STARTED=0 BURNER_PID="" CONTROLLER_PID=""

# On every exit, success or not: the load goes first (it lives in a node's cgroup, which
# `cluster.sh down` would otherwise have to SIGKILL), then the cluster unless --keep.
cleanup() {
  local status=$?
  stop_load
  if [ "$CLUSTER_STARTED" = 1 ]; then
    if [ "$KEEP" = 1 ]; then
      say "--keep: the cluster stays up; source $RUN_DIR/env, stop it with scripts/cluster.sh down --run-dir $RUN_DIR"
    else
      "$REPO/scripts/cluster.sh" down --run-dir "$RUN_DIR" >/dev/null || warn "cluster.sh down failed"
    fi
  fi
  exit "$status"
}

# ---------------------------------------------------------------------------- cluster
# A cluster that is already up in this run dir is not ours to tear down (nor are its
# files ours to delete): refuse it before touching anything.
refuse_running_cluster() {
  if "$REPO/scripts/cluster.sh" status --run-dir "$RUN_DIR" >/dev/null 2>&1; then
    die "a cluster already runs in $RUN_DIR (scripts/cluster.sh down --run-dir $RUN_DIR first)"
  fi
}

start_cluster() {
  mkdir -p "$PARTITIONS"
  CLUSTER_STARTED=1
  "$REPO/scripts/cluster.sh" up --run-dir "$RUN_DIR" --plugin "$PLUGIN" --hetscale "$HETSCALE" \
    --plugin-args "site=$RUN_DIR/site.toml default=off partitions=$PARTITIONS"
  # shellcheck source=/dev/null
  source "$RUN_DIR/env"
}

# The cgroup a node's job steps run in: the one its slurmd was started in (cluster.sh puts
# it there; every step forks from it). Read from /proc rather than rebuilt from
# cluster.sh's naming rule, so the two cannot drift apart.
node_cgroup() {
  local node=$1 pid path
  pid=$(cat "$RUN_DIR/pid/slurmd-$node.pid") || die "no PID file for the slurmd of $node"
  cg_detect
  if [ "$CG_VERSION" = 2 ]; then
    path=$(awk -F: '$1 == "0" { print $3 }' "/proc/$pid/cgroup")
  else
    path=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' "/proc/$pid/cgroup")
  fi
  if [ -z "$path" ] || [ ! -d "$CG_ROOT$path" ]; then die "cannot find the cpu cgroup of the slurmd of $node"; fi
  echo "$CG_ROOT$path"
}

# ---------------------------------------------------------------------------- the load
# One busy loop in the variable node's cgroup, stopped and continued (SIGSTOP/SIGCONT) by a
# controller that follows a seeded schedule. While it runs it takes half the node's quota
# from the mm rank (CFS shares a cgroup's quota evenly between runnable tasks); the
# controller itself runs outside the node's cgroup, so it costs the node nothing.
start_load() {
  local cg
  cg=$(node_cgroup "$VARIABLE")
  python3 "$STATS" schedule --seed "$SEED" --interval "$INTERVAL" --seconds 7200 >"$OUT/load-schedule.txt"
  (echo "$BASHPID" >"$cg/cgroup.procs" && exec sh -c 'while :; do :; done') &
  BURNER_PID=$!
  kill -STOP "$BURNER_PID"
  load_controller "$OUT/load-schedule.txt" "$OUT/load-log.txt" &
  CONTROLLER_PID=$!
  say "load: busy loop $BURNER_PID in $cg, switched by controller $CONTROLLER_PID" \
    "(intervals U(0, $INTERVAL] s, on with probability 1/2, seed $SEED)"
}

# load_controller SCHEDULE LOG: follows SCHEDULE ('seconds on|off' per line) over and
# over, logging '<epoch seconds> <state>' at each switch so the realised duty can be checked.
load_controller() {
  local schedule=$1 log=$2 length state
  while :; do
    while read -r length state; do
      if [ "$state" = on ]; then kill -CONT "$BURNER_PID" || exit 0; else kill -STOP "$BURNER_PID" || exit 0; fi
      echo "$EPOCHREALTIME $state" >>"$log"
      sleep "$length"
    done <"$schedule"
  done
}

stop_load() {
  if [ -n "$CONTROLLER_PID" ]; then
    kill -TERM "$CONTROLLER_PID" 2>/dev/null || true
    wait "$CONTROLLER_PID" 2>/dev/null || true
    CONTROLLER_PID=""
  fi
  if [ -n "$BURNER_PID" ]; then
    kill -KILL "$BURNER_PID" 2>/dev/null || true # SIGKILL also ends a stopped process
    wait "$BURNER_PID" 2>/dev/null || true
    BURNER_PID=""
  fi
}

# Share of the time the load was on, from the controller's log (expected: 1/2).
load_duty() {
  awk 'NR > 1 { d = $1 - t; total += d; if (s == "on") on += d } { t = $1; s = $2 }
       END { if (total > 0) printf "%.3f of %.0f s", on / total, total; else print "n/a" }' "$OUT/load-log.txt"
}

# ---------------------------------------------------------------------------- runs
# run_mm WEIGHTS RECORD: one 2-rank mm job step (rank 0 on the lower-named node), the
# plugin setting HETSCALE_WEIGHT from WEIGHTS; appends the run record to RECORD.
# --kill-on-bad-exit: when a rank dies, end the step at once (else the other rank polls
# in MPI until the timeout). A failed step writes no record and is tried once more (we
# saw one rank crash at start-up in ~330 steps); each failure is counted in the summary.
FAILED_STEPS=0
run_mm() {
  local weights=$1 record=$2 attempt
  for attempt in 1 2; do
    timeout 300 srun --mpi=pmix --kill-on-bad-exit=1 -N2 -n2 -w "$STEADY,$VARIABLE" \
      --hetscale-weights="$weights" "$MM" -N "$SIZE" --seed "$SEED" --record "$record" \
      --experiment "availability-$weights" >>"$OUT/mm.log" 2>&1 && return 0
    FAILED_STEPS=$((FAILED_STEPS + 1))
    warn "mm with $weights weights failed (attempt $attempt; see $OUT/mm.log)"
  done
  die "mm with $weights weights failed twice in a row (see $OUT/mm.log)"
}

last_wall() { jq -r '.wall_seconds' <<<"$(tail -n 1 "$1")" | xargs printf '%.3f'; }

# Phase A: marked-speed weights only; their records give each node's speed and variation.
phase_a() {
  local i
  for ((i = 1; i <= RUNS; i++)); do
    run_mm marked "$OUT/phase-a-marked.jsonl"
    printf '  A %2d/%d marked %s s\n' "$i" "$RUNS" "$(last_wall "$OUT/phase-a-marked.jsonl")"
  done
}

# Phase B: marked and equalized interleaved in ABBA order, so that a slow drift of the
# machine (other users' builds) weighs on both series alike.
phase_b() {
  local i order w
  for ((i = 1; i <= RUNS; i++)); do
    if ((i % 2)); then order="marked equalized"; else order="equalized marked"; fi
    for w in $order; do
      run_mm "$w" "$OUT/phase-b-$w.jsonl"
      printf '  B %2d/%d %-9s %s s\n' "$i" "$RUNS" "$w" "$(last_wall "$OUT/phase-b-$w.jsonl")"
    done
  done
}

# ---------------------------------------------------------------------------- model
estimate() {
  python3 "$STATS" estimate --records "$OUT/phase-a-marked.jsonl" --steady "$STEADY" \
    --variable "$VARIABLE" --interval "$INTERVAL" --out "$OUT/estimate.json"
}

# The equalized partition from the measured speeds and variations, written where the
# plugin looks for `--hetscale-weights=equalized` (PARTITIONS/<node list>.toml).
equalize() {
  local seconds
  python3 "$STATS" equalize-csv --estimate "$OUT/estimate.json" >"$OUT/equalize.csv"
  # --seconds: the step-1 computation time of one job, so that the partitioned work is one
  # job (sigma_T grows as sqrt(t): the shares depend on the run's length).
  seconds=$(jq -r .proportional_seconds "$OUT/estimate.json")
  "$HETSCALE" equalize --input "$OUT/equalize.csv" --seconds "$seconds" --site testbed \
    --partitions "$PARTITIONS"
  "$HETSCALE" equalize --input "$OUT/equalize.csv" --seconds "$seconds" --format json >"$OUT/equalize.json"
}

# weights_of COLUMN: "node=weight,..." from `hetscale equalize --format json`.
weights_of() { jq -r --arg c "$1" '[.[] | "\(.node)=\(.[$c])"] | join(",")' "$OUT/equalize.json"; }

# The simulator (docs/science.md section 3) with the measured speeds, TH and fixed part of a
# run, the load's own interval law (two-point availability, intervals U(0, I]): tau for the
# marked and the equalized shares, and how far that prediction moves when phase A is
# resampled (availability_stats.py predict).
marked_weights() { jq -r '[.nodes | to_entries[] | "\(.key)=\(.value.share)"] | join(",")' "$OUT/estimate.json"; }

predict() {
  python3 "$STATS" predict --hetscale "$HETSCALE" --estimate "$OUT/estimate.json" \
    --records "$OUT/phase-a-marked.jsonl" --marked "$(marked_weights)" \
    --equalized "$(weights_of equalized_weight)" --seed "$SEED" --out-dir "$OUT"
}

# The moment-matched predictions, added to predicted.json: calibrated on phase A ("as
# planned") and on phase B's marked runs ("same window"); the equalized shares are phase A's
# in both (availability_stats.py calibrate). After phase B: it needs phase B's marked runs.
calibrate() {
  python3 "$STATS" calibrate --hetscale "$HETSCALE" --phase-a "$OUT/phase-a-marked.jsonl" \
    --marked-records "$OUT/phase-b-marked.jsonl" --equalized-records "$OUT/phase-b-equalized.jsonl" \
    --steady "$STEADY" --variable "$VARIABLE" --interval "$INTERVAL" --marked "$(marked_weights)" \
    --equalized "$(weights_of equalized_weight)" --seed "$SEED" --predicted "$OUT/predicted.json"
}

# ---------------------------------------------------------------------------- main
main() {
  parse_args "$@"
  check_prerequisites
  refuse_running_cluster
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  rm -rf "$OUT" "$PARTITIONS"
  mkdir -p "$OUT"
  local start=$SECONDS
  echo "start $(date -u +%FT%TZ) uptime:$(uptime)" | tee "$OUT/machine.txt"
  start_cluster
  start_load
  say "phase A: $RUNS runs of mm -N $SIZE on $STEADY,$VARIABLE with marked weights"
  phase_a
  estimate | tee "$OUT/estimate.txt"
  equalize | tee "$OUT/equalize.txt"
  predict | tee "$OUT/predict.txt"
  say "phase B: $RUNS marked and $RUNS equalized runs, interleaved"
  phase_b
  echo "end   $(date -u +%FT%TZ) uptime:$(uptime)" | tee -a "$OUT/machine.txt"
  local elapsed=$((SECONDS - start))
  stop_load # the load has done its work; the calibration is computation only
  calibrate | tee "$OUT/calibrate.txt"
  {
    echo
    echo "mm -N $SIZE on $STEADY (steady) and $VARIABLE (load on $(load_duty)), seed $SEED," \
      "$elapsed s, $FAILED_STEPS failed step(s) retried"
    python3 "$STATS" compare --marked "$OUT/phase-b-marked.jsonl" \
      --equalized "$OUT/phase-b-equalized.jsonl" --predicted "$OUT/predicted.json" --seed "$SEED" \
      --phase-a "$OUT/phase-a-marked.jsonl" --load-log "$OUT/load-log.txt" --variable "$VARIABLE"
    echo
    cat "$OUT/calibrate.txt"
  } | tee "$OUT/summary.txt"
}

main "$@"
