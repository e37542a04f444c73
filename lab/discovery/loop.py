"""The loop measured (issue 33): the same data fitted by an MLP, by EMLP over the true group and by EMLP over the
learned one (``lab.nn``'s EMLP, whose layers' bases the engine solves -- the learned group's with its stated
tolerance), trained alike by ``lab.emlp.train.fit``; their relative test MSEs.

The learned group acts on the whole input space R^d_in, so EMLP's hidden tensor reps over it grow as d_in^r: the
loop runs where the dense tolerant solve of the largest layer stays within ``MAX_BLOCK`` entries (the rotated plane
at the fast settings), and says why it does not elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: the largest layer map (entries) the learned EMLP's dense solves may have
MAX_BLOCK = 4096


@dataclass
class _Reps:
    """What ``lab.emlp.train.fit`` asks of a task: its reps over a group."""

    rep_in: object
    rep_out: object

    def reps(self, group=None):
        return self.rep_in, self.rep_out


def with_dual(d_in: int, channels: int) -> int:
    """The smallest channel count from ``channels`` up whose hidden layers hold at least two rank-1 tensors (a V and a
    V*).  A learned group's generators are never exactly antisymmetric, so the engine does not identify V* with V,
    and EMLP's bilinear layer forms an invariant product x^T M x only between a V and a V* channel: O(5) at 32
    channels on R^10 has a single V, and its learned EMLP measured 0.51 relative test MSE against 0.0014 at 48."""
    from ..nn.channels import rank_counts

    ch = int(channels)
    while True:
        counts = rank_counts(ch, d_in)
        if len(counts) > 2 or (len(counts) > 1 and counts[1] >= 2):
            return ch
        ch += 1


def emlp_fits(d_in: int, channels: int) -> bool:
    from ..nn.channels import rank_counts

    counts = rank_counts(int(channels), d_in)
    top = max((r for r, n in enumerate(counts) if n), default=0)
    return (d_in ** top) ** 2 <= MAX_BLOCK


def compare(X, Y, Xt, Yt, learned: list, truth: list, output_action: bool, tol: float, channels: int = 32,
            layers: int = 2, epochs: int = 100, seed: int = 0, control=None) -> dict:
    """``{"mlp", "emlp_true", "emlp_learned"}``: relative test MSEs (None with a reason in ``"why"`` where a model
    cannot be built), and ``channels`` (``with_dual``'s); ``learned``/``truth``: (A, B) pairs."""
    import torch

    from ..emlp.train import Schedule, fit
    from ..nn.models import EMLP, MLP
    from .algebra import learned_group

    d_in = X.shape[1]
    channels = with_dual(d_in, channels)
    out = {"mlp": None, "emlp_true": None, "emlp_learned": None, "why": None, "channels": channels}
    if not emlp_fits(d_in, channels):
        out["why"] = (f"EMLP over a group on R^{d_in} with {channels} channels needs dense solves over "
                      f"{MAX_BLOCK} entries (the learned group acts on the whole input)")
    schedule = Schedule(channels=channels, layers=layers, epoch_budget=epochs * len(X), max_epochs=epochs)
    data = (X, Y, Xt, Yt)
    scale = float(np.mean(np.asarray(Yt) ** 2)) or 1.0

    def train(net, rin, rout, group):
        torch.manual_seed(seed)
        r = fit(net, _Reps(rin, rout), group, data, schedule, seed=seed, control=control)
        return r["test_mse"] / scale

    pairs = {"emlp_learned": learned, "emlp_true": truth}
    reps = {}
    for key, gens in pairs.items():
        if gens:
            A = [a for a, _ in gens]
            B = [b for _, b in gens] if output_action else None
            reps[key] = learned_group(A, B, tol=tol if key == "emlp_learned" else 1e-8, name=key)
    some = next(iter(reps.values()), None)
    if some is not None:
        G, rin, rout = some
        out["mlp"] = train(MLP(rin, rout, G, channels=channels * 4, layers=layers), rin, rout, G)
        if out["why"] is None:
            for key, (G, rin, rout) in reps.items():
                out[key] = train(EMLP(rin, rout, G, channels=channels, layers=layers), rin, rout, G)
    return out
