"""The group language: ``GROUPS`` (every group class by name) and the text that names a group (``"S(5)"``,
``"Z(8)*Z(8)"``, ``"SO13()"``, ``"O2eR3()"``) parsed, sized and listed."""
from __future__ import annotations

import inspect
import re

from ..errors import GroupError
from ..text import TokenStream
from .base import DirectProduct, Footprint, Group
from .matrix import GL, SL, SU, SO11p, SO13, SO13p, C, D, O, O13, SO, Sp, U
from .permutation import C4Grid, Cube, DihedralPerm, GCNN, P4Grid, RubiksCube, S, Trivial, Z, ZksZnxZn, Alt
from .z_axis import DkeR3, O2eR3, SO2eR3, ZAxisGroup

GROUPS: dict[str, type[Group]] = {
    cls.__name__: cls
    for cls in (Trivial, Z, S, Alt, DihedralPerm, C4Grid, P4Grid, GCNN, ZksZnxZn, Cube, RubiksCube,
                C, D, SO, O, SO2eR3, O2eR3, DkeR3, SO11p, SO13p, SO13, O13, Sp, SL, GL, U, SU)
}

__all__ = ["Group", "DirectProduct", "Footprint", "GROUPS", "parse_group", "group_footprint", "max_size",
           "group_catalog", "ZAxisGroup", *GROUPS]


def _arg_names(cls) -> list[str]:
    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"
            and inspect.signature(cls.__init__).parameters[p].default is inspect.Parameter.empty]


def group_catalog() -> list[tuple[str, str]]:
    """(signature, one-line description) of every group, e.g. ``("S(n)", "symmetric group: ...")``."""
    return [(f"{name}({', '.join(_arg_names(cls))})", cls.description) for name, cls in GROUPS.items()]


def parse_group(text: str) -> Group:
    """Build a group from its text form: ``NAME(args)`` factors joined by ``*`` (direct product).

    A real parser, never ``eval``: ``"Z(8)*Z(8)"``, ``"S(5)"``, ``"SO13()"``, ``"RubiksCube"``.
    Raises ``ParseError`` (with the position) or ``GroupError`` (unknown name, bad argument).

    >>> parse_group("Z(8)*Z(8)").d, parse_group("S(5)") == S(5)
    (64, True)
    >>> parse_group("S(3) Z(2)")
    Traceback (most recent call last):
    ...
    lab.errors.ParseError: cannot parse 'S(3) Z(2)': at position 5 expected '*' or the end of the group, found 'Z'
    """
    if isinstance(text, Group):
        return text
    factors = _parse_factors(text)
    group = factors[0][0](*factors[0][1])
    for cls, args in factors[1:]:
        group = group * cls(*args)
    return group


def group_footprint(text: str) -> Footprint | None:
    """What building the group ``text`` would allocate, from the text alone (nothing is built); raises
    ``ParseError``/``GroupError``/``LimitError`` as ``parse_group`` would.  None: a factor's size is not
    known in advance (it is then checked when built).

    >>> group_footprint("Z(8)*Z(8)").d, group_footprint("SO(3)").lie
    (64, 3)
    """
    if isinstance(text, Group):
        return text.size_footprint
    total = None
    for cls, args in _parse_factors(text):
        fp = cls.footprint(*args)
        if fp is None:
            return None
        total = fp if total is None else total * fp
    return total.check(text.strip())


def max_size(pattern: str, upper: int = 10**6) -> int:
    """The largest n for which the group ``pattern`` with its ``n`` filled in (``"Z(n)*Z(n)"``) is within the
    limits: the bound of the dashboard's size box (1 when even n = 1 is over)."""
    from .. import limits

    def fits(n: int) -> bool:
        try:
            group_footprint(re.sub(r"\bn\b", str(n), pattern))  # the argument n, not the n of ZksZnxZn
            return True
        except limits.LimitError:
            return False

    lo, hi = 1, min(upper, limits.get("number"))
    if fits(hi):
        return hi
    while hi - lo > 1:  # fits(lo), not fits(hi): the footprints grow with n
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _parse_factors(text: str) -> list[tuple[type[Group], list[int]]]:
    """``[(class, args), ...]`` of the factors of a group text, each checked against its footprint."""
    ts = TokenStream(text)
    factors = [_parse_factor(ts)]
    while ts.accept("*"):
        factors.append(_parse_factor(ts))
    ts.expect_end("'*' or the end of the group")
    total = None
    for cls, args in factors:  # the whole product is checked before any factor is built
        fp = cls.footprint(*args)
        if fp is None:
            total = None
            break
        total = fp if total is None else total * fp
    if total is not None:
        total.check(text.strip())
    return factors


def _parse_factor(ts: TokenStream) -> tuple[type[Group], list[int]]:
    tok = ts.peek
    if tok.kind != "name":
        ts.fail("a group name such as S(5) or SO(3)")
    ts.next()
    cls = GROUPS.get(tok.value)
    if cls is None:
        close = [n for n in GROUPS if n.lower() == tok.value.lower()]
        hint = f" (did you mean {close[0]}?)" if close else f"; known groups: {', '.join(GROUPS)}"
        raise GroupError(f"unknown group {tok.value!r}{hint}")
    args: list[int] = []
    if ts.accept("("):
        if not ts.accept(")"):
            args.append(ts.expect_int("an integer argument"))
            while ts.accept(","):
                args.append(ts.expect_int("an integer argument"))
            ts.expect(")", "',' or ')'")
    wanted = _arg_names(cls)
    if len(args) != len(wanted):
        sig = f"{tok.value}({', '.join(wanted)})"
        raise GroupError(f"{sig} takes {len(wanted)} argument(s), got {len(args)}")
    if any(a < 1 for a in args):
        cls(*args)  # the class names the bad argument (GroupError)
    return cls, args
