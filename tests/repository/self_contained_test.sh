#!/bin/sh
# The repository is self-contained: no git-tracked file outside tests/ names the
# directory beside the clone that the project was written next to, the design notes kept
# there, their numbered contracts ("contract 3.4", "3.4 run record", "(3.4)",
# "section 3.4") or a "design card" (the patterns below): every contract is defined by a
# page of docs/ (docs/contracts.md lists them).
# Usage: self_contained_test.sh SOURCE_DIR. Exit 0: none; 1: some (listed); 77 (skipped):
# SOURCE_DIR is not a git work tree (a source tarball).
source_dir=${1:?usage: self_contained_test.sh SOURCE_DIR}
if ! git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: $source_dir is not a git work tree"
  exit 77
fi
git -C "$source_dir" grep -n -E -e '\.\./shared' -e 'SCIENCE\.md|DESIGN\.md' -e '[Cc]ontract:? *[0-9]+\.[0-9]' \
  -e '[Dd]esign card|the card' -e '\b3\.[1-6] (site|experiment|environment|run record|schema|CLI|host)' \
  -e '\(3\.[1-6]\)' -e '[Ss]ection 3\.[1-6]' -e 'DESIGN contract' \
  -- . ':(exclude)tests/' ':(exclude)db/migrations/'
status=$?
case $status in
  1) exit 0 ;;
  0) echo "FAIL: the git-tracked files above name what lies outside the repository: it must not point outside itself"
     exit 1 ;;
  *) echo "FAIL: git grep exited with status $status"
     exit 2 ;;
esac
