"""Experiment family ``dynamics``: nominal / augmented / equivariant training from the same equivariant start
(Nordenfors, Ohlsson & Flinth), with each model's distance from the equivariant subspace E and the equivariance
audit of the final models (``lab.dynamics.audit``; ``audit_table`` is what the pane shows of it).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from .config import DynamicsConfig
from ..experiments.family import Family, progress_record

#: within a training step, a progress record at most this often (seconds)
PARTIAL_SECONDS = 1.0
#: the live audit (an ``{"kind": "audit"}`` record: ``Trainer.audit`` of the models as they stand): at step 0, at the
#: last step, and between at most every ``AUDIT_SECONDS`` and at most ``AUDIT_SHARE`` of the run's time
AUDIT_SECONDS = 2.0
AUDIT_SHARE = 0.1


@dataclass
class DynamicsResult:
    config: DynamicsConfig
    trainer: object  # lab.dynamics.train.Trainer
    status: str  # "finished" or "stopped"


def run(config: DynamicsConfig, progress=None, control=None) -> DynamicsResult:
    """Build the experiment and train every strategy; records stream to ``progress`` after every step, and the
    live audit (``{"kind": "audit", "step", "audit": {strategy: Trainer.audit()'s numbers}}``) at step 0, at the
    last step and in between as ``AUDIT_SECONDS`` and ``AUDIT_SHARE`` allow.

    >>> from lab.dynamics.family import DynamicsConfig, FAMILY
    >>> result = FAMILY.run(DynamicsConfig(experiment="custom", runs=2, steps=2, strategies=("nom", "equi")))
    >>> result.status, result.trainer.step
    ('finished', 2)
    >>> FAMILY.summary(result)["equi"]["dist_from_E"] < 1e-10    # Equi never leaves E
    True
    >>> FAMILY.summary(result)["equi"]["audit_ok"], FAMILY.summary(result)["nom"]["audit_ok"]   # lab.equivariance
    (True, False)
    """
    from .train import Trainer

    config = config.validate()
    emit = progress or (lambda record: None)
    emit(progress_record(0, config.steps, f"building {config.experiment}"))
    trainer = Trainer(config)
    emit({"kind": "started", "runs": trainer.R, "strategies": list(config.strategies), "steps": config.steps,
          "dim_ratio": trainer.dim_ratio, "device": str(trainer.device), "experiment": trainer.exp.description,
          "records": list(trainer.records)})

    audited = {"at": 0.0, "cost": 0.0}

    def audit(tr):
        t0 = time.monotonic()
        emit({"kind": "audit", "step": tr.step, "audit": tr.audit()})
        audited["at"], audited["cost"] = time.monotonic(), time.monotonic() - t0

    audit(trainer)  # step 0
    # the clock of the progress ETAs starts here, after the build (which can take long: data, bases)
    emit(progress_record(0, config.steps, f"step 0/{config.steps}"))
    last = [time.monotonic()]

    def on_step(tr, records):
        dead = sum(x is not None for v in tr.diverged_at.values() for x in v)
        emit({"kind": "records", "records": records, "step": tr.step, "total": tr.config.steps,
              "steps_per_second": tr.steps_per_second, "diverged": dead})
        now = time.monotonic()
        if tr.step >= tr.config.steps or now - audited["at"] >= max(AUDIT_SECONDS, audited["cost"] / AUDIT_SHARE):
            audit(tr)
        emit(progress_record(tr.step, tr.config.steps, f"step {tr.step}/{tr.config.steps}"))
        last[0] = time.monotonic()

    def on_batch(tr, fraction):
        # a step can take minutes (paper scale): report how far it has got, at most every PARTIAL_SECONDS
        now = time.monotonic()
        if now - last[0] >= PARTIAL_SECONDS and fraction < 1:
            last[0] = now
            emit(progress_record(tr.step, tr.config.steps, f"step {tr.step + 1}/{tr.config.steps}: "
                                 f"{100 * fraction:.0f}% of its batches", partial=fraction))

    finished = trainer.run(on_step=on_step, control=control, on_batch=on_batch)
    return DynamicsResult(config, trainer, "finished" if finished else "stopped")


def summary(result: DynamicsResult) -> dict:
    """Per strategy: medians over runs of the final totals (the ``lab dynamics --json`` object)."""
    return result.trainer.summary()


def text(result: DynamicsResult) -> str:
    """The medians as a table: the audit after the accuracy (``audit_cell``: the median over runs of the worst
    relative equivariance error, ✓ every run within tolerance), then a ``free A/A`` column (``|A_free| / |A|``) when
    a strategy has pathways (rpp)."""
    out = summary(result)
    pathways = any("free_fraction" in v for v in out.values())
    lines = [f"{'strategy':<12} {'||A-A0||':>10} {'||Pi_perp A||':>14} {'loss':>8} {'accuracy':>9} {'audit':>10}"
             + (f" {'|A_free|/|A|':>13}" if pathways else "")]
    for s, v in out.items():
        ff = v.get("free_fraction")
        lines.append(f"{s:<12} {v['dist_from_init']:>10.4g} {v['dist_from_E']:>14.4g} {v['loss']:>8.4f} "
                     f"{v['accuracy']:>9.3f} {audit_cell(v):>10}"
                     + ((f" {ff:>13.4g}" if ff is not None else f" {'-':>13}") if pathways else ""))
    return "\n".join(lines)


def audit_cell(values: dict) -> str:
    """One strategy's audit (its summary dict) in a cell: ``"4e-16 ✓"`` (every run within tolerance), ``"0.23 ✗"``,
    or ``"—"`` for a run saved before the audit existed (or with no live run)."""
    error = values.get("audit_error")
    if error is None or error != error:
        return "—"
    return f"{float(error):.2g} {'✓' if values.get('audit_ok') else '✗'}"


#: the audit table's columns (``audit_table``)
AUDIT_COLUMNS = ("strategy", "audit (median over runs)", "runs within tolerance", "tolerance")


def audit_table(summary: dict | None):
    """The equivariance audit of a run's final models (``lab.dynamics.audit``), one row per strategy of its
    ``summary`` (the ``done`` message's or a saved run's; or a live ``audit`` record's ``audit``): ``AUDIT_COLUMNS``,
    the numbers as text.  Empty without
    a summary; "—" where the run has no audit."""
    import pandas as pd

    rows = []
    for s, v in (summary or {}).items():
        if not isinstance(v, dict):
            continue
        audited = "audit_error" in v and v.get("audit_ok") is not None
        ok, tol, live = v.get("audit_runs_ok"), v.get("audit_tolerance"), v.get("audit_runs")
        rows.append({"strategy": s, "audit (median over runs)": audit_cell(v),
                     "runs within tolerance": f"{ok} of {live}" if audited and live is not None else "—",
                     "tolerance": f"{tol:.2g}" if audited and tol is not None else "—"})
    return pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))


def save(result: DynamicsResult, directory=None):
    from .store import save_run

    return save_run(result.trainer, directory, status=result.status)


def load(path, root=None):
    """A saved run (``lab.dynamics.store.load_run``); with ``root`` only a run inside that directory."""
    from .store import load_run

    return load_run(path, root)


def results_dir(directory=None):
    from .store import results_dir as _dir

    return _dir(directory)


# ------------------------------------------------------------------------------------------ what a pane reads
# The Training dynamics pane reaches the science only through this module (issue 26: panes go through the
# families' declarations).

def list_runs(directory=None, trained_only: bool = False) -> list:
    """Saved dynamics runs in ``directory``'s runs folder, newest first (``trained_only``: leave out runs stopped
    before their first step)."""
    from .store import list_runs as runs

    return runs(directory, trained_only=trained_only)


def default_group(experiment: str) -> str:
    """The group an experiment builds when none is given ("" when it takes none)."""
    from ..tasks.nordenfors import DEFAULT_GROUPS

    return DEFAULT_GROUPS.get(experiment, "")


def default_rep(experiment: str) -> str:
    """The representation an experiment builds when none is given ("" when it takes none)."""
    import inspect

    from ..tasks.nordenfors import BUILDERS

    p = inspect.signature(BUILDERS[experiment]).parameters.get("rep")
    return p.default if p is not None and isinstance(p.default, str) else ""


def per_layer(records: list[dict]):
    """A table of the latest step's numbers per strategy and layer (``lab.dynamics.metrics.per_layer``)."""
    from .metrics import per_layer as table

    return table(records)


def curves(path):
    """(method, curves, meta) of a saved run for ``lab compare``: per strategy, in the panes' order, the medians over
    its runs of the drift from E and of the loss at each step."""
    import pandas as pd

    from ..plots.style import LABELS
    from .metrics import medians
    from .store import load_run

    run = load_run(path)
    med = medians(run.metrics)
    order = {s: i for i, s in enumerate(LABELS)}  # nom, aug, equi, aug_penalty: the order the panes use
    med = med.sort_values(["strategy", "step"], key=lambda c: c.map(order) if c.name == "strategy" else c,
                          kind="stable")
    parts = []
    for metric, column in (("drift", "dist_from_E"), ("loss", "loss")):
        parts.append(pd.DataFrame({"metric": metric, "series": med.strategy.map(lambda s: LABELS.get(s, s)),
                                   "step": med.step, "value": med[column]}))
    return "dynamics", pd.concat(parts, ignore_index=True), run.meta


def numbers(summary: dict) -> dict:
    """A sweep's plain names for a one-strategy run's numbers (``dist_from_E``, ``loss``, ...: that strategy's
    metrics), so that points of different strategies share one column; a run of several strategies: none (its
    numbers are ``<strategy>.<metric>``)."""
    per = [v for v in (summary or {}).values() if isinstance(v, dict)]
    return dict(per[0]) if len(per) == 1 else {}


FAMILY = Family(
    order=20,
    pane="lab.dynamics.pane:TrainingDynamics", tab=20, run_css=".dyn",
    claims=("lab.dynamics.claims", "lab.dynamics.claims_theory"),
    papers=(("dynamics", "Optimization Dynamics of Equivariant and Augmented Neural Networks "
                          "(Nordenfors, Ohlsson & Flinth)"),),
    name="dynamics", title="Training dynamics", config=DynamicsConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.dynamics.store:RUNS", curves=curves,
    numbers=numbers, headline="dist_from_E",
    help="train nominal / augmented / equivariant models and measure drift from E",
    description="Nordenfors et al.: the same MLP trained several ways from the same equivariant start; reports "
                "||A - A0|| and ||Pi_perp A|| (medians over runs, final step).")
