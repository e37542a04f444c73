"""The Equivariance meter tab (``lab lie-derivative`` in the dashboard): a run is saved and drawn from its files --
the total LEE, Figure 4.4's cumulative layer contributions, one input along its flow with its tangent, the loss
curve -- with the numbers the family wrote; the model list offers the runs of this session, which are measured again
without training; a preset's controls and transformation follow its kind; bad settings are one inline message."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from bokeh.document import Document

from lab.meter.pane import CNN_ONLY, EquivarianceMeter, run_label
from lab.meter.family import GENERATORS, VIEW_EXAMPLES

sys.path.insert(0, str(Path(__file__).parent))
from polling import poll_to_end  # noqa: E402  (a hang guard, never a speed requirement)

TINY = dict(epochs=3, samples=16)


def _pane(tmp_path, **settings):
    pane = EquivarianceMeter(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(**settings)
    return pane


def _run_to_end(pane):
    poll_to_end(pane)


def _renderer_data(fig, name=None):
    return [r.data_source.data for r in fig.renderers if name is None or r.name == name]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One tiny CNN measured by the pane (3 epochs, 16 inputs, layer-wise), and the pane."""
    root = tmp_path_factory.mktemp("meter-runs")
    pane = _pane(root, **TINY)
    assert pane.layerwise, "the tab measures layer-wise by default (it draws Figure 4.4)"
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    return pane, root


def test_a_measured_run_is_saved_and_drawn_with_its_own_numbers(measured):
    pane, root = measured
    runs = sorted(p for p in root.iterdir() if p.is_dir())
    assert len(runs) == 1
    summary = json.loads((runs[0] / "config.json").read_text())["summary"]
    assert pane._status.object.startswith("**done**") and runs[0].name in pane._status.object
    assert f"LEE = {summary['lee']:.3g}" in pane._headline.object
    # Figure 4.4: one dot per layer, the last at the sum of the layers' E|C_i|, in layer order
    fig = pane._cumulative.object
    dots = next(d for d in _renderer_data(fig) if "colour" in d)
    assert list(dots["name"]) == [r["name"] for r in summary["layers"]]
    np.testing.assert_allclose(dots["cumulative"][-1], sum(r["contribution"] for r in summary["layers"]), rtol=1e-12)
    assert np.all(np.diff(dots["cumulative"]) >= 0)
    # the table: every layer, its share adding up to 1 (the vectors C_i add up to L_X f)
    table = pane._table.object
    assert list(table["layer"]) == [r["name"] for r in summary["layers"]]
    assert sum(r["share"] for r in summary["layers"]) == pytest.approx(1.0, abs=1e-9)
    # the loss curve: one point per epoch, the saved losses
    assert len(summary["training"]["losses"]) == TINY["epochs"]
    assert pane._loss_box.visible


def test_the_example_input_is_drawn_along_its_flow_with_its_tangent(measured):
    pane, _ = measured
    view = pane._view
    assert len(view["examples"]) == VIEW_EXAMPLES and pane._example_box.visible
    layout = pane._example_pane.object
    thumbs = [f for f in layout.select({"name": "meter-thumb"})]
    assert len(thumbs) == len(view["examples"][0]["t_versions"])
    for k in (0, 2):
        pane.example = k
        ex = view["examples"][k]
        out = next(iter(pane._example_pane.object.select({"name": "meter-output"})))
        lines = _renderer_data(out)
        tangent = [d for d in lines if np.allclose(np.diff(d["y"], 2), 0, atol=1e-12)
                   and not np.allclose(d["y"], ex["outputs"][:, ex["top"]])]
        assert tangent, "no straight tangent line drawn"
        t, y = tangent[-1]["x"], tangent[-1]["y"]
        assert (y[-1] - y[0]) / (t[-1] - t[0]) == pytest.approx(ex["lie"][ex["top"]], rel=1e-9, abs=1e-15)
        # every thumbnail is its transformed version, drawn with row 0 on top (Bokeh's row 0 is the bottom one);
        # the middle one is the input itself (t = 0)
        thumbs = pane._example_pane.object.children[0].children  # the row, left to right
        assert all(f.name == "meter-thumb" for f in thumbs)
        for f, img in zip(thumbs, ex["images"]):
            np.testing.assert_array_equal(f.renderers[0].data_source.data["image"][0], img[::-1])
        assert ex["t_versions"][len(thumbs) // 2] == 0


def test_the_run_is_offered_as_a_model_and_measured_again_without_training(measured):
    pane, root = measured
    run = str(next(p for p in root.iterdir() if p.is_dir()))
    labels = {v: k for k, v in pane._model_w.options.items()}
    assert labels[run].startswith("this session: cnn-stride-translate-x (")
    assert pane.model == run, "after a run the model is the measured one (Start measures it again)"
    assert not pane._epochs_w.visible and not pane._seed_w.visible  # a saved model brings its own
    cfg = pane.config()
    assert cfg.model == run and cfg.epochs == cfg.option_named("epochs").default
    pane.transform = "rotate"
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    s = pane._view["summary"]
    assert s["transform"] == "rotate" and s["source"] == run and s["unit"] == "per radian"
    assert s["costs"]["train_steps"] == 0, "a saved model is measured again, not trained"
    assert len([p for p in root.iterdir() if p.is_dir()]) == 2


def test_a_preset_is_measured_along_its_generators_and_its_image_controls_hide(tmp_path):
    pane = _pane(tmp_path, samples=8, inputs="noise", output="logits", epochs=7)
    pane.model = "emlp-o3"
    assert pane.transform == GENERATORS and not pane._cnn_w.visible
    cfg = pane.config()  # the hidden image settings keep their values but do not reach the config
    assert all(getattr(cfg, n) == cfg.option_named(n).default for n in CNN_ONLY)
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    s = pane._view["summary"]
    assert s["preset"] == "emlp-o3" and s["lee"] < 1e-20
    assert list(pane._table.object["generator"])[:3] == ["lie 0", "lie 1", "lie 2"]
    assert not pane._example_box.visible and not pane._cumulative_box.visible and not pane._loss_box.visible
    pane.model = "mlp-o3"
    assert pane.start(), pane._error.object
    _run_to_end(pane)
    assert pane._view["summary"]["lee"] > 1e-6  # the same reps without the constraint: not equivariant
    pane.model = "cnn-blur"
    assert pane.transform == "translate-x" and pane._cnn_w.visible


def test_bad_settings_are_one_inline_message_and_start_nothing(tmp_path):
    pane = _pane(tmp_path, **TINY)
    pane.transform = GENERATORS  # a CNN on images has no Lie-algebra generators
    assert not pane.start()
    assert pane._error.visible and "generators applies to the matrix-group presets" in pane._error.object
    assert not any(tmp_path.iterdir())
    pane.transform = "translate-y"
    assert not pane._error.visible, "the message follows the settings once they are accepted"


def test_run_labels_read_the_store_names():
    assert run_label("20261125-140822-emlp-o3-generators-d35a8e", today=True) == "emlp-o3-generators (14:08:22)"
    assert run_label("20261125-140822-emlp-o3-generators-d35a8e") == "emlp-o3-generators (2026-11-25 14:08)"
    assert run_label("my-run") == "my-run"
