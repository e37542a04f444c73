"""Issue 28's check on approximate inertia at the fast settings (thesis Figure 3.2, centre): RPP-EMLP's test error
below both MLP's and EMLP's at the default seeds."""
from __future__ import annotations

import statistics

import pytest

from lab.rpp.family import FAMILY, RPPConfig


@pytest.mark.slow
def test_rpp_beats_mlp_and_emlp_on_approximate_inertia_at_the_fast_settings():
    """At the fast defaults (1000 training points, 80 epochs of batch 500, 3 x 384 channels, the thesis's prior
    1e5 / 1) and the default seeds 0, 1, 2, on approximate inertia as the authors' code makes it
    (``--variant original``, the family's default: I + 0.3 (I z) z^T, the targets' O(3) error 0.17), the *median*
    test MSE over the seeds -- the middle line of Figure 3.2's boxes -- is RPP-EMLP's below both EMLP's and the
    MLP's.

    Measured on a 2-core CPU, test MSE per seed 0, 1, 2: MLP 4.11, 3.84, 3.95 (median 3.95); EMLP 2.84, 3.81, 3.70
    (3.70); RPP-EMLP 2.40, 7.41, 2.70 (2.70).  What does *not* hold, and why this test reads what it reads:

    * the mean over seeds (RPP 4.17 against EMLP 3.45): at seed 1 RPP-EMLP's training goes astray (test 7.41).
      It is neither the data nor the initialisation alone: seed 1's data with weight seeds 0, 1, 2 gives 5.54,
      7.41, 2.90; seed 0's data with weight seed 1 gives 2.29 (free fraction 0.58-0.61 in every case: under the
      thesis's prior on a summed likelihood the free pathway carries most of the weight norm).  RPP-EMLP with
      ``prior_free=0`` trains like the EMLP there (2.68 against 2.65); no smaller free variance (0.1, 0.01) nor the
      runners' weight decay mended it at this budget.  At the thesis's training (500 epochs, on a GPU) the same
      seed-1 outlier remains: MLP 3.59, 3.59, 3.59, EMLP 1.64, 1.92, 2.05, RPP-EMLP 1.18, 3.41, 1.63.
    * the thesis's formula as written (``--variant thesis``, the family's default until 2026-11-27,
      I + 0.3 I^2 zz^T I: its cubic, symmetry-breaking term is ~20 times I, the targets' O(3) error 1.23): MLP
      63 094, 84 923, 53 674; EMLP 72 807, 113 534, 116 386; RPP-EMLP 65 413, 114 394, 48 936 -- below EMLP, not
      below the MLP (median 65 413 against 63 094), since the data are mostly the non-equivariant term the MLP fits
      best.  At the thesis's 500 epochs it is below both, narrowly (medians 54 525 against MLP 56 347, EMLP 244 596)."""
    out = FAMILY.summary(FAMILY.run(RPPConfig(task="inertia", symmetry="approximate", variant="original",
                                              device="cpu")))
    assert out["seed_list"] == [0, 1, 2] and out["size"] == 1000 and out["target_symmetry_error"] > 0.1
    median = {m: statistics.median(v["test_mse"]) for m, v in out["models"].items()}
    assert median["rpp"] < median["mlp"] and median["rpp"] < median["emlp"], median
