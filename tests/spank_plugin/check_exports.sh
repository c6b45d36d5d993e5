#!/bin/sh
# Fails unless the plugin exports exactly what Slurm looks up: slurm_spank_* hooks and the
# plugin_* / spank_plugin_version symbols of SPANK_PLUGIN (spank_plugin/exports.map), and
# slurm_spank_init_failure_mode exactly when the build's spank.h declares it (Slurm 25.05+).
#   check_exports.sh PLUGIN.so FAILURE_MODE(ON|OFF)
set -eu
so=$1 failure_mode=${2:-OFF}
symbols=$(nm -D --defined-only "$so" | awk '{print $3}')
extra=$(printf '%s\n' "$symbols" | grep -v -E '^(slurm_spank_[a-z_]+|plugin_(name|type|version)|spank_plugin_version)$' || true)
if [ -n "$extra" ]; then
  echo "unexpected exported symbols:"; printf '%s\n' "$extra"; exit 1
fi
for needed in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init \
              slurm_spank_init_post_opt slurm_spank_user_init slurm_spank_task_init; do
  printf '%s\n' "$symbols" | grep -qx "$needed" || { echo "missing export: $needed"; exit 1; }
done
if [ "$failure_mode" = ON ]; then
  printf '%s\n' "$symbols" | grep -qx slurm_spank_init_failure_mode ||
    { echo "missing export: slurm_spank_init_failure_mode (spank.h declares it)"; exit 1; }
  nm -D --defined-only "$so" | grep -q ' [DdBbRr] slurm_spank_init_failure_mode$' ||
    { echo "slurm_spank_init_failure_mode is not a data symbol"; exit 1; }
elif printf '%s\n' "$symbols" | grep -qx slurm_spank_init_failure_mode; then
  echo "slurm_spank_init_failure_mode exported, but this Slurm's spank.h does not declare it"; exit 1
fi
echo "exports ok: $(printf '%s\n' "$symbols" | tr '\n' ' ')"
