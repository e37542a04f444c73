"""The Generalization-bounds tab (``lab bound`` in the dashboard, issue 31): a comparison's figures carry the saved
runs' own numbers (the bound, train error and size against d are the saved summaries', the bars each model's best
bound), Load puts a run's settings back, the rotation reaches the config for the rotated digits only, and bad
settings are one inline message that starts nothing."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from bokeh.document import Document

from lab.bounds.pane import FROM_DIR, ROTATED, GeneralizationBounds
from lab.bounds.family import DATASETS, GUESS_ERROR, MODELS, BoundsConfig
from lab.bounds.plots_bokeh import BITS_PER_KB, model_label
from lab.plots.style import BOUND_MODEL_COLOURS

sys.path.insert(0, str(Path(__file__).parent))
from polling import poll_to_end  # noqa: E402  (a hang guard, never a speed requirement)

TINY = dict(dims="0,8", steps=5, quant_steps=5, train_points=64, models=["mlp", "gcnn"])


def _pane(root, **settings):
    pane = GeneralizationBounds(results=str(root))
    pane.__panel__().get_root(Document())
    pane.param.update(**settings)
    return pane


def _saved(root) -> dict:
    """{model: summary} of the saved runs in ``root`` (one per model)."""
    out = {}
    for run in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        s = json.loads((run / "config.json").read_text())["summary"]
        assert s["model"] not in out, "one saved run per model"
        out[s["model"]] = s
    return out


def _renderer(fig, name):
    found = [r for r in fig.renderers if r.name == name]
    assert found, f"no renderer {name!r} in {[r.name for r in fig.renderers]}"
    return found[0].data_source.data


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """The pane after a tiny comparison of the MLP and the GCNN."""
    root = tmp_path_factory.mktemp("bounds-runs")
    pane = _pane(root, **TINY)
    assert pane.start(), pane._error.object
    poll_to_end(pane)
    return pane, root


def test_the_figures_carry_the_saved_summaries(compared):
    pane, root = compared
    saved = _saved(root)
    assert pane._status.object.startswith("**done**") and not pane._error.visible
    assert sorted(saved) == ["gcnn", "mlp"]
    figs = {q: p.object for q, p in pane._figure_panes.items()}
    for model, s in saved.items():
        rows = s["dims"]
        assert [r["d"] for r in rows] == [0, 8]
        bound = _renderer(figs["bound"], f"bnd-bound-{model}")
        assert list(bound["d"]) == [0, 8]
        assert bound["y"][-1] == rows[-1]["bound"]  # the last bound drawn is the saved one
        np.testing.assert_array_equal(bound["y"], [r["bound"] for r in rows])
        np.testing.assert_array_equal(_renderer(figs["train_error"], f"bnd-train_error-{model}")["y"],
                                      [r["train_error"] for r in rows])
        np.testing.assert_array_equal(_renderer(figs["train_error"], f"bnd-test_error-{model}")["y"],
                                      [r["test_error"] for r in rows])
        np.testing.assert_allclose(_renderer(figs["size_kb"], f"bnd-size_kb-{model}")["y"],
                                   [r["compressed_bits"] / BITS_PER_KB for r in rows], rtol=1e-15)
        line = next(r for r in figs["bound"].renderers if r.name == f"bnd-bound-{model}-line")
        assert line.glyph.line_color == BOUND_MODEL_COLOURS[model]
    # the bars: each model's best bound, labelled with its d
    bars = _renderer(pane._best_pane.object, "bnd-best-bars")
    assert list(bars["model"]) == [model_label(m) for m in TINY["models"]]
    assert list(bars["bound"]) == [saved[m]["best_bound"] for m in TINY["models"]]
    assert list(bars["d"]) == [saved[m]["best_dim"] for m in TINY["models"]]
    assert all(f"d = {d}" in lab for d, lab in zip(bars["d"], bars["label"]))
    # the guessing error: the reference line on the bound's figure, labelled
    spans = [a for a in figs["bound"].center if getattr(a, "name", None) == "bnd-vacuous"]
    assert spans and spans[0].location == GUESS_ERROR
    assert any("vacuous above" in getattr(a, "text", "") for a in figs["bound"].center)
    ref = next(r for r in pane._best_pane.object.renderers if r.name == "bnd-vacuous")  # the bars': in the legend
    assert list(ref.data_source.data["y"]) == [GUESS_ERROR]
    # the headline names each model's best bound
    for m in TINY["models"]:
        assert f"{model_label(m)} **{saved[m]['best_bound']:.3f}** at d = {saved[m]['best_dim']}" in \
            pane._headline.object
    # the loss of the last d trained: its steps, the quantization-aware ones after the subspace training's
    xs, ys = pane.loss_live.points("bnd-loss", "train")
    assert xs[0] == TINY["steps"] and np.isfinite(ys[0])
    xs, ys = pane.loss_live.points("bnd-loss", "quantize")
    assert xs[-1] == TINY["steps"] + TINY["quant_steps"] and np.isfinite(ys[-1])
    assert "GCNN" in pane.loss_live.figure("bnd-loss").title.text and "d = 8" in \
        pane.loss_live.figure("bnd-loss").title.text


def test_loading_a_run_puts_its_settings_back_and_draws_it(compared):
    _, root = compared
    saved = _saved(root)
    run = next(p for p in sorted(Path(root).iterdir()) if p.is_dir() and "-mlp-" in p.name)
    pane = _pane(root)  # the family's defaults
    assert pane.dims != TINY["dims"] and pane.models == list(MODELS)
    assert pane.load(str(run)), pane._error.object
    assert (pane.dims, pane.steps, pane.quant_steps, pane.train_points, pane.models) == (
        "0,8", 5, 5, 64, ["mlp"])
    assert pane._status.object.startswith(f"Loaded `{run.name}`")
    bound = _renderer(pane._figure_panes["bound"].object, "bnd-bound-mlp")
    np.testing.assert_array_equal(bound["y"], [r["bound"] for r in saved["mlp"]["dims"]])
    assert list(_renderer(pane._best_pane.object, "bnd-best-bars")["bound"]) == [saved["mlp"]["best_bound"]]


def test_the_plan_says_the_exact_costs(tmp_path):
    pane = _pane(tmp_path, **TINY)
    costs = {m: BoundsConfig(model=m, dims="0,8", steps=5, quant_steps=5, train_points=64).costs() for m in MODELS}
    assert f"MLP D = {costs['mlp']['parameters']:,}" in pane._plan.object
    assert f"**{costs['mlp']['steps'] + costs['gcnn']['steps']:,} steps**" in pane._plan.object
    assert "on 64 training points" in pane._plan.object


def test_bad_settings_are_one_inline_message_and_start_nothing(tmp_path):
    pane = _pane(tmp_path, **TINY)
    pane.dims = "10,x"
    assert not pane.start()
    assert pane._error.visible and "\n" not in pane._error.object.strip()
    assert "'x' is not a non-negative whole number" in pane._error.object, pane._error.object
    assert pane._plan.object == "" and not pane.runner.busy and pane.runner.job is None
    assert not any(tmp_path.iterdir())
    pane.dims = "0,8"
    assert not pane._error.visible, "the message follows the settings once they are accepted"
    pane.models = []
    assert not pane.start() and pane._error.object == "choose at least one model"
    pane.param.update(models=["gcnn"], dims="0,7000")  # within the MLP's 7 270 parameters, not the GCNN's
    assert not pane.start() and "larger than the model's" in pane._error.object
    assert not pane.runner.busy and not any(tmp_path.iterdir())


def test_the_rotation_shows_and_reaches_the_config_for_the_rotated_digits_only(tmp_path):
    pane = _pane(tmp_path)
    default = BoundsConfig.option_named("rotation").default
    other = next(r for r in BoundsConfig.option_named("rotation").choices if r != default)
    assert not pane._rotation_w.visible and not pane._data_dir_w.visible
    pane.rotation = other  # set while hidden: kept by the control, never sent
    assert pane.config().rotation == default and pane.config().validate()
    pane.data = ROTATED
    assert pane._rotation_w.visible and pane.config().rotation == other
    pane.data = FROM_DIR
    assert pane._data_dir_w.visible and not pane._rotation_w.visible
    assert pane.config().rotation == default and pane.config().data_dir is None
    pane.data = "digits"
    pane.data_dir = "/somewhere"
    assert pane.config().data_dir is None


def test_every_model_has_one_colour_and_the_data_words_are_the_familys():
    assert tuple(BOUND_MODEL_COLOURS) == MODELS
    assert len(set(BOUND_MODEL_COLOURS.values())) == len(MODELS)
    assert ROTATED in DATASETS and FROM_DIR in DATASETS
