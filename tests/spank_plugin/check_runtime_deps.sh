#!/bin/sh
# Fails unless the plugin needs nothing on a node but Slurm and the C runtime: its NEEDED
# libraries are among libc, libm, libgcc_s and the dynamic loader, and every undefined
# symbol without a library version is one of Slurm's (spank_*, slurm_*), which the
# loading process (srun, slurmstepd...) provides. A shared library creeping in through
# hetscale::site or hetscale::base (spank_plugin/CMakeLists.txt) shows here as a NEEDED
# entry or an undefined symbol.
set -eu
so=$1
needed=$(objdump -p "$so" | awk '$1 == "NEEDED" {print $2}')
extra=$(printf '%s\n' "$needed" | grep -v -E '^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2)$' || true)
if [ -n "$extra" ]; then
  echo "unexpected libraries needed by $so:"; printf '%s\n' "$extra"; exit 1
fi
undefined=$(nm -D --undefined-only "$so" | awk '$1 == "U" && $2 !~ /@/ {print $2}')
foreign=$(printf '%s\n' "$undefined" | grep -v -E '^(spank_|slurm_)' | grep -v '^$' || true)
if [ -n "$foreign" ]; then
  echo "undefined symbols that neither Slurm nor a versioned system library provides:"
  printf '%s\n' "$foreign"; exit 1
fi
echo "runtime deps ok: $(printf '%s\n' "$needed" | tr '\n' ' ')"
