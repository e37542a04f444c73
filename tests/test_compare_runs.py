"""Saved runs in the Training dynamics and Sharing discovery panes (issue 13, item 4): Load restores a run's own
settings and labels, is disabled without a selection and while a job runs; several runs overlay with a legend of
their own labels; the overlay exports as CSV (read back: the same rows) and PNG; ``lab runs compare`` does the
same from the command line.

The runs are made by the real experiments at tiny settings into temporary results directories.  Curves are
checked against the run's own files read independently (pandas medians / means), not against ``lab.compare``.
Deadlines are hang guards; nothing asserts how fast anything runs."""
from __future__ import annotations

import io
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from lab.compare import COLUMNS, compare, labels, read_frame_csv
from lab.sharing.pane import SharingDiscovery
from lab.dynamics.pane import TrainingDynamics
from lab.dynamics.config import DynamicsConfig
from lab.experiments import FAMILIES
from lab.sharing.family_msr import MSRConfig
from lab.sharing.family import SharingConfig
from lab.plots.compare_hv import legend_labels

from polling import poll_until as _wait  # noqa: E402  (a hang guard, never a speed requirement)

PNG = b"\x89PNG\r\n\x1a\n"


def _save(family: str, config, directory) -> str:
    fam = FAMILIES[family]
    return str(fam.save(fam.run(config), str(directory)))


@pytest.fixture(scope="module")
def dyn_runs(tmp_path_factory):
    """Two dynamics runs differing in the learning rate (every setting a control shows recorded)."""
    root = tmp_path_factory.mktemp("dynamics-runs")
    base = dict(experiment="custom", runs=2, steps=3, strategies=("nom", "equi"), group="S(5)", rep="V", seed=4,
                aug_passes=2, gamma=0.5)
    paths = [_save("dynamics", DynamicsConfig(lr=lr, **base), root) for lr in (0.3, 0.1)]
    return root, paths


@pytest.fixture(scope="module")
def shr_runs(tmp_path_factory):
    """Two method-1 runs (gaussian, differing in the seed, with non-default settings) and one method-2 run."""
    root = tmp_path_factory.mktemp("sharing-runs")
    base = dict(task="gaussian", K=6, blocks=2, samples=60, steps=12, lr=0.05, entropy=0.02, restarts=2,
                merge=True, merge_tolerance=0.05, weight_decay=0.001)
    paths = [_save("sharing", SharingConfig(seed=seed, **base), root) for seed in (3, 5)]
    paths.append(_save("msr", MSRConfig(tasks=8, steps=3, n_in=8, kernel=2, sparsity="group", lam=0.05), root))
    return root, paths


def _copy(root, tmp_path):
    """A private copy of a results directory (tests that edit a run's files)."""
    dest = tmp_path / "runs"
    shutil.copytree(root, dest)
    return dest


def _bound(pane, names):
    """{config field: widget} of the pane's controls bound to ``names`` (made with ``from_param``)."""
    return {w._param_name: w for w in pane._field_widgets(names)}


def _same(widget_value, saved_value):
    if isinstance(saved_value, (list, tuple)):
        return list(widget_value) == list(saved_value)
    if isinstance(saved_value, float):
        return widget_value == pytest.approx(saved_value)
    return widget_value == saved_value


# ------------------------------------------------------------------ Load restores the run's own settings
def test_loading_a_dynamics_run_restores_every_control(dyn_runs):
    root, paths = dyn_runs
    saved = json.loads(open(f"{paths[0]}/config.json").read())["config"]
    pane = TrainingDynamics(results=str(root), experiment="perm", seed=0, runs=5)
    assert pane.load(paths[0])
    widgets = _bound(pane, [o.name for o in DynamicsConfig.declarations() if o.ui])
    assert len(widgets) == 15  # every control of a config field, the hidden custom ones included
    for name, w in widgets.items():
        assert _same(w.value, saved[name]), (name, w.value, saved[name])
        assert not w.disabled, name  # all recorded: none held
    status = pane._status.object
    assert "**custom** (small)" in status and "lr 0.3" in status and "seed 4" in status and "perm" not in status
    assert pane.config().validate().to_dict() == DynamicsConfig.from_dict(saved).to_dict()


def test_loading_a_sharing_run_restores_every_control(shr_runs):
    root, paths = shr_runs
    pane = SharingDiscovery(results=str(root), task="conv")
    for path, fields in ((paths[0], ["K", "blocks", "samples", "split", "sigma", "lr", "restarts", "weight_decay",
                                     "entropy", "nuclear", "rank_penalty", "merge", "merge_tolerance", "steps",
                                     "trials", "seed"]),
                         (paths[2], ["rank", "kernel", "n_in", "tasks", "sparsity", "lam", "steps", "trials",
                                     "seed"])):
        saved = json.loads(open(f"{path}/config.json").read())["config"]
        assert pane.load(path)
        widgets = _bound(pane, ["task", *fields])
        assert set(widgets) == {"task", *fields}
        for name, w in widgets.items():
            assert _same(w.value, saved[name]), (path, name, w.value, saved[name])
            assert not w.disabled, name
        assert pane._status.object.split("  \n")[1].startswith(f"**{saved['task']}**")
    assert pane.task == "msr" and pane._m2.visible and not pane._m1.visible


def test_a_setting_the_run_did_not_record_is_held_disabled_until_a_setting_changes(shr_runs, dyn_runs, tmp_path):
    """A run saved before a setting existed: its control shows the default, disabled, and the status says so."""
    root = _copy(shr_runs[0], tmp_path / "s")
    run = sorted(p for p in root.iterdir() if "gaussian" in p.name)[0]
    meta = json.loads((run / "config.json").read_text())
    del meta["config"]["rank_penalty"]
    (run / "config.json").write_text(json.dumps(meta))
    pane = SharingDiscovery(results=str(root), task="conv")
    pane._saved.value = str(run)
    assert pane.load(pane._saved.value)
    penalty = _bound(pane, ["rank_penalty"])["rank_penalty"]
    assert penalty.disabled and penalty.value == SharingConfig().rank_penalty
    assert "not recorded by this run" in pane._status.object and "low-rank penalty" in pane._status.object
    assert not any(w.disabled for n, w in _bound(pane, ["K", "seed", "merge"]).items())
    pane.steps = 20  # the user composes a new run: the held control is free again
    assert not penalty.disabled

    root = _copy(dyn_runs[0], tmp_path / "d")
    run = sorted(root.iterdir())[0]
    meta = json.loads((run / "config.json").read_text())
    del meta["config"]["gamma"]
    meta["config"]["device"] = "cuda:1"  # no control can show it
    (run / "config.json").write_text(json.dumps(meta))
    pane = TrainingDynamics(results=str(root))
    assert pane.load(str(run))
    held = _bound(pane, ["gamma", "device", "lr"])
    assert held["gamma"].disabled and held["device"].disabled and not held["lr"].disabled
    assert "defaults, disabled until you change a setting): γ (penalty)" in pane._status.object
    assert "Device cuda:1 cannot be shown by its control" in pane._status.object
    assert pane.start()  # starting a run frees them (the runner then locks everything while it runs)
    assert _wait(pane, lambda: not pane.runner.busy)
    assert not held["gamma"].disabled and not held["device"].disabled


def test_every_msr_setting_has_a_control_so_a_loaded_run_needs_no_unshown_note(tmp_path):
    """The MSR view shows --prox and --support (once named in a "set by this run but not by a control here"
    note): a loaded run puts them into their controls, and Start would repeat it."""
    run = _save("msr", MSRConfig(tasks=8, steps=2, n_in=8, kernel=2, prox="exact", support=2), tmp_path)
    pane = SharingDiscovery(results=str(tmp_path))
    assert pane.load(run) and pane.task == "msr"
    assert (pane.prox, pane.support) == ("exact", 2)
    assert "not by a control" not in pane._status.object
    assert pane.config().to_dict() == MSRConfig(tasks=8, steps=2, n_in=8, kernel=2, prox="exact",
                                                support=2).to_dict()


def test_the_label_is_the_runs_own_even_when_its_settings_cannot_be_restored(shr_runs, tmp_path):
    root = _copy(shr_runs[0], tmp_path)
    run = sorted(p for p in root.iterdir() if "gaussian" in p.name)[0]
    meta = json.loads((run / "config.json").read_text())
    meta["config"]["K"] = "many"
    (run / "config.json").write_text(json.dumps(meta))
    pane = SharingDiscovery(results=str(root), task="sum")
    assert pane.load(str(run))
    assert pane._error.visible and "K" in pane._error.object
    assert pane.task == "sum"  # nothing half-restored ...
    lines = pane._status.object.split("  \n")
    assert lines[1].startswith("**gaussian**") and lines[2].startswith("gaussian")  # ... but labelled as it ran
    assert "sum" not in pane._status.object.split("*the controls")[0]
    assert pane._view["task"] == "gaussian" and pane._m1.visible


# ------------------------------------------------------------------ Load: empty selection, while running
def test_load_with_an_empty_selection_loads_nothing(dyn_runs, tmp_path):
    empty = TrainingDynamics(results=str(tmp_path))
    assert empty._saved.value is None and empty._load_b.disabled
    before = empty._status.object
    empty._load_b.clicks += 1  # what a click does (were the button enabled)
    assert not empty.load(None) and not empty.load("")
    assert empty._status.object == before and len(empty.live.data) == 0 and not empty._error.visible

    pane = SharingDiscovery(results=str(tmp_path))
    assert pane._load_b.disabled and not pane.load(pane._saved.value)

    full = TrainingDynamics(results=str(dyn_runs[0]))
    assert full._saved.value and not full._load_b.disabled
    full._saved.value = None
    assert full._load_b.disabled and not full.load(full._saved.value) and len(full.live.data) == 0


def test_load_is_disabled_while_a_job_runs_and_enabled_with_the_run_it_saved(tmp_path):
    pane = TrainingDynamics(results=str(tmp_path), experiment="custom", runs=1, steps=2, worker="thread")
    assert pane._load_b.disabled  # nothing saved yet
    assert pane.start()
    assert pane._load_b.disabled and not pane.load(str(tmp_path))
    assert _wait(pane, lambda: not pane.runner.busy)
    (run,) = tmp_path.iterdir()
    assert pane._saved.value == str(run) and not pane._load_b.disabled  # not the state from before the job
    assert pane._runs_compare.select.options == {run.name: str(run)}
    pane.steps = 100_000
    assert pane.start()
    assert _wait(pane, lambda: pane.step >= 1)
    assert pane._load_b.disabled and not pane.load(str(run))
    pane.stop(wait=True)
    assert not pane._load_b.disabled and pane.load(pane._saved.value)


# ------------------------------------------------------------------ compare
def test_labels_name_what_differs_and_tell_every_run_apart():
    names = [f"2024010{i}-12000{i}-x-abcde{i}" for i in range(1, 4)]
    assert labels([{"experiment": "perm", "lr": 0.1, "seed": 0, "strategies": ["nom", "aug"]},
                   {"experiment": "perm", "lr": 0.1, "seed": 1, "strategies": ["nom", "aug"]},
                   {"experiment": "rot", "lr": 0.1, "seed": 1, "strategies": ["nom"]}], names, "dynamics") == [
        "perm · seed 0 · strategies nom,aug", "perm · seed 1 · strategies nom,aug", "rot · seed 1 · strategies nom"]
    # K applies to the gaussian task only: not a difference with a conv run
    assert labels([{"task": "gaussian", "K": 5, "seed": 0}, {"task": "conv", "K": 8, "seed": 0}], names[:2],
                  "sharing") == ["gaussian", "conv"]
    same = labels([{"task": "conv"}] * 3, ["20240101-120000-conv-a", "20240101-120000-conv-b",
                                           "20240101-120001-conv-c"], "sharing")
    assert len(set(same)) == 3 and same[2] == "conv · 12:00:01" and same[0].endswith("20240101-120000-conv-a")


def _dynamics_medians(path, column):
    """Medians over live runs of the "total" layer per (strategy, step), from metrics.csv itself."""
    df = pd.read_csv(f"{path}/metrics.csv")
    df = df[(df.layer == "total") & (df.diverged.astype(str).str.lower() != "true")]
    return {(s, int(t)): v for (s, t), v in df.groupby(["strategy", "step"])[column].median().items()}


def test_overlaying_two_dynamics_runs_draws_two_labelled_curves_per_strategy(dyn_runs):
    root, paths = dyn_runs
    pane = TrainingDynamics(results=str(root))
    assert set(pane._runs_compare.select.options.values()) == set(paths)
    pane._runs_compare.select.value = list(paths)
    c = pane._runs_compare.comparison
    assert c.labels == ["custom · lr 0.3", "custom · lr 0.1"]
    drift, loss = pane._runs_compare.plot_objects()
    for plot, column in ((drift, "dist_from_E"), (loss, "loss")):
        curves = [el for el in plot if len(el) and not np.isnan(el.dimension_values("step")).all()]
        assert sorted({el.label for el in curves}) == sorted(c.labels)  # every curve is labelled by its run
        assert len(curves) == 2 * 2  # two runs x two strategies
        # the legend: one entry per run (its label), then grey keys of the strategies' line styles
        assert legend_labels(plot) == [*c.labels, "Nom", "Equi"]
        for path, label in zip(paths, c.labels):
            expected = _dynamics_medians(path, column)
            drawn = {}
            for el in curves:
                if el.label == label:
                    strategy = el.dimension_values("curve")[0].split(" · ")[-1].lower()
                    drawn.update({(strategy, int(t)): v for t, v in zip(el.dimension_values("step"),
                                                                         el.dimension_values("value"))})
            assert drawn.keys() == expected.keys()
            np.testing.assert_allclose([drawn[k] for k in expected], list(expected.values()))
    assert "custom · lr 0.3" in pane._runs_compare._note.object and not pane._runs_compare._csv.disabled


def test_overlaying_two_sharing_runs_draws_their_losses_and_partition_distances(shr_runs):
    root, paths = shr_runs
    pane = SharingDiscovery(results=str(root))
    pane._runs_compare.select.value = paths[:2]
    c = pane._runs_compare.comparison
    assert c.labels == ["gaussian · seed 3", "gaussian · seed 5"]
    assert pane._runs_compare.metrics() == ["loss", "partition_distance"]
    loss, distance = pane._runs_compare.plot_objects()
    assert legend_labels(distance) == c.labels  # one series: no keys
    assert legend_labels(loss) == [*c.labels, "validation (upper)", "training (lower)"]
    for path, label in zip(paths, c.labels):
        history = pd.read_csv(f"{path}/history.csv")
        (curve,) = [el for el in distance if el.label == label]
        np.testing.assert_array_equal(curve.dimension_values("step"), history.step)
        np.testing.assert_array_equal(curve.dimension_values("value"), history.partition_distance)
    pane._runs_compare.select.value = paths  # with the method-2 run: its outer losses get a plot of their own
    assert pane._runs_compare.metrics() == ["loss", "partition_distance", "outer_loss"]
    assert pane._runs_compare.comparison.labels[2].startswith("msr")
    try:  # a value the pane did not list is never read
        pane._runs_compare.select.value = [*paths, "/etc"]
    except ValueError:
        pass
    assert pane._runs_compare.chosen() == paths
    assert [str(r.path) for r in pane._runs_compare.comparison.runs] == paths


def test_the_overlay_exports_as_csv_that_reads_back_and_as_png(shr_runs, dyn_runs):
    for root, paths, pane_cls in ((dyn_runs[0], dyn_runs[1], TrainingDynamics),
                                  (shr_runs[0], shr_runs[1], SharingDiscovery)):
        pane = pane_cls(results=str(root))
        assert pane._runs_compare._csv.disabled and pane._runs_compare._png.disabled  # nothing to export yet
        pane._runs_compare.select.value = list(paths)
        frame = pane._runs_compare.frame()
        assert list(frame.columns) == COLUMNS and len(frame) > 0
        text = pane._runs_compare._csv_file().getvalue()
        back = read_frame_csv(io.StringIO(text))
        pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_dtype=False)
        assert set(back.run) == set(pane._runs_compare.comparison.labels)
        png = pane._runs_compare._png_file().getvalue()
        assert png.startswith(PNG) and not pane._error.visible


def test_lab_runs_compare_writes_the_same_table_and_a_png(dyn_runs, shr_runs, tmp_path, capsys):
    from lab.cli import main

    root, paths = dyn_runs
    csv, png = tmp_path / "runs.csv", tmp_path / "runs.png"
    names = [p.rsplit("/", 1)[1] for p in paths]
    assert main(["runs", "compare", *names, "--dir", str(root), "--csv", str(csv), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "custom · lr 0.3" in out and "custom · lr 0.1" in out and "drift" in out
    pd.testing.assert_frame_equal(read_frame_csv(csv), compare(paths).frame, check_dtype=False)
    assert png.read_bytes().startswith(PNG)
    assert main(["runs", "compare", paths[0], shr_runs[1][0], "--json"]) == 2  # two kinds: refused
    assert "different kinds" in capsys.readouterr().err
    assert main(["runs", "compare", "no-such-run", "--dir", str(root)]) == 2
    assert main(["runs", "compare", paths[0], paths[1], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in printed["runs"]] == ["custom · lr 0.3", "custom · lr 0.1"]
    assert set(printed["runs"][0]["final"]) == {"drift", "loss"}
    assert main(["runs", "list", "--dir", str(root)]) == 0
    listed = capsys.readouterr().out
    assert all(n in listed for n in names)


def test_runs_stopped_before_their_first_step_are_not_listed(tmp_path):
    """Nothing to draw: a dynamics run with steps_done 0 and a sharing run with an empty history stay on disk
    (the API lists them) but not in the panes' saved-runs lists."""
    from lab.dynamics.store import list_runs
    from lab.sharing.store import list_sharing

    dyn = tmp_path / "dyn"
    for name, steps in (("20250101-000000-perm-a", 0), ("20250101-000001-perm-b", 5)):
        (dyn / name).mkdir(parents=True)
        (dyn / name / "config.json").write_text(json.dumps({"config": {}, "status": "stopped",
                                                            "steps_done": steps}))
    assert [p.name for p in list_runs(dyn, trained_only=True)] == ["20250101-000001-perm-b"]
    assert len(list_runs(dyn)) == 2
    pane = TrainingDynamics(results=str(dyn))
    assert list(pane._saved.options) == ["20250101-000001-perm-b"]
    shr = tmp_path / "shr"
    for name, rows in (("20250101-000000-conv-a", ""), ("20250101-000001-conv-b", "0,1.0\n")):
        (shr / name).mkdir(parents=True)
        (shr / name / "config.json").write_text(json.dumps({"config": {"task": "conv"}, "status": "stopped",
                                                            "summary": {}}))
        (shr / name / "history.csv").write_text("step,upper\n" + rows)
    assert [p.name for p in list_sharing(shr, trained_only=True)] == ["20250101-000001-conv-b"]
    assert list(SharingDiscovery(results=str(shr))._saved.options) == ["20250101-000001-conv-b"]


def test_lab_runs_list_reads_every_familys_runs_directory(tmp_path, monkeypatch, capsys):
    """Without --dir, every family's runs directory (its manifest's ``results_dir``) is listed: a meter run is
    listed with its kind and first option; a damaged run of another family is a row saying why, not an error."""
    from lab.cli import main

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    assert main(["lie-derivative", "--model", "emlp-o3", "--transform", "generators", "--json"]) == 0
    broken = FAMILIES["bounds"].results_dir() / "20260101-000000-broken"
    broken.mkdir(parents=True)
    (broken / "config.json").write_text('{"format": 1, "kind": "bounds", "config": 3}')
    capsys.readouterr()
    assert main(["runs", "list", "--json"]) == 0
    rows = {r["kind"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    assert rows["meter"]["what"] == "emlp-o3" and rows["meter"]["status"] == "finished"
    assert rows["?"]["name"] == broken.name and "config" in rows["?"]["status"]
    dirs = {str(f.results_dir()) for f in FAMILIES.values() if f.results_dir is not None}
    assert len(dirs) >= 8 and all(d.startswith(str(tmp_path)) for d in dirs)
