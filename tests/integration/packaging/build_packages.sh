#!/bin/sh
# Builds the Debian and the RPM packages of a configured and built tree:
#   build_packages.sh BUILD_DIR OUT_DIR
# OUT_DIR gets hetscale{,-spank,-dashboards} *.deb and *.rpm (and nothing older).
set -eu
build=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
cd "$build"
for generator in DEB RPM; do
  cpack --config "$build/CPackConfig.cmake" -G "$generator" -B "$out" >"$out/cpack-$generator.log" 2>&1 ||
    { cat "$out/cpack-$generator.log"; echo "cpack -G $generator failed"; exit 1; }
done
ls -l "$out"/*.deb "$out"/*.rpm
