"""scikit-learn's bundled 8 x 8 digits (nothing downloaded): the images every digits task of the lab uses --
``digits`` (numpy arrays), and ``digits_data``, the fixed seeded split as torch tensors that the meter's CNNs and the
ensembles' digits task train on (``DigitsData``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from ..errors import DataError

#: the 8 x 8 digits' classes
CLASSES = 10


def digits(count: int | None = None, rng=None):
    """scikit-learn's bundled 8 x 8 digits (1 797 images), pixels scaled to [0, 1]; a random subset of
    ``count`` when given.  Returns images (count, 8, 8) and labels (count,) in 0..9."""
    from sklearn.datasets import load_digits  # here, not at the top: scikit-learn takes 1.6 s to import, and the
    # training-dynamics experiments (lab.tasks.nordenfors) import this module for their one digits task

    d = load_digits()
    X, y = d.images / 16.0, d.target.astype(np.int64)
    if count is not None and count < len(X):
        idx = np.random.default_rng(rng).choice(len(X), size=count, replace=False)
        X, y = X[idx], y[idx]
    return X, y


@dataclass
class DigitsData:
    """A fixed split of the digits as float32 images (N, 1, 8, 8) in [0, 1] and labels; ``holdout``: a class left
    out of training and test (its images are ``x_heldout``; labels above it move down by one)."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    x_heldout: torch.Tensor
    holdout: int | None
    seed: int
    classes: int = CLASSES

    def noise(self, n: int, seed: int = 0) -> torch.Tensor:
        """``n`` Gaussian images with the training digits' per-pixel mean and standard deviation (not clipped):
        inputs with the digits' first two moments per pixel but none of their shapes, so far off the data
        manifold.  Independent pixels have a flat spectrum: more high-frequency content than digits."""
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise DataError(f"the number of noise images must be a positive integer, got {n!r}")
        g = torch.Generator().manual_seed(int(seed))
        mean, std = self.x_train.mean(0), self.x_train.std(0)
        return mean + std * torch.randn((int(n), *mean.shape), generator=g, dtype=mean.dtype)


def digits_data(seed: int = 0, test_fraction: float = 0.25, holdout: int | None = None) -> DigitsData:
    """scikit-learn's 1 797 bundled digits split by ``seed`` (a permutation of ``numpy.random.default_rng``):
    ``test_fraction`` of the kept classes for test; ``holdout`` (0-9 or None): a class kept out of both."""
    if not 0 < test_fraction < 1:
        raise DataError(f"test_fraction must lie strictly between 0 and 1, got {test_fraction!r}")
    if holdout is not None and (not isinstance(holdout, (int, np.integer)) or not 0 <= holdout < CLASSES):
        raise DataError(f"holdout must be a digit class 0-9 or None, got {holdout!r}")
    X, y = digits()
    X = torch.as_tensor(X, dtype=torch.float32)[:, None]
    y = torch.as_tensor(y)
    held = y == holdout if holdout is not None else torch.zeros_like(y, dtype=torch.bool)
    x_held = X[held]
    X, y = X[~held], y[~held]
    if holdout is not None:
        y = torch.where(y > holdout, y - 1, y)
    perm = torch.as_tensor(np.random.default_rng(int(seed)).permutation(len(X)))
    n_test = int(round(test_fraction * len(X)))
    te, tr = perm[:n_test], perm[n_test:]
    return DigitsData(X[tr], y[tr], X[te], y[te], x_held, holdout, int(seed),
                      CLASSES - (holdout is not None))
