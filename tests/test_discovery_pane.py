"""The Symmetry-discovery tab (``lab discover-lie`` in the dashboard, issue 33): the heatmaps are the saved summary's
generators, the singular-value figure cuts at the config's tol (its kept values the basis's rank), the none task says
its none_reason inline, Load puts a run's settings back, and bad settings are one inline message that starts
nothing."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.models import GlyphRenderer, Image

from lab.discovery.pane import SymmetryDiscovery
from lab.discovery.family import DiscoveryConfig
from lab.discovery.plots_bokeh import KEPT_COLOUR, cut_of

sys.path.insert(0, str(Path(__file__).parent))
from polling import poll_to_end  # noqa: E402  (a hang guard, never a speed requirement)

#: k = 4 fills the plane's space: found at once; the loop's models trained briefly (the bars need numbers, not good ones)
TINY = dict(samples=800, fit_steps=800, steps=30, restarts=1, generators=4, loop_epochs=10)


def _pane(root, **settings):
    pane = SymmetryDiscovery(results=str(root))
    pane.__panel__().get_root(Document())
    pane.param.update(**settings)
    return pane


def _saved(root) -> tuple[Path, dict]:
    runs = [p for p in Path(root).iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0], json.loads((runs[0] / "config.json").read_text())


def _images(layout) -> list[np.ndarray]:
    """The heatmaps' matrices, in order, as the family wrote them (Bokeh's row 0 is the bottom one)."""
    renderers = [r for r in layout.select({"type": GlyphRenderer}) if isinstance(r.glyph, Image)]
    renderers.sort(key=lambda r: int(r.name.split("-")[2]))
    return [np.asarray(r.data_source.data["image"][0])[::-1] for r in renderers]


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    """The pane after a tiny run on the rotated plane (the default task), tol 0.02."""
    root = tmp_path_factory.mktemp("discovery-runs")
    pane = _pane(root, tol=0.02, **TINY)
    assert pane.start(), pane._error.object
    poll_to_end(pane)
    return pane, root


def test_the_heatmaps_are_the_saved_generators(plane):
    pane, root = plane
    _, meta = _saved(root)
    s = meta["summary"]
    assert pane._status.object.startswith("**done**") and not pane._error.visible
    assert s["found"] >= 1, s
    shown = _images(pane._generators_pane.object)
    assert len(shown) == s["found"] == len(s["generators"])
    for img, a in zip(shown, s["generators"]):
        np.testing.assert_array_equal(img, np.asarray(a))
    titles = [f.title.text for f in pane._generators_pane.object.select({"name": "disc-generator-0"})]
    assert titles and titles[0].endswith("✓"), titles  # kept: below the threshold
    assert f"{s['found']} generator(s) found" in pane._headline.object and not pane._none.visible


def test_the_singular_values_are_cut_at_the_configs_tol(plane):
    pane, root = plane
    _, meta = _saved(root)
    fig = pane._singular_pane.object
    assert cut_of(fig) == meta["config"]["tol"] == pane.config().tol == 0.02
    dots = next(r for r in fig.renderers if r.name == "disc-singular-values").data_source.data
    kept = [c == KEPT_COLOUR for c in dots["colour"]]
    assert sum(kept) == meta["summary"]["basis_rank"]
    assert all(v <= 0.02 for v, k in zip(dots["value"], kept) if k)
    assert all(v > 0.02 for v, k in zip(dots["value"], kept) if not k)
    assert list(dots["value"]) == sorted(dots["value"], reverse=True)


def test_the_comparison_bars_are_the_saved_test_mse(plane):
    pane, root = plane
    mse = _saved(root)[1]["summary"]["test_mse"]
    bars = next(r for r in pane._mse_pane.object.renderers if r.name == "disc-mse-bars").data_source.data
    assert list(bars["mse"]) == [mse[k] if mse.get(k) is not None else 0.0 for k in ("mlp", "emlp_true",
                                                                                       "emlp_learned")]


def test_loading_a_run_puts_its_settings_back_and_draws_it(plane):
    _, root = plane
    run, meta = _saved(root)
    pane = _pane(root)  # the family's defaults
    assert pane.samples == DiscoveryConfig.option_named("samples").default != TINY["samples"]
    assert pane.load(str(run)), pane._error.object
    assert (pane.samples, pane.fit_steps, pane.steps, pane.restarts, pane.tol) == (800, 800, 30, 1, 0.02)
    assert pane._status.object.startswith(f"Loaded `{run.name}`")
    for img, a in zip(_images(pane._generators_pane.object), meta["summary"]["generators"], strict=True):
        np.testing.assert_array_equal(img, np.asarray(a))
    assert cut_of(pane._singular_pane.object) == 0.02


def test_the_none_task_says_why_inline(tmp_path):
    pane = _pane(tmp_path, task="none", **TINY)
    assert pane.start(), pane._error.object
    poll_to_end(pane)
    s = _saved(tmp_path)[1]["summary"]
    assert s["found"] == 0 and s["none_reason"], s
    assert pane._none.visible and s["none_reason"] in pane._none.object
    assert _images(pane._generators_pane.object) == []


def test_bad_settings_are_one_inline_message_and_start_nothing(tmp_path):
    pane = _pane(tmp_path, **TINY)
    pane.generators = 9  # within its bounds; the plane's generator space has 4 directions
    assert pane._start_b.disabled and "4 directions" in pane._invalid.object  # said beside Start at once
    assert not pane.start()
    assert pane._error.visible and "\n" not in pane._error.object.strip()
    # said with the box's label, not the command line's flag
    assert "**Generators k** 9" in pane._error.object and "4 directions" in pane._error.object, pane._error.object
    assert "--" not in pane._error.object
    assert pane._plan.object == "" and not pane.runner.busy
    assert not any(tmp_path.iterdir())
    pane.generators = 2
    assert not pane._error.visible, "the message follows the settings once they are accepted"


def test_the_headline_names_the_posed_groups_algebra_only_where_the_truth_is_larger():
    """Inertia's truth is gl(3) and five trades; the headline also says how closely so(3), the group the task is
    posed with, lies within the learned span -- and says nothing of it where the two coincide."""
    import math

    from lab.discovery.pane import headline

    base = {"task": "inertia", "found": 14, "true_dimension": 14, "method": "gradient", "max_angle_degrees": 3.3,
            "tol": 0.2, "basis_rank": 10, "true_basis_rank": 10, "status": "finished", "seconds": 99.0}
    text = headline({**base, "posed_group": "SO(3)", "posed_group_angles": [0.001, 0.002, math.radians(1.5)]})
    assert "SO(3)'s algebra within the learned span to 1.50°" in text
    assert "SO(3)" not in headline({**base, "task": "rotated-plane", "posed_group": None, "posed_group_angles": []})
