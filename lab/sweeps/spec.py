"""A sweep file: one experiment family run over a grid of its options (issue 32).

YAML (read with ``yaml.safe_load``: data only, nothing evaluated)::

    experiment: dynamics            # a family of lab.experiments.FAMILIES, or its command (bound, lie-derivative, ...)
    fixed: {experiment: custom, steps: 50}
    grid:
      group: ["S(4)", "Z(4)"]       # each axis: a list of values; the sweep is the product of the axes
      strategies: [nom, equi]
    zip:                            # axes that vary together: every list of a group has the same length
      - {lr: [0.1, 0.01], steps: [50, 500]}
    seeds: 3                        # shorthand: an axis seed = 0, 1, 2

Option names are the command line's (``quant-steps`` or ``quant_steps``).  ``SweepSpec.points()`` yields every
point's settings (fixed + one value per axis) in a fixed order; ``validate`` builds each through the family's config
before anything runs, and a bad key or value is one ``SweepError`` line naming the point and the option.  The number
of points is computed from the axes' lengths, the zip groups' and ``seeds`` (exact integers) when the file is parsed,
before any point (or the seed axis) is built, and refused over the limit ``sweep_points`` of ``lab.limits``
(``LAB_MAX_SWEEP_POINTS`` raises it) with a ``SweepSizeError``.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LabError
from ..limits import LimitError

#: the keys a sweep file may have
KEYS = ("experiment", "fixed", "grid", "zip", "seeds")


class SweepError(LabError, ValueError):
    """A sweep file that cannot run: a bad key, value or experiment (one line)."""


class SweepSizeError(SweepError, LimitError):
    """A sweep with more points than the limit ``sweep_points`` (``lab.limits``): refused before any is built."""

    def __init__(self, name: str, value: int, limit: int, what: str):
        self.what = what
        super().__init__(name, value, limit, what)


def check_size(size: int, limit: int | None = None, what: str = "the sweep") -> int:
    """``size`` (a sweep's number of points) if within ``limit`` (default: the limit ``sweep_points`` of
    ``lab.limits``), else ``SweepSizeError`` naming the limit and how to raise it."""
    from .. import limits

    cap = limits.get("sweep_points") if limit is None else limit
    if size > cap:
        raise SweepSizeError("sweep_points", size, cap, what)
    return size


def resolve_family(experiment: str, settings: dict | None = None):
    """The ``Family`` an ``experiment`` names: a family of ``FAMILIES``, or a command of ``lab.cli.COMMANDS`` (for
    a command of several families, the one whose ``task`` choices hold the point's task, as the CLI picks)."""
    from ..commands import COMMANDS, DISPATCH
    from ..experiments import FAMILIES

    if experiment in FAMILIES:
        return FAMILIES[experiment]
    if experiment in COMMANDS:
        families = [FAMILIES[n] for n in COMMANDS[experiment]]
        if len(families) == 1:
            return families[0]
        task = (settings or {}).get(DISPATCH, families[0].config.option_named(DISPATCH).default)
        for f in families:
            if task in (f.config.option_named(DISPATCH).choices or ()):
                return f
        return families[0]
    names = sorted(set(FAMILIES) | set(COMMANDS))
    raise SweepError(f"unknown experiment {experiment!r}: choose one of {', '.join(names)}")


def _name(key) -> str:
    if not isinstance(key, str) or not key:
        raise SweepError(f"an option name must be a text, got {key!r}")
    return key.lstrip("-").replace("-", "_")


def _values(name: str, values) -> list:
    if not isinstance(values, list) or not values:
        raise SweepError(f"grid axis {name!r} needs a non-empty list of values, got {values!r}")
    return values


def _blank(value) -> bool:
    """An explicitly empty value: a text of nothing but spaces and commas, or a list of such texts (or of none)."""
    if isinstance(value, str):
        return not value.replace(",", "").strip()
    if isinstance(value, (list, tuple)):
        return all(_blank(v) for v in value)
    return False


def point_id(settings: dict) -> str:
    """A point's identity: a hash of its settings (canonical JSON), the same in every run of the sweep."""
    text = json.dumps(settings, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


@dataclass
class SweepSpec:
    """A parsed sweep file (``parse_sweep``, ``load_sweep``): one experiment family over a grid of its options.

    ``experiment`` names the family (or its command); ``fixed`` holds the settings every point shares, ``axes`` the
    grid (option -> list of values; the sweep is their product, ``seeds`` becoming an axis ``seed``) and ``zips``
    the groups of axes that vary together (lists of one length per group).  Option names are the configs' field
    names.  ``size()`` counts the points from the lists' lengths alone, ``points()`` yields each point's settings
    in a fixed order, and ``validate()`` checks the size against the limit and builds every point's config before
    anything runs.
    """

    experiment: str
    fixed: dict = field(default_factory=dict)
    axes: dict = field(default_factory=dict)  # name -> values (the product)
    zips: list = field(default_factory=list)  # [{name -> values}], each group varying together

    @property
    def axis_names(self) -> list[str]:
        return list(self.axes) + [n for group in self.zips for n in group]

    def size(self) -> int:
        """The number of points (exact), from the axes' lengths alone."""
        return sweep_size([len(v) for v in self.axes.values()], [len(next(iter(g.values()))) for g in self.zips])

    def points(self):
        """Every point's settings (a dict: fixed + one value per axis), in a fixed order; never all held at once."""
        names = list(self.axes)
        zipped = [list(zip(*g.values())) for g in self.zips]
        for combo in itertools.product(*(self.axes[n] for n in names), *zipped):
            settings = dict(self.fixed)
            settings.update(zip(names, combo[:len(names)]))
            for group, values in zip(self.zips, combo[len(names):]):
                settings.update(zip(group, values))
            yield settings

    def family(self, settings: dict | None = None):
        return resolve_family(self.experiment, settings)

    def config(self, settings: dict):
        """The family's validated config of one point (``SweepError`` naming the point on bad settings)."""
        from ..config import ConfigError

        family = self.family(settings)
        try:
            return family.config.from_dict(settings, where="sweep point")
        except (ConfigError, LabError) as err:
            shown = {k: settings[k] for k in self.axis_names if k in settings}
            raise SweepError(f"{err} (at {json.dumps(shown, default=str)})" if shown else str(err)) from None

    def validate(self, limit: int | None = None) -> int:
        """Check the size against the limit (``limit``, default the limit ``sweep_points`` of ``lab.limits``),
        then build every point's config; returns the number of points.  Nothing is expanded before the size is
        known to be within the limit."""
        n = check_size(self.size(), limit, f"the {self.experiment} sweep")
        known = {o.name for f in self._families() for o in f.config.declarations()}
        for name in list(self.fixed) + self.axis_names:
            if name not in known:
                raise SweepError(f"unknown option {name!r} for experiment {self.experiment}: choose from "
                                 f"{', '.join(sorted(known))}")
        for name, values in [(k, [v]) for k, v in self.fixed.items()] + \
                [(k, v) for k, v in self.axes.items()] + [(k, v) for g in self.zips for k, v in g.items()]:
            for value in values:  # each value once, not once per point: an empty one is refused, never the default
                if _blank(value):
                    raise SweepError(f"option {name!r}: an empty {'list' if isinstance(value, list) else 'value'} "
                                     f"{value!r}: give a value, or leave the option out for its default")
        for settings in self.points():
            self.config(settings)
        return n

    def _families(self):
        from ..commands import COMMANDS
        from ..experiments import FAMILIES

        if self.experiment in COMMANDS and self.experiment not in FAMILIES:
            return [FAMILIES[n] for n in COMMANDS[self.experiment]]
        return [resolve_family(self.experiment)]

    def to_dict(self) -> dict:
        return {"experiment": self.experiment, "fixed": self.fixed, "grid": self.axes, "zip": self.zips}


def sweep_size(axis_lengths, zip_lengths=(), seeds: int | None = None) -> int:
    """The number of points of a sweep (exact Python integers): the product of its grid axes' lengths, of one
    length per zip group and of ``seeds``.

    >>> sweep_size([3000, 3000], [2], seeds=3)
    54000000
    """
    return math.prod(axis_lengths) * math.prod(zip_lengths) * (1 if seeds is None else seeds)


def parse_sweep(data, limit: int | None = None) -> SweepSpec:
    """A ``SweepSpec`` from a sweep file's parsed YAML (``SweepError`` on a malformed one; ``SweepSizeError`` when
    its number of points, computed from the lists' lengths and ``seeds`` before anything is expanded, is over
    ``limit``, default the limit ``sweep_points`` of ``lab.limits``)."""
    if not isinstance(data, dict):
        raise SweepError(f"a sweep file holds a mapping of {', '.join(KEYS)}, got {type(data).__name__}")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise SweepError(f"unknown key {unknown[0]!r} in the sweep file: the keys are {', '.join(KEYS)}")
    experiment = data.get("experiment")
    if not isinstance(experiment, str):
        raise SweepError("the sweep file needs 'experiment': a family name (lab.experiments.FAMILIES)")
    resolve_family(experiment)
    fixed = data.get("fixed") or {}
    grid = data.get("grid") or {}
    zips = data.get("zip") or []
    for what, value in (("fixed", fixed), ("grid", grid)):
        if not isinstance(value, dict):
            raise SweepError(f"'{what}' must be a mapping of option: value, got {type(value).__name__}")
    if isinstance(zips, dict):
        zips = [zips]
    if not isinstance(zips, list):
        raise SweepError("'zip' must be a list of groups of axes that vary together")
    spec = SweepSpec(experiment, {_name(k): v for k, v in fixed.items()},
                     {_name(k): _values(_name(k), v) for k, v in grid.items()})
    for group in zips:
        if not isinstance(group, dict) or not group:
            raise SweepError("each 'zip' group must be a mapping of option: list of values")
        g = {_name(k): _values(_name(k), v) for k, v in group.items()}
        lengths = {len(v) for v in g.values()}
        if len(lengths) != 1:
            raise SweepError(f"the zip group {', '.join(g)} has lists of different lengths {sorted(lengths)}")
        spec.zips.append(g)
    seeds = data.get("seeds")
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
            raise SweepError(f"'seeds' must be a positive whole number, got {seeds!r}")
    # the size from the lists' lengths and seeds alone, before the seed axis (or any point) is built
    check_size(sweep_size([len(v) for v in spec.axes.values()], [len(next(iter(g.values()))) for g in spec.zips],
                          seeds), limit, f"the {experiment} sweep")
    if seeds is not None:
        spec.axes["seed"] = list(range(seeds))
    names = list(spec.fixed) + spec.axis_names
    repeated = sorted({n for n in spec.axis_names if spec.axis_names.count(n) > 1 or n in spec.fixed})
    if repeated:
        raise SweepError(f"option {repeated[0]!r} is given twice (fixed, grid, zip or seeds)")
    del names
    return spec


def load_sweep(path) -> SweepSpec:
    """Read and parse a sweep file (YAML; ``SweepError`` naming the file on any problem)."""
    import yaml

    p = Path(path)
    try:
        text = p.read_text()
    except OSError as err:
        raise SweepError(f"{path}: cannot read the sweep file ({err.strerror or err})") from None
    if len(text) > 1_000_000:
        raise SweepError(f"{path}: a sweep file of {len(text)} characters is over the limit of 1000000")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise SweepError(f"{path}: not valid YAML{where}: {getattr(err, 'problem', None) or err}") from None
    try:
        return parse_sweep(data)
    except SweepSizeError as err:
        raise SweepSizeError(err.name, err.value, err.limit, f"{path}: {err.what}") from None
    except SweepError as err:
        raise SweepError(f"{path}: {err}") from None
