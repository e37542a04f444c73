"""The experiments layer: every family declared once, run through one protocol, reported and kept the same way."""
from __future__ import annotations

import argparse
import json
import math
import threading
import time
from pathlib import Path

import pytest

from lab.cli import COMMANDS, build_parser, main
from lab.config import ConfigError
from lab.control import Control
from lab.experiments import FAMILIES
from lab.bounds.family import BoundsConfig
from lab.discovery.family import DiscoveryConfig
from lab.emlp.family import EMLPConfig
from lab.ensembles.family import EnsemblesConfig
from lab.meter.family import MeterConfig
from lab.basis.family import BasisConfig
from lab.dynamics.family import DynamicsConfig
from lab.sharing.family_msr import MSRConfig
from lab.rpp.family import RPPConfig
from lab.sharing.family import SharingConfig, make_task

TINY = {
    "basis": BasisConfig(group="S(4)", rep="T(2)", rep_out="V", cache=False),
    "dynamics": DynamicsConfig(experiment="custom", runs=2, steps=3, strategies=("nom", "equi")),
    "sharing": SharingConfig(task="conv", steps=20),
    "msr": MSRConfig(tasks=6, steps=4),
    "emlp": EMLPConfig(task="o5", sizes=("20",), channels=8, layers=1, epochs=2, test=20),
    "rpp": RPPConfig(symmetry="exact", size=20, test=20, channels=8, layers=1, epochs=2, seeds=1),
    "meter": MeterConfig(epochs=1, samples=8),
    "ensembles": EnsemblesConfig(members=2, steps=2, channels=2, test_points=8, records=2, resamples=2),
    "bounds": BoundsConfig(dims="0,4", steps=2, quant_steps=2, train_points=32),
    "discovery": DiscoveryConfig(samples=50, fit_steps=5, steps=5, restarts=1),
}


def test_every_family_is_registered_and_reachable_from_the_cli():
    assert set(FAMILIES) == set(TINY)
    assert sorted(n for names in COMMANDS.values() for n in names) == sorted(FAMILIES)


@pytest.mark.parametrize("name", sorted(TINY))
def test_run_reports_progress_and_returns_a_finished_result(name):
    records = []
    fam = FAMILIES[name]
    result = fam.run(TINY[name], progress=records.append)
    assert result.status == "finished"
    progress = [r for r in records if r["kind"] == "progress"]
    assert progress, "no progress record"
    assert all(0 <= r["done"] <= r["total"] for r in progress)
    assert progress[-1]["done"] == progress[-1]["total"]
    json.dumps(fam.summary(result))  # the --json object is plain data


@pytest.mark.parametrize("name", ["dynamics", "sharing", "msr"])
def test_stop_ends_a_run_early_with_a_stopped_result_that_saves_and_loads(name, tmp_path):
    fam = FAMILIES[name]
    control = Control()
    config = {"dynamics": DynamicsConfig(experiment="custom", runs=2, steps=10_000),
              "sharing": SharingConfig(task="conv", steps=100_000),
              "msr": MSRConfig(tasks=6, steps=100_000)}[name]
    seen = []

    def progress(record):
        seen.append(record)
        if record["kind"] == "progress" and record["done"] >= 2:
            control.stop()

    result = fam.run(config, progress=progress, control=control)
    assert result.status == "stopped"
    assert max(r["done"] for r in seen if r["kind"] == "progress") < 100
    path = fam.save(result, tmp_path)
    loaded = fam.load(path)
    assert loaded.meta["status"] == "stopped"
    restored = fam.config.from_dict(loaded.meta["config"])
    assert restored.to_dict() == result.config.to_dict()


def test_pause_holds_a_run_until_resumed():
    control = Control()
    steps = []

    def progress(record):
        if record["kind"] == "records":
            steps.append(record["step"])
            if record["step"] == 1:
                control.pause()

    worker = threading.Thread(target=FAMILIES["dynamics"].run, args=(DynamicsConfig(
        experiment="custom", runs=1, steps=3, strategies=("nom",)),), kwargs=dict(progress=progress, control=control))
    worker.start()
    deadline = time.monotonic() + 300
    while not steps and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    assert steps == [1] and worker.is_alive()  # held at the pause
    control.resume()
    worker.join(300)
    assert steps == [1, 2, 3]


@pytest.mark.parametrize("config, needle", [
    (DynamicsConfig(runs=0), "runs must be at least 1"),
    (DynamicsConfig(lr=math.nan), "finite"),
    (DynamicsConfig(lr=0.0), "the learning rate must be above 0"),
    (DynamicsConfig(runs=True), "integer"),
    (DynamicsConfig(strategies=("nom", "magic")), "magic"),
    (DynamicsConfig(experiment="perm", group="S(5)"), "group applies"),
    (SharingConfig(K=3, blocks=4), "blocks (4) cannot exceed K (3)"),
    (SharingConfig(split=1.0), "below 1"),
    (SharingConfig(steps=0), "steps must be at least 1"),
    (MSRConfig(kernel=20), "does not fit"),
    (MSRConfig(sparsity="l0"), "choose one of"),
    (BasisConfig(solver="magic"), "choose one of"),
])
def test_configs_refuse_bad_values_with_one_line(config, needle):
    with pytest.raises(ConfigError) as err:
        config.validate()
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_config_round_trips_and_names_an_unknown_field():
    c = SharingConfig(task="gaussian", K=7, blocks=2).validate()
    assert SharingConfig.from_dict(c.to_dict()) == c
    with pytest.raises(ConfigError, match="run.json: unknown setting 'bogus'"):
        SharingConfig.from_dict({**c.to_dict(), "bogus": 1}, where="run.json")


def _subparser(command) -> argparse.ArgumentParser:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[command]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_cli_options_are_the_config_declarations(command):
    sub = _subparser(command)
    by_dest = {a.dest: a for a in sub._actions}
    for name in COMMANDS[command]:
        for o in FAMILIES[name].config.declarations():
            action = by_dest[o.name]
            if o.choices and o.type is not tuple:
                assert set(o.choices) <= set(action.choices)
            if not o.positional:
                assert action.default is argparse.SUPPRESS  # defaults live in the config only
                assert o.flag in action.option_strings


def test_an_option_not_given_takes_the_config_default(tmp_path, capsys):
    code = main(["discover", "--task", "msr", "--tasks", "4", "--steps", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["sparsity"] == MSRConfig().sparsity and out["kernel"] == MSRConfig().kernel


def test_the_sharing_task_is_built_in_one_place():
    cfg = SharingConfig(task="gaussian", K=6, blocks=2, seed=3).validate()
    a, b = make_task(cfg, 3), make_task(cfg, 3)
    assert (a.gt == b.gt).all() and a.K == 6
    assert SharingConfig(task="group").validate().with_defaults().restarts == 8


def test_json_output_is_strict_even_when_values_are_not_finite():
    from lab.cli import strict

    obj = strict({"aug": {"loss": math.nan, "dist_from_E": 0.5, "runs": [1.0, math.inf]}})
    text = json.dumps(obj, allow_nan=False)
    assert json.loads(text)["aug"] == {"loss": None, "loss_reason": "NaN: not a number (e.g. every run diverged)",
                                       "dist_from_E": 0.5, "runs": [1.0, None]}


#: the files of a family's folder that are its faces (its manifest, pane, plots and claims); the rest is its science
FACES = ("family", "pane", "plots", "claims", "cli")  # cli: the commands a family contributes (Family.commands)
#: the layers every family stands on (they import no family), and the faces (nothing below imports them)
SHARED = ("lab.data", "lab.nn", "lab.groups", "lab.reps", "lab.solvers", "lab.control", "lab.runstore", "lab.config",
          "lab.errors", "lab.limits", "lab.jobs", "lab.plots", "lab.dashboard", "lab.reproduce", "lab.experiments",
          "lab.compare", "lab.sweeps", "lab.device", "lab.kron", "lab.text", "lab.lazy", "lab.threads")
TOP = ("lab.cli", "lab.commands", "lab.dashboard", "lab.jobs", "lab.experiments", "lab.plots", "lab.reproduce",
       "lab.sweeps", "lab.compare")


def family_folders() -> list[str]:
    """The packages of lab/ that are a family's folder: those holding a ``family.py`` manifest."""
    root = Path(__file__).resolve().parents[1] / "lab"
    return sorted(p.parent.name for p in root.glob("*/family.py") if p.parent.name != "experiments")


def _family_of(module: str, folders) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in folders else None


def _is_face(module: str, folders) -> bool:
    parts = module.split(".")
    return bool(_family_of(module, folders)) and len(parts) > 2 and parts[2].split("_")[0] in FACES


def _within(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def import_rule_breaks(g: dict[str, set[str]], folders) -> list[str]:
    """Every import that breaks a rule of issue 47: a shared layer imports a family; a family's science imports a
    face (its own or another family's manifest, pane, plots or claims; the dashboard, jobs, experiments, plots,
    reproduce, sweeps or command-line layers); a family's face imports another family's face."""
    out = []
    for name, deps in sorted(g.items()):
        fam = _family_of(name, folders)
        for d in sorted(deps):
            if _within(name, SHARED) and _family_of(d, folders):
                out.append(f"shared {name} imports the family module {d}")
            elif fam and not _is_face(name, folders) and (_is_face(d, folders) or _within(d, TOP)):
                out.append(f"the science {name} imports {d}")
            elif fam and _is_face(name, folders) and _is_face(d, folders) and _family_of(d, folders) != fam:
                out.append(f"{name} imports another family's face {d}")
    return out


def test_the_import_rules_have_power():
    """The rule check catches each kind of break (on a made-up graph), so its silence on lab/ means something."""
    folders = ["dynamics", "sharing"]
    g = {"lab.plots.style": {"lab.sharing.partition"}, "lab.dynamics.train": {"lab.dynamics.pane"},
         "lab.sharing.bilevel": {"lab.experiments.family"}, "lab.dynamics.plots_mpl": {"lab.sharing.plots_mpl"},
         "lab.dynamics.pane": {"lab.dynamics.train", "lab.dashboard.runner", "lab.sharing.partition"},
         "lab.dynamics.family": {"lab.experiments.family"}}
    assert len(import_rule_breaks(g, folders)) == 4


def test_no_import_circles_anywhere_and_faces_stay_on_top():
    """The whole package's import graph (ast, lazy imports included) has no circle; every family is one folder whose
    science imports no face; the shared layers import no family; no family's face imports another's."""
    from test_engine_imports import graph, strongly_connected

    g = graph()
    assert [sorted(c) for c in strongly_connected(g) if len(c) > 1] == []
    folders = family_folders()
    assert {"basis", "dynamics", "sharing", "emlp", "rpp", "meter", "ensembles", "bounds", "discovery"} <= set(folders)
    assert import_rule_breaks(g, folders) == []
    # the shared plot modules and the framework stay below the faces too
    rules = {"lab.experiments": ("lab.cli", "lab.dashboard", "lab.jobs"),
             "lab.plots": ("lab.cli", "lab.dashboard", "lab.jobs", "lab.experiments", "lab.solvers")}
    for package, banned in rules.items():
        for name, deps in g.items():
            if _within(name, (package,)):
                bad = sorted(d for d in deps if _within(d, banned))
                assert not bad, f"{name} imports {bad}"


def test_every_family_folder_uses_the_fixed_file_names():
    """A newcomer learns the names once: each folder's manifest is ``family.py`` (or ``family_<variant>.py``), its
    pane ``pane.py``, its figures ``plots_<renderer>.py`` and its claims ``claims*.py``; each in-tree family's
    manifest lives in its own folder."""
    from lab.experiments import FAMILIES

    own = {name: family for name, family in FAMILIES.items() if family.run.__module__.startswith("lab.")}
    assert len(own) >= 10
    for name, family in own.items():
        module = family.run.__module__
        folder = module.split(".")[1]
        assert module.split(".")[2].startswith("family"), module
        for spec in (family.pane, *family.claims, family.runs):
            if spec:
                assert spec.startswith(f"lab.{folder}."), (name, spec)
