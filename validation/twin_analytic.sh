#!/usr/bin/env bash
# The two prediction methods side by side on the twin's held-out sets (docs/validation-twin.md):
# for mm and ge, the required size at the target on the 16-, 32- and 64-node sets (sets 3-5)
#   - by regression: `hetscale predict --fit-sets 0,1,2` (time model fitted to the runs of
#     the 2-, 4- and 8-node sets);
#   - analytically: `hetscale predict --overhead-of KERNEL --network SITE` (T0 from the
#     site's [network] latency and bandwidth, no runs), from the 8-node set (set 2) at its
#     required size, with t_c measured on that set's runs (median over its runs of
#     p x the slowest rank's compute seconds / W);
# each against the twin's own required size (`hetscale analyze` of all its runs). The last
# columns repeat the analytic prediction with `--compute balanced`: T_c = W t_c (C/p of the
# base) / C', work in proportion to marked speed, instead of the paper's W t_c / p (the
# sets' C / p falls from 45 to 38.75 Gflops per node as slower groups join).
# Reads the held-out studies of a finished twin_validation.sh run directory; with --db it
# uses that database (already collected and analysed), else it starts its own PostgreSQL.
# --site: the site the studies were simulated on (its [network] is the analytic model's).
#   validation/twin_analytic.sh --run DIR [--bin build/default/bin] [--port P] [--db URI] [--site FILE]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
bin=build/default/bin run="" port=16952 db="" site=validation/twin/mixed72.toml
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --run) run=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --db) db=$2; shift 2 ;;
    --site) site=$2; shift 2 ;;
    *) echo "twin_analytic.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$run" ] || { echo "twin_analytic.sh: --run DIR (a twin_validation.sh run directory) is required" >&2; exit 2; }
hetscale=$bin/hetscale
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

if [ -z "$db" ]; then
  scripts/pg.sh restart --run-dir "$work/pg" --port "$port" >/dev/null
  trap 'scripts/pg.sh down --run-dir "$work/pg" >/dev/null; rm -rf "$work"' EXIT
  db=$(cat "$work/pg/uri")
  "$hetscale" db migrate --db "$db" >/dev/null
  for kernel in mm ge; do
    "$hetscale" collect --db "$db" "$run/heldout-$kernel" >/dev/null
    [ -d "$run/heldout-$kernel-round1" ] && "$hetscale" collect --db "$db" "$run/heldout-$kernel-round1" >/dev/null
    "$hetscale" analyze --db "$db" --experiment "heldout-$kernel-twin" >/dev/null
  done
fi

echo "| kernel | set | nodes | C (Gflops) | twin's required N | regression N' | error | analytic N' | error | analytic psi (T0/T0') | analytic N', balanced | error |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for kernel in mm ge; do
  experiment=heldout-$kernel-twin
  "$hetscale" analyze --db "$db" --experiment "$experiment" --format json >"$work/analysis.json"
  "$hetscale" predict --db "$db" --experiment "$experiment" --fit-sets 0,1,2 --doublings 0 \
    --format json >"$work/regression.json"
  set_field() { jq -r --argjson s "$1" ".sets[] | select(.set == \$s) | .$2" "$work/analysis.json"; }
  base_c=$(set_field 2 marked_speed) base_p=$(set_field 2 nodes) base_n=$(set_field 2 parameter)
  t_c=$(cat "$run/heldout-$kernel"/records/*.jsonl "$run/heldout-$kernel-round1"/records/*.jsonl 2>/dev/null |
    jq -s '[.[] | select(.machine_set == 2) | (.ranks | length) * ([.ranks[].compute_seconds] | max) / .work * 1000]
           | sort | .[length / 2 | floor]')
  targets=()
  for s in 3 4 5; do targets+=(--to "$(set_field $s marked_speed):$(set_field $s nodes)"); done
  "$hetscale" predict --overhead-of "$kernel" --network "$site" --unit Gflops --unit-time "$t_c" \
    --base "$base_c:$base_p:$base_n" "${targets[@]}" --format json >"$work/analytic.json"
  "$hetscale" predict --overhead-of "$kernel" --network "$site" --unit Gflops --unit-time "$t_c" \
    --compute balanced --base "$base_c:$base_p:$base_n" "${targets[@]}" --format json >"$work/balanced.json"
  echo "$kernel: base set 2 (C = $base_c Gflops, p = $base_p, N = $base_n), t_c = $t_c ms, T0 = $(jq -r .overhead "$work/analytic.json")" >&2
  for i in 0 1 2; do
    s=$((i + 3))
    measured=$(set_field $s parameter)
    regression=$(jq -r --argjson p "$(set_field $s nodes)" \
      '.rows[] | select(.kind == "measured" and .processes == $p) | .predicted_parameter' "$work/regression.json")
    analytic=$(jq -r ".rows[$i].predicted_parameter" "$work/analytic.json")
    psi=$(jq -r ".rows[$i].psi" "$work/analytic.json")
    scaled=$(jq -r ".rows[$i].predicted_parameter" "$work/balanced.json")
    awk -v k="$kernel" -v s="$s" -v n="$(set_field $s nodes)" -v c="$(set_field $s marked_speed)" \
      -v m="$measured" -v r="$regression" -v a="$analytic" -v psi="$psi" -v b="$scaled" 'BEGIN {
      printf "| %s | %d | %d | %g | %.0f | %.0f | %+.1f%% | %.0f | %+.1f%% | %.3f | %.0f | %+.1f%% |\n",
        k, s, n, c, m, r, 100 * (r - m) / m, a, 100 * (a - m) / m, psi, b, 100 * (b - m) / m }'
  done
done
