"""The argument types and checks of the command line, shared by ``lab.cli`` and the commands families contribute
(``lab.experiments.Command``): a text or list that must say something (``given_text``), a number in its declared
range (``number``, ``check_number``: the same words as a config's option), and strict JSON (``strict``)."""
from __future__ import annotations

import argparse
import math

from .config import ConfigError, Option, _check_value
from .errors import LabError


def given_text(is_list: bool = False, choices=(), entries=(), allowed: str | None = None, required: bool = False):
    """The argparse type of a text or list option: a value given explicitly must say something -- an empty or
    blank text, or a list with no item (``""``, ``" "``, ``","``), is refused with one line (exit code 2) rather
    than taken as the default or as "everything"; leaving the option out gives the default."""
    defaults = [o.default for _, o in entries if o.default not in (None, "", ())]
    example = defaults[0] if defaults else None
    example = ",".join(map(str, example)) if isinstance(example, tuple) else example
    if choices:
        allowed = f"{'one or more' if is_list else 'one'} of {', '.join(dict.fromkeys(choices))}"
    else:
        allowed = allowed or ("one or more comma-separated values" if is_list else "a value")
    hint = f"give {allowed}{f' (default: {example})' if example is not None else ''}" + \
        ("" if required else ", or leave the option out")

    def parse(text: str) -> str:
        empty = not text.strip() or (is_list and not any(part.strip() for part in text.split(",")))
        if empty:
            raise argparse.ArgumentTypeError(f"{'an empty list' if is_list else 'an empty value'} {text!r}: {hint}")
        return text

    parse.__name__ = "list" if is_list else "text"  # argparse names the type in its own messages
    return parse


def _declared(kind, low=None, high=None):
    """A numeric option of a command not built from a config, declared as a config's would be: the same check
    (``lab.config._check_value``) and the same words for its range (``Option.range_text``)."""
    return Option("", kind, None, "", low=low, high=high)


def _span(kind, low=None, high=None) -> str:
    return _declared(kind, low, high).range_text


def _out_of_range(kind, value, low=None, high=None) -> bool:
    try:
        _check_value(_declared(kind, low, high), value)
    except ConfigError:
        return True
    return False


def number(kind, low=None, high=None):
    """The argparse type of a numeric option of a command not built from a config (``sweep``, ``reproduce``): a
    whole number (``kind`` int) or a finite number, from ``low`` to ``high``; anything else is one line naming the
    option and its range (exit code 2)."""
    span = _span(kind, low, high)

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {span}") from None
        if _out_of_range(kind, value, low, high):
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: give {span}")
        return value

    parse.__name__ = "int" if kind is int else "float"
    return parse


def check_number(flag: str, value, kind, low=None, high=None) -> None:
    """``LabError`` (one line, exit code 2) naming ``flag`` and its range when ``value`` (given) is outside it."""
    if value is not None and _out_of_range(kind, value, low, high):
        raise LabError(f"{flag} {value}: out of range: give {_span(kind, low, high)}")


def strict(value):
    """A copy of a JSON object with every non-finite number replaced by ``null`` and its reason in a key beside
    it (``"loss": null, "loss_reason": "NaN: not a number"``), so that strict JSON parsers read the output; a
    ``KEY_reason`` the object already holds is kept (``"test_loss_reason": "NaN: no test set ..."``).
    numpy scalars and arrays become plain numbers and lists (``float32``, ``int64`` are not JSON types)."""
    value = _plain(value)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _plain(v)
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                given = value.get(f"{k}_reason")  # a reason the object states itself (e.g. no test set) wins
                out[f"{k}_reason"] = given if isinstance(given, str) else \
                    "NaN: not a number (e.g. every run diverged)" if v != v else f"{v}: not finite"
            else:
                out[k] = strict(v)
        return out
    if isinstance(value, (list, tuple)):
        return [None if isinstance(v, float) and not math.isfinite(v) else strict(v) for v in map(_plain, value)]
    return value


def _plain(v):
    """A numpy scalar or array as the Python number or list it holds (numpy is not imported for this)."""
    if type(v).__module__ == "numpy" and hasattr(v, "tolist"):
        return v.tolist()
    return v
