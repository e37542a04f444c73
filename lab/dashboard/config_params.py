"""Pane parameters made from an experiment config's declarations: one source for defaults, bounds and choices.

A pane declares which config fields it shows; ``add_config_params`` turns each field's ``Option`` into a
``param`` parameter on the pane class (``Selector`` for choices, ``ListSelector`` for lists with choices,
``Integer``/``Number`` with the declared bounds, ``Boolean``, ``String``), so ``pn.widgets.X.from_param``
builds the widget and ``config_from`` builds the typed config back from the pane's values.
"""
from __future__ import annotations

import param

from ..config import Option


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
        return param.Integer(default=value, bounds=(o.low, o.high), allow_None=o.optional, doc=doc)
    if o.type is float:
        return param.Number(default=value, bounds=(o.low, o.high), allow_None=o.optional,
                            inclusive_bounds=(not o.positive, True), doc=doc)
    return param.String(default=value, allow_None=o.optional, doc=doc)


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
