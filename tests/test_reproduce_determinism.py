"""The same seed gives the same report numbers: the session's one ``lab reproduce --quick`` run (every claim, a
worker process per core with one torch thread each: the ``quick_report`` fixture) and a ``lab reproduce --quick
--only ...`` run of a few of its claims (trained models among them), in separate processes and output directories,
agree on every number they report (the parts' replicates and intervals, the measurements, the nulls).  Only seconds
may differ.  The two runs differ in everything else a user may vary: the second measures only these claims, in its
own process (``--workers 1``) with two torch threads allowed.  (Until issue 49 the test made both runs itself; the
shared report is the same kind of run, so the suite measures these claims once less.)"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

#: cheap claims that train or draw at random: a digits CNN's bound (trained), ensembles of trained networks, the
#: Lie derivative of networks drawn at a seed
IDS = "pac-nonvacuous,ens-exact-group-average,lee-zero-for-equivariant"
#: keys whose values are timings or paths, which legitimately differ between two runs
VOLATILE = {"seconds", "share_seconds", "shared", "resumed", "report", "created"}


def _numbers(value):
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


def _run(tmp_path, name, workers, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), LAB_PROGRESS_DELAY="0",
               LAB_CACHE_DIR=str(tmp_path / f"cache-{name}"), LAB_RESULTS_DIR=str(tmp_path / f"results-{name}"))
    env.pop("LAB_FIT_CACHE", None)  # every fit computed afresh: the comparison is of two computations
    out = subprocess.run([sys.executable, "-m", "lab", "reproduce", "--quick", "--only", IDS, "--json", "--fresh",
                          "--device", "cpu", "--out", str(tmp_path / name), "--workers", str(workers)],
                         capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_the_same_seed_gives_the_same_report_numbers(tmp_path, quick_report):
    printed, _ = quick_report
    first = {"claims": [c for c in printed["claims"] if c["id"] in IDS.split(",")]}
    second = _run(tmp_path, "b", workers=1, threads=2)
    assert sorted(c["id"] for c in first["claims"]) == sorted(IDS.split(","))
    assert [c["id"] for c in first["claims"]] == [c["id"] for c in second["claims"]]  # in report order
    for a, b in zip(first["claims"], second["claims"]):
        assert a["status"] == b["status"] == "finished", (a["id"], a["note"])
        assert _numbers(a) == _numbers(b), a["id"]
        assert any(p["replicates"] or p["null_replicates"] for p in a["parts"]), a["id"]
