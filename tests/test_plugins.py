"""Families found through the ``symmetry_lab.families`` entry points (``lab.experiments.plugins``): the lab's own are
registered in its ``pyproject.toml``; the package docs/adding-a-family.md builds, installed with pip, appears as a
command, a tab and a claim with nothing in ``lab/`` edited; a broken one is left out with one warning line and the
rest keep working."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path


from lab.experiments import plugins
from lab.experiments import FAMILIES
from lab.experiments.family import Family

#: the command line's experiment commands (a contract: names and their families never change)
COMMANDS_CONTRACT = {"basis": ("basis",), "dynamics": ("dynamics",), "discover": ("sharing", "msr"),
                     "emlp": ("emlp",), "rpp": ("rpp",), "lie-derivative": ("meter",), "ensembles": ("ensembles",),
                     "bound": ("bounds",), "discover-lie": ("discovery",)}

TINY = '''
from dataclasses import dataclass

from lab.config import Config, option
from lab.experiments.family import Family, progress_record


@dataclass
class TinyConfig(Config):
    n: int = option(4, "how many squares", low=1, high=100)


def run(config, progress=None, control=None):
    squares = []
    for i in range(config.n):
        squares.append(i * i)
        if progress:
            progress(progress_record(i + 1, config.n, f"square {i}"))
    return squares


FAMILY = Family(name="tiny", title="Tiny squares", config=TinyConfig, run=run,
                summary=lambda r: {"squares": r}, text=lambda r: " ".join(map(str, r)),
                help="a tiny family from a package of its own")
CLASH = Family(name="dynamics", title="Not the lab's", config=TinyConfig, run=run, summary=dict, text=str)
TAKES_SWEEP = Family(name="sweeper", title="Takes a command", config=TinyConfig, run=run, summary=dict, text=str,
                     command="sweep")
NOT_A_FAMILY = 42
'''

def _plugin(root, entries: dict) -> None:
    """A package ``tinyfam`` (one module) with a distribution's metadata declaring ``entries`` (name -> object
    path) under the families' group: what ``pip install`` of a user's package leaves on the path."""
    (root / "tinyfam").mkdir()
    (root / "tinyfam" / "__init__.py").write_text(TINY)
    (root / "tinybroken.py").write_text("import a_module_that_is_not_installed\n")
    info = root / "tinyfam-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinyfam\nVersion: 0.1\n")
    lines = "\n".join(f"{k} = {v}" for k, v in entries.items())
    (info / "entry_points.txt").write_text(f"[{plugins.GROUP}]\n{lines}\n")


def _lab(root, *argv):
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "lab", *argv], capture_output=True, text=True, env=env, timeout=300)


def test_the_labs_own_families_come_through_its_entry_points():
    own = {ep.name: ep.value for ep in metadata.entry_points(group=plugins.GROUP)
           if plugins._dist_name(ep).lower() == plugins.OWN}
    assert set(own) == set(FAMILIES)
    assert all(re.fullmatch(r"lab\.[a-z]+\.family(_[a-z]+)?:FAMILY", v) for v in own.values()), own
    assert plugins.commands(FAMILIES) == COMMANDS_CONTRACT
    assert list(FAMILIES) == sorted(FAMILIES, key=lambda n: FAMILIES[n].order)
    out = subprocess.run([sys.executable, "-c", "import lab.experiments.plugins as p; print(p.PROBLEMS)"],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]" and "warning" not in out.stderr


def test_broken_plugins_are_left_out_with_one_line_each(tmp_path):
    _plugin(tmp_path, {"broken": "tinybroken:FAMILY", "invalid": "tinyfam:NOT_A_FAMILY", "clash": "tinyfam:CLASH",
                       "sweeper": "tinyfam:TAKES_SWEEP", "tiny": "tinyfam:FAMILY"})
    out = _lab(tmp_path, "--help")
    assert out.returncode == 0
    warnings = out.stderr.strip().splitlines()
    assert len(warnings) == 4 and all(w.startswith("lab: warning: family plugin") for w in warnings)
    said = dict(zip(["broken", "clash", "invalid", "sweeper"], warnings))  # read in name order
    assert "'broken'" in said["broken"] and "failed to import" in said["broken"]
    assert "ModuleNotFoundError" in said["broken"]
    assert "not a lab Family manifest" in said["invalid"] and "'invalid'" in said["invalid"]
    assert "family name 'dynamics' is taken" in said["clash"]
    assert "command 'sweep' is taken" in said["sweeper"]
    for command in (*COMMANDS_CONTRACT, "tiny", "sweep", "reproduce"):  # every other family keeps working
        assert command in out.stdout
    run = _lab(tmp_path, "dynamics", "--help")  # the lab's dynamics, not the clashing plugin's
    assert run.returncode == 0 and "--experiment" in run.stdout


class _EP:
    def __init__(self, name, obj, dist=None):
        self.name, self.value, self._obj, self.dist = name, f"fake:{name}", obj, dist

    def load(self):
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


class _Dist:
    metadata = {"Name": "symmetry-lab"}


def test_load_families_in_process(capsys):
    """In process, with made-up entry points: order by ``order`` then name, the lab's own read first (a plugin
    of the same name is the one left out), and without the lab's own entry points its modules are read."""
    basis = FAMILIES["basis"]
    late = Family(name="aaa-late", title="late", config=basis.config, run=basis.run, summary=dict, text=str,
                  order=5000)
    impostor = Family(name="basis", title="impostor", config=basis.config, run=basis.run, summary=dict, text=str)
    got = plugins.load_families([_EP("aaa-late", late), _EP("basis", impostor), _EP("basis", basis, _Dist()),
                                 _EP("oops", RuntimeError("boom"))])
    assert list(got) == ["basis", "aaa-late"] and got["basis"] is basis
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "'basis'" in err[0] and "taken" in err[0] and "RuntimeError: boom" in err[1]
    assert plugins.PROBLEMS == [e.removeprefix("lab: warning: ") for e in err]
    fallback = plugins.load_families([])
    assert list(fallback) == list(FAMILIES)
    (line,) = capsys.readouterr().err.splitlines()
    assert "entry points" in line and "missing" in line and "pip install -e ." in line


def test_reserved_commands_are_the_command_lines_own():
    from lab.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    contributed = {c.name: name for name, f in FAMILIES.items() for c in f.commands}
    assert contributed == {"presets": "basis", "audit": "meter"}  # the lab's two contributed commands, names kept
    assert set(sub.choices) == set(COMMANDS_CONTRACT) | set(plugins.RESERVED) | set(contributed)
    assert not set(contributed) & set(plugins.RESERVED)


def test_a_plugin_that_contributes_a_taken_command_is_left_out(capsys):
    """A contributed command is checked like a family's run command: a plugin whose extra command is one the lab's
    command line or another family has is left out with one warning line; one with a free name is kept and its
    command reaches the parser."""
    from lab.experiments import Command

    basis, meter = FAMILIES["basis"], FAMILIES["meter"]
    noop = Command("audit", lambda sub: sub.add_parser("audit"), lambda args: 0)
    clash = Family(name="clash", title="clash", config=basis.config, run=basis.run, summary=dict, text=str,
                   commands=(noop,))
    reserved = Family(name="resv", title="resv", config=basis.config, run=basis.run, summary=dict, text=str,
                      commands=(Command("sweep", noop.add, noop.run),))
    free = Family(name="free", title="free", config=basis.config, run=basis.run, summary=dict, text=str,
                  commands=(Command("hello", lambda sub: sub.add_parser("hello"), lambda args: 0),))
    got = plugins.load_families([_EP("basis", basis, _Dist()), _EP("meter", meter, _Dist()), _EP("clash", clash),
                                 _EP("resv", resv := reserved), _EP("free", free)])
    assert list(got) == ["basis", "meter", "free"] and resv.name not in got
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("taken" in e for e in err)
    assert "'audit'" in err[0] and "'sweep'" in err[1]


GUIDE = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "adding-a-family.md")


def guide_files() -> dict:
    """{path: text} of every file the guide shows (a ``<!-- file: PATH -->`` line, then its fenced block)."""
    import re

    text = open(GUIDE, encoding="utf-8").read()
    return {m.group(1): m.group(2) for m in re.finditer(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, re.S)}


def install_guide_package(tmp_path) -> Path:
    """The guide's files written as shown under ``tmp_path`` (its sweep file beside the package), the package
    installed with pip into ``tmp_path / "site"`` (a directory of its own: this environment keeps no trace of it);
    returns that directory, for ``PYTHONPATH``."""
    files = guide_files()
    assert set(files) == {"pyproject.toml", "tinyfam/__init__.py", "tinyfam/pane.py", "tinyfam/claims.py",
                          "tiny-sweep.yaml"}
    (tmp_path / "tiny-sweep.yaml").write_text(files.pop("tiny-sweep.yaml"))
    package = tmp_path / "tinyfam-package"
    for path, text in files.items():
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        (package / path).write_text(text)
    site = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                          "--no-index", "--target", str(site), str(package)], capture_output=True, text=True,
                         timeout=600)
    assert pip.returncode == 0, pip.stderr
    assert (site / "tinyfam-0.1.0.dist-info" / "entry_points.txt").is_file()
    return site


def test_the_guide_builds_a_working_family(tmp_path, monkeypatch):
    """docs/adding-a-family.md, step by step: its files written as shown, the package installed with pip (into a
    directory of its own, so that this environment keeps no trace of it), and each console line it shows."""
    site = install_guide_package(tmp_path)
    sweep_file = tmp_path / "tiny-sweep.yaml"
    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path / "results"))  # where the commands below save their runs
    run = _lab(site, "tiny", "--n", "5", "--json")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.strip() == '{"squares": [0, 1, 4, 9, 16]}'  # the guide's console line
    (saved,) = (tmp_path / "results" / "tiny").iterdir()  # saved by its RunKind, in its own directory
    assert (saved / "squares.csv").read_text().splitlines() == ["i,square", "0,0", "1,1", "2,4", "3,9", "4,16"]
    listed = _lab(site, "runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = [r for r in json.loads(listed.stdout)["runs"] if r["kind"] == "tiny"]
    assert row["name"] == saved.name and row["what"] == "5" and row["status"] == "finished"
    line = _lab(site, "runs", "list").stdout.strip()  # the shape of the guide's line
    assert re.fullmatch(rf"{saved.name}\s+tiny\s+5\s+finished", line), line
    bad = _lab(site, "tiny", "--n", "0")
    assert bad.returncode == 2 and bad.stderr.strip() in open(GUIDE, encoding="utf-8").read()
    sweep = _lab(site, "sweep", str(sweep_file), "--workers", "1", "--json")  # the plugin on a Dask worker
    assert sweep.returncode == 0, sweep.stderr
    report = json.loads(sweep.stdout)
    assert (report["done"], report["failed"]) == (3, 0), report
    points = [p for p in (Path(report["store"]) / "runs").iterdir() if not p.name.startswith(".")]
    runs = [json.loads((p / "config.json").read_text()) for p in points]  # each saved as the command saves it
    assert sorted(r["config"]["n"] for r in runs) == [2, 3, 4] and {r["kind"] for r in runs} == {"tiny"}
    listed = _lab(site, "reproduce", "--list")
    assert listed.stdout.splitlines()[-1].startswith("tiny-squares-grow ")
    rep = _lab(site, "reproduce", "--quick", "--only", "tiny-squares-grow", "--out", str(tmp_path / "r"), "--json")
    assert rep.returncode == 0, rep.stderr
    (c,) = json.loads(rep.stdout)["claims"]
    assert c["holds"] is True and c["parts"][0]["null_holds"] is False
    code = ("from lab.dashboard import PANES, _load; title, spec = PANES[-2]; pane = _load(spec)(); "
            "pane.n.value = 3; print(title, '|', pane.table.object, '|', PANES[-1][0])")
    tab = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(site)})
    assert tab.returncode == 0, tab.stderr
    assert tab.stdout.strip() == "Tiny squares | 0 1 4 | Sweeps"


def test_a_script_whose_first_import_is_a_manifest_still_sees_every_family():
    """``FAMILIES`` is read on first use: a manifest imported before it (which imports ``lab.experiments.family``)
    is never met half-initialised, so no family is left out and no warning is printed."""
    code = ("import lab.ensembles.family, lab.dynamics.family\n"
            "from lab.experiments import FAMILIES\n"
            "import lab.ensembles as e\n"
            "print(sorted(FAMILIES), e.train.__name__, callable(e.train))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert res.stdout.split("]")[0] == str(sorted(FAMILIES)).rstrip("]")
    assert res.stdout.strip().endswith("train True")


def test_importing_lab_changes_nothing_outside_it():
    """No import magic (issue 63): ``import lab`` installs no finder on ``sys.meta_path`` and sets no environment
    variable (the wait policy is chosen by the commands, ``lab.cli.main`` and ``build_app``, not by an import); the
    names from before issue 47 are gone, listed in the CHANGELOG with their new homes."""
    code = ("import os, sys\n"
            "before = (list(sys.meta_path), dict(os.environ))\n"
            "import lab, lab.dynamics.family\n"
            "print(list(sys.meta_path) == before[0], dict(os.environ) == before[1])\n"
            "try:\n"
            "    import lab.experiments.dynamics\n"
            "except ModuleNotFoundError:\n"
            "    print('gone')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "True", "gone"]
