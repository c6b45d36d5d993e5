#!/usr/bin/env bash
# Debian roots holding other Slurm releases for the testbed (docs/testbed.md, "Slurm
# releases").
#   scripts/slurm-root.sh ensure RELEASE   builds the root when it is missing or its package
#                                           list changed; prints its path
#   scripts/slurm-root.sh path RELEASE     prints where the root lives (built or not)
#   scripts/slurm-root.sh status [RELEASE] each root: current, stale or absent, its Slurm, size
#   scripts/slurm-root.sh remove RELEASE   deletes the root
# RELEASE is one of the files in scripts/slurm-roots/ (24.11, 26.05): the Debian suite and
# the packages of that release. A root is a minbase debootstrap of the suite with the
# packages installed by apt, from Debian's archive only, in
# ${HETSCALE_TESTBED_ROOTS:-/var/cache/hetscale-testbed/roots}/RELEASE. Its stamp
# (.hetscale-root) records the release, the suite and the hash of its list (its words, not
# its comments); a root whose stamp differs is built again. It is built in a directory of its own and renamed into
# place, so a root is complete or absent. The mirror is HETSCALE_TESTBED_MIRROR, by default
# the first Debian archive of this machine's apt sources.
set -euo pipefail

SCRIPT=slurm-root.sh
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/testbed-common.sh
source "$REPO/scripts/lib/testbed-common.sh"

LISTS=$REPO/scripts/slurm-roots
ROOTS=${HETSCALE_TESTBED_ROOTS:-/var/cache/hetscale-testbed/roots}

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }

releases() { find "$LISTS" -maxdepth 1 -type f -printf '%f\n' | sort -V; }

# read_list RELEASE: sets LIST, SUITE, APT_OPTS and PACKAGES from scripts/slurm-roots/RELEASE.
read_list() {
  LIST=$LISTS/$1
  [ -f "$LIST" ] || die "no Slurm release '$1' (known: $(releases | tr '\n' ' '))"
  SUITE="" APT_OPTS=() PACKAGES=()
  local lineno=0 line words
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    line=${line%%#*}
    read -r -a words <<<"$line"
    [ ${#words[@]} -eq 0 ] && continue
    case "${words[0]}" in
      suite) SUITE=${words[1]:?"$LIST:$lineno: suite needs a name"} ;;
      apt-option) APT_OPTS+=(-o "${words[1]:?"$LIST:$lineno: apt-option needs a value"}") ;;
      package) PACKAGES+=("${words[@]:1}") ;;
      *) die "$LIST:$lineno: unknown key '${words[0]}' (suite, apt-option, package)" ;;
    esac
  done <"$LIST"
  [ -n "$SUITE" ] || die "$LIST: no suite"
  [ ${#PACKAGES[@]} -gt 0 ] || die "$LIST: no packages"
}

# What a current root's stamp begins with: a root whose stamp differs is built again. The
# list's hash is over its words, not its comments or spacing.
want_stamp() {
  printf 'release %s\nsuite %s\nlist %s\n' "$1" "$SUITE" \
    "$(sed 's/#.*//' "$LIST" | tr -s ' \t' ' ' | sed 's/^ //; s/ $//; /^$/d' | sha256sum | cut -d' ' -f1)"
}

is_current() { [ "$(head -n 3 "$ROOTS/$1/.hetscale-root" 2>/dev/null)" = "$(want_stamp "$1")" ]; }

# The Debian archive: HETSCALE_TESTBED_MIRROR, else the first .../debian of the apt sources.
mirror() {
  if [ -n "${HETSCALE_TESTBED_MIRROR:-}" ]; then echo "$HETSCALE_TESTBED_MIRROR"; return; fi
  local m
  m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -oE 'https?://[^ ]*/debian/?( |$)' | head -n 1 | tr -d ' ') || true
  echo "${m:-http://deb.debian.org/debian}"
}

# build RELEASE: debootstrap + apt in a temporary directory, inside a private mount
# namespace (whatever debootstrap and apt mount goes away with it, also when killed), then
# renamed into place.
build() {
  local release=$1 build log start=$SECONDS
  command -v debootstrap >/dev/null || die "debootstrap is missing (scripts/install-deps.sh)"
  build=$ROOTS/.build-$release.$$
  log=$ROOTS/build-$release.log
  BUILD_DIR=$build
  trap 'rm -rf "$BUILD_DIR"' EXIT
  say "building the Slurm $release root from Debian $SUITE ($(mirror)) in $ROOTS/$release; log $log" >&2
  # What a killed build left (we hold the lock: no other build of it runs).
  rm -rf "$ROOTS/.build-$release".*
  mkdir -p "$build"
  # shellcheck disable=SC2016 # expanded by the inner shell
  if ! unshare --mount --propagation private -- bash -euo pipefail -c '
    build=$1 suite=$2 mirror=$3 opts=$4; shift 4
    debootstrap --variant=minbase --components=main "$suite" "$build" "$mirror"
    # No package starts a service (there is no init in the root).
    printf "#!/bin/sh\nexit 101\n" >"$build/usr/sbin/policy-rc.d"
    chmod 755 "$build/usr/sbin/policy-rc.d"
    mount -t proc proc "$build/proc"
    mount --bind /dev "$build/dev"
    export DEBIAN_FRONTEND=noninteractive LC_ALL=C
    read -r -a o <<<"$opts"
    chroot "$build" apt-get "${o[@]}" update
    chroot "$build" apt-get "${o[@]}" install -y --no-install-recommends "$@"
    chroot "$build" apt-get clean
    umount "$build/dev" "$build/proc"
  ' bash "$build" "$SUITE" "$(mirror)" "${APT_OPTS[*]}" "${PACKAGES[@]}" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    die "building the Slurm $release root failed (log: $log)"
  fi
  rm -rf "$build"/var/lib/apt/lists/*_Packages "$build"/var/lib/apt/lists/*_Translation-*
  local version
  version=$(chroot "$build" slurmd -V 2>/dev/null | awk '{print $2}')
  case "$version" in
    "$release".*) ;;
    *) die "Debian $SUITE has Slurm '${version:-none}', not $release: update $LIST" ;;
  esac
  {
    want_stamp "$release"
    echo "slurm $version"
    echo "mariadb $(chroot "$build" mariadbd --version 2>/dev/null | awk '{print $3}')"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - start)) s from $(mirror)"
  } >"$build/.hetscale-root"
  # Renamed into place at once: a root is complete or absent.
  if [ -e "$ROOTS/$release" ]; then mv -T "$ROOTS/$release" "$build.old"; fi
  mv -T "$build" "$ROOTS/$release"
  rm -rf "$build.old"
  trap - EXIT
  say "Slurm $version root ready in $((SECONDS - start)) s: $ROOTS/$release" >&2
}

# with_lock RELEASE CMD...: one build or removal of a root at a time.
with_lock() {
  local release=$1
  shift
  mkdir -p "$ROOTS"
  exec 9>"$ROOTS/.lock-$release"
  flock -w 1800 9 || die "waited 30 minutes for the lock of the $release root"
  "$@"
  exec 9>&-
}

cmd_ensure() {
  local release=$1
  read_list "$release"
  is_current "$release" || with_lock "$release" ensure_locked "$release"
  echo "$ROOTS/$release"
}

ensure_locked() { is_current "$1" || build "$1"; }

cmd_status() {
  local release state
  for release in ${1:-$(releases)}; do
    read_list "$release"
    if is_current "$release"; then state=current
    elif [ -e "$ROOTS/$release" ]; then state="stale (its list changed: rebuilt at the next ensure)"
    else state=absent; fi
    printf '%s: %s, Debian %s, %s' "$release" "$ROOTS/$release" "$SUITE" "$state"
    if [ -e "$ROOTS/$release/.hetscale-root" ]; then
      printf ', %s, %s' "$(sed -n 's/^slurm /Slurm /p' "$ROOTS/$release/.hetscale-root")" \
        "$(du -sh "$ROOTS/$release" 2>/dev/null | cut -f1)"
    fi
    echo
  done
}

cmd_remove() {
  read_list "$1"
  with_lock "$1" rm -rf "$ROOTS/$1"
  say "removed $ROOTS/$1"
}

main() {
  local verb=${1:-}
  [ $# -gt 0 ] && shift
  case "$verb" in
    ensure | path | remove)
      [ $# -eq 1 ] || die "$verb needs one release ($(releases | tr '\n' ' '))" ;;
    status) [ $# -le 1 ] || die "status takes at most one release" ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  case "$verb" in
    path) read_list "$1"; echo "$ROOTS/$1"; return ;;
    status) cmd_status "${1:-}"; return ;;
  esac
  [ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot)"
  case "$verb" in
    ensure) cmd_ensure "$1" ;;
    remove) cmd_remove "$1" ;;
  esac
}

main "$@"
