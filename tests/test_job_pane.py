"""The composed job pane (issue 47, item 4): a family's tab declares its family, its css prefix, its idle line and
its views; Start / Stop, status, the Saved-runs list, Load and restoring a run's settings are ``JobPane``'s, the
same for every pane.  Checked here on a made-up family (the plugin guide's squares), so that what the scaffolding
does is seen apart from any family's own drawing."""
from __future__ import annotations

from dataclasses import dataclass

import panel as pn
import pytest

from lab.config import Config, option
from lab.dashboard.config_params import add_config_params
from lab.dashboard.job_pane import JobPane
from lab.experiments import FAMILIES
from lab.experiments.family import Family, progress_record
from lab.runstore import RunKind, Table


@dataclass
class SquaresConfig(Config):
    n: int = option(4, "how many squares", low=1, high=100)
    seed: int = option(0, "a setting no control shows")


def run(config, progress=None, control=None):
    squares = []
    for i in range(config.n):
        if control is not None:
            control.checkpoint()
        squares.append(i * i)
        if progress:
            progress({**progress_record(i + 1, config.n, f"square {i}"), "kind": "square", "value": i * i})
    return squares


RUNS = RunKind("squares-test", tables=(Table("squares.csv", columns=("i", "square"), integer=("i", "square")),))


def save(squares, directory=None):
    meta = {"config": {"n": len(squares), "seed": 7}, "status": "finished", "summary": {"squares": squares}}
    return RUNS.save(meta, {"squares.csv": [{"i": i, "square": s} for i, s in enumerate(squares)]},
                     directory=directory)


FAMILY = Family(name="squares-test", title="Squares", config=SquaresConfig, run=run, summary=lambda s: {"s": s},
                text=str, save=save, load=RUNS.read, runs=f"{__name__}:RUNS")


class SquaresPane(JobPane):
    """What a family's pane writes: its declarations, its widgets and layout, its job and what a record draws."""

    family, css, config_names, hidden_names = "squares-test", "sq", ["n"], ("seed",)
    idle = "Press **Start** to square."

    def __init__(self, results=None, **params):
        super().__init__(results, **params)
        self.drawn: list[int] = []
        self.loaded = None
        self._ready()

    def _widgets(self):
        self._controls = pn.Column(pn.widgets.IntInput.from_param(self.param.n))
        self._view = pn.pane.Markdown("")

    def _main(self):
        return pn.Column(self._error, self._status, self._view)

    def _plan_text(self):
        return f"Start squares {self.config().validate().n} numbers"

    def _job(self, config):
        return self._family_job(config, process=False)

    def _on_start(self, job, config):
        self.drawn = []

    def _on_record(self, msg):
        if msg["kind"] == "square":
            self.drawn.append(msg["value"])
        elif msg["kind"] == "done":
            self._select_saved(msg.get("saved"))

    @staticmethod
    def _saved_fields(run):
        return {"rows": run.tables["squares.csv"].to_dict("records")}

    def _show_loaded(self, prepared, config):
        self.loaded = [r["square"] for r in prepared["rows"]]


add_config_params(SquaresPane, SquaresConfig, ["n"])


@pytest.fixture
def pane(tmp_path, monkeypatch):
    monkeypatch.setitem(FAMILIES, FAMILY.name, FAMILY)
    return SquaresPane(results=str(tmp_path))


def test_a_pane_that_forgets_a_declaration_fails_when_its_class_is_made():
    with pytest.raises(TypeError, match="must declare family, css, idle"):
        class Forgetful(JobPane):
            pass


def test_the_scaffolding_is_the_panes_own_widgets(pane, tmp_path):
    """The runs directory is the family's, the job widgets carry the pane's css prefix, the plan line follows the
    settings."""
    assert pane.results == tmp_path and pane._start_b.css_classes == ["sq-start"]
    assert pane._saved.css_classes == ["sq-saved"] and pane._status.object == SquaresPane.idle
    assert pane._plan.object == "Start squares 4 numbers"
    pane.n = 6
    assert pane._plan.object == "Start squares 6 numbers"


def test_start_runs_saves_lists_and_a_load_restores_the_settings(pane):
    pane.n = 5
    assert pane.start()
    assert pane.runner.job.join(60)
    for _ in range(100):  # the last messages drained (bounded: a hang fails, never loops)
        if not (pane.poll() or pane.runner.busy):
            break
    assert pane.drawn == [0, 1, 4, 9, 16]
    saved = pane._saved.value
    assert saved and saved in pane._saved.options.values()  # the run just saved, selected
    pane.n = 2
    assert pane.load(saved, wait=True)
    assert pane.n == 5 and pane.loaded == [0, 1, 4, 9, 16]
    assert pane._status.object.startswith(f"Loaded `{pane._saved.value.rsplit('/', 1)[-1]}` (finished)")
    assert "seed 7" in pane._status.object  # a setting no control shows, named


def test_every_family_tab_is_a_job_pane_whose_css_is_its_manifests():
    """The lab's own job tabs build on ``JobPane``, each for its own family, and the css prefix a pane declares is
    the one its manifest gives the screenshots and browser tests (``Family.run_css``)."""
    panes = {name: f.pane_class() for name, f in FAMILIES.items()
             if f.pane and f.run.__module__.startswith("lab.") and name != "basis"}  # basis: the solve explorer
    assert len(panes) >= 8 and all(issubclass(p, JobPane) for p in panes.values())
    for name, pane in panes.items():
        assert pane.family in (name, "sharing"), name  # msr's runs are the sharing pane's
        run_css = FAMILIES[name].run_css
        assert not run_css or run_css == f".{pane.css}", name
