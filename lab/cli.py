"""The ``lab`` command line (also ``python -m lab``).

    lab basis GROUP REP [--solver auto|orbit|dense|krylov|subgroup] [--device auto|cpu|cuda] [--json]
                        [--png FIGURE.png] [--npz BASIS.npz]
    lab groups
    lab presets
    lab dynamics --experiment perm|trans|rot|custom --runs N --steps S [--strategies nom,aug,equi,...]
                 [--lr LR] [--seed S] [--aug-passes L] [--exact-orbit] [--gamma G] [--device ...] [--out DIR] [--json]

Bad input exits with code 2 and one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys

from .errors import LabError


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage errors: one line, exit code 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lab", description="Symmetry Lab: groups, representations and equivariant bases.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    b = sub.add_parser("basis", help="solve for the equivariant basis of a representation",
                       description="Solve rho(g) v = v for the representation REP of GROUP.")
    b.add_argument("group", metavar="GROUP", help='group text, e.g. "S(5)", "Z(8)*Z(8)", "SO13()"')
    b.add_argument("rep", metavar="REP", help='representation text, e.g. "T(4)", "V >> V", "T(2)+3*V"')
    b.add_argument("--solver", default="auto", choices=["auto", "orbit", "dense", "krylov", "subgroup"])
    b.add_argument("--device", default="auto", help="auto (CUDA when present), cpu or cuda")
    b.add_argument("--memory-limit", default=None, help="refuse solves needing more, e.g. 8GB (default: 80%% of free RAM)")
    b.add_argument("--no-cache", action="store_true", help="do not read or write the on-disk basis cache")
    b.add_argument("--json", action="store_true", help="print one JSON object (rank, dim, solver, seconds, ...)")
    b.add_argument("--png", metavar="FILE", help="write the basis-coloring figure (PNG)")
    b.add_argument("--npz", metavar="FILE", help="write the basis (numpy .npz, see lab.export)")
    sub.add_parser("groups", help="list the groups with their arguments")
    sub.add_parser("presets", help="list the teaching presets as lab basis command lines")
    d = sub.add_parser("dynamics", help="train nominal / augmented / equivariant models and measure drift from E",
                       description="Nordenfors et al.: the same MLP trained several ways from the same equivariant "
                       "start; reports ||A - A0|| and ||Pi_perp A|| (medians over runs, final step).")
    d.add_argument("--experiment", default="perm", choices=["perm", "trans", "rot", "custom"])
    d.add_argument("--runs", type=int, default=5)
    d.add_argument("--steps", type=int, default=None, help="gradient steps (default: the experiment's)")
    d.add_argument("--strategies", default="nom,aug,equi", help="comma list of nom, aug, equi, aug_penalty")
    d.add_argument("--lr", type=float, default=None, help="learning rate (default: the experiment's)")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--aug-passes", type=int, default=None, help="augmentation passes L per step")
    d.add_argument("--exact-orbit", action="store_true", help="average over every group element (small groups)")
    d.add_argument("--gamma", type=float, default=1.0, help="penalty weight of aug_penalty")
    d.add_argument("--device", default="auto", help="auto (CUDA when present), cpu or cuda")
    d.add_argument("--scale", default="small", choices=["small", "paper"], help="experiment size")
    d.add_argument("--group", default=None, help='custom/trans: the group, e.g. "S(6)", "C4Grid(8)"')
    d.add_argument("--rep", default=None, help='custom: the input rep, e.g. "V", "T(2)"')
    d.add_argument("--out", default=None, help="results directory (default: LAB_RESULTS_DIR or the user data dir)")
    d.add_argument("--no-save", action="store_true", help="do not save the run")
    d.add_argument("--json", action="store_true", help="print one JSON object: strategy -> medians")
    s = sub.add_parser("discover", help="learn a parameter-sharing matrix A from data (Yeh et al.)",
                       description="Bi-level learning of vec(W) = A psi; reports the partition distance to the truth.")
    s.add_argument("--task", default="gaussian", choices=["gaussian", "conv", "group", "sum", "msr"])
    s.add_argument("--K", type=int, default=5, help="gaussian: entries")
    s.add_argument("--blocks", type=int, default=3, help="gaussian: true blocks")
    s.add_argument("--samples", type=int, default=100, help="gaussian: |D|")
    s.add_argument("--split", type=float, default=0.3, help="gaussian: training fraction r")
    s.add_argument("--sigma", type=float, default=1.0, help="gaussian: noise level")
    s.add_argument("--group", default="Z(4)", help="group task: a permutation group")
    s.add_argument("--rep-in", default="V", help="group task: input rep")
    s.add_argument("--rep-out", default="V", help="group task: output rep")
    s.add_argument("--positions", type=int, default=5, help="sum task: sequence positions")
    s.add_argument("--rank", type=int, default=1, help="msr: rank of the filter basis (1 = convolution)")
    s.add_argument("--kernel", type=int, default=3, help="msr: filter size")
    s.add_argument("--tasks", type=int, default=100, help="msr: number of meta-training tasks")
    s.add_argument("--sparsity", default="exclusive", choices=["none", "exclusive", "group"], help="msr: prox")
    s.add_argument("--lam", type=float, default=1e-3, help="msr: sparsity weight")
    s.add_argument("--steps", type=int, default=None, help="outer steps (default: the task's)")
    s.add_argument("--lr", type=float, default=None)
    s.add_argument("--entropy", type=float, default=1e-2, help="weight of the entropy penalty H(A)")
    s.add_argument("--nuclear", type=float, default=1e-2, help="weight of the nuclear norm of A")
    s.add_argument("--restarts", type=int, default=None, help="random restarts (default: 3, group task 8)")
    s.add_argument("--trials", type=int, default=1)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", action="store_true", help="print one JSON object (partition_distance, mse_gap, ...)")
    return p


def _basis(args) -> int:
    from .device import pick_device
    from .groups import parse_group
    from .reps import parse_rep

    group = parse_group(args.group)
    rep = parse_rep(args.rep, group)
    device = pick_device(args.device)
    sol = rep.solve(solver=args.solver, device=str(device), memory_limit=args.memory_limit, cache=not args.no_cache)
    info = sol.summary()
    info["device"] = str(device)
    if args.png or args.npz:
        _export(sol, args.png, args.npz)
    if args.json:
        print(json.dumps(info))
    else:
        print(f"group    {info['group']}")
        print(f"rep      {info['rep']}")
        print(f"rank     {info['rank']}")
        print(f"dim      {info['dim']}")
        print(f"ratio    {info['rank'] / max(info['dim'], 1):.3g}")
        print(f"solver   {info['solver']}{' (cached)' if info['cached'] else ''}")
        print(f"seconds  {info['seconds']:.3f}")
    return 0


def _export(sol, png: str | None, npz: str | None) -> None:
    from .export import save_basis
    from .plots.coloring import coloring_from_solution
    from .plots.coloring_mpl import coloring_png

    try:
        if png:
            data = coloring_from_solution(sol)
            with open(png, "wb") as f:
                f.write(coloring_png(data))
        if npz:
            with open(npz, "wb") as f:
                save_basis(sol, f)
    except OSError as err:
        raise LabError(f"cannot write {err.filename}: {err.strerror}") from err


def _dynamics(args) -> int:
    from .dynamics import DynamicsConfig, Trainer
    from .dynamics.store import save_run

    options = {"group": args.group, "rep": args.rep}
    if args.experiment != "custom" and args.rep:
        raise LabError("--rep applies to --experiment custom only")
    if args.experiment in ("perm", "rot") and args.group:
        raise LabError(f"--group applies to --experiment custom or trans, not {args.experiment}")
    config = DynamicsConfig(
        experiment=args.experiment, scale=args.scale, runs=args.runs, steps=args.steps,
        strategies=tuple(s.strip() for s in args.strategies.split(",") if s.strip()), lr=args.lr, seed=args.seed,
        aug_passes=args.aug_passes, exact_orbit=args.exact_orbit, gamma=args.gamma, device=args.device,
        options={k: v for k, v in options.items() if v is not None})
    trainer = Trainer(config)

    def report(tr, _records):
        if not args.json:
            print(f"\rstep {tr.step}/{tr.config.steps}  {tr.steps_per_second:.2f} steps/s", end="", file=sys.stderr,
                  flush=True)

    trainer.run(on_step=report)
    if not args.json:
        print(file=sys.stderr)
    summary = trainer.summary()
    if not args.no_save:
        try:
            path = save_run(trainer, args.out)
        except OSError as err:
            raise LabError(f"cannot save the run under {args.out or 'the results directory'}: {err}") from err
        if not args.json:
            print(f"saved {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{'strategy':<12} {'||A-A0||':>10} {'||Pi_perp A||':>14} {'loss':>8} {'accuracy':>9}")
        for s, v in summary.items():
            print(f"{s:<12} {v['dist_from_init']:>10.4g} {v['dist_from_E']:>14.4g} {v['loss']:>8.4f} "
                  f"{v['accuracy']:>9.3f}")
    return 0


def _discover(args) -> int:
    import numpy as np

    from .sharing.bilevel import learn_sharing
    from .sharing.tasks import GaussianTask, conv_task, group_task, sum_task

    if args.trials < 1 or (args.restarts is not None and args.restarts < 1):
        raise LabError("--trials and --restarts must be at least 1")
    if args.task == "msr":
        return _discover_msr(args)
    results = []
    for t in range(args.trials):
        seed = args.seed + t
        if args.task == "gaussian":
            task = GaussianTask(K=args.K, blocks=args.blocks, samples=args.samples, split=args.split,
                                sigma=args.sigma, seed=seed)
        elif args.task == "conv":
            task = conv_task(seed=seed)
        elif args.task == "group":
            task = group_task(args.group, args.rep_in, args.rep_out, seed=seed)
        else:
            task = sum_task(positions=args.positions, seed=seed)
        results.append(learn_sharing(task, steps=args.steps, lr=args.lr, entropy=args.entropy,
                                     nuclear=args.nuclear, restarts=args.restarts, seed=seed))
    out = {"task": args.task, "trials": args.trials,
           "partition_distance": float(np.mean([r.partition_distance for r in results])),
           "steps_per_second": float(np.mean([r.steps_per_second for r in results]))}
    if results[0].mse_gap is not None:
        out["mse_gap"] = float(np.mean([r.mse_gap for r in results]))
        out["gap_bound"] = task.gap_bound()
    if results[0].test_loss is not None:
        out["test_loss"] = float(np.mean([r.test_loss for r in results]))
        out["gt_test_loss"] = float(np.mean([r.gt_test_loss for r in results]))
    if len(results) == 1:
        out["labels"] = results[0].labels.tolist()
        out["ground_truth"] = task.gt.tolist()
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:<20} {v}")
    return 0


def _discover_msr(args) -> int:
    import numpy as np

    from .sharing.msr import LocallyConnected, meta_learn

    family = LocallyConnected(kernel=args.kernel, rank=args.rank, seed=args.seed)
    kw = dict(tasks=args.tasks, steps=args.steps or 600, seed=args.seed)
    losses, base, fc = [], [], []
    for t in range(args.trials):
        kw["seed"] = args.seed + t
        losses.append(meta_learn(family, sparsity=args.sparsity, lam=args.lam, **kw).test_loss)
        base.append(meta_learn(family, sparsity="none", **kw).test_loss)
        fc.append(meta_learn(family, model="fc", **kw).test_loss)
    out = {"task": "msr", "trials": args.trials, "partition_distance": None,
           "test_loss": float(np.mean(losses)), "test_loss_without_sparsity": float(np.mean(base)),
           "test_loss_fully_connected": float(np.mean(fc)), "sparsity": args.sparsity, "rank": args.rank,
           "kernel": args.kernel, "tasks": args.tasks}
    print(json.dumps(out) if args.json else "\n".join(f"{k:<28} {v}" for k, v in out.items()))
    return 0


def _presets() -> int:
    from .presets import PRESETS

    for p in PRESETS.values():
        print(f"{p.name}:\n  lab basis '{p.group_text()}' '{p.rep_in} >> {p.rep_out}'\n  {p.blurb}")
    return 0


def _groups() -> int:
    from .groups import group_catalog

    rows = group_catalog()
    width = max(len(sig) for sig, _ in rows)
    for sig, desc in rows:
        print(f"{sig:<{width}}  {desc}")
    print(f"{'G1*G2':<{width}}  direct product, e.g. Z(8)*Z(8) (2-D translations of an 8x8 grid)")
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "basis":
            return _basis(args)
        if args.command == "presets":
            return _presets()
        if args.command == "dynamics":
            return _dynamics(args)
        if args.command == "discover":
            return _discover(args)
        return _groups()
    except LabError as err:
        print(f"lab: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
