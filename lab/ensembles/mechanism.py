"""The theorem's mechanism, exactly: the group-averaged ensemble (one member's orbit under the lifted action).

For one member ``A`` drawn from setting (i), the ensemble ``{rho_L(g) A : g in C4}`` has an invariant mean at
initialisation (its members are permuted by the group: ``phi_{rho_L(h) rho_L(g) A}(x) = phi_{rho_L(g) A}(rho_X(h)^{-1}
x)``), and trained by the expected augmented gradient -- every sample in all four rotations, every member of the
orbit fed the same batches -- its members stay one orbit: ``grad R^aug(rho_L(g) A) = rho_L(g) grad R^aug(A)``, so the
mean stays invariant at every step, to float rounding.  With sampled augmentation (one random rotation per sample)
the gradient is equivariant only in expectation, and one draw departs from it.

``group_average_errors`` measures all of this in float64 on the digits: the ensemble's equivariance error
(``lab.ensembles.metrics``, mean logits) at initialisation, after ``steps`` of orbit averaging, after as many of
sampled augmentation, and one member alone for reference.
"""
from __future__ import annotations

import torch

from .metrics import ensemble_output, invariance_metrics, orbit_logits
from .network import ensemble_logits, group_average_members, init_members, rotate_images, rotate_parameters
from .train import TrainSettings, train


def lifted_action_error(params: dict, x: torch.Tensor) -> float:
    """``max_g max |phi_{rho_L(g) A}(rho_X(g) x) - phi_A(x)|`` over every member of ``params`` and input: zero to
    rounding when the lifted action is right (it is, for every support: an identity of the architecture)."""
    base = ensemble_logits(params, x)
    return max(float((ensemble_logits(rotate_parameters(params, k), rotate_images(x, k)) - base).abs().max())
               for k in range(1, 4))


def group_average_errors(x_train, y_train, x_eval, channels: int = 4, steps: int = 20, lr: float = 0.05,
                         batch: int = 32, seed: int = 0, control=None) -> dict:
    """``{"at initialisation", "after exact orbit averaging", "after sampled augmentation", "one member alone"}``:
    the equivariance error of the group-averaged ensemble of one setting-(i) member (float64)."""
    x_train, x_eval = x_train.double(), x_eval.double()
    one = init_members(1, channels, "invariant", [seed], dtype=torch.float64)
    ga = group_average_members(one)
    seeds = [seed] * next(iter(ga.values())).shape[0]  # the orbit's members see the same batches

    def error(params):
        return invariance_metrics(ensemble_output(orbit_logits(params, x_eval)))["equivariance_error"]

    def trained(augment):
        p = {k: v.clone() for k, v in ga.items()}
        return train(p, x_train, y_train, TrainSettings(steps, batch, lr, augment), seeds, "invariant",
                     control=control)

    return {"at initialisation": error(ga), "after exact orbit averaging": error(trained("orbit")),
            "after sampled augmentation": error(trained("sampled")), "one member alone": error(one)}
