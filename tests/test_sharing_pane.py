"""The Sharing discovery pane through its API: live snapshots, locking, stop, save and reload, method 2.

Deadlines are hang guards (the machine may be busy); no test asserts how fast anything runs."""
from __future__ import annotations

import time

import pytest

from lab.sharing.pane import SharingDiscovery
from lab.sharing.family_msr import MSRConfig
from lab.sharing.family import SharingConfig

from polling import DEADLINE  # noqa: E402  (a hang guard, never a speed requirement)
from polling import poll_until as _wait  # noqa: E402


def _run(pane, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    seen = []
    while pane.runner.busy and time.monotonic() < deadline:
        time.sleep(0.05)
        pane.poll()
        seen.append(len(pane.snapshots))
    pane.poll()
    return seen




@pytest.mark.parametrize("worker", ["thread", "process"])
def test_conv_streams_snapshots_recovers_and_saves(worker, tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="conv", worker=worker)
    assert pane.start()
    seen = _run(pane)
    assert len(set(seen)) > 2  # snapshots of A arrive while it learns
    assert "final partition distance **0**" in pane._status.object and "saved to" in pane._status.object
    assert pane.snapshots[-1].shape == (6, 6) and len(pane.history) == len(pane.snapshots)
    assert pane._slider.end == len(pane.snapshots) - 1
    pane._slider.value = 0  # scrub back: the first snapshot is shown without error
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1
    fresh = SharingDiscovery(results=str(tmp_path), task="gaussian")
    assert fresh.load(str(saved[0])) and len(fresh.snapshots) == len(pane.snapshots)
    assert fresh.task == "conv" and "final partition distance **0**" in fresh._status.object


def test_load_and_every_setting_are_disabled_while_running(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="group", steps=100_000, worker="thread")
    settings = pane.runner._widgets()
    assert {"Task", "steps", "seed", "Group", "Load", "Saved runs"} <= {w.label for w in settings}
    assert pane.start()
    assert all(w.disabled for w in settings) and pane._start_b.disabled and not pane._stop_b.disabled
    assert not pane.load(str(tmp_path)) and not pane.start()
    assert _wait(pane, lambda: len(pane.snapshots) > 0)
    pane.stop(wait=True)
    assert not pane.running and not pane.runner.job._worker.is_alive()
    assert "stopped" in pane._status.object
    assert not any(w.disabled for w in settings) and not pane._start_b.disabled and pane._stop_b.disabled
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1  # the stopped run was saved by its worker


def test_stop_ends_the_worker_process(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="group", steps=100_000, worker="process")
    assert pane.start()
    assert _wait(pane, lambda: len(pane.snapshots) > 0)
    pane.stop(wait=True)
    assert not pane.running and not pane.runner.job._proc.is_alive()
    assert "stopped" in pane._status.object


def test_method_2_compares_with_and_without_sparsity(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=60, tasks=30, worker="thread")
    assert pane.start()
    _run(pane)
    table = pane._compare.object
    assert list(table.model) == ["fully connected", "msr, none sparsity", "msr, exclusive sparsity"]
    assert (table["test loss"] > 0).all()
    assert pane._view["U"] is not None and pane._view["label"] == "msr, exclusive sparsity"
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(next(tmp_path.iterdir())))
    assert fresh.task == "msr" and (fresh.steps, fresh.tasks) == (60, 30) and fresh._m2.visible
    assert list(fresh._compare.object.model) == list(table.model)


def test_bad_group_is_an_inline_error(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="group", group="SO(3)")
    assert pane._start_b.disabled and "permutation group" in pane._invalid.object  # said before any press
    assert not pane.start()
    assert pane._error.visible and "permutation group" in pane._error.object
    assert not pane.running and pane._start_b.disabled and pane._stop_b.disabled
    pane.group = "S(4)"
    assert not pane._start_b.disabled and not pane._invalid.visible
    assert pane._status.object.startswith("**idle**")


def test_pause_holds_method_2(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=100_000, tasks=20, worker="thread")
    assert pane.start()
    assert _wait(pane, lambda: len(pane.history) > 0)
    pane.toggle_pause()
    assert pane._pause_b.label == "Resume"
    time.sleep(1.0)  # the step under way finishes
    pane.poll()
    assert "**paused**" in pane._status.object
    before = len(pane.history)
    time.sleep(1.0)
    pane.poll()
    assert len(pane.history) <= before + 1
    pane.toggle_pause()
    assert _wait(pane, lambda: len(pane.history) > before + 1)
    pane.stop(wait=True)
    assert not pane.runner.job._worker.is_alive()


def test_the_task_selector_covers_both_families_and_their_defaults(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path))
    for task in ("gaussian", "conv", "group", "sum"):
        pane.task = task
        cfg = pane.config()
        assert isinstance(cfg, SharingConfig) and cfg.validate().steps == SharingConfig(task=task).with_defaults().steps
    pane.task = "msr"
    cfg = pane.config()
    assert isinstance(cfg, MSRConfig) and cfg.validate().steps == MSRConfig().steps
    assert pane._opts["msr"].visible and not pane._opts["group"].visible and not pane._method1.visible


def test_the_scored_snapped_matrix_is_drawn_next_to_the_relaxed_a(tmp_path):
    """The middle heatmap is the 0/1 matrix the partition distance is computed from: the argmax of A while it
    learns, the merged partition at the end when the lab's merge pass is on; a reloaded run draws it again."""
    import numpy as np

    from lab.sharing.partition import partition_distance

    pane = SharingDiscovery(results=str(tmp_path), task="gaussian", blocks=1, steps=60, merge=True, worker="thread")
    assert pane.config().merge and not SharingConfig().merge  # the merge pass is asked for, never the default
    assert pane.start()
    _run(pane)
    final = pane._view["final"]
    assert final["merged"] and "after snapping and the lab's merge pass" in pane._status.object
    title = lambda plot: plot.opts.get().kwargs["title"]  # noqa: E731
    assert title(pane._a_pane.object[()]).startswith("A relaxed")
    drawn = pane._snapped_pane.object[()]
    assert title(drawn) == f"A merged: distance {final['partition_distance']}"
    assert "the scored partition after the lab's merge pass" in pane._reading.object
    S = np.asarray(final["selection"])
    assert (S.sum(1) == 1).all() and partition_distance(S.argmax(1), pane._view["gt"]) == final["partition_distance"]
    pane._slider.value = 0  # an earlier snapshot: its own argmax, not the final partition
    assert title(pane._snapped_pane.object[()]).startswith("A snapped: distance")
    assert "(argmax per row)" in pane._reading.object
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(next(tmp_path.iterdir()))) and fresh.merge
    np.testing.assert_array_equal(np.asarray(fresh._view["final"]["selection"]), S)


def test_a_run_stopped_before_its_first_trial_ended_loads_with_empty_pictures(tmp_path):
    """Its settings and curves are shown, its pictures are placeholders of the saved weight shape (no matrices
    were recorded): loading it is not an error."""
    import json

    import pandas as pd

    run = tmp_path / "20250101-000000-conv-1-3"
    run.mkdir()
    run.joinpath("config.json").write_text(json.dumps({
        "config": SharingConfig(task="conv").with_defaults().to_dict(), "status": "stopped",
        "summary": {"task": "conv", "trials": 1, "shape": [2, 3]}}))
    pd.DataFrame([{"step": 0, "upper": 1.0, "lower": 1.0, "entropy": 0.1, "nuclear": 0.1,
                   "partition_distance": 1.0}]).to_csv(run / "history.csv", index=False)
    pane = SharingDiscovery(results=str(tmp_path))
    assert pane.load(str(run)) is True
    assert not pane._error.visible
    assert "stopped" in pane._status.object
    assert pane._view["shape"] == (2, 3) and "gt" not in pane._view
    assert pane._w_pane.object[()] is not None  # the W placeholder is drawn


def test_an_msr_run_saves_its_u_and_a_loaded_run_shows_that_picture(tmp_path):
    """U (the chosen sparsity's learned symmetry matrix) is saved with the run: the loaded picture is that U."""
    import numpy as np

    from lab.sharing.store import load_sharing

    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=20, tasks=10, worker="thread")
    assert pane.start()
    _run(pane)
    live_U = np.array(pane._view["U"])
    saved = load_sharing(next(tmp_path.iterdir()))
    assert saved.U is not None and saved.meta["summary"]["U_label"] == "msr, exclusive sparsity"
    np.testing.assert_allclose(saved.U, live_U)  # the last U the live pane drew is the one saved
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(saved.path))
    np.testing.assert_allclose(fresh._view["U"], live_U)
    title = fresh._u_pane.object[()].opts.get().kwargs["title"]
    assert "exclusive (chosen)" in title and "not saved" not in title


def test_the_columns_penalty_has_its_own_column_and_old_files_keep_loading(tmp_path):
    """--rank-penalty columns records ``column_norms`` (not "nuclear"); a file written before that, with the
    columns value under "nuclear", is read with the column renamed, and the nuclear form keeps "nuclear"."""
    import json

    import pandas as pd

    from lab.sharing.bilevel import learn_sharing
    from lab.sharing.store import load_sharing
    from lab.sharing.tasks import conv_task

    res = learn_sharing(conv_task(), steps=3, restarts=1, rank_penalty="columns")
    assert "column_norms" in res.history[0] and "nuclear" not in res.history[0]
    res = learn_sharing(conv_task(), steps=3, restarts=1)
    assert "nuclear" in res.history[0] and "column_norms" not in res.history[0]
    for form, want in (("columns", "column_norms"), ("nuclear", "nuclear")):
        run = tmp_path / f"20250101-000000-conv-{form}"
        run.mkdir()
        config = SharingConfig(task="conv", rank_penalty=form).with_defaults().to_dict()
        run.joinpath("config.json").write_text(json.dumps({"config": config, "status": "stopped",
                                                           "summary": {"task": "conv", "shape": [2, 3]}}))
        pd.DataFrame([{"step": 0, "upper": 1.0, "lower": 1.0, "entropy": 0.1, "nuclear": 0.7,
                       "partition_distance": 1.0}]).to_csv(run / "history.csv", index=False)
        hist = load_sharing(run).history
        assert want in hist.columns and hist[want].tolist() == [0.7]
        assert ("nuclear" in hist.columns) == (want == "nuclear")
        pane = SharingDiscovery(results=str(tmp_path))
        assert pane.load(str(run))
        assert pane.curves["penalties"].groups == ["entropy", want, "partition_distance"]


def test_a_saved_run_over_the_run_bytes_limit_is_refused_in_one_line(tmp_path, monkeypatch):
    pane = SharingDiscovery(results=str(tmp_path), task="conv", steps=5, worker="thread")
    assert pane.start()
    _run(pane)
    monkeypatch.setenv("LAB_MAX_RUN_BYTES", "100")
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(next(tmp_path.iterdir()))) is False
    assert fresh._error.visible and "run_bytes" in fresh._error.object and "\n" not in fresh._error.object
    assert not fresh.runner.busy and not fresh._load_b.disabled


def test_the_best_step_is_marked_and_the_reading_says_why_the_end_differs(tmp_path):
    """A history whose distance reaches 0 and drifts back to 1 (the default Gaussian demo does this): the dotted
    line sits at the first step with the least distance and the reading names it and the last step's."""
    pane = SharingDiscovery(results=str(tmp_path), task="gaussian", steps=120, worker="thread")
    assert pane.start()
    _run(pane)
    hist = pane.history
    best = min(hist, key=lambda h: (h["partition_distance"], h["step"]))
    assert pane._marks["shr-penalties"]["best"].location == best["step"]
    assert f"best: distance **{int(best['partition_distance'])}** at step {best['step']}" in pane._reading.object
    if hist[-1]["partition_distance"] > best["partition_distance"]:
        assert "never the distance" in pane._reading.object
    else:
        assert "never the distance" not in pane._reading.object
    drift = [{"step": 0, "partition_distance": 2}, {"step": 70, "partition_distance": 0},
             {"step": 90, "partition_distance": 0}, {"step": 100, "partition_distance": 1}]
    text = SharingDiscovery._best_text({"history": drift})
    assert "distance **0** at step 70" in text and "the last recorded step has 1" in text
    assert "never the distance" in text
    assert "never the distance" not in SharingDiscovery._best_text({"history": drift[:3]})


def test_the_msr_view_has_the_command_line_s_options_and_a_loaded_run_restores_them(tmp_path):
    """--prox, --support, --meta-batch, --outer-lr: controls from MSRConfig's declaration (defaults and choices
    declared once), passed to the run, and put back from a saved run."""
    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=5, tasks=10, worker="thread")
    for name in ("prox", "support", "meta_batch", "outer_lr"):
        option = MSRConfig.option_named(name)
        assert getattr(pane.param, name).default == option.default
        assert len(pane._field_widgets([name])) == 1  # one control in the pane, bound to that setting
    assert list(pane.param.prox.objects) == list(MSRConfig.option_named("prox").choices)
    pane.param.update(prox="exact", support=3, meta_batch=4, outer_lr=0.002)
    cfg = pane.config()
    assert (cfg.prox, cfg.support, cfg.meta_batch, cfg.outer_lr) == ("exact", 3, 4, 0.002)
    assert pane.start()
    _run(pane)
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(next(tmp_path.iterdir())))
    assert (fresh.prox, fresh.support, fresh.meta_batch, fresh.outer_lr) == ("exact", 3, 4, 0.002)


def test_the_curves_stream_into_one_figure_per_trial_and_the_matrices_wait_for_their_throttle(tmp_path,
                                                                                           monkeypatch):
    """The learning curves are LivePlots: one Bokeh figure per plot all through a trial, points only ever added,
    every recorded step held at the end.  The matrices are redrawn only in a frame the curves' throttle
    (``LiveView.draw_due``) allows: with it never allowing one, only the last frame draws them."""
    from lab.dashboard.live import LiveView

    pane = SharingDiscovery(results=str(tmp_path), task="gaussian", steps=400, worker="thread")
    assert pane.start()
    seen = []  # (figure ids, points of the upper curve) after each poll with points
    deadline = time.monotonic() + DEADLINE
    while pane.runner.busy and time.monotonic() < deadline:
        time.sleep(0.05)
        pane.poll()
        view = pane.curves["losses"]
        if view.groups and len(view.points("shr-losses", "upper")[0]):
            seen.append(((id(view.figure("shr-losses")), id(pane.curves["penalties"].figure("shr-penalties"))),
                         len(view.points("shr-losses", "upper")[0])))
    pane.poll()
    assert len({n for _, n in seen}) >= 2, f"too few frames while it learned: {seen}"
    assert [n for _, n in seen] == sorted(n for _, n in seen)  # points only arrive
    figures = {(id(pane.curves["losses"].figure("shr-losses")), id(pane.curves["penalties"].figure("shr-penalties")))}
    assert {f for f, _ in seen} == figures  # built once for the trial: streamed, never rebuilt
    steps = [float(h["step"]) for h in pane.history]
    assert pane.curves["losses"].points("shr-losses", "upper")[0] == steps  # every recorded step, the last kept
    assert pane.curves["penalties"].points("shr-penalties", "partition_distance")[1] == \
        [float(h["partition_distance"]) for h in pane.history]
    assert len(pane.matrix_frames) <= len(pane.frames)

    monkeypatch.setattr(LiveView, "draw_due", lambda self, now=None: False)  # the curves' throttle never allows
    fresh = SharingDiscovery(results=str(tmp_path), task="gaussian", steps=400, worker="thread")
    assert fresh.start()
    _run(fresh)
    assert len(fresh.matrix_frames) == 1 and len(fresh.frames) == 1  # only the last frame, always drawn
    assert fresh._slider.value == len(fresh.snapshots) - 1  # and it shows the newest snapshot
    assert fresh.curves["losses"].points("shr-losses", "upper")[0] == [float(h["step"]) for h in fresh.history]
    # the matrices' own share of the event loop: a frame of pictures that took 1 s waits 2 s
    fresh._matrix_cost, fresh._last_matrices = 1.0, 100.0
    assert not fresh._matrices_due(101.9) and fresh._matrices_due(102.1)


def test_loading_runs_on_the_pane_s_job_says_so_and_stop_works(tmp_path, monkeypatch):
    """Load reads the run on the pane's job: the status line says "loading `name` …", Start and Load are held,
    Stop ends it ("loading stopped", the pane idle); a load left alone draws the run."""
    import threading

    from lab.sharing import pane as sd

    pane = SharingDiscovery(results=str(tmp_path), task="conv", steps=5, worker="thread")
    assert pane.start()
    _run(pane)
    run = next(tmp_path.iterdir())
    started = threading.Event()

    def slow(path, results, progress=None, control=None):  # reading a large run: checkpoints until stopped
        progress({"kind": "progress", "message": f"reading {run.name}", "done": 1, "total": 2})
        started.set()
        while True:
            control.checkpoint()
            time.sleep(0.02)

    monkeypatch.setattr(sd, "prepare_saved_run", slow)
    fresh = SharingDiscovery(results=str(tmp_path), task="gaussian")
    assert fresh.load(str(run), wait=False) is True
    assert started.wait(DEADLINE)
    assert _wait(fresh, lambda: "**loading**" in fresh._status.object)
    assert f"loading `{run.name}` …" in fresh._status.object and "**loading**" in fresh._status.object
    assert fresh._start_b.disabled and fresh._load_b.disabled and not fresh._stop_b.disabled
    fresh.stop(wait=True)
    fresh.poll()
    assert "loading stopped" in fresh._status.object and "loading `" not in fresh._status.object
    assert not fresh.runner.busy and not fresh._load_b.disabled and fresh.task == "gaussian"
    monkeypatch.undo()
    assert fresh.load(str(run), wait=False) is True
    assert _wait(fresh, lambda: not fresh.runner.busy)
    assert fresh._status.object.startswith(f"Loaded `{run.name}`") and fresh.task == "conv"


def test_the_status_line_says_the_step_trial_and_msr_run_once(tmp_path):
    """The runner's status line names the trial, the step and (msr) the run learning; the pane's lines under it
    repeat none of them (while it learns and at the end)."""
    for settings, label in ((dict(task="gaussian", steps=40, trials=2), None),
                            (dict(task="msr", steps=10, tasks=10), "msr, exclusive sparsity")):
        pane = SharingDiscovery(results=str(tmp_path), worker="thread", **settings)
        assert pane.start()
        texts = set()
        deadline = time.monotonic() + DEADLINE
        while pane.runner.busy and time.monotonic() < deadline:
            time.sleep(0.05)
            pane.poll()
            texts.add(pane._status.object)
        pane.poll()
        final = pane._status.object
        assert "step " in final and "trial " in final
        for text in texts | {final}:
            assert text.count("step ") <= 1 and text.count("trial ") <= 1, text
            if label is not None:
                assert text.count(label) <= 1, text
        if label is not None:
            assert final.count(label) == 1
        fresh = SharingDiscovery(results=str(tmp_path))
        assert fresh.load(str(pane.runner.job.final["saved"]))
        assert fresh._status.object.count("step ") == 0  # a loaded run: its settings and outcome, no live step


def test_the_curve_legends_sit_above_the_plots(tmp_path):
    """No legend inside a curve plot (where it covered the nuclear-norm curve): each sits in a row above."""
    from bokeh.models import Legend

    pane = SharingDiscovery(results=str(tmp_path), task="gaussian", steps=20, worker="thread")
    assert pane.start()
    _run(pane)
    for name, view in pane.curves.items():
        fig = view.figure(f"shr-{name}")
        assert any(isinstance(m, Legend) for m in fig.above), name
        assert not any(isinstance(m, Legend) for m in fig.center + fig.left + fig.right + fig.below), name
        assert {item.label.value for item in fig.above[0].items} >= ({"upper (validation)", "lower (training)"}
                                                                     if name == "losses" else
                                                                     {"nuclear norm ‖A‖*", "partition distance"})


def test_a_new_curve_figure_places_only_its_own_marks(tmp_path):
    """Building one curve figure (a new run or trial) places that figure's marks only: the other figure, on the
    page, is changed only inside a frame's hold (a bare change from a browser's Start raised Bokeh's
    "_pending_writes should be non-None" in the served dashboard)."""
    pane = SharingDiscovery(results=str(tmp_path), task="gaussian", steps=20, worker="thread")
    assert pane.start()
    _run(pane)
    shown = pane._marks["shr-penalties"]
    assert shown["shown"].data["x"] and shown["best"].location is not None
    changed = []
    shown["shown"].on_change("data", lambda attr, old, new: changed.append("shown"))
    shown["best"].on_change("location", lambda attr, old, new: changed.append("best"))
    shown["step"].on_change("location", lambda attr, old, new: changed.append("step"))
    pane.history, pane.snapshots = [], []
    pane._rebuild()  # as Start does: nothing to show yet
    pane.curves["losses"].reset([])  # a new losses figure
    assert changed == [] and pane._marks["shr-penalties"] is shown
    assert pane._marks["shr-losses"]["step"].location is None  # the new figure's own mark, placed


def _shown_brute(history):
    """The whole-history filter ShownTrial replaces (the pane's code before it kept state)."""
    records = [h for h in history if "upper" in h]
    trials = [h["trial"] for h in records if h.get("trial") is not None and h["trial"] == h["trial"]]
    if trials:
        records = [h for h in records if h.get("trial", trials[-1]) == trials[-1]]
    return records


def test_shown_trial_matches_the_whole_history_filter_as_it_grows():
    """The Sharing pane's shown trial and best step, kept incrementally, equal filtering the whole history and
    best_step on it, after every append (random histories: trials in order, NaN distances, records of method 2,
    records with no trial, ties)."""
    import random

    from lab.sharing.pane import ShownTrial
    from lab.sharing.partition import best_step

    rng = random.Random(7)
    for case in range(200):
        history, trial = [], 0
        shown = ShownTrial(history)
        numbered = rng.random() < 0.7
        for step in range(rng.randrange(1, 60)):
            if numbered and rng.random() < 0.08:
                trial += 1
            rec = {"step": step, "partition_distance": rng.choice([0, 1, 1, 2, 3, float("nan"), None])}
            if rng.random() < 0.9:
                rec["upper"] = rng.random()
            if numbered and rng.random() < 0.95:
                rec["trial"] = trial
            elif rng.random() < 0.3:
                rec["trial"] = float("nan")
            history.append(rec)
            if rng.random() < 0.5 or step == 0:
                got = shown.update()
                want = _shown_brute(history)
                assert got == want, (case, step)
                assert shown.best == best_step(want), (case, step)
        assert shown.update() == _shown_brute(history)
        assert shown.follows(history) and not shown.follows(list(history))
