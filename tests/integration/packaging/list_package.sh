#!/bin/sh
# The contents of one package, one file a line as "MODE OWNER/GROUP PATH" (directories end
# in /, no sizes or dates), the form of tests/fixtures/packaging/*.txt:
#   list_package.sh PACKAGE.deb|PACKAGE.rpm
set -eu
case "$1" in
  *.deb) dpkg-deb -c "$1" | awk '{ path = $6; sub(/^\./, "", path); if (path != "/") print $1, $2, path }' ;;
  *.rpm) rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}/%{FILEGROUPNAME} %{FILENAMES}\n]' "$1" |
           awk '{ if ($1 ~ /^d/) $3 = $3 "/"; print }' ;;
  *) echo "list_package.sh: not a .deb or .rpm: $1" >&2; exit 2 ;;
esac | LC_ALL=C sort -k3
