"""The Symmetry regimes mode of the Equivariant models tab (``lab rpp`` in the dashboard): a run fills its regime's
panel of Figure 3.2, its log and its table with its own numbers; the other regimes' panels come from saved runs; bad
settings are one inline message and start nothing; a saved run loads back."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from bokeh.document import Document

from lab.emlp.pane import EquivariantModels
from lab.rpp.pane import RPPRegimes
from lab.rpp.family import FAMILY, RPPConfig

sys.path.insert(0, str(Path(__file__).parent))
from polling import DEADLINE, poll_to_end  # noqa: E402  (a hang guard, never a speed requirement)

TINY = dict(size=20, test=20, channels=16, layers=1, epochs=2, seeds=2)


def _pane(tmp_path, **settings):
    pane = RPPRegimes(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(**TINY, **settings)
    return pane


def _run_to_end(pane):
    poll_to_end(pane)


def _drawn(panel) -> dict:
    return {m: sorted(v) for m, v in panel.values().items()}


@pytest.fixture(scope="module")
def saved_exact(tmp_path_factory):
    """One tiny exact-inertia run saved by the family itself (as ``lab rpp`` saves it)."""
    root = tmp_path_factory.mktemp("rpp-runs")
    result = FAMILY.run(RPPConfig(task="inertia", symmetry="exact", **TINY))
    return root, FAMILY.save(result, root), FAMILY.summary(result)


def test_a_run_fills_its_regimes_boxes_log_and_table_with_its_own_numbers(saved_exact, tmp_path):
    _, path, exact = saved_exact
    root = tmp_path
    shutil.copytree(path, root / path.name)
    pane = _pane(root, symmetry="approximate")
    # before the run: the exact panel from the saved run, the others empty and saying so
    assert _drawn(pane._panels["exact"]) == {"MLP": sorted(exact["models"]["mlp"]["test_mse"]),
                                             "EMLP": sorted(exact["models"]["emlp"]["test_mse"]),
                                             "RPP-EMLP": sorted(exact["models"]["rpp"]["test_mse"])}
    assert pane._panels["approximate"].note.visible and not pane._panels["exact"].note.visible
    assert pane._variant_w.visible and pane._prior_w.visible
    cfg = pane.config()  # the plan says the config's exact counts before any work: 2 epochs of 20 points
    assert pane._plan.object == (f"Start trains 3 models × 2 seeds, {cfg.schedule().steps(20)} optimiser steps "
                                 f"each ({cfg.total_steps()} in all) on 20 points")
    assert cfg.total_steps() == 3 * 2 * cfg.schedule().steps(20)
    assert pane.start()
    _run_to_end(pane)
    assert "done" in pane._status.object and not pane._error.visible
    new = [p for p in root.iterdir() if "approximate" in p.name]
    assert len(new) == 1
    saved = FAMILY.load(new[0]).results
    table = pane._table.object
    assert isinstance(table, pd.DataFrame) and len(table) == 6  # 3 models x 2 seeds
    assert list(table.columns)[:7] == ["model", "seed", "test MSE", "train MSE", "predicting the mean: test MSE",
                                       "equivariance error", "free fraction"]
    assert (table["predicting the mean: test MSE"] != "-").all()  # the trivial baseline beside every model's MSE
    assert (table["free fraction"] != "-").sum() == 2  # RPP-EMLP's only
    panel = pane._panels["approximate"]
    drawn = _drawn(panel)
    assert set(drawn) == {"MLP", "EMLP", "RPP-EMLP"} and all(len(v) == 2 for v in drawn.values())
    for model, label in (("mlp", "MLP"), ("emlp", "EMLP"), ("rpp", "RPP-EMLP")):
        assert drawn[label] == sorted(saved[saved["model"] == model]["test_mse"].tolist())
    assert panel.title.text == "approximate symmetry" and not panel.note.visible
    # the trivial baseline (issue 48): a dashed line at the seeds' median test MSE of predicting the targets' mean,
    # the saved rows' own numbers, inside the panel's y range; an empty panel has none
    base = saved.groupby("seed")["mean_mse"].first()
    assert panel.baseline.visible and panel.baseline.location == pytest.approx(float(np.median(base)))
    assert panel.figure.y_range.start < panel.baseline.location < panel.figure.y_range.end
    assert len(exact["mean_mse"]) == exact["seeds"] and min(exact["mean_mse"]) > 0  # one per seed, in the summary
    assert pane._panels["exact"].baseline.location == pytest.approx(float(np.median(exact["mean_mse"])))
    assert pane._panels["exact"].baseline.visible and not pane._panels["misspecified"].baseline.visible
    assert panel.subtitle.text.startswith("models over O(3) · authors' code\ntargets' symmetry error ")
    # the exact panel still shows the saved run; the misspecified one has none
    assert _drawn(pane._panels["exact"])["MLP"] == sorted(exact["models"]["mlp"]["test_mse"])
    assert pane._panels["misspecified"].note.visible
    assert "saved run" in pane._panels_note.object and "this run" in pane._panels_note.object
    assert len(pane.live.groups) == 6 and len(pane.live.data) == 6 * 2  # every epoch of every model and seed


def test_bad_settings_are_one_inline_message_and_start_nothing(tmp_path):
    pane = _pane(tmp_path)
    free = next(w for w in pane._controls.select() if getattr(w, "_param_name", None) == "prior_free")
    free.value = -1.0  # below the field's bound: kept as typed, said beside a disabled Start
    assert pane.prior_free == -1.0 and pane._start_b.disabled
    assert pane._invalid.visible
    assert pane._invalid.object.startswith("**Free pathway σ²**: a finite number of at least 0")
    assert not pane.start() and pane.runner.job is None
    pane.param.update(prior_free=0.0, prior_equivariant=0.0)  # in range, but the config refuses the pair
    assert pane._start_b.disabled and pane._invalid.visible
    assert not pane.start()
    assert pane._error.visible and pane.runner.job is None and not list(tmp_path.iterdir())
    pane.param.update(prior_equivariant=None)  # the refusal follows the settings: fixed, it goes
    assert not pane._error.visible and not pane._invalid.visible and not pane._start_b.disabled
    pane.param.update(prior_free=None, task="pendulum", symmetry="approximate")  # lab rpp's pendulum: accepted
    assert not pane._error.visible and pane._wind_w.visible
    wind = next(w for w in pane._controls.select() if getattr(w, "_param_name", None) == "wind")
    wind.value = -1.0  # below the config's bound: said inline, the setting kept
    assert pane._invalid.visible and pane.wind == -1.0 and pane._start_b.disabled


def test_prior_controls_follow_the_models_and_the_variant_the_regime(tmp_path):
    pane = _pane(tmp_path, symmetry="exact")
    assert not pane._variant_w.visible
    assert pane.variant == RPPConfig.option_named("variant").default == "original"  # the config's default
    assert list(pane.param.variant.objects) == list(RPPConfig.option_named("variant").choices)  # not a copy
    pane.param.update(variant="thesis", prior_free=2.0)
    cfg = pane.config()
    assert cfg.variant == "original" and cfg.prior_free == 2.0  # a hidden variant never reaches the config
    pane.models = ["mlp", "emlp"]
    assert not pane._prior_w.visible and pane.config().prior_free is None
    pane.config().validate()  # accepted: the prior's settings were left out with RPP-EMLP
    pane.param.update(symmetry="approximate", models=["mlp", "rpp"], seeds=1)  # several at once, as Load sets them
    assert pane._variant_w.visible and pane._prior_w.visible and not pane._error.visible
    assert pane._plan.object.startswith("Start trains 2 models × 1 seed, ")
    assert not pane._wind_w.visible  # inertia: no wind control
    pane.param.update(task="pendulum", wind=0.05)  # the windy pendulum's strength: shown and passed on
    assert pane._wind_w.visible and not pane._variant_w.visible and pane.config().wind == 0.05
    assert pane._plan.object.endswith("trajectory chunks")
    pane.symmetry = "exact"  # no wind outside the approximate pendulum: hidden, left out of the config
    assert not pane._wind_w.visible and pane.config().validate().wind == 0.01


def test_load_restores_the_controls_and_the_boxes(saved_exact):
    root, path, exact = saved_exact
    pane = RPPRegimes(results=str(root), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(symmetry="misspecified", channels=8, seeds=5)
    assert pane._saved.value == str(path) and not pane._load_b.disabled
    shown = pane._figure.object
    assert pane.load(pane._saved.value, wait=True)
    # a new figure, filled before it is shown (a figure on the page is changed by the periodic callback only)
    assert pane._figure.object is not shown
    assert pane.symmetry == "exact" and pane.channels == 16 and pane.seeds == 2 and pane.epochs == 2
    assert list(pane.models) == ["mlp", "emlp", "rpp"]
    drawn = _drawn(pane._panels["exact"])
    assert drawn["RPP-EMLP"] == sorted(exact["models"]["rpp"]["test_mse"]) and len(drawn) == 3
    assert len(pane._table.object) == 6 and len(pane.live.groups) == 6
    assert f"Loaded `{path.name}`" in pane._status.object
    assert not pane.load(str(root.parent), wait=True) and pane._error.visible


def test_runs_saved_before_the_default_changed_load_as_they_ran(saved_exact, tmp_path):
    """Until 2026-11-27 approximate inertia's default was the thesis's formula: every saved run stored it, also
    where it did not apply (exact, misspecified), and a run without the setting ran on it.  Both load: the exact run
    unchanged, the approximate one with the thesis's formula back in the control."""
    import json

    _, path, _ = saved_exact
    old_exact, old_approximate = tmp_path / "old-exact", tmp_path / "old-approximate"
    shutil.copytree(path, old_exact)
    shutil.copytree(path, old_approximate)
    for run, change in ((old_exact, {"variant": "thesis"}), (old_approximate, {"symmetry": "approximate"})):
        meta = json.loads((run / "config.json").read_text())
        meta["config"] = {k: v for k, v in meta["config"].items() if k != "variant"} | change
        (run / "config.json").write_text(json.dumps(meta))
    pane = RPPRegimes(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    assert pane.load(str(old_exact), wait=True) and not pane._error.visible
    assert pane.symmetry == "exact" and pane.variant == "original"
    assert pane.load(str(old_approximate), wait=True) and not pane._error.visible
    assert pane.symmetry == "approximate" and pane.variant == "thesis" and pane.config().variant == "thesis"


def test_the_tab_switches_between_the_chapters(tmp_path):
    """The Equivariant models tab shows the chapter-2 controls until the switch says regimes; then the regimes
    view's sidebar and main area, and back."""
    pane = EquivariantModels(results=str(tmp_path / "emlp"), rpp_results=str(tmp_path / "rpp"), worker="thread")
    pane.__panel__().get_root(Document())
    assert pane.regimes is None and pane._controls in pane.sidebar.select()
    pane.mode = "regimes"
    assert isinstance(pane.regimes, RPPRegimes) and pane.regimes.results == tmp_path / "rpp"
    assert pane.regimes._controls in pane.sidebar.select() and pane._controls not in pane.sidebar.select()
    assert pane.regimes._figure in pane.main.select()
    pane.mode = "efficiency"
    assert pane._controls in pane.sidebar.select() and pane._efficiency in pane.main.select()


def test_the_switch_is_locked_while_a_regimes_run_goes_on(tmp_path):
    pane = EquivariantModels(results=str(tmp_path / "emlp"), rpp_results=str(tmp_path / "rpp"), worker="thread",
                             mode="regimes")
    pane.__panel__().get_root(Document())
    view = pane.regimes
    view.param.update(**TINY | {"epochs": 100_000, "seeds": 1})
    assert view.start() and pane._mode_w.disabled and view._controls.objects[0].disabled
    view.stop(wait=True, timeout=DEADLINE)
    _run_to_end(view)
    assert "stopped" in view._status.object and not pane._mode_w.disabled


def test_a_log_of_training_losses_says_so(tmp_path):
    """A task whose epoch records carry no test MSE (as ``lab emlp``'s pendulum): the log draws the training loss
    and its words say so (how the pendulum's records may come once ``lab rpp`` has it)."""
    pane = _pane(tmp_path)
    pane._on_message({"kind": "epoch", "model": "mlp", "seed": 0, "epoch": 1, "epochs": 2, "train_mse": 3.0,
                      "test_mse": None})
    assert pane.live.data.median("MLP · seed 0", "mse").tolist() == [3.0]
    assert pane.live.figure("rpp-log").yaxis.axis_label == "train MSE"
    pane._reset_plots(pane._planned())
    assert pane.live.figure("rpp-log").yaxis.axis_label == "test MSE"


def test_a_hand_edited_saved_run_leaves_its_panel_empty_and_the_view_up(saved_exact, tmp_path):
    import json

    _, path, _ = saved_exact
    shutil.copytree(path, tmp_path / path.name)
    meta = json.loads((tmp_path / path.name / "config.json").read_text())
    meta["summary"]["models"] = [1, 2]
    (tmp_path / path.name / "config.json").write_text(json.dumps(meta))
    pane = _pane(tmp_path)
    assert pane._panels["exact"].note.visible and not pane._error.visible
    assert "no run yet" in pane._panels_note.object
