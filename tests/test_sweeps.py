"""Sweeps on Dask (issue 32): a sweep file's points validated before anything runs (a malformed file is one line,
exit 2), a small dynamics sweep on a 2-worker LocalCluster giving one record per point equal to that point run alone
with the CLI, the store's index appended atomically and resumed, failed points kept and retried on request, and a
killed worker and client losing no finished result."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab.sweeps import SweepError, SweepStore, load_sweep, parse_sweep, point_id

ROOT = Path(__file__).resolve().parents[1]
#: 2 groups x 2 strategies x 2 seeds of a tiny custom dynamics run (seconds each)
SMALL = """experiment: dynamics
fixed: {experiment: custom, runs: 1, steps: 3, scale: demo}
grid:
  group: ["S(3)", "Z(3)"]
  strategies: [nom, equi]
seeds: 2
"""


def _lab(*args, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, **(env or {})})


#: runs ``lab.cli.main`` on each JSON list of arguments read from stdin; prints its exit code and what it printed
_COMMANDS = """import contextlib, io, json, sys
from lab.cli import main
for line in sys.stdin:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(json.loads(line))
    print(json.dumps({"code": code, "out": out.getvalue()}), flush=True)
"""


def _lab_commands(commands: list, timeout=600) -> list:
    """``lab ARGS`` for each ARGS in ``commands``, one after another in one fresh process: [{code, out}]."""
    res = subprocess.run([sys.executable, "-c", _COMMANDS], input="".join(json.dumps(c) + "\n" for c in commands),
                         capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert res.returncode == 0, res.stderr[-2000:]
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_points_are_the_product_of_the_axes_with_zips_and_seeds():
    spec = parse_sweep({"experiment": "bound", "fixed": {"quant-steps": 2},
                        "grid": {"model": ["mlp", "cnn", "gcnn"], "width": [4, 8]},
                        "zip": [{"dims": ["0,4", "0,8"], "steps": [1, 2]}], "seeds": 3})
    assert spec.family().name == "bounds" and spec.size() == 3 * 2 * 2 * 3
    points = list(spec.points())
    assert len(points) == spec.size() == len({point_id(p) for p in points})
    assert all(p["quant_steps"] == 2 for p in points)
    assert {(p["dims"], p["steps"]) for p in points} == {("0,4", 1), ("0,8", 2)}  # zipped, not crossed
    assert sorted({p["seed"] for p in points}) == [0, 1, 2]
    assert spec.validate() == 36


@pytest.mark.parametrize("text,words", [
    ("experiment: nosuch\n", "unknown experiment 'nosuch'"),
    ("experiment: dynamics\ngrdi: {steps: [1]}\n", "unknown key 'grdi'"),
    ("experiment: dynamics\ngrid: {stepz: [1, 2]}\n", "unknown option 'stepz'"),
    ("experiment: dynamics\ngrid: {steps: [5, -1]}\n", "steps must be at least"),
    ("experiment: dynamics\ngrid: {steps: 5}\n", "needs a non-empty list"),
    ("experiment: dynamics\nzip: [{steps: [1, 2], lr: [0.1]}]\n", "different lengths"),
    ("experiment: dynamics\nseeds: 0\n", "'seeds' must be a positive"),
    ("experiment: dynamics\nfixed: {seed: 1}\nseeds: 2\n", "given twice"),
    ("experiment: [dynamics\n", "not valid YAML"),
    ("experiment: bound\ngrid: {model: [mlp, vit]}\n", "unknown value 'vit'"),
    ("- just\n- a list\n", "a mapping"),
])
def test_a_malformed_sweep_file_is_one_line_before_anything_runs(tmp_path, text, words):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(SweepError, match=None) as info:
        load_sweep(f).validate()
    assert words in str(info.value) and "\n" not in str(info.value)
    out = _lab("sweep", str(f), "--out", str(tmp_path / "store"), timeout=120)
    assert out.returncode == 2 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "store").exists()  # nothing ran, nothing written


def test_the_point_that_is_bad_is_named():
    spec = parse_sweep({"experiment": "dynamics", "fixed": {"experiment": "custom"},
                        "grid": {"group": ["S(3)", "NoSuchGroup(2)"]}})
    with pytest.raises(SweepError, match="NoSuchGroup"):
        spec.validate()


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.slow
def test_a_small_sweep_on_two_workers_equals_each_point_run_alone(tmp_path, client):
    from lab.sweeps.run import run_sweep

    f = tmp_path / "small.yaml"
    f.write_text(SMALL)
    spec, store = load_sweep(f), SweepStore(tmp_path / "store")
    records = []
    out = run_sweep(spec, store, text=SMALL, client=client, progress=records.append)
    assert (out.done, out.failed, out.skipped) == (8, 0, 0)
    df = store.frame()
    assert len(df) == 8 and set(df["status"]) == {"done"} and df["point"].is_unique
    assert len(set(df["worker"])) == 2  # both workers took points
    assert [r for r in records if r["kind"] == "progress"][-1]["done"] == 8
    commands = []
    for _, row in df.iterrows():
        settings = json.loads(row["settings"])
        assert (store.root / row["run"]).is_dir()  # the family's own run directory
        commands.append(["dynamics", "--experiment", "custom", "--runs", "1", "--steps", "3", "--scale", "demo",
                         "--group", settings["group"], "--strategies", settings["strategies"], "--seed",
                         str(settings["seed"]), "--no-save", "--json"])
    # each point alone, as `lab dynamics ... --json` prints it: one command line after another in one process of its
    # own, away from the cluster (a process per command paid 5 s of imports each)
    for row, alone in zip(df.to_dict("records"), _lab_commands(commands)):
        assert alone["code"] == 0, alone
        assert json.loads(row["summary"]) == json.loads(alone["out"]) | {
            k: v for k, v in json.loads(row["summary"]).items() if k in ("seconds", "elapsed")}
    # re-running skips every point
    again = run_sweep(spec, store, text=SMALL, client=client)
    assert (again.done, again.failed, again.skipped) == (0, 0, 8)


def test_failed_points_are_kept_and_retried_on_request(tmp_path, client):
    from lab.sweeps.run import run_sweep

    text = "experiment: bound\nfixed: {dims: '0', steps: 1, quant_steps: 1, train_points: 16}\ngrid: {width: [2, 4]}\n"
    spec, store = parse_sweep(__import__("yaml").safe_load(text)), SweepStore(tmp_path / "store")
    points = list(spec.points())
    store.write_spec(text)
    store.append([{"point": point_id(points[0]), "status": "failed", "error": "RuntimeError: out of luck",
                   "finished": time.time()}])
    first = run_sweep(spec, store, text=text, client=client)
    assert (first.done, first.failed, first.skipped) == (1, 0, 1)
    assert store.states()[point_id(points[0])] == "failed"
    assert store.frame().set_index("point").loc[point_id(points[0]), "error"] == "RuntimeError: out of luck"
    retried = run_sweep(spec, store, text=text, client=client, retry_failed=True)
    assert (retried.done, retried.failed, retried.skipped) == (1, 0, 1)
    assert set(store.states().values()) == {"done"} and len(store.table()) == 3  # the failure's row is kept
    other = "experiment: bound\ngrid: {width: [8]}\n"
    with pytest.raises(SweepError, match="another sweep"):
        store.write_spec(other)


def test_the_index_is_columnar_and_compacts(tmp_path):
    store = SweepStore(tmp_path)
    store.append([{"point": "a", "status": "done", "finished": 1.0, "x.width": 2, "s.best_bound": 0.5}])
    store.append([{"point": "b", "status": "done", "finished": 2.0, "x.width": 4, "s.best_bound": 0.4},
                  {"point": "a", "status": "done", "finished": 3.0, "x.width": 2, "s.best_bound": 0.45}])
    assert len(store.parts()) == 2 and len(store.table()) == 3
    df = store.frame()
    assert list(df["point"]) == ["b", "a"] and list(df["s.best_bound"]) == [0.4, 0.45]  # the latest row wins
    store.compact()
    assert len(store.parts()) == 1 and len(store.table()) == 3
    assert not list(tmp_path.glob("index/.*"))  # no temporary left behind


def _merged_beside_its_parts(store):
    """The moment inside ``compact()`` after the merged part is in place and before the old parts go."""
    import shutil

    keep = store.index_dir.parent / "old"
    shutil.copytree(store.index_dir, keep)
    store.compact()
    for p in keep.iterdir():
        shutil.copy(p, store.index_dir / p.name)


def test_a_reader_beside_a_compaction_counts_each_row_once(tmp_path):
    """While the merged part and the parts it replaces are both on disk, ``table()`` reads each row once; a part
    appended after the compaction listed the directory is still read."""
    store = SweepStore(tmp_path / "s")
    for i in range(3):
        store.append([{"point": f"p{i}", "status": "done", "finished": float(i)}])
    _merged_beside_its_parts(store)
    assert len(store.parts()) == 4 and len(store.table()) == 3
    store.append([{"point": "p3", "status": "done", "finished": 3.0}])
    assert sorted(store.frame()["point"]) == ["p0", "p1", "p2", "p3"]
    store.compact()  # a second compaction merges the merged part too, and its own list says so
    assert len(store.parts()) == 1 and len(store.table()) == 4


def test_a_part_removed_while_the_index_is_read_is_listed_again(tmp_path, monkeypatch):
    """The flake this fixes: ``table()`` listed the parts, ``compact()`` removed one, the read raised
    FileNotFoundError. Now the reader lists again and sees the merged part."""
    import pyarrow.parquet as pq

    store = SweepStore(tmp_path / "s")
    for i in range(3):
        store.append([{"point": f"p{i}", "status": "done", "finished": float(i)}])
    real, calls = pq.read_table, []

    def read_table(path, *a, **k):
        calls.append(path)
        if len(calls) == 2:  # mid-read: another process compacts
            monkeypatch.setattr(pq, "read_table", real)
            SweepStore(store.root).compact()
            monkeypatch.setattr(pq, "read_table", read_table)
        return real(path, *a, **k)

    before = {p.name for p in store.parts()}
    monkeypatch.setattr(pq, "read_table", read_table)
    assert sorted(store.frame()["point"]) == ["p0", "p1", "p2"]
    assert calls[1].name in before and calls[-1].name not in before  # it read the merged part after the miss


@pytest.mark.slow
def test_killing_a_worker_and_the_client_loses_no_finished_point(tmp_path):
    """A sweep of 12 points on the command line's own LocalCluster: once some points are in the index a worker is
    killed (the cluster's nanny restarts it and Dask reruns its task), then the client itself is killed; every row
    written is still there and readable, and re-running completes only the missing points."""
    import psutil

    text = SMALL.replace("seeds: 2", "seeds: 3").replace("steps: 3", "steps: 40")
    f = tmp_path / "kill.yaml"
    f.write_text(text)
    store = SweepStore(tmp_path / "store")
    proc = subprocess.Popen([sys.executable, "-m", "lab", "sweep", str(f), "--out", str(store.root), "--workers", "2",
                             "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while len(store.parts()) < 1 or len(store.table()) < 2:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "no point finished"
            time.sleep(0.2)
        workers = [p for p in psutil.Process(proc.pid).children(recursive=True)
                   if "distributed" in " ".join(p.cmdline()) or "spawn" in " ".join(p.cmdline())]
        assert workers
        workers[-1].kill()
        seen = len(store.table())
        time.sleep(1.0)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    kept = store.frame()
    assert len(kept) >= seen >= 2 and set(kept["status"]) <= {"done", "failed"}
    assert not any(p.name.endswith(".tmp") for p in store.index_dir.iterdir() if p.name.startswith("part"))
    again = _lab("sweep", str(f), "--out", str(store.root), "--workers", "2", "--json")
    assert again.returncode == 0, again.stderr
    s = json.loads(again.stdout)
    done_before = int((kept["status"] == "done").sum())
    assert s["skipped"] == done_before + int((kept["status"] == "failed").sum())
    assert s["done"] + s["skipped"] == 12 and s["store"] == str(store.root)
    final = store.frame()
    assert len(final) == 12 and final["point"].is_unique


@pytest.mark.slow
def test_reproduce_on_a_cluster_measures_each_module_as_one_task(tmp_path, client, quick_report):
    """Two claims measured on a Dask cluster, one task per module: each was read back by the client and labelled
    measured by this run (not kept from an earlier one), and measured exactly what the session's one ``lab reproduce
    --quick`` run (worker processes of the lab's own) measured -- the report the cluster writes against that one's,
    number for number and verdict for verdict."""
    from lab.reproduce.cluster import expected_seconds, groups, run_on_cluster

    ids = "ens-exact-group-average,pac-nonvacuous"
    assert groups(ids) == [["ens-exact-group-average"], ["pac-nonvacuous"]]
    records = []
    report = run_on_cluster(ids, profile="quick", out=tmp_path, client=client, progress=records.append, device="cpu")
    assert [r.id for r in report.results] == ids.split(",")
    # measured by the workers and read back by the client: measured in this run, not kept
    assert not any(r.resumed for r in report.results) and {r.provenance for r in report.results} == {"measured"}
    assert (tmp_path / "report.html").is_file()
    last = [r for r in records if r["kind"] == "progress"][-1]  # progress counts the groups' expected seconds
    assert last["done"] == last["total"] == round(sum(expected_seconds(g, "quick") for g in groups(ids))) > 2
    _, shared = quick_report
    local = {c["id"]: c["measured"] for c in shared["claims"]}
    written = json.loads((tmp_path / "report.json").read_text())
    assert [c["id"] for c in written["claims"]] == ids.split(",")
    assert [local[c["id"]] for c in written["claims"]] == [c["measured"] for c in written["claims"]]
    verdicts = {c["id"]: c["verdict"] for c in shared["claims"]}
    assert [verdicts[c["id"]] for c in written["claims"]] == [c["verdict"] for c in written["claims"]]
    assert written["provenance"] == {"measured": 2, "kept": 0}


def test_a_cuda_point_asks_for_a_gpu_worker(tmp_path, client):
    """A point whose device option asks for CUDA requests the worker resource GPU=1; on a cluster with no GPU worker
    it is refused in one line instead of waiting for ever (points on any device run anywhere)."""
    from lab.experiments import FAMILIES
    from lab.sweeps.run import run_sweep
    from lab.sweeps.task import needs_gpu

    bounds, sharing = FAMILIES["bounds"], FAMILIES["sharing"]
    assert needs_gpu({"device": "cuda"}, bounds) and needs_gpu({"device": "cuda:1"}, bounds)
    assert not needs_gpu({"device": "auto"}, bounds) and not needs_gpu({"device": "cpu"}, bounds)
    assert not needs_gpu({"device": "cuda"}, sharing)  # a family without a device option
    spec = parse_sweep({"experiment": "bound", "fixed": {"device": "cuda", "dims": "0", "train_points": 16}})
    with pytest.raises(SweepError, match="GPU resource"):
        run_sweep(spec, SweepStore(tmp_path / "store"), client=client)


def test_an_existing_cluster_by_its_address(tmp_path, client):
    """--scheduler ADDRESS: the points run on that cluster's workers (not on a cluster of the command's own)."""
    f = tmp_path / "s.yaml"
    f.write_text("experiment: bound\nfixed: {dims: '0', steps: 1, quant_steps: 1, train_points: 16}\n"
                 "grid: {model: [mlp, cnn]}\n")
    out = _lab("sweep", str(f), "--out", str(tmp_path / "store"), "--scheduler", client.scheduler.address, "--json")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert (s["done"], s["failed"], s["skipped"]) == (2, 0, 0)
    pids = set(client.run(os.getpid).values())
    workers = {int(w.rsplit(":", 1)[1]) for w in SweepStore(tmp_path / "store").frame()["worker"]}
    assert workers <= pids
    bad = _lab("sweep", str(f), "--out", str(tmp_path / "other"), "--scheduler", "tcp://127.0.0.1:9", timeout=120)
    assert bad.returncode == 2 and "cannot reach the Dask scheduler" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_every_family_runs_as_a_sweep_point_with_no_code_of_its_own(tmp_path):
    """``run_point`` (what each Dask task calls) on every family of ``FAMILIES``, with the protocol tests' tiny
    settings written as a sweep file would write them: each point done, saved where the family saves, summarised."""
    import yaml

    from lab.experiments import FAMILIES
    from lab.sweeps.task import run_point
    from test_experiments import TINY

    assert set(TINY) == set(FAMILIES)
    for name, config in TINY.items():
        declared = {o.name for o in FAMILIES[name].config.declarations()}
        settings = yaml.safe_load(yaml.safe_dump({k: v for k, v in config.to_dict().items() if k in declared}))
        spec = parse_sweep({"experiment": name, "fixed": settings})
        assert spec.validate() == 1
        row = run_point(name, settings, point_id(settings), str(tmp_path), [])
        assert row["status"] == "done", (name, row["error"])
        assert json.loads(row["summary"]) and (row["run"] is None or (tmp_path / row["run"]).exists())
