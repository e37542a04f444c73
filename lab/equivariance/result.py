"""The audit's typed result: ``AuditResult`` with ``ok``, ``worst``, ``per_generator``, ``per_element``,
``layers``, ``first_breaking_layer``, ``tolerance``, ``text()`` and ``to_dict()`` (JSON-safe: non-finite numbers as
strings).  The measurements and the tolerance rule are described in ``lab.equivariance.measure``."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import LabError
from .homomorphism import HOM_TOLERANCE


class AuditError(LabError, ValueError):
    """The audit cannot run as asked: missing reps, inputs of the wrong shape, a bad count."""


class AuditWarning(UserWarning):
    """A model failed its audit; the message names the first breaking layer when one was found."""


def _num(v):
    v = float(v)
    return v if math.isfinite(v) else str(v)


@dataclass
class Check:
    """One measured error against its tolerance."""

    label: str
    error: float
    tolerance: float

    @property
    def ok(self) -> bool:
        return bool(self.error <= self.tolerance)

    def to_dict(self) -> dict:
        return {"label": self.label, "error": _num(self.error), "tolerance": _num(self.tolerance), "ok": self.ok}


@dataclass
class GeneratorCheck(Check):
    """A Lie-algebra generator: the relative Lie derivative (``error``) and the meter's LEE, eq. 4.4."""

    lee: float = 0.0

    def to_dict(self) -> dict:
        return {**super().to_dict(), "lee": _num(self.lee)}


@dataclass
class ElementCheck(Check):
    """A group element (``"generator k"`` or ``"sample k"``): RelErr over the batch; ``cond`` of ``rho_in(g)``."""

    cond: float = 1.0

    def to_dict(self) -> dict:
        return {**super().to_dict(), "cond": _num(self.cond)}


@dataclass
class LayerCheck:
    """One module call: its output's rep (``None``: unknown, not judged), how the rep was known, and the worst
    error over the elements relative to their tolerances (``error`` and ``tolerance`` at that element)."""

    name: str
    module: str
    rep: str | None
    source: str | None
    error: float | None = None
    tolerance: float | None = None

    @property
    def ok(self) -> bool | None:
        return None if self.error is None else bool(self.error <= self.tolerance)

    def to_dict(self) -> dict:
        return {"name": self.name, "module": self.module, "rep": self.rep, "source": self.source,
                "error": None if self.error is None else _num(self.error),
                "tolerance": None if self.tolerance is None else _num(self.tolerance), "ok": self.ok}


@dataclass
class AuditResult:
    """The audit of one model: ``ok`` when every generator and element check is within its tolerance."""

    model: str
    group: str
    rep_in: str
    rep_out: str
    dtype: str
    eps: float
    factor: float
    tolerance: float  # factor * eps (cond 1), or the number given
    inputs: int
    per_generator: list[GeneratorCheck] = field(default_factory=list)
    per_element: list[ElementCheck] = field(default_factory=list)
    layers: list[LayerCheck] = field(default_factory=list)
    first_breaking_layer: str | None = None
    homomorphism: list = field(default_factory=list)  # HomomorphismCheck of each user-declared leaf
    notes: list[str] = field(default_factory=list)

    @property
    def checks(self) -> list[Check]:
        return [*self.per_generator, *self.per_element]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def worst(self) -> float:
        """The largest error of the model (generators and elements; 0 when nothing was tested)."""
        return max((c.error for c in self.checks), default=0.0)

    @property
    def worst_check(self) -> Check | None:
        """The check furthest over (or nearest to) its tolerance."""
        return max(self.checks, key=lambda c: c.error / c.tolerance if c.tolerance > 0 else math.inf, default=None)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "worst": _num(self.worst), "tolerance": _num(self.tolerance), "model": self.model,
                "group": self.group, "rep_in": self.rep_in, "rep_out": self.rep_out, "dtype": self.dtype,
                "eps": _num(self.eps), "factor": _num(self.factor), "inputs": self.inputs,
                "first_breaking_layer": self.first_breaking_layer,
                "per_generator": [c.to_dict() for c in self.per_generator],
                "per_element": [c.to_dict() for c in self.per_element],
                "layers": [c.to_dict() for c in self.layers],
                "homomorphism": [c.to_dict() for c in self.homomorphism], "notes": list(self.notes)}

    def text(self) -> str:
        verdict = "equivariant within tolerance" if self.ok else "NOT equivariant"
        w = self.worst_check
        lines = [f"audit of {self.model}: {self.rep_in} -> {self.rep_out} over {self.group}, {self.dtype}, "
                 f"{self.inputs} inputs: {verdict}; worst error {self.worst:.3g}"
                 + (f" ({w.label})" if w is not None else "")
                 + f", tolerance {self.tolerance:.3g} = {self.factor:g} x eps {self.eps:.3g}"
                 + (" x cond(rho(g)) per element" if self.per_element else "")]
        if self.per_generator:
            lines.append("Lie-algebra generators (relative Lie derivative; LEE):")
            lines += [f"  {c.label}: {c.error:.3g} {'ok' if c.ok else 'FAIL'}; LEE {c.lee:.3g}"
                      for c in self.per_generator]
        if self.per_element:
            lines.append("group elements (RelErr: rms(f(gx) - g f(x)) / (rms f(gx) + rms g f(x))):")
            lines += [f"  {c.label}: {c.error:.3g} {'ok' if c.ok else 'FAIL'}"
                      + (f" (cond {c.cond:.3g}, tolerance {c.tolerance:.3g})" if c.cond > 1 + 1e-9 else "")
                      for c in self.per_element]
        if self.layers:
            lines.append("layers, in the order they ran" + (f" (first breaking: {self.first_breaking_layer})"
                                                          if self.first_breaking_layer else "") + ":")
            for c in self.layers:
                what = "rep unknown, not judged" if c.rep is None else \
                    f"{c.rep} ({c.source}): {c.error:.3g} {'ok' if c.ok else 'FAIL'}"
                lines.append(f"  {c.name or '(model)'} [{c.module}]: {what}")
            if not self.ok and not self.first_breaking_layer and all(c.rep is None for c in self.layers):
                lines.append("  no layer is named as the one that breaks equivariance: none of them declares the "
                             "representation its outputs carry (a plain network's hidden units are not one), so "
                             "only the whole model is judged, above")
        if self.homomorphism:
            lines.append("user representations checked as homomorphisms (relative error, tolerance "
                         f"{HOM_TOLERANCE:g}): " + "; ".join(f"{h.rep} {h.check} {h.error:.2g} ({h.tried} cases)"
                                                           for h in self.homomorphism))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self):
        return self.text()
