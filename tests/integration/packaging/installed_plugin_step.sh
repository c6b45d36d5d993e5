#!/usr/bin/env bash
# Installs the hetscale-spank .deb into this system, runs a weighted step on a local cluster
# that loads the plugin from where the package put it, removes the package (`dpkg -r`: the
# snippet leaves plugstack.conf.d, kept with its local change), installs it again (the
# snippet is back, change included) and purges it (nothing left), also when a check fails
# leaving the system as it was:
#   installed_plugin_step.sh PACKAGE_DIR RUN_DIR HETSCALE
# (HETSCALE: this build tree's hetscale, which writes the cluster's site table.)
# Needs root (dpkg); exits 77 (skipped) otherwise. Refuses to touch a system that already
# has hetscale-spank installed, unless this test installed it in a run that was killed
# before its cleanup (its marker file says so): then it purges that first.
set -euo pipefail
packages=$1 run_dir=$2 hetscale=$3
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cluster=$repo/scripts/cluster.sh
layout=$repo/site-configs/testbed-layout.txt
cache=/var/cache/hetscale
snippet=/etc/slurm/plugstack.conf.d/hetscale.conf
removed=/etc/slurm/hetscale-spank.removed
# Written before the first dpkg -i, deleted after the purge: while it exists, what
# hetscale-spank has installed here is this test's.
marker=/var/lib/hetscale-packaging-test.installed

[ "$(id -u)" -eq 0 ] || { echo "skipped: installing a package needs root"; exit 77; }
shopt -s nullglob
debs=("$packages"/hetscale-spank_*.deb)
[ ${#debs[@]} -eq 1 ] || { echo "expected one hetscale-spank .deb in $packages, found ${#debs[@]}"; exit 1; }
if [ -e "$marker" ]; then
  echo "a run of this test was killed before its cleanup; purging what it installed"
  dpkg --purge hetscale-spank
  rm -f "$removed" "$marker"
fi
if dpkg-query -W -f='${Status}' hetscale-spank 2>/dev/null | grep -q 'installed'; then
  echo "hetscale-spank is already installed here; not touching it"; exit 1
fi
[ -e "$snippet" ] && { echo "$snippet exists already; not touching it"; exit 1; }
[ -e "$removed" ] && { echo "$removed exists already; not touching it"; exit 1; }

# What the package may create and removal may leave behind.
had_cache=no had_snippet_dir=no
[ -d "$cache" ] && had_cache=yes
[ -d "$(dirname "$snippet")" ] && had_snippet_dir=yes
cleanup() {
  local status=$?
  "$cluster" down --run-dir "$run_dir" >/dev/null 2>&1 || true
  # dpkg -r keeps a conffile (the snippet, naming a plugin that is gone): purge removes it too.
  dpkg --purge hetscale-spank >/dev/null 2>&1 || true
  rm -f "$removed"
  dpkg-query -W -f='${Status}' hetscale-spank 2>/dev/null | grep -q 'installed' || rm -f "$marker"
  # The plugin's cache of this run's site table (site_cache_store: '/' becomes '%').
  if [ $had_cache = yes ]; then rm -f "$cache/$(printf '%s' "$run_dir/site.toml" | tr / %).cache"
  else rm -rf "$cache"; fi
  # Debian's slurm-wlm-basic-plugins owns the directory, so dpkg keeps it; elsewhere it
  # is this package's and goes with it unless it was there before.
  if [ $had_snippet_dir = yes ]; then mkdir -p "$(dirname "$snippet")"
  else rmdir "$(dirname "$snippet")" 2>/dev/null || true; fi
  exit $status
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; exit 1; }

: > "$marker"
dpkg -i "${debs[0]}"
plugin=$(dpkg -L hetscale-spank | grep '/hetscale\.so$') || fail "the package installs no hetscale.so"
echo "installed plugin: $plugin"
[ -f "$plugin" ] || fail "$plugin is listed but missing"
grep -q "^optional $plugin site=/etc/hetscale/site.toml default=off " "$snippet" ||
  fail "$snippet does not name $plugin with the default arguments: $(grep -v '^#' "$snippet")"
[ "$(stat -c '%U %a' "$cache")" = "root 755" ] || fail "$cache is not root's with mode 755: $(stat -c '%U %a' "$cache")"
man -w hetscale-spank >/dev/null || fail "man hetscale-spank finds no page"

"$cluster" restart --run-dir "$run_dir" --layout "$layout" --hetscale "$hetscale" \
  --plugin "$plugin" --plugin-args "site=$run_dir/site.toml default=off"
export SLURM_CONF=$run_dir/slurm.conf

# The testbed's nodes have 1 CPU each: one task per node, weight = speed / sum of speeds.
nodes=$(awk '{ sub(/#.*/, "") } NF { n++ } END { print n }' "$layout")
step=$(srun -N"$nodes" -n"$nodes" --hetscale-weights=marked --label \
  sh -c 'echo "$SLURMD_NODENAME $HETSCALE_WEIGHT $HETSCALE_WEIGHTS_SOURCE"')
echo "$step"
awk -v layout="$layout" '
  BEGIN {
    while ((getline line < layout) > 0) {
      sub(/#.*/, "", line); if (split(line, w, " ") == 0) continue
      speed[w[1]] = 1.0
      for (i = 2; i in w; i++) if (w[i] ~ /^speed=/) speed[w[1]] = substr(w[i], 7) + 0
      total += speed[w[1]]; nodes++
    }
  }
  { node = $2; weight = $3 + 0; source = $4; seen[node]++; sum += weight; tasks++
    if (source != "marked") { print "FAIL: rank on " node " got HETSCALE_WEIGHTS_SOURCE=" source; bad = 1 }
    want = speed[node] / total
    if (weight - want > 1e-12 || want - weight > 1e-12) {
      print "FAIL: rank on " node " got weight " weight ", expected " want; bad = 1 } }
  END {
    if (tasks != nodes) { print "FAIL: " tasks " tasks, expected " nodes; bad = 1 }
    if (sum - 1 > 1e-12 || 1 - sum > 1e-12) { print "FAIL: weights sum to " sum; bad = 1 }
    exit bad }' <<<"$step" || fail "the weighted step does not follow the site table"

# A step that does not ask gets nothing from the plugin (default=off); HETSCALE_TEST* are
# the test run's own variables, which srun hands on.
plain=$(srun -N1 -n1 sh -c 'env | grep ^HETSCALE_ | grep -v ^HETSCALE_TEST || true')
[ -z "$plain" ] || fail "a step that did not ask got: $plain"

"$cluster" down --run-dir "$run_dir"

# A local change to the snippet, then `dpkg -r`: the plugin goes, and no file of
# plugstack.conf.d names it any more (Slurm would try to load it for every job).
sed -i 's/ default=off / default=off on_missing=equal /' "$snippet"
grep -q 'on_missing=equal' "$snippet" || fail "could not change $snippet"
local_line=$(grep -v '^#' "$snippet")
dpkg -r hetscale-spank
[ ! -e "$plugin" ] || fail "dpkg -r left $plugin"
[ ! -e "$snippet" ] || fail "dpkg -r left $snippet, which names the removed $plugin"
naming=$(grep -l -r -F "$plugin" "$(dirname "$snippet")" 2>/dev/null || true)
[ -z "$naming" ] || fail "after dpkg -r, $naming still names the removed $plugin"
[ "$(grep -v '^#' "$removed" 2>/dev/null)" = "$local_line" ] || fail "dpkg -r did not keep the changed snippet as $removed"

# Installed again: the snippet is back in place with the local change.
dpkg -i "${debs[0]}"
[ -f "$plugin" ] || fail "the reinstalled package has no $plugin"
[ "$(grep -v '^#' "$snippet" 2>/dev/null)" = "$local_line" ] ||
  fail "the reinstalled package's snippet lost the local change: $(grep -v '^#' "$snippet" 2>/dev/null)"
[ ! -e "$removed" ] || fail "the reinstall left $removed"

dpkg --purge hetscale-spank
[ ! -e "$snippet" ] || fail "dpkg --purge left $snippet"
[ ! -e "$removed" ] || fail "dpkg --purge left $removed"
echo "installed plugin ok: a weighted step ran with $plugin; removal took the snippet out of plugstack.conf.d, a reinstall put it back, purge removed everything"
