#!/usr/bin/env bash
# Checks what cli/docs/cli-docs.sh generated from the CLI's --help:
#   check_cli_docs.sh HETSCALE DOCS_DIR
# - a man page for hetscale and for every command and subcommand its --help lists, each
#   rendering without a groff warning;
# - bash completion of commands, subcommands and options.
set -uo pipefail
exe=$1 docs=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
commands_of() {  # the names under "Subcommands:" of one command's --help
  "$exe" "$@" --help | awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [^ ]/ { print $1 }'
}

pages=(hetscale)
for command in $(commands_of); do
  pages+=("hetscale-$command")
  for sub in $(commands_of "$command"); do pages+=("hetscale-$command-$sub"); done
done
[ ${#pages[@]} -gt 10 ] || fail "hetscale --help lists only ${#pages[@]} commands"
for page in "${pages[@]}"; do
  file=$docs/man1/$page.1.gz
  if [ ! -f "$file" ]; then fail "no man page $file"; continue; fi
  warnings=$(MANWIDTH=80 man --warnings -l "$file" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "$page.1: $warnings"
done
extra=$(comm -13 <(printf '%s.1.gz\n' "${pages[@]}" | sort) <(ls "$docs/man1" | sort))
[ -z "$extra" ] || fail "man pages of no command: $extra"
zcat "$docs/man1/hetscale-predict.1.gz" | grep -q '^\.B \\-\\-overhead\\-of ' ||
  fail "hetscale-predict.1 does not document --overhead-of"

complete_line() {  # complete_line WORD...: what bash completes for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hetscale
           [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$docs/bash-completion/hetscale" "$@" | sort | tr '\n' ' '
}
expect_completion() {  # expect_completion "EXPECTED" WORD...
  local expected=$1; shift
  local got; got=$(complete_line "$@")
  [ "$got" = "$expected" ] || fail "completing '$*': got '$got', expected '$expected'"
}
expect_completion "twin " hetscale tw
expect_completion "refine run " hetscale twin r
expect_completion "migrate " hetscale db ""
expect_completion "--overhead --overhead-of --overhead-unit " hetscale predict --overhead
expect_completion "--overhead --overhead-of --overhead-unit " hetscale --db x predict --overhead
expect_completion "" hetscale db migrate zz

[ $failures -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "cli docs ok: ${#pages[@]} man pages, completion"
