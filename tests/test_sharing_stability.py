"""Whether method 1's snapped partition settled (issue 48): ``lab.sharing.partition.stability`` over the last
snapshots of A, the family's summary keys and the pane's words."""
from types import SimpleNamespace

import numpy as np

from lab.sharing.pane_pictures import SharingPictures
from lab.sharing.partition import STABLE_WINDOW, UNDECIDED_MARGIN, stability


def _tied(n, e=0.002):
    """Snapshots whose row 2 is split 0.50 / 0.50 between two columns, its argmax flipping at every one."""
    out = []
    for i in range(n):
        s = e if i % 2 else -e
        out.append(np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.5 + s, 0.5 - s, 0.0]]))
    return out


def test_a_row_whose_two_largest_entries_tie_is_not_stable_and_is_named():
    s = stability(_tied(40), steps=list(range(0, 200, 5)))
    assert not s.stable and s.undecided == [2] and s.share == 0.5 and s.snapshots == STABLE_WINDOW
    assert s.steps == (195 - 5 * (STABLE_WINDOW - 1), 195)
    words = s.describe()
    assert words.startswith("not stable") and "2 (0.50 / 0.50)" in words and f"{STABLE_WINDOW}" in words
    # of equally frequent partitions, the one snapped last is reported
    last = stability(_tied(41))  # one snapshot more: the other partition was snapped last
    assert s.labels.tolist() == [0, 1, 0] and last.labels.tolist() == [0, 1, 1]


def test_a_clear_history_is_stable_and_only_the_window_counts():
    clear = [np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]])] * STABLE_WINDOW
    s = stability(_tied(10) + clear)  # flips before the window do not count
    assert s.stable and s.share == 1.0 and s.undecided == [] and s.describe().startswith("stable over the last")
    assert s.labels.tolist() == [0, 1, 0]


def test_one_partition_with_a_row_inside_the_margin_is_not_called_stable():
    A = np.array([[0.9, 0.1], [0.5 + UNDECIDED_MARGIN / 4, 0.5 - UNDECIDED_MARGIN / 4]])
    s = stability([A] * 5)
    assert s.share == 1.0 and s.undecided == [1] and not s.stable


def test_the_summary_adds_the_stability_keys_and_keeps_the_old_ones():
    from lab.sharing.family import FAMILY, SharingConfig

    s = FAMILY.summary(FAMILY.run(SharingConfig(task="gaussian", steps=20)))
    assert {"partition_distance", "labels", "ground_truth", "steps_per_second"} <= set(s)
    assert isinstance(s["partition_stable"], bool) and isinstance(s["undecided_rows"], list)
    assert 0 < s["stable_share"] <= 1 and s["stability_window"] == STABLE_WINDOW
    assert s["partition_stability"].startswith("stable" if s["partition_stable"] else "not stable")
    many = FAMILY.summary(FAMILY.run(SharingConfig(task="gaussian", steps=20, trials=2)))
    assert "partition_stable" in many and "undecided_rows" not in many  # per-trial rows: one trial only


def test_the_pane_says_whether_the_final_partition_is_stable():
    tied = stability(_tied(40))
    unstable = {"partition_stable": False, "partition_stability": tied.describe(), "stability_window": 30,
                "modal_partition_distance": 1.0}
    text = SharingPictures._stability_text(SimpleNamespace(_summary=unstable))
    assert "**not stable**" in text and "2 (0.50 / 0.50)" in text and "distance **1**" in text
    stable = {"partition_stable": True, "partition_stability": "stable over the last 30 snapshots"}
    assert "stable over the last 30" in SharingPictures._stability_text(SimpleNamespace(_summary=stable))
    assert SharingPictures._stability_text(SimpleNamespace(_summary={})) == ""  # a run saved before the keys
