#!/usr/bin/env bash
# The processors' use while a study's twin runs (docs/performance.md, "The twin's chain:
# the processors' use"): runs scripts/study.sh while sampling the machine's CPU times
# (/proc/stat, the first line: every processor) every --interval seconds, then takes the
# twin's span from the study's state history, from the submission of the twin's round 0 to
# the end of its chain, and prints the share of all the processors' time that was busy in
# that span (user, nice, system, irq, softirq, steal), for the whole span and for its parts
# beside the measured rounds and after them.
#   bench/twin/twin_cpu_use.sh [--run-dir DIR] [--interval S] [-- STUDY_SH_ARGUMENTS...]
# DIR (default run/twin-cpu) is scripts/study.sh's --run-dir; the arguments after -- go to
# scripts/study.sh as they are (e.g. --no-build --build-dir build/test). The samples stay
# in DIR/cpu-samples.txt (one line each: UNIX time, then /proc/stat's cpu line).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
run=$REPO/run/twin-cpu interval=1
while [ $# -gt 0 ]; do
  case "$1" in
    --run-dir) run=${2:?--run-dir needs a value}; shift 2 ;;
    --interval) interval=${2:?--interval needs a value}; shift 2 ;;
    --) shift; break ;;
    *) echo "twin_cpu_use.sh: unknown argument '$1' (arguments of scripts/study.sh go after --)" >&2; exit 2 ;;
  esac
done
mkdir -p "$run"
run=$(cd "$run" && pwd)
samples=$run/cpu-samples.txt

sample() {
  while :; do
    printf '%s %s\n' "$(date +%s.%N)" "$(head -n 1 /proc/stat)"
    sleep "$interval"
  done
}
: >"$samples"
sample >>"$samples" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
scripts/study.sh --run-dir "$run" "$@" || status=$?
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[ "$status" = 0 ] || echo "twin_cpu_use.sh: scripts/study.sh failed (exit $status); the figures cover what ran" >&2

python3 - "$run/study/study.state" "$samples" "$(nproc)" "$load_before" "$load_after" <<'PY'
import datetime, json, sys
state_file, samples_file, processors, load_before, load_after = sys.argv[1:6]
history = json.load(open(state_file))["history"]

def when(entry):
    return datetime.datetime.strptime(entry["time"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()

def first(stage, text_start):
    for h in history:
        if h["stage"] == stage and h["text"].startswith(text_start):
            return when(h)
    return None

begin = next((when(h) for h in history if h["stage"] == "submitted" and "'s twin round 0:" in h["text"]), None)
end = first("twin", "the twin's chain is done")
measured_end = first("psi", "psi.txt")  # the measured rounds' last step
if begin is None or end is None:
    sys.exit("twin_cpu_use.sh: the study's history has no twin's chain from round 0 to its end")

samples = []
for line in open(samples_file):
    words = line.split()
    if len(words) < 9 or words[1] != "cpu":
        continue
    ticks = [int(w) for w in words[2:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    total = sum(ticks[:8])      # user .. steal (guest time is counted within user)
    samples.append((float(words[0]), total - idle, total))

def busy(a, b):
    inside = [s for s in samples if a <= s[0] <= b]
    if len(inside) < 2:
        return None
    first_sample, last_sample = inside[0], inside[-1]
    return (last_sample[1] - first_sample[1]) / (last_sample[2] - first_sample[2]), last_sample[0] - first_sample[0]

print(f"# the twin's chain: {end - begin:.0f} s, {processors} processors, load average {load_before} before, "
      f"{load_after} after")
rows = [("whole span", begin, end)]
if measured_end is not None and begin < measured_end < end:
    rows += [("beside the measured rounds", begin, measured_end), ("after them", measured_end, end)]
print(f"{'part':<28} {'seconds':>8} {'busy':>7}")
for name, a, b in rows:
    figure = busy(a, b)
    if figure is None:
        print(f"{name:<28} {b - a:8.0f} {'n/a':>7}")
    else:
        print(f"{name:<28} {figure[1]:8.0f} {100 * figure[0]:6.1f}%")
PY
exit "$status"
