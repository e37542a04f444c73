"""Appendix E.2: the same architecture and data (Trans on the 8 x 8 digits) under several groups.

The heuristic of Nordenfors et al.: the smaller dim E / dim L, the more of the gradient augmentation
averages away, and the closer the Aug model stays to E relative to Nom.  ``relative_dimension`` trains
Nom, Aug and Equi for every group and tabulates Aug's final ‖Π_{E⊥}A‖ over Nom's.
"""
from __future__ import annotations

import pandas as pd

from ..tasks.nordenfors import RELDIM_GROUPS, reldim_groups
from ..tasks.nordenfors_paper import setting as paper_setting
from .train import DynamicsConfig, Trainer


def relative_dimension(groups: dict[str, str] | None = None, runs: int | None = 3, steps: int | None = 20,
                       aug_passes: int | None = 5, seed: int = 0, scale: str = "small", images: int | None = None,
                       on_group=None, data: str | None = None, lr: float | None = None, *, device: str = "auto",
                       settings: dict | None = None, on_step=None, control=None, **config) -> pd.DataFrame:
    """One row per group: setting, group, dim E / dim L, Nom's and Aug's median final ‖Π_{E⊥}A‖, their ratio.

    ``groups`` default: the four of appendix E.2 on the 8 x 8 digits, or on 14 x 14 MNIST with ``data``.
    ``lr`` default: E.2's own (5e-5, train_different_groups.py) at paper scale, the Trans default at small
    scale.  Pass None for runs/steps/aug_passes to take the scale's (the paper's: 30, 50, 25); further
    ``DynamicsConfig`` fields (``dtype``, ``test_fraction``...) go through ``settings`` or ``config``;
    ``on_step(setting, trainer, records)`` after every step; ``control`` stops and pauses (a stopped group ends
    the table: the rows so far are returned)."""
    rows = []
    if groups is None:
        groups = reldim_groups(paper_setting("e2", "paper", "image_size")) if data else RELDIM_GROUPS
    if lr is None and scale == "paper":
        lr = paper_setting("e2", "paper", "lr")
    for setting, group in groups.items():
        options = {"group": group, **({"images": images} if images else {})}
        fields = {**(settings or {}), **config}
        if data is not None:
            fields["data"] = data
        tr = Trainer(DynamicsConfig(experiment="trans", scale=scale, runs=runs, steps=steps, seed=seed, lr=lr,
                                    aug_passes=aug_passes, strategies=("nom", "aug", "equi"), options=options,
                                    device=device, **fields))
        step_hook = None if on_step is None else (lambda trainer, records, s=setting: on_step(s, trainer, records))
        if not tr.run(on_step=step_hook, control=control):
            break
        s = tr.summary()
        rows.append({"setting": setting, "group": group, "dim_E_over_dim_L": tr.dim_ratio,
                     "nom_dist_from_E": s["nom"]["dist_from_E"], "aug_dist_from_E": s["aug"]["dist_from_E"],
                     "aug_over_nom": s["aug"]["dist_from_E"] / s["nom"]["dist_from_E"],
                     "nom_test_accuracy": s["nom"]["test_accuracy"], "aug_test_accuracy": s["aug"]["test_accuracy"]})
        if on_group is not None:
            on_group(rows[-1])
    return pd.DataFrame(rows)
