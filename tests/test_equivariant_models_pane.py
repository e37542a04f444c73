"""The Equivariant models pane (``lab emlp`` in the dashboard): a run streams into its plots and table, the plotted
points are the run's own numbers, bad settings are one inline message, and Stop ends a run."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from bokeh.document import Document

from lab.emlp.pane import EquivariantModels
from lab.errors import LabError
from lab.emlp.family import FAMILY, EMLPConfig
from lab.plots.style import MEAN_BASELINE, MODEL_LABELS

sys.path.insert(0, str(Path(__file__).parent))
from polling import DEADLINE, poll_to_end  # noqa: E402  (a hang guard, never a speed requirement)


def _pane(tmp_path, **settings):
    pane = EquivariantModels(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    pane.param.update(task="o5", channels=8, layers=1, epochs=4, test=30, **settings)
    pane._sizes_w.value = "20,40"
    return pane


def _run_to_end(pane):
    poll_to_end(pane)


def test_a_run_fills_the_plots_and_table_with_its_own_numbers(tmp_path):
    pane = _pane(tmp_path)
    assert pane.start()
    _run_to_end(pane)
    assert "done" in pane._status.object
    (run,) = list(tmp_path.iterdir())
    saved = FAMILY.load(run)
    means = saved.results.groupby(["model", "size"])["test_mse"].mean()
    for model, src in pane._sources.items():
        assert src.data["x"] == [20, 40]
        assert src.data["y"] == [float(means.loc[(model, n)]) for n in (20, 40)]
    table = pane._table.object
    assert isinstance(table, pd.DataFrame) and len(table) == 6  # 3 models x 2 sizes
    # the trivial baseline beside the MSEs (issue 48): one number per size and seed, whichever model (the same data),
    # the saved run's own
    base = table.groupby(["N", "seed"])[MEAN_BASELINE].nunique()
    assert (base == 1).all() and list(table.columns).index(MEAN_BASELINE) == list(table.columns).index("train MSE") + 1
    saved_base = saved.results.groupby(["size", "seed"])["mean_mse"].first()
    for (n, seed), v in table.groupby(["N", "seed"])[MEAN_BASELINE].first().items():
        assert v == f"{saved_base.loc[(n, seed)]:.3g}" and float(v) > 0
    # and a dashed line in the data-efficiency figure: the baseline's mean over seeds at each size
    assert pane._baseline.data["x"] == [20, 40]
    assert pane._baseline.data["y"] == pytest.approx([saved_base.loc[n].mean() for n in (20, 40)])
    assert len(pane.live.groups) == 6 and len(pane.live.data) == 6 * 4  # every epoch of every model and size


def test_bad_settings_are_one_inline_message_and_stop_ends_a_run(tmp_path):
    pane = _pane(tmp_path)
    pane._sizes_w.value = "20,x"
    assert not pane.start()
    assert pane._error.visible and "whole numbers" in pane._error.object
    pane._sizes_w.value = "20"
    pane.param.update(epochs=100_000)
    assert pane.start() and not pane._error.visible
    time.sleep(0.5)
    pane.stop(wait=True, timeout=DEADLINE)
    _run_to_end(pane)
    assert "stopped" in pane._status.object


def test_the_pendulum_draws_its_rollout_against_the_truth_and_its_errors(tmp_path):
    """Task pendulum: the Learns buttons show, the log plots the training loss, the efficiency plot the rollout
    errors the run saved, the table has the rollout and L_z errors, and one held-out rollout is drawn for every
    model beside the true one (150 times; the truth is the same start for every model).  Back on a regression
    task the rollout is hidden again."""
    pane = EquivariantModels(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    assert not pane._dynamics_w.visible
    pane.param.update(task="pendulum", models=["mlp", "emlp"], dynamics=["hnn"], channels=8, epochs=3, test=3)
    pane._sizes_w.value = "8"
    assert pane._dynamics_w.visible
    assert pane.start()
    _run_to_end(pane)
    assert "done" in pane._status.object and pane._rollout_box.visible
    saved = FAMILY.load(next(tmp_path.iterdir())).results.set_index("model")
    for model in ("hnn-mlp", "hnn-emlp"):
        assert pane._sources[model].data == {"x": [8], "y": [float(saved["rollout_error"][model])]}
        drawn = pane._rollout_sources[model].data
        assert len(drawn["t"]) == 150 and drawn["t"][-1] == pytest.approx(29.8)
    true = pane._rollout_sources["true"].data
    assert len(true["x"]) == 150 and true["x"] != pane._rollout_sources["hnn-mlp"].data["x"]
    emlp_lz = pane._rollout_sources["hnn-emlp"].data["lz"]
    assert max(emlp_lz) - min(emlp_lz) < 1e-3 * max(abs(v) for v in emlp_lz)  # Noether: flat, drawn so
    assert {"rollout error", "L_z error"} <= set(pane._table.object.columns) and len(pane._table.object) == 2
    marks = dict(zip(pane._table.object["model"], pane._table.object["audit"].str[-1]))  # lab.equivariance, O2eR3()
    assert marks == {"HNN EMLP": "✓", "HNN MLP": "✗"}
    assert pane.live.figure("emlp-log").title.text.startswith("training loss")
    pane.param.update(task="o5", models=["mlp"], epochs=1, test=20, channels=8)
    pane._sizes_w.value = "20"
    assert pane.start()
    _run_to_end(pane)
    assert not pane._rollout_box.visible and "rollout error" not in pane._table.object.columns
    assert pane.live.figure("emlp-log").title.text.startswith("test MSE")


def test_load_shows_a_saved_run_with_its_settings_and_numbers(tmp_path):
    """A run saved by the family (here by ``lab emlp``'s own code path) is listed under Saved runs; Load puts its
    settings into the controls and draws its points, curves and table from its files; a path outside the pane's
    runs directory is refused inline."""
    cfg = EMLPConfig(task="o5", models=("mlp", "emlp"), sizes=("20", "40"), channels=8, layers=1, epochs=3, test=30)
    result = FAMILY.run(cfg)
    path = FAMILY.save(result, tmp_path)
    pane = EquivariantModels(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    assert pane._saved.value == str(path) and not pane._load_b.disabled
    assert pane.load(pane._saved.value, wait=True)
    assert pane.task == "o5" and list(pane.models) == ["mlp", "emlp"] and pane._sizes_w.value == "20,40"
    assert pane.channels == 8 and pane.epochs == 3
    summary = FAMILY.summary(result)
    for model, src in pane._sources.items():
        assert src.data["x"] == [20, 40] and src.data["y"] == summary["models"][model]["test_mse"]
    assert len(pane._table.object) == 4 and len(pane.live.groups) == 4
    assert len(pane.live.data) == 4 * 3  # every recorded epoch of every model and size
    assert f"Loaded `{path.name}`" in pane._status.object
    # the audit (lab.equivariance under O(5), issue 29) beside each model: the EMLP within tolerance, the MLP not, the
    # number the run saved; a run saved before the audit existed loads with "—" there
    table = pane._table.object
    assert list(table.columns).index("audit") == list(table.columns).index("equivariance error") + 1
    audits = dict(zip(table["model"] + " " + table["N"].astype(str), table["audit"]))
    for row in result.rows:
        mark = "✓" if row["model"] == "emlp" else "✗"
        assert row["audit_ok"] is (row["model"] == "emlp")
        assert audits[f"{MODEL_LABELS[row['model']]} {row['size']}"] == f"{row['audit_error']:.2g} {mark}"
    results = pd.read_csv(path / "results.csv").drop(columns=["audit_error", "audit_ok", "audit_tolerance",
                                                              "mean_mse", "target_ms"])
    results.to_csv(path / "results.csv", index=False)
    assert pane.load(str(path), wait=True) and set(pane._table.object["audit"]) == {"—"}
    assert MEAN_BASELINE not in pane._table.object  # saved before the baseline: no column of blanks
    assert not pane.load(str(tmp_path.parent), wait=True)
    assert pane._error.visible


def test_a_saved_pendulum_run_loads_with_its_rollouts(tmp_path):
    """``rollouts.npz`` keeps one held-out rollout per model: Load draws exactly the saved states (the last of each
    model, as live), and a file whose shapes disagree is refused naming the file."""
    import numpy as np

    from lab.emlp.family import load

    cfg = EMLPConfig(task="pendulum", models=("mlp", "emlp"), dynamics=("hnn",), sizes=("8",), channels=8,
                     epochs=2, test=3)
    result = FAMILY.run(cfg)
    path = FAMILY.save(result, tmp_path)
    saved = load(path)
    assert saved.rollouts["states"].shape == (2, 2, 150, 12) and saved.rollouts["rows"].tolist() == [0, 1]
    pane = EquivariantModels(results=str(tmp_path), worker="thread")
    pane.__panel__().get_root(Document())
    assert pane.load(str(path), wait=True)
    assert pane._rollout_box.visible and pane.task == "pendulum" and list(pane.dynamics) == ["hnn"]
    for i, row in enumerate(result.rows):
        drawn = pane._rollout_sources[row["model"]].data
        assert drawn["x"] == [q[3] for q in row["rollout"]["pred"]] and drawn["lz"] == row["rollout"]["pred_lz"]
    assert pane._rollout_sources["true"].data["z"] == [q[5] for q in result.rows[0]["rollout"]["true"]]
    with np.load(path / "rollouts.npz") as z:
        broken = {k: z[k] for k in z.files}
    broken["lz"] = broken["lz"][:, :, :10]
    np.savez(path / "rollouts.npz", **broken)
    with pytest.raises(LabError, match="rollouts.npz"):
        load(path)
