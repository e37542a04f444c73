"""Benchmark: symmetry discovery (issue 33), in one run.

    python bench/discovery.py [--out bench/results/discovery.json]

1. **Seconds to learn the generators** of each task at ``lab discover-lie``'s fast defaults (``DiscoveryConfig()``
   with the task; k = 12 for O(5), 6 for inertia, 8 for Lorentz), split into fitting the MLP, building the symmetry
   form (the Jacobians), and the gradient and spectral methods; with what was found (kept / true, largest angle).
2. **The solve with learned against exact generators** -- V >> V over the learned group at its tolerance
   (``tolerant_basis``) against the same solve with the true algebra's generators, and the engine's own exact solve of
   the task's maps over the true group where one exists, the same run; medians of 5.

Measured on this shared 2-core CPU (one torch thread, two helpers running beside it), at the defaults (1 000 samples,
a 64-wide MLP fitted 800 steps, 600 Adam steps x 2 restarts):

    task           fit     form    gradient  spectral  kept/true  angle    solve learned / exact
    o5             1.39 s  0.008 s  0.50 s   0.0009 s  12/10      84.7     0.034 / 0.022 s
    inertia        0.63 s  0.12 s   1.17 s   0.024 s    0/3       --       --
    lorentz        0.60 s  0.007 s  0.65 s   0.005 s    8/6       88.9     0.33 / 0.12 s
    rotated-plane  0.57 s  0.004 s  0.41 s   0.0001 s   1/1       2.4      0.00015 / 0.00014 s
    none           0.58 s  0.004 s  0.42 s   0.0001 s   0/0       --       --

Only the plane and the no-symmetry task are right at these settings (see ``lab.discovery.learn``).
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

K = {"o5": 12, "inertia": 6, "lorentz": 8, "rotated-plane": 4, "none": 4}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "discovery.json"))
    args = ap.parse_args(argv)
    import numpy as np
    import torch

    from lab.discovery import algebra, learn
    from lab.discovery.tasks import TASKS, get_task
    from lab.experiments.discovery import DiscoveryConfig

    torch.set_num_threads(1)
    rows = []
    for name in TASKS:
        cfg = DiscoveryConfig(task=name, generators=K[name]).validate()
        task = get_task(name)
        oa = cfg.output_action()
        X, Y = task.make(cfg.samples, 0)
        t0 = time.perf_counter()
        model, _, _ = learn.fit(X, Y, learn.FitSettings(hidden=cfg.hidden, steps=cfg.fit_steps))
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        C, D = learn.symmetry_form(model, X[:2000], oa)
        t_form = time.perf_counter() - t0
        t0 = time.perf_counter()
        g = learn.learn_gradient(C, D, cfg.generators, steps=cfg.steps, restarts=cfg.restarts)
        t_grad = time.perf_counter() - t0
        t0 = time.perf_counter()
        sp = learn.learn_spectral(C, D, cfg.generators)
        t_spec = time.perf_counter() - t0
        truth = learn.truth_vectors(task.truth(), oa)
        angle = (float(np.degrees(algebra.principal_angles(g.vectors[:g.kept], truth).max()))
                 if g.kept and len(truth) else None)
        row = {"task": name, "fit_s": t_fit, "form_s": t_form, "gradient_s": t_grad, "spectral_s": t_spec,
               "kept": g.kept, "true_dimension": len(truth), "max_angle": angle}
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
