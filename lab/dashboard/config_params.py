"""Pane parameters made from an experiment config's declarations: one source for defaults, bounds and choices.

A pane declares which config fields it shows; ``add_config_params`` turns each field's ``Option`` into a
``param`` parameter on the pane class (``Selector`` for choices, ``ListSelector`` for lists with choices,
``Integer``/``Number``, ``Boolean``, ``String``), so ``pn.widgets.X.from_param`` builds the widget and
``config_values`` reads the typed config's values back from the pane.

A number parameter carries no bounds: a box keeps whatever number a person types (an empty box is None), and the
pane names a value outside the field's declared range inline, with that range (``allowed``), and disables Start
until it is fixed (``JobPane._settings_problem``) -- instead of the parameter refusing it and the box snapping back
to the last good value without a word.

>>> from lab.config import Option
>>> allowed(Option("members", int, 16, "", low=1, high=4096))
'a whole number from 1 to 4,096'
>>> allowed(Option("lr", float, 0.01, "", low=0, positive=True))
'a finite number above 0'
>>> print(allowed(Option("channels", int, None, "", low=1, optional=True)))
a whole number of at least 1 (empty: the task's)
>>> shown_value(None), shown_value(float("nan")), shown_value(0)
('an empty box', 'nan', '0')
>>> allowed(Option("steps", int, 100, "", low=1, high=1e6))
'a whole number from 1 to 1,000,000'
"""
from __future__ import annotations

import param

from ..config import Option, number_text


def parameter(o: Option, default=None) -> param.Parameter:
    """The ``param`` parameter for one declared option (``default`` overrides the declared one)."""
    value = o.default if default is None else default
    doc = o.help
    if o.type is tuple and o.choices:
        return param.ListSelector(default=list(value or ()), objects=list(o.choices), doc=doc)
    if o.choices:
        return param.Selector(default=value, objects=list(o.choices), doc=doc)
    if o.type is bool:
        return param.Boolean(default=bool(value), doc=doc)
    if o.type is int:
        return param.Integer(default=value, allow_None=True, doc=doc)
    if o.type is float:
        return param.Number(default=value, allow_None=True, doc=doc)
    return param.String(default=value, allow_None=o.optional, doc=doc)


def allowed(o: Option) -> str:
    """A numeric field's declared range in words (what the inline message of a value outside it says): the
    option's own ``range_text`` (the command line's words), thousands marked, and what an empty box means."""
    return o.range_words(thousands=True) + (" (empty: the task's)" if o.optional else "")


def shown_value(value) -> str:
    """How the inline message quotes a box's value."""
    if value is None:
        return "an empty box"
    return number_text(value, thousands=True) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else str(value)


def add_config_params(cls, config_cls, names, defaults: dict | None = None):
    """Add a parameter for each named field of ``config_cls`` to the Parameterized class ``cls``."""
    defaults = defaults or {}
    for name in names:
        cls.param.add_parameter(name, parameter(config_cls.option_named(name), defaults.get(name)))
    return cls


def config_values(obj, names) -> dict:
    """The pane's current values of ``names`` as config values (lists become tuples)."""
    out = {}
    for name in names:
        v = getattr(obj, name)
        out[name] = tuple(v) if isinstance(v, list) else v
    return out
