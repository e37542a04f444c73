"""How equivariant an ensemble is, and how that depends on its size M (the poster's metrics).

The task is invariant (C4 acts trivially on the labels), so the ensemble ``phi_bar(x) = mean_m phi_{A_m}(x)`` (the
mean of the members' *logits*, as the authors' code averages; ``average="probs"`` averages probabilities instead)
is equivariant iff ``phi_bar(rho_X(g) x) = phi_bar(x)`` for every g.  Per set of inputs:

* ``equivariance_error`` -- ``E_x mean_g |phi_bar(g x) - phi_bar(x)|`` (Euclidean norm over the 10 scores; the
  identity is among the g, as "averaged over the group" says);
* ``divergence`` -- the symmetric KL divergence ``KL(p(x) | p(g x)) + KL(p(g x) | p(x))`` of the ensemble's class
  probabilities, averaged over g and x;
* ``orbit_same_prediction`` -- how many of the |G| = 4 transformed inputs get the class ``phi_bar(x)`` ranks first
  (the identity counted: 1 to 4; 4 is an invariant prediction), averaged over x.

Sizes.  A pool of members is trained once; a sub-ensemble of size M is M members drawn from it without replacement,
``resamples`` times (the pool several times larger than the largest M, so that the draws are nearly independent and
the law in M is not flattened), and each metric is the mean over the draws.  ``fit_slope`` fits
``log error = a + slope log M``: the central limit theorem predicts slope -1/2 when the infinite ensemble is
equivariant (the error is then the deviation of an M-sample mean from an invariant mean), and a curve that levels
off (slope -> 0) when it is not.
"""
from __future__ import annotations


import numpy as np
import torch

from ..fits import fit_slope  # noqa: F401  (shared, lab.fits; re-exported for lab.ensembles' users)
from .network import ORDER, EnsembleError, ensemble_logits, rotate_images

AVERAGES = ("logits", "probs")
METRICS = ("equivariance_error", "divergence", "orbit_same_prediction")


def orbit_logits(params: dict[str, torch.Tensor], x: torch.Tensor, chunk: int = 64) -> torch.Tensor:
    """Every member's scores on every rotation of every input: (members, ORDER, N, classes), ``chunk`` members at a
    time (bounded memory)."""
    xs = torch.cat([rotate_images(x, k) for k in range(ORDER)])
    members = next(iter(params.values())).shape[0]
    out = []
    with torch.no_grad():
        for i in range(0, members, chunk):
            part = {k: v[i:i + chunk] for k, v in params.items()}
            out.append(ensemble_logits(part, xs))
    y = torch.cat(out)
    return y.reshape(y.shape[0], ORDER, x.shape[0], y.shape[-1])


def ensemble_output(member_logits: torch.Tensor, average: str = "logits") -> torch.Tensor:
    """The ensemble's scores from members' (M, ...) ones: the mean logit, or the log of the mean probability."""
    if average == "logits":
        return member_logits.mean(0)
    if average == "probs":
        return torch.log(torch.softmax(member_logits, -1).mean(0))
    raise EnsembleError(f"unknown average {average!r}: choose one of {', '.join(AVERAGES)}")


def invariance_metrics(scores: torch.Tensor) -> dict[str, float]:
    """The three metrics of an ensemble's scores on an orbit, ``scores`` (ORDER, N, classes), row 0 the inputs."""
    base = scores[0]
    err = torch.linalg.vector_norm(scores - base, dim=-1).mean()
    logp = torch.log_softmax(scores, -1)
    p = logp.exp()
    kl_a = (p[0] * (logp[0] - logp)).sum(-1)  # KL(p(x) | p(gx)), (ORDER, N)
    kl_b = (p * (logp - logp[0])).sum(-1)
    same = (scores.argmax(-1) == base.argmax(-1)).sum(0).to(torch.float64)  # (N,), 1..ORDER
    return {"equivariance_error": float(err), "divergence": float((kl_a + kl_b).mean()),
            "orbit_same_prediction": float(same.mean())}


def size_curve(orbit: torch.Tensor, sizes, resamples: int = 20, seed: int = 0, average: str = "logits") -> list[dict]:
    """Per size M: the mean (and standard deviation) over ``resamples`` sub-ensembles of M members of the pool
    ``orbit`` (members, ORDER, N, classes) of every metric.  Sizes must not exceed the pool."""
    pool = orbit.shape[0]
    sizes = [int(m) for m in sizes]
    if not sizes or min(sizes) < 1 or max(sizes) > pool:
        raise EnsembleError(f"ensemble sizes must lie in 1..{pool} (the pool), got {sizes}")
    rng = np.random.default_rng(seed)
    rows = []
    for m in sizes:
        draws = 1 if m == pool else resamples
        values = {k: [] for k in METRICS}
        for _ in range(draws):
            idx = torch.as_tensor(rng.choice(pool, size=m, replace=False))
            for k, v in invariance_metrics(ensemble_output(orbit[idx], average)).items():
                values[k].append(v)
        row = {"size": m, "resamples": draws}
        for k, v in values.items():
            row[k] = float(np.mean(v))
            row[f"{k}_std"] = float(np.std(v))
        rows.append(row)
    return rows


