#!/bin/sh
# Checks the packages build_packages.sh made against tests/fixtures/packaging:
#   check_packages.sh OUT_DIR FIXTURES_DIR SLURM_RELEASE NEXT_RELEASE TWIN_KERNELS(ON|OFF) SOURCE_DIR
# - each package's file list (list_package.sh) equals FIXTURES_DIR/<package>.<deb|rpm>.txt
#   (its lines but the # comments), without /usr/bin/hetscale-twin-* when the build has no
#   twin kernels;
# - hetscale-spank names the Slurm release it was built for, needs that release (slurmd or
#   slurm-client, with slurm-wlm-basic-plugins; RPM: slurm) and nothing beyond the C
#   runtime, breaks the other releases, says `optional` in its plugstack.conf.d snippet, a
#   conffile (%config), and has the maintainer scripts that take the snippet out of
#   plugstack.conf.d on removal;
# - hetscale needs the libraries of the collector and the kernels (libpq, MPI), and holds
#   SOURCE_DIR/db/add_login.sql, byte for byte, at the path docs/admin.md names;
# - hetscale-dashboards is architecture-independent.
set -u
out=$1 fixtures=$2 release=$3 next=$4 twin=$5 source=$6
here=$(cd "$(dirname "$0")" && pwd)
snippet=/etc/slurm/plugstack.conf.d/hetscale.conf
add_login=/usr/share/hetscale/db/add_login.sql
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

package_file() {  # package_file deb|rpm NAME: the single package file of NAME in OUT_DIR
  if [ "$1" = deb ]; then set -- "$out/${2}_"*.deb; else set -- "$out/${2}-"[0-9]*.rpm; fi
  if [ $# -eq 1 ] && [ -f "$1" ]; then echo "$1"; fi
}

for kind in deb rpm; do
  for package in hetscale-spank hetscale hetscale-dashboards; do
    file=$(package_file $kind $package)
    [ -n "$file" ] || { fail "no single $kind of $package in $out"; continue; }
    expected=$out/$package.$kind.expected listing=$out/$package.$kind.list
    grep -v '^#' "$fixtures/$package.$kind.txt" |
      if [ "$twin" = ON ]; then cat; else grep -v ' /usr/bin/hetscale-twin-'; fi >"$expected"
    "$here/list_package.sh" "$file" >"$listing"
    if diff -u "$expected" "$listing"; then echo "contents ok: $(basename "$file")"
    else fail "$(basename "$file"): contents differ from $fixtures/$package.$kind.txt (- expected, + package)"; fi
  done
done

# Debian: Depends, Breaks, conffiles, maintainer scripts, description.
deb=$(package_file deb hetscale-spank)
if [ -n "$deb" ]; then
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "hetscale-spank Depends: $depends"
  for pin in "slurm-wlm-basic-plugins (>= $release)" "slurm-wlm-basic-plugins (<< $next)" "slurmd | slurm-client"; do
    case "$depends" in *"$pin"*) ;; *) fail "hetscale-spank.deb does not depend on $pin" ;; esac
  done
  others=$(printf '%s\n' "$depends" | tr ',|' '\n\n' | awk '{print $1}' |
           grep -v -x -E 'libc6|libgcc-s1|slurm-wlm-basic-plugins|slurmd|slurm-client' || true)
  [ -z "$others" ] || fail "hetscale-spank.deb depends on more than Slurm and the C runtime: $others"
  breaks=$(dpkg-deb -f "$deb" Breaks)
  echo "hetscale-spank Breaks: $breaks"
  for pin in "slurmd (<< $release)" "slurmd (>= $next)" "slurm-client (<< $release)" "slurm-client (>= $next)"; do
    case "$breaks" in *"$pin"*) ;; *) fail "hetscale-spank.deb does not break $pin" ;; esac
  done
  dpkg-deb -f "$deb" Description | grep -q "built for Slurm $release" ||
    fail "hetscale-spank.deb's description does not name Slurm $release: $(dpkg-deb -f "$deb" Description | head -n 1)"
  [ "$(dpkg-deb -I "$deb" conffiles 2>/dev/null)" = "$snippet" ] ||
    fail "hetscale-spank.deb: conffiles is not exactly $snippet"
  dpkg-deb -I "$deb" postrm 2>/dev/null | grep -q "mv -f \"\$conf\" \"\$removed\"" ||
    fail "hetscale-spank.deb: no postrm that moves the snippet out of plugstack.conf.d on removal"
  dpkg-deb -I "$deb" preinst 2>/dev/null | grep -q 'mv "$removed" "$conf"' ||
    fail "hetscale-spank.deb: no preinst that puts a removed snippet back"
  line=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ".$snippet" | grep -v '^#')
  case "$line" in "optional "*/hetscale.so" "*) ;; *) fail "hetscale-spank.deb: the snippet's line is not 'optional .../hetscale.so ...': $line" ;; esac
fi
deb=$(package_file deb hetscale)
if [ -n "$deb" ]; then
  depends=$(dpkg-deb -f "$deb" Depends)
  for library in libpq5 libopenmpi3 libfftw3-double3; do
    case "$depends" in *"$library "*|*"$library,"*|*"$library") ;; *) fail "hetscale.deb does not depend on $library" ;; esac
  done
  dpkg-deb --fsys-tarfile "$deb" | tar -xO ".$add_login" 2>/dev/null | cmp -s - "$source/db/add_login.sql" ||
    fail "hetscale.deb: $add_login is missing or not db/add_login.sql of the source tree"
  grep -q "$add_login" "$source/docs/admin.md" || fail "docs/admin.md does not name $add_login"
fi
deb=$(package_file deb hetscale-dashboards)
[ -z "$deb" ] || [ "$(dpkg-deb -f "$deb" Architecture)" = all ] || fail "hetscale-dashboards.deb is not Architecture: all"

# RPM: Requires, %config, the %postun scriptlet, summary.
rpm_file=$(package_file rpm hetscale-spank)
if [ -n "$rpm_file" ]; then
  requires=$(rpm -qp --requires "$rpm_file")
  echo "hetscale-spank.rpm Requires: $(printf '%s\n' "$requires" | tr '\n' ';')"
  for pin in "slurm >= $release" "slurm < $next"; do
    printf '%s\n' "$requires" | grep -q -x "$pin" || fail "hetscale-spank.rpm does not require $pin"
  done
  others=$(printf '%s\n' "$requires" |
           grep -v -E '^(slurm [<>]|lib(c|m|gcc_s)\.so|ld-linux-x86-64\.so|rpmlib\(|rtld\(|config\(hetscale-spank\)|/bin/sh)' || true)
  [ -z "$others" ] || fail "hetscale-spank.rpm requires more than Slurm and the C runtime: $others"
  [ "$(rpm -qp --configfiles "$rpm_file")" = "$snippet" ] ||
    fail "hetscale-spank.rpm: its %config files are not exactly $snippet"
  rpm -qp --scripts "$rpm_file" | grep -q "$snippet.rpmsave" ||
    fail "hetscale-spank.rpm: no %postun that takes a kept hetscale.conf.rpmsave out of plugstack.conf.d"
  rpm -qp --qf '%{SUMMARY}' "$rpm_file" | grep -q "for Slurm $release" ||
    fail "hetscale-spank.rpm's summary does not name Slurm $release"
fi
rpm_file=$(package_file rpm hetscale)
if [ -n "$rpm_file" ]; then
  for library in 'libpq\.so\.5' 'libmpi\.so' 'libfftw3\.so\.3'; do
    rpm -qp --requires "$rpm_file" | grep -q "^$library" || fail "hetscale.rpm does not require $library"
  done
  # The file's SHA-256 as rpm records it (file digest algorithm 8), against the source's.
  digest=$(rpm -qp --qf '[%{FILENAMES} %{=FILEDIGESTALGO} %{FILEDIGESTS}\n]' "$rpm_file" |
           awk -v f="$add_login" '$1 == f && $2 == 8 { print $3 }')
  [ -n "$digest" ] && [ "$digest" = "$(sha256sum <"$source/db/add_login.sql" | cut -d' ' -f1)" ] ||
    fail "hetscale.rpm: $add_login is missing or not db/add_login.sql of the source tree"
fi
rpm_file=$(package_file rpm hetscale-dashboards)
[ -z "$rpm_file" ] || [ "$(rpm -qp --qf '%{ARCH}' "$rpm_file")" = noarch ] || fail "hetscale-dashboards.rpm is not noarch"

[ $failures -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "packages ok"
