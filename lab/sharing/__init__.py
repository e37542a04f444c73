"""Sharing discovery: learn how a layer's weights share parameters, vec(W) = A ψ (Yeh et al.), and the
meta-learned symmetry matrix vec(W) = U v with sparsity (Zhou et al.; the MSR report)."""
from .bilevel import SharingResult, learn_sharing
from .partition import partition_distance

__all__ = ["SharingResult", "learn_sharing", "partition_distance"]
