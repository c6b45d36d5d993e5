#!/usr/bin/env bash
# Installs every system package hetscale needs, from Debian 12's archive.
# Idempotent and non-interactive: packages already present are skipped quickly.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang-14 libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtomlplusplus-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev
  libhwloc-dev hwloc
  libopenblas-dev libfftw3-dev libsimgrid-dev
  openmpi-bin libopenmpi-dev libpmix-dev
  gfortran python3-mpi4py  # the Fortran and Python record helpers' tests (jobgen/helpers)
  hpcc lammps  # the applications of examples/studies/apps.toml (HPL through hpcc, LAMMPS's lmp)
  slurm-wlm slurmctld slurmd slurm-client munge libslurm-dev
  slurmdbd mariadb-server
  postgresql postgresql-client libpq-dev
  iproute2 util-linux procps psmisc python3
  fuse3 libfuse3-dev  # the plugin's test of a file system that never answers (tests/integration/spank_plugin)
  debootstrap  # the Debian roots of other Slurm releases (scripts/slurm-root.sh)
  rpm  # rpmbuild, for `cpack -G RPM`
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# --no-install-recommends keeps the install small; services are never started by us (no systemd).
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
