#!/bin/sh
# The repository is self-contained: no git-tracked file outside tests/ names the
# directory beside the clone that the project was written next to, or the design notes
# and their numbered contracts kept there (the patterns below).
# Usage: self_contained_test.sh SOURCE_DIR. Exit 0: none; 1: some (listed); 77 (skipped):
# SOURCE_DIR is not a git work tree (a source tarball).
source_dir=${1:?usage: self_contained_test.sh SOURCE_DIR}
if ! git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: $source_dir is not a git work tree"
  exit 77
fi
git -C "$source_dir" grep -n -E -e '\.\./shared' -e 'SCIENCE\.md|DESIGN\.md' -e 'contract [0-9]+\.[0-9]' \
  -- . ':(exclude)tests/'
status=$?
case $status in
  1) exit 0 ;;
  0) echo "FAIL: the git-tracked files above name what lies outside the repository: it must not point outside itself"
     exit 1 ;;
  *) echo "FAIL: git grep exited with status $status"
     exit 2 ;;
esac
