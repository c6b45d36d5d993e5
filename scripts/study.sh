#!/usr/bin/env bash
# The end-to-end heterogeneous scalability study on the local testbed (docs/study.md):
# install, build, cluster + SPANK plugin + PostgreSQL, classify every node, site table,
# jobgen for mm and ge over the doubling sets, submit, wait, collect, analyze, refine,
# analyze again, psi table, equalize mm's largest set and re-run it with marked and
# equalized weights, predict, the twin (network calibrated by hetscale-commbench, the same
# specs simulated on the site grown to 64 nodes), HTML report; tear everything down on exit
# (also on failure).
#   scripts/study.sh [--quick] [--keep] [--run-dir DIR] [--port P] [--no-build] [--build-dir DIR]
#     --quick      fewer sizes, one refinement round (< 3 min)
#     --keep       leave the cluster and PostgreSQL running at the end
#     --run-dir    where everything goes (default: <repo>/run/study; at most ~55 chars)
#     --port       PostgreSQL port (default 16901)
#     --no-build   use the existing binaries of the build dir (tests)
#     --build-dir  the build tree of preset default (default: <repo>/build/default)
#     --layout     testbed layout (default site-configs/testbed-layout.txt)
#     --specs P    experiment specs examples/experiments/P-<kernel>[-quick].toml (default study)
#     --kernels K  comma-separated kernels (default mm,ge)
#     --fit-sets L also predict from these sets only (held-out validation, docs/validation.md)
#     --twin-nodes N  the twin's site size (default 64; 0: no twin stage)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"

QUICK=0 KEEP=0 BUILD=1 PORT=16901 RUN=$REPO/run/study
BUILD_DIR=$REPO/build/default
KERNELS=(mm ge)
LAYOUT=$REPO/site-configs/testbed-layout.txt SPECS=study FIT_SETS= TWIN_NODES=64
# The kernels sleep between tests of a pending message instead of busy-polling: on the
# testbed's CPU-quota nodes a polling rank spends its quota while it waits and is then
# throttled for the rest of the period (docs/kernels.md). sbatch passes it on to the jobs.
export HETSCALE_MPI_WAIT=sleep

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "study.sh: $*" >&2; exit 1; }

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --quick) QUICK=1; shift ;;
      --keep) KEEP=1; shift ;;
      --no-build) BUILD=0; shift ;;
      --run-dir) RUN=${2:?--run-dir needs a value}; shift 2 ;;
      --port) PORT=${2:?--port needs a value}; shift 2 ;;
      --build-dir) BUILD_DIR=${2:?--build-dir needs a value}; shift 2 ;;
      --layout) LAYOUT=${2:?--layout needs a value}; shift 2 ;;
      --specs) SPECS=${2:?--specs needs a value}; shift 2 ;;
      --kernels) IFS=, read -r -a KERNELS <<<"${2:?--kernels needs a value}"; shift 2 ;;
      --fit-sets) FIT_SETS=${2:?--fit-sets needs a value}; shift 2 ;;
      --twin-nodes) TWIN_NODES=${2:?--twin-nodes needs a value}; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown argument '$1' (see --help)" ;;
    esac
  done
  mkdir -p "$RUN"
  RUN=$(cd "$RUN" && pwd)
  BUILD_DIR=$(mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" && pwd)
  BIN=$BUILD_DIR/bin
  HETSCALE=$BIN/hetscale
  [ ${#RUN} -le 60 ] || die "--run-dir '$RUN' is too long (unix socket paths under it are limited)"
}

# --- progress ------------------------------------------------------------------------
STAGE_NO=0 STAGE_NAME="" STAGE_START=0 STUDY_START=$SECONDS
TIMINGS=()
stage_end() {
  [ -n "$STAGE_NAME" ] || return 0
  local d=$((SECONDS - STAGE_START))
  TIMINGS+=("$(printf '%2d  %-46s %4d s' "$STAGE_NO" "$STAGE_NAME" "$d")")
  printf '    (%s: %d s)\n' "$STAGE_NAME" "$d"
  STAGE_NAME=""
}
stage() {
  stage_end
  STAGE_NO=$((STAGE_NO + 1)) STAGE_NAME=$* STAGE_START=$SECONDS
  printf '\n\033[1m==> [%d] %s\033[0m  (t=%d s)\n' "$STAGE_NO" "$*" "$((SECONDS - STUDY_START))"
}
skipped() { printf '\n\033[1m==> [-] skipped: %s\033[0m\n' "$*"; SKIPPED+=("$*"); }
SKIPPED=()

# --- teardown --------------------------------------------------------------------------
CLUSTER_UP=0 PG_UP=0
teardown() {
  local rc=$?
  set +e
  stage_end
  if [ "$KEEP" = 1 ]; then
    [ "$CLUSTER_UP" = 1 ] && echo "kept: cluster (source $RUN/cluster/env; scripts/cluster.sh down --run-dir $RUN/cluster)"
    [ "$PG_UP" = 1 ] && echo "kept: PostgreSQL $DB (scripts/pg.sh down --run-dir $RUN/pg)"
  else
    [ "$CLUSTER_UP" = 1 ] && { echo "teardown: cluster"; scripts/cluster.sh down --run-dir "$RUN/cluster" >/dev/null; }
    [ "$PG_UP" = 1 ] && { echo "teardown: PostgreSQL"; scripts/pg.sh down --run-dir "$RUN/pg" >/dev/null; }
  fi
  if [ $rc -ne 0 ]; then
    echo "study.sh: FAILED in stage [$STAGE_NO] (exit $rc) after $((SECONDS - STUDY_START)) s" >&2
  fi
  exit $rc
}

# --- stages ----------------------------------------------------------------------------
install_deps() {
  stage "dependencies (scripts/install-deps.sh)"
  scripts/install-deps.sh
}

build() {
  stage "build (preset default: hetscale, kernels, SPANK plugin)"
  # mm is always built: the equalize stage re-runs it.
  local k targets=(hetscale hetscale_spank hetscale-commbench hetscale-mm hetscale-twin-mm) programs=()
  for k in "${KERNELS[@]}"; do
    [ "$k" = mm ] || targets+=("hetscale-$k" "hetscale-twin-$k")
    programs+=("$BIN/hetscale-$k")
  done
  if [ "$BUILD" = 0 ]; then
    echo "--no-build: using $BIN"
  else
    if [ "$BUILD_DIR" = "$REPO/build/default" ]; then
      [ -f "$BUILD_DIR/build.ninja" ] || cmake --preset default >/dev/null
      cmake --build --preset default --target "${targets[@]}"
    else
      [ -f "$BUILD_DIR/build.ninja" ] || cmake -S "$REPO" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
      cmake --build "$BUILD_DIR" --target "${targets[@]}"
    fi
  fi
  for f in "$HETSCALE" "$BIN/hetscale-mm" "${programs[@]}" "$BUILD_DIR/spank_plugin/hetscale.so"; do
    [ -x "$f" ] || [ -f "$f" ] || die "missing $f after the build"
  done
}

cluster_up() {
  stage "local heterogeneous cluster + SPANK plugin (scripts/cluster.sh)"
  rm -rf "$RUN/partitions" && mkdir -p "$RUN/partitions"
  CLUSTER_UP=1
  scripts/cluster.sh restart --run-dir "$RUN/cluster" --layout "$LAYOUT" \
    --plugin "$BUILD_DIR/spank_plugin/hetscale.so" \
    --plugin-args "site=$RUN/site.toml default=off partitions=$RUN/partitions"
  # shellcheck disable=SC1091
  source "$RUN/cluster/env"
  scripts/cluster.sh status --run-dir "$RUN/cluster"
}

pg_up() {
  stage "PostgreSQL on port $PORT (scripts/pg.sh) + hetscale db migrate"
  PG_UP=1
  scripts/pg.sh restart --run-dir "$RUN/pg" --port "$PORT"
  DB=$(cat "$RUN/pg/uri")
  "$HETSCALE" db migrate --db "$DB"
}

classify_nodes() {
  stage "classify every node (srun -w nX hetscale classify, dgemm)"
  local seconds=2 node
  [ "$QUICK" = 1 ] && seconds=1
  rm -rf "$RUN/node-records" && mkdir -p "$RUN/node-records"
  # One node at a time: each benchmark has the machine's cores to itself within its quota.
  for node in $(sinfo -h -N -o '%N' | sort -u); do
    srun -w "$node" -N1 -n1 --hetscale-weights=off "$HETSCALE" classify --benchmark dgemm \
      --seconds "$seconds" --output "$RUN/node-records/%n.json"
    python3 - "$RUN/node-records/$node.json" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
print(f"  {r['host']}: {r['marked_speed']:.0f} {r['speed_unit']} per processor, "
      f"{r['processors']} processor(s), cv {r['cv']:.3f}, state {r['state']}")
EOF
  done
}

site_table() {
  stage "site table (hetscale groups -> $RUN/site.toml, read by the plugin)"
  "$HETSCALE" groups "$RUN/node-records" -o "$RUN/site.toml" --site-name testbed --db "$DB"
  "$HETSCALE" sets --site "$RUN/site.toml" --start "$SET_START" --max "$SET_MAX"
}

spec_for() { # kernel -> spec file
  local k=$1
  if [ "$QUICK" = 1 ]; then echo "$REPO/examples/experiments/$SPECS-$k-quick.toml"
  else echo "$REPO/examples/experiments/$SPECS-$k.toml"; fi
}
exp_name() { sed -n 's/^name *= *"\(.*\)".*/\1/p' "$1" | head -1; }
exp_target() { sed -n 's/^target_efficiency *= *\([0-9.]*\).*/\1/p' "$1" | head -1; }
# Without --tolerance, analyze takes the tolerance of the spec's [refine] table from the
# collected plan (a measured E_s that close to the target counts as reached, as in the
# refinement; docs/collector.md) and prints which it used.
analyze() { # spec [analyze options...]
  local spec=$1; shift
  "$HETSCALE" analyze --db "$DB" --experiment "$(exp_name "$spec")" --target "$(exp_target "$spec")" "$@"
}

jobgen_all() {
  stage "generate the studies (hetscale jobgen: ${KERNELS[*]})"
  local k
  for k in "${KERNELS[@]}"; do
    rm -rf "$RUN/$k-study"
    "$HETSCALE" jobgen --site "$RUN/site.toml" --experiment "$(spec_for "$k")" \
      -o "$RUN/$k-study" --kernel-dir "$BIN"
    echo "  $k: $(ls "$RUN/$k-study"/set*.sbatch | wc -l) set script(s) in $RUN/$k-study"
  done
}

wait_jobs() { # study dir: waits until none of its jobs is queued or running
  local dir=$1 ids n limit=$((QUICK ? 300 : 900)) t0=$SECONDS
  ids=$(awk '{print $2}' "$dir/jobs.txt" | paste -sd,)
  while :; do
    n=$(squeue -h -j "$ids" 2>/dev/null | wc -l || true)
    [ "$n" -eq 0 ] && break
    [ $((SECONDS - t0)) -lt "$limit" ] || { squeue; die "jobs $ids still queued after $limit s"; }
    sleep 1
  done
  local done_lines failed
  done_lines=$(grep -cE "ArrayJobId=($(echo "$ids" | tr , '|')) " "$RUN/cluster/jobcomp.log" || true)
  failed=$(grep -E "ArrayJobId=($(echo "$ids" | tr , '|')) " "$RUN/cluster/jobcomp.log" \
    | grep -vc "JobState=COMPLETED" || true)
  echo "  jobs $ids: $done_lines jobcomp line(s), $failed not COMPLETED ($((SECONDS - t0)) s)"
  [ "$failed" -eq 0 ] || { tail -n 20 "$dir"/logs/* >&2 || true; die "jobs of $dir failed"; }
}

submit_and_wait() { # study dir
  local dir=$1
  (cd "$dir" && ./submit.sh)
  sed 's/^/  /' "$dir/jobs.txt"
  wait_jobs "$dir"
  echo "  $(cat "$dir"/records/*.jsonl 2>/dev/null | wc -l) run record(s) in $dir/records"
}

run_all() {
  local k
  for k in "${KERNELS[@]}"; do
    # One experiment at a time: the kernels must not compete for the two real cores.
    stage "submit + wait: $k (generated submit.sh, squeue until empty)"
    submit_and_wait "$RUN/$k-study"
  done
}

collect_all() { # label dirs...
  local label=$1; shift
  stage "collect ($label: hetscale collect)"
  "$HETSCALE" collect --db "$DB" "$@"
}

analyze_all() { # label
  stage "analyze ($1: hetscale analyze --target E_s)"
  local k spec
  for k in "${KERNELS[@]}"; do
    spec=$(spec_for "$k")
    echo "--- $k: experiment $(exp_name "$spec"), target E_s $(exp_target "$spec")"
    analyze "$spec"
  done
}

# Each round from the database alone: the spec, the sets and the round number come from the
# latest plan collected, the runs from every round collected.
refine_all() {
  local rounds=$((QUICK ? 1 : 2)) r k spec out new=() kernels=("${KERNELS[@]}")
  for r in $(seq 1 "$rounds"); do
    stage "refine round $r (hetscale jobgen --refine --db: spec, plan and runs from the database)"
    new=()
    for k in "${kernels[@]}"; do
      spec=$(spec_for "$k")
      out=$RUN/$k-refine$r
      rm -rf "$out"
      echo "--- $k"
      "$HETSCALE" jobgen --refine --experiment "$(exp_name "$spec")" --db "$DB" -o "$out" \
        --kernel-dir "$BIN"
      [ -x "$out/submit.sh" ] && new+=("$k")
    done
    if [ ${#new[@]} -eq 0 ]; then
      echo "  every set reached its target or has no estimate: no refinement jobs"
      return 0
    fi
    local dirs=()
    for k in "${new[@]}"; do
      stage "refine round $r: submit + wait: $k"
      submit_and_wait "$RUN/$k-refine$r"
      dirs+=("$RUN/$k-refine$r")
    done
    collect_all "refine round $r" "${dirs[@]}"
  done
}

psi_table() {
  stage "the psi table (isospeed-e scalability between consecutive sets)"
  local k spec
  printf '%-8s %-18s %6s %10s %10s %8s\n' kernel experiment target "set->set" "C->C'" psi | tee "$RUN/psi.txt"
  for k in "${KERNELS[@]}"; do
    spec=$(spec_for "$k")
    analyze "$spec" --format json | python3 "$REPO/scripts/lib/study_psi.py" "$k" "$(exp_name "$spec")" "$(exp_target "$spec")" \
      | tee -a "$RUN/psi.txt"
  done
}

# The twin of this site: its network calibrated here by hetscale-commbench (one rank per
# node), the site grown to twice TWIN_NODES nodes of the same mix (the machine sets take
# as many nodes from every group, so a set of TWIN_NODES needs that many of the smallest
# group's share), and every spec simulated on it up to sets of TWIN_NODES (one repetition: the twin's runs are deterministic; psi floor 0.7,
# so that the largest sets' sizes stay within what the twin folds; the kernel's compute
# efficiency calibrated from its measured runs here). The twin experiments
# are named <experiment>-twin; the report sets them beside the measured ones.
twin_stage() {
  stage "twin: network calibration (hetscale-commbench), then ${KERNELS[*]} on $TWIN_NODES simulated nodes"
  local k nodes
  nodes=$(sinfo -h -N -o '%N' | sort -u | wc -l)
  # Messages up to 64 MiB, so that the transfer time stands out of the CPU quotas' jitter.
  # A calibration that cannot fit a bandwidth leaves the twin on the documented default
  # network, and the summary says so.
  if ! srun --mpi=pmix -N "$nodes" --ntasks-per-node=1 --hetscale-weights=off "$BIN/hetscale-commbench" \
    --sizes 1,1024,65536,1048576,4194304,16777216,67108864 \
    --site "$RUN/site.toml" --site-out "$RUN/site-twin.toml" >"$RUN/commbench.json"; then
    skipped "network calibration (hetscale-commbench failed, see above): the twin uses the default network"
    cp "$RUN/site.toml" "$RUN/site-twin.toml"
  fi
  for k in "${KERNELS[@]}"; do
    rm -rf "$RUN/$k-twin"
    "$HETSCALE" twin study "$(spec_for "$k")" --site "$RUN/site-twin.toml" -o "$RUN/$k-twin" \
      --nodes "$((2 * TWIN_NODES))" --max-set-nodes "$TWIN_NODES" --repetitions 1 --psi-floor 0.7 \
      --calibrate-from "$RUN/$k-study/records" --kernel-dir "$BIN" 2>"$RUN/$k-twin.progress" || { tail -n 5 "$RUN/$k-twin.progress"; false; }
    tail -n 1 "$RUN/$k-twin.progress"
  done
  local dirs=()
  for k in "${KERNELS[@]}"; do dirs+=("$RUN/$k-twin"); done
  "$HETSCALE" collect --db "$DB" "${dirs[@]}"
  for k in "${KERNELS[@]}"; do
    echo "--- $k on the twin"
    "$HETSCALE" analyze --db "$DB" --experiment "$(exp_name "$(spec_for "$k")")-twin"
  done
}

report_stage() {
  stage "report (hetscale report -> $RUN/report/index.html)"
  "$HETSCALE" report --db "$DB" -o "$RUN/report" --title "hetscale study on the local testbed"
}

sql() { # psql on the study's database; variables as -v name=value, used as :'name'
  psql "$DB" -X -A -t -q -v ON_ERROR_STOP=1 "$@"
}

# Equalize mm's largest set from its repeated runs (per-node mean and spread of time per
# unit of work), then run that set again at its most repeated size with marked and with
# equalized weights, alternating so that drift hits both alike, and compare the mean
# times with the simulator's (docs/science.md section 3, docs/study.md).
equalize_rerun() {
  local k=mm spec name set param seconds dir reps=$((QUICK ? 2 : 3))
  spec=$(spec_for "$k") name=$(exp_name "$spec")
  # Equalize needs a node's spread, so a size run at least twice (specs with
  # repetitions = 1, like the validation ones, have none: the stage is then not done).
  read -r set param < <(sql -F ' ' -v name="$name" <<'SQL'
SELECT set_index, parameter_value FROM hetscale.run_efficiency
WHERE experiment = :'name'
  AND set_index = (SELECT max(set_index) FROM hetscale.run_efficiency WHERE experiment = :'name')
GROUP BY set_index, parameter_value HAVING count(*) >= 2
ORDER BY count(*) DESC, parameter_value DESC LIMIT 1;
SQL
  ) || true
  if [ -z "${set:-}" ]; then
    skipped "equalize + re-run (no size of $name's largest set was run twice: repetitions = 1)"
    return
  fi
  stage "equalize + re-run ($k: hetscale equalize --db, then marked and equalized weights in turn)"
  seconds=$(sql -v name="$name" -v set="$set" -v param="$param" <<'SQL'
SELECT round(avg(wall_seconds)::numeric, 4) FROM hetscale.run_efficiency
WHERE experiment = :'name' AND set_index = :set AND parameter_value = :param;
SQL
  )
  [ -n "$set" ] && [ -n "$seconds" ] || die "no runs of $name on a machine set to equalize"
  echo "  set $set at N = $param: mean run time $seconds s with marked weights"
  "$HETSCALE" equalize --db "$DB" --experiment "$name" --set "$set" --parameter "$param" \
    --seconds "$seconds" --partitions "$RUN/partitions" --site testbed
  dir=$RUN/$k-rerun
  rm -rf "$dir" && mkdir -p "$dir/records" "$dir/logs"
  write_rerun_script "$dir/rerun.sbatch" "$RUN/$k-study/set$set.sbatch" "$name" "$set" "$param" "$reps"
  (cd "$dir" && echo "rerun $(sbatch --parsable rerun.sbatch)" >jobs.txt)
  sed 's/^/  /' "$dir/jobs.txt"
  wait_jobs "$dir"
  "$HETSCALE" collect --db "$DB" "$dir/records"
  echo "  measured (hetscale.weights_comparison) and simulated (hetscale.latest_partitions), seconds:"
  sql -F ' | ' -v name="$name" -v set="$set" -v param="$param" <<'SQL' | sed 's/^/    /'
SELECT 'measured ' || weights_source, runs, round(mean_wall_seconds::numeric, 4)
FROM hetscale.weights_comparison
WHERE experiment = :'name' AND set_index = :set AND parameter_value = :param
UNION ALL
SELECT DISTINCT 'simulated ' || method, NULL::bigint, round(simulated_tau::numeric, 4)
FROM hetscale.latest_partitions WHERE experiment = :'name' AND set_index = :set
ORDER BY 1;
SQL
}

# One array task that runs the set `reps` times with each weight source, in turn. The
# nodes and tasks come from the set's generated study script (the study's specs run one
# task per node: --ntasks-per-node=1).
write_rerun_script() { # out set_script experiment set N reps
  local out=$1 set_script=$2 name=$3 set=$4 n=$5 reps=$6 nodes count per_node ntasks
  nodes=$(sed -n 's/^#SBATCH --nodelist=//p' "$set_script")
  count=$(sed -n 's/^#SBATCH --nodes=//p' "$set_script")
  per_node=$(sed -n 's/^#SBATCH --ntasks-per-node=//p' "$set_script")
  [ -n "$nodes" ] && [ -n "$count" ] && [ -n "$per_node" ] ||
    die "$set_script: expected --nodelist, --nodes and --ntasks-per-node"
  ntasks=$((count * per_node))
  cat >"$out" <<SCRIPT
#!/bin/bash
# Written by scripts/study.sh: set $set of '$name' at N = $n, marked and equalized weights
# in turn, $reps time(s) each (the equalized partition is in $RUN/partitions).
#SBATCH --job-name=$name-rerun
#SBATCH --nodes=$count
#SBATCH --nodelist=$nodes
#SBATCH --ntasks-per-node=$per_node
#SBATCH --exclusive
#SBATCH --array=0
#SBATCH --time=00:10:00
#SBATCH --output=logs/rerun-%A_%a.out
set -euo pipefail
export HETSCALE_EXPERIMENT=$name HETSCALE_MACHINE_SET=$set
export HETSCALE_RECORD=\$SLURM_SUBMIT_DIR/records/rerun-\$SLURM_ARRAY_JOB_ID.jsonl
for repetition in \$(seq 0 $((reps - 1))); do
  export HETSCALE_REPETITION=\$repetition
  for weights in marked equalized; do
    srun --mpi=pmix --ntasks=$ntasks --hetscale-weights=\$weights "$BIN/hetscale-mm" -N $n
  done
done
SCRIPT
}

# Forecasts from the fitted time model: each measured set, the next four doublings (to the
# twin's 64 nodes, where the report sets them beside the twin's own figures)
# and a what-if set of two nodes twice as fast as the fastest here. A kernel whose sets
# did not all reach the target has too little to fit: said, not faked.
predict_stage() {
  stage "predict (hetscale predict: measured sets, next doublings, a what-if set)"
  local k spec fastest
  fastest=$(sql <<'SQL'
SELECT round(max(marked_speed))::bigint FROM hetscale.node_map WHERE site = 'testbed';
SQL
  )
  for k in "${KERNELS[@]}"; do
    spec=$(spec_for "$k")
    echo "--- $k"
    if [ -n "$FIT_SETS" ]; then
      echo "    held out: fitted on sets $FIT_SETS only"
      "$HETSCALE" predict --db "$DB" --experiment "$(exp_name "$spec")" --target "$(exp_target "$spec")" \
        --doublings 0 --fit-sets "$FIT_SETS" || skipped "held-out predict for $k (see its message above)"
    fi
    "$HETSCALE" predict --db "$DB" --experiment "$(exp_name "$spec")" --target "$(exp_target "$spec")" \
      --doublings 4 --what-if "group:$((2 * fastest)):2" || skipped "predict for $k (see its message above)"
  done
}

summary() {
  stage_end
  printf '\n\033[1m==> summary\033[0m (run dir %s, %s mode)\n' "$RUN" "$([ "$QUICK" = 1 ] && echo quick || echo full)"
  printf '%s\n' "${TIMINGS[@]}"
  printf '    total %d s\n' "$((SECONDS - STUDY_START))"
  [ ${#SKIPPED[@]} -eq 0 ] || printf '    not done: %s\n' "${SKIPPED[@]}"
  echo "psi table: $RUN/psi.txt"
  echo "report: $RUN/report/index.html"
}

main() {
  parse_args "$@"
  SET_START=$(sed -n 's/^start *= *\([0-9]*\).*/\1/p' "$(spec_for "${KERNELS[0]}")" | head -1)
  SET_MAX=$(sed -n 's/^max *= *\([0-9]*\).*/\1/p' "$(spec_for "${KERNELS[0]}")" | tail -1)
  trap teardown EXIT
  trap "exit 130" INT
  trap "exit 143" TERM
  install_deps
  build
  cluster_up
  pg_up
  classify_nodes
  site_table
  jobgen_all
  run_all
  local dirs=() k
  for k in "${KERNELS[@]}"; do dirs+=("$RUN/$k-study"); done
  collect_all "first round" "${dirs[@]}"
  analyze_all "first round"
  refine_all
  analyze_all "after refinement"
  psi_table
  if [[ " ${KERNELS[*]} " == *" mm "* ]]; then equalize_rerun; else skipped "equalize + re-run (uses mm)"; fi
  predict_stage
  if [ "$TWIN_NODES" -gt 0 ]; then twin_stage; else skipped "twin (--twin-nodes 0)"; fi
  report_stage
  summary
}

main "$@"; exit
