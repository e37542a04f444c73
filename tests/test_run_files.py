"""Saved runs survive: killed saves, two saves in one second, hand-edited or truncated files, paths from outside.

Everything goes through ``lab.runstore`` (the sharing, msr and dynamics stores are thin layers over it).
"""
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from lab import runstore
from lab.dynamics.store import list_runs, load_run, save_run
from lab.errors import LabError, RunFileError, RunPathError
from lab.sharing.store import list_sharing, load_sharing, save_sharing

ROOT = Path(__file__).resolve().parents[1]


def sharing_run(directory, n=5, summary=None, status="finished"):
    history = [{"step": i, "upper": 1.0 / (i + 1), "partition_distance": 0.5} for i in range(n)]
    snaps = [np.full((4, 3), float(i)) for i in range(n)]
    return save_sharing({"task": "conv", "rows": n, "snaps": n}, history, snaps, summary or {"partition_distance": 0.0},
                        directory, status)


@pytest.fixture(scope="module")
def trainer():
    from lab.dynamics.config import DynamicsConfig
    from lab.dynamics.train import Trainer

    tr = Trainer(DynamicsConfig(experiment="custom", runs=2, steps=2, strategies=("nom", "equi")))
    tr.run()
    return tr


# ------------------------------------------------------------------ (a) a save killed mid-write
KILLED_SAVE = textwrap.dedent("""
    import sys, time
    import numpy as np
    from lab import runstore
    from lab.sharing.store import save_sharing

    root, stage = sys.argv[1], sys.argv[2]

    def hook(name):
        print(name, flush=True)
        if name == stage:
            time.sleep(120)  # killed here by the test

    runstore._checkpoint = hook
    rng = np.random.default_rng(0)
    history = [{"step": i, "upper": float(i)} for i in range(2000)]
    snaps = list(rng.standard_normal((40, 60, 30)))
    print("ready", flush=True)
    if stage == "loop":  # save again and again until killed at no particular moment
        while True:
            save_sharing({"task": "conv", "rows": 2000, "snaps": 40}, history, snaps, {"partition_distance": 0.0}, root)
            print("saved", flush=True)
    save_sharing({"task": "conv", "rows": 2000, "snaps": 40}, history, snaps, {"partition_distance": 0.0}, root)
    print("saved", flush=True)
""")


def _spawn(root, stage):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(root), stage], stdout=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)


def _wait_for(proc, line):
    seen = []
    for out in proc.stdout:
        seen.append(out.strip())
        if out.strip() == line:
            return seen
    raise AssertionError(f"the saving process ended before {line!r}: {seen}")


def _assert_store_sound(root):
    listed = list_sharing(root)
    assert not any(p.name.startswith(".") for p in listed)
    for p in listed:
        run = load_sharing(p, root=root)
        cfg = run.meta["config"]  # every file of the run is whole
        assert len(run.history) == cfg["rows"] and run.snapshots.shape[0] == cfg["snaps"]
    return listed


@pytest.mark.parametrize("stage", ["config.json", "history.csv", "A_history.npz", "publish"])
def test_a_save_killed_at_any_step_leaves_a_sound_store_and_the_next_save_cleans_up(tmp_path, stage):
    first = sharing_run(tmp_path)  # a run that was there before
    proc = _spawn(tmp_path, stage)
    try:
        _wait_for(proc, stage)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(runstore.TEMP_PREFIX)]
    assert len(leftovers) == 1  # the killed save's temporary directory ...
    assert _assert_store_sound(tmp_path) == [first]  # ... is never listed; the old run is intact
    with pytest.raises(RunPathError):
        load_sharing(leftovers[0], root=tmp_path)

    second = sharing_run(tmp_path)  # a young leftover may be a save in progress: left alone
    assert leftovers[0].exists() and set(list_sharing(tmp_path)) == {first, second}
    old = time.time() - runstore.STALE_SECONDS - 60
    for p in [leftovers[0], *leftovers[0].iterdir()]:
        os.utime(p, (old, old))
    third = sharing_run(tmp_path)  # once stale, the next save removes it
    assert not leftovers[0].exists()
    assert set(list_sharing(tmp_path)) == {first, second, third}


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.9])
def test_saves_killed_at_arbitrary_moments_never_leave_a_broken_run(tmp_path, delay):
    proc = _spawn(tmp_path, "loop")
    try:
        _wait_for(proc, "ready")
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        saved = sum(line.strip() == "saved" for line in proc.stdout)
    finally:
        proc.wait()
    listed = [p for p in _assert_store_sound(tmp_path)]
    # every save that said so is there, plus at most the one killed between its rename and its print
    assert saved <= len(listed) <= saved + 1
    assert len({p.name for p in listed}) == len(listed)


def test_stale_temporaries_are_removed_by_listing_and_young_ones_only_ignored(tmp_path):
    run = sharing_run(tmp_path)
    stale, young = tmp_path / ".tmp-1-dead", tmp_path / ".tmp-2-live"
    for d in (stale, young):
        d.mkdir()
        (d / "config.json").write_text("{")  # half written
    old = time.time() - runstore.STALE_SECONDS - 1
    for p in (stale / "config.json", stale):
        os.utime(p, (old, old))
    assert list_sharing(tmp_path) == [run]
    assert not stale.exists() and young.exists()


# ------------------------------------------------------------------ (b) two saves in the same second
def test_two_saves_in_the_same_second_are_distinct_and_both_load(tmp_path, monkeypatch, trainer):
    monkeypatch.setattr(runstore, "_now", lambda: 1_700_000_000.0)
    a, b = sharing_run(tmp_path, n=3), sharing_run(tmp_path, n=4)
    assert a != b and a.name[:15] == b.name[:15]  # same stamp, different runs
    assert len(load_sharing(a).history) == 3 and len(load_sharing(b).history) == 4

    monkeypatch.setattr(runstore, "_token", lambda: "same")  # even the random part clashes: a suffix
    c, d = save_run(trainer, tmp_path / "dyn"), save_run(trainer, tmp_path / "dyn", status="stopped")
    assert d.name == c.name + "-2"
    assert load_run(c).meta["status"] == "finished" and load_run(d).meta["status"] == "stopped"
    assert list_runs(tmp_path / "dyn") == sorted([c, d], key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)
    e = sharing_run(tmp_path, n=2)
    f = sharing_run(tmp_path, n=1)
    assert (e.name, f.name) == (e.name, e.name + "-2")
    assert {len(load_sharing(p).history) for p in list_sharing(tmp_path)} == {1, 2, 3, 4}


# ------------------------------------------------------------------ non-finite numbers
def _strict(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_values_are_written_as_strict_json_and_read_back(tmp_path):
    summary = {"test_loss": math.nan, "gap": math.inf, "low": np.float32(-np.inf), "curve": [1.0, math.nan],
               "per": {"aug": {"loss": math.nan, "runs": 3}}, "A": np.eye(2)}
    path = sharing_run(tmp_path, summary=summary)
    on_disk = _strict((path / "config.json").read_text())["summary"]
    assert on_disk["test_loss"] is None and on_disk["test_loss_reason"].startswith("NaN")
    assert on_disk["curve"] == [1.0, None] and on_disk["A"] == [[1.0, 0.0], [0.0, 1.0]]
    got = load_sharing(path).meta["summary"]
    assert math.isnan(got["test_loss"]) and got["gap"] == math.inf and got["low"] == -math.inf
    assert math.isnan(got["per"]["aug"]["loss"]) and got["per"]["aug"]["runs"] == 3
    assert "test_loss_reason" not in got and got["curve"] == [1.0, None]


def test_runs_saved_before_the_format_version_still_load(tmp_path):
    run = tmp_path / "20240101-000000-conv-123-5"
    run.mkdir()
    (run / "config.json").write_text('{"config": {"task": "conv"}, "status": "finished", '
                                     '"summary": {"test_loss": NaN}}')  # what the old saver wrote
    (run / "history.csv").write_text("step,upper\n0,1.0\n")
    loaded = load_sharing(run, root=tmp_path)
    assert math.isnan(loaded.meta["summary"]["test_loss"]) and loaded.snapshots is None
    assert list_sharing(tmp_path) == [run]


def test_a_run_stopped_before_its_first_step_saves_and_loads(tmp_path):
    path = save_sharing({"task": "conv"}, [], [], {"trials": 0}, tmp_path, "stopped")
    run = load_sharing(path)
    assert run.meta["status"] == "stopped" and run.history.empty and run.snapshots is None


# ------------------------------------------------------------------ (c) broken files
def _edit(path, change):
    meta = json.loads(path.read_text())
    change(meta)
    path.write_text(json.dumps(meta))


def assert_run_file_error(call, file, field):
    with pytest.raises(RunFileError) as info:
        call()
    err = info.value
    assert type(err) is RunFileError and isinstance(err, LabError)
    assert err.file.endswith(file) and err.field == field
    assert "\n" not in str(err) and file in str(err) and (field is None or repr(field) in str(err))
    return err


SHARING_EDITS = [
    ("missing field", lambda m: m.pop("status"), "status"),
    ("missing config", lambda m: m.pop("config"), "config"),
    ("wrong type", lambda m: m.update(config=["task", "conv"]), "config"),
    ("wrong type summary", lambda m: m.update(summary="fine"), "summary"),
    ("unknown version", lambda m: m.update(format=99), "format"),
    ("version not a number", lambda m: m.update(format="1"), "format"),
    ("version a boolean", lambda m: m.update(format=True), "format"),
    ("another kind of run", lambda m: m.update(kind="dynamics"), "kind"),
]


@pytest.mark.parametrize("what,change,field", SHARING_EDITS, ids=[e[0] for e in SHARING_EDITS])
def test_hand_edited_sharing_run_names_file_and_field(tmp_path, what, change, field):
    path = sharing_run(tmp_path)
    _edit(path / "config.json", change)
    assert_run_file_error(lambda: load_sharing(path), "config.json", field)


DYNAMICS_EDITS = [
    ("missing steps_done", lambda m: m.pop("steps_done"), "steps_done"),
    ("steps_done as text", lambda m: m.update(steps_done="2"), "steps_done"),
    ("status a number", lambda m: m.update(status=1), "status"),
    ("layers an object", lambda m: m.update(layers={}), "layers"),
    ("seconds as text", lambda m: m.update(seconds="fast"), "seconds"),
    ("a newer format", lambda m: m.update(format=2), "format"),
]


@pytest.mark.parametrize("what,change,field", DYNAMICS_EDITS, ids=[e[0] for e in DYNAMICS_EDITS])
def test_hand_edited_dynamics_run_names_file_and_field(tmp_path, trainer, what, change, field):
    path = save_run(trainer, tmp_path)
    _edit(path / "config.json", change)
    assert_run_file_error(lambda: load_run(path), "config.json", field)


@pytest.mark.parametrize("keep", [0.0, 0.1, 0.5, 0.97])
def test_truncated_config_json_is_one_typed_error(tmp_path, trainer, keep):
    for path, load in ((sharing_run(tmp_path / "s"), load_sharing), (save_run(trainer, tmp_path / "d"), load_run)):
        text = (path / "config.json").read_text()
        (path / "config.json").write_text(text[: int(len(text) * keep)])
        assert_run_file_error(lambda: load(path), "config.json", None)


def test_not_a_json_object_or_not_text(tmp_path):
    path = sharing_run(tmp_path)
    (path / "config.json").write_text("[1, 2]")
    assert "object" in str(assert_run_file_error(lambda: load_sharing(path), "config.json", None))
    (path / "config.json").write_bytes(b"\xff\xfe{}")
    assert_run_file_error(lambda: load_sharing(path), "config.json", None)


def test_truncated_metrics_csv_is_reported_at_every_cut(tmp_path, trainer):
    path = save_run(trainer, tmp_path)
    full = (path / "metrics.csv").read_text()
    last = full.rstrip("\n").rsplit("\n", 1)[0] + "\n"  # everything but the last row
    rows = len(load_run(path).metrics)
    errors = 0
    for cut in range(len(last), len(full) - 1):
        (path / "metrics.csv").write_text(full[:cut])
        try:
            run = load_run(path)
        except RunFileError as err:
            assert err.file.endswith("metrics.csv") and err.field in ("run", "step", "dist_from_init", "dist_from_E",
                                                                       "loss", "accuracy", "diverged")
            errors += 1
        else:  # a cut that leaves whole rows is a shorter, valid table
            assert len(run.metrics) == rows - 1
    assert errors >= len(full) - len(last) - 3
    (path / "metrics.csv").write_text(full.replace("dist_from_E", "dist", 1))
    assert_run_file_error(lambda: load_run(path), "metrics.csv", "dist_from_E")
    (path / "metrics.csv").unlink()
    assert_run_file_error(lambda: load_run(path), "metrics.csv", None)


def test_truncated_or_foreign_snapshots_are_one_typed_error(tmp_path):
    path = sharing_run(tmp_path)
    data = (path / "A_history.npz").read_bytes()
    (path / "A_history.npz").write_bytes(data[: len(data) // 2])
    assert_run_file_error(lambda: load_sharing(path), "A_history.npz", None)
    np.savez(path / "A_history.npz", B=np.zeros((2, 2, 2)))
    assert_run_file_error(lambda: load_sharing(path), "A_history.npz", "A")
    np.savez(path / "A_history.npz", A=np.zeros(3))
    assert_run_file_error(lambda: load_sharing(path), "A_history.npz", "A")
    np.savez(path / "A_history.npz", A=np.array([[["x"]]]))
    assert_run_file_error(lambda: load_sharing(path), "A_history.npz", "A")
    (path / "history.csv").write_text('step,upper\n0,"1.0\n')  # an unclosed quote
    assert_run_file_error(lambda: load_sharing(path), "history.csv", None)


def test_a_truncated_basis_file_is_one_typed_error(tmp_path):
    from lab.experiments import FAMILIES
    from lab.basis.family import BasisConfig

    fam = FAMILIES["basis"]
    path = fam.save(fam.run(BasisConfig(group="S(4)", rep="V", rep_out="V", cache=False)), tmp_path)
    assert fam.load(path)["rank"] == 2 and not any(p.name.startswith(".tmp") for p in tmp_path.iterdir())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert_run_file_error(lambda: fam.load(path), path.name, None)
    np.savez(path, rank=np.array(2))
    assert_run_file_error(lambda: fam.load(path), path.name, "group")


# ------------------------------------------------------------------ (d) only runs inside the runs directory
def test_loading_is_confined_to_the_runs_directory(tmp_path, trainer):
    root, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    mine, theirs = sharing_run(root), sharing_run(elsewhere)
    assert load_sharing(mine.name, root=root).path == mine.resolve()
    assert load_sharing(str(mine), root=root).path == mine.resolve()
    assert load_sharing(root / ".." / "runs" / mine.name, root=root).path == mine.resolve()

    (root / "link").symlink_to(theirs, target_is_directory=True)
    (root / ".tmp-123-abc").mkdir()
    for bad in [f"../elsewhere/{theirs.name}", str(theirs), "link", "/etc", "..", ".", "", ".tmp-123-abc",
                f"{mine.name}/../../elsewhere/{theirs.name}", f"{mine.name}/history.csv"]:
        with pytest.raises(RunPathError):
            load_sharing(bad, root=root)
    assert list_sharing(root) == [mine]  # the link out is not offered either

    (mine / "history.csv").unlink()
    (mine / "history.csv").symlink_to(theirs / "history.csv")  # a file linked out of the run
    with pytest.raises(RunPathError, match="history.csv"):
        load_sharing(mine.name, root=root)
    with pytest.raises(RunFileError):
        load_sharing("20990101-000000-none", root=root)

    dyn = save_run(trainer, root / "dynamics")
    assert load_run(dyn.name, root=root / "dynamics").meta["steps_done"] == trainer.step
    with pytest.raises(LabError):
        load_run(f"../{mine.name}", root=root / "dynamics")


def test_a_symlinked_runs_directory_still_resolves_its_own_runs(tmp_path):
    real = tmp_path / "real"
    run = sharing_run(real)
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    assert runstore.resolve_run(run.name, tmp_path / "alias") == run.resolve()
    assert runstore.resolve_run(tmp_path / "alias" / run.name, tmp_path / "alias") == run.resolve()
    assert [p.name for p in list_sharing(tmp_path / "alias")] == [run.name]


def test_family_load_accepts_the_runs_directory(tmp_path):
    from lab.experiments import FAMILIES

    path = sharing_run(tmp_path)
    for name in ("sharing", "msr"):
        fam = FAMILIES[name]
        assert fam.load(path.name, root=fam.results_dir(tmp_path)).meta["config"]["task"] == "conv"
        with pytest.raises(RunPathError):
            fam.load(str(tmp_path.parent), root=fam.results_dir(tmp_path))
