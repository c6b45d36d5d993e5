#!/usr/bin/env python3
"""Formats the psi rows of `hetscale analyze --format json` (stdin) as the study's psi table.
   study_psi.py KERNEL EXPERIMENT TARGET   (used by scripts/study.sh)"""
import json
import sys

kernel, experiment, target = sys.argv[1:4]
analysis = json.load(sys.stdin)
sets = {s["set"]: s for s in analysis.get("sets", []) if "set" in s}
rows = analysis.get("psi", [])
if not rows:
    print(f"{kernel:<8} {experiment:<18} {target:>6} {'(no pair of sets)':>10}")
for p in rows:
    psi = p.get("psi")
    text = "n/a" if psi is None else f"{psi:.3f}"
    speeds = f"{p['from_speed']:.0f}->{p['to_speed']:.0f}"
    print(f"{kernel:<8} {experiment:<18} {target:>6} {str(p['from_set']) + '->' + str(p['to_set']):>10} "
          f"{speeds:>10} {text:>8}")
