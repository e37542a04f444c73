"""PAC-Bayes compression bounds (thesis chapter 5): does symmetry make models simpler?

* ``projectors`` -- random subspaces theta = theta_0 + P w: dense, Kronecker-sum and Kronecker-product projectors
  (section 5.4.1), never materialised at D x d except ``dense``;
* ``quantize`` -- learned quantization levels with the straight-through estimator (section 5.4.2);
* ``coding`` -- arithmetic (range) coding of the quantized weights with ``constriction``, and the ideal length;
* ``bound`` -- the description length under the universal prior, KL, and Catoni's bound (appendix A.4.10);
* ``subspace`` -- Algorithm 2 for one subspace dimension (``compute_bound``);
* ``models`` -- an MLP, a CNN and a C4-equivariant GCNN built from the engine's filter bases, of comparable size;
* ``data`` -- digits, rotated digits (C4 or continuous), shuffled pixels, shuffled labels, MNIST from IDX files.
* ``prune`` -- the pruning baseline (Table A.18's Pruning + Quant + Arith): the trained update magnitude-pruned to
  k coordinates, fine-tuned, quantized, coded and bounded as the subspace is, the kept positions paid in bits.

A science package: torch, numpy, scipy and constriction, no UI; bad input raises ``BoundsError`` (a ``LabError``).
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (its manifest, what ``lab --help`` reads) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("ALPHA", "DELTA", "bound_from_bits", "catoni_at", "catoni_bound", "description_bits",
                     "hyperparameter_bits", "kl_from_bits", "phi_inverse"), "bound"),
    **dict.fromkeys(("BoundsError",), "errors"),
    **dict.fromkeys(("PROJECTORS", "make_projector", "projector_numbers"), "projectors"),
})

__all__ = ["ALPHA", "DELTA", "bound_from_bits", "catoni_at", "catoni_bound", "description_bits",
           "hyperparameter_bits", "kl_from_bits", "phi_inverse", "BoundsError", "PROJECTORS", "make_projector",
           "projector_numbers"]
