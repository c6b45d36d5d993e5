#!/bin/sh
# expect_success.sh <regex> <command...>: passes when the command exits 0 and its output
# (stdout + stderr) matches the extended regex; a kernel that prints "verified" and then
# fails (a rank's non-zero exit, a crash in MPI_Finalize) fails the test.
regex=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  printf 'expected exit 0, got %s\n' "$status"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  printf 'exit 0 but the output lacks /%s/\n' "$regex"
  exit 1
fi
