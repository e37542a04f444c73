"""Typed, validated experiment configs: one declaration that the CLI, the dashboard and notebooks all read.

A config is a dataclass whose fields are declared with ``option(...)``: the default, a one-line help,
and what the value may be (choices, bounds, finiteness).  ``Config.validate()`` checks every field against
its declaration (exact types: a ``bool`` is not an ``int``; NaN and infinities are refused for floats),
then the config's own ``check()`` for relations between fields.  ``declarations()`` lists the declarations, so
the command line builds its options and ``--help`` from them and the panes build their widgets' choices,
bounds and defaults from them: no default or choice list is written twice.

>>> from dataclasses import dataclass
>>> @dataclass
... class Demo(Config):
...     runs: int = option(5, "independent runs", low=1)
...     mode: str = option("fast", "how", choices=("fast", "full"))
>>> Demo(runs=3).validate().runs
3
>>> Demo(runs=0).validate()
Traceback (most recent call last):
...
lab.config.ConfigError: runs must be at least 1, got 0
>>> [o.name for o in Demo.declarations()]
['runs', 'mode']
"""
from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, fields

from .errors import LabError

_MISSING = dataclasses.MISSING

#: the largest seed an option takes (``option(0, ..., low=0, high=SEED_HIGH)``): numpy's legacy seeding and the
#: samplers built on it take 0 .. 2^32 - 1, and torch's generators overflow past 2^63 - 1 once a run adds its offsets
SEED_HIGH = 2**32 - 1


class ConfigError(LabError, ValueError):
    """A config value is of the wrong type, out of its bounds, not one of its choices, or inconsistent."""


@dataclass(frozen=True)
class Option:
    """The declaration of one config field (read by the CLI and the panes)."""

    name: str
    type: object  # int, float, str, bool, tuple (of str) or an Optional of those
    default: object
    help: str
    choices: tuple | None = None
    low: float | None = None  # inclusive bound
    high: float | None = None  # inclusive bound
    positive: bool = False  # strictly above ``low`` (e.g. a learning rate > 0)
    optional: bool = False  # None allowed (meaning: the default of the task or experiment)
    cli: str | None = None  # the command-line flag, default ``--name-with-dashes``; "" = not on the CLI
    positional: bool = False  # a positional CLI argument (metavar = NAME upper-cased)
    metavar: str | None = None
    ui: bool = True  # shown in the dashboard
    label: str | None = None  # how messages name it (default: the field name)
    only: tuple | None = None  # the values of the config's ``dispatch`` field (task, experiment) it applies to

    @property
    def what(self) -> str:
        return self.label or self.name

    @property
    def flag(self) -> str:
        return self.cli if self.cli is not None else "--" + self.name.replace("_", "-")

    @property
    def base_type(self):
        return self.type

    @property
    def range_text(self) -> str:
        """What a numeric option takes, for messages: ``a whole number from 1 to 64``, ``a finite number above 0``,
        ``a finite number from 0 to 0.9``."""
        return self.range_words()

    def range_words(self, thousands: bool = False) -> str:
        """``range_text``; ``thousands``: whole numbers with their thousands marked (``1,000,000``: the
        dashboard's inline messages)."""
        low, high = self.low, self.high

        def _num(x):
            return number_text(x, thousands)

        if self.type is int:
            if low is not None and high is not None:
                return f"a whole number from {_num(low + 1 if self.positive else low)} to {_num(high)}"
            if low is not None:
                return f"a whole number {'above' if self.positive else 'of at least'} {_num(low)}"
            return "a whole number" + (f" of at most {_num(high)}" if high is not None else "")
        if low is not None and high is not None and not self.positive:
            return f"a finite number from {_num(low)} to {_num(high)}"
        parts = ([f"above {_num(low)}" if self.positive else f"of at least {_num(low)}"] if low is not None else []) + \
            ([f"at most {_num(high)}"] if high is not None else [])
        return "a finite number" + (" " + " and ".join(parts) if parts else "")


def option(default, help: str, *, choices=None, low=None, high=None, positive=False, cli=None,
           positional=False, metavar=None, ui=True, label=None, only=None):
    """Declare a config field (see the module docstring).  ``only``: the values of the config's ``dispatch``
    field for which the option means something; set to anything but its default elsewhere it is refused.
    ``positive`` without ``low`` means above 0 (a learning rate): ``positive`` is strictly above ``low``."""
    if positive and low is None:
        low = 0
    meta = {"help": help, "choices": tuple(choices) if choices is not None else None, "low": low, "high": high,
            "positive": positive, "cli": cli, "positional": positional, "metavar": metavar, "ui": ui,
            "label": label, "only": tuple(only) if only is not None else None}
    if isinstance(default, (list, dict, set)):
        raise TypeError("declare mutable defaults as tuples")
    return dataclasses.field(default=default, metadata={"lab": meta})


def _resolve_type(cls, f) -> tuple[object, bool]:
    """(base type, optional) of a dataclass field, from its annotation (resolved once per class and field)."""
    key = (cls, f.name)
    if key not in _TYPES:
        _TYPES[key] = _resolve(cls, f)
    return _TYPES[key]


_TYPES: dict = {}


def _resolve(cls, f) -> tuple[object, bool]:
    hints = typing.get_type_hints(cls)
    t = hints[f.name]
    optional = False
    args = typing.get_args(t)
    if type(None) in args:
        optional = True
        rest = [a for a in args if a is not type(None)]
        t = rest[0] if len(rest) == 1 else t
    origin = typing.get_origin(t)
    if origin is tuple:
        t = tuple
    return t, optional


_DECLARATIONS: dict = {}


class Config:
    """Base of the experiment configs (dataclasses; see the module docstring)."""

    #: the field that picks what the other options mean (``task``, ``experiment``), for ``option(only=...)``
    dispatch: str | None = None

    @classmethod
    def declarations(cls) -> list[Option]:
        # computed once per class: resolving the annotations (typing.get_type_hints) is most of a validation's
        # cost, and a sweep validates every one of its points (100 000 of them in bench/sweeps.py)
        cached = _DECLARATIONS.get(cls)
        if cached is None:
            cached = _DECLARATIONS[cls] = tuple(cls._declare())
        return list(cached)

    @classmethod
    def _declare(cls) -> list[Option]:
        out = []
        for f in fields(cls):
            meta = f.metadata.get("lab")
            if meta is None:
                continue
            t, optional = _resolve_type(cls, f)
            default = f.default if f.default is not _MISSING else None
            out.append(Option(name=f.name, type=t, default=default, optional=optional, **meta))
        return out

    @classmethod
    def option_named(cls, name: str) -> Option:
        for o in cls.declarations():
            if o.name == name:
                return o
        raise KeyError(name)

    @classmethod
    def applicable(cls, values: dict) -> dict:
        """``values`` without the options that do not apply to its ``dispatch`` value (a form that shows every
        task's widgets keeps the hidden ones' values: they must not reach the config)."""
        if cls.dispatch is None:
            return dict(values)
        chosen = values.get(cls.dispatch, cls.option_named(cls.dispatch).default)
        only = {o.name: o.only for o in cls.declarations() if o.only is not None}
        return {k: v for k, v in values.items() if k not in only or chosen in only[k]}

    # ------------------------------------------------------------------ validation
    def validate(self):
        """Check every declared field, then ``check()``; returns self (``ConfigError`` on bad values)."""
        declared = self.declarations()
        for o in declared:
            try:
                setattr(self, o.name, _check_value(o, getattr(self, o.name)))
            except ConfigError as err:
                err.option = o  # which declaration refused it (the command line adds the flag and its range)
                raise
        chosen = getattr(self, self.dispatch) if self.dispatch else None
        for o in declared:
            if o.only is not None and chosen not in o.only and getattr(self, o.name) != o.default:
                raise ConfigError(f"{o.what} applies to {self.dispatch} {' or '.join(o.only)} only, not to "
                                  f"{chosen} (leave it out)")
        self.check()
        return self

    def check(self) -> None:
        """Relations between fields (blocks <= K, ...): override in a config."""

    # ------------------------------------------------------------------ plain data
    def to_dict(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else (dict(v) if isinstance(v, dict) else v)
        return out

    @classmethod
    def from_dict(cls, data: dict, where: str = "config"):
        """Rebuild a config from ``to_dict()`` output; unknown or badly typed fields raise ``ConfigError``
        naming ``where`` and the field."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected an object of settings, got {type(data).__name__}")
        names = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ConfigError(f"{where}: unknown setting {unknown[0]!r}")
        kw = {}
        for k, v in data.items():
            t, _ = _resolve_type(cls, names[k])
            kw[k] = tuple(v) if t is tuple and isinstance(v, list) else v
        try:
            return cls(**kw).validate()
        except ConfigError as err:
            raise ConfigError(f"{where}: {err}") from None

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)


def _type_name(t) -> str:
    return {int: "an integer", float: "a number", str: "a text", bool: "true or false",
            tuple: "a list"}.get(t, getattr(t, "__name__", str(t)))


def _check_value(o: Option, v):
    if v is None:
        if o.optional:
            return None
        raise ConfigError(f"{o.what} needs a value")
    t = o.type
    if t is bool:
        if not isinstance(v, bool):
            raise ConfigError(f"{o.what} must be true or false, got {v!r}")
        return v
    if t is int:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer() and math.isfinite(v):
                v = int(v)
            elif hasattr(v, "__index__") and not isinstance(v, bool):
                v = int(v)
            else:
                raise ConfigError(f"{o.what} must be an integer, got {v!r}")
    elif t is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            try:
                v = float(v)  # numpy scalars
            except (TypeError, ValueError):
                raise ConfigError(f"{o.what} must be a number, got {v!r}") from None
        v = float(v)
        if not math.isfinite(v):
            raise ConfigError(f"{o.what} must be a finite number, got {v}")
    elif t is str:
        if not isinstance(v, str):
            raise ConfigError(f"{o.what} must be a text, got {v!r}")
    elif t is tuple:
        if isinstance(v, str):
            v = tuple(s.strip() for s in v.split(",") if s.strip())
        if not isinstance(v, (tuple, list)):
            raise ConfigError(f"{o.what} must be a list, got {v!r}")
        v = tuple(v)
        if o.choices is not None:
            bad = [x for x in v if x not in o.choices]
            if bad or not v:
                raise ConfigError(f"{o.what}: unknown value {bad[0] if bad else '(none)'!r}: choose from "
                                  f"{', '.join(map(str, o.choices))}")
        return v
    if o.choices is not None and v not in o.choices:
        raise ConfigError(f"{o.what}: unknown value {v!r}: choose one of {', '.join(map(str, o.choices))}")
    if o.low is not None:
        if o.positive and not v > o.low:
            raise ConfigError(f"{o.what} must be above {_num(o.low)}, got {_num(v)}")
        if not o.positive and v < o.low:
            raise ConfigError(f"{o.what} must be at least {_num(o.low)}, got {_num(v)}")
    if o.high is not None and v > o.high:
        raise ConfigError(f"{o.what} must be at most {_num(o.high)}, got {_num(v)}")
    return v


def _num(x) -> str:
    """A bound or value in a message: ``:g`` as before, but a whole number written out in full (``:g`` would show
    a seed's bound 4294967295 and the 4294967296 given both as 4.29497e+09)."""
    return number_text(x)


def number_text(x, thousands: bool = False) -> str:
    """``_num``; ``thousands``: a whole number with its thousands marked (``4,294,967,295``, ``1,000,000``).

    >>> number_text(4294967295), number_text(1e6), number_text(0.01), number_text(1e6, True), number_text(4096.0, True)
    ('4294967295', '1000000', '0.01', '1,000,000', '4,096')
    """
    whole = f"{{:{',' if thousands else ''}}}"
    if isinstance(x, int) and not isinstance(x, bool):
        return whole.format(x)
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return f"{x:g}" if abs(x) < 1e6 and not thousands else whole.format(int(x))
    return f"{x:g}"
