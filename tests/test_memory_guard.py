"""The memory guard is honest: for each case a fresh process runs the computation with a memory limit just above
its estimate and its peak RSS growth stays under the limit; with a limit below the estimate it refuses with a
MemoryLimitError before allocating anything sizeable.  Peak RSS is ``ru_maxrss`` minus its value after the
imports and a small warm-up run of the same kind (lazy imports, BLAS and torch buffers)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, resource, sys
kind, args = sys.argv[1], sys.argv[2:]
import numpy as np, scipy.linalg
from lab import parse_group, parse_rep
from lab.errors import MemoryLimitError
from lab.solvers import memory

rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if kind == "solve":
    group, text, solver = args
    G = parse_group(group)
    import lab.solvers as S
    from lab.solvers import cost
    rep = parse_rep(text, G)
    b = rep.blocks[0]
    estimate = cost.costs(G, S._canonical_factors(b.factors), b.size, [solver])[0].bytes
    parse_rep("T(2)", G).solve(solver=solver, cache=False)  # warm-up of the same path
    run = lambda: rep.solve(solver=solver, cache=False)
else:
    from lab.sharing.family import FAMILY, SharingConfig, memory_bytes
    group, rep_in, rep_out = args
    config = SharingConfig(task="group", group=group, rep_in=rep_in, rep_out=rep_out, steps=2, merge_tolerance=0)
    estimate = memory_bytes(config)
    FAMILY.run(SharingConfig(task="group", group="Z(2)", steps=2, restarts=2))
    run = lambda: FAMILY.run(config)
base = rss()
import os
factor = float(os.environ["GUARD_FACTOR"])
os.environ["LAB_MEMORY_LIMIT"] = str(int(estimate * factor))
try:
    run()
    refused = False
except MemoryLimitError:
    refused = True
print(json.dumps({"estimate": estimate, "limit": int(estimate * factor), "peak": rss() - base, "refused": refused}))
"""

CASES = [
    ("solve", "SO(3)", "T(6)", "dense"),
    ("solve", "SO(3)", "T(8)", "subgroup"),
    ("solve", "SO(3)", "T(6)", "krylov"),
    ("solve", "RubiksCube()", "T(3)", "orbit"),
    ("solve", "D(4)", "T(15)", "orbit"),
    ("sharing", "C4Grid(3)", "V", "V"),
]


def measure(case, factor):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LAB_CACHE_DIR": "off", "GUARD_FACTOR": str(factor)}
    env.pop("LAB_MEMORY_LIMIT", None)
    res = subprocess.run([sys.executable, "-c", SCRIPT, *case], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", CASES, ids=[" ".join(c[1:]) for c in CASES])
def test_estimate_bounds_the_peak_and_refusal_allocates_nothing(case):
    above = measure(case, 1.05)
    assert not above["refused"], above
    assert above["peak"] <= above["limit"], above
    below = measure(case, 0.5)
    assert below["refused"], below
    assert below["peak"] < min(below["limit"] / 4, 16 * 2**20), below


def test_estimates_are_exact_ints_before_building():
    from lab.sharing.family import SharingConfig, memory_bytes
    from lab.sharing.tasks import group_task_bytes

    config = SharingConfig(task="group", group="C4Grid(40)", rep_in="V", rep_out="V")
    need = memory_bytes(config)  # K = 2.56 million weight entries: nothing of that size is built to say so
    assert isinstance(need, int) and need > 2**40
    assert isinstance(group_task_bytes("S(4)", "T(2)", "V"), int)
    assert memory_bytes(SharingConfig(task="conv")) is None


def test_group_task_run_refuses_before_building(monkeypatch):
    from lab.errors import MemoryLimitError
    from lab.sharing.family import FAMILY, SharingConfig

    monkeypatch.setenv("LAB_MEMORY_LIMIT", "100MB")
    with pytest.raises(MemoryLimitError) as info:
        FAMILY.run(SharingConfig(task="group", group="C4Grid(12)", rep_in="V", rep_out="V"))
    assert "100.0 MB" in str(info.value) and "\n" not in str(info.value)
