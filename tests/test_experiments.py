"""The experiments layer: every family declared once, run through one protocol, reported and kept the same way."""
from __future__ import annotations

import argparse
import json
import math
import threading
import time

import pytest

from lab.cli import COMMANDS, build_parser, main
from lab.config import ConfigError
from lab.control import Control
from lab.experiments import FAMILIES
from lab.experiments.bounds import BoundsConfig
from lab.experiments.discovery import DiscoveryConfig
from lab.experiments.emlp import EMLPConfig
from lab.experiments.ensembles import EnsemblesConfig
from lab.experiments.meter import MeterConfig
from lab.experiments.basis import BasisConfig
from lab.experiments.dynamics import DynamicsConfig
from lab.experiments.msr import MSRConfig
from lab.experiments.rpp import RPPConfig
from lab.experiments.sharing import SharingConfig, make_task

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


def test_no_import_circles_anywhere_and_faces_stay_on_top():
    """The whole package's import graph (ast, lazy imports included) has no circle; the science never imports
    the experiments layer, the plots or the faces; the shared layers never import a family; the experiments layer
    never imports the faces."""
    from test_engine_imports import graph, strongly_connected

    g = graph()
    assert [sorted(c) for c in strongly_connected(g) if len(c) > 1] == []
    faces = ("lab.cli", "lab.dashboard", "lab.jobs")
    above = faces + ("lab.experiments", "lab.plots", "lab.reproduce", "lab.sweeps")
    science = ("lab.dynamics", "lab.sharing", "lab.emlp", "lab.rpp", "lab.meter", "lab.ensembles", "lab.bounds",
               "lab.discovery", "lab.audit", "lab.data", "lab.nn", "lab.groups", "lab.reps", "lab.solvers",
               "lab.control", "lab.runstore")
    families = ("lab.dynamics", "lab.sharing", "lab.emlp", "lab.rpp", "lab.meter", "lab.ensembles", "lab.bounds",
                "lab.discovery")
    shared = ("lab.data", "lab.nn", "lab.groups", "lab.reps", "lab.solvers", "lab.control", "lab.runstore",
              "lab.config", "lab.errors", "lab.limits", "lab.jobs")  # the layers every family stands on
    rules = {**{package: above for package in science},
             **{package: families for package in shared},
             "lab.experiments": faces,
             "lab.plots": faces + ("lab.experiments", "lab.solvers")}
    for package, banned in rules.items():
        for name, deps in g.items():
            if name == package or name.startswith(package + "."):
                bad = sorted(d for d in deps if any(d == b or d.startswith(b + ".") for b in banned))
                assert not bad, f"{name} imports {bad}"
