"""Claims of Yeh et al. (learned parameter sharing poster): the running example, the Gaussian analysis and the
sum-of-numbers experiment.

Stubs: each claim is declared with the poster's words; ``measure`` is filled in by the sharing work.
"""
from __future__ import annotations

from .claim import Outcome, claim


def _todo(profile):
    return Outcome(measured=None, holds=None, note="not measured yet")


claim("share-conv-exact", "sharing", "Running example (Convolution); Approach",
      "The sharing of a convolution (kernel [2, 1] on R^3) is recovered from data: partition distance 0.",
      paper_value=0)(_todo)
claim("share-gaussian-gap-bound", "sharing", "Results, Claim (Gaussian data, Eq. 1)",
      "With probability 1 - alpha (alpha < exp(-K/10)) the MSE gap of the learned sharing is below "
      "sigma^2 ((1-r)/(r|D|) (rk(A_gt) - 1) - 40 ln(alpha)/((1-r)|D|)).", paper_value="gap <= bound")(_todo)
claim("share-gaussian-pd", "sharing", "Analysis on Gaussian data (the paper's additional experiments)",
      "On Gaussian data the partition distance of the learned sharing falls as the number of true blocks grows.",
      paper_value="falling with the number of blocks")(_todo)
claim("share-sum", "sharing", "Experiments (Sum of Numbers)",
      "Regressing the sum of a sequence of number words, the learned sharing recovers the permutation "
      "invariance (partition distance to the true sharing) and regresses the sum.", paper_value=None)(_todo)
claim("share-group", "sharing", "Contribution: recovering shift and permutation equivariance",
      "The sharing of a permutation-group equivariant layer is recovered from data.", paper_value=0)(_todo)
