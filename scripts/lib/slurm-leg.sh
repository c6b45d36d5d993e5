#!/usr/bin/env bash
# The way into a testbed cluster that runs another Slurm release from a Debian root
# (docs/testbed.md, "Slurm releases"). `scripts/cluster.sh up --slurm RELEASE` copies this
# file to RUN_DIR/bin/.slurm-leg and makes every Slurm client RUN_DIR/bin/<client> a
# symbolic link to it.
#   RUN_DIR/bin/<client> ARGS...   runs the root's /usr/bin/<client> ARGS with the caller's
#                                   working directory, environment and user
#   RUN_DIR/bin/.slurm-leg hold     (cluster.sh, in a new private mount namespace) builds
#                                   the view of the root, writes RUN_DIR/pid/holder.pid and
#                                   sleeps inside the root: the holder every daemon enters
# The view: RUN_DIR/leg/view/root, an overlay of RUN_DIR/leg/skel (passwd, group, hosts,
# the mount points) over the root, with a tmpfs for what is written there, and the host's
# /proc, /dev, /sys and the paths of RUN_DIR/leg/config ("bind PATH") mounted at the same
# paths. It exists only in mount namespaces: nothing is ever mounted on the host.
# root calls enter the holder's namespace (nsenter). Any other user cannot: such a call
# builds the same view in a user and mount namespace of its own (unshare), then runs the
# client as that user again through a second user namespace, so that getuid() and the
# credential MUNGE sees are the caller's.
set -euo pipefail

die() { printf 'hetscale testbed: %s\n' "$*" >&2; exit 1; }

# Inside a root (a job's step calls a client by the PATH it inherited): the root's own.
if [ -e /.hetscale-leg ]; then
  [ "${0##*/}" != .slurm-leg ] || die ".slurm-leg is not run inside the root"
  exec "/usr/bin/${0##*/}" "$@"
fi

BIN=$(cd "$(dirname "$0")" && pwd -P)
RUN_DIR=$(dirname "$BIN")
LEG=$RUN_DIR/leg
VIEW=$LEG/view/root
[ -r "$LEG/config" ] || die "$RUN_DIR is not a cluster of another Slurm release (no $LEG/config)"
RELEASE="" ROOT="" BINDS=()
while read -r key value; do
  case "$key" in
    release) RELEASE=$value ;;
    root) ROOT=$value ;;
    bind) BINDS+=("$value") ;;
  esac
done <"$LEG/config"
[ -d "$ROOT/usr" ] || die "the Slurm $RELEASE root $ROOT is missing (scripts/slurm-root.sh ensure $RELEASE)"

# The view, in the current (new, private) mount namespace.
build_view() {
  mount -t tmpfs -o mode=755 hetscale-leg "$LEG/view"
  mkdir "$LEG/view/upper" "$LEG/view/work" "$VIEW"
  mount -t overlay hetscale-leg \
    -o "lowerdir=$LEG/skel:$ROOT,upperdir=$LEG/view/upper,workdir=$LEG/view/work" "$VIEW"
  local d
  for d in /proc /dev /sys; do mount --rbind "$d" "$VIEW$d"; done
  # Not recursive: the view itself may lie under one of these paths.
  for d in "${BINDS[@]}"; do mount --bind "$d" "$VIEW$d"; done
}

client=${0##*/}
if [ "$client" = .slurm-leg ]; then
  mode=${1:-}
  shift || true
  case "$mode" in
    hold)
      build_view
      echo $$ >"$RUN_DIR/pid/holder.pid"
      exec chroot "$VIEW" /bin/sleep infinity
      ;;
    user)
      # In the caller's own user namespace (as its root) and mount namespace.
      uid=$1 gid=$2 wd=$3 client=$4
      shift 4
      build_view
      [ -d "$VIEW$wd" ] || die "the working directory $wd is not visible inside the Slurm $RELEASE root (the host paths there: ${BINDS[*]}; more with HETSCALE_TESTBED_BINDS at up)"
      # The second user namespace maps the caller's ids back; unshare changes the root after
      # creating it (a chrooted process may not create a user namespace).
      exec unshare --map-user="$uid" --map-group="$gid" --root="$VIEW" --wd="$wd" -- "/usr/bin/$client" "$@"
      ;;
    *) die "usage: .slurm-leg hold (cluster.sh runs it)" ;;
  esac
fi

wd=$(pwd -P)
if [ "$(id -u)" -ne 0 ]; then
  exec unshare --user --map-root-user --mount --propagation private -- \
    "$BIN/.slurm-leg" user "$(id -u)" "$(id -g)" "$wd" "$client" "$@"
fi

holder=$(cat "$RUN_DIR/pid/holder.pid" 2>/dev/null) || holder=""
[ -n "$holder" ] && [ "$(cat "/proc/$holder/root/.hetscale-leg" 2>/dev/null)" = "$RUN_DIR $RELEASE" ] ||
  die "the Slurm $RELEASE cluster in $RUN_DIR is not running (scripts/cluster.sh up --slurm $RELEASE)"
# A working directory the view does not have is mounted into the holder's namespace.
if [ ! -d "/proc/$holder/root$wd" ]; then
  nsenter --target "$holder" --mount -- sh -c 'mkdir -p "$2$1" && mount --bind "$1" "$2$1"' sh "$wd" "$VIEW" ||
    die "cannot mount $wd into the Slurm $RELEASE root"
fi
# nsenter enters the holder's root and working directory (the root's /); the shell then
# changes to the caller's (a --wd=DIR would be looked up outside the root).
exec nsenter --target "$holder" --mount --root --wd -- /bin/sh -c 'cd "$0" && exec "$@"' "$wd" "/usr/bin/$client" "$@"
