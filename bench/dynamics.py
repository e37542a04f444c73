"""Benchmark: training dynamics, R runs batched vs the same R runs one after another.

    python bench/dynamics.py [--runs 30] [--steps 3] [--paper] [--paper-steps 50] [--out bench/results/dynamics.json]

* ``batched`` -- one ``Trainer`` with R runs (weights with a leading run axis, one einsum per layer);
* ``loop``    -- the baseline, in the same process: R ``Trainer``s with one run each (``run_ids=(r,)``),
  trained one after another.  Both follow identical trajectories (tests/test_dynamics.py checks it), so
  the ratio of steps per second is the gain of batching.

Measured on every experiment at its small default (strategies nom, aug, equi) on CPU, and on CUDA when
present.
``--paper`` adds the wall time of the Perm experiment at paper scale (30 runs, 50 steps, 25 augmentation
passes, 1000 graphs, 32/64 channels); ``--paper-steps`` times fewer steps and reports the per-step time.
Target: batching >= 5x faster than the loop at R = 30 on CPU.
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--experiments", default=",".join(EXPERIMENTS))
    ap.add_argument("--paper", action="store_true")
    ap.add_argument("--paper-steps", type=int, default=50)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "dynamics.json"))
    args = ap.parse_args(argv)
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    rows = []
    for device, experiment in [(d, e) for d in devices for e in args.experiments.split(",")]:
        b = batched(experiment, device, args.runs, args.steps)
        lp = looped(experiment, device, args.runs, args.steps)
        row = dict(experiment=experiment, device=device, runs=args.runs, steps=args.steps,
                   batched_steps_per_s=args.steps / b, loop_steps_per_s=args.steps / lp, speedup=lp / b, target=5.0,
                   ok=lp / b >= 5.0)
        rows.append(row)
        print(f"{experiment:<7} {device}: R = {args.runs}: batched {row['batched_steps_per_s']:.3f} steps/s, loop "
              f"{row['loop_steps_per_s']:.3f} steps/s -> x{row['speedup']:.1f} ({'OK' if row['ok'] else 'UNDER'} 5x)",
              flush=True)
    result = {"batching": rows}
    if args.paper:
        tr = Trainer(DynamicsConfig(experiment="perm", scale="paper", runs=30, steps=args.paper_steps, aug_passes=25,
                                    strategies=("nom", "aug", "equi")))
        t0 = time.perf_counter()

        def report(t, _):
            print(f"  paper scale: step {t.step}/{t.config.steps}  {time.perf_counter() - t0:.0f} s", flush=True)

        tr.run(on_step=report)
        seconds = time.perf_counter() - t0
        result["paper"] = dict(steps=args.paper_steps, seconds=seconds, seconds_per_step=seconds / args.paper_steps,
                               estimated_seconds_for_50_steps=50 * seconds / args.paper_steps,
                               summary=tr.summary(), device=str(tr.device))
        print(f"Perm at paper scale (30 runs, 25 passes, 1000 graphs, 32 channels): {seconds:.0f} s for "
              f"{args.paper_steps} steps ({seconds / args.paper_steps:.1f} s/step)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
