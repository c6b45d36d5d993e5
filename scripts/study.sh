#!/usr/bin/env bash
# The end-to-end heterogeneous scalability study on the local testbed (docs/study.md):
# install, build, cluster + SPANK plugin + PostgreSQL, classify every node, site table,
# the twin's network calibration, then `hetscale study run examples/studies/testbed[-quick].toml
# --wait`: the study as Slurm jobs (rounds, refinement, psi table, equalize and re-run,
# forecasts, twin, report); tear everything down on exit (also on failure). With the twin,
# vm.overcommit_memory is 1 while the study runs (its old value put back on exit).
#   scripts/study.sh [--quick] [--keep] [--run-dir DIR] [--port P] [--no-build] [--build-dir DIR]
#     --quick      examples/studies/testbed-quick.toml: fewer sizes, one refinement round
#     --keep       leave the cluster and PostgreSQL running at the end
#     --run-dir    where everything goes (default: <repo>/run/study; at most ~55 chars)
#     --port       PostgreSQL port (default 16901)
#     --no-build   use the existing binaries of the build dir (tests)
#     --build-dir  the build tree of preset default (default: <repo>/build/default)
#     --layout     testbed layout (default site-configs/testbed-layout.txt)
#     --study F    the study spec (default examples/studies/testbed[-quick].toml)
#     --twin-nodes N  the twin's site size (default: the study spec's [twin] nodes; 0: no twin)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
. scripts/lib/overcommit.sh

QUICK=0 KEEP=0 BUILD=1 PORT=16901 RUN=$REPO/run/study
BUILD_DIR=$REPO/build/default
LAYOUT=$REPO/site-configs/testbed-layout.txt STUDY= TWIN_NODES=
# The kernels sleep between tests of a pending message instead of busy-polling: on the
# testbed's CPU-quota nodes a polling rank spends its quota while it waits and is then
# throttled for the rest of the period (docs/kernels.md). sbatch passes it on to the jobs.
export HETSCALE_MPI_WAIT=sleep
# The LAMMPS input deck of examples/experiments/lammps-melt.toml, from this tree (its
# default is the packages' copy under /usr/share/hetscale/examples).
export LAMMPS_MELT_DECK=$REPO/examples/experiments/lammps-melt.lmp

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
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
      --study) STUDY=${2:?--study needs a value}; shift 2 ;;
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
  if [ -z "$STUDY" ]; then
    STUDY=$REPO/examples/studies/testbed.toml
    [ "$QUICK" = 1 ] && STUDY=$REPO/examples/studies/testbed-quick.toml
  fi
  STUDY=$(cd "$(dirname "$STUDY")" && pwd)/$(basename "$STUDY")
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
  overcommit_restore
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
  local k targets=(hetscale hetscale_spank hetscale-commbench) programs=()
  for k in mm ge lu; do
    targets+=("hetscale-$k" "hetscale-twin-$k")
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
  for f in "$HETSCALE" "${programs[@]}" "$BUILD_DIR/spank_plugin/hetscale.so"; do
    [ -x "$f" ] || [ -f "$f" ] || die "missing $f after the build"
  done
}

cluster_up() {
  stage "local heterogeneous cluster + SPANK plugin (scripts/cluster.sh)"
  rm -rf "$RUN/partitions" && mkdir -p "$RUN/partitions"
  CLUSTER_UP=1
  scripts/cluster.sh restart --run-dir "$RUN/cluster" --layout "$LAYOUT" --hetscale "$HETSCALE" \
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
  # The measured partition's nodes only: the twin's node is no node of the site.
  for node in $(sinfo -h -N -p testbed -o '%N' | sort -u); do
    srun -w "$node" -N1 -n1 --hetscale-weights=off "$HETSCALE" classify --benchmark dgemm \
      --seconds "$seconds" --output "$RUN/node-records/%n.json"
  done
}

site_table() {
  stage "site table (hetscale groups -> $RUN/site.toml, read by the plugin)"
  "$HETSCALE" groups "$RUN/node-records" -o "$RUN/site.toml" --site-name testbed --db "$DB"
}

# The twin's network, calibrated here by hetscale-commbench (one rank per node; messages up
# to 64 MiB, so that the transfer time stands out of the CPU quotas' jitter), into the site
# table the study plans with. A calibration that cannot fit a bandwidth leaves the twin on
# the documented default network, and the summary says so.
network_calibration() {
  STUDY_SITE=$RUN/site.toml
  if [ "$TWIN_NODES" = 0 ]; then skipped "network calibration (--twin-nodes 0: no twin)"; return; fi
  stage "twin: network calibration (hetscale-commbench)"
  local nodes
  nodes=$(sinfo -h -N -p testbed -o '%N' | sort -u | wc -l)
  if srun --mpi=pmix -N "$nodes" --ntasks-per-node=1 --hetscale-weights=off "$BIN/hetscale-commbench" \
    --sizes 1,1024,65536,1048576,4194304,16777216,67108864 \
    --site "$RUN/site.toml" --site-out "$RUN/site-twin.toml" >"$RUN/commbench.json"; then
    STUDY_SITE=$RUN/site-twin.toml
  else
    skipped "network calibration (hetscale-commbench failed, see above): the twin uses the default network"
  fi
}

run_study() {
  stage "hetscale study run $(basename "$STUDY") (rounds, refinement, psi, equalize + re-run, predict, twin, report)"
  rm -rf "$RUN/study"
  local twin=()
  [ -z "$TWIN_NODES" ] || twin=(--twin-nodes "$TWIN_NODES")
  # A twin grown past the spec's (--twin-nodes) may fold regions larger than memory.
  [ "$TWIN_NODES" = 0 ] || overcommit_allow
  "$HETSCALE" study run "$STUDY" "${twin[@]}" --site "$STUDY_SITE" --db "$DB" --dir "$RUN/study" --kernel-dir "$BIN" \
    --partitions "$RUN/partitions" --wait
}

summary() {
  stage_end
  printf '\n\033[1m==> summary\033[0m (run dir %s, %s mode)\n' "$RUN" "$([ "$QUICK" = 1 ] && echo quick || echo full)"
  printf '%s\n' "${TIMINGS[@]}"
  printf '    total %d s\n' "$((SECONDS - STUDY_START))"
  [ ${#SKIPPED[@]} -eq 0 ] || printf '    not done: %s\n' "${SKIPPED[@]}"
  echo "psi table: $RUN/study/psi.txt"
  sed 's/^/    /' "$RUN/study/psi.txt"
  if [ -f "$RUN/study/rerun.txt" ]; then
    echo "equalize re-run: $RUN/study/rerun.txt"
    sed 's/^/    /' "$RUN/study/rerun.txt"
  fi
  echo "forecasts: $RUN/study/predict-*.txt"
  echo "report: $RUN/study/report/index.html"
}

main() {
  parse_args "$@"
  trap teardown EXIT
  trap "exit 130" INT
  trap "exit 143" TERM
  install_deps
  build
  cluster_up
  pg_up
  classify_nodes
  site_table
  network_calibration
  run_study
  summary
}

main "$@"; exit
