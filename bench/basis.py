"""Benchmark: time a fixed list of equivariant-basis solves, each solver against baselines measured in
the same run.

    python bench/basis.py [--emlp /path/to/emlp-venv/bin/python] [--quick] [--out bench/results/basis.json]

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


def fmt(t):
    return "-" if t is None else f"{t:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emlp", help="python of a venv with emlp installed (adds the emlp baseline)")
    ap.add_argument("--emlp-timeout", type=float, default=300)
    ap.add_argument("--quick", action="store_true", help="only the small cases")
    ap.add_argument("--out", default="bench/results/basis.json")
    args = ap.parse_args()
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
