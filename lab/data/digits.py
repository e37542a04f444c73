"""scikit-learn's bundled 8 x 8 digits (nothing downloaded): the images every digits task of the lab uses."""
from __future__ import annotations

import numpy as np


def digits(count: int | None = None, rng=None):
    """scikit-learn's bundled 8 x 8 digits (1 797 images), pixels scaled to [0, 1]; a random subset of
    ``count`` when given.  Returns images (count, 8, 8) and labels (count,) in 0..9."""
    from sklearn.datasets import load_digits

    d = load_digits()
    X, y = d.images / 16.0, d.target.astype(np.int64)
    if count is not None and count < len(X):
        idx = np.random.default_rng(rng).choice(len(X), size=count, replace=False)
        X, y = X[idx], y[idx]
    return X, y
