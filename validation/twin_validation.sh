#!/usr/bin/env bash
# The twin's validation figures (docs/validation-twin.md), on the twin of
# validation/twin/mixed72.toml (72 nodes in three groups, one switch per group and a shared
# backbone; --site validation/twin/mixed72-star.toml: the same nodes on a non-blocking star):
#   1. held-out prediction: for mm, ge, lu and conv2d (--kernels), a twin study of sets of 2 to 64 nodes and one
#      refinement round (twin refine) around each set's estimate, collected and analysed;
#      `hetscale predict` fitted on sets 0-2 (2, 4, 8 nodes; --fit-sets) predicts the
#      required size at the target on the others (16, 32, 64 nodes); its summary line gives
#      the mean |relative error| on the held-out sets;
#   2. determinism: the held-out mm study simulated a second time, one run at a time; the
#      simulated times of the two status.tsv files are compared;
#   3. speed: a twin study of sets of 2 to 32 nodes, 5 sizes, 3 repetitions, mm then ge,
#      timed end to end;
#   4. the held-out sets predicted analytically beside the regression
#      (validation/twin_analytic.sh on the same database).
# With --noise, instead: held-out prediction with run-to-run noise, for the same kernels:
# the noisy-<kernel>.toml specs (2 repetitions a size, refinement towards a 5% interval
# of each set's required size) simulated with availability profiles on every host (group
# means 0.93, 0.9 and 0.8: the nodes differ from their marked speeds by group) and the runs'
# starts spread over an hour of the profiles (--start-spread), so that repetitions differ;
# the network probed on every set (--probe); up to three refinement rounds; `hetscale
# predict` fitted on sets 0-2 prints the held-out line (K of N inside the 90% interval),
# with the intervals of one new run and then of the mean run (--interval mean).
# It starts its own PostgreSQL (scripts/pg.sh) and stops it at the end.
#   validation/twin_validation.sh [--bin build/default/bin] [--run-dir DIR] [--port P] [--site FILE]
#                                 [--kernels "mm ge lu conv2d"] [--heldout-only] [--fit-sets 0,1,2] [--noise]
# --kernels: the held-out section's kernels; --heldout-only: that section alone;
# --fit-sets: the sets the held-out section's model is fitted on (predict's --fit-sets; the
# analytic comparison, section 4, fits on 0-2 whatever it says).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
bin=build/default/bin run=build/twin-validation port=16951 kernels="mm ge lu conv2d" heldout_only=0 fit_sets=0,1,2
noise=0
here=validation/twin
site=$here/mixed72.toml
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --run-dir) run=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --kernels) kernels=$2; shift 2 ;;
    --heldout-only) heldout_only=1; shift ;;
    --noise) noise=1; shift ;;
    --fit-sets) fit_sets=$2; shift 2 ;;
    --site) site=$2; shift 2 ;;
    *) echo "twin_validation.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
hetscale=$bin/hetscale

rm -rf "$run"
mkdir -p "$run"
scripts/pg.sh restart --run-dir "$run/pg" --port "$port" >/dev/null
trap 'scripts/pg.sh down --run-dir "$run/pg" >/dev/null' EXIT
db=$(cat "$run/pg/uri")
"$hetscale" db migrate --db "$db" >/dev/null

echo "# twin validation of $site on $(nproc) processors, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%FT%TZ)"
if [ "$noise" = 1 ]; then
  for kernel in $kernels; do
    echo
    echo "## held-out prediction with noise, $kernel"
    out=$run/noisy-$kernel
    "$hetscale" twin study "$here/noisy-$kernel.toml" --site "$site" -o "$out" --kernel-dir "$bin" \
      --availability 0.9:0.05 --availability new=0.93:0.03 --availability old=0.8:0.08 --start-spread 3600 \
      --probe 2>"$out.progress"
    "$hetscale" collect --db "$db" "$out" >/dev/null
    previous=$out
    for round in 1 2 3; do
      "$hetscale" twin refine --db "$db" --from "$previous" -o "$out-round$round" --kernel-dir "$bin" \
        2>"$out-round$round.progress" | tail -n 1
      [ -d "$out-round$round" ] || break
      "$hetscale" collect --db "$db" "$out-round$round" >/dev/null
      previous=$out-round$round
    done
    "$hetscale" analyze --db "$db" --experiment "noisy-$kernel-twin"
    "$hetscale" predict --db "$db" --experiment "noisy-$kernel-twin" --fit-sets "$fit_sets" --doublings 0
    echo
    echo "### the same forecast with the intervals of the mean run (--interval mean)"
    "$hetscale" predict --db "$db" --experiment "noisy-$kernel-twin" --fit-sets "$fit_sets" --doublings 0 \
      --interval mean
  done
  exit 0
fi
for kernel in $kernels; do
  echo
  echo "## held-out prediction, $kernel"
  "$hetscale" twin study "$here/heldout-$kernel.toml" --site "$site" -o "$run/heldout-$kernel" --kernel-dir "$bin" \
    2>"$run/heldout-$kernel.progress"
  "$hetscale" collect --db "$db" "$run/heldout-$kernel" >/dev/null
  "$hetscale" analyze --db "$db" --experiment "heldout-$kernel-twin" >/dev/null
  "$hetscale" twin refine --db "$db" --from "$run/heldout-$kernel" -o "$run/heldout-$kernel-round1" \
    --kernel-dir "$bin" 2>"$run/heldout-$kernel-round1.progress"
  if [ -d "$run/heldout-$kernel-round1" ]; then
    "$hetscale" collect --db "$db" "$run/heldout-$kernel-round1" >/dev/null
  fi
  "$hetscale" analyze --db "$db" --experiment "heldout-$kernel-twin"
  "$hetscale" predict --db "$db" --experiment "heldout-$kernel-twin" --fit-sets "$fit_sets" --doublings 0
done
[ "$heldout_only" = 0 ] || exit 0

echo
echo "## determinism: the held-out mm study again, one simulation at a time"
"$hetscale" twin study "$here/heldout-mm.toml" --site "$site" -o "$run/heldout-mm-again" --kernel-dir "$bin" \
  --jobs 1 2>/dev/null
if diff <(cut -f1-5,9 "$run/heldout-mm/status.tsv") <(cut -f1-5,9 "$run/heldout-mm-again/status.tsv"); then
  echo "identical simulated times in all $(($(wc -l <"$run/heldout-mm/status.tsv") - 1)) runs"
else
  echo "the simulated times differ (above)"
fi

echo
echo "## speed: sets of 2 to 32 nodes, 5 sizes, 3 repetitions, mm then ge ($(nproc) simulations at once)"
/usr/bin/time -f "mm + ge twin study: %e s wall, the largest process peaked at %M KiB" -o "$run/speed.time" \
  bash -c '"$1" twin study "$2/speed-mm.toml" --site "$3" -o "$4/speed-mm" --kernel-dir "$5" 2>/dev/null &&
           "$1" twin study "$2/speed-ge.toml" --site "$3" -o "$4/speed-ge" --kernel-dir "$5" 2>/dev/null' \
  _ "$hetscale" "$here" "$site" "$run" "$bin"
cat "$run/speed.time"

echo
echo "## held-out sets: regression and analytic prediction"
validation/twin_analytic.sh --run "$run" --bin "$bin" --db "$db" --site "$site"
