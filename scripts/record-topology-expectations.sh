#!/usr/bin/env bash
# Records what hwloc's own tools report of every recorded topology in
# tests/fixtures/topologies/ (hwloc-info and lstopo, of the hwloc that scripts/install-deps.sh
# installs), one file per topology in tests/fixtures/topologies/hwloc-info/, which
# tests/classifier/topology_fixtures_test.cpp compares the probe's records with.
#   scripts/record-topology-expectations.sh
# Each file holds the commands, each line starting "$ ", and their outputs, never edited.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR="$REPO/tests/fixtures/topologies"
OUT="$DIR/hwloc-info"
mkdir -p "$OUT"
export LC_ALL=C

for xml in "$DIR"/*.xml; do
  name=$(basename "$xml")
  file="$OUT/${name%.xml}.txt"
  (
    cd "$DIR"
    for args in "" "root" "numanode:all" "pci:all"; do
      echo "\$ hwloc-info --disallowed --if xml -i $name $args"
      # shellcheck disable=SC2086  # args is one word or none
      hwloc-info --disallowed --if xml -i "$name" $args
    done
    echo "\$ lstopo-no-graphics --disallowed --cpukinds --if xml -i $name --of console"
    lstopo-no-graphics --disallowed --cpukinds --if xml -i "$name" --of console
  ) > "$file"
  echo "wrote $file"
done
