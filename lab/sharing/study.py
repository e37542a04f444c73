"""The poster's analysis on Gaussian data: the MSE gap of the learned sharing against its upper bound, as the
split ratio r = |T|/|D| and the data size |D| vary."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .bilevel import learn_sharing
from .tasks import GaussianTask


def gap_study(K: int = 5, blocks: int = 3, splits=(0.2, 0.3, 0.5, 0.7), sizes=(50, 100, 400), trials: int = 10,
              sigma: float = 1.0, steps: int = 300, seed: int = 0, on_row=None) -> pd.DataFrame:
    """One row per (split, |D|): mean MSE gap and partition distance over trials, and the bound."""
    rows = []
    for n in sizes:
        for r in splits:
            gaps, pds = [], []
            for t in range(trials):
                task = GaussianTask(K=K, blocks=blocks, samples=n, split=r, sigma=sigma, seed=seed + 1000 * t + n)
                res = learn_sharing(task, steps=steps, seed=t)
                gaps.append(res.mse_gap)
                pds.append(res.partition_distance)
            rows.append({"samples": n, "split": r, "mse_gap": float(np.mean(gaps)),
                         "partition_distance": float(np.mean(pds)), "bound": task.gap_bound()})
            if on_row is not None:
                on_row(rows[-1])
    return pd.DataFrame(rows)
