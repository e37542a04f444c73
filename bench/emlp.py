"""Benchmark: an EMLP training step against a plain MLP of the same width, and against the EMLP library (issue 27).

    python bench/emlp.py [--emlp /path/to/emlp-venv/bin/python] [--repeats 7] [--batch 500] [--channels 384]
                         [--widths 128,256,384]
                         [--layers 3] [--device cpu|cuda] [--breakdown] [--cuda-graph] [--out bench/results/emlp.json]

At the thesis's size (3 layers, 384 channels, batch 500; appendix A.1.9) for O(5) ``2*V -> Scalar`` and O(3)
inertia ``5*Scalar+5*V -> T(2)``: the seconds of one Adam step (forward, backward, update) of ``lab.nn.EMLP`` and of
a torch MLP of the same width and depth (``lab.nn.MLP``), and of the EMLP as it was before issue 49 (every layer on
its structured path, torch's per-tensor Adam loop: the ``before`` column), interleaved in the same run, medians over
``--repeats`` after warm-up steps; the build time of the EMLP with a warm basis cache (the disk cache filled by a
first build, the in-process one emptied); and, with ``--emlp``, the same step of the EMLP library (objax, its
``EMLP`` and ``Adam``, the step jitted; the compile is not timed) in its own venv (jax/jaxlib 0.4.30, numpy<2,
optax 0.2.3, chex 0.1.86, objax, six; ``TQDM_DISABLE=1``).  Targets: the EMLP step within 2x of the MLP's; a
build under 1 s.
Measured (2 cores, issue 49): the step is 3.5-4x the MLP's for O(5) and 5-8x for inertia, and the ``before`` column
is within the machine's noise of it; ``--breakdown`` shows why: the bilinear layers take 55-65 % of the forward and
backward (their per-sample contractions are batched products of 5 x 5 to 27 x 34 matrices, 0.2-0.7 us each in MKL's
batched kernel whatever their order), the linear layers about a quarter, dense or structured alike.  ``torch.compile``
of the whole EMLP was measured too: a 58 s compile and a step no faster (44.8 against 40.6 ms eager).
``--cuda-graph`` (CUDA only) adds both steps recorded as CUDA graphs and replayed (``lab.nn.GraphedStep``): on a GPU
the eager EMLP step is bound by kernel launches, which a replay removes.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = [  # (name, group, rep in, rep out) -- the EMLP library spells the same reps in its own language
    ("O(5) 2V -> T0", "O(5)", "2*V", "Scalar"),
    ("O(3) inertia 5T0+5T1 -> T2", "O(3)", "5*Scalar+5*V", "T(2)"),
]
EMLP_SPELLING = {"O(5)": ("O(5)", "2*V", "V**0"), "O(3)": ("O(3)", "5*V**0+5*V", "V**2")}
STEP_TARGET = 2.0
BUILD_TARGET = 1.0


def _step_seconds(model, x, y, repeats: int, warmup: int = 3, foreach: bool = True) -> list[float]:
    import torch

    from lab.nn import adam

    opt = adam(model.parameters(), lr=3e-3, foreach=foreach)  # the lab's training loops' Adam

    def step():
        opt.zero_grad(set_to_none=True)
        loss = (model(x) - y).abs().pow(2).mean()
        loss.backward()
        opt.step()
        if x.is_cuda:
            torch.cuda.synchronize()

    for _ in range(warmup):
        step()
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        step()
        out.append(time.perf_counter() - t)
    return out


def _breakdown(emlp, mlp, x, y, repeats: int) -> dict:
    """Milliseconds of forward + backward per kind of module, summed over the blocks (each module timed alone on the
    activations it sees in the network, interleaved with the others and the whole networks), the Adam update, and
    the forward + backward of both networks at the batch and at batch 1 (what does not grow with the batch: op
    overheads)."""
    import torch

    def fb(module, inp, grad_in: bool):
        inp = inp.detach().requires_grad_(grad_in)
        g = torch.randn_like(module(inp))
        return lambda: module(inp).backward(g)

    fns, h = {}, x
    for k, block in enumerate(emlp.network[:-1]):
        lin = block.linear(h).detach()
        fns[f"linear {k}"] = fb(block.linear, h, k > 0)
        fns[f"bilinear {k}"] = fb(block.bilinear, lin, True)
        fns[f"gate {k}"] = fb(block.nonlinearity, lin, True)
        h = block(h).detach()
    fns["linear out"] = fb(emlp.network[-1], h, True)
    opt = torch.optim.Adam(emlp.parameters(), lr=0.0)
    for p in emlp.parameters():
        p.grad = torch.zeros_like(p)
    fns["adam"] = opt.step
    for name, model in (("emlp", emlp), ("mlp", mlp)):
        for b in (x.shape[0], 1):
            xb, yb = x[:b], y[:b]
            fns[f"{name} forward+backward batch {b}"] = lambda model=model, xb=xb, yb=yb: \
                (model(xb) - yb).abs().pow(2).mean().backward()
    times = {k: [] for k in fns}
    for f in fns.values():
        f()
    for _ in range(repeats):
        for k, f in fns.items():
            t = time.perf_counter()
            f()
            times[k].append(1e3 * (time.perf_counter() - t))
    med = {k: statistics.median(v) for k, v in times.items()}
    out = {kind: sum(v for k, v in med.items() if k.split()[0] == kind) for kind in ("linear", "bilinear", "gate")}
    return {**out, **{k: v for k, v in med.items() if not k.split()[0] in out}}


def lab_case(group_text, rep_in, rep_out, args) -> dict:
    import torch

    from lab.groups import parse_group
    from lab.nn import EMLP, MLP, EquivariantLinear
    from lab.nn import basis as nn_basis

    G = parse_group(group_text)
    t = time.perf_counter()
    EMLP(rep_in, rep_out, G, channels=args.channels, layers=args.layers)  # fills the disk cache (not timed twice)
    first = time.perf_counter() - t
    nn_basis._solved.cache_clear()  # warm disk cache, cold process cache: what a new session sees
    t = time.perf_counter()
    torch.manual_seed(0)
    emlp = EMLP(rep_in, rep_out, G, channels=args.channels, layers=args.layers).to(args.device)
    build = time.perf_counter() - t
    mlp = MLP(rep_in, rep_out, G, channels=args.channels, layers=args.layers).to(args.device)
    torch.manual_seed(0)
    old = EMLP(rep_in, rep_out, G, channels=args.channels, layers=args.layers).to(args.device)
    for module in old.modules():  # the step before issue 49: every layer structured, torch's per-tensor Adam loop
        if isinstance(module, EquivariantLinear):
            module.path = "structured"
    x = torch.randn(args.batch, emlp.rep_in.size, device=args.device)
    y = torch.randn(args.batch, emlp.rep_out.size, device=args.device)
    e_times, m_times, o_times = [], [], []
    for _ in range(args.rounds):  # interleaved: a change of the machine's load hits all alike
        e_times += _step_seconds(emlp, x, y, args.repeats)
        m_times += _step_seconds(mlp, x, y, args.repeats)
        o_times += _step_seconds(old, x, y, args.repeats, foreach=False)
    e, m, o = statistics.median(e_times), statistics.median(m_times), statistics.median(o_times)
    paths = [module.chosen_path(args.batch) for module in emlp.modules() if isinstance(module, EquivariantLinear)]
    row = {"emlp_step_s": e, "mlp_step_s": m, "ratio": e / m, "before_step_s": o, "before_ratio": o / m,
           "paths": paths, "build_s": build, "first_build_s": first,
           "hidden": str(emlp.hidden[0]), "emlp_params": sum(p.numel() for p in emlp.parameters()),
           "mlp_params": sum(p.numel() for p in mlp.parameters()),
           "ok": e / m <= STEP_TARGET and build < BUILD_TARGET}
    if args.breakdown:
        row["breakdown_ms"] = _breakdown(emlp, mlp, x, y, args.repeats * args.rounds)
    if args.cuda_graph:  # both networks' steps recorded as CUDA graphs (lab.nn.GraphedStep), interleaved
        from lab.nn import GraphedStep

        steps = {k: GraphedStep(net, x, y) for k, net in (("emlp", emlp), ("mlp", mlp))}
        times = {k: [] for k in steps}
        for _ in range(args.rounds):
            for k, step in steps.items():
                times[k] += _replay_seconds(step, x, y, args.repeats)
        ge, gm = statistics.median(times["emlp"]), statistics.median(times["mlp"])
        row.update(emlp_graph_step_s=ge, mlp_graph_step_s=gm, graph_ratio=ge / gm, graph_vs_eager_mlp=ge / m)
    return row


def _replay_seconds(step, x, y, repeats: int, warmup: int = 3) -> list[float]:
    import torch

    for _ in range(warmup):
        step(x, y)
    torch.cuda.synchronize()
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        step(x, y)
        torch.cuda.synchronize()
        out.append(time.perf_counter() - t)
    return out


EMLP_SCRIPT = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import objax
    import jax.numpy as jnp
    from emlp.groups import O
    from emlp.reps import V
    from emlp.nn import EMLP
    group, rep_in, rep_out, channels, layers, batch, repeats = json.loads(sys.argv[1])
    GROUPS = {"O(5)": lambda: O(5), "O(3)": lambda: O(3)}  # the cases' own names: nothing is evaluated
    REPS = {"2*V": lambda: 2 * V, "V**0": lambda: V ** 0, "5*V**0+5*V": lambda: 5 * V ** 0 + 5 * V,
            "V**2": lambda: V ** 2}
    G = GROUPS[group]()
    t = time.perf_counter()
    model = EMLP(REPS[rep_in](), REPS[rep_out](), G, ch=channels, num_layers=layers)
    build = time.perf_counter() - t
    opt = objax.optimizer.Adam(model.vars())
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((batch, model.rep_in.size())), jnp.float32)
    y = jnp.asarray(rng.standard_normal((batch, model.rep_out.size())), jnp.float32)
    loss = lambda x, y: ((model(x) - y) ** 2).mean()
    grad = objax.GradValues(loss, model.vars())
    def step(x, y):
        g, v = grad(x, y)
        opt(3e-3, g)
        return v
    step = objax.Jit(step, grad.vars() + opt.vars())
    t = time.perf_counter()
    step(x, y)[0].block_until_ready()
    compile_s = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        step(x, y)[0].block_until_ready()
        times.append(time.perf_counter() - t)
    print(json.dumps({"step_s": sorted(times)[len(times) // 2], "build_s": build, "compile_s": compile_s}))
""")


def emlp_case(python: str, group_text: str, args) -> dict:
    group, rep_in, rep_out = EMLP_SPELLING[group_text]
    payload = json.dumps([group, rep_in, rep_out, args.channels, args.layers, args.batch, max(3, args.repeats // 2)])
    env = {**os.environ, "TQDM_DISABLE": "1", "JAX_PLATFORMS": "cpu" if args.device == "cpu" else ""}
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(EMLP_SCRIPT)
    try:
        res = subprocess.run([python, f.name, payload], capture_output=True, text=True, env=env,
                             timeout=args.emlp_timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {args.emlp_timeout:g} s"}
    finally:
        os.unlink(f.name)
    if res.returncode != 0:
        return {"error": (res.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--emlp", help="python of a venv with the EMLP library (adds its step as a baseline)")
    ap.add_argument("--emlp-timeout", type=float, default=900)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--channels", type=int, default=384)
    ap.add_argument("--widths", default=None,
                    help="comma list of channel counts: every case at each width, in one run (default: --channels)")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="torch's CPU threads (default: torch's own choice)")
    ap.add_argument("--device", default=None, help="cpu or cuda (default: the lab's choice, lab.device.pick_device)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time each kind of module (forward + backward, summed over the blocks), the Adam "
                         "update, and the forward + backward of both networks at batch 1")
    ap.add_argument("--cuda-graph", action="store_true",
                    help="also time both steps recorded as CUDA graphs and replayed (lab.nn.GraphedStep; CUDA only)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "emlp.json"))
    args = ap.parse_args(argv)
    if args.device is None:
        from lab.device import pick_device

        args.device = str(pick_device("auto"))
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    if args.cuda_graph and not str(args.device).startswith("cuda"):
        ap.error("--cuda-graph needs --device cuda")

    rows = []
    widths = [int(w) for w in args.widths.split(",")] if args.widths else [args.channels]
    print(f"one Adam step, batch {args.batch}, {args.layers} layers x {', '.join(map(str, widths))} channels, "
          f"{args.device}, torch threads {torch.get_num_threads()} (medians of {args.rounds} x {args.repeats})")
    print(f"{'case':<28} {'width':>5} {'EMLP ms':>8} {'MLP ms':>7} {'ratio':>6} {'before':>7} {'build s':>8} "
          f"{'emlp lib ms':>12} {'lib / lab':>9}  hidden rep; layer paths")
    for width, (name, group, rep_in, rep_out) in [(w, case) for w in widths for case in CASES]:
        at = argparse.Namespace(**{**vars(args), "channels": width})  # this width's settings; args stays as given
        row = {"case": name, "channels": width, "group": group, "rep_in": rep_in, "rep_out": rep_out,
               "device": args.device, **lab_case(group, rep_in, rep_out, at)}
        lib = ""
        if args.emlp:
            row["emlp_library"] = emlp_case(args.emlp, group, at)
            e = row["emlp_library"]
            lib = f"{e['error'][:12]:>12} {'':>9}" if "error" in e else \
                f"{1e3 * e['step_s']:12.0f} {e['step_s'] / row['emlp_step_s']:9.1f}"
        rows.append(row)
        print(f"{name:<28} {width:>5} {1e3 * row['emlp_step_s']:8.1f} {1e3 * row['mlp_step_s']:7.1f} "
              f"{row['ratio']:6.2f} {row['before_ratio']:7.2f} {row['build_s']:8.2f} {lib or '':>22}  {row['hidden']}; "
              f"{' '.join(row['paths'])}", flush=True)
        if "emlp_graph_step_s" in row:
            print(f"    CUDA graphs: EMLP {1e3 * row['emlp_graph_step_s']:.2f} ms, MLP {1e3 * row['mlp_graph_step_s']:.2f} "
                  f"ms, ratio {row['graph_ratio']:.2f}; the graphed EMLP step is {row['graph_vs_eager_mlp']:.2f}x the "
                  "eager MLP step", flush=True)
        if "breakdown_ms" in row:
            print("    ms, forward + backward: " + ", ".join(f"{k} {v:.2f}" for k, v in row["breakdown_ms"].items()),
                  flush=True)
    print(f"targets: EMLP step within {STEP_TARGET:g}x of the MLP's; build under {BUILD_TARGET:g} s (warm cache)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
