"""Benchmark: time a fixed list of equivariant-basis solves, each solver against baselines measured in
the same run.

    python bench/basis.py [--emlp /path/to/emlp-venv/bin/python] [--quick] [--out bench/results/basis.json]
    python bench/basis.py --methods [--out bench/results/basis_methods.json]   # the auto-solver table

``--methods``: for each row of ``METHOD_CASES`` every applicable lab method is timed (methods the cost model
projects above ``--skip-above`` seconds or 4 GB are skipped and marked), then ``auto``; the row passes when
auto is within 2x of the best method timed.  Writes a JSON file and a markdown table next to it.

Columns: ``auto`` (the lab's choice), each other applicable lab solver, ``dense-SVD`` (the baseline:
``scipy.linalg.null_space`` of the full stacked constraint matrix, no block splitting, no orbits; skipped
with the memory it would need when that is over 4 GB), and ``emlp`` (the published EMLP package in its
own venv, optional, killed after ``--emlp-timeout`` seconds).  Times are wall seconds of a cold solve
(caches off), the first run of each solver included.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LAB_CACHE_DIR", "off")

from lab import parse_group, parse_rep  # noqa: E402
from lab.solvers import cache  # noqa: E402

CASES = [  # (group, rep, target seconds from the issue or None, solvers to try besides auto)
    ("S(5)", "T(4)", None, ["dense", "krylov"]),
    ("S(5)", "T(5)", 0.5, ["krylov"]),
    ("S(5)", "T(7)", 0.5, []),
    ("RubiksCube()", "T(2)", None, ["krylov"]),
    ("RubiksCube()", "T(3)", 2.0, []),
    ("RubiksCube()", "T(4)", 30.0, []),
    ("SO(3)", "T(6)", 1.0, ["krylov"]),
    ("O13()", "T(4)", 1.0, ["krylov"]),
    ("SO(4)", "T(8)", None, []),
]
QUICK = [c for c in CASES if c[1] not in ("T(4)",) or c[0] == "S(5)"][:5]
BASELINE_LIMIT = 4 * 2**30

METHOD_CASES = [  # finite groups, then continuous ones; small and large T(k)
    ("S(5)", "T(3)"), ("S(5)", "T(6)"), ("Z(5)*Z(5)", "T(2)"), ("Z(5)*Z(5)", "T(3)"), ("C4Grid(6)", "T(2)"),
    ("D(4)", "T(6)"), ("D(4)", "T(14)"), ("C(5)", "T(6)"),
    ("SO(3)", "T(4)"), ("SO(3)", "T(6)"), ("SO(3)", "T(7)"), ("SO(3)", "T(9)"), ("O(3)", "T(5)"), ("O(3)", "T(8)"),
    ("SO13()", "T(3)"), ("SO13()", "T(5)"), ("Sp(2)", "T(3)"), ("Sp(2)", "T(5)"), ("U(2)", "T(6)"),
    ("SU(2)", "T(8)"), ("U(2)", "T(10)"),
]

EMLP_SCRIPT = r"""
import json, os, re, sys, time
os.environ.setdefault("TQDM_DISABLE", "1")
import emlp.groups as groups
from emlp.reps import T
name, args = re.fullmatch(r"(\w+)\(([\d, ]*)\)", sys.argv[1]).groups()
G = getattr(groups, name)(*[int(a) for a in args.split(",") if a.strip()])
rep = T(int(re.fullmatch(r"T\((\d+)\)", sys.argv[2]).group(1)))(G)
t = time.perf_counter()
Q = rep.equivariant_basis()
print(json.dumps({"seconds": time.perf_counter() - t, "rank": int(Q.shape[-1])}))
"""
EMLP_NAMES = {"O13()": "O13()", "SO13p()": "SO13p()", "RubiksCube()": "RubiksCube()"}


def timed_lab(group, text, solver):
    cache.clear_memory()
    rep = parse_rep(text, parse_group(group))
    t = time.perf_counter()
    sol = rep.solve(solver=solver, cache=False)
    return time.perf_counter() - t, sol.rank, sol.solver


def stacked_constraints(group, text):
    G = parse_group(group)
    rep = parse_rep(text, G)
    m = rep.size
    rows = (G.num_discrete + G.num_lie) * m
    need = rows * m * 8 * 3
    if need > BASELINE_LIMIT:
        return None, need
    C = [rep.rho(h) - np.eye(m) for h in G.discrete] + [rep.drho(A) for A in G.lie]
    return np.vstack(C), need


def timed_baseline(group, text):
    t = time.perf_counter()
    C, need = stacked_constraints(group, text)
    if C is None:
        return None, f"skipped (needs {need / 2**30:.0f} GB)"
    try:  # gesvd: the divide-and-conquer driver fails to converge on some of these stacks
        s, vh = scipy.linalg.svd(C, full_matrices=False, lapack_driver="gesvd")[1:]
    except np.linalg.LinAlgError:
        return None, "SVD failed"
    rank = int(np.sum(s <= 1e-7 * max(s[0], 1.0))) + max(0, C.shape[1] - len(s))
    return time.perf_counter() - t, rank


def timed_emlp(python, group, text, timeout):
    try:
        res = subprocess.run([python, "-c", EMLP_SCRIPT, EMLP_NAMES.get(group, group), text],
                             capture_output=True, text=True, timeout=timeout,
                             env={**os.environ, "TQDM_DISABLE": "1"})
    except subprocess.TimeoutExpired:
        return None, f"> {timeout:.0f} s (killed)"
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["failed"])[-1]
        return None, f"failed: {last[:60]}"
    info = json.loads(res.stdout.strip().splitlines()[-1])
    return info["seconds"], info["rank"]


def _timed_min(group, text, solver, budget=1.0, repeats=3):
    """Cold solves (caches off); small ones repeated up to ``repeats`` times within ``budget`` s, the minimum."""
    best, rank, used = None, None, None
    spent = 0.0
    for _ in range(repeats):
        t, rank, used = timed_lab(group, text, solver)
        best = t if best is None else min(best, t)
        spent += t
        if spent > budget:
            break
    return best, rank, used


def methods_table(out, skip_above):
    import lab.solvers as S
    from lab.solvers import cost

    timed_lab("SO(3)", "T(4)", "dense"), timed_lab("SO(3)", "T(3)", "krylov"), timed_lab("S(3)", "T(3)", "orbit")
    rows, lines = [], []
    head = "| group | rep | dim | rank | " + " | ".join(S.SOLVERS[1:]) + " | auto (choice) | best | auto/best | ok |"
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    print(head, flush=True)
    for group, text in METHOD_CASES:
        G = parse_group(group)
        rep = parse_rep(text, G)
        block = rep.blocks[0]
        factors = S._canonical_factors(block.factors)
        costs = {c.method: c for c in cost.costs(G, factors, block.size, S._applicable(G, factors))}
        row = {"group": group, "rep": text, "dim": rep.size, "methods": {}, "projected": {}}
        cells, rank = [], None
        for name in S.SOLVERS[1:]:
            c = costs.get(name)
            if c is None:
                cells.append("n/a")
                continue
            row["projected"][name] = c.seconds
            if c.seconds > skip_above or c.bytes > BASELINE_LIMIT:
                why = f"~{c.seconds:.0f} s" if c.seconds > skip_above else f"~{c.bytes / 2**30:.0f} GB"
                cells.append(f"skipped ({why})")
                continue
            t, r, _ = _timed_min(group, text, name)
            rank = r if rank is None else rank
            row["methods"][name] = t
            cells.append(f"{t:.3f}" + ("" if r == rank else f" (rank {r}!)"))
        t_auto, r_auto, used = _timed_min(group, text, "auto")
        best_name = min(row["methods"], key=row["methods"].get)
        best = row["methods"][best_name]
        ratio = t_auto / best
        ok = ratio <= 2.0 or t_auto - best < 0.01  # a few ms of noise on a shared machine is not a miss
        row.update(rank=r_auto, auto=t_auto, auto_solver=used, best=best_name, best_seconds=best,
                   auto_over_best=ratio, ok=ok)
        line = (f"| {group} | {text} | {rep.size} | {r_auto} | " + " | ".join(cells)
                + f" | {t_auto:.3f} ({used}) | {best_name} | {ratio:.2f} | {'ok' if ok else 'MISSED'} |")
        lines.append(line)
        print(line, flush=True)
        rows.append(row)
    verdict = all(r["ok"] for r in rows)
    summary = (f"auto within 2x of the best method on every row: {'yes' if verdict else 'NO'} "
               f"({sum(r['ok'] for r in rows)}/{len(rows)})")
    print(summary)
    lines += ["", summary]
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(rows, indent=1))
    Path(out).with_suffix(".md").write_text("\n".join(lines) + "\n")
    return verdict


def fmt(t):
    return "-" if t is None else f"{t:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emlp", help="python of a venv with emlp installed (adds the emlp baseline)")
    ap.add_argument("--emlp-timeout", type=float, default=300)
    ap.add_argument("--quick", action="store_true", help="only the small cases")
    ap.add_argument("--out", default=None, help="default bench/results/basis.json (basis_methods.json with --methods)")
    ap.add_argument("--methods", action="store_true", help="time every applicable method and auto on METHOD_CASES")
    ap.add_argument("--skip-above", type=float, default=20.0, help="--methods: skip methods projected above this")
    args = ap.parse_args()
    if args.methods:
        ok = methods_table(args.out or "bench/results/basis_methods.json", args.skip_above)
        sys.exit(0 if ok else 1)
    args.out = args.out or "bench/results/basis.json"
    rows = []
    header = f"{'group':<14}{'rep':<7}{'dim':>9}{'rank':>6}  {'auto':>16}  {'other lab solvers':<26}{'dense-SVD':>22}{'emlp':>22}  target"
    print(header)
    print("-" * len(header))
    for group, text, target, others in (QUICK if args.quick else CASES):
        dim = parse_rep(text, parse_group(group)).size
        t_auto, rank, solver_used = timed_lab(group, text, "auto")
        row = {"group": group, "rep": text, "dim": dim, "rank": rank, "auto": t_auto, "auto_solver": solver_used,
               "target": target}
        other_txt = []
        for s in others:
            t, r, _ = timed_lab(group, text, s)
            row[s] = t
            other_txt.append(f"{s} {t:.3f}" + ("" if r == rank else f" (rank {r}!)"))
        t_base, base_info = timed_baseline(group, text)
        row["dense_svd"] = t_base
        base_txt = base_info if t_base is None else f"{t_base:.3f} (x{t_base / t_auto:.0f})"
        if t_base is not None and base_info != rank:
            base_txt += f" rank {base_info}!"
        emlp_txt = ""
        if args.emlp:
            t_e, e_info = timed_emlp(args.emlp, group, text, args.emlp_timeout)
            row["emlp"] = t_e
            emlp_txt = e_info if t_e is None else f"{t_e:.3f} (x{t_e / t_auto:.0f})"
            if t_e is not None and e_info != rank:
                emlp_txt += f" rank {e_info}!"
        ok = "" if target is None else ("ok" if t_auto < target else "MISSED") + f" < {target} s"
        print(f"{group:<14}{text:<7}{dim:>9}{rank:>6}  {t_auto:>9.3f} {solver_used:<6}  {', '.join(other_txt):<26}"
              f"{base_txt:>22}{emlp_txt:>22}  {ok}", flush=True)
        rows.append(row)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
