"""The dashboard's Figure 3.2 (``lab.rpp.plots_bokeh``), on made-up numbers (nothing trained): the boxes are numpy's
quartiles of the values given, every seed is a dot, an empty regime is drawn empty and says so."""
from __future__ import annotations

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.embed import json_item

from lab.rpp.plots_bokeh import (REGIMES, box_stats, panel_words, regime_columns, regimes_figure, show_regime,
                                 summary_values, y_limits)
from lab.plots.style import MODEL_COLOURS

KNOWN = [3.0, 1.0, 4.0, 1.5, 9.0, 2.6, 5.0]


def test_box_statistics_are_numpys_percentiles_and_whiskers_reach_the_extremes():
    s = box_stats(KNOWN)
    q1, med, q3 = np.percentile(KNOWN, [25, 50, 75])
    assert (s["q1"], s["median"], s["q3"]) == pytest.approx((q1, med, q3))
    assert (s["lo"], s["hi"], s["n"]) == (1.0, 9.0, 7)
    # what a log axis cannot show is left out, not drawn at 0
    assert box_stats([2.0, float("nan"), None, -1.0, 0.0, 4.0]) == box_stats([2.0, 4.0])
    assert box_stats([]) is None and box_stats([float("inf")]) is None


def test_a_panels_columns_hold_a_box_per_model_and_a_dot_per_seed_in_the_models_order():
    box, dots = regime_columns(["mlp", "emlp", "rpp"], {"rpp": [1.0, 2.0], "mlp": KNOWN},
                               seeds={"rpp": [4, 5], "mlp": list(range(7))})
    assert box["model"] == ["MLP", "RPP-EMLP"] and box["x"] == [1, 3]  # EMLP has no value: no box, its slot kept
    assert box["colour"] == [MODEL_COLOURS["mlp"], MODEL_COLOURS["rpp"]]
    assert box["median"] == pytest.approx([np.median(KNOWN), 1.5])
    assert len(dots["y"]) == 9 and dots["seed"][-2:] == [4, 5]
    mlp_x = [x for x, m in zip(dots["x"], dots["model"]) if m == "MLP"]
    assert len(set(mlp_x)) == 7 and all(abs(x - 1) <= 0.15 + 1e-12 for x in mlp_x)  # spread over its box
    assert regime_columns(["mlp"], {"mlp": KNOWN})[1]["x"] == regime_columns(["mlp"], {"mlp": KNOWN})[1]["x"]


def test_three_panels_start_empty_and_an_empty_regime_is_drawn_empty_not_an_error():
    layout, panels = regimes_figure("inertia", groups={"exact": "O(3)", "misspecified": "SL(3)"})
    assert list(panels) == list(REGIMES) == ["exact", "approximate", "misspecified"]
    for s, p in panels.items():
        assert p.note.visible and "no run" in p.note.text and p.box.data["x"] == [] and p.seeds.data["y"] == []
        assert p.figure.y_scale.__class__.__name__ == "LogScale" and s in p.title.text
    assert panels["misspecified"].subtitle.text.splitlines()[0] == "models over SL(3)"
    show_regime(panels["approximate"], {"mlp": [1.0, 2.0], "emlp": [], "rpp": [0.5]}, group="O(3)",
                target_error=0.17, variant="original")
    p = panels["approximate"]
    assert not p.note.visible and p.values() == {"MLP": [1.0, 2.0], "RPP-EMLP": [0.5]}
    assert p.title.text == "approximate symmetry"
    assert p.subtitle.text == "models over O(3) · authors' code\ntargets' symmetry error 0.17"
    assert p.figure.y_range.start < 0.5 and p.figure.y_range.end > 2.0
    show_regime(p, {"mlp": [float("nan")]})  # nothing drawable: empty again, saying so, the group kept
    assert p.note.visible and p.box.data["x"] == [] and p.subtitle.text.splitlines()[0] == "models over O(3)"
    doc = Document()
    doc.add_root(layout)
    json_item(layout)  # the whole figure serialises (what the browser is sent)


def test_titles_and_the_key_need_no_paper():
    title, sub = panel_words("misspecified", "SL(3)", 1.3)
    assert title == "misspecified symmetry" and sub == "models over SL(3)\ntargets' symmetry error 1.3"
    assert panel_words("exact")[1].count("\n") == 1  # two lines whatever is known: the panels line up
    layout, _ = regimes_figure("pendulum")
    head, _, key = layout.children
    assert "Double pendulum" in head.text and "test MSE" in head.text
    for words in ("MLP", "EMLP", "RPP-EMLP", "median", "interquartile", "lowest to highest", "seed"):
        assert words in key.text


def test_a_narrow_range_still_spans_a_readable_stretch_of_the_log_axis():
    lo, hi = y_limits([2.0, 2.1])
    assert lo < 2.0 and hi > 2.1 and hi / lo >= 4 - 1e-9
    lo, hi = y_limits([1e-3, 10.0])
    assert lo < 1e-3 and hi > 10.0 and hi / lo < 1e6


def test_summary_values_pair_each_models_numbers_with_its_seeds():
    s = {"seed_list": [3, 4], "models": {"mlp": {"test_mse": [1.0, 2.0]}, "rpp": {"test_mse": [5.0]}}}
    mse, seeds = summary_values(s)
    assert mse == {"mlp": [1.0, 2.0], "rpp": [5.0]} and seeds == {"mlp": [3, 4], "rpp": [3]}


@pytest.mark.parametrize("bad", [{}, {"models": [1, 2]}, {"models": {"mlp": "x"}}, {"models": {"mlp": {"test_mse": 3}}},
                                 {"seed_list": "ab", "models": {"mlp": {"test_mse": [1.0, "x"]}}}])
def test_a_hand_edited_summary_draws_what_it_can(bad):
    _, panels = regimes_figure("inertia")
    mse, seeds = summary_values(bad)
    show_regime(panels["exact"], mse, seeds)
    assert panels["exact"].values() in ({}, {"MLP": [1.0]})
