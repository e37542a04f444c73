"""The Ensembles tab (``lab ensembles`` in the dashboard): a run's plots carry the run's own numbers (the against-M
curve is the saved summary's, the step curves the saved records', the orbit's bars the saved example's), the latest
saved run of another setting is drawn beside it, Load puts a run's settings back, the assumptions shown are the
ones the science verifies, and bad settings are one inline message that starts nothing."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from bokeh.document import Document

from lab.ensembles.pane import Ensembles, shown_sizes
from lab.ensembles.family import SETTINGS, assumptions
from lab.plots.style import SETTING_COLOURS

sys.path.insert(0, str(Path(__file__).parent))
from polling import poll_to_end  # noqa: E402  (a hang guard, never a speed requirement)

TINY = dict(members=4, steps=20, channels=4)


def _pane(root, **settings):
    pane = Ensembles(results=str(root), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(**settings)
    return pane


def _run_to_end(pane):
    poll_to_end(pane)


def _saved(root, setting):
    """(summary, records) of the one saved run of ``setting`` in ``root``."""
    runs = [p for p in sorted(Path(root).iterdir()) if p.is_dir() and f"-{setting}-" in p.name]
    assert len(runs) == 1, runs
    meta = json.loads((runs[0] / "config.json").read_text())
    return meta["summary"], pd.read_csv(runs[0] / "records.csv"), runs[0]


def _renderer(fig, name):
    found = [r for r in fig.renderers if r.name == name]
    assert found, f"no renderer {name!r} in {[r.name for r in fig.renderers]}"
    return found[0].data_source.data


@pytest.fixture(scope="module")
def two_settings(tmp_path_factory):
    """The pane after a tiny noninvariant-init run, then a tiny invariant one."""
    root = tmp_path_factory.mktemp("ensemble-runs")
    pane = _pane(root, setting="noninvariant-init", **TINY)
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    pane.setting = "invariant"
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    return pane, root


def test_a_run_is_drawn_with_its_saved_numbers(two_settings):
    pane, root = two_settings
    s, records, run = _saved(root, "invariant")
    assert pane._status.object.startswith("**done**")
    # the error against M: the saved summary's points, its slope in the legend and the headline
    fig = pane._sizes_pane.object
    dots = _renderer(fig, "ens-size-invariant")
    assert list(dots["M"]) == s["sizes"] == [1, 2, 4]
    np.testing.assert_array_equal(dots["y"], s["equivariance_error"])
    labels = [item.label["value"] for item in fig.legend[0].items]
    assert any(lab.startswith("invariant (this run") and f"slope {s['slope']:+.2f}" in lab for lab in labels)
    assert f"M^{s['slope']:.2f}" in pane._headline.object
    assert any("slope −1/2" in lab for lab in labels)
    # the step curves: every recorded step of M = 1, 2 and 4 on the held-out digits, the saved records' values
    assert shown_sizes(s["sizes"]) == [1, 2, 4]
    test = records[records["inputs"] == "test"]
    for m in (1, 2, 4):
        rows = test[test["size"] == m].sort_values("step")
        for metric in ("equivariance_error", "divergence", "orbit_same_prediction"):
            xs, ys = pane.live.points(f"ens-{metric}", f"M = {m}")
            assert xs == list(rows["step"]) == [0, 4, 8, 12, 16, 20]
            np.testing.assert_allclose(ys, rows[metric], rtol=1e-12)
    # the loss: one point per step
    xs, _ = pane.loss_live.points("ens-loss", "median member")
    assert xs == list(range(1, TINY["steps"] + 1)) and pane._loss_box.visible
    # the digit along its orbit: the ensemble's and member 0's probability of its true class, per rotation
    ex = s["example"]
    layout = pane._example_pane.object
    bars = next(iter(layout.select({"name": "ens-bars"})))
    ens = next(r for r in bars.renderers if r.name == "ens-bars-ensemble").data_source.data
    one = next(r for r in bars.renderers if r.name == "ens-bars-member").data_source.data
    np.testing.assert_array_equal(ens["top"], np.asarray(ex["ensemble"])[:, ex["label"]])
    np.testing.assert_array_equal(one["top"], np.asarray(ex["member"])[:, ex["label"]])
    thumbs = layout.children[0].children  # the row, left to right: 0, 90, 180, 270 degrees
    assert [f.name for f in thumbs] == ["ens-thumb"] * 4
    for f, img in zip(thumbs, ex["images"]):  # drawn with row 0 on top (Bokeh's row 0 is the bottom one)
        np.testing.assert_array_equal(f.renderers[0].data_source.data["image"][0], np.asarray(img)[::-1])


def test_the_other_settings_latest_saved_run_is_drawn_beside(two_settings):
    pane, root = two_settings
    other, _, run = _saved(root, "noninvariant-init")
    dots = _renderer(pane._sizes_pane.object, "ens-size-noninvariant-init-saved")
    np.testing.assert_array_equal(dots["y"], other["equivariance_error"])
    assert run.name in pane._sizes_note.object


def test_loading_a_run_puts_its_settings_back_and_draws_it(two_settings):
    _, root = two_settings
    s, _, run = _saved(root, "noninvariant-init")
    pane = _pane(root)  # the family's defaults
    assert pane.members != TINY["members"] and pane.setting == "invariant"
    assert pane.load(str(run)), pane._error.object
    assert (pane.setting, pane.members, pane.steps, pane.channels) == ("noninvariant-init", 4, 20, 4)
    assert pane._status.object.startswith(f"Loaded `{run.name}`")
    fig = pane._sizes_pane.object
    np.testing.assert_array_equal(_renderer(fig, "ens-size-noninvariant-init")["y"], s["equivariance_error"])
    assert _renderer(fig, "ens-size-invariant-saved")["M"] is not None  # the other setting, from its saved run
    assert not pane._loss_box.visible, "a saved run has no loss per step"
    assert "✗ initialisation invariant" in pane._assumptions.object


def test_the_plan_and_the_assumptions_follow_the_settings(tmp_path):
    from lab.ensembles import check_assumptions

    pane = _pane(tmp_path, members=8, pool_factor=3, steps=50)
    assert "pool of 24 members" in pane._plan.object and "**1,200 member-steps**" in pane._plan.object
    for setting in SETTINGS:
        pane.setting = setting
        verified = check_assumptions(setting)
        assert {k: assumptions(setting)[k] for k in verified} == verified  # the words shown before torch runs
        text = pane._assumptions.object
        assert ("✓" if verified["space_invariant"] else "✗") + " layer space invariant" in text
        assert ("✓" if verified["init_invariant"] else "✗") + " initialisation invariant" in text
        assert ("does not apply" not in text) == verified["theorem_applies"]


def test_bad_settings_are_one_inline_message_and_start_nothing(tmp_path):
    pane = _pane(tmp_path, **TINY)
    pane.param.update(members=4096, pool_factor=64)  # each within its bounds; the pool's memory is not
    assert not pane.start()
    assert pane._error.visible and "\n" not in pane._error.object.strip()
    assert pane._error.object.startswith("training 262144 members needs about") and "memory limit" in \
        pane._error.object, pane._error.object
    assert pane._plan.object == "" and not pane.runner.busy
    assert not any(tmp_path.iterdir())
    pane.members = 4
    pane.pool_factor = 2
    assert not pane._error.visible, "the message follows the settings once they are accepted"


def test_a_hand_edited_saved_run_is_passed_over_not_drawn(tmp_path):
    bad = tmp_path / "20250101-000000-digits-noninvariant-space-M4-abcdef"
    bad.mkdir()
    (bad / "config.json").write_text(json.dumps({"kind": "ensembles", "config": {}, "status": "finished", "summary": {
        "setting": "noninvariant-space", "sizes": [1, "two"], "equivariance_error": [1.0, None]}}))
    pane = _pane(tmp_path)  # builds: the run is listed but not drawn
    assert [r.name for r in pane._sizes_pane.object.renderers if r.name] == []
    assert "No saved run of the digits task to compare with yet" in pane._sizes_note.object


def test_every_setting_has_one_colour():
    assert tuple(SETTING_COLOURS) == SETTINGS
    assert len(set(SETTING_COLOURS.values())) == len(SETTINGS)


def test_the_sizes_drawn_against_the_step():
    assert shown_sizes([1, 2, 4, 8, 16]) == [1, 4, 16]
    assert shown_sizes([1, 2]) == [1, 2]
    assert shown_sizes([1]) == [1]


def test_a_vector_task_hides_the_cnn_channels_and_says_its_own_assumptions(tmp_path):
    from bokeh.document import Document

    from lab.ensembles.pane import Ensembles

    pane = Ensembles(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    pane.channels = 5
    pane.task = "perm"
    assert not pane._channels_w.visible
    cfg = pane.config()
    assert cfg.task == "perm" and cfg.channels == cfg.option_named("channels").default
    pane.setting = "noninvariant-space"
    assert "first layer reads the first half" in pane._assumptions.object
    pane.task = "digits"
    assert pane._channels_w.visible and pane.config().channels == 5
    assert "corner" in pane._assumptions.object


def test_a_vector_task_run_has_no_digit_and_names_its_inputs(tmp_path):
    from bokeh.document import Document

    from lab.ensembles.pane import Ensembles

    pane = Ensembles(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(task="custom", members=4, pool_factor=2, steps=4)
    assert not pane._example_box.visible
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    s = pane._summary
    assert s["task"] == "custom" and s["example"] is None
    assert "held-out inputs" in pane._sizes_pane.object.title.text
    pane.task = "digits"
    assert pane._example_box.visible
