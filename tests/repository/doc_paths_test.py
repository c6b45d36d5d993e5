#!/usr/bin/env python3
"""Every repository path a doc names in backquotes exists: README.md, docs/*.md and the
other Markdown pages, so that a page never sends a reader to a file that moved.
Usage: doc_paths_test.py SOURCE_DIR. Exit 0: all exist; 1: some do not (listed);
77 (skipped): SOURCE_DIR is not a git work tree (a source tarball)."""
import re
import subprocess
import sys
from pathlib import Path

source = Path(sys.argv[1])
try:
    tracked = subprocess.run(["git", "-C", str(source), "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
except (subprocess.CalledProcessError, FileNotFoundError):
    print(f"skipped: {source} is not a git work tree")
    sys.exit(77)

files = {f for f in tracked if f}
dirs = {str(p) for f in files for p in Path(f).parents if str(p) != "."}
tops = {f.split("/")[0] for f in files if "/" in f}
# A path: starts with a top-level directory of the repository, has no spaces, wildcards,
# placeholders or variables (those name families of files, not one file).
candidate = re.compile(r"`([A-Za-z0-9_.\-]+/[A-Za-z0-9_./\-+]*)`")
# Named in backquotes but not the repository's: Slurm's header, a study's outputs, a path
# relative to the Grafana provisioning directory.
NOT_REPOSITORY_PATHS = {"slurm/spank.h", "report/index.html", "study/psi.txt", "dashboards/hetscale.yaml"}
placeholder = re.compile(r"(^|/)[A-Z]{2,}(/|\.|_|$)")
missing = []
for page in sorted(f for f in files if f.endswith(".md") and not f.startswith("tests/fixtures/")):
    for number, line in enumerate((source / page).read_text(encoding="utf-8").split("\n"), 1):
        for match in candidate.finditer(line):
            path = match.group(1).rstrip("/.")
            if (path.split("/")[0] not in tops or path.startswith(("build/", "run/")) or path in NOT_REPOSITORY_PATHS
                    or placeholder.search(path)):
                continue
            if path in files or path in dirs:
                continue
            missing.append(f"{page}:{number}: {path}")
if missing:
    print("\n".join(missing))
    print("FAIL: the pages above name repository paths that do not exist")
    sys.exit(1)
print("every repository path named in backquotes exists")
