"""Benchmark: an RPP-EMLP training step against EMLP and the MLP, in the same run (issue 28).

    python bench/rpp.py [--repeats 7] [--rounds 3] [--batch 500] [--channels 384] [--layers 3]
                        [--device cpu|cuda] [--out bench/results/rpp.json]

At the thesis's size (3 layers, 384 channels, batch 500) for O(5) ``2*V -> Scalar`` and O(3) inertia
``5*Scalar+5*V -> T(2)``: the seconds of one Adam step (forward, backward, update) of ``lab.nn.RPPEMLP``,
``lab.nn.EMLP`` and ``lab.nn.MLP``, interleaved (a change of the machine's load hits all alike), medians over
``--rounds`` x ``--repeats`` after warm-up steps.  The RPP step trains the thesis's objective (summed Gaussian NLL
plus the prior's penalty, whose gradient ``Prior.add_grad`` adds in place); "RPP net" is the same network on the
mean squared error alone, the penalty's cost apart.  An RPP-EMLP is an EMLP plus one dense matmul per layer and an
entrywise Swish, so the target is: RPP step <= EMLP step + MLP step.  From ``lab.rpp.nn.FUSE_ROWS`` batch rows on
(batch 500 here) each RPP layer forms W = W_eq + W_free and applies it in one dense matmul: about the MLP's matmul,
in place of the EMLP's structured products plus the free pathway's matmul.
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

CASES = [  # (name, group, rep in, rep out): bench/emlp.py's
    ("O(5) 2V -> T0", "O(5)", "2*V", "Scalar"),
    ("O(3) inertia 5T0+5T1 -> T2", "O(3)", "5*Scalar+5*V", "T(2)"),
]


def _stepper(model, x, y, prior=None):
    """One Adam step (forward, backward, update) as a function; ``prior``: the thesis's objective (the summed
    Gaussian negative log-likelihood plus the prior's penalty), else the mean squared error."""
    import torch

    opt = torch.optim.Adam(model.parameters(), lr=3e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        if prior is None:
            (model(x) - y).abs().pow(2).mean().backward()
        else:  # the summed NLL, then the penalty's gradient added in place (Prior.add_grad: the step of Prior.loss)
            (0.5 * (model(x) - y).pow(2).sum()).backward()
            prior.add_grad(model)
        opt.step()
        if x.is_cuda:
            torch.cuda.synchronize()

    return step


def _times(steps: dict, repeats: int, rounds: int, warmup: int = 3) -> dict:
    for step in steps.values():
        for _ in range(warmup):
            step()
    out = {k: [] for k in steps}
    for _ in range(rounds):
        for k, step in steps.items():  # interleaved: a block of repeats each, in turn
            for _ in range(repeats):
                t = time.perf_counter()
                step()
                out[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in out.items()}


def case(group_text, rep_in, rep_out, args) -> dict:
    import torch

    from lab.groups import parse_group
    from lab.nn import EMLP, MLP
    from lab.rpp.nn import RPPEMLP, Prior

    G = parse_group(group_text)
    torch.manual_seed(0)
    kw = dict(channels=args.channels, layers=args.layers)
    rpp = RPPEMLP(rep_in, rep_out, G, **kw).to(args.device)
    rpp_net = RPPEMLP(rep_in, rep_out, G, **kw).to(args.device)
    emlp = EMLP(rep_in, rep_out, G, **kw).to(args.device)
    mlp = MLP(rep_in, rep_out, G, **kw).to(args.device)
    x = torch.randn(args.batch, emlp.rep_in.size, device=args.device)
    y = torch.randn(args.batch, emlp.rep_out.size, device=args.device)
    prior = Prior(rpp.prior_equivariant, rpp.prior_free)
    med = _times({"rpp": _stepper(rpp, x, y, prior=prior), "rpp_net": _stepper(rpp_net, x, y),
                  "emlp": _stepper(emlp, x, y), "mlp": _stepper(mlp, x, y)}, args.repeats, args.rounds)
    budget = med["emlp"] + med["mlp"]
    return {"rpp_step_s": med["rpp"], "rpp_net_step_s": med["rpp_net"], "emlp_step_s": med["emlp"],
            "mlp_step_s": med["mlp"], "target_s": budget, "rpp_over_target": med["rpp"] / budget,
            "ok": med["rpp"] <= budget,
            "hidden": str(emlp.hidden[0]), "rpp_params": sum(p.numel() for p in rpp.parameters()),
            "emlp_params": sum(p.numel() for p in emlp.parameters()),
            "mlp_params": sum(p.numel() for p in mlp.parameters())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--channels", type=int, default=384)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--device", default=None, help="cpu or cuda (default: the lab's choice, lab.device.pick_device)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "rpp.json"))
    args = ap.parse_args(argv)
    if args.device is None:
        from lab.device import pick_device

        args.device = str(pick_device("auto"))
    import torch

    rows = []
    print(f"one Adam step, batch {args.batch}, {args.layers} layers x {args.channels} channels, {args.device}, "
          f"torch threads {torch.get_num_threads()} (medians of {args.rounds} x {args.repeats})")
    print(f"{'case':<28} {'RPP ms':>7} {'RPP net ms':>10} {'EMLP ms':>8} {'MLP ms':>7} {'EMLP+MLP':>9} "
          f"{'RPP/target':>10}  target")
    for name, group, rep_in, rep_out in CASES:
        row = {"case": name, "group": group, "rep_in": rep_in, "rep_out": rep_out, "device": args.device,
               **case(group, rep_in, rep_out, args)}
        rows.append(row)
        print(f"{name:<28} {1e3 * row['rpp_step_s']:7.1f} {1e3 * row['rpp_net_step_s']:10.1f} "
              f"{1e3 * row['emlp_step_s']:8.1f} {1e3 * row['mlp_step_s']:7.1f} {1e3 * row['target_s']:9.1f} "
              f"{row['rpp_over_target']:10.2f}  {'met' if row['ok'] else 'NOT met'}", flush=True)
    print("target: RPP-EMLP step (the thesis's objective: summed NLL + the prior's penalty) <= EMLP step + MLP step; "
          "RPP net: the same network on the mean squared error alone")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
