"""Claims of Nordenfors, Ohlsson & Flinth (training dynamics): section 5, appendices D and E.

Stubs: each claim is declared with the paper's words; ``measure`` is filled in by the dynamics work.
"""
from __future__ import annotations

from .claim import Outcome, claim


def _todo(profile):
    return Outcome(measured=None, holds=None, note="not measured yet")


claim("dyn-equi-in-E", "dynamics", "§5 (Equi); §3.2",
      "Equi (the gradient projected onto E) produces networks that are manifestly equivariant: it never leaves E.",
      paper_value="||Pi_perp A|| = 0")(_todo)
claim("dyn-aug-follows-equi-exact-orbit", "dynamics", "§4, §6",
      "Initialised on E, the augmented model (the exact augmented risk) follows exactly the same dynamics as the "
      "equivariant one.", paper_value="A_aug(t) = A_equi(t)")(_todo)
claim("dyn-perm-aug-vs-nom", "dynamics", "§5.1, Fig. 1 (Perm)",
      "Perm: the Aug model stays much closer to E than Nom; the shift orthogonal to E is smaller by several "
      "orders of magnitude.", paper_value="several orders of magnitude")(_todo)
claim("dyn-trans-aug-vs-nom", "dynamics", "§5.1, Fig. 1 (Trans)",
      "Trans: the Aug model stays much closer to E than Nom; the shift orthogonal to E is smaller by several "
      "orders of magnitude.", paper_value="several orders of magnitude")(_todo)
claim("dyn-rot-aug-near-nom", "dynamics", "§5.1, Fig. 1 (Rot)",
      "Rot: the Aug and Nom models are much closer to each other than in Perm and Trans, and the shifts "
      "orthogonal to E are very small compared with the total shifts.", paper_value=None)(_todo)
claim("dyn-relative-dimensions", "dynamics", "appendix E.1, Table 1",
      "dim E / dim L of the layers with E != L: much larger for Rot (about 1/4) than for Perm and Trans.",
      paper_value=None)(_todo)
claim("dyn-e2-ordering", "dynamics", "appendix E.2, Fig. 6",
      "Same Trans architecture and data under four groups: the relative drift of Aug from E (against Nom) is "
      "largest for Rot, then OneDTrans, Trans and TransRot, in the order of dim E / dim L.",
      paper_value="Rot > OneDTrans > Trans > TransRot")(_todo)
