"""Generated data sets: stochastic-block-model graphs (the Perm experiment) and triangle / pentagon images with
their segmentation masks (the Seg experiment), as in the training-dynamics paper's appendix D."""
from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components


def sbm_graphs(count: int, n: int = 10, p: float = 0.5, q: float = 0.05, rng=None):
    """Two-block stochastic block model graphs (appendix D.1) with their connectivity labels.

    Nodes are split into two random blocks of n/2; an edge appears with probability ``p`` inside a block
    and ``q`` across; nodes are shuffled.  The label is decided exactly by graph search
    (``scipy.sparse.csgraph.connected_components``), not by a spectral threshold.
    Returns adjacency matrices (count, n, n) as float and labels (count,) in {0, 1}.
    """
    rng = np.random.default_rng(rng)
    A = np.zeros((count, n, n))
    y = np.zeros(count)
    for k in range(count):
        block = rng.permutation(n) < n // 2
        same = block[:, None] == block[None, :]
        prob = np.where(same, p, q)
        upper = np.triu(rng.random((n, n)) < prob, 1)
        adj = (upper | upper.T).astype(float)
        A[k] = adj
        y[k] = connected_components(adj, directed=False)[0] == 1
    return A, y


def _regular_polygon(k: int) -> np.ndarray:
    angles = np.pi / 2 + 2 * np.pi * np.arange(k) / k  # every shape has the same orientation
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def shapes(count: int, n: int = 12, rng=None):
    """Images of one triangle or pentagon (appendix D.3) and their two segmentation masks.

    With equal probability an equilateral triangle or a regular pentagon (vertices on the unit circle, all
    in the same orientation, so the data are *not* rotation invariant) is scaled by a factor in
    [0.25 n, 0.45 n], placed at random inside the canvas and rasterised at pixel centres
    (``matplotlib.path.Path``).  Masks: (pentagon, triangle); the absent shape's mask is all zeros.
    Returns images (count, n, n) and masks (count, 2, n, n), both 0/1 floats.
    """
    from matplotlib.path import Path

    rng = np.random.default_rng(rng)
    centres = np.stack(np.meshgrid(np.arange(n) + 0.5, np.arange(n) + 0.5, indexing="ij"), -1).reshape(-1, 2)
    images = np.zeros((count, n, n))
    masks = np.zeros((count, 2, n, n))
    for k in range(count):
        pentagon = rng.random() < 0.5
        scale = rng.uniform(0.25, 0.45) * n
        centre = rng.uniform(scale, n - scale, size=2)
        vertices = centre + scale * _regular_polygon(5 if pentagon else 3)
        inside = Path(vertices).contains_points(centres).reshape(n, n).astype(float)
        images[k] = inside
        masks[k, 0 if pentagon else 1] = inside
    return images, masks
