# Shared helpers of the testbed's scripts (sourced, not run).
# Every process a testbed script starts is placed in a cgroup whose name is derived from
# the run directory, so `down` finds exactly what `up` started, even when the run
# directory was deleted by a later `rm -rf` (docs/testbed.md, "Ownership").
# The caller sets SCRIPT (its own name, for messages) before sourcing this file.

say() { printf '%s: %s\n' "$SCRIPT" "$*"; }
warn() { printf '%s: warning: %s\n' "$SCRIPT" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SCRIPT" "$*" >&2; exit 1; }

# The table of a run's steps, printed at its end: step_row NAME SECONDS [RESULT] adds one
# row, print_step_rows prints them all (scripts/test.sh, scripts/test-slurm-releases.sh).
step_rows=()
step_row() { step_rows+=("$(printf '%6d s  %-48s %s' "$2" "$1" "${3:-}")"); }
print_step_rows() { [ ${#step_rows[@]} = 0 ] || printf '  %s\n' "${step_rows[@]}"; }

# Absolute, normalised form of a path that may not exist yet.
abs_path() { realpath -m -- "$1"; }

# Stable short id of a run directory: the cgroup name and default ports derive from it.
dir_id() { printf '%s' "$1" | cksum | cut -d' ' -f1; }

# Sets CG_VERSION (1 or 2) and CG_ROOT (where the cpu controller's hierarchy is mounted).
cg_detect() {
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    grep -qw cpu /sys/fs/cgroup/cgroup.controllers ||
      die "cgroup v2 without the cpu controller: cannot enforce node speeds"
    CG_VERSION=2 CG_ROOT=/sys/fs/cgroup
  elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    CG_VERSION=1 CG_ROOT=/sys/fs/cgroup/cpu
  elif [ -f /sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us ]; then
    CG_VERSION=1 CG_ROOT=/sys/fs/cgroup/cpu,cpuacct
  else
    die "no cpu cgroup controller found under /sys/fs/cgroup"
  fi
}

# cg_create PATH: creates a cgroup (and, on v2, lets its parent delegate the cpu controller).
cg_create() {
  local cg=$1
  if [ "$CG_VERSION" = 2 ]; then
    local parent
    parent=$(dirname "$cg")
    grep -qw cpu "$parent/cgroup.subtree_control" || echo +cpu >"$parent/cgroup.subtree_control" ||
      die "cannot enable the cpu controller in $parent (is this cgroup delegated to us?)"
  fi
  mkdir -p "$cg" || die "cannot create cgroup $cg"
}

# cg_limit PATH QUOTA_US PERIOD_US: a hard CPU bandwidth ceiling (QUOTA_US = max for none).
cg_limit() {
  local cg=$1 quota=$2 period=$3
  if [ "$CG_VERSION" = 2 ]; then
    echo "$quota $period" >"$cg/cpu.max"
  else
    [ "$quota" = max ] && quota=-1
    echo "$period" >"$cg/cpu.cfs_period_us"
    echo "$quota" >"$cg/cpu.cfs_quota_us"
  fi
}

# cg_priority PATH: the highest CPU weight, so that other load does not eat into a quota.
cg_priority() {
  local cg=$1
  if [ "$CG_VERSION" = 2 ]; then echo 10000 >"$cg/cpu.weight"; else echo 262144 >"$cg/cpu.shares"; fi
}

# cg_lowest_weight PATH: the lowest CPU weight, so that the cgroup runs only on processor
# time its siblings leave.
cg_lowest_weight() {
  local cg=$1
  if [ "$CG_VERSION" = 2 ]; then echo 1 >"$cg/cpu.weight"; else echo 2 >"$cg/cpu.shares"; fi
}

# cg_weight PATH: its CPU weight as "cpu.weight W" or "cpu.shares S".
cg_weight() {
  local cg=$1
  if [ "$CG_VERSION" = 2 ]; then echo "cpu.weight $(cat "$cg/cpu.weight")"; else echo "cpu.shares $(cat "$cg/cpu.shares")"; fi
}

# cg_describe PATH: the limit as "quota/period" (or "none").
cg_describe() {
  local cg=$1 q p
  if [ "$CG_VERSION" = 2 ]; then
    read -r q p <"$cg/cpu.max"
  else
    q=$(cat "$cg/cpu.cfs_quota_us") p=$(cat "$cg/cpu.cfs_period_us")
  fi
  if [ "$q" = max ] || [ "$q" = -1 ]; then echo none; else echo "${q}us/${p}us"; fi
}

# cg_pids PATH: every process in the cgroup and its descendants.
cg_pids() {
  local cg=$1
  [ -d "$cg" ] || return 0
  find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null || true
}

# cg_spawn PATH LOG CMD...: runs CMD (in the foreground) as a member of the cgroup, so that
# it and everything it forks, daemons included, inherit the cgroup and its CPU limit.
cg_spawn() {
  local cg=$1 log=$2
  shift 2
  (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$@") </dev/null >>"$log" 2>&1
}

# cg_spawn_bg PATH LOG CMD...: as cg_spawn, for a CMD that does not daemonise itself: runs
# it in the background, in a session of its own, and sets SPAWNED_PID to its PID (the one
# process: no shell waits for it, so nothing outside the cgroup holds the caller's output).
cg_spawn_bg() {
  local cg=$1 log=$2
  shift 2
  (echo "$BASHPID" >"$cg/cgroup.procs" && exec setsid "$@") </dev/null >>"$log" 2>&1 &
  # shellcheck disable=SC2034 # read by the caller
  SPAWNED_PID=$!
}

# cg_destroy PATH: SIGKILLs whatever is still in the cgroup tree, then removes it.
cg_destroy() {
  local cg=$1 i pids
  [ -d "$cg" ] || return 0
  for i in $(seq 1 50); do
    pids=$(cg_pids "$cg")
    [ -z "$pids" ] && break
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.1
  done
  [ -z "$(cg_pids "$cg")" ] || die "processes survive in $cg: $(cg_pids "$cg" | tr '\n' ' ')"
  find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
  [ ! -d "$cg" ] || die "cannot remove cgroup $cg"
}

# pid_in_cgroup PIDFILE CGNAME: prints the PID of a live process that is a member of our
# cgroup (so never somebody else's process that reused the PID).
pid_in_cgroup() {
  local pidfile=$1 cgname=$2 pid
  [ -f "$pidfile" ] || return 1
  read -r pid <"$pidfile" 2>/dev/null || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  grep -q "/$cgname\(/\|$\)" "/proc/$pid/cgroup" 2>/dev/null || return 1
  echo "$pid"
}

# stop_pidfile PIDFILE CGNAME: SIGTERM to the process named by PIDFILE if it is ours.
stop_pidfile() {
  local pid
  pid=$(pid_in_cgroup "$1" "$2") || return 0
  kill -TERM "$pid" 2>/dev/null || true
}

# wait_cgroup_empty PATH SECONDS: waits until no process is left in the cgroup tree.
wait_cgroup_empty() {
  local cg=$1 tenths=$(($2 * 10)) i
  for ((i = 0; i < tenths; i++)); do
    [ -z "$(cg_pids "$cg")" ] && return 0
    sleep 0.1
  done
  return 1
}

# port_free PORT: true when no TCP socket of this host, listening or connected, uses PORT
# (sockets in TIME-WAIT do not count: servers bind over them with SO_REUSEADDR).
port_free() {
  ! ss -Htan exclude time-wait "( sport = :$1 )" 2>/dev/null | grep -q .
}
