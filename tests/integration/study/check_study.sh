#!/usr/bin/env bash
# Runs scripts/study.sh --quick and checks its psi table: one value per consecutive pair of
# machine sets for every kernel, each in (0, 1.2].
#   check_study.sh SOURCE_DIR RUN_DIR PG_PORT
set -euo pipefail
src=$1 run=$2 port=$3
rm -rf "$run"
mkdir -p "$run"
log=$run/../study-quick.log
"$src/scripts/study.sh" --quick --no-build --run-dir "$run" --port "$port" 2>&1 | tee "$log"
[ -f "$run/psi.txt" ] || { echo "check_study: no psi table $run/psi.txt"; exit 1; }
sets=$("$src/build/default/bin/hetscale" sets --site "$run/site.toml" --start 2 --max 4 --format json \
  | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
python3 - "$run/psi.txt" "$sets" <<'PY'
import sys
path, sets = sys.argv[1], int(sys.argv[2])
rows = [l.split() for l in open(path).read().splitlines()[1:] if l.strip()]
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
            bad.append(f"{k} {r[3]}: psi is '{r[5]}', not a number")
            continue
        if not 0 < psi <= 1.2:
            bad.append(f"{k} {r[3]}: psi {psi} outside (0, 1.2]")
print(open(path).read())
if bad:
    print("check_study: FAILED\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"check_study: ok ({sets} sets, {len(rows)} psi values)")
PY
