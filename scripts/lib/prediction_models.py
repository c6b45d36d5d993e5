#!/usr/bin/env python3
"""Which communication model could have predicted a held-out set? (docs/validation.md)

Reads an experiment's runs and the measured parameter at the target (the view
set_required_work, filled by `hetscale analyze`) from the database, then, for each
candidate model, fits on --fit-sets and solves E_s(N) = target for every set, printing the
relative error of the predicted parameter. The models differ in their communication
terms, in the fit (the record's communication seconds, as `hetscale predict` does, or the
wall time with the compute part's scale fitted too) and in the weighting (absolute or
relative residuals). Plain Python, no numpy: the systems have at most 6 unknowns.

  scripts/lib/prediction_models.py URI EXPERIMENT --target E [--fit-sets 0,1]

ge only (its workload and communication terms are written here); other codes are refused.
"""
import argparse
import itertools
import math
import subprocess
import sys

RUNS = """
SELECT re.set_index, re.parameter_value, count(t.rank), re.wall_seconds,
       max(t.compute_seconds), re.marked_speed * u.ops_per_second
FROM hetscale.run_efficiency re
JOIN hetscale.speed_units u ON u.unit = re.speed_unit
JOIN hetscale.rank_timings t ON t.run_id = re.run_id
WHERE re.experiment = :'name' AND re.set_index IS NOT NULL
GROUP BY re.run_id, re.set_index, re.parameter_value, re.wall_seconds, re.marked_speed,
         u.ops_per_second
"""
MEASURED = """
SELECT set_index, parameter_value, target_efficiency FROM hetscale.set_required_work
WHERE experiment = :'name' AND status IN ('found', 'within_tolerance')
  AND abs(target_efficiency - :'target'::double precision) < 1e-12
"""
CODE = "SELECT code FROM hetscale.experiments WHERE name = :'name'"



def log2p(p):
    return math.ceil(math.log2(p)) if p > 1 else 0


TERMS = {
    "[p>1]": lambda n, p: 1.0 if p > 1 else 0.0,
    "p": lambda n, p: p if p > 1 else 0.0,
    "N": lambda n, p: n if p > 1 else 0.0,
    "N*p": lambda n, p: n * p if p > 1 else 0.0,
    "N*log2p": lambda n, p: n * log2p(p),
    "N*(p-1)": lambda n, p: n * (p - 1),
    "N^2*log2p": lambda n, p: n * n * log2p(p),
    "N^2*(p-1)/p": lambda n, p: n * n * (p - 1) / p,
}
# hetscale predict's ge terms (core/src/prediction.cpp), the published model's
# (docs/science.md section 1: T_bcast ~ a + b p, T_barrier ~ p, per pivot) and the bare tree.
CANDIDATES = {
    "hetscale ge": ["[p>1]", "N*log2p", "N*(p-1)", "N^2*log2p", "N^2*(p-1)/p"],
    "published ge": ["[p>1]", "p", "N*(p-1)", "N", "N*p"],
    "tree only": ["N*log2p", "N^2*log2p"],
}


def ge_work(n):
    return 2.0 / 3.0 * n ** 3 - 0.5 * n ** 2 - (3 + 1 / 6) * n + 3


def psql_lines(uri, sql, name, target):
    out = subprocess.run(["psql", uri, "-XAt", "-F", ",", "-v", f"name={name}",
                          "-v", f"target={target}", "-f", "-"],
                         input=sql, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


def psql(uri, sql, name, target):
    return [tuple(float(x) for x in line.split(",")) for line in psql_lines(uri, sql, name, target)]


def solve(m, v):
    """Gaussian elimination with partial pivoting; None when singular."""
    n = len(v)
    m = [row[:] + [x] for row, x in zip(m, v)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-300:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def nnls(a, b):
    """Non-negative least squares by trying every column subset (at most 2^6 of them)."""
    cols = len(a[0])
    norm = [math.sqrt(sum(row[c] ** 2 for row in a)) or 1.0 for c in range(cols)]
    a = [[row[c] / norm[c] for c in range(cols)] for row in a]
    best = (sum(x * x for x in b), [0.0] * cols)
    for k in range(1, cols + 1):
        for subset in itertools.combinations(range(cols), k):
            m = [[sum(row[i] * row[j] for row in a) for j in subset] for i in subset]
            v = [sum(row[i] * y for row, y in zip(a, b)) for i in subset]
            x = solve(m, v)
            if x is None or min(x) < 0:
                continue
            full = [0.0] * cols
            for i, xi in zip(subset, x):
                full[i] = xi
            rss = sum((sum(r * f for r, f in zip(row, full)) - y) ** 2 for row, y in zip(a, b))
            if rss < best[0]:
                best = (rss, full)
    return [x / nc for x, nc in zip(best[1], norm)]


def compute_efficiency(fit):
    """eta(N), quadratic in ln N, held at the edges (as TimeModel does)."""
    xs = [math.log(r[1]) for r in fit]
    ys = [ge_work(r[1]) / (r[5] * r[4]) for r in fit]
    m = [[sum(x ** (i + j) for x in xs) for j in range(3)] for i in range(3)]
    c = solve(m, [sum(y * x ** i for x, y in zip(xs, ys)) for i in range(3)])
    lo, hi = min(xs), max(xs)
    return lambda n: max(1e-6, sum(ci * min(max(math.log(n), lo), hi) ** k for k, ci in enumerate(c)))


def fit_model(fit, names, joint, relative):
    eta = compute_efficiency(fit)

    def basis(n, p, speed):
        return [ge_work(n) / (speed * eta(n))] + [TERMS[t](n, p) for t in names]

    rows = [basis(r[1], r[2], r[5]) for r in fit]
    if joint:  # wall time, the compute part's scale fitted too
        a, b = rows, [r[3] for r in fit]
    else:  # the record's communication seconds, compute part as measured
        a, b = [row[1:] for row in rows], [max(0.0, r[3] - r[4]) for r in fit]
    if relative:
        a = [[x / r[3] for x in row] for row, r in zip(a, fit)]
        b = [y / r[3] for y, r in zip(b, fit)]
    c = nnls(a, b)
    if not joint:
        c = [1.0] + c
    return lambda n, p, speed: sum(ci * bi for ci, bi in zip(c, basis(n, p, speed)))


def parameter_at(model, p, speed, target):
    lo, hi = math.log(50), math.log(50000)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        n = math.exp(mid)
        if ge_work(n) / (speed * model(n, p, speed)) < target:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("uri")
    ap.add_argument("experiment")
    ap.add_argument("--target", type=float, required=True,
                    help="the target E_s that hetscale analyze read the measured parameters at")
    ap.add_argument("--fit-sets", default="0,1")
    a = ap.parse_args()
    fit_sets = {int(s) for s in a.fit_sets.split(",")}
    code = psql_lines(a.uri, CODE, a.experiment, a.target)
    if code != ["ge"]:
        sys.exit(f"prediction_models.py: experiment '{a.experiment}' is "
                 f"{code[0] if code else 'unknown'}; the candidate models here are ge's")
    runs = psql(a.uri, RUNS, a.experiment, a.target)
    measured = {int(s): (n, t) for s, n, t in psql(a.uri, MEASURED, a.experiment, a.target)}
    if not runs or not measured:
        sys.exit("prediction_models.py: no runs, or no parameter measured at this target "
                 "(run hetscale analyze --target E first)")
    sets = sorted(measured)
    shape = {int(r[0]): (int(r[2]), r[5]) for r in runs}
    fit = [r for r in runs if int(r[0]) in fit_sets]
    if len({r[1] for r in fit}) < 3:
        sys.exit("prediction_models.py: the fitted sets need at least 3 distinct parameter "
                 "values (eta(N) is quadratic in ln N)")
    print(f"{a.experiment}: fitted on sets {sorted(fit_sets)} ({len(fit)} runs); "
          "predicted parameter at the target, error against the measured one")
    print(f"{'model':<14} {'fit':<6} {'weights':<8} " +
          " ".join(f"{'set ' + str(s) + (' (held out)' if s not in fit_sets else ''):>22}" for s in sets) +
          f" {'T error, all runs':>18}")
    for label, names in CANDIDATES.items():
        for joint, relative in itertools.product((False, True), repeat=2):
            model = fit_model(fit, names, joint, relative)
            cells = []
            for s in sets:
                n_meas, target = measured[s]
                n = parameter_at(model, *shape[s], target)
                cells.append(f"{n:9.0f} ({100 * (n - n_meas) / n_meas:+6.1f}%)")
            t_err = sum(abs(model(r[1], int(r[2]), r[5]) - r[3]) / r[3] for r in runs) / len(runs)
            print(f"{label:<14} {'wall' if joint else 'comm':<6} {'relative' if relative else 'absolute':<8} " +
                  " ".join(f"{c:>22}" for c in cells) + f" {100 * t_err:17.1f}%")


if __name__ == "__main__":
    main()
