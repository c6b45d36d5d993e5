# vm.overcommit_memory for the twin's folded buffers (docs/twin.md, "Problem sizes"):
# SMPI reserves a folded region's whole size in one mapping (untouched, it costs no
# memory), which Linux's default heuristic refuses beyond memory and swap. Sourced by the
# scripts that run the twin at capacity-planning sizes: overcommit_allow sets it to 1 (as
# root; otherwise it warns and the twin's runs that need it fail, saying why), and
# overcommit_restore, called from their EXIT trap, puts the old value back.
OVERCOMMIT_BEFORE=
overcommit_allow() {
  local before
  before=$(cat /proc/sys/vm/overcommit_memory)
  [ "$before" = 1 ] && return 0
  if sysctl -qw vm.overcommit_memory=1 2>/dev/null; then
    OVERCOMMIT_BEFORE=$before
  else
    printf 'warning: cannot set vm.overcommit_memory to 1 (not root?): the twin cannot fold buffers larger than memory and swap\n' >&2
  fi
}
overcommit_restore() {
  [ -n "$OVERCOMMIT_BEFORE" ] || return 0
  sysctl -qw vm.overcommit_memory="$OVERCOMMIT_BEFORE"
  OVERCOMMIT_BEFORE=
}
