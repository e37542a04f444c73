"""Runs saved by earlier versions of the lab still load, through every family's own reader and the one store.

``tests/data/runs-<commit>/`` holds one run of every family that keeps runs, written by that commit's code
(``tests/data/make_saved_runs.py``, laid out as ``$LAB_RESULTS_DIR`` is).  They are never regenerated: when the
run format changes, a new folder is added beside the old ones and both must keep loading.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lab.cli import main
from lab.config import ConfigError
from lab.experiments import FAMILIES

FIXTURES = sorted((Path(__file__).parent / "data").glob("runs-*"))
#: the families that keep runs (``Family.runs``) on the commit the first fixture was written at
KEEPERS = {"dynamics", "sharing", "msr", "emlp", "rpp", "meter", "ensembles", "bounds", "discovery"}


@pytest.fixture(params=FIXTURES, ids=lambda p: p.name)
def results(request, tmp_path, monkeypatch):
    root = tmp_path / "runs"
    shutil.copytree(request.param, root)
    monkeypatch.setenv("LAB_RESULTS_DIR", str(root))
    return root


def _own(family, run) -> bool:
    """A run is the family's when its saved settings are the family's config (msr and sharing share a store)."""
    try:
        family.config.from_dict(run.config)
    except ConfigError:
        return False
    return True


def test_there_is_a_fixture_and_every_family_that_keeps_runs_declares_its_kind():
    assert FIXTURES, "no saved-run fixtures in tests/data"
    keepers = {name for name, f in FAMILIES.items() if f.runs}
    assert keepers >= KEEPERS
    for name in keepers:
        kind = FAMILIES[name].run_kind
        assert FAMILIES[name].results_dir() == kind.directory()  # one directory, whichever way it is asked for


def test_every_familys_saved_run_still_loads_with_its_settings(results):
    for name in sorted(KEEPERS):
        family = FAMILIES[name]
        kind = family.run_kind
        runs = [kind.read(p) for p in kind.list()]
        mine = [r for r in runs if _own(family, r)]
        assert mine, f"no saved {name} run in the fixture"
        for run in mine:
            assert run.status == "finished" and run.path.parent == family.results_dir()
            family.load(run.path)  # the family's own reader (what its pane and notebooks call)
            family.load(run.path.name, root=family.results_dir())  # by name, confined to its directory
            restored = family.config.from_dict(run.config).to_dict()
            assert json.loads(json.dumps({k: restored[k] for k in run.config})) == run.config


def test_lab_runs_list_lists_a_run_of_every_kind_and_says_why_a_damaged_one_is_unreadable(results, capsys):
    assert main(["runs", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["runs"]
    kinds = {FAMILIES[n].run_kind.kind for n in KEEPERS}
    assert {r["kind"] for r in rows} == kinds
    assert all(r["status"] == "finished" and r["what"] != "?" for r in rows)

    emlp = FAMILIES["emlp"].run_kind.list()[0]
    (emlp / "results.csv").unlink()  # checked by its RunKind, not only its config.json
    assert main(["runs", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["runs"]
    broken = [r for r in rows if r["name"] == emlp.name]
    assert broken[0]["kind"] == "?" and "results.csv" in broken[0]["status"] and "missing" in broken[0]["status"]
    assert sum(r["kind"] != "?" for r in rows) == len(rows) - 1
