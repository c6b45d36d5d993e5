#!/usr/bin/env bash
# Runs scripts/study.sh --quick (hetscale study run examples/studies/testbed-quick.toml)
# and checks its psi table (RUN/study/psi.txt): one row per consecutive pair of machine
# sets for every kernel, and every psi value in (0, C'/C] (W' >= W). The kernels in
# REQUIRED (comma-separated, default mm,ge) must have a value on every pair; others may
# print n/a (a warning). Also: the study is done, its controllers ran as jobs, the
# equalized partition was written and the re-run measured both weight sources, both
# kernels got a stored forecast, the twin ran, and the report exists with a chart per
# section and reads at 1280 px in Chromium (report_page_check). Every stage must succeed
# and every job complete (study.sh fails otherwise).
#   check_study.sh SOURCE_DIR BUILD_DIR RUN_DIR PG_PORT
set -euo pipefail
src=$1 build=$2 run=$3 port=$4
log=$run/../study-quick.log
# The previous attempt's run dir and log are kept beside the new ones (one generation):
# when a retried attempt passes, the failed one's cluster logs are still there to read.
if [ -e "$run" ]; then
  rm -rf "$run.previous" "$log.previous"
  mv "$run" "$run.previous"
  [ ! -e "$log" ] || mv "$log" "$log.previous"
fi
mkdir -p "$run"
"$src/scripts/study.sh" --quick --no-build --build-dir "$build" --run-dir "$run" --port "$port" 2>&1 | tee "$log"
study=$run/study
[ -f "$study/psi.txt" ] || { echo "check_study: no psi table $study/psi.txt"; exit 1; }
sets=$("$build/bin/hetscale" sets --site "$run/site.toml" --start 2 --max 4 --format json \
  | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
python3 - "$study/psi.txt" "$sets" "${REQUIRED-mm,ge}" <<'PY'
import sys
path, sets, required = sys.argv[1], int(sys.argv[2]), [k for k in sys.argv[3].split(",") if k]
# The table ends at the first empty line (precision lines may follow it).
rows = [l.split() for l in open(path).read().split("\n\n")[0].splitlines()[1:] if l.strip()]
kernels = {}
for r in rows:
    kernels.setdefault(r[0], []).append(r)
bad = []
if set(kernels) != {"mm", "ge"}:
    bad.append(f"kernels in the psi table: {sorted(kernels)}, expected ge and mm")
for k, rs in kernels.items():
    pairs = [r[3] for r in rs]
    want = [f"{i}->{i + 1}" for i in range(sets - 1)]
    if pairs != want:
        bad.append(f"{k}: pairs {pairs}, expected {want}")
    for r in rs:
        try:
            psi = float(r[5])
        except ValueError:
            if k in required or r[5] != "n/a":
                bad.append(f"{k} {r[3]}: psi is '{r[5]}', not a number")
            else:
                print(f"check_study: warning: {k} {r[3]}: no psi (target not bracketed on both sets)")
            continue
        # psi = C'W / (C W'): above C'/C the larger set would have reached the target with
        # less work than the smaller one (W' < W), which no measurement should show.
        c_from, c_to = (float(c) for c in r[4].split("->"))
        if not 0 < psi <= c_to / c_from:
            bad.append(f"{k} {r[3]}: psi {psi} outside (0, C'/C = {c_to / c_from:.3g}]")
print(open(path).read())
if bad:
    print("check_study: FAILED\n  " + "\n  ".join(bad))
    sys.exit(1)
numeric = sum(1 for r in rows if r[5] != "n/a")
print(f"check_study: ok ({sets} sets, {len(rows)} rows, {numeric} with a psi value)")
PY

# The later stages, from their own outputs.
fail() { echo "check_study: FAILED: $*"; exit 1; }
ls "$run"/partitions/*.toml >/dev/null 2>&1 || fail "no equalized partition in $run/partitions"
status=$("$build/bin/hetscale" study status --dir "$study")
grep -q '^stage done' <<<"$status" || fail "the study is not done"
[ "$(ls "$study"/logs/controller-*.out | wc -l)" -ge 2 ] || fail "fewer than two controller jobs ran"
for source in marked equalized; do
  grep -qE "^  measured $source +[0-9]+ [0-9.]+$" "$study/rerun.txt" || fail "the re-run measured no '$source' runs"
done
[ "$(cat "$study"/predict-*.txt | grep -c '^stored as prediction batch')" -eq 2 ] || fail "not one stored forecast per kernel"
report=$study/report/index.html
[ -s "$report" ] || fail "no report $report"
charts=$(grep -o '<svg' "$report" | wc -l)
[ "$charts" -ge 8 ] || fail "the report has $charts charts, expected at least 8"
# The twin stage: both kernels simulated on sets up to 64 nodes, every run succeeded, and
# the report sets them beside the measured ones.
[ "$(cat "$study"/*/twin/progress.txt | grep -cE '^runs: [0-9]+ simulated, 0 kept, 0 failed')" -eq 2 ] ||
  fail "not every twin run succeeded"
for e in study-mm-quick study-ge-quick; do
  [ "$(cut -f5 "$study/$e/twin/status.tsv" | sort -n | tail -n 1)" -eq 64 ] || fail "$e: no twin set of 64 ranks"
done
# The twin ran as arrays of its own beside the measured rounds (testbed-quick.toml: [twin]
# partition = "twin", start = "beside"): every experiment's round 0 counted from its array
# tasks, the twin's controllers in the twin's partition, and the twin begun before the
# measured rounds' psi table.
for e in study-mm-quick study-ge-quick; do
  grep -qE "twin: $e: round 0: runs: [0-9]+ simulated, 0 kept, 0 failed \(array job [0-9]+\)" "$log" ||
    fail "$e: its twin's round 0 ran as no array"
done
[ "$(ls "$study"/logs/twin-controller-*.out | wc -l)" -ge 2 ] || fail "fewer than two twin controllers ran"
grep -qx '#SBATCH --partition=twin' "$study/twin-controller.sbatch" || fail "the twin's controller is not in partition twin"
grep -qx '#SBATCH --partition=twin' "$study/study-mm-quick/twin/twin.sbatch" || fail "the twin's array is not in partition twin"
begun=$(grep -n "submitted: study-mm-quick's twin round 0" "$log" | head -n 1 | cut -d: -f1)
psi=$(grep -n " psi: psi.txt" "$log" | head -n 1 | cut -d: -f1)
[ -n "$begun" ] && [ -n "$psi" ] && [ "$begun" -lt "$psi" ] || fail "the twin did not begin beside the measured rounds"
# mm's twin refined once (testbed-quick.toml: [twin] rounds = 1; ge's twin_rounds = 0), and
# each twin analyzed at its experiment's target.
grep -qE "twin: study-mm-quick: refinement round 1: ([0-9]+ runs|nothing to refine)" \
  "$log" || fail "study-mm-quick: no refinement round of its twin"
! grep -q "twin: study-ge-quick: refinement round" "$log" || fail "study-ge-quick: its twin was refined"
for e in study-mm-quick study-ge-quick; do
  grep -qE "twin: $e-twin at E_s [0-9.e-]+: [0-9]+ of 6 sets reach it" "$log" || fail "$e: its twin was not analyzed"
done
# [probe] in both specs: round 0 probed the network of every measured set before its runs,
# and the collect stage stored each probe (the network_probes rows predict reads).
for e in study-mm-quick study-ge-quick; do
  for k in $(seq 0 $((sets - 1))); do
    probe=$study/$e/round0/probes/set$k.commbench.json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["experiment"] == sys.argv[2] and d["machine_set"] == int(sys.argv[3]) and d["point_to_point"]["remote"] else 1)' \
      "$probe" "$e" "$k" || fail "$e: no network probe of set $k ($probe)"
  done
done
grep -qx "collected $((2 * sets)) network probe(s): $((2 * sets)) added" "$study"/logs/controller-*.out ||
  fail "the collect stage did not store the $((2 * sets)) network probes"
grep -q '<h2[^>]*>Measured and twin' "$report" || fail "the report has no section Measured and twin"
# Capacity planning sets the twins' sets beyond the measured ones beside the forecasts.
for e in study-mm-quick study-ge-quick; do
  grep -q "id=\"$e-twin-capacity\"" "$report" || fail "$e: no table of its twin beside the forecasts"
done
# The report as Chromium lays it out at 1280 px (tests/integration/report/page_geometry.hpp):
# it opens with the summary naming both experiments, nothing is wider than its section
# outside a box that scrolls, no two chart labels overlap, and it is under 18,000 px tall
# (the page grows with the runs the study happened to need: 15,090 px in one run).
"$build/bin/report_page_check" "$report" --max-height 18000 --experiment study-mm-quick \
  --experiment study-ge-quick || fail "the report does not read at 1280 px"
echo "check_study: later stages ok (partition, re-run, 2 forecasts, twin to 64 nodes, report with $charts charts)"
