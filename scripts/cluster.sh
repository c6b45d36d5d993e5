#!/usr/bin/env bash
# A local heterogeneous Slurm cluster on this one machine (docs/testbed.md).
#   scripts/cluster.sh up     [--run-dir DIR] [--layout FILE] [--plugin SO] [--plugin-args 'k=v ...']
#                             [--accounting slurmdbd|none] [--slurm RELEASE] [--hetscale BIN]
#   scripts/cluster.sh down   [--run-dir DIR]
#   scripts/cluster.sh status [--run-dir DIR]
#   scripts/cluster.sh restart ...   (down, then up with the same options)
# DIR defaults to <repo>/run/cluster, FILE to site-configs/testbed-layout.txt. After `up`,
# `source DIR/env` sets SLURM_CONF for srun/sbatch/sinfo/sacct; DIR/site.toml is the site
# table of the layout's declared speeds, written by `BIN groups --declared FILE`. BIN is
# --hetscale, else $HETSCALE, else the hetscale of the build tree of --plugin
# (<tree>/spank_plugin/hetscale.so -> <tree>/bin/hetscale), else the newest
# <repo>/build/*/bin/hetscale; `--hetscale none` writes no site table (a cluster that runs
# no hetscale). --accounting slurmdbd (the default) also runs MariaDB and slurmdbd, so
# that `sacct` works and unknown accounts and QOS are refused; none runs neither.
# --slurm names the Slurm release: this machine's (22.05, the default) or one of
# scripts/slurm-roots/ (24.11, 26.05), whose daemons run from a Debian root
# (scripts/slurm-root.sh) and whose clients DIR/env puts first on PATH (DIR/bin); the
# host programs named in HETSCALE_TESTBED_HOST_PROGRAMS get the host's copies of the
# libraries that root lacks. `down` stops exactly what `up` started.
set -euo pipefail

SCRIPT=cluster.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"

# The client wrappers of a cluster of another release (its DIR/bin, which its env puts on
# PATH) are not this cluster's: the programs of the release this cluster runs are called
# directly (the host's) or through IN_LEG.
PATH=$(tr ':' '\n' <<<"$PATH" | while IFS= read -r d; do [ -e "$d/.slurm-leg" ] || printf '%s:' "$d"; done)
PATH=${PATH%:}

PERIOD_US=${HETSCALE_TESTBED_PERIOD_US:-20000}  # CFS period: short, so that short timed runs see a smooth quota
# Share of the real cores the node quotas add up to: the rest is headroom for the
# scheduler's imperfect packing of throttled tasks on cores, for slurmctld, srun, munged
# and whatever else runs (docs/testbed.md, "Speed factors").
CPU_BUDGET=${HETSCALE_TESTBED_CPU_BUDGET:-0.8}
# Besides the layout's nodes, one node of the machine's own, outside the measured
# partitions: all the real cores, no CPU quota, the lowest CPU weight (docs/testbed.md,
# "The twin's node"). Work beside the measured nodes runs there: the twin's simulations.
TWIN_NODE=twin
TWIN_PARTITION=twin
TEST_USER=hetscale-test
UP_TIMEOUT_S=30
# Accounting (--accounting slurmdbd): the Slurm account every user of the testbed is
# associated with, and the users: root, and the unprivileged test user.
ACCT_DB=slurm_acct_db
ACCOUNT=hetscale
ACCT_USERS="root,$TEST_USER"

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }

parse_args() {
  VERB=${1:-}
  [ $# -gt 0 ] && shift
  RUN_DIR=$REPO/run/cluster LAYOUT=$REPO/site-configs/testbed-layout.txt
  PLUGIN="" PLUGIN_ARGS="" ACCOUNTING=slurmdbd SLURM_RELEASE="" HETSCALE_BIN=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --run-dir) RUN_DIR=${2:?--run-dir needs a value}; shift 2 ;;
      --layout) LAYOUT=${2:?--layout needs a value}; shift 2 ;;
      --plugin) PLUGIN=${2:?--plugin needs a value}; shift 2 ;;
      --plugin-args) PLUGIN_ARGS=${2?--plugin-args needs a value}; shift 2 ;;
      --accounting) ACCOUNTING=${2:?--accounting needs a value}; shift 2 ;;
      --slurm) SLURM_RELEASE=${2:?--slurm needs a release}; shift 2 ;;
      --hetscale) HETSCALE_BIN=${2:?--hetscale needs a program}; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown argument '$1' (try --help)" ;;
    esac
  done
  case "$ACCOUNTING" in
    slurmdbd | none) ;;
    *) die "--accounting must be slurmdbd or none, got '$ACCOUNTING'" ;;
  esac
  RUN_DIR=$(abs_path "$RUN_DIR")
  # Unix socket paths (munge, slurmstepd, PMIx) live under it and are limited to 107 bytes.
  [ ${#RUN_DIR} -le 70 ] || die "run dir '$RUN_DIR' is longer than 70 characters (unix socket paths under it would be too long)"
  CG_NAME=hetscale-testbed-$(dir_id "$RUN_DIR")
  cg_detect
  CG=$CG_ROOT/$CG_NAME
  export SLURM_CONF=$RUN_DIR/slurm.conf
  # MariaDB: DIR/mariadb/data (a fresh copy of the template at every `up`), its socket.
  DB_DIR=$RUN_DIR/mariadb
  DB_SOCK=$DB_DIR/socket
  DB_TEMPLATE=$(abs_path "${HETSCALE_TESTBED_DB_TEMPLATE:-$DB_DIR/template}")
  choose_release
  # slurmdbd's MySQL client library finds the server's socket through this variable.
  export MYSQL_UNIX_PORT=$DB_SOCK
}

# ---------------------------------------------------------------------------- releases
# HOST_RELEASE is this machine's Slurm (22.05); SLURM_RELEASE the cluster's (--slurm, by
# default the host's). Another release runs from its Debian root (scripts/slurm-root.sh),
# LEG=1: a holder process keeps a private mount namespace in which the root has the host's
# /proc, /dev, /sys and the paths of leg_binds at the same paths; every daemon enters it
# (IN_LEG, the prefix of each command of the cluster's release: empty on the host's), and
# host programs reach its clients through DIR/bin (scripts/lib/slurm-leg.sh).
IN_LEG=()
leg() { "${IN_LEG[@]}" "$@"; }

choose_release() {
  HOST_RELEASE=$(slurmd -V 2>/dev/null | awk '{print $2}' | cut -d. -f1,2) || true
  SLURM_RELEASE=${SLURM_RELEASE:-$HOST_RELEASE}
  LEG=0
  [ "$SLURM_RELEASE" = "$HOST_RELEASE" ] && return 0
  [ -f "$REPO/scripts/slurm-roots/$SLURM_RELEASE" ] ||
    die "--slurm must be ${HOST_RELEASE:-?} (this machine's) or one of scripts/slurm-roots/ ($(ls "$REPO/scripts/slurm-roots" | tr '\n' ' ')), got '$SLURM_RELEASE'"
  LEG=1
  # Each release builds and keeps a template of its own (its MariaDB and Slurm differ).
  DB_TEMPLATE=$DB_TEMPLATE-$SLURM_RELEASE
}

# The host paths that jobs, daemons and clients of a leg see at the same path inside its
# root: /tmp and the homes, the repository, the run dir, the template's directory, the
# plugin's, and HETSCALE_TESTBED_BINDS (colon-separated). Never one of the root's own.
leg_binds() {
  local p list=(/tmp /var/tmp /root /home "$REPO" "$RUN_DIR")
  [ "$ACCOUNTING" = slurmdbd ] && list+=("$(dirname "$DB_TEMPLATE")")
  [ -n "$PLUGIN" ] && list+=("$(dirname "$(abs_path "$PLUGIN")")")
  IFS=: read -r -a extra <<<"${HETSCALE_TESTBED_BINDS:-}"
  for p in "${extra[@]}"; do
    [ -d "$p" ] || die "HETSCALE_TESTBED_BINDS: '$p' is not a directory"
    list+=("$p")
  done
  LEG_BINDS=()
  for p in "${list[@]}"; do
    [ -d "$p" ] || continue
    p=$(abs_path "$p")
    case "$p" in
      / | /usr | /usr/* | /etc | /etc/* | /bin | /bin/* | /sbin | /sbin/* | /lib* | /proc | /proc/* | \
        /sys | /sys/* | /dev | /dev/* | /run | /run/* | /boot | /boot/* | /var | /var/lib | /var/lib/*)
        die "'$p' cannot be shown inside the Slurm $SLURM_RELEASE root: the root has its own" ;;
    esac
    LEG_BINDS+=("$p")
  done
  mapfile -t LEG_BINDS < <(printf '%s\n' "${LEG_BINDS[@]}" | sort -u)
}

# DIR/leg: config (the release, the root, the binds), skel (what the view shows over the
# root: the mount points, passwd and group with every user of this machine under the same
# ids, hosts, and the marker .hetscale-leg), view (the mount point of the view); DIR/bin:
# .slurm-leg and one link to it per client of the root's slurm-client package.
write_leg() {
  local leg=$RUN_DIR/leg p
  rm -rf "$leg" "$RUN_DIR/bin"
  mkdir -p "$leg/skel/etc" "$leg/view" "$RUN_DIR/bin"
  [ "$ACCOUNTING" = slurmdbd ] && mkdir -p "$(dirname "$DB_TEMPLATE")"
  leg_binds
  {
    echo "release $SLURM_RELEASE"
    echo "root $LEG_ROOT"
    for p in "${LEG_BINDS[@]}"; do
      echo "bind $p"
      mkdir -p "$leg/skel$p"
    done
  } >"$leg/config"
  echo "$RUN_DIR $SLURM_RELEASE" >"$leg/skel/.hetscale-leg"
  # This machine's users first (jobs and clients run as them), then the root's own system
  # users whose name and id are both free.
  merge_ids /etc/passwd "$LEG_ROOT/etc/passwd" >"$leg/skel/etc/passwd"
  merge_ids /etc/group "$LEG_ROOT/etc/group" >"$leg/skel/etc/group"
  cp /etc/hosts "$leg/skel/etc/hosts"
  # Every node is this one host: Open MPI ranks reach each other on the loopback interface,
  # which its TCP transport leaves out unless told (Open MPI 5 then finds no route).
  if [ -f "$LEG_ROOT/etc/openmpi/openmpi-mca-params.conf" ]; then
    mkdir -p "$leg/skel/etc/openmpi"
    { cat "$LEG_ROOT/etc/openmpi/openmpi-mca-params.conf"
      echo "# scripts/cluster.sh: the testbed's nodes are one host."
      echo "btl_tcp_if_include = lo"
    } >"$leg/skel/etc/openmpi/openmpi-mca-params.conf"
  fi
  host_libs "$leg"
  chmod -R a+rX,go-w "$leg"
  cp "$REPO/scripts/lib/slurm-leg.sh" "$RUN_DIR/bin/.slurm-leg"
  chmod 755 "$RUN_DIR/bin" "$RUN_DIR/bin/.slurm-leg"
  for p in $(sed -n 's|^/usr/bin/||p' "$LEG_ROOT/var/lib/dpkg/info/slurm-client.list"); do
    ln -s .slurm-leg "$RUN_DIR/bin/$p"
  done
}

# Host programs that jobs of the leg run (HETSCALE_TESTBED_HOST_PROGRAMS, colon-separated:
# hetscale and its kernels as built here): every shared library they need (ldd, by soname)
# that the root has under none of its library directories is the host's copy, put into the
# view's /usr/lib/<multiarch>, where the dynamic loader looks after its cache. What the
# root has is the root's (its C library, Open MPI). LEG/host-libs lists each copy.
host_libs() {
  local leg=$1 prog soname path ma="" d have
  local -a progs=()
  IFS=: read -r -a progs <<<"${HETSCALE_TESTBED_HOST_PROGRAMS:-}"
  : >"$leg/host-libs"
  for prog in "${progs[@]}"; do
    [ -n "$prog" ] || continue
    [ -x "$prog" ] || die "HETSCALE_TESTBED_HOST_PROGRAMS: '$prog' is not an executable"
    while read -r soname path; do
      [ "$path" != "not" ] || die "$prog needs $soname, which this machine does not have (ldd)"
      if [ -z "$ma" ]; then ma=$(basename "$(dirname "$(ldd "$prog" | awk '$1 == "libc.so.6" {print $3}')")"); fi
      have=0
      for d in "/lib/$ma" "/usr/lib/$ma" /lib /usr/lib /lib64 /usr/lib64; do
        if [ -e "$LEG_ROOT$d/$soname" ] || [ -L "$LEG_ROOT$d/$soname" ] || [ -e "$leg/skel$d/$soname" ]; then have=1; break; fi
      done
      [ $have = 1 ] && continue
      mkdir -p "$leg/skel/usr/lib/$ma"
      cp -L "$path" "$leg/skel/usr/lib/$ma/$soname"
      echo "$soname $(readlink -f "$path") (needed by $prog)" >>"$leg/host-libs"
    done < <(ldd "$prog" | awk '$2 == "=>" {print $1, $3}')
  done
}

merge_ids() { awk -F: 'NR == FNR { name[$1]; id[$3]; print; next } !($1 in name) && !($3 in id)' "$1" "$2"; }

# The holder: in the cluster's cgroup (so `down` ends it with the rest, and its mount
# namespace with it), it builds the view and sleeps inside the root; IN_LEG then enters it.
start_holder() {
  rm -f "$RUN_DIR/pid/holder.pid"
  cg_spawn_bg "$CG/ctl" "$RUN_DIR/log/holder.out" unshare --mount --propagation private -- \
    "$RUN_DIR/bin/.slurm-leg" hold
  local pid=$SPAWNED_PID deadline=$((SECONDS + UP_TIMEOUT_S))
  until [ -s "$RUN_DIR/pid/holder.pid" ]; do
    alive "$pid" || die "the namespace holder exited: $(tail -n 1 "$RUN_DIR/log/holder.out" 2>/dev/null)"
    [ $SECONDS -ge $deadline ] && die "the namespace holder is not ready after ${UP_TIMEOUT_S}s"
    sleep 0.02
  done
  enter_holder "$pid"
}

# enter_holder PID: IN_LEG runs a command inside the holder's root, in the holder's
# working directory (the root's /).
enter_holder() {
  IN_LEG=(nsenter --target "$1" --mount --root --wd --)
}

# ---------------------------------------------------------------------------- layout
# Fills NODES, GROUP[n], CPUS[n], SPEED[n] from the layout file; errors name file:line.
read_layout() {
  [ -r "$LAYOUT" ] || die "cannot read layout '$LAYOUT'"
  NODES=()
  declare -gA GROUP=() CPUS=() SPEED=()
  local lineno=0 line name kv key value
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    line=${line%%#*}
    read -r -a words <<<"$line"
    [ ${#words[@]} -eq 0 ] && continue
    name=${words[0]}
    [[ "$name" =~ ^[a-z][a-z0-9-]*$ ]] ||
      die "$LAYOUT:$lineno: bad node name '$name' (lower-case letters, digits, '-')"
    [ -z "${GROUP[$name]+x}" ] || die "$LAYOUT:$lineno: node '$name' listed twice"
    [ "$name" != "$TWIN_NODE" ] || die "$LAYOUT:$lineno: '$TWIN_NODE' is the twin's node, not a layout's"
    GROUP[$name]="" CPUS[$name]=1 SPEED[$name]=1.0
    for kv in "${words[@]:1}"; do
      [[ "$kv" == *=* ]] || die "$LAYOUT:$lineno: expected key=value, got '$kv'"
      key=${kv%%=*} value=${kv#*=}
      case "$key" in
        group) [[ "$value" =~ ^[A-Za-z0-9_-]+$ ]] || die "$LAYOUT:$lineno: bad group '$value'"
          GROUP[$name]=$value ;;
        cpus) [[ "$value" =~ ^[1-9][0-9]*$ ]] || die "$LAYOUT:$lineno: cpus must be a positive integer, got '$value'"
          CPUS[$name]=$value ;;
        speed) [[ "$value" =~ ^[0-9]*\.?[0-9]+$ ]] && awk "BEGIN{exit !($value > 0)}" ||
            die "$LAYOUT:$lineno: speed must be a positive number, got '$value'"
          SPEED[$name]=$value ;;
        *) die "$LAYOUT:$lineno: unknown key '$key' (group, cpus, speed)" ;;
      esac
    done
    [ -n "${GROUP[$name]}" ] || die "$LAYOUT:$lineno: node '$name' has no group="
    NODES+=("$name")
  done <"$LAYOUT"
  [ ${#NODES[@]} -gt 0 ] || die "$LAYOUT: no nodes"
}

# Fills QUOTA[n] (microseconds per PERIOD_US): the sum over all nodes is CPU_BUDGET x the
# machine's real cores; speed 1.0 x 1 cpu = CPU_BUDGET x REAL_CORES / sum(speed x cpus) of
# one core, capped at one core per declared CPU.
compute_quotas() {
  declare -gA QUOTA=()
  local total=0 n
  REAL_CORES=$(nproc)
  for n in "${NODES[@]}"; do total=$(awk "BEGIN{print $total + ${SPEED[$n]} * ${CPUS[$n]}}"); done
  awk "BEGIN{exit !($CPU_BUDGET > 0 && $CPU_BUDGET <= 1)}" ||
    die "HETSCALE_TESTBED_CPU_BUDGET must be in (0, 1], got '$CPU_BUDGET'"
  [[ $PERIOD_US =~ ^[0-9]+$ ]] && [ "$PERIOD_US" -ge 1000 ] && [ "$PERIOD_US" -le 1000000 ] ||
    die "HETSCALE_TESTBED_PERIOD_US must be microseconds in [1000, 1000000], got '$PERIOD_US'"
  CORE_PER_SPEED=$(awk "BEGIN{u = $CPU_BUDGET * $REAL_CORES / $total; if (u > 1) u = 1; printf \"%.6f\", u}")
  for n in "${NODES[@]}"; do
    QUOTA[$n]=$(awk "BEGIN{q = int(${SPEED[$n]} * ${CPUS[$n]} * $CORE_PER_SPEED * $PERIOD_US); if (q < 1000) q = 1000; print q}")
  done
}

# ---------------------------------------------------------------------------- files
# CTLD_PORT, PORT[n] and DBD_PORT (slurmdbd's): a block of free ports, starting at one
# derived from the run dir so that several clusters (other worktrees) can run side by side.
pick_ports() {
  declare -gA PORT=()
  local need=$((${#NODES[@]} + 3)) base attempt p ok
  # Below 32768, where Linux's ephemeral (outgoing) ports begin.
  base=$((20000 + ($(dir_id "$RUN_DIR") % 1200) * 10))
  for attempt in $(seq 0 50); do
    ok=1
    for ((p = base; p < base + need; p++)); do port_free "$p" || { ok=0; break; }; done
    [ $ok = 1 ] && break
    base=$((base + need + 3))
  done
  [ $ok = 1 ] || die "no block of $need free TCP ports found"
  CTLD_PORT=$base
  local i=1 n
  for n in "${NODES[@]}" "$TWIN_NODE"; do PORT[$n]=$((base + i)); i=$((i + 1)); done
  DBD_PORT=$((base + i))
}

write_slurm_conf() {
  local host n
  host=$(hostname -s)
  {
    echo "# Generated by scripts/cluster.sh up from $LAYOUT; do not edit."
    echo "ClusterName=hetscale"
    echo "SlurmctldHost=$host(127.0.0.1)"
    echo "SlurmctldPort=$CTLD_PORT"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$RUN_DIR/munge/munge.socket"
    echo "StateSaveLocation=$RUN_DIR/state/ctld"
    echo "SlurmdSpoolDir=$RUN_DIR/state/%n"
    echo "TmpFS=$RUN_DIR/tmp/%n"
    echo "SlurmctldPidFile=$RUN_DIR/pid/slurmctld.pid"
    echo "SlurmdPidFile=$RUN_DIR/pid/slurmd-%n.pid"
    echo "SlurmctldLogFile=$RUN_DIR/log/slurmctld.log"
    echo "SlurmdLogFile=$RUN_DIR/log/slurmd-%n.log"
    echo "SlurmctldDebug=info"
    echo "SlurmdDebug=info"
    echo "SlurmdParameters=config_overrides"
    echo "# linuxproc tracks a step's processes through /proc parentage: no cgroup of its"
    echo "# own, so every step stays in its node's CPU-quota cgroup (docs/testbed.md)."
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "SchedulerType=sched/backfill"
    echo "# Start batch jobs at once rather than batching them up (default delay 3 s): an"
    echo "# array of 8 short tasks completes in 0.8 s instead of 5.7 s."
    echo "SchedulerParameters=batch_sched_delay=0,sched_interval=1"
    echo "MpiDefault=none"
    echo "JobCompType=jobcomp/filetxt"
    echo "JobCompLoc=$RUN_DIR/jobcomp.log"
    echo "JobAcctGatherType=jobacct_gather/none"
    if [ "$ACCOUNTING" = slurmdbd ]; then
      echo "AccountingStorageType=accounting_storage/slurmdbd"
      echo "AccountingStorageHost=127.0.0.1"
      echo "AccountingStoragePort=$DBD_PORT"
      echo "# With slurmdbd: the MUNGE socket for talking to it (AuthInfo is not used there)."
      echo "AccountingStoragePass=$RUN_DIR/munge/munge.socket"
      echo "# A job of a user without an association, or with an unknown account or QOS, is"
      echo "# refused at submission, as on a production site."
      echo "AccountingStorageEnforce=associations,limits,qos"
    else
      echo "AccountingStorageType=accounting_storage/none"
    fi
    echo "PlugStackConfig=$RUN_DIR/plugstack.conf"
    echo "ReturnToService=2"
    echo "MailProg=/bin/true"
    echo "InactiveLimit=0"
    echo "KillWait=5"
    echo "MessageTimeout=20"
    echo "SlurmdTimeout=300"
    for n in "${NODES[@]}"; do
      echo "NodeName=$n NodeHostname=$host NodeAddr=127.0.0.1 Port=${PORT[$n]} CPUs=${CPUS[$n]} Features=${GROUP[$n]} State=UNKNOWN"
    done
    echo "# The twin's node: every real core, no CPU quota, outside the measured partitions."
    echo "NodeName=$TWIN_NODE NodeHostname=$host NodeAddr=127.0.0.1 Port=${PORT[$TWIN_NODE]} CPUs=$REAL_CORES Features=$TWIN_PARTITION State=UNKNOWN"
    local measured
    measured=$(IFS=,; echo "${NODES[*]}")
    echo "PartitionName=testbed Nodes=$measured Default=YES MaxTime=INFINITE State=UP"
    echo "# As a production partition that shares nodes: jobs that ask --oversubscribe share CPUs."
    echo "PartitionName=shared Nodes=$measured Default=NO MaxTime=INFINITE State=UP OverSubscribe=YES:4"
    echo "PartitionName=$TWIN_PARTITION Nodes=$TWIN_NODE Default=NO MaxTime=INFINITE State=UP"
  } >"$RUN_DIR/slurm.conf"
}

# slurmdbd reads slurmdbd.conf from the directory of SLURM_CONF; it holds database
# credentials on a real site, hence mode 0600 (here root connects through the socket).
write_slurmdbd_conf() {
  local f=$RUN_DIR/slurmdbd.conf
  rm -f "$f"
  (
    umask 077
    {
      echo "# Generated by scripts/cluster.sh up; do not edit."
      echo "AuthType=auth/munge"
      echo "AuthInfo=socket=$RUN_DIR/munge/munge.socket"
      echo "DbdHost=localhost"
      echo "DbdAddr=127.0.0.1"
      echo "DbdPort=$DBD_PORT"
      echo "SlurmUser=root"
      echo "LogFile=$RUN_DIR/log/slurmdbd.log"
      echo "PidFile=$RUN_DIR/pid/slurmdbd.pid"
      echo "DebugLevel=info"
      echo "StorageType=accounting_storage/mysql"
      echo "# localhost: the unix socket named by MYSQL_UNIX_PORT ($DB_SOCK)."
      echo "StorageHost=localhost"
      echo "StorageUser=root"
      echo "StorageLoc=$ACCT_DB"
    } >"$f"
  )
}

write_plugstack() {
  if [ -n "$PLUGIN" ]; then
    [ -r "$PLUGIN" ] || die "plugin '$PLUGIN' not found"
    # The word of the packaged snippet (docs/admin.md, "required or optional").
    echo "optional $(abs_path "$PLUGIN") $PLUGIN_ARGS" >"$RUN_DIR/plugstack.conf"
  else
    : >"$RUN_DIR/plugstack.conf"
  fi
}

write_env() {
  {
    echo "# source this file to talk to the testbed cluster"
    echo "export SLURM_CONF=$RUN_DIR/slurm.conf"
    echo "export HETSCALE_TESTBED_DIR=$RUN_DIR"
    if [ "$LEG" = 1 ]; then
      echo "# Slurm $SLURM_RELEASE from $LEG_ROOT: its clients, entered through $RUN_DIR/bin"
      echo "export HETSCALE_TESTBED_SLURM=$SLURM_RELEASE"
      echo "export PATH=$RUN_DIR/bin:\$PATH"
    fi
  } >"$RUN_DIR/env"
}

# HETSCALE_BIN: the hetscale that writes the site table (the order of usage above). One
# named by --hetscale or $HETSCALE must be there; the others are looked for.
find_hetscale() {
  local named=${HETSCALE_BIN:-${HETSCALE:-}} beside
  [ "$HETSCALE_BIN" = none ] && return 0
  if [ -n "$named" ]; then
    if ! [ -f "$named" ] || ! [ -x "$named" ]; then
      die "hetscale '$named' (--hetscale or \$HETSCALE) is not an executable"
    fi
    HETSCALE_BIN=$(abs_path "$named")
    return 0
  fi
  if [ -n "$PLUGIN" ]; then
    beside=$(dirname "$(dirname "$(abs_path "$PLUGIN")")")/bin/hetscale
    if [ -x "$beside" ]; then HETSCALE_BIN=$beside; return 0; fi
  fi
  # shellcheck disable=SC2012 # build directory names are ours; ls -t sorts by age
  HETSCALE_BIN=$(ls -td "$REPO"/build/*/bin/hetscale 2>/dev/null | head -n 1) || true
  if [ -z "$HETSCALE_BIN" ]; then
    die "no hetscale to write the site table: build hetscale first (cmake --build build/<dir> --target hetscale) or pass --hetscale BIN"
  fi
}

# The site table of the layout's declared speeds (docs/site-table.md, "Declared speeds").
write_site_table() {
  rm -f "$RUN_DIR/site.toml"
  [ "$HETSCALE_BIN" = none ] && return 0
  "$HETSCALE_BIN" groups --declared "$LAYOUT" --site-name testbed --speed-unit speed-factor \
    -o "$RUN_DIR/site.toml" >/dev/null ||
    die "$HETSCALE_BIN groups --declared $LAYOUT could not write $RUN_DIR/site.toml"
}

# ---------------------------------------------------------------------------- daemons
ensure_test_user() {
  id -u "$TEST_USER" >/dev/null 2>&1 && return 0
  useradd --system --user-group --create-home --home-dir "/var/lib/$TEST_USER" \
    --shell /bin/bash "$TEST_USER" 2>/dev/null || id -u "$TEST_USER" >/dev/null 2>&1 ||
    die "cannot create user $TEST_USER"
  say "created user $TEST_USER"
}

start_munge() {
  local d=$RUN_DIR/munge
  mkdir -p "$d"
  chmod 711 "$d"
  if [ ! -s "$d/munge.key" ]; then
    dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none
  fi
  chmod 400 "$d/munge.key"
  cg_spawn "$CG/ctl" "$RUN_DIR/log/munged.out" "${IN_LEG[@]}" munged --force --socket="$d/munge.socket" \
    --key-file="$d/munge.key" --pid-file="$RUN_DIR/pid/munged.pid" \
    --log-file="$RUN_DIR/log/munged.log" --seed-file="$d/munged.seed" ||
    die "munged did not start (see $RUN_DIR/log/munged.log)"
}

# MariaDB for slurmdbd: a unix socket only (no TCP), run as root, with durability off
# (throwaway accounting data). Each `up` starts on a fresh copy of a template data
# directory in which the accounting database already holds the cluster, the account and
# the users (creating slurmdbd's tables and registering them takes seconds; copying the
# template a fraction of one). The template is built by the first `up` that needs it.
DB_OPTS=()
db_options() {
  local data=$1
  DB_OPTS=(--no-defaults --datadir="$data" --user=root --socket="$DB_SOCK"
    --skip-networking --skip-log-bin --pid-file="$RUN_DIR/pid/mariadbd.pid"
    --log-error="$RUN_DIR/log/mariadbd.log" --innodb-buffer-pool-size=64M
    --innodb-log-file-size=8M --innodb-data-file-path=ibdata1:4M:autoextend --innodb-autoextend-increment=1
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-lock-wait-timeout=900)
  # MariaDB 11.8 (the roots') checks snapshot isolation by default, which fails slurmdbd's
  # updates with "Record has changed since last read".
  if [ "$LEG" = 1 ]; then DB_OPTS+=(--innodb-snapshot-isolation=OFF); fi
}

# alive PID: true while the process exists and is not a zombie.
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

# stop_and_wait DAEMON SECONDS: SIGTERM through its PID file, then waits until it is gone.
stop_and_wait() {
  local pid i
  pid=$(pid_in_cgroup "$RUN_DIR/pid/$1.pid" "$CG_NAME") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < $2 * 10; i++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
  die "$1 (pid $pid) did not stop within $2 s"
}

db_sql() { leg mariadb --no-defaults --socket="$DB_SOCK" --user=root -e "$1"; }

# db_start DATADIR: starts mariadbd (it does not daemonise: in the background, in a
# session of its own) and waits until it answers.
db_start() {
  db_options "$1"
  rm -f "$DB_SOCK"
  cg_spawn_bg "$CG/acct" "$RUN_DIR/log/mariadbd.out" "${IN_LEG[@]}" mariadbd "${DB_OPTS[@]}"
  local pid=$SPAWNED_PID deadline=$((SECONDS + UP_TIMEOUT_S))
  until leg mariadb-admin --no-defaults --socket="$DB_SOCK" --user=root ping >/dev/null 2>&1; do
    alive "$pid" || die "mariadbd exited (see $RUN_DIR/log/mariadbd.log)"
    [ $SECONDS -ge $deadline ] && die "mariadbd not ready after ${UP_TIMEOUT_S}s (see $RUN_DIR/log/mariadbd.log)"
    sleep 0.05
  done
}

# What the template holds; a template built by another version of this script, MariaDB
# or Slurm is built again.
template_stamp() {
  echo "$(leg mariadbd --version); $(leg slurmdbd -V); cluster hetscale; account $ACCOUNT; users $ACCT_USERS"
}

# Builds DB_TEMPLATE: a data directory initialised by mariadb-install-db, in which
# slurmdbd has created its tables and sacctmgr has registered the cluster and the
# associations, taken after both were stopped cleanly.
build_db_template() {
  local build=$DB_TEMPLATE.build.$$
  say "building the accounting database template $DB_TEMPLATE (once)"
  rm -rf "$build"
  mkdir -p "$build"
  chmod 700 "$build"
  db_options "$build"
  leg mariadb-install-db "${DB_OPTS[@]}" --auth-root-authentication-method=socket --skip-test-db \
    >"$RUN_DIR/log/mariadb-install-db.log" 2>&1 ||
    die "mariadb-install-db failed (see $RUN_DIR/log/mariadb-install-db.log)"
  db_start "$build"
  db_sql "CREATE DATABASE $ACCT_DB" || die "cannot create the database $ACCT_DB"
  start_slurmdbd first
  {
    leg sacctmgr -i add cluster hetscale &&
      leg sacctmgr -i add account "$ACCOUNT" Description=testbed Organization=hetscale &&
      leg sacctmgr -i add user "$ACCT_USERS" DefaultAccount="$ACCOUNT"
  } >"$RUN_DIR/log/sacctmgr.out" 2>&1 ||
    die "sacctmgr could not register the cluster and its users (see $RUN_DIR/log/sacctmgr.out)"
  stop_and_wait slurmdbd 10
  stop_and_wait mariadbd 30
  rm -f "$build/ib_buffer_pool"
  template_stamp >"$build/.hetscale-template"
  # Renamed into place at once: a template is complete or absent. Another `up` may have
  # built the same template meanwhile (a shared HETSCALE_TESTBED_DB_TEMPLATE): keep theirs.
  rm -rf "$DB_TEMPLATE"
  mv -T "$build" "$DB_TEMPLATE" 2>/dev/null || rm -rf "$build"
}

start_accounting() {
  cg_create "$CG/acct"
  mkdir -p "$DB_DIR" "$(dirname "$DB_TEMPLATE")"
  chmod 700 "$DB_DIR"
  [ "$(cat "$DB_TEMPLATE/.hetscale-template" 2>/dev/null)" = "$(template_stamp)" ] || build_db_template
  rm -rf "$DB_DIR/data"
  cp -a "$DB_TEMPLATE" "$DB_DIR/data"
  db_start "$DB_DIR/data"
  start_slurmdbd
}

# slurmdbd checks its tables, then listens; it writes its PID file once it has started.
# start_slurmdbd first: on the database it is to create. The roots' slurmdbd (24.11, 26.05)
# may then stop at once (fatal: _check_mysql_concat_is_sane) and start the second time.
start_slurmdbd() {
  local first=${1:-}
  rm -f "$RUN_DIR/pid/slurmdbd.pid"
  cg_spawn "$CG/acct" "$RUN_DIR/log/slurmdbd.out" "${IN_LEG[@]}" slurmdbd ||
    die "slurmdbd did not start (see $RUN_DIR/log/slurmdbd.log)"
  local deadline=$((SECONDS + UP_TIMEOUT_S))
  until ! port_free "$DBD_PORT" && [ -f "$RUN_DIR/pid/slurmdbd.pid" ]; do
    if [ -f "$RUN_DIR/pid/slurmdbd.pid" ] && ! pid_in_cgroup "$RUN_DIR/pid/slurmdbd.pid" "$CG_NAME" >/dev/null ||
      grep -q 'fatal:' "$RUN_DIR/log/slurmdbd.log" 2>/dev/null; then
      if [ "$first" = first ] && [ "$LEG" = 1 ]; then
        stop_and_wait slurmdbd 10
        mv "$RUN_DIR/log/slurmdbd.log" "$RUN_DIR/log/slurmdbd-first.log"
        say "slurmdbd's first start stopped ($(grep -m 1 'fatal:' "$RUN_DIR/log/slurmdbd-first.log" || echo exited)); starting it again"
        start_slurmdbd
        return
      fi
      die "slurmdbd exited: $(tail -n 1 "$RUN_DIR/log/slurmdbd.log" 2>/dev/null)"
    fi
    [ $SECONDS -ge $deadline ] && die "slurmdbd not listening after ${UP_TIMEOUT_S}s; see $RUN_DIR/log/slurmdbd.log"
    sleep 0.05
  done
}

start_slurmctld() {
  cg_spawn "$CG/ctl" "$RUN_DIR/log/slurmctld.out" "${IN_LEG[@]}" slurmctld -c ||
    die "slurmctld did not start (see $RUN_DIR/log/slurmctld.log)"
}

# One slurmd per node, in its own UTS namespace (host name = node name) and in its node's
# cgroup, whose CPU quota every job step on that node inherits. The twin's node has none,
# and the lowest weight: a measured node's ranks beside it get the processors first.
start_slurmd() {
  local n=$1
  cg_create "$CG/$n"
  if [ "$n" = "$TWIN_NODE" ]; then
    cg_limit "$CG/$n" max "$PERIOD_US"
    cg_lowest_weight "$CG/$n"
  else
    cg_limit "$CG/$n" "${QUOTA[$n]}" "$PERIOD_US"
  fi
  mkdir -p "$RUN_DIR/state/$n" "$RUN_DIR/tmp/$n"
  chmod 1777 "$RUN_DIR/tmp/$n"
  if [ "$LEG" = 1 ]; then
    # The host's unshare and hostname, then into the root.
    cg_spawn "$CG/$n" "$RUN_DIR/log/slurmd-$n.out" \
      unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' sh "$n" "${IN_LEG[@]}" slurmd -N "$n" ||
      die "slurmd for $n did not start (see $RUN_DIR/log/slurmd-$n.log)"
    return
  fi
  cg_spawn "$CG/$n" "$RUN_DIR/log/slurmd-$n.out" \
    unshare --uts sh -c 'hostname "$1" && exec slurmd -N "$1"' sh "$n" ||
    die "slurmd for $n did not start (see $RUN_DIR/log/slurmd-$n.log)"
}

wait_idle() {
  local deadline=$((SECONDS + UP_TIMEOUT_S)) states n
  while :; do
    for n in "${NODES[@]}" "$TWIN_NODE"; do
      # A slurmd that exits (port taken, bad config) leaves its node cgroup empty.
      [ -n "$(cg_pids "$CG/$n")" ] ||
        die "slurmd of $n exited: $(tail -n 1 "$RUN_DIR/log/slurmd-$n.log" 2>/dev/null)"
    done
    states=$(leg sinfo -h -N -o '%T' 2>/dev/null | sort -u | tr '\n' ' ') || true
    [ "$states" = "idle " ] && [ "$(leg sinfo -h -N -o '%N' 2>/dev/null | sort -u | wc -l)" = "$((${#NODES[@]} + 1))" ] && return 0
    [ $SECONDS -ge $deadline ] && die "nodes not idle after ${UP_TIMEOUT_S}s (states: ${states:-none}); logs in $RUN_DIR/log"
    sleep 0.1
  done
}

# True when any process of ours runs (the cgroup tree is not empty).
is_running() { [ -n "$(cg_pids "$CG")" ]; }

# ---------------------------------------------------------------------------- verbs
cmd_up() {
  if is_running; then
    say "already running in $RUN_DIR (nothing done; 'down' first to restart)"
    return 0
  fi
  local start=$SECONDS n
  read_layout
  compute_quotas
  find_hetscale
  if [ "$LEG" = 1 ]; then
    LEG_ROOT=$("$REPO/scripts/slurm-root.sh" ensure "$SLURM_RELEASE") || die "no Slurm $SLURM_RELEASE root"
  fi
  cleanup_leftovers
  rm -rf "$RUN_DIR/log" # the previous run's logs stay until the next up
  mkdir -p "$RUN_DIR"/{log,pid,state/ctld,tmp}
  chmod 755 "$RUN_DIR"
  : >"$RUN_DIR/jobcomp.log"
  pick_ports
  write_slurm_conf
  [ "$ACCOUNTING" = slurmdbd ] && write_slurmdbd_conf
  write_plugstack
  write_env
  write_site_table
  cp "$LAYOUT" "$RUN_DIR/layout.txt"
  ensure_test_user
  [ "$LEG" = 1 ] && write_leg
  cg_create "$CG"
  cg_priority "$CG"
  cg_create "$CG/ctl"
  [ "$LEG" = 1 ] && start_holder
  start_munge
  if [ "$ACCOUNTING" = slurmdbd ]; then start_accounting; fi
  start_slurmctld
  for n in "${NODES[@]}" "$TWIN_NODE"; do start_slurmd "$n"; done
  wait_idle
  say "up: ${#NODES[@]} nodes and the twin's node idle in $((SECONDS - start))s, Slurm $SLURM_RELEASE, accounting $ACCOUNTING; source $RUN_DIR/env"
}

# Removes what a killed or half-started run left behind (never a running process).
cleanup_leftovers() {
  cg_destroy "$CG"
  rm -rf "$RUN_DIR/state" "$RUN_DIR/tmp" "$RUN_DIR/pid" "$RUN_DIR/munge/munge.socket"* \
    "$RUN_DIR/slurmdbd.conf" "$DB_SOCK"* "$DB_DIR/data" "$RUN_DIR/bin" "$RUN_DIR/leg"
}

cmd_down() {
  local f
  # Gracefully through the PID files when they are there; whatever is left (or everything,
  # when the run dir is gone) is then killed through the cgroup.
  if [ -d "$CG" ] && [ -d "$RUN_DIR/pid" ]; then
    for f in "$RUN_DIR"/pid/slurmd-*.pid; do [ -e "$f" ] && stop_pidfile "$f" "$CG_NAME"; done
    stop_pidfile "$RUN_DIR/pid/slurmctld.pid" "$CG_NAME"
    # Then slurmdbd (slurmctld sends it the last job records), MariaDB, and munged last:
    # the Slurm daemons need it while they shut down.
    # (Another release's namespace holder goes last: the daemons are entered through it.)
    wait_until_only_left 5 slurmdbd mariadbd munged holder
    stop_pidfile "$RUN_DIR/pid/slurmdbd.pid" "$CG_NAME"
    wait_until_only_left 5 mariadbd munged holder
    stop_pidfile "$RUN_DIR/pid/mariadbd.pid" "$CG_NAME"
    wait_until_only_left 10 munged holder
    stop_pidfile "$RUN_DIR/pid/munged.pid" "$CG_NAME"
    if [ -f "$RUN_DIR/pid/holder.pid" ]; then
      wait_until_only_left 5 holder
      stop_pidfile "$RUN_DIR/pid/holder.pid" "$CG_NAME"
    fi
    wait_cgroup_empty "$CG" 3 || warn "forcing what is left in $CG"
  fi
  cleanup_leftovers
  say "down: nothing of $RUN_DIR is running"
}

# wait_until_only_left SECONDS DAEMON...: waits until no process is left in our cgroups
# but the named daemons (by their PID files), or nothing.
wait_until_only_left() {
  local tenths=$(($1 * 10)) i d keep="" pids
  shift
  for d in "$@"; do keep+="$(pid_in_cgroup "$RUN_DIR/pid/$d.pid" "$CG_NAME" || true)"$'\n'; done
  for ((i = 0; i < tenths; i++)); do
    pids=$(cg_pids "$CG" | grep -vxF -f <(printf '%snone\n' "$keep") || true)
    [ -z "$pids" ] && return 0
    sleep 0.1
  done
}

cmd_status() {
  if ! is_running; then
    say "not running ($RUN_DIR)"
    return 3
  fi
  say "running in $RUN_DIR (cgroup $CG, cgroup v$CG_VERSION)"
  if [ -f "$RUN_DIR/leg/config" ]; then
    local release root holder
    release=$(sed -n 's/^release //p' "$RUN_DIR/leg/config")
    root=$(sed -n 's/^root //p' "$RUN_DIR/leg/config")
    [ -f "$root/.hetscale-root" ] ||
      die "slurm: $release, but its root $root is gone: nothing of it can run ('down' stops the cluster)"
    say "slurm: $release ($(sed -n 's/^slurm /Slurm /p' "$root/.hetscale-root") from the root $root; clients in $RUN_DIR/bin)"
    holder=$(pid_in_cgroup "$RUN_DIR/pid/holder.pid" "$CG_NAME") ||
      die "the namespace holder of this cluster is gone: nothing can enter its root ('down' cleans up)"
    enter_holder "$holder"
  else
    say "slurm: $HOST_RELEASE (this machine's: $(slurmd -V))"
  fi
  if grep -qx 'AccountingStorageType=accounting_storage/slurmdbd' "$RUN_DIR/slurm.conf" 2>/dev/null; then
    say "accounting: slurmdbd on 127.0.0.1:$(sed -n 's/^AccountingStoragePort=//p' "$RUN_DIR/slurm.conf"), MariaDB on $DB_SOCK"
  else
    say "accounting: none (jobcomp/filetxt only)"
  fi
  local n
  printf '%-8s %-10s %-8s %-5s %-6s %s\n' NODE STATE GROUP CPUS SPEED QUOTA
  while read -r n state cpus feat; do
    local speed="?"
    [ -f "$RUN_DIR/layout.txt" ] && speed=$(awk -v n="$n" '$1 == n { s = "1.0"; for (i = 2; i <= NF; i++) if ($i ~ /^speed=/) s = substr($i, 7); print s }' "$RUN_DIR/layout.txt")
    printf '%-8s %-10s %-8s %-5s %-6s %s\n' "$n" "$state" "$feat" "$cpus" "$speed" \
      "$( [ -d "$CG/$n" ] && cg_describe "$CG/$n" || echo missing)"
  done < <(leg sinfo -h -N -p testbed -o '%N %T %c %f')
  while read -r n state cpus feat; do
    printf '%-8s %-10s %-8s %-5s %-6s %s\n' "$n" "$state" "$feat" "$cpus" "-" \
      "$( [ -d "$CG/$n" ] && cg_describe "$CG/$n" || echo missing) (partition $TWIN_PARTITION, $(cg_weight "$CG/$n"))"
  done < <(leg sinfo -h -N -p "$TWIN_PARTITION" -o '%N %T %c %f')
}

main() {
  parse_args "$@"
  [ "$(id -u)" -eq 0 ] || die "must run as root (cgroups, slurmd)"
  case "$VERB" in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    restart) cmd_down && cmd_up ;;
    -h | --help | "") usage; [ -n "$VERB" ] ;;
    *) die "unknown verb '$VERB' (up, down, status, restart)" ;;
  esac
}

main "$@"
