"""Benchmark: sharing discovery speed and the live pane's frame rate.

    python bench/sharing.py [--out bench/results/sharing.json]

* outer steps per second of method 1 (3 restarts batched) on the Gaussian (K = 5) and convolution tasks;
* wall time until the convolution task first shows partition distance 0 (recorded every step);
* frames per second of the Sharing discovery pane while it learns the convolution and group tasks, with the
  pane attached to a Bokeh Document (the server-side work of a frame) and polled on its 150 ms schedule
  (target >= 4), plus the median cost of a frame;
* baseline in the same run: method 1 with restarts run one after another instead of batched.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LAB_RESULTS_DIR", tempfile.mkdtemp(prefix="lab-bench-results-"))

import numpy as np  # noqa: E402
from bokeh.document import Document  # noqa: E402

from lab.sharing.pane import FRAME_MS, SharingDiscovery  # noqa: E402
from lab.sharing.bilevel import learn_sharing  # noqa: E402
from lab.sharing.tasks import GaussianTask, conv_task  # noqa: E402


def steps_per_second(make, restarts=3, steps=400):
    batched = learn_sharing(make(), steps=steps, restarts=restarts, record_every=steps)
    t0 = time.perf_counter()
    for r in range(restarts):
        learn_sharing(make(), steps=steps, restarts=1, seed=r, record_every=steps)
    loop = time.perf_counter() - t0
    return batched.steps_per_second, steps / loop


def time_to_zero():
    t0 = time.perf_counter()
    res = learn_sharing(conv_task(), record_every=1)
    first = next((h["step"] for h in res.history if h["partition_distance"] == 0), None)
    per_step = res.seconds / max(res.steps, 1)
    return first, None if first is None else first * per_step, time.perf_counter() - t0, res.partition_distance


def pane_fps(task, seconds=6.0, worker="thread"):
    """Frames/s of the pane while it learns (the same thread worker as before the job runner, so the figures
    compare; a process worker's start-up would count inside the window)."""
    pane = SharingDiscovery(task=task, steps=100_000, worker=worker)
    pane.__panel__().get_root(Document())
    pane.start()
    t0 = nxt = time.perf_counter()
    costs = []
    while pane.running and time.perf_counter() - t0 < seconds:
        nxt += FRAME_MS / 1000
        time.sleep(max(0.0, nxt - time.perf_counter()))
        a = time.perf_counter()
        pane.poll()
        costs.append(time.perf_counter() - a)
    elapsed = time.perf_counter() - t0
    pane.stop()
    return len(pane.frames) / elapsed, float(np.median(costs))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "sharing.json"))
    args = ap.parse_args(argv)
    out = {}
    for name, make in (("gaussian", lambda: GaussianTask(K=5, blocks=3, seed=0)), ("conv", conv_task)):
        b, lp = steps_per_second(make)
        out[name] = {"batched_steps_per_s": b, "restarts_one_by_one_steps_per_s": lp, "speedup": b / lp}
        print(f"{name:<9} outer steps/s: {b:.0f} (3 restarts batched) vs {lp:.0f} one by one -> x{b / lp:.1f}")
    first, secs, total, final = time_to_zero()
    out["conv_time_to_pd0"] = {"first_step_with_pd0": first, "seconds": secs, "run_seconds": total, "final_pd": final}
    print(f"conv: partition distance 0 first at step {first} ({secs:.2f} s); final PD {final} after {total:.1f} s")
    for task in ("conv", "group"):
        fps, cost = pane_fps(task)
        out[f"pane_{task}"] = {"frames_per_second": fps, "median_frame_seconds": cost, "target_fps": 4, "ok": fps >= 4}
        print(f"pane while learning {task}: {fps:.1f} frames/s (median frame {1000 * cost:.0f} ms)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
