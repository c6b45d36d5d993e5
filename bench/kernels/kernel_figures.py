#!/usr/bin/env python3
"""Prints the kernels' performance figures (docs/kernels.md): nothing is asserted.

  bench/kernels/kernel_figures.py [--bin build/default/bin] [--repeats 3] [--quick]

1. mm on one rank at N=2048 against the dgemm marked speed of one processor.
2. Speed-efficiency E_s = W / (T C) of each kernel as N grows on 1, 2 and 4 ranks under
   mpirun, C = (processors actually used) x the per-processor dgemm marked speed.
   This machine has 2 cores: 4 ranks oversubscribe them, so C counts 2 processors.
Each figure is the median of --repeats runs (T from the kernel's run record).
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
for name in ("HETSCALE_WEIGHT", "HETSCALE_RECORD"):
    ENV.pop(name, None)


def markspeed(bin_dir, cpus=None, size=None):
    cmd = [f"{bin_dir}/hetscale-markspeed", "dgemm", "--format", "json"]
    if cpus:
        cmd += ["--cpus", cpus]
    if size:
        cmd += ["--size", str(size)]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def run_kernel(bin_dir, kernel, n, ranks, repeats):
    """Median and best wall seconds, and the work, of `repeats` runs."""
    times, work = [], 0.0
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "r.jsonl")
        for _ in range(repeats):
            cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks),
                   f"{bin_dir}/hetscale-{kernel}", "-N", str(n), "--weights", "equal", "--record", record]
            subprocess.run(cmd, check=True, capture_output=True, env=ENV)
        for line in open(record):
            r = json.loads(line)
            assert r["verified"], r
            times.append(r["wall_seconds"])
            work = r["work"]
    return statistics.median(times), min(times), work


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="build/default/bin")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes only (smoke run)")
    args = parser.parse_args()
    cores = os.cpu_count()
    print(f"# host: {cores} processors, load average {os.getloadavg()[0]:.1f} at start")

    all_busy = markspeed(args.bin)
    one = markspeed(args.bin, cpus="0")
    c1 = all_busy["sustained"]
    print(f"dgemm marked speed (N={all_busy['size']}, all {len(all_busy['processors'])} processors busy): "
          f"{c1:.0f} Mflops per processor, cv {100 * all_busy['cv']:.1f}%")
    print(f"dgemm on processor 0 alone: {one['sustained']:.0f} Mflops, cv {100 * one['cv']:.1f}%")

    n_mm = 512 if args.quick else 2048
    t, best, w = run_kernel(args.bin, "mm", n_mm, 1, args.repeats)
    s = w / t / 1e6
    print(f"mm, 1 rank, N={n_mm}: median T={t:.3f} s (best {best:.3f} s), S={s:.0f} Mflops; "
          f"S / dgemm marked speed = {s / c1:.2f}; S / dgemm alone on one processor = {s / one['sustained']:.2f}")

    sizes = {"mm": [256, 512, 1024, 2048], "ge": [200, 400, 800, 1600], "conv2d": [256, 512, 1024, 2048],
             "lu": [512, 1024, 2048, 4096]}
    if args.quick:
        sizes = {k: v[:2] for k, v in sizes.items()}
    print()
    print("| kernel | N | E_s 1 rank | E_s 2 ranks | E_s 4 ranks (oversubscribed) |")
    print("|---|---|---|---|---|")
    for kernel, ns in sizes.items():
        for n in ns:
            cells = []
            for ranks in (1, 2, 4):
                t, _, w = run_kernel(args.bin, kernel, n, ranks, args.repeats)
                c = min(ranks, cores) * c1 * 1e6
                cells.append(f"{w / (t * c):.3f} ({t:.3f} s)")
            print(f"| {kernel} | {n} | " + " | ".join(cells) + " |", flush=True)
    print(f"# load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    sys.exit(main())
