"""The representation language: ``"T(2)+3*V"``, ``"V**2 >> V"``, ``"T(1,1)"``, ``"(V+Scalar).T"``.

Grammar (precedence as in Python: ``**`` > ``*`` > ``+`` > ``>>``)::

    map     := sum ['>>' sum]
    sum     := product ('+' product)*
    product := power ('*' power)*        an integer factor is a multiplicity: 3*V, V*3
    power   := postfix ['**' INT]
    postfix := atom ('.T')*
    atom    := 'V' | 'Scalar' | 'T' '(' INT [',' INT] ')' | NAME | '(' map ')' | INT

``NAME`` is a registered representation (``register_rep``) or one passed as ``names={...}``: any other
identifier than V, Scalar and T, e.g. ``L2`` for ``so3_irrep(2)``.  A recursive-descent parser: no
``eval``.  Errors are ``ParseError`` naming the position and what was expected there.
"""
from __future__ import annotations

from collections.abc import Mapping

from .. import limits
from ..errors import ParseError, RepError
from ..text import TokenStream
from .registry import registered_reps
from .rep import Rep, Scalar, T, V

_NAMES = "V, Scalar, T(p) or T(p,q)"


def parse_rep(text: str, group=None, names: Mapping[str, Rep] | None = None) -> Rep:
    """Parse the text form of a representation; bind it to ``group`` (a Group or group text) if given.

    ``names`` maps extra names to representations (they take precedence over ``register_rep``'s).

    >>> parse_rep("T(2) + 3*V"), parse_rep("V**2 >> V", "S(3)").size
    (T(2) + 3*V, 27)
    >>> from lab.reps import so3_irrep
    >>> parse_rep("L2 >> L1*L1", names={"L1": so3_irrep(1), "L2": so3_irrep(2)})
    L2 >> L1**2 over SO(3)
    >>> parse_rep("W")
    Traceback (most recent call last):
    ...
    lab.errors.ParseError: cannot parse 'W': at position 0 expected V, Scalar, T(p) or T(p,q), found 'W'
    """
    if isinstance(text, Rep):
        rep = text
    else:
        ts = TokenStream(text)
        ts.names = {**registered_reps(), **(names or {})}
        if ts.peek.kind == "end":
            ts.fail(f"a representation ({_expected(ts)})")
        rep = _map(ts)
        ts.expect_end("'+', '*', '**', '>>' or the end of the representation")
        if isinstance(rep, int):
            raise ParseError(text, 0, f"a representation ({_expected(ts)}), not just a number", str(rep))
    return rep if group is None else rep(group)


def _expected(ts: TokenStream) -> str:
    known = sorted(ts.names)
    if not known:
        return _NAMES
    shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
    return f"{_NAMES} or a registered rep ({shown})"


def _map(ts: TokenStream):
    left = _sum(ts)
    if ts.peek.kind == "op" and ts.peek.value == ">>":
        pos = ts.next().pos
        right_pos = ts.peek.pos
        right = _sum(ts)
        _need_rep(ts, left, pos, "before '>>'")
        _need_rep(ts, right, right_pos, "after '>>'")
        left = left >> right
    return left


def _sum(ts: TokenStream):
    first_pos = ts.peek.pos
    left = _product(ts)
    while ts.peek.kind == "op" and ts.peek.value == "+":
        ts.next()
        right_pos = ts.peek.pos
        right = _product(ts)
        _need_rep(ts, left, first_pos, "in a sum")
        _need_rep(ts, right, right_pos, "in a sum")
        left = left + right
    return left


def _product(ts: TokenStream):
    left = _power(ts)
    while ts.peek.kind == "op" and ts.peek.value == "*":
        ts.next()
        right = _power(ts)
        if isinstance(left, int) and isinstance(right, int):  # exact: both are within the number limit
            left = limits.check("number", left * right, f"{left}*{right} in {ts.text!r}")
        else:
            left = left * right  # int*rep (multiplicity, checked there) or rep*rep (tensor product)
    return left


def _power(ts: TokenStream):
    base = _postfix(ts)
    if ts.peek.kind == "op" and ts.peek.value == "**":
        ts.next()
        exponent = ts.expect_int("an integer exponent")
        if isinstance(base, int):
            base = _int_power(ts, base, exponent)
        else:
            limits.check("tensor_order", exponent, f"the power **{exponent} in {ts.text!r}")
            base = base ** exponent
    return base


def _int_power(ts: TokenStream, base: int, exponent: int) -> int:
    """``base ** exponent``, refused by its bit length before it is computed (9**999999999 is a 3-GB int)."""
    if base > 1 and exponent * (base.bit_length() - 1) > 4096:  # a lower bound of its size, without computing it
        limits.check("number", 2 ** (exponent * (base.bit_length() - 1)), f"{base}**{exponent} in {ts.text!r}")
    return limits.check("number", base ** exponent, f"{base}**{exponent} in {ts.text!r}")


def _postfix(ts: TokenStream):
    atom = _atom(ts)
    while ts.peek.kind == "op" and ts.peek.value == ".":
        dot = ts.next()
        tok = ts.peek
        if tok.kind != "name" or tok.value != "T":
            ts.fail("'T' after '.' (dual: V.T)")
        ts.next()
        if isinstance(atom, int):
            raise ParseError(ts.text, dot.pos, "a representation before '.T'", str(atom))
        atom = atom.T
    return atom


def _atom(ts: TokenStream):
    tok = ts.peek
    if tok.kind == "int":
        ts.next()
        return int(tok.value)
    if tok.kind == "op" and tok.value == "(":
        ts.next()
        inner = _map(ts)
        ts.expect(")", "')'")
        return inner
    if tok.kind == "name":
        ts.next()
        if tok.value == "V":
            return V
        if tok.value == "Scalar":
            return Scalar
        if tok.value == "T":
            ts.expect("(", "'(' after T")
            p = ts.expect_int("the tensor order p of T(p) or T(p,q)")
            q = 0
            if ts.accept(","):
                q = ts.expect_int("the dual order q of T(p,q)")
            ts.expect(")", "')' or ','")
            return T(p, q)
        rep = ts.names.get(tok.value)
        if rep is None:
            raise ParseError(ts.text, tok.pos, _expected(ts), tok.value)
        return rep
    ts.fail(f"a representation ({_expected(ts)})")


def _need_rep(ts: TokenStream, x, pos: int, where: str) -> None:
    if isinstance(x, int):
        raise ParseError(ts.text, pos, f"a representation {where}, not a bare number", str(x))
    if not isinstance(x, Rep):  # pragma: no cover - defensive
        raise RepError(f"unexpected value {x!r} {where}")
