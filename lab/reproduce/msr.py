"""Claims of the MSR report (meta-learning symmetries with sparse reparametrization): Table I and Figs. 2-3.

Stubs: each claim is declared with the report's words; ``measure`` is filled in by the MSR work.
"""
from __future__ import annotations

from .claim import Outcome, claim


def _todo(profile):
    return Outcome(measured=None, holds=None, note="not measured yet")


claim("msr-sparsity-few-tasks", "msr", "Table I (20 tasks)",
      "With 20 meta-training tasks, exclusive sparsity lowers the test loss in all five rank/kernel settings "
      "(by 28-55 %).", paper_value="-28 % to -55 %")(_todo)
claim("msr-sparser-U", "msr", "Figs. 2-3",
      "Exclusive sparsity makes the learned symmetry matrix U visibly sparser.", paper_value="sparser U")(_todo)
