"""Appendix E.2: the same architecture and data (Trans on the 8 x 8 digits) under several groups.

The heuristic of Nordenfors et al.: the smaller dim E / dim L, the more of the gradient augmentation
averages away, and the closer the Aug model stays to E relative to Nom.  ``relative_dimension`` trains
Nom, Aug and Equi for every group and tabulates Aug's final ‖Π_{E⊥}A‖ over Nom's.
"""
from __future__ import annotations

import pandas as pd

from .experiments import RELDIM_GROUPS
from .train import DynamicsConfig, Trainer


def grid_groups(n: int = 8) -> dict[str, str]:
    """The four groups of appendix E.2 acting on an ``n`` x ``n`` grid (``RELDIM_GROUPS`` is ``n = 8``)."""
    return {"Trans": f"Z({n})*Z({n})", "Rot": f"C4Grid({n})", "OneDTrans": f"Trivial({n})*Z({n})",
            "TransRot": f"P4Grid({n})"}


def relative_dimension(groups: dict[str, str] | None = None, runs: int = 3, steps: int = 20, aug_passes: int = 5,
                       seed: int = 0, scale: str = "small", images: int | None = None, on_group=None, *,
                       lr: float | None = None, device: str = "auto", settings: dict | None = None,
                       on_step=None, control=None) -> pd.DataFrame:
    """One row per group: setting, group, dim E / dim L, Nom's and Aug's median final ‖Π_{E⊥}A‖, their ratio.

    ``lr`` (default: the Trans experiment's), ``device`` and ``settings`` (further ``DynamicsConfig`` fields)
    apply to every group; ``on_step(setting, trainer, records)`` after every step; ``control`` stops and
    pauses (a stopped group ends the table: the rows so far are returned)."""
    rows = []
    for setting, group in (groups or RELDIM_GROUPS).items():
        options = {"group": group, **({"images": images} if images else {})}
        tr = Trainer(DynamicsConfig(experiment="trans", scale=scale, runs=runs, steps=steps, seed=seed,
                                    aug_passes=aug_passes, strategies=("nom", "aug", "equi"), options=options,
                                    lr=lr, device=device, **(settings or {})))
        step_hook = None if on_step is None else (lambda trainer, records, s=setting: on_step(s, trainer, records))
        if not tr.run(on_step=step_hook, control=control):
            break
        s = tr.summary()
        rows.append({"setting": setting, "group": group, "dim_E_over_dim_L": tr.dim_ratio,
                     "nom_dist_from_E": s["nom"]["dist_from_E"], "aug_dist_from_E": s["aug"]["dist_from_E"],
                     "aug_over_nom": s["aug"]["dist_from_E"] / s["nom"]["dist_from_E"]})
        if on_group is not None:
            on_group(rows[-1])
    return pd.DataFrame(rows)
