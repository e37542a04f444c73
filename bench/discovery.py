"""Benchmark: symmetry discovery (issue 33), in one run.

    python bench/discovery.py [--out bench/results/discovery.json]

1. **Seconds to learn the generators** of each task at ``lab discover-lie``'s fast defaults (``DiscoveryConfig()``
   with the task; k = 12 for O(5), 16 for inertia, 8 for Lorentz), split into fitting the MLP, building the symmetry
   form (the Jacobians), and the gradient and spectral methods; with what was found (kept / true, largest angle).
2. **The solve with learned against exact generators** -- V >> V over the learned group at its tolerance
   (``tolerant_basis``) against the same solve with the true algebra's generators, and the engine's own exact solve of
   the task's maps over the true group where one exists, the same run; medians of 5.

Measured on this shared 2-core CPU (one torch thread, the machine otherwise idle), L-BFGS fits and
generators (searched among the quotient's representatives, as the family does); the plane, none, inertia and Lorentz
at the defaults (4 000 samples, a 64-wide MLP, 800 fitting iterations, 500 x 2 restarts: too small a fit for inertia
and Lorentz, which ``lab reproduce --full`` recovers at 16 000), O(5) at the claim's quick settings (3 000 samples, width 96, 1 500 iterations): see
the closing note of the session that wrote it (results in ``bench/results/discovery.json``).
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

K = {"o5": 12, "inertia": 16, "lorentz": 8, "rotated-plane": 4, "none": 4}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "discovery.json"))
    args = ap.parse_args(argv)
    import numpy as np
    import torch

    from lab.discovery import algebra, learn
    from lab.discovery.tasks import TASKS, get_task
    from lab.discovery.family import DiscoveryConfig
    from lab.discovery.claims import QUICK

    torch.set_num_threads(1)
    rows = []
    for name in TASKS:
        # O(5) at the claim's quick settings (the family's defaults are the plane's); the closure refinement is
        # left out here (timed separately below)
        extra = {k: v for k, v in QUICK.get(name, {}).items() if k != "closure"}
        cfg = DiscoveryConfig(task=name, **{"generators": K[name], **extra}).validate()
        task = get_task(name)
        oa = cfg.output_action()
        X, Y = task.make(cfg.samples, 0)
        t0 = time.perf_counter()
        model, _, _ = learn.fit(X, Y, learn.FitSettings(hidden=cfg.hidden, steps=cfg.fit_steps))
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        C, D = learn.symmetry_form(model, X[:2000], oa)
        t_form = time.perf_counter() - t0
        P = learn.output_range(Y) if oa else None
        Q = learn.quotient_basis(task.d_in, task.d_out, P) if P is not None else np.eye(len(C))
        Cs, Ds = Q.T @ C @ Q, Q.T @ D @ Q
        t0 = time.perf_counter()
        g = learn.learn_gradient(Cs, Ds, cfg.generators, steps=cfg.steps, restarts=cfg.restarts)
        t_grad = time.perf_counter() - t0
        t0 = time.perf_counter()
        learn.learn_spectral(Cs, Ds, cfg.generators)
        t_spec = time.perf_counter() - t0
        g.vectors = g.vectors @ Q.T
        truth = learn.quotient(learn.truth_vectors(task.truth(), oa), task.d_in, task.d_out, P)

        def angle_of(V):
            return float(np.degrees(algebra.principal_angles(learn.quotient(V, task.d_in, task.d_out, P),
                                                             truth).max()))

        angle = angle_of(g.vectors[:g.kept]) if g.kept and len(truth) else None
        row = {"task": name, "fit_s": t_fit, "form_s": t_form, "gradient_s": t_grad, "spectral_s": t_spec,
               "kept": g.kept, "true_dimension": len(truth), "max_angle": angle}
        if g.kept >= 2:
            t0 = time.perf_counter()
            refined = learn.refine_closure(C, D, g.vectors[:g.kept], task.d_in, task.d_out, oa, 0.1)
            row["closure_s"] = time.perf_counter() - t0
            if len(truth):
                row["closed_angle"] = angle_of(refined)
        if g.kept and len(truth):
            A = [learn.split(v, task.d_in, task.d_out, oa)[0] for v in g.vectors[:g.kept]]
            _, vl, _ = algebra.learned_group(A, None, tol=cfg.tol)
            _, vt, _ = algebra.learned_group([a for a, _ in task.truth()], None, tol=1e-8)
            times = {"learned": [], "exact": []}
            for _ in range(5):
                for key, rep, tol in (("learned", vl, cfg.tol), ("exact", vt, 1e-8)):
                    t0 = time.perf_counter()
                    algebra.tolerant_basis(rep >> rep, tol)
                    times[key].append(time.perf_counter() - t0)
            row |= {f"solve_{k}_s": statistics.median(v) for k, v in times.items()}
        print(json.dumps(row), flush=True)
        rows.append(row)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1))
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
