#!/usr/bin/env python3
"""Numbers for scripts/availability-experiment.sh (docs/validation-availability.md).

  availability_stats.py schedule  --seed S --interval I --seconds D
  availability_stats.py estimate  --records A.jsonl --steady N1 --variable N2 --interval I --out EST.json
  availability_stats.py equalize-csv --estimate EST.json
  availability_stats.py predict   --hetscale BIN --estimate EST.json --records A.jsonl
                                  --marked N1=w,N2=w --equalized N1=w,N2=w --seed S --out-dir D
  availability_stats.py calibrate --hetscale BIN --phase-a A.jsonl --marked-records M.jsonl
                                  --equalized-records E.jsonl --steady N1 --variable N2 --interval I
                                  --marked N1=w,N2=w --equalized N1=w,N2=w --seed S --predicted P.json
  availability_stats.py compare   --marked M.jsonl --equalized E.jsonl --predicted P.json --seed S
                                  [--phase-a A.jsonl --load-log LOG --variable NODE]
  availability_stats.py pool      OUT_DIR... [--seed S]

Standard library only (the machine has no numpy/scipy). Every random draw comes from
random.Random(seed), so the same seed gives the same schedule and the same interval.
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile


# ----------------------------------------------------------------------------- schedule
def cmd_schedule(a):
    """The competing load's on/off schedule, one 'seconds on|off' line per interval.

    It is the simulator's availability process (docs/science.md section 3, model/src/simulation.cpp
    with --distribution two-point): every interval lasts U(0, I] seconds and the load's state
    is drawn anew, on or off with probability 1/2, independently of the previous interval.
    A busy loop sharing the node's cgroup takes half its quota, so the rank's availability
    is 1/2 (on) or 1 (off): mean 3/4, standard deviation 1/4, TH = 1/3 by construction."""
    rng = random.Random(a.seed)
    elapsed = 0.0
    while elapsed < a.seconds:
        length = a.interval * (1.0 - rng.random())  # (0, I]: never a zero-length sleep
        state = "on" if rng.random() < 0.5 else "off"
        print(f"{length:.3f} {state}")
        elapsed += length


# ----------------------------------------------------------------------------- records
def read_records(path):
    with open(path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    bad = [r for r in records if not r.get("verified")]
    if bad:
        sys.exit(f"availability_stats.py: {len(bad)} unverified run(s) in {path}")
    return records


def rank_on(record, host):
    for r in record["ranks"]:
        if r["host"] == host:
            return r
    sys.exit(f"availability_stats.py: no rank on {host} in job {record['slurm']['job_id']}")


def seconds_per_job(record, host):
    """A rank's computation seconds per unit of work, the job being the unit."""
    rank = rank_on(record, host)
    return rank["compute_seconds"] / rank["weight"]


def overhead(record):
    """What the partition does not change: distribution and collection (wall time minus
    the slowest rank's computation; the faster rank's waiting is inside the slowest's)."""
    return record["wall_seconds"] - max(r["compute_seconds"] for r in record["ranks"])


# ----------------------------------------------------------------------------- estimate
def estimate_from(records, steady, variable, interval):
    """Per node, from the marked-weight runs: seconds per unit of work u = compute seconds /
    share of the job (the job's work is the unit), its mean and standard deviation, and
    TH_run = sd/mean (the database view node_time_variability calls it cv).

    For the model (docs/science.md): mean speed s = 1/mean(u); the rank's own time
    T = share x u has mean t and sd sigma_T, variation k = sigma_T / sqrt(t); the
    availability's TH_A = k / sqrt(c) with c = E[L^2]/E[L] = 2I/3 of the load's intervals
    (the relation the simulator and `hetscale equalize` both use; it holds for t >> c)."""
    correlation = 2.0 * interval / 3.0
    nodes = {}
    for host in (steady, variable):
        ranks = [rank_on(r, host) for r in records]
        u = [x["compute_seconds"] / x["weight"] for x in ranks]
        t = [x["compute_seconds"] for x in ranks]
        mean_u, sd_u = statistics.fmean(u), statistics.stdev(u)
        mean_t, sd_t = statistics.fmean(t), statistics.stdev(t)
        k = sd_t / math.sqrt(mean_t)
        nodes[host] = {
            "runs": len(u), "share": statistics.fmean(x["weight"] for x in ranks),
            "seconds_per_job_mean": mean_u, "seconds_per_job_sd": sd_u,
            "th_run": sd_u / mean_u, "speed": 1.0 / mean_u,
            "time_mean": mean_t, "time_sd": sd_t, "variation": k,
            "th_availability": k / math.sqrt(correlation),
        }
    walls = [r["wall_seconds"] for r in records]
    return {
        "interval": interval, "correlation_time": correlation,
        "steady": steady, "variable": variable, "nodes": nodes,
        "wall_mean": statistics.fmean(walls), "wall_sd": statistics.stdev(walls),
        "overhead_mean": statistics.fmean(overhead(r) for r in records),
        # Step 1 (work proportional to measured mean speed) finishes the job's computation in
        # 1 / sum(s_i): the --seconds that makes `hetscale equalize` partition exactly one job.
        "proportional_seconds": 1.0 / sum(n["speed"] for n in nodes.values()),
    }


def cmd_estimate(a):
    records = read_records(a.records)
    if len(records) < 3:
        sys.exit("availability_stats.py: need at least 3 runs to estimate a standard deviation")
    est = estimate_from(records, a.steady, a.variable, a.interval)
    with open(a.out, "w") as f:
        json.dump(est, f, indent=2)
    print(f"{'node':<6} {'runs':>4} {'share':>6} {'s/job mean':>10} {'s/job sd':>9} "
          f"{'TH_run':>7} {'t mean':>7} {'t sd':>6} {'k':>7} {'TH_A':>6}")
    for host, n in est["nodes"].items():
        print(f"{host:<6} {n['runs']:>4} {n['share']:>6.3f} {n['seconds_per_job_mean']:>10.3f} "
              f"{n['seconds_per_job_sd']:>9.3f} {n['th_run']:>7.3f} {n['time_mean']:>7.3f} "
              f"{n['time_sd']:>6.3f} {n['variation']:>7.4f} {n['th_availability']:>6.3f}")
    print(f"wall time {est['wall_mean']:.3f} s (sd {est['wall_sd']:.3f}); fixed part "
          f"(distribution + collection) {est['overhead_mean']:.3f} s; step-1 compute time "
          f"{est['proportional_seconds']:.3f} s")


def load_estimate(path):
    with open(path) as f:
        return json.load(f)


def cmd_equalize_csv(a):
    """Input of `hetscale equalize`: mean speed in jobs per second, variation k in sqrt(s)."""
    est = load_estimate(a.estimate)
    print("node,speed,variation")
    for host, n in est["nodes"].items():
        print(f"{host},{n['speed']:.9g},{n['variation']:.9g}")


# ----------------------------------------------------------------------------- predict
def parse_weights(text):
    return {k: float(v) for k, v in (w.split("=") for w in text.split(","))}


def computers_csv(est, weights):
    """Input of `hetscale simulate` (time unit: the second; work unit: the job).

    Only alpha x A(t) matters to the simulator, so every node is written with mean
    availability 1/2 and alpha = 2 s: then a two-point availability 1/2 +- TH_A/2 stays in
    [0, 1] for any TH_A <= 1, and the node's mean speed is its measured s."""
    lines = ["name,max_power,availability,availability_sd,work"]
    for host, n in est["nodes"].items():
        th = min(n["th_availability"], 1.0)  # above 1 the availability would go negative
        lines.append(f"{host},{2 * n['speed']:.9g},0.5,{0.5 * th:.9g},{weights[host]:.9g}")
    return "\n".join(lines) + "\n"


def simulate(a, est, weights, partitions, repetitions, seed, table=False):
    """`hetscale simulate` with the load's own interval law (two-point availability,
    intervals U(0, I]) and the measured fixed part of a run (distribution + collection) as
    a communication time, so that tau is comparable with the measured mean wall time."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(computers_csv(est, weights))
    try:
        out = subprocess.run(
            [a.hetscale, "simulate", "--computers", f.name, "--partition", *partitions,
             "--distribution", "two-point", "--interval", str(est["interval"]),
             "--communication-time", f"{est['overhead_mean']:.9g}", "--total-work", "1",
             "--repetitions", str(repetitions), "--seed", str(seed), "--threads", "1",
             "--format", "table" if table else "json"],
            check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    return out if table else json.loads(out)


def predicted_reduction(a, est, marked, equalized, repetitions, seed):
    """Simulated tau of the marked and the equalized shares (common random numbers) and the
    reduction of tau in %."""
    tau_m = simulate(a, est, marked, ["given"], repetitions, seed)[0]
    tau_e = simulate(a, est, equalized, ["given"], repetitions, seed)[0]
    return tau_m, tau_e, 100.0 * (tau_m["tau"] - tau_e["tau"]) / tau_m["tau"]


def cmd_predict(a):
    """The simulator's tau for the marked and the equalized shares (same seed: common
    random numbers) and the predicted reduction; then the same with phase A resampled
    (--bootstrap times): how much the prediction moves with the estimated speeds, TH and
    fixed part, the equalized shares staying those phase B runs with."""
    est = load_estimate(a.estimate)
    marked, equalized = parse_weights(a.marked), parse_weights(a.equalized)
    for name, w in (("marked", marked), ("equalized", equalized)):
        with open(f"{a.out_dir}/computers-{name}.csv", "w") as f:
            f.write(computers_csv(est, w))
    print("simulator, the marked shares ('given') against the model's own partitions:")
    print(simulate(a, est, marked, ["given", "proportional", "equalized", "optimised"],
                   a.repetitions, a.seed, table=True), end="")

    def reduction_for(e, repetitions, seed):
        return predicted_reduction(a, e, marked, equalized, repetitions, seed)

    tau_m, tau_e, predicted = reduction_for(est, a.repetitions, a.seed)
    records = read_records(a.records)
    rng = random.Random(a.seed)
    samples = [(rng.choices(records, k=len(records)), a.seed + 1 + b) for b in range(a.bootstrap)]
    resampled = sorted(parallel(
        lambda s: reduction_for(estimate_from(s[0], est["steady"], est["variable"], est["interval"]),
                                a.bootstrap_repetitions, s[1])[2], samples))
    lo, hi = percentile_interval(resampled)
    result = {"tau_marked": tau_m["tau"], "sigma_t_marked": tau_m["sigma_t"],
              "tau_equalized": tau_e["tau"], "sigma_t_equalized": tau_e["sigma_t"],
              "reduction_percent": predicted, "bootstrap": resampled,
              "interval_percent": [lo, hi]}
    with open(f"{a.out_dir}/predicted.json", "w") as f:
        json.dump(result, f)
    print(f"predicted: tau marked {tau_m['tau']:.3f} s (sigma_T {tau_m['sigma_t']:.3f}), "
          f"equalized {tau_e['tau']:.3f} s (sigma_T {tau_e['sigma_t']:.3f}): reduction "
          f"{predicted:+.1f}%, 95% interval over {a.bootstrap} resamplings of phase A "
          f"[{lo:+.1f}, {hi:+.1f}]%")


def percentile_interval(values, level=0.95):
    """Percentile interval of sorted values."""
    n = len(values)
    return (values[int(math.floor((1 - level) / 2 * n))],
            values[int(math.ceil((1 + level) / 2 * n)) - 1])


# ----------------------------------------------------------------------------- calibrate
# The simulator's two-point availability is a +- a TH with a = 1/2 (computers_csv): TH = 1
# would make it 0 half the time (an endless run), so a matched TH stops just below.
MAX_TH = 0.99


def simulate_alone(a, speed, th, share, interval, repetitions, seed):
    """Mean and sd of the simulated time one node needs for `share` of a job, on its own
    (no other node, no communication): what its measured compute seconds are."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("name,max_power,availability,availability_sd,work\n"
                f"x,{2 * speed:.12g},0.5,{0.5 * th:.12g},{share:.12g}\n")
    try:
        out = subprocess.run(
            [a.hetscale, "simulate", "--computers", f.name, "--partition", "given",
             "--distribution", "two-point", "--interval", str(interval), "--total-work", "1",
             "--repetitions", str(repetitions), "--seed", str(seed), "--threads", "1",
             "--format", "json"], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    r = json.loads(out)[0]
    return r["tau"], r["sigma_t"]


def calibrate_node(a, node, interval, start, repetitions, seed, tolerance, iterations=20):
    """Moment matching: the mean speed and TH_A for which the simulated time of the node's
    share has the measured mean and sd of its compute seconds.

    1/mean(seconds per job) and TH_A = k/sqrt(c) are long-run relations; runs about as long
    as the availability's correlation time are slower on average than 1/mean speed says
    (time goes as 1/availability), so fed to the simulator they count that slowdown twice.
    Fixed point with the same seed in every call (common random numbers): the time scales
    about as 1/speed and its coefficient of variation about as TH, so each step rescales
    both by the remaining ratio; converges in a few steps."""
    target_mean, target_sd = node["time_mean"], node["time_sd"]
    target_cv = target_sd / target_mean
    speed, th = start
    th = min(th, MAX_TH)
    clamped = converged = False
    for step in range(1, iterations + 1):
        tau, sd = simulate_alone(a, speed, th, node["share"], interval, repetitions, seed)
        cv = sd / tau
        mean_ok = abs(tau / target_mean - 1) < tolerance
        # At the bound, a TH that still gives too little spread is the best there is.
        sd_ok = abs(cv - target_cv) < tolerance * max(target_cv, 1e-9) or (clamped and cv < target_cv)
        if mean_ok and sd_ok:
            converged = True
            break
        if step == iterations:
            break  # not converged: report the last simulated pair, not an untried one
        speed *= tau / target_mean
        th = target_cv if cv == 0 else th * target_cv / cv  # cv 0: TH was 0; start from TH_run
        clamped = th > MAX_TH
        th = min(th, MAX_TH)
    return {"speed": speed, "th_availability": th, "iterations": step, "converged": converged,
            "clamped": clamped, "simulated_time_mean": tau, "simulated_time_sd": sd,
            "measured_time_mean": target_mean, "measured_time_sd": target_sd}


def calibrated_estimate(a, records, steady, variable, interval, repetitions, seed, start=None,
                        tolerance=1e-3):
    """estimate_from with every node's speed and TH_A replaced by the moment-matched ones
    (the long-run ones kept as speed_long_run, th_availability_long_run). `start`: the
    {host: (speed, th)} to start from (a resample starts from the full sample's values)."""
    est = estimate_from(records, steady, variable, interval)
    for host, n in est["nodes"].items():
        begin = start[host] if start else (n["speed"], n["th_availability"])
        c = calibrate_node(a, n, interval, begin, repetitions, seed, tolerance)
        n["speed_long_run"], n["th_availability_long_run"] = n["speed"], n["th_availability"]
        n["speed"], n["th_availability"], n["calibration"] = c["speed"], c["th_availability"], c
    return est


def start_of(est):
    return {h: (n["speed"], n["th_availability"]) for h, n in est["nodes"].items()}


def parallel(function, items, workers=4):
    """`hetscale simulate` calls are mostly process start-up: run a few at once."""
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, items))


def calibrated_prediction(a, records, marked, equalized, label):
    """Calibrate on `records` (marked-weight runs), predict the reduction for the given
    marked and equalized shares, and check the simulated marked tau against the mean wall
    time of the very runs it was calibrated on."""
    est = calibrated_estimate(a, records, a.steady, a.variable, a.interval, a.repetitions, a.seed)
    tau_m, tau_e, predicted = predicted_reduction(a, est, marked, equalized, a.repetitions, a.seed)
    wall = statistics.fmean(r["wall_seconds"] for r in records)
    print(f"{label}: calibrated on {len(records)} marked runs")
    print(f"  {'node':<6} {'speed':>7} {'(long run)':>10} {'TH_A':>6} {'(long run)':>10} "
          f"{'steps':>5}  {'t mean sim/meas':>15}  {'t sd sim/meas':>13}")
    for host, n in est["nodes"].items():
        c = n["calibration"]
        note = "" if c["converged"] else " NOT converged"
        note += " CLAMPED at TH_A = 0.99" if c["clamped"] else ""
        print(f"  {host:<6} {n['speed']:>7.4f} {n['speed_long_run']:>10.4f} "
              f"{n['th_availability']:>6.3f} {n['th_availability_long_run']:>10.3f} "
              f"{c['iterations']:>5}  {c['simulated_time_mean']:>7.3f}/{c['measured_time_mean']:<7.3f}"
              f"  {c['simulated_time_sd']:>6.3f}/{c['measured_time_sd']:<6.3f}{note}")
    print(f"  check: simulated marked tau {tau_m['tau']:.3f} s against the runs' mean wall time "
          f"{wall:.3f} s ({100 * (tau_m['tau'] / wall - 1):+.1f}%); equalized tau "
          f"{tau_e['tau']:.3f} s; predicted reduction {predicted:+.1f}%")
    return est, {
        "tau_marked": tau_m["tau"], "sigma_t_marked": tau_m["sigma_t"],
        "tau_equalized": tau_e["tau"], "sigma_t_equalized": tau_e["sigma_t"],
        "reduction_percent": predicted, "calibration_wall_mean": wall,
        "nodes": {h: {"speed": n["speed"], "th_availability": n["th_availability"],
                      "speed_long_run": n["speed_long_run"],
                      "th_availability_long_run": n["th_availability_long_run"],
                      **{k: n["calibration"][k] for k in ("iterations", "converged", "clamped")}}
                  for h, n in est["nodes"].items()}}


def resampled_prediction(a, est, records, marked, equalized, seed):
    """The calibrated prediction from a resample of `records`: fewer repetitions, started
    from the full sample's calibration, matched to 0.3% (far inside the interval's width)."""
    e = calibrated_estimate(a, records, a.steady, a.variable, a.interval,
                            a.bootstrap_repetitions, seed, start=start_of(est), tolerance=3e-3)
    return predicted_reduction(a, e, marked, equalized, a.bootstrap_repetitions, seed)[2]


def cmd_calibrate(a):
    """Both moment-matched predictions (docs/validation-availability.md):
    - as planned: calibrated on phase A, the runs the equalized shares were computed from;
      interval from resampling phase A (independent of phase B);
    - same window: calibrated on phase B's marked runs, interleaved with the equalized ones,
      so both met the same stretch of the load; the equalized shares stay phase A's and the
      equalized runs stay out of sample. Its test needs the marked runs resampled jointly
      for the measured and the predicted reduction: the pairs are stored.
    Added to predicted.json as "as_planned" and "same_window"."""
    marked, equalized = parse_weights(a.marked), parse_weights(a.equalized)
    phase_a = read_records(a.phase_a)
    b_marked = read_records(a.marked_records)
    b_equalized = read_records(a.equalized_records)
    with open(a.predicted) as f:
        result = json.load(f)

    est_a, planned = calibrated_prediction(a, phase_a, marked, equalized, "as planned (phase A)")
    rng = random.Random(a.seed)
    samples = [(rng.choices(phase_a, k=len(phase_a)), a.seed + 1 + b) for b in range(a.bootstrap)]
    draws = sorted(parallel(lambda s: resampled_prediction(a, est_a, s[0], marked, equalized, s[1]),
                            samples))
    planned["bootstrap"], planned["interval_percent"] = draws, list(percentile_interval(draws))
    print(f"  phase A resampled {a.bootstrap} times: [{planned['interval_percent'][0]:+.1f}, "
          f"{planned['interval_percent'][1]:+.1f}]%")

    est_b, window = calibrated_prediction(a, b_marked, marked, equalized,
                                          "same window (phase B marked)")
    samples = [(rng.choices(b_marked, k=len(b_marked)), rng.choices(b_equalized, k=len(b_equalized)),
                a.seed + 1 + b) for b in range(a.bootstrap)]

    def pair(s):
        m, e, seed = s
        measured = reduction([r["wall_seconds"] for r in m], [r["wall_seconds"] for r in e])
        return measured, resampled_prediction(a, est_b, m, marked, equalized, seed)

    pairs = parallel(pair, samples)
    predicted_draws = sorted(p for _, p in pairs)
    window["pairs"] = [list(p) for p in pairs]
    window["interval_percent"] = list(percentile_interval(predicted_draws))
    print(f"  phase B marked resampled {a.bootstrap} times: [{window['interval_percent'][0]:+.1f}, "
          f"{window['interval_percent'][1]:+.1f}]%")
    result["as_planned"], result["same_window"] = planned, window
    tmp = a.predicted + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f)
    os.replace(tmp, a.predicted)  # nothing half-written


# ----------------------------------------------------------------------------- compare
def reduction(marked, equalized):
    m = statistics.fmean(marked)
    return 100.0 * (m - statistics.fmean(equalized)) / m


def bootstrap_reductions(marked, equalized, rng, resamples=10000):
    """Bootstrap of the reduction of the mean, each sample resampled on its own."""
    return [reduction(rng.choices(marked, k=len(marked)), rng.choices(equalized, k=len(equalized)))
            for _ in range(resamples)]


def welch_interval(marked, equalized):
    """Welch's 95% interval of the difference of means, as a % of the marked mean (the
    marked mean is taken as exact); t quantile from a Cornish-Fisher expansion in 1/df,
    within 0.2% of the table value for df >= 5."""
    m, e = statistics.fmean(marked), statistics.fmean(equalized)
    vm, ve = statistics.variance(marked) / len(marked), statistics.variance(equalized) / len(equalized)
    se = math.sqrt(vm + ve)
    df = (vm + ve) ** 2 / (vm ** 2 / (len(marked) - 1) + ve ** 2 / (len(equalized) - 1))
    z = 1.959963985
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    t = z + g1 / df + g2 / df ** 2 + g3 / df ** 3
    return 100 * (m - e - t * se) / m, 100 * (m - e + t * se) / m, df


def epoch(iso):
    """Seconds since the epoch of a run record's UTC time stamp."""
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def on_fraction(switches, start, end):
    """Share of [start, end] during which the load was on; switches = [(time, state)]."""
    on = 0.0
    for (t0, state), (t1, _) in zip(switches, switches[1:] + [(math.inf, None)]):
        overlap = min(end, t1) - max(start, t0)
        if state == "on" and overlap > 0:
            on += overlap
    return on / (end - start)


def load_diagnostic(a):
    """How much load each series met: the load's schedule is random, so the runs of one
    series can meet more or less of it than another by chance; the variable node's time
    per job against that share shows the load acting as designed (slope = the extra
    seconds per job when on all the time)."""
    with open(a.load_log) as f:
        switches = [(float(t), s) for t, s in (line.split() for line in f if line.strip())]
    overall = on_fraction(switches, switches[0][0], switches[-1][0])
    print(f"load on during the timed runs (share; over the whole experiment {overall:.3f}):")
    for name, path in (("phase A marked", a.phase_a), ("phase B marked", a.marked),
                       ("phase B equalized", a.equalized)):
        records = read_records(path)
        share = [on_fraction(switches, epoch(r["start_time"]), epoch(r["end_time"])) for r in records]
        u = [seconds_per_job(r, a.variable) for r in records]
        slope = statistics.covariance(share, u) / statistics.variance(share)
        print(f"  {name:<18} {statistics.fmean(share):.3f}; {a.variable} s/job "
              f"{statistics.fmean(u):.3f} = {statistics.fmean(u) - slope * statistics.fmean(share):.3f} "
              f"+ {slope:.3f} x share (r {statistics.correlation(share, u):.2f})")


def cmd_compare(a):
    marked = [r["wall_seconds"] for r in read_records(a.marked)]
    equalized = [r["wall_seconds"] for r in read_records(a.equalized)]
    with open(a.predicted) as f:
        predicted = json.load(f)
    rng = random.Random(a.seed)
    measured = reduction(marked, equalized)
    resampled = bootstrap_reductions(marked, equalized, rng)
    b_lo, b_hi = percentile_interval(sorted(resampled))
    # Measured minus predicted, both uncertain: pair each phase-B resampling with a random
    # phase-A one. "Consistent" = this interval contains 0.
    difference = sorted(m - rng.choice(predicted["bootstrap"]) for m in resampled)
    d_lo, d_hi = percentile_interval(difference)
    w_lo, w_hi, df = welch_interval(marked, equalized)
    p = predicted["reduction_percent"]
    print(f"{'weights':<10} {'runs':>4} {'mean T (s)':>10} {'sd (s)':>7} {'median':>7}   "
          f"{'simulated tau (s)':>17}")
    for name, xs, tau in (("marked", marked, predicted["tau_marked"]),
                          ("equalized", equalized, predicted["tau_equalized"])):
        print(f"{name:<10} {len(xs):>4} {statistics.fmean(xs):>10.3f} {statistics.stdev(xs):>7.3f} "
              f"{statistics.median(xs):>7.3f}   {tau:>17.3f}")
    # Which part moved: the partitionable computation or the fixed part the model holds
    # constant (the loaded node also distributes and collects its rows more slowly).
    for name, path in (("marked", a.marked), ("equalized", a.equalized)):
        records = read_records(path)
        slowest = statistics.fmean(max(x["compute_seconds"] for x in r["ranks"]) for r in records)
        fixed = statistics.fmean(overhead(r) for r in records)
        print(f"  {name}: slowest rank's computation {slowest:.3f} s + fixed part {fixed:.3f} s")
    print(f"measured reduction of mean T: {measured:+.1f}%  95% CI bootstrap [{b_lo:+.1f}, "
          f"{b_hi:+.1f}]%, Welch [{w_lo:+.1f}, {w_hi:+.1f}]% (df {df:.0f})")
    p_lo, p_hi = predicted["interval_percent"]
    inside = b_lo <= p <= b_hi
    print(f"simulator's predicted reduction: {p:+.1f}% (phase A resampled: [{p_lo:+.1f}, "
          f"{p_hi:+.1f}]%) -> {'inside' if inside else 'OUTSIDE'} the measured bootstrap interval")
    print(f"measured - predicted: {measured - p:+.1f} points, 95% CI [{d_lo:+.1f}, {d_hi:+.1f}] "
          f"-> {'consistent' if d_lo <= 0 <= d_hi else 'NOT consistent'} (interval "
          f"{'contains' if d_lo <= 0 <= d_hi else 'excludes'} 0)")
    for key, label in CALIBRATIONS:
        if key in predicted:
            calibrated_test(label, measured, resampled, b_lo, b_hi, predicted[key], rng)
    if a.load_log:
        load_diagnostic(a)


# The moment-matched predictions of `calibrate`, in predicted.json; docs/validation-availability.md
# says which test is the primary one.
CALIBRATIONS = (("same_window", "same window (calibrated on phase B marked)"),
                ("as_planned", "as planned (calibrated on phase A)"))


def calibrated_differences(p, measured_draws, rng):
    """Draws of measured - predicted: paired when the prediction was calibrated on the
    measured runs themselves (same window), else independent pairs (as planned)."""
    if "pairs" in p:
        return [m - q for m, q in p["pairs"]]
    return [m - rng.choice(p["bootstrap"]) for m in measured_draws]


def calibrated_test(label, measured, resampled, b_lo, b_hi, p, rng):
    predicted = p["reduction_percent"]
    d_lo, d_hi = percentile_interval(sorted(calibrated_differences(p, resampled, rng)))
    ok = d_lo <= 0 <= d_hi
    print(f"{label}: predicted {predicted:+.1f}% (tau marked {p['tau_marked']:.3f} s against "
          f"{p['calibration_wall_mean']:.3f} s measured there, equalized {p['tau_equalized']:.3f} s) -> "
          f"{'inside' if b_lo <= predicted <= b_hi else 'OUTSIDE'} the measured bootstrap interval; "
          f"measured - predicted {measured - predicted:+.1f} points, 95% CI [{d_lo:+.1f}, {d_hi:+.1f}] "
          f"-> {'consistent' if ok else 'NOT consistent'}")


def cmd_pool(a):
    """Several experiments (out dirs of different seeds) together: the mean over them of
    the measured and the predicted reduction, and of their difference, with percentile
    intervals from resampling every experiment's runs independently (post hoc: each
    experiment's own test is the primary result)."""
    rng = random.Random(a.seed)
    measured, predicted, draws_m, draws_d = [], [], [], []
    for d in a.dirs:
        marked = [r["wall_seconds"] for r in read_records(f"{d}/phase-b-marked.jsonl")]
        equalized = [r["wall_seconds"] for r in read_records(f"{d}/phase-b-equalized.jsonl")]
        with open(f"{d}/predicted.json") as f:
            p = json.load(f)
        measured.append(reduction(marked, equalized))
        predicted.append(p["reduction_percent"])
        m = bootstrap_reductions(marked, equalized, rng, resamples=4000)
        draws_m.append(m)
        draws_d.append([x - rng.choice(p["bootstrap"]) for x in m])
    n = len(a.dirs)
    mean_m = [sum(col) / n for col in zip(*draws_m)]
    mean_d = [sum(col) / n for col in zip(*draws_d)]
    m_lo, m_hi = percentile_interval(sorted(mean_m))
    d_lo, d_hi = percentile_interval(sorted(mean_d))
    print(f"{n} experiments: measured reduction {statistics.fmean(measured):+.1f}% "
          f"[{m_lo:+.1f}, {m_hi:+.1f}], predicted {statistics.fmean(predicted):+.1f}%, "
          f"measured - predicted {statistics.fmean(measured) - statistics.fmean(predicted):+.1f} "
          f"points [{d_lo:+.1f}, {d_hi:+.1f}]")
    for key, label in CALIBRATIONS:
        pool_calibrated(a.dirs, key, label, measured, draws_m, rng)


def pool_calibrated(dirs, key, label, measured, draws_m, rng):
    """The mean over experiments of a calibrated test's measured - predicted: every pooled
    draw takes one draw of each experiment (a random pair for the same-window test)."""
    calibrated = []
    for d in dirs:
        with open(f"{d}/predicted.json") as f:
            calibrated.append(json.load(f).get(key))
    if any(p is None for p in calibrated):
        return  # an experiment run before `calibrate` existed (availability_stats.py calibrate adds it)
    diffs = [calibrated_differences(p, m, rng) for p, m in zip(calibrated, draws_m)]
    n = len(dirs)
    pooled = sorted(sum(rng.choice(d) for d in diffs) / n for _ in range(len(draws_m[0])))
    d_lo, d_hi = percentile_interval(pooled)
    predicted = statistics.fmean(p["reduction_percent"] for p in calibrated)
    ok = d_lo <= 0 <= d_hi
    print(f"  {label}: predicted {predicted:+.1f}%, measured - predicted "
          f"{statistics.fmean(measured) - predicted:+.1f} points [{d_lo:+.1f}, {d_hi:+.1f}] -> "
          f"{'consistent' if ok else 'NOT consistent'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("schedule")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--interval", type=float, required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.set_defaults(run=cmd_schedule)
    s = sub.add_parser("estimate")
    for opt in ("--records", "--steady", "--variable", "--out"):
        s.add_argument(opt, required=True)
    s.add_argument("--interval", type=float, required=True)
    s.set_defaults(run=cmd_estimate)
    s = sub.add_parser("equalize-csv")
    s.add_argument("--estimate", required=True)
    s.set_defaults(run=cmd_equalize_csv)
    s = sub.add_parser("predict")
    for opt in ("--hetscale", "--estimate", "--records", "--marked", "--equalized", "--out-dir"):
        s.add_argument(opt, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--repetitions", type=int, default=20000)
    s.add_argument("--bootstrap", type=int, default=200)
    s.add_argument("--bootstrap-repetitions", type=int, default=4000)
    s.set_defaults(run=cmd_predict)
    s = sub.add_parser("calibrate")
    for opt in ("--hetscale", "--phase-a", "--marked-records", "--equalized-records", "--steady",
                "--variable", "--marked", "--equalized", "--predicted"):
        s.add_argument(opt, required=True)
    s.add_argument("--interval", type=float, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--repetitions", type=int, default=20000)
    s.add_argument("--bootstrap", type=int, default=100)
    s.add_argument("--bootstrap-repetitions", type=int, default=4000)
    s.set_defaults(run=cmd_calibrate)
    s = sub.add_parser("compare")
    for opt in ("--marked", "--equalized", "--predicted"):
        s.add_argument(opt, required=True)
    s.add_argument("--seed", type=int, required=True)
    for opt in ("--phase-a", "--load-log", "--variable"):  # the load diagnostic (optional)
        s.add_argument(opt)
    s.set_defaults(run=cmd_compare)
    s = sub.add_parser("pool")
    s.add_argument("dirs", nargs="+")
    s.add_argument("--seed", type=int, default=1)
    s.set_defaults(run=cmd_pool)
    a = parser.parse_args()
    a.run(a)


if __name__ == "__main__":
    main()
