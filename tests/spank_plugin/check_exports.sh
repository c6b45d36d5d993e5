#!/bin/sh
# Fails unless the plugin exports exactly what Slurm looks up: slurm_spank_* hooks and the
# plugin_* / spank_plugin_version symbols of SPANK_PLUGIN (spank_plugin/exports.map).
set -eu
so=$1
symbols=$(nm -D --defined-only "$so" | awk '{print $3}')
extra=$(printf '%s\n' "$symbols" | grep -v -E '^(slurm_spank_[a-z_]+|plugin_(name|type|version)|spank_plugin_version)$' || true)
if [ -n "$extra" ]; then
  echo "unexpected exported symbols:"; printf '%s\n' "$extra"; exit 1
fi
for needed in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init \
              slurm_spank_init_post_opt slurm_spank_user_init slurm_spank_task_init; do
  printf '%s\n' "$symbols" | grep -qx "$needed" || { echo "missing export: $needed"; exit 1; }
done
echo "exports ok: $(printf '%s\n' "$symbols" | tr '\n' ' ')"
