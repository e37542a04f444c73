"""Sharing discovery: learn how a layer's weights share parameters, vec(W) = A ψ (Yeh et al.), and the
meta-learned symmetry matrix vec(W) = U v with sparsity (Zhou et al.; the MSR report).

The names below are loaded on first use (``from lab.sharing import learn_sharing`` works as always), so that
the torch-free ``defaults`` module can be read without importing torch."""
from __future__ import annotations

from ..lazy import lazy_exports

_LAZY = {"SharingResult": "bilevel", "learn_sharing": "bilevel", "partition_distance": "partition"}

__all__ = ["SharingResult", "learn_sharing", "partition_distance"]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
