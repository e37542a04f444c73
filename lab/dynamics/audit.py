"""The equivariance audit of every trained model of a training-dynamics run (issue 29): ``lab.equivariance`` applied to
each run's final weights, per strategy, under the experiment's group.

Each run r of a strategy is one function of a single input, ``x -> BatchedMLP.forward(params_r, x)``, wrapped as a
callable on flat (N, c_in * n_in) batches to (N, c_out * n_out) outputs.  Its reps are the architecture's own
ends: ``c_in`` copies of the first layer's input rep and ``c_out`` copies of the last layer's output rep (a
direct sum, channel by channel, the layout the weights use), over the experiment's group -- the group the data
are augmented with (``lab.reps.action`` acts by ``rep.rho(g)`` or the same signed permutations).  Every group
here acts by matrices the audit can take, so ``lab.equivariance.audit`` applies as it is: per group element (the
discrete generators and ``SAMPLES`` sampled ones) the thesis's RelErr ``rms(f(gx) - g f(x)) / (rms f(gx) + rms g
f(x))``, and per Lie-algebra generator (a custom experiment over a Lie group) the relative Lie derivative; the
verdict is against the audit's tolerance for the training dtype (float64: 1000 eps = 2.2e-13; float32 1.2e-4).

The inputs are the first ``INPUTS`` training inputs (the data the runs saw), and every run and strategy is
audited at the same elements (the audit's seed 0), so their numbers compare.  Diverged runs are left out.  Per
strategy the run's numbers are summarised as the summary's other numbers are, a median over runs
(``audit_error``), with ``audit_ok`` true when every live run is within tolerance and ``audit_runs_ok`` counting
those that are.  ``Trainer.audit`` computes it once per step; the summary (saved with the run) holds the last
step's, and a running experiment (``lab.dynamics.family.run``) also sends it while it trains, as often as
costs at most a tenth of the run's time (at step 0 every strategy passes: all start at the same A0 in E).  Measured (small scale, 2 runs, 3 steps, float64): Equi 1e-16 to 1.3e-15 on every experiment (it
stays in E), Nom 0.02 to 0.6, Aug 0.006 to 0.46, RPP 0.008 to 0.54; a few milliseconds a run (0.02 s on Rot).
"""
from __future__ import annotations

import math

import numpy as np

from ..reps.parse import parse_rep

#: inputs and sampled group elements of each run's audit: a few, so that auditing every run costs milliseconds
INPUTS = 8
SAMPLES = 4


def model_reps(trainer):
    """(group, rep_in, rep_out) of the trainer's model: ``c_in`` copies of the first layer's input rep, ``c_out``
    copies of the last layer's output rep, over the experiment's group."""
    group = trainer.exp.group
    first, last = trainer.model.specs[0], trainer.model.specs[-1]

    def copies(count: int, rep: str):
        return parse_rep(rep if count == 1 else f"{count}*({rep})", group)

    return group, copies(first.c_in, first.rep_in), copies(last.c_out, last.rep_out)


def run_model(trainer, params, run: int):
    """Run ``run`` (an index into the trainer's runs) of the weights ``params`` as a function of flat (N, d_in)
    batches to (N, d_out): ``lambda x: model.forward(params_r, x)`` reshaped to the model's (1, N, c, n)."""
    model = trainer.model
    first = model.specs[0]
    n_in = model.spaces[0].n_in
    mine = [p[run:run + 1] for p in params]

    def f(x):
        out = model.forward(mine, x.reshape(1, x.shape[0], first.c_in, n_in))
        return out[0].reshape(x.shape[0], -1)

    return f


def audit_strategy(trainer, strategy: str) -> list:
    """``lab.equivariance.audit`` of every run of ``strategy`` at the trainer's current weights: one ``AuditResult`` per
    run, ``None`` for a diverged run."""
    from ..equivariance import audit

    group, rep_in, rep_out = model_reps(trainer)
    x = trainer.X[:INPUTS].reshape(min(INPUTS, len(trainer.X)), -1)
    params = trainer.params[strategy]
    out = []
    for r in range(trainer.R):
        if trainer.diverged_at[strategy][r] is not None:
            out.append(None)
            continue
        out.append(audit(run_model(trainer, params, r), group, rep_in, rep_out, x=x, samples=SAMPLES,
                         layers=False, warn=False, dtype=trainer.dtype))
    return out


def summarise(results: list) -> dict:
    """The runs' audits as the summary keeps them: ``audit_error`` (median over live runs of each run's worst
    error; NaN when none is live), ``audit_ok`` (every live run within tolerance; None when none is live),
    ``audit_runs_ok`` (how many are) of ``audit_runs`` (the live runs audited), ``audit_tolerance`` (the dtype's)."""
    live = [r for r in results if r is not None]
    if not live:
        return {"audit_error": math.nan, "audit_ok": None, "audit_runs_ok": 0, "audit_runs": 0,
                "audit_tolerance": math.nan}
    return {"audit_error": float(np.median([r.worst for r in live])), "audit_ok": all(r.ok for r in live),
            "audit_runs_ok": sum(r.ok for r in live), "audit_runs": len(live),
            "audit_tolerance": float(live[0].tolerance)}


def audit_trainer(trainer) -> dict:
    """{strategy: ``summarise(audit_strategy(...))``} for every strategy of the run (the caller, ``Trainer.audit``,
    runs it without TF32: ``lab.dynamics.train.precise_float32``; this module does not import the trainer)."""
    return {s: summarise(audit_strategy(trainer, s)) for s in trainer.config.strategies}
