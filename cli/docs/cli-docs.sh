#!/bin/sh
# Man pages and bash completion of the hetscale CLI, generated from its own --help:
#   cli-docs.sh HETSCALE VERSION OUTDIR
# writes OUTDIR/man1/hetscale.1.gz, one OUTDIR/man1/hetscale-<command>[-<sub>].1.gz per
# (sub)command, and OUTDIR/bash-completion/hetscale. It reads CLI11's help layout: a
# description, "Usage: ...", then sections ("Options:", "Subcommands:", option groups)
# whose entries start with two spaces and give their description after a run of spaces
# or on the following, deeper indented lines.
set -eu
exe=$1 version=$2 out=$3
rm -rf "$out/man1" "$out/bash-completion"
mkdir -p "$out/man1" "$out/bash-completion"
commands_table=$(mktemp) options_table=$(mktemp)
trap 'rm -f "$commands_table" "$options_table"' EXIT

# The help of one command as lines "section<TAB>spec<TAB>description"; the description
# before "Usage:" comes as section "description", the usage as section "usage".
entries() {
  awk '
    function flush() { if (spec != "") print section "\t" spec "\t" text; spec = ""; text = "" }
    /^Usage: / { flush(); section = "usage"; spec = substr($0, 8); flush(); section = ""; seen_usage = 1; next }
    !seen_usage && NF { print "description\t\t" $0; next }
    /^[^ ].*:$/ { flush(); section = substr($0, 1, length($0) - 1); next }
    /^  [^ ]/ {
      flush(); line = substr($0, 3)
      gap = match(line, /  +/)
      if (gap) { spec = substr(line, 1, gap - 1); text = substr(line, gap + RLENGTH) }
      else { spec = line; text = "" }
      next
    }
    /^    +[^ ]/ { sub(/^ +/, ""); text = (text == "" ? $0 : text " " $0); next }
    { flush() }
    END { flush() }'
}

# roff-safe text: backslashes, hyphens, and a leading dot or quote.
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/"; }

# document PATH: PATH is "hetscale" or "hetscale <command> ...".
document() {
  path=$1
  # shellcheck disable=SC2086 # the words of PATH are the arguments
  help=$("$exe" ${path#hetscale} --help)
  table=$(printf '%s\n' "$help" | entries)
  page=$(printf '%s' "$path" | tr ' ' '-')
  upper=$(printf '%s' "$page" | tr '[:lower:]' '[:upper:]')
  description=$(printf '%s\n' "$table" | awk -F'\t' '$1 == "description" { print $3 }' \
                | sed 's/^hetscale: //')
  usage=$(printf '%s\n' "$table" | awk -F'\t' '$1 == "usage" { print $2 }')
  subcommands=$(printf '%s\n' "$table" | awk -F'\t' '$1 == "Subcommands" { print $2 }')
  options=$(printf '%s\n' "$table" | awk -F'\t' '$1 != "description" && $1 != "usage" &&
      $1 != "Subcommands" && $1 != "Positionals" && $2 ~ /^-/ {
        split($2, words, " "); n = split(words[1], names, ",")
        for (i = 1; i <= n; i++) print names[i] }')
  printf '%s\t%s\n' "$path" "$(echo $subcommands)" >>"$commands_table"
  printf '%s\t%s\n' "$path" "$(echo $options)" >>"$options_table"
  {
    printf '.TH %s 1 "" "hetscale %s" "hetscale manual"\n' "$upper" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$(printf '%s' "$page" | roff)" \
      "$(printf '%s\n' "$description" | head -n 1 | roff)"
    printf '.SH SYNOPSIS\n.B %s\n%s\n' "$(printf '%s' "$path" | roff)" \
      "$(printf '%s' "${usage#"$path"}" | sed 's/^ *//' | roff)"
    printf '.SH DESCRIPTION\n'
    printf '%s\n' "$description" | roff
    printf '%s\n' "$table" | awk -F'\t' -v subpage="$page" '
      $1 == "description" || $1 == "usage" { next }
      $1 != current {
        current = $1
        if ($1 == "Subcommands") print ".SH COMMANDS"
        else if ($1 == "Options") print ".SH OPTIONS"
        else if ($1 == "Positionals") print ".SH ARGUMENTS"
        else print ".SS \"" $1 "\""
      }
      $1 == "Subcommands" { print ".TP\n.BR " subpage "-" $2 " (1)\n" $3; next }
      { print ".TP\n.B " $2 "\n" $3 }' | roff_body
    printf '.SH SEE ALSO\n'
    if [ "$path" = hetscale ]; then
      printf '%s\n' "$subcommands" | sed 's/^/.BR hetscale-/; s/$/ (1),/' | roff_body
      printf '.BR hetscale\\-spank (8)\n'
    else
      printf '.BR %s (1)\n' "$(printf '%s' "${page%-*}" | roff)"
    fi
  } | gzip -n -9 >"$out/man1/$page.1.gz"
  for sub in $subcommands; do (document "$path $sub"); done
}

# roff for lines that carry requests (.TP, .B, .SH): escape all but the request itself.
roff_body() {
  sed -e 's/\\/\\e/g' \
      -e '/^\.\(SH\|SS\|TP\) *.*$/b' \
      -e '/^\.B\(R\)\? /{s/-/\\-/g;b}' \
      -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/"
}

document hetscale

# The completion: the words of the command line that name subcommands choose the table row.
{
  cat <<'HEAD'
# bash completion for hetscale: subcommands and options (generated from hetscale --help
# by cli/docs/cli-docs.sh).
_hetscale() {
  local cur=${COMP_WORDS[COMP_CWORD]} path=hetscale word name i
  local -A commands=(
HEAD
  awk -F'\t' '{ printf "    [\"%s\"]=\"%s\"\n", $1, $2 }' "$commands_table"
  printf '  )\n  local -A options=(\n'
  awk -F'\t' '{ printf "    [\"%s\"]=\"%s\"\n", $1, $2 }' "$options_table"
  cat <<'TAIL'
  )
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    for name in ${commands[$path]}; do
      if [[ $word == "$name" ]]; then
        path="$path $word"
        break
      fi
    done
  done
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${options[$path]}" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "${commands[$path]}" -- "$cur")
  fi
}
complete -o default -F _hetscale hetscale
TAIL
} >"$out/bash-completion/hetscale"
