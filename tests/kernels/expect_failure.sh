#!/bin/sh
# expect_failure.sh <regex> <command...>: passes when the command exits non-zero and its
# output (stdout + stderr) matches the extended regex.
regex=$1
shift
output=$("$@" 2>&1)
status=$?
if [ "$status" -eq 0 ]; then
  printf 'expected a non-zero exit, got 0; output:\n%s\n' "$output"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  printf 'exit %s but the output lacks /%s/:\n%s\n' "$status" "$regex" "$output"
  exit 1
fi
printf 'exit %s with the expected message\n' "$status"
