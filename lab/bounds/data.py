"""The datasets the bounds are computed on (``bound_data``): all generated from data the lab ships, or the user's
MNIST files; nothing downloaded.

* ``digits`` -- scikit-learn's 1 797 8 x 8 digits, split at the seed (``TEST_FRACTION`` held out for the reported
  test error; the bound is computed on the rest);
* ``rotated-digits`` -- every image (train and test) rotated by its own random angle: a multiple of 90 degrees
  (``c4``) or uniform in [0, 360) (``continuous``, bilinear, zero fill outside the image): a rotation-invariant task;
* ``shuffled-pixels`` -- one fixed permutation of the 64 pixels applied to every image (Figure 5.3 centre): the
  images keep their information but lose their spatial structure;
* ``shuffled-labels`` -- the training labels randomly permuted (Figure 5.3 right): nothing to learn that generalizes;
* ``mnist`` -- MNIST's train (bounded) and t10k (tested) sets from the user's IDX files (``lab.data.mnist``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .errors import BoundsError

DATASETS = ("digits", "rotated-digits", "shuffled-pixels", "shuffled-labels", "mnist")
ROTATIONS = ("c4", "continuous")
TEST_FRACTION = 0.2
CLASSES = 10


@dataclass
class BoundData:
    x_train: torch.Tensor  # (n, 1, side, side) float32
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    name: str
    side: int
    classes: int = CLASSES

    @property
    def n(self) -> int:
        return int(len(self.y_train))


def rotate(images: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """Each image (N, 1, H, W) rotated by its angle (radians) about its centre: bilinear, zeros outside."""
    c, s = torch.cos(angles), torch.sin(angles)
    zeros = torch.zeros_like(c)
    theta = torch.stack([torch.stack([c, -s, zeros], -1), torch.stack([s, c, zeros], -1)], 1).to(images.dtype)
    grid = torch.nn.functional.affine_grid(theta, list(images.shape), align_corners=False)
    return torch.nn.functional.grid_sample(images, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def _rotate_all(x: torch.Tensor, rotation: str, g: torch.Generator) -> torch.Tensor:
    if rotation == "c4":
        k = torch.randint(0, 4, (len(x),), generator=g)
        return torch.stack([torch.rot90(img, int(kk), (1, 2)) for img, kk in zip(x, k)])
    angles = torch.rand(len(x), generator=g, dtype=torch.float64) * 2 * math.pi
    return rotate(x, angles.to(x.dtype))


def bound_data(name: str = "digits", seed: int = 0, rotation: str = "c4", data_dir=None,
               train_points: int | None = None) -> BoundData:
    """The dataset ``name`` (one of ``DATASETS``) at ``seed``; ``train_points`` caps the training set."""
    if name not in DATASETS:
        raise BoundsError(f"unknown data {name!r}: choose one of {', '.join(DATASETS)}")
    if rotation not in ROTATIONS:
        raise BoundsError(f"unknown rotation {rotation!r}: choose one of {', '.join(ROTATIONS)}")
    g = torch.Generator().manual_seed(int(seed) + 7919)
    if name == "mnist":
        if data_dir is None:
            raise BoundsError("--data mnist needs --data-dir DIR (the directory of MNIST's IDX files)")
        from ..data.mnist import load_mnist

        xtr, ytr = load_mnist(data_dir, "train", size=28)
        xte, yte = load_mnist(data_dir, "t10k", size=28)
        x_train, y_train = torch.as_tensor(xtr, dtype=torch.float32)[:, None], torch.as_tensor(ytr).long()
        x_test, y_test = torch.as_tensor(xte, dtype=torch.float32)[:, None], torch.as_tensor(yte).long()
    else:
        from ..data.digits import digits

        X, y = digits()
        X, y = torch.as_tensor(X, dtype=torch.float32)[:, None], torch.as_tensor(y).long()
        perm = torch.as_tensor(np.random.default_rng(int(seed)).permutation(len(X)))
        n_test = int(round(TEST_FRACTION * len(X)))
        te, tr = perm[:n_test], perm[n_test:]
        x_train, y_train, x_test, y_test = X[tr], y[tr], X[te], y[te]
        if name == "rotated-digits":
            x_train, x_test = _rotate_all(x_train, rotation, g), _rotate_all(x_test, rotation, g)
        elif name == "shuffled-pixels":
            side = X.shape[-1]
            pix = torch.randperm(side * side, generator=g)
            x_train = x_train.reshape(len(x_train), 1, -1)[:, :, pix].reshape(x_train.shape)
            x_test = x_test.reshape(len(x_test), 1, -1)[:, :, pix].reshape(x_test.shape)
        elif name == "shuffled-labels":
            y_train = y_train[torch.randperm(len(y_train), generator=g)]
    if train_points is not None:
        x_train, y_train = x_train[:train_points], y_train[:train_points]
    return BoundData(x_train.contiguous(), y_train, x_test.contiguous(), y_test, name, int(x_train.shape[-1]))
