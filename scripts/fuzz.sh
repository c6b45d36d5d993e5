#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, build/fuzz) and runs each for a while over a copy
# of its seed corpus (fuzz/corpus/<target>), so the committed corpus does not grow.
# Fails if any target crashes, naming the input that did it. docs/fuzzing.md.
#   scripts/fuzz.sh                         every target, 30 s each
#   scripts/fuzz.sh --seconds 300 hostlist  one target, 5 minutes
#   scripts/fuzz.sh --max-len 100000 hostlist   longer inputs than the target's default
#   scripts/fuzz.sh hostlist -- -len_control=0   options after -- go to libFuzzer
#   scripts/fuzz.sh --list                  the target names
#   scripts/fuzz.sh --build-only            build the targets, run none
#   scripts/fuzz.sh --jobs 1                one target at a time (default: one per processor)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
jobs=$(nproc)
max_len_option=
build_only=0
targets=()
libfuzzer_options=()
all_targets=()
for source in fuzz/*_fuzz.cpp; do
  name=$(basename "$source" _fuzz.cpp)
  all_targets+=("$name")
done

while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --max-len) max_len_option=${2:?--max-len needs a number}; shift 2 ;;
    --) shift; libfuzzer_options=("$@"); break ;;
    --build-only) build_only=1; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [ -f "fuzz/${t}_fuzz.cpp" ] || { echo "fuzz.sh: no target '$t' (fuzz.sh --list)" >&2; exit 2; }
done

# Longest input per target: a little above the largest real file of its kind; the JSON
# readers 1 MiB, room for texts nested far past their depth limit (kMaxJsonNesting).
max_len() {
  if [ -n "$max_len_option" ]; then echo "$max_len_option"; return; fi
  case "$1" in
    run_record|round_plan|sacct|node_record) echo 1048576 ;;
    hostlist|workload) echo 1024 ;;
    partition|jobcomp) echo 4096 ;;
    topology) echo 262144 ;;
    *) echo 8192 ;;
  esac
}

build=build/fuzz
if [ ! -f "$build/CMakeCache.txt" ]; then
  # Line tables only (-g1): a crash's stack keeps its files and lines, at a quarter less
  # compile time than full debug information.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DHETSCALE_FUZZ=ON -DHETSCALE_WERROR=ON >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("${t}_fuzz"); done
start=$SECONDS
cmake --build "$build" -j "$(nproc)" --target "${build_targets[@]}"
echo "fuzz.sh: built ${#targets[@]} target(s) in $((SECONDS - start)) s"
[ "$build_only" = 0 ] || exit 0

# One target: fuzzes it, then writes its speed and coverage to $run/figures and, when it
# failed, what to replay to $run/failure. Targets run side by side, `jobs` at a time.
fuzz_one() {
  local t=$1 run="$build/run/$1" status=0 execs cov crash
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  # The seeds only: the regression inputs are replayed by the unit tests (tests/fuzz).
  cp -r "fuzz/corpus/$t/." "$run/corpus/"
  "$build/bin/${t}_fuzz" "$run/corpus" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
    -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$run/artifacts/" \
    ${libfuzzer_options[@]+"${libfuzzer_options[@]}"} >"$run/log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$run/log" | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    crash=$(find "$run/artifacts" -type f | head -1)
    { tail -40 "$run/log"
      echo "fuzz.sh: $t FAILED (exit $status); input: ${crash:-none written}; log: $run/log"
      echo "fuzz.sh: replay with $build/bin/${t}_fuzz ${crash:-<input>}"; } >"$run/failure"
  fi
  printf '%-19s %8s exec/s  %-22s' "$t" "${execs:-?}" "${cov:-cov: ?}" >"$run/figures"
}

echo "fuzz.sh: ${#targets[@]} target(s), $seconds s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzz.sh: $t for $seconds s (max_len $(max_len "$t"))"
  fuzz_one "$t" &
  running=$((running + 1))
done
wait || true

failed=()
summary=()
for t in "${targets[@]}"; do
  run="$build/run/$t"
  if [ ! -f "$run/figures" ]; then
    summary+=("$(printf '%-19s did not finish' "$t")")
    failed+=("$t")
  elif [ -f "$run/failure" ]; then
    summary+=("$(cat "$run/figures") FAILED")
    cat "$run/failure"
    failed+=("$t")
  else
    summary+=("$(cat "$run/figures") ok")
  fi
done

echo
echo "fuzz.sh: $seconds s per target"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: crashes in: ${failed[*]}" >&2
  exit 1
fi
