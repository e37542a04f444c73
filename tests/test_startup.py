"""The command line starts light: quick commands never import torch (nor scipy.stats, matplotlib, HoloViews,
Panel), so that ``lab --help`` and friends answer in a fraction of a second.  Each command runs in a fresh
interpreter (a module imported once stays in ``sys.modules``); the check reads ``sys.modules``, never a time."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, runpy, sys
sys.argv = ["lab"] + json.loads(sys.argv[1])
code = 0
try:
    runpy.run_module("lab", run_name="__main__")
except SystemExit as exit:
    code = exit.code
sys.stdout.flush()
heavy = ("torch", "scipy", "scipy.stats", "matplotlib", "holoviews", "panel", "bokeh", "pandas")
sys.stderr.write("\\nMODULES " + json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}) + "\\n")
"""


def loaded_by(args: list[str]) -> tuple[int, list[str], str]:
    """(exit code, heavy modules imported, stdout) of ``lab ARGS`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, cwd=ROOT,
                         env=env, timeout=600)
    line = [x for x in res.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, res.stderr
    info = json.loads(line[-1][len("MODULES "):])
    return info["code"], info["loaded"], res.stdout


def test_help_imports_neither_torch_nor_scipy():
    """``lab --help`` reads the families' manifests and the group / solver names only: no torch, no scipy (``import
    lab`` loads the groups, representations and solvers on first use)."""
    code, loaded, out = loaded_by(["--help"])
    assert code == 0 and "basis" in out
    assert loaded == [], f"lab --help imported {loaded}"


@pytest.mark.parametrize("args", [["groups"], ["presets"], ["basis", "--help"], ["dynamics", "--help"],
                                  ["discover", "--help"]])
def test_listing_commands_stay_light(args):
    code, loaded, out = loaded_by(args)
    assert code == 0 and out.strip()
    loaded = [m for m in loaded if m != "scipy"]  # the groups' catalogue may need scipy, nothing heavier
    assert loaded == [], f"lab {' '.join(args)} imported {loaded}"


def test_small_orbit_basis_does_not_import_torch():
    code, loaded, out = loaded_by(["basis", "S(4)", "V>>V", "--json", "--no-cache"])
    assert code == 0
    info = json.loads(out)
    assert info["rank"] == 2 and info["solver"] == "orbit" and info["device"] == "cpu"
    assert "torch" not in loaded and "scipy.stats" not in loaded, f"imported {loaded}"


def test_import_lab_keeps_its_public_names():
    code = ("import sys, lab; missing = [n for n in lab.__all__ if not hasattr(lab, n)]; "
            "from lab import S, T, V, solve; assert solve(T(2)(S(5)), cache=False).rank == 2; "
            "from lab.sharing import learn_sharing, SharingResult, partition_distance; "
            "from lab.dynamics import DynamicsConfig, Trainer, EXPERIMENTS, STRATEGIES, build, run_dynamics; "
            "print(missing)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


@pytest.mark.parametrize("package", ["bounds", "discovery", "ensembles", "rpp", "meter", "dynamics",
                                     "sharing"])
def test_a_family_packages_public_names_load_on_first_use(package):
    """The family packages that re-export names load them lazily (their manifests are read without torch; emlp
    re-exports none since its science moved to lab.data and lab.nn): every name of ``__all__`` resolves to an object defined in the package (not a submodule standing in for a function)."""
    import importlib
    import types

    pkg = importlib.import_module(f"lab.{package}")
    assert pkg.__all__
    for name in pkg.__all__:
        value = getattr(pkg, name)
        assert not isinstance(value, types.ModuleType), name
        assert name in dir(pkg)
