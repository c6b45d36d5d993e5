"""Tests of availability_stats.py: each subcommand's arithmetic on small inputs whose
results are worked out by hand in the comments. `hetscale simulate` is replaced by a
stand-in whose answer is a closed formula (FAKE_SIMULATE), so that the predicted
reduction and the calibration by matching moments have exact expected values.

  cd validation && python3 -m unittest -v test_availability_stats
"""
import contextlib
import io
import json
import math
import os
import random
import re
import stat
import statistics
import tempfile
import types
import unittest

import availability_stats as stats

# A stand-in for `hetscale simulate --format json` on a computers CSV. For each node the
# computation takes work / speed, speed = max_power x availability; tau is the slowest
# node's time plus --communication-time, sigma_t = tau x the largest TH (availability_sd /
# availability) of the nodes. One result object, as `--partition given` prints.
FAKE_SIMULATE = """#!/usr/bin/env python3
import csv, json, sys
args = sys.argv[1:]
assert args[0] == "simulate"
opt = {args[i]: args[i + 1] for i in range(1, len(args) - 1) if args[i].startswith("--")}
with open(opt["--computers"]) as f:
    nodes = list(csv.DictReader(f))
times = [float(n["work"]) / (float(n["max_power"]) * float(n["availability"])) for n in nodes]
th = max(float(n["availability_sd"]) / float(n["availability"]) for n in nodes)
tau = max(times) + float(opt.get("--communication-time", "0"))
json.dump([{"partition": "given", "tau": tau, "sigma_t": tau * th}], sys.stdout)
"""


def record(job, walls, ranks, start="2026-01-01T00:00:00.000000Z", end="2026-01-01T00:00:10.000000Z"):
    """A run record with the fields the script reads: ranks = [(host, weight, compute s)]."""
    return {"verified": True, "slurm": {"job_id": job}, "wall_seconds": walls,
            "start_time": start, "end_time": end,
            "ranks": [{"host": h, "weight": w, "compute_seconds": c} for h, w, c in ranks]}


def write_jsonl(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def run_quietly(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = function(*args)
    return result, out.getvalue()


# Three marked runs on nodes a (steady) and b (variable), each with half of the job:
#   a computes 1, 2, 3 s: seconds per job u = 2, 4, 6 (mean 4, sample sd 2, TH_run 1/2),
#     speed 1/4; time mean 2, sd 1; k = 1/sqrt(2); with interval 3 the correlation time is
#     c = 2I/3 = 2, so TH_A = k/sqrt(c) = 1/2.
#   b computes 2, 4, 6 s: u = 4, 8, 12 (mean 8, sd 4, TH_run 1/2), speed 1/8; time mean 4,
#     sd 2; k = 2/sqrt(4) = 1; TH_A = 1/sqrt(2).
#   walls 5, 6, 7 (mean 6, sd 1); fixed part wall - slowest = 3, 2, 1 (mean 2);
#   step-1 compute time 1/(1/4 + 1/8) = 8/3.
RECORDS = [record(1, 5.0, [("a", 0.5, 1.0), ("b", 0.5, 2.0)]),
           record(2, 6.0, [("a", 0.5, 2.0), ("b", 0.5, 4.0)]),
           record(3, 7.0, [("a", 0.5, 3.0), ("b", 0.5, 6.0)])]


class Records(unittest.TestCase):
    def test_seconds_per_job_and_fixed_part(self):
        self.assertEqual(stats.seconds_per_job(RECORDS[1], "b"), 8.0)  # 4 s / 0.5
        self.assertEqual(stats.overhead(RECORDS[0]), 3.0)               # 5 - max(1, 2)

    def test_unverified_runs_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            bad = dict(RECORDS[0], verified=False)
            write_jsonl(f"{d}/r.jsonl", [RECORDS[1], bad])
            with self.assertRaises(SystemExit) as e:
                stats.read_records(f"{d}/r.jsonl")
            self.assertIn("1 unverified run", str(e.exception.code))


class Schedule(unittest.TestCase):
    def test_intervals_cover_the_period(self):
        a = types.SimpleNamespace(seed=7, interval=2.0, seconds=30.0)
        _, out = run_quietly(stats.cmd_schedule, a)
        lines = [line.split() for line in out.splitlines()]
        lengths = [float(n) for n, _ in lines]
        self.assertTrue(all(0 < x <= 2.0 for x in lengths))
        self.assertTrue({s for _, s in lines} <= {"on", "off"})
        # The last interval is the one that reaches the period (lengths printed to 1 ms).
        self.assertLess(sum(lengths[:-1]), 30.0 + 0.001 * len(lengths))
        self.assertGreaterEqual(sum(lengths), 30.0 - 0.001 * len(lengths))
        _, again = run_quietly(stats.cmd_schedule, a)
        self.assertEqual(out, again)  # the same seed, the same schedule


class Estimate(unittest.TestCase):
    def test_moments_per_node(self):
        est = stats.estimate_from(RECORDS, "a", "b", 3.0)
        a, b = est["nodes"]["a"], est["nodes"]["b"]
        self.assertEqual(est["correlation_time"], 2.0)
        self.assertEqual((a["runs"], a["share"]), (3, 0.5))
        self.assertAlmostEqual(a["seconds_per_job_mean"], 4.0)
        self.assertAlmostEqual(a["seconds_per_job_sd"], 2.0)
        self.assertAlmostEqual(a["th_run"], 0.5)
        self.assertAlmostEqual(a["speed"], 0.25)
        self.assertAlmostEqual(a["time_mean"], 2.0)
        self.assertAlmostEqual(a["time_sd"], 1.0)
        self.assertAlmostEqual(a["variation"], 1 / math.sqrt(2))
        self.assertAlmostEqual(a["th_availability"], 0.5)
        self.assertAlmostEqual(b["seconds_per_job_mean"], 8.0)
        self.assertAlmostEqual(b["seconds_per_job_sd"], 4.0)
        self.assertAlmostEqual(b["speed"], 0.125)
        self.assertAlmostEqual(b["variation"], 1.0)
        self.assertAlmostEqual(b["th_availability"], 1 / math.sqrt(2))
        self.assertAlmostEqual(est["wall_mean"], 6.0)
        self.assertAlmostEqual(est["wall_sd"], 1.0)
        self.assertAlmostEqual(est["overhead_mean"], 2.0)
        self.assertAlmostEqual(est["proportional_seconds"], 8 / 3)

    def test_estimate_and_equalize_csv_files(self):
        with tempfile.TemporaryDirectory() as d:
            write_jsonl(f"{d}/a.jsonl", RECORDS)
            a = types.SimpleNamespace(records=f"{d}/a.jsonl", steady="a", variable="b",
                                      interval=3.0, out=f"{d}/est.json")
            run_quietly(stats.cmd_estimate, a)
            _, csv = run_quietly(stats.cmd_equalize_csv, types.SimpleNamespace(estimate=a.out))
        # speed in jobs per second, variation k in sqrt(s): 1/sqrt(2) = 0.707106781.
        self.assertEqual(csv.splitlines(), ["node,speed,variation", "a,0.25,0.707106781", "b,0.125,1"])


class Predict(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.hetscale = f"{self.dir.name}/hetscale"
        with open(self.hetscale, "w") as f:
            f.write(FAKE_SIMULATE)
        os.chmod(self.hetscale, os.stat(self.hetscale).st_mode | stat.S_IXUSR)
        self.args = types.SimpleNamespace(hetscale=self.hetscale)

    def tearDown(self):
        self.dir.cleanup()

    def test_computers_csv(self):
        est = stats.estimate_from(RECORDS, "a", "b", 3.0)
        # max_power = 2 x speed, availability 1/2, availability_sd = TH_A / 2, work = share.
        self.assertEqual(stats.computers_csv(est, {"a": 0.6, "b": 0.4}).splitlines(),
                         ["name,max_power,availability,availability_sd,work",
                          "a,0.5,0.5,0.25,0.6", "b,0.25,0.5,0.353553391,0.4"])

    def test_predicted_reduction(self):
        est = stats.estimate_from(RECORDS, "a", "b", 3.0)
        # Stand-in: tau = max(work / speed) + fixed part 2. Marked 1/2 each: max(2, 4) + 2 = 6.
        # Equalized 2/3, 1/3: max(8/3, 8/3) + 2 = 14/3. Reduction 100 (6 - 14/3) / 6 = 22.2%.
        tau_m, tau_e, reduction = stats.predicted_reduction(
            self.args, est, {"a": 0.5, "b": 0.5}, {"a": 2 / 3, "b": 1 / 3}, 10, 1)
        self.assertAlmostEqual(tau_m["tau"], 6.0)
        self.assertAlmostEqual(tau_e["tau"], 14 / 3)
        self.assertAlmostEqual(reduction, 100 * (6 - 14 / 3) / 6)

    def test_calibration_matches_the_measured_moments(self):
        # Alone, the stand-in gives time share / speed with sd time x TH: the moment match
        # lands on speed = share / measured mean and TH = measured sd / measured mean.
        # Node a: 0.5 / 2 = 0.25 and 1/2; node b: 0.5 / 4 = 0.125 and 1/2.
        est = stats.calibrated_estimate(self.args, RECORDS, "a", "b", 3.0, 10, 1)
        for host, speed in (("a", 0.25), ("b", 0.125)):
            n = est["nodes"][host]
            self.assertAlmostEqual(n["speed"], speed, places=6)
            self.assertAlmostEqual(n["th_availability"], 0.5, places=6)
            self.assertTrue(n["calibration"]["converged"])
            self.assertFalse(n["calibration"]["clamped"])
        # The long-run estimates are kept beside the matched ones.
        self.assertAlmostEqual(est["nodes"]["b"]["th_availability_long_run"], 1 / math.sqrt(2))

    def test_calibration_clamps_the_spread(self):
        # Measured time mean 2, sd 3: TH 1.5 cannot be had; it stops at MAX_TH, clamped.
        node = {"time_mean": 2.0, "time_sd": 3.0, "share": 0.5}
        c = stats.calibrate_node(self.args, node, 3.0, (0.25, 0.5), 10, 1, 1e-3)
        self.assertTrue(c["clamped"])
        self.assertTrue(c["converged"])
        self.assertEqual(c["th_availability"], stats.MAX_TH)
        self.assertAlmostEqual(c["speed"], 0.25, places=6)


class Compare(unittest.TestCase):
    # Six runs each: marked walls 10..15 (mean 12.5, variance 3.5), equalized 8..13 (mean
    # 10.5, variance 3.5). Reduction of the mean 100 x 2 / 12.5 = 16%. Welch: se =
    # sqrt(3.5/6 + 3.5/6) = sqrt(7/6), df = (2v)^2 / (2 v^2 / 5) = 10, t_0.975(10) = 2.228139
    # (table), interval 100 (2 -+ 2.228139 sqrt(7/6)) / 12.5.
    MARKED = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    EQUALIZED = [8.0, 9.0, 10.0, 11.0, 12.0, 13.0]
    WELCH = (100 * (2 - 2.228139 * math.sqrt(7 / 6)) / 12.5, 100 * (2 + 2.228139 * math.sqrt(7 / 6)) / 12.5)

    def test_reduction(self):
        self.assertAlmostEqual(stats.reduction(self.MARKED, self.EQUALIZED), 16.0)

    def test_welch_interval(self):
        lo, hi, df = stats.welch_interval(self.MARKED, self.EQUALIZED)
        self.assertAlmostEqual(df, 10.0)
        # The t quantile is an expansion in 1/df, within 0.2% of the table's.
        half = 2.228139 * math.sqrt(7 / 6) * 100 / 12.5
        self.assertAlmostEqual(lo, self.WELCH[0], delta=0.002 * half)
        self.assertAlmostEqual(hi, self.WELCH[1], delta=0.002 * half)

    def test_percentile_interval(self):
        # 100 values 1..100 at 95%: index floor(2.5) = 2 -> 3, index ceil(97.5) - 1 = 97 -> 98.
        self.assertEqual(stats.percentile_interval(list(range(1, 101))), (3, 98))

    def test_bootstrap_of_constant_samples_is_exact(self):
        draws = stats.bootstrap_reductions([10.0, 10.0], [8.0, 8.0], random.Random(1), resamples=50)
        self.assertEqual(len(draws), 50)
        self.assertTrue(all(d == 20.0 for d in draws))

    def test_bootstrap_interval_holds_the_reduction(self):
        draws = sorted(stats.bootstrap_reductions(self.MARKED, self.EQUALIZED, random.Random(3), 2000))
        lo, hi = stats.percentile_interval(draws)
        self.assertLess(lo, 16.0)
        self.assertGreater(hi, 16.0)
        # Every draw is a reduction of means of values drawn from the samples: at most
        # 100 (15 - 8) / 15 and at least 100 (10 - 13) / 10.
        self.assertLessEqual(draws[-1], 100 * 7 / 15 + 1e-9)
        self.assertGreaterEqual(draws[0], -30.0 - 1e-9)

    def test_on_fraction_and_epoch(self):
        switches = [(0.0, "on"), (10.0, "off"), (20.0, "on")]
        # [5, 25]: on from 5 to 10 and from 20 to 25, 10 s of 20.
        self.assertAlmostEqual(stats.on_fraction(switches, 5.0, 25.0), 0.5)
        self.assertAlmostEqual(stats.on_fraction(switches, 12.0, 18.0), 0.0)
        self.assertAlmostEqual(stats.epoch("1970-01-01T00:01:40.500000Z"), 100.5)

    def test_compare_prints_the_measured_statistics(self):
        with tempfile.TemporaryDirectory() as d:
            write_jsonl(f"{d}/m.jsonl", [record(i, w, [("a", 0.5, w - 1)]) for i, w in enumerate(self.MARKED)])
            write_jsonl(f"{d}/e.jsonl", [record(i, w, [("a", 0.5, w - 1)]) for i, w in enumerate(self.EQUALIZED)])
            # The prediction's own resamplings all say 10%: measured - predicted = 16 - 10.
            with open(f"{d}/p.json", "w") as f:
                json.dump({"reduction_percent": 10.0, "bootstrap": [10.0], "interval_percent": [9.0, 11.0],
                           "tau_marked": 12.0, "tau_equalized": 10.8}, f)
            a = types.SimpleNamespace(marked=f"{d}/m.jsonl", equalized=f"{d}/e.jsonl", predicted=f"{d}/p.json",
                                      seed=1, load_log=None)
            _, out = run_quietly(stats.cmd_compare, a)
        self.assertIn("measured reduction of mean T: +16.0%", out)
        welch = re.search(r"Welch \[([-+.\d]+), ([-+.\d]+)\]% \(df 10\)", out)
        self.assertIsNotNone(welch, out)
        self.assertAlmostEqual(float(welch.group(1)), self.WELCH[0], delta=0.1)
        self.assertAlmostEqual(float(welch.group(2)), self.WELCH[1], delta=0.1)
        self.assertIn("measured - predicted: +6.0 points", out)
        # The fixed part is wall - slowest computation = 1 s in every run.
        self.assertIn("marked: slowest rank's computation 11.500 s + fixed part 1.000 s", out)
        self.assertIn("equalized: slowest rank's computation 9.500 s + fixed part 1.000 s", out)


class Pool(unittest.TestCase):
    def test_means_over_experiments(self):
        # Experiment 1: walls 10, 10 against 8, 8 (reduction 20%), predicted 15%, its
        # same-window pair (20, 14): difference 6. Experiment 2: 20, 20 against 19, 19 (5%),
        # predicted 5%, pair (5, 6): difference -1. Means: measured 12.5%, predicted 10%,
        # difference 2.5 points; same window predicted (14 + 6) / 2 = 10%, difference
        # (6 - 1) / 2 = 2.5. Constant samples: every interval is the point itself.
        experiments = (([10.0, 10.0], [8.0, 8.0], 15.0, [20.0, 14.0]),
                       ([20.0, 20.0], [19.0, 19.0], 5.0, [5.0, 6.0]))
        with tempfile.TemporaryDirectory() as d:
            dirs = []
            for k, (marked, equalized, predicted, pair) in enumerate(experiments):
                out = f"{d}/s{k}"
                os.mkdir(out)
                write_jsonl(f"{out}/phase-b-marked.jsonl", [record(i, w, []) for i, w in enumerate(marked)])
                write_jsonl(f"{out}/phase-b-equalized.jsonl", [record(i, w, []) for i, w in enumerate(equalized)])
                with open(f"{out}/predicted.json", "w") as f:
                    json.dump({"reduction_percent": predicted, "bootstrap": [predicted],
                               "same_window": {"reduction_percent": pair[1], "pairs": [pair]}}, f)
                dirs.append(out)
            _, out = run_quietly(stats.cmd_pool, types.SimpleNamespace(dirs=dirs, seed=1))
        self.assertIn("2 experiments: measured reduction +12.5% [+12.5, +12.5], predicted +10.0%, "
                      "measured - predicted +2.5 points [+2.5, +2.5]", out)
        self.assertIn("same window (calibrated on phase B marked): predicted +10.0%, measured - predicted "
                      "+2.5 points [+2.5, +2.5] -> NOT consistent", out)  # the interval misses 0
        self.assertNotIn("as planned", out)  # no experiment has that calibration


if __name__ == "__main__":
    unittest.main()
