"""Benchmark: the LEE of the small digits CNN on 1 000 digits three ways, in the same run (issue 29).

    python bench/meter.py [--n 1000] [--model cnn-stride] [--transform translate-x] [--epochs 0]
                          [--repeats 3] [--rounds 3] [--h 1e-4] [--dtype float64|float32] [--device cpu|cuda]
                          [--out bench/results/meter.json]

The Lie derivative ``L_X f(x) = d/dt f(T_t x)|_0`` (eq. 4.4) of ``lab.meter.cnn.build(--model)`` with its softmax
(the thesis's outputs; ``lab.meter.aliasing.measurable``: an eval-mode copy in ``--dtype``, float64 as the meter
measures), under ``--transform`` (bicubic, circular padding: the meter's defaults; bicubic is C1, so the two-sided
derivative exists and a central difference converges to it) on the first ``--n`` training digits of
``lab.data.digits.digits_data``:

* ``jvp``: the meter's path, ``lab.equivariance.lie.lie_derivative`` on the whole batch, forward mode
  (``torch.func.jvp``): one forward pass carrying the tangent ``T'(0) x``;
* ``fd``: a central finite difference ``(f(T_h x) - f(T_{-h} x)) / 2h``: two forwards of the transformed batch
  (the two resamplings included);
* ``loop``: ``lie_derivative`` called once per image (batch of one), what a per-sample meter costs.

Interleaved (``--rounds`` x ``--repeats`` calls of each path in turn, so a change of the machine's load hits all
alike), medians, after one warm-up call each.  Target: the jvp path at least 10x faster than the loop.  Agreement
with the jvp path: ``max_n |L(x_n) - L_jvp(x_n)| / max_n |L_jvp(x_n)|`` (Euclidean norms over one input's
outputs), the median over inputs of ``|L(x_n) - L_jvp(x_n)| / |L_jvp(x_n)|``, and the relative difference of
the LEEs.  The central difference of a ReLU network is off for the inputs where a ReLU switches within ``+-h`` (a
kink); a smooth network's converges as O(h) only (bicubic resampling is C1, its second derivative jumps at t = 0).

The weights do not change the cost of any path (the same operations on the same shapes), so the model is untrained
by default (``--epochs 0``); ``--epochs N`` trains it first (``lab.meter.cnn.train``, 19 Adam steps an epoch; 100
is the aliasing study's model, about 10 s on a 2-core CPU) for agreement on a model with a meaningful softmax.
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

TARGET = 10.0  # jvp at least this many times faster than the per-sample loop


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _times(paths: dict, repeats: int, rounds: int, device: str) -> dict:
    outs = {}
    for k, f in paths.items():  # warm-up (torch.func's first call, allocator)
        outs[k] = f()
        _sync(device)
    t = {k: [] for k in paths}
    for _ in range(rounds):
        for k, f in paths.items():  # interleaved: a block of repeats each, in turn
            for _ in range(repeats):
                t0 = time.perf_counter()
                f()
                _sync(device)
                t[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in t.items()}, outs, t


def _max_rel(a, b) -> float:
    """``max_n |a_n - b_n| / max_n |b_n|``: the largest difference over inputs relative to the batch's largest Lie
    derivative (norms over each input's outputs).  Not per input: a saturated softmax has inputs with |L| ~ 0, where
    any difference is large relative to that input's own |L| and says nothing about the paths."""
    a, b = a.reshape(a.shape[0], -1).double(), b.reshape(b.shape[0], -1).double()
    top = float(b.norm(dim=1).max())
    return float((a - b).norm(dim=1).max()) / top if top > 0 else float((a - b).norm(dim=1).max())


def _median_rel(a, b) -> float:
    """The median over inputs of ``|a_n - b_n| / |b_n|`` (the typical input's own relative difference)."""
    a, b = a.reshape(a.shape[0], -1).double(), b.reshape(b.shape[0], -1).double()
    nb = b.norm(dim=1)
    keep = nb > 0
    return float(((a - b).norm(dim=1)[keep] / nb[keep]).median()) if bool(keep.any()) else 0.0


def _lee(L) -> float:
    return float(L.reshape(L.shape[0], -1).double().pow(2).mean())


def measure(model: str, data, args) -> dict:
    """One model: the three paths timed (interleaved), their LEEs and their agreement with the jvp path."""
    import torch

    from lab.meter.aliasing import measurable
    from lab.meter.cnn import TrainSettings, build, train
    from lab.equivariance.lie import lie_derivative
    from lab.equivariance.transforms import ImageTransform

    trained = None
    if args.epochs:
        t0, threads = time.perf_counter(), torch.get_num_threads()
        tr = train(model, data, TrainSettings(epochs=args.epochs), device="cpu")
        torch.set_num_threads(threads)  # training fits torch's pool to the machine's load (lab.threads): undone
        net = tr.model
        trained = {"epochs": args.epochs, "steps": tr.steps, "test_accuracy": tr.test_accuracy,
                   "seconds": time.perf_counter() - t0}
    else:
        net = build(model, classes=data.classes)
    f = measurable(net, "probs").to(device=args.device, dtype=getattr(torch, args.dtype))
    x = data.x_train[:args.n].to(device=args.device, dtype=getattr(torch, args.dtype))
    T = ImageTransform(args.transform).at(x.shape[-2:])
    h = args.h

    def jvp_path():
        return lie_derivative(f, x, T, output="invariant", method="forward")

    def fd_path():
        with torch.no_grad():
            return (f(T(x, h)) - f(T(x, -h))) / (2 * h)

    def loop_path():
        return torch.cat([lie_derivative(f, x[i:i + 1], T, output="invariant", method="forward")
                          for i in range(len(x))])

    med, L, raw = _times({"jvp": jvp_path, "fd": fd_path, "loop": loop_path}, args.repeats, args.rounds, args.device)
    L = {k: v.detach() for k, v in L.items()}
    lee = {k: _lee(v) for k, v in L.items()}
    return {"model": model, "trained": trained, "transform": args.transform, "n": args.n, "dtype": args.dtype,
            "device": args.device, "h": h, "torch_threads": torch.get_num_threads(), "repeats": args.repeats,
            "rounds": args.rounds, "jvp_s": med["jvp"], "fd_s": med["fd"], "loop_s": med["loop"],
            "loop_over_jvp": med["loop"] / med["jvp"], "fd_over_jvp": med["fd"] / med["jvp"],
            "target": TARGET, "ok": med["loop"] / med["jvp"] >= TARGET, "lee": lee,
            "lee_rel_diff": {k: abs(lee[k] - lee["jvp"]) / lee["jvp"] for k in ("fd", "loop")},
            "max_rel_diff": {k: _max_rel(L[k], L["jvp"]) for k in ("fd", "loop")},
            "median_rel_diff": {k: _median_rel(L[k], L["jvp"]) for k in ("fd", "loop")},
            "seconds_each_call": raw}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="digits measured (the first N training images)")
    ap.add_argument("--models", default="cnn-stride,cnn-smooth", help="comma list of lab.meter.cnn.MODELS variants")
    ap.add_argument("--transform", default="translate-x", help="a lab.equivariance.transforms.TRANSFORMS flow")
    ap.add_argument("--epochs", type=int, default=0, help="train each CNN first for this many epochs (0: untrained)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--h", type=float, default=1e-4, help="finite-difference step (pixels for translations)")
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    ap.add_argument("--device", default=None, help="cpu or cuda (default: the lab's choice, lab.device.pick_device)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "meter.json"))
    args = ap.parse_args(argv)
    if args.device is None:
        from lab.device import pick_device

        args.device = str(pick_device("auto"))
    from lab.data.digits import digits_data

    data = digits_data(0)
    if not 1 <= args.n <= len(data.x_train):
        ap.error(f"--n {args.n}: choose 1 to {len(data.x_train)} (the split's training digits)")
    names = {"jvp": "jvp (batched forward mode)", "fd": f"central finite difference, h={args.h:g}",
             "loop": "per-sample loop of jvp calls"}
    rows = []
    for model in args.models.split(","):
        row = measure(model.strip(), data, args)
        rows.append(row)
        tr = row["trained"]
        made = (f"trained {tr['epochs']} epochs, test accuracy {tr['test_accuracy']:.3f}" if tr
                else "untrained: the weights change no path's cost")
        print(f"\n{row['model']} ({made}) + softmax under {row['transform']} on {row['n']} digits, {row['dtype']}, "
              f"{row['device']}, torch threads {row['torch_threads']} (medians of {row['rounds']} x "
              f"{row['repeats']}, interleaved)")
        print(f"  {'path':<38} {'seconds':>9} {'/ jvp':>7} {'LEE':>11} {'max rel diff':>13} {'median':>9}")
        for k in ("jvp", "fd", "loop"):
            mx = "-" if k == "jvp" else f"{row['max_rel_diff'][k]:.2e}"
            md = "-" if k == "jvp" else f"{row['median_rel_diff'][k]:.1e}"
            print(f"  {names[k]:<38} {row[k + '_s']:9.4f} {row[k + '_s'] / row['jvp_s']:7.2f} {row['lee'][k]:11.4e} "
                  f"{mx:>13} {md:>9}")
        print(f"  target loop / jvp >= {TARGET:g}: {row['loop_over_jvp']:.1f}x, {'met' if row['ok'] else 'NOT met'}",
              flush=True)
    print("max rel diff: max_n |L(x_n) - L_jvp(x_n)| / max_n |L_jvp(x_n)|; median: of |L(x_n) - L_jvp(x_n)| / "
          "|L_jvp(x_n)| over inputs. A ReLU network's central difference is off where a ReLU switches within +-h "
          "(a kink); a smooth one's converges as O(h) (bicubic is only C1)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
