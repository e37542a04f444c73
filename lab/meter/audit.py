"""``lab audit PATH|PRESET``: the glue between the command line and ``lab.equivariance.audit`` -- which model a target
names, which group and reps it is audited against, and what the command prints and returns.

A target is one of the meter family's matrix-group presets (``lab.meter.presets.PRESETS``: ``emlp-o3``,
``mlp-o3``, ...), built afresh at ``seed`` exactly as ``lab lie-derivative --model PRESET`` builds it, or the
directory of a run saved by ``lab lie-derivative`` of such a preset, whose model is rebuilt from its preset and its
saved weights loaded strictly from ``weights.npz`` (``lab.meter.store``: numpy arrays read without pickle, so
loading a run never runs code).  A saved CNN is refused: it acts on images, not on a group's vectors, so it has no
rep to audit against (``lab lie-derivative --model PATH`` measures it).

The group and reps default to the model's own (its preset's text, so that ``--group`` alone re-binds the same reps
to another group, e.g. auditing an O(3) model under SO(3) only); reps whose sizes differ from the model's input or
output are refused with one line before any work.  The command line's exit code is ``EXIT_OK`` (0) when every check
is within its tolerance and ``EXIT_NOT_EQUIVARIANT`` (3) when one is not; bad input is a ``LabError`` (exit 2).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..equivariance.measure import DEFAULT_INPUTS, DEFAULT_SAMPLES, audit
from ..equivariance.result import AuditError, AuditResult

EXIT_OK = 0
EXIT_NOT_EQUIVARIANT = 3


@dataclass
class Target:
    """A model to audit and where it came from: ``source`` is ``"preset"`` or the saved run's directory."""

    model: object = field(repr=False)
    preset: str
    source: str
    group: str  # the model's own group and reps, as text
    rep_in: str
    rep_out: str


def load_target(target: str, seed: int = 0) -> Target:
    """The model ``target`` names: a meter preset built at weight seed ``seed``, or a saved ``lab lie-derivative``
    run of one (its own weights; ``seed`` does not apply).  ``AuditError`` (one line) when it is neither."""
    from ..meter.presets import PRESETS, build_model

    if target in PRESETS:
        model, preset, source = build_model(target, seed), target, "preset"
    else:
        path = Path(target)
        if not path.is_dir():
            raise AuditError(f"unknown model {target!r}: give a preset ({', '.join(PRESETS)}) or the directory of a "
                             f"run saved by lab lie-derivative")
        from ..meter.store import load_meter

        saved = load_meter(path, weights=True)  # RunFileError (a LabError) names the file and field
        if saved.kind == "cnn":
            raise AuditError(f"{target}: a saved {saved.model} acts on images and has no group or reps to audit; "
                             f"measure it with lab lie-derivative --model PATH")
        if saved.model not in PRESETS:
            raise AuditError(f"{target}: made from {saved.model!r}, a model this lab does not know")
        model, preset, source = saved.model_module(build_model), saved.model, str(path)
    p = PRESETS[preset]
    return Target(model, preset, source, p.group, p.rep_in, p.rep_out)


def _bind(text: str, group, what: str, size: int):
    from ..nn.linear import bind

    rep = bind(text, group)  # ParseError / RepError: one line
    if rep.size != size:
        raise AuditError(f"{what} {text} over {group} has size {rep.size}, the model's has {size}")
    return rep


@dataclass
class Outcome:
    """What ``lab audit`` reports: the audit, the target, the JSON object and the exit code."""

    result: AuditResult
    target: Target
    payload: dict
    exit_code: int

    def text(self) -> str:
        where = "a preset at its seed's weights" if self.target.source == "preset" else \
            f"the saved run {self.target.source}"
        return f"{self.target.preset} ({where})\n{self.result.text()}"


def run(target: str, group: str | None = None, rep_in: str | None = None, rep_out: str | None = None,
        tolerance: float | None = None, samples: int | None = None, inputs: int | None = None,
        seed: int = 0) -> Outcome:
    """Audit ``target`` (``load_target``) against ``group``, ``rep_in`` and ``rep_out`` (text; default the model's
    own), with ``lab.equivariance.audit``'s tolerance rule unless ``tolerance`` fixes one number; ``samples`` group
    elements besides the discrete generators, ``inputs`` random inputs, both seeded by ``seed`` (defaults:
    ``DEFAULT_SAMPLES``, ``DEFAULT_INPUTS``).  The payload is ``AuditResult.to_dict()`` (``ok``, ``worst``,
    ``tolerance``, ``first_breaking_layer`` at its top level) plus ``target``, ``preset``, ``source`` and
    ``exit_code``."""
    from ..groups import parse_group

    t = load_target(target, seed)
    G = parse_group(group) if group is not None else t.model.group  # ParseError / GroupError: one line
    r_in = _bind(rep_in if rep_in is not None else t.rep_in, G, "the input rep", t.model.rep_in.size)
    r_out = _bind(rep_out if rep_out is not None else t.rep_out, G, "the output rep", t.model.rep_out.size)
    result = audit(t.model, G, r_in, r_out, samples=DEFAULT_SAMPLES if samples is None else samples,
                   inputs=DEFAULT_INPUTS if inputs is None else inputs, seed=seed, tolerance=tolerance, warn=False)
    code = EXIT_OK if result.ok else EXIT_NOT_EQUIVARIANT
    payload = {**result.to_dict(), "target": target, "preset": t.preset, "source": t.source, "exit_code": code}
    return Outcome(result, t, payload, code)
