"""Benchmark: training an ensemble's members batched against a Python loop over them, in the same run (issue 30).

    python bench/ensembles.py [--members 100] [--channels 8] [--batch 32] [--steps 5] [--rounds 3]
                              [--setting invariant] [--augment sampled] [--device cpu|cuda]
                              [--out bench/results/ensembles.json]

One projected SGD step of ``--members`` members of ``lab.ensembles`` (the poster's small CNN on the 8 x 8 digits,
each member its own mini-batch of ``--batch`` and its own rotations):

* ``batched``: ``lab.ensembles.train.sgd_step`` -- every member in one computation (``torch.func.vmap`` of the member
  function over stacked parameters, one loss summed over members, one ``autograd.grad``);
* ``loop``: ``lab.ensembles.train.loop_step`` -- the same step member by member (what training M networks one
  after another costs per step).

Both start from the same parameters and take the same batches; the run checks that they agree (largest absolute
difference of the parameters after one step).  Interleaved rounds of ``--steps`` steps of each, medians; the figure
is member-steps per second.  Target: batched at least 5x the loop at M = 100 on a GPU; on a CPU, the step training
takes (``lab.ensembles.train.step_kind``: batched up to 32 channels, the loop wider) never slower than the loop.

Measured on this shared 2-core CPU (one torch thread, float32, M = 100, batch 32): 8 channels 93 ms against 133 ms a
step (1.4x); 2 channels 2.0x, 4 channels 2.3x, 16 channels 0.9x; two threads at 8 channels 1.9x.  The target is
not met on a CPU: the step is bound by arithmetic, not by Python (torch's profiler on the batched step: convolution
backward 39 %, forward 18 %, tanh 16 % of the time), so a loop over 100 members costs only its per-call overhead
more (about 0.4 ms a member).  ``vmap`` turns the members' convolutions into one grouped convolution; writing the
convolution as unfold + batched matmul instead was measured slower (2x at 2 channels, 8x at 8), and so was torch's
native convolution without oneDNN.  On a GPU, where a member's step is a few kernel launches, batching is what makes
hundreds of members affordable (no GPU was lent to the session that wrote this).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = 5.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=100)
    ap.add_argument("--channels", type=int, default=8)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--setting", default="invariant")
    ap.add_argument("--augment", default="sampled")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ensembles.json"))
    a = ap.parse_args(argv)

    import torch

    from lab.ensembles import init_members, loop_step, rotate_images, sgd_step
    from lab.ensembles.network import masks
    from lab.ensembles.train import Streams, _batch
    from lab.data.digits import digits_data

    def sync():
        if a.device.startswith("cuda"):
            torch.cuda.synchronize()

    data = digits_data(0)
    x = data.x_train.to(a.device)
    y = data.y_train.to(a.device)
    orbit_x = torch.stack([rotate_images(x, k) for k in range(4)])
    mask = masks(a.setting, device=a.device)
    start = init_members(a.members, a.channels, a.setting, range(a.members), device=a.device)
    streams = Streams(range(a.members), len(x), a.batch)
    batches = [_batch(orbit_x, y, *streams.draw(), a.augment) for _ in range(a.steps)]

    # agreement: one step each from the same start on the same batch
    p, q = ({k: v.clone() for k, v in start.items()} for _ in range(2))
    sgd_step(p, *batches[0], 0.01, mask)
    loop_step(q, *batches[0], 0.01, mask)
    diff = max(float((p[k] - q[k]).abs().max()) for k in p)

    paths = {"batched": sgd_step, "loop": loop_step}
    times = {k: [] for k in paths}
    for k, f in paths.items():  # warm-up
        f({kk: v.clone() for kk, v in start.items()}, *batches[0], 0.01, mask)
    for _ in range(a.rounds):
        for k, f in paths.items():
            params = {kk: v.clone() for kk, v in start.items()}
            sync()
            t0 = time.perf_counter()
            for xb, yb in batches:
                f(params, xb, yb, 0.01, mask)
            sync()
            times[k].append((time.perf_counter() - t0) / a.steps)
    med = {k: statistics.median(v) for k, v in times.items()}
    rate = {k: a.members / v for k, v in med.items()}
    speedup = med["loop"] / med["batched"]
    from lab.ensembles.train import step_kind

    auto = step_kind(a.channels, a.device)  # what training takes at this width (lab.ensembles.train.train)
    auto_vs_loop = med["loop"] / med[auto]
    out = {"auto": auto, "auto_vs_loop": auto_vs_loop,
           "members": a.members, "channels": a.channels, "batch": a.batch, "device": a.device,
           "threads": torch.get_num_threads(), "seconds_per_step": med, "member_steps_per_second": rate,
           "speedup": speedup, "target": TARGET, "met": speedup >= TARGET, "max_abs_difference": diff}
    print(f"M = {a.members}, {a.channels} channels, batch {a.batch}, {a.device} ({torch.get_num_threads()} threads)")
    for k in paths:
        print(f"  {k:<8} {med[k] * 1e3:8.1f} ms/step   {rate[k]:10.0f} member-steps/s")
    print(f"  batched / loop: {speedup:.1f}x (target >= {TARGET:g}x: {'met' if speedup >= TARGET else 'NOT met'}); "
          f"largest parameter difference after one step {diff:.1e}")
    print(f"  training takes the {auto} step here (step_kind): {auto_vs_loop:.2f}x the loop (never below 1 is the aim)")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
