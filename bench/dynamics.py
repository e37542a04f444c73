"""Benchmark: training dynamics at the paper's scale (float32 vs float64, batched runs vs a loop over runs), and
R runs batched vs one by one on the small presets.

    python bench/dynamics.py [--paper] [--small] [--bound] [--steps 1] [--passes 1] [--loop-runs 3] [--out FILE]

* ``--paper`` (the default when neither is given) -- Perm at paper scale (30 runs, 1000 graphs of 10 nodes, 32/64
  channels, batch 200, Nom + Aug + Equi; ``lab.tasks.nordenfors_paper``): seconds per step in float32 and float64, for
  the 30 runs batched (one ``Trainer``) and for a loop over runs (``--loop-runs`` single-run ``Trainer``s, scaled
  to 30), all in this process.  To stay within minutes it times ``--steps`` steps with ``--passes``
  augmentation passes and extrapolates to the paper's L = 25: a step is 2 + L passes over the data (Nom, Equi,
  L for Aug), each the same work, so seconds per step at L = 25 = measured x (2 + 25) / (2 + passes).  The
  full run (50 steps) is 50 times that.  Targets: float32 >= 1.8x float64 (batched) and the full run under
  40 min.
* ``--small`` -- every experiment at its small default: R runs batched against the same R runs one after
  another (identical trajectories: tests/test_dynamics.py), the gain of batching; target >= 5x at R = 30.
* ``--bound`` -- the arithmetic bound of the Training dynamics tab's default run (each experiment at its small
  default: 5 runs, Nom + Aug + Equi) on this CPU, against issue 49's target of 8 steps/s.  A step's work is
  counted from the model's matmul layers: per row forward ``sum in x out`` multiply-adds, backward the weights'
  gradient (the same again) and the inputs' gradient (every layer but the first); rows per step = runs x training
  examples x passes (1 for Nom and Equi, L for Aug).  This machine's rate for that work is measured in the same
  run: the step's matmuls alone (``torch.bmm`` forward, and the two backward products, on the shapes a step
  uses, nothing else), so the bound is the steps/s a step would reach if it were nothing but its matmuls.
  Reported per experiment and dtype (the default float64, and float32, the ``dtype`` option): measured steps/s,
  the bound, and the share of it reached.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LAB_CACHE_DIR", "off")

import torch  # noqa: E402

from lab.dynamics import DynamicsConfig, Trainer  # noqa: E402


EXPERIMENTS = ("perm", "trans", "rot", "custom")


def _config(experiment, device, runs, steps, **kw):
    return DynamicsConfig(experiment=experiment, runs=runs, steps=steps, strategies=("nom", "aug", "equi"),
                          device=device, **kw)


def batched(experiment, device, runs, steps):
    tr = Trainer(_config(experiment, device, runs, steps))
    t0 = time.perf_counter()
    tr.run()
    return time.perf_counter() - t0


def looped(experiment, device, runs, steps):
    seconds = 0.0
    for r in range(runs):
        tr = Trainer(_config(experiment, device, runs, steps, run_ids=(r,)))
        t0 = time.perf_counter()
        tr.run()
        seconds += time.perf_counter() - t0
    return seconds


PAPER_STEPS, PAPER_PASSES, PAPER_RUNS = 50, 25, 30


def paper_step_seconds(dtype, runs, steps, passes, run_ids=None):
    """Seconds per training step of Perm at paper scale (build excluded)."""
    tr = Trainer(DynamicsConfig(experiment="perm", scale="paper", runs=runs, steps=steps, aug_passes=passes,
                                dtype=dtype, device="cpu", strategies=("nom", "aug", "equi"), run_ids=run_ids))
    t0 = time.perf_counter()
    tr.run()
    return (time.perf_counter() - t0) / steps


def paper(args) -> dict:
    scale = (2 + PAPER_PASSES) / (2 + args.passes)
    rows = []
    for dtype in ("float32", "float64"):
        batched = paper_step_seconds(dtype, PAPER_RUNS, args.steps, args.passes) * scale
        loop = sum(paper_step_seconds(dtype, PAPER_RUNS, args.steps, args.passes, run_ids=(r,))
                   for r in range(args.loop_runs)) * scale * PAPER_RUNS / args.loop_runs
        rows.append(dict(dtype=dtype, batched_s_per_step=batched, loop_s_per_step=loop,
                         batched_over_loop=loop / batched, full_run_minutes=PAPER_STEPS * batched / 60))
        print(f"  {dtype}: batched {batched:.1f} s/step, loop {loop:.1f} s/step", flush=True)
    f32, f64 = rows
    result = dict(rows=rows, float32_speedup=f64["batched_s_per_step"] / f32["batched_s_per_step"],
                  measured_steps=args.steps, measured_passes=args.passes, loop_runs=args.loop_runs,
                  threads=torch.get_num_threads(), targets=dict(float32_speedup=1.8, full_run_minutes=40))
    print(f"\nPerm at paper scale ({PAPER_RUNS} runs, L = {PAPER_PASSES}, Nom + Aug + Equi), CPU, "
          f"{torch.get_num_threads()} threads; measured {args.steps} step(s) at L = {args.passes}, extrapolated:")
    print(f"{'dtype':<8} {'batched s/step':>15} {'loop s/step':>12} {'batched gain':>13} {'50 steps (min)':>15}")
    for r in rows:
        print(f"{r['dtype']:<8} {r['batched_s_per_step']:>15.1f} {r['loop_s_per_step']:>12.1f} "
              f"{r['batched_over_loop']:>12.2f}x {r['full_run_minutes']:>15.1f}")
    ok32 = result["float32_speedup"] >= 1.8
    ok40 = f32["full_run_minutes"] < 40
    print(f"float32 / float64: x{result['float32_speedup']:.2f} ({'OK' if ok32 else 'UNDER'} 1.8x); full run in "
          f"float32: {f32['full_run_minutes']:.0f} min ({'OK' if ok40 else 'OVER'} 40 min)")
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paper", action="store_true", help="Perm at paper scale: float32 vs float64, batched vs loop")
    ap.add_argument("--small", action="store_true", help="the small presets: batched vs one by one")
    ap.add_argument("--bound", action="store_true", help="the Training dynamics default run's arithmetic bound")
    ap.add_argument("--runs", type=int, default=30, help="--small: runs")
    ap.add_argument("--steps", type=int, default=1, help="steps timed (--small: 3 when left at 1)")
    ap.add_argument("--passes", type=int, default=1, help="--paper: augmentation passes timed (extrapolated to 25)")
    ap.add_argument("--loop-runs", type=int, default=3, help="--paper: single-run trainers timed (scaled to 30)")
    ap.add_argument("--experiments", default=",".join(EXPERIMENTS))
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "dynamics.json"))
    args = ap.parse_args(argv)
    result = {}
    if args.paper or not (args.small or args.bound):
        result["paper"] = paper(args)
    if args.bound:
        result["bound"] = bound(args)
    if args.small:
        result["batching"] = small(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


def small(args) -> list:
    steps = args.steps if args.steps > 1 else 3
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = []
    for device, experiment in [(d, e) for d in devices for e in args.experiments.split(",")]:
        b = batched(experiment, device, args.runs, steps)
        lp = looped(experiment, device, args.runs, steps)
        row = dict(experiment=experiment, device=device, runs=args.runs, steps=steps,
                   batched_steps_per_s=steps / b, loop_steps_per_s=steps / lp, speedup=lp / b, target=5.0,
                   ok=lp / b >= 5.0)
        rows.append(row)
        print(f"{experiment:<7} {device}: R = {args.runs}: batched {row['batched_steps_per_s']:.3f} steps/s, loop "
              f"{row['loop_steps_per_s']:.3f} steps/s -> x{row['speedup']:.1f} ({'OK' if row['ok'] else 'UNDER'} 5x)",
              flush=True)
    return rows


TARGET_STEPS_PER_S = 8.0  # issue 49: the default Training dynamics run on 2 idle cores


def _step_work(tr) -> tuple[list[tuple[int, int, int]], int]:
    """The matmuls of one training step of ``tr``: [(rows, in, out)] per layer for one run (rows: every strategy's
    passes over the training examples), and the multiply-adds of the whole step (forward, both backward products,
    all runs)."""
    shapes = [tuple(m.shape[1:]) for m in tr.model.to_matmul(tr.params[tr.config.strategies[0]]) if m.dim() == 3]
    rows = sum(tr.passes(s) for s in tr.config.strategies) * len(tr.X)
    forward = sum(i * o for i, o in shapes)
    backward = forward + sum(i * o for i, o in shapes[1:])  # weights' gradients, then inputs' (not the data's)
    return [(rows, i, o) for i, o in shapes], tr.R * rows * (forward + backward)


def _matmul_seconds(tr, shapes: list[tuple[int, int, int]], repeats: int = 9) -> float:
    """Seconds of one step's matmuls alone (``shapes``: ``_step_work``'s per layer): the forward ``bmm`` over the
    runs and its two backward products, on the rows a step merges into one pass (``Trainer._merge_items``), in the
    trainer's dtype; the fastest of ``repeats`` after one warm-up (a bound: the best this machine did)."""
    R, dt = tr.R, tr.dtype
    rows_per_pass = min(tr._merge_items() * tr.config.batch_size, shapes[0][0])
    times = []
    for _ in range(repeats + 1):
        total = 0.0
        for first, (rows, i, o) in enumerate(shapes):
            x, w, g = (torch.randn(R, rows_per_pass, i, dtype=dt), torch.randn(R, i, o, dtype=dt),
                       torch.randn(R, rows_per_pass, o, dtype=dt))
            t0 = time.perf_counter()
            torch.bmm(x, w)
            torch.bmm(x.transpose(1, 2), g)
            if first:
                torch.bmm(g, w.transpose(1, 2))
            total += (time.perf_counter() - t0) * rows / rows_per_pass
        times.append(total)
    return min(times[1:])


def bound(args) -> list:
    """The Training dynamics tab's default runs: measured steps/s against the matmul bound (module docstring)."""
    rows = []
    for experiment in args.experiments.split(","):
        for dtype in ("float64", "float32"):
            tr = Trainer(DynamicsConfig(experiment=experiment, steps=10 ** 6, device="cpu", dtype=dtype))
            tr.train_step()  # warm-up
            steps = max(2, args.steps)
            t0 = time.perf_counter()
            for _ in range(steps):
                tr.train_step()
            measured = steps / (time.perf_counter() - t0)
            shapes, macs = _step_work(tr)
            matmuls = _matmul_seconds(tr, shapes)
            row = dict(experiment=experiment, dtype=dtype, runs=tr.R, strategies=list(tr.config.strategies),
                       gflop_per_step=2 * macs / 1e9, matmul_gflops=2 * macs / 1e9 / matmuls,
                       steps_per_s=measured, bound_steps_per_s=1 / matmuls, share_of_bound=measured * matmuls,
                       target=TARGET_STEPS_PER_S, target_within_bound=1 / matmuls >= TARGET_STEPS_PER_S)
            rows.append(row)
            print(f"{experiment:<7} {dtype}: {row['gflop_per_step']:.2f} GFLOP/step, matmuls alone "
                  f"{row['matmul_gflops']:.1f} GFLOP/s -> bound {row['bound_steps_per_s']:.1f} steps/s; measured "
                  f"{measured:.2f} steps/s ({100 * row['share_of_bound']:.0f} % of the bound)", flush=True)
    print(f"\nthe default runs' bound against the target {TARGET_STEPS_PER_S:g} steps/s ({torch.get_num_threads()} "
          f"threads):")
    print(f"{'experiment':<10} {'dtype':<8} {'GFLOP/step':>10} {'bound/s':>8} {'measured/s':>11} {'share':>6}  target")
    for r in rows:
        print(f"{r['experiment']:<10} {r['dtype']:<8} {r['gflop_per_step']:>10.2f} {r['bound_steps_per_s']:>8.1f} "
              f"{r['steps_per_s']:>11.2f} {100 * r['share_of_bound']:>5.0f}%  "
              f"{'within the bound' if r['target_within_bound'] else 'ABOVE the bound'}")
    return rows


if __name__ == "__main__":
    sys.exit(main())
