"""A part of a claim's criterion as a value (``Part``), the verdicts a part and a claim can have, and the statistics
layer's number (``LAYER``): the light half of the statistics layer, with no numpy, so that ``lab.reproduce.claim``
(which the command line's ``--help`` reads) and ``lab.reproduce.stats`` (which judges parts, with scipy) both build
on it without importing each other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: the statistics layer claims are judged by now (``lab.reproduce.stats``); every claim's criterion judged by an
#: earlier layer gets a new version under this one (``lab.reproduce.claim.claim``), with ``LAYER_REASON``
LAYER = 2


def percent(level: float) -> str:
    """A level as the report prints it.

    >>> percent(0.95), percent(0.875)
    ('95 %', '87.5 %')
    """
    return f"{100 * level:.4g} %"


def _json_value(v):
    """``v`` as plain JSON (numpy scalars and tuples become numbers and lists)."""
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if hasattr(v, "item") and callable(v.item):
        try:
            return v.item()
        except (ValueError, TypeError):
            return v
    return v


@dataclass
class Part:
    """One part of a claim's criterion, judged on its own: the same ``statistic`` read on the claim's draws and on
    its null's draws (a competing explanation measured by the same code: a reseeded or shuffled replicate, a pruned
    baseline, the untrained model, the other setting), judged by the statistics layer (``lab.reproduce.stats``,
    whose ``part`` makes one).

    ``verdict``: the part's verdict (``lab.reproduce.stats.VERDICTS``); ``holds``: the claim's interval clears the
    threshold (``state``: clears, straddles or wrong side); ``null_holds``: True when the claim is *not* separated
    from its null (no power); ``measured`` / ``null_measured``: the valid draws' mean (or, for an ``"all"`` rule,
    how many met it); ``interval`` / ``null_interval`` / ``difference``: the intervals of the claim's mean, the
    null's and the claim - null difference, each made by the method named in ``method`` / ``difference_method``
    at its real ``level``; ``invalid``: the draws left out, with their seeds and why; ``reasons``: why a part has no
    power, and caveats; ``legacy``: the same draws read by layer 1 (``layer``: the layer that judged the part;
    a part saved before layer 2 has 1 and no ``verdict``)."""

    name: str
    holds: bool | None
    measured: Any = None
    null_holds: bool | None = None
    null_measured: Any = None
    null: str = ""  # the competing explanation, in words
    statistic: str = ""  # what is read on every draw, claim and null alike (the function's name)
    rule: str = ""  # the rule in words, with its threshold
    threshold: float | None = None
    op: str = ""  # the rule's kind: ">", "<" or "all" (``lab.reproduce.stats.Rule``)
    replicates: list = field(default_factory=list)  # the statistic per claim draw
    null_replicates: list = field(default_factory=list)  # the statistic per null draw
    interval: list | None = None
    null_interval: list | None = None
    # added with the statistics layer 2 (issue 62)
    verdict: str | None = None
    state: str | None = None  # the threshold reading: clears, straddles, wrong side
    layer: int = 1
    level: float | None = None
    method: str | None = None  # the threshold interval's method and real level, in words
    difference: list | None = None  # the interval of claim - null
    difference_method: str | None = None
    paired: bool | None = None
    invalid: list = field(default_factory=list)  # [{"seed", "why", "null"}]
    reasons: list = field(default_factory=list)
    baseline: dict | None = None  # {"what", "margin", "beaten", ...}: the models against the trivial baseline
    grid: dict | None = None  # {"what", "best", "edges", "at_edge"}: where a best over a grid lies
    effect: float | None = None  # the smallest effect the part must resolve
    sign_p: float | None = None
    fisher_p: float | None = None
    legacy: dict | None = None  # layer 1's reading of the same draws
    exact: bool = False  # an identity read per draw (met or not against the threshold), judged as a yes/no statistic

    def to_dict(self) -> dict:
        """Every field as plain JSON (``report.json``'s ``parts``)."""
        return _json_value({k: getattr(self, k) for k in self.__dataclass_fields__})

    @classmethod
    def from_dict(cls, d: dict) -> "Part":
        keys = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in keys})


def parts_verdict(parts) -> str | None:
    """A claim's verdict from its parts' (the weakest part's, ``PRECEDENCE``); None when a part
    predates the statistics layer 2 (no verdict of its own) or there are no parts.

    >>> parts_verdict([Part("a", True, verdict="holds"), Part("b", False, verdict="does not hold"),
    ...                Part("c", False, verdict="not shown")])
    'not shown'
    """
    verdicts = [p.verdict for p in parts]
    if not verdicts or any(v is None for v in verdicts):
        return None
    for v in PRECEDENCE:
        if v in verdicts:
            return v
    return None


def nulls_hold(states) -> bool | None:
    """The parts' null states over a claim: True (no power) as soon as one is True, else None if one has no null
    check, else False.

    >>> nulls_hold([False, True, None]), nulls_hold([False, None]), nulls_hold([False, False])
    (True, None, False)
    """
    states = list(states)
    return True if any(s is True for s in states) else (None if any(s is None for s in states) else False)


HOLDS, REFUTED, NOT_SHOWN, NO_POWER, NO_NULL = ("holds", "does not hold", "not shown", "no power at these settings",
                                                "no null check")
#: a part's possible verdicts (``lab.reproduce.stats.judge`` gives them)
PART_VERDICTS = (HOLDS, REFUTED, NOT_SHOWN, NO_POWER, NO_NULL)
#: weakest first: a claim's verdict is the first of these that any of its parts has
PRECEDENCE = (NO_POWER, NO_NULL, NOT_SHOWN, REFUTED, HOLDS)
