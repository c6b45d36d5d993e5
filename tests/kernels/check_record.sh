#!/bin/sh
# check_record.sh <hetscale-mm> <mpiexec>: two ranks with HETSCALE_* set per rank (as the
# SPANK plugin does) write one run record; its keys and values are checked.
set -eu
mm=$1
mpiexec=$2
record=$(mktemp)
trap 'rm -f "$record"' EXIT
"$mpiexec" -x HETSCALE_RECORD="$record" -x HETSCALE_EXPERIMENT=exp-7 -x HETSCALE_MACHINE_SET=1 \
  -x HETSCALE_REPETITION=2 -x HETSCALE_WEIGHTS_SOURCE=marked -x HETSCALE_SYSTEM_SPEED=1500 \
  -x SLURM_JOB_ID=77 -x SLURM_STEP_ID=3 -x SLURM_STEP_NODELIST='n[1-2]' \
  -np 1 -x HETSCALE_WEIGHT=0.66666666666666663 -x HETSCALE_MARKED_SPEED=1000 "$mm" -N 30 : \
  -np 1 -x HETSCALE_WEIGHT=0.33333333333333331 -x HETSCALE_MARKED_SPEED=500 "$mm" -N 30
python3 - "$record" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
r = json.loads(lines[0])
expect = {"schema": 1, "experiment": "exp-7", "code": "mm", "workload": "mm", "parameters": {"N": 30},
          "work": 54000, "marked_speed": 1500, "weights_source": "marked", "machine_set": 1,
          "repetition": 2, "verified": True,
          "slurm": {"job_id": 77, "array_job_id": None, "array_task_id": None, "step_id": 3, "node_list": "n[1-2]"}}
for key, value in expect.items():
    assert r[key] == value, (key, r[key], value)
assert [x["rank"] for x in r["ranks"]] == [0, 1]
assert abs(r["ranks"][0]["weight"] - 2 / 3) < 1e-12 and r["ranks"][1]["marked_speed"] == 500
for x in r["ranks"]:
    assert x["wall_seconds"] >= x["compute_seconds"] >= 0 and x["communication_seconds"] >= 0, x
assert r["wall_seconds"] > 0 and r["start_time"].endswith("Z") and r["end_time"] >= r["start_time"]
assert set(r["fingerprint"]) == {"software", "hardware"}
print("run record ok")
PY
