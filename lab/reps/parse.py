"""The representation language: ``"T(2)+3*V"``, ``"V**2 >> V"``, ``"T(1,1)"``, ``"(V+Scalar).T"``.

Grammar (precedence as in Python: ``**`` > ``*`` > ``+`` > ``>>``)::

    map     := sum ['>>' sum]
    sum     := product ('+' product)*
    product := power ('*' power)*        an integer factor is a multiplicity: 3*V, V*3
    power   := postfix ['**' INT]
    postfix := atom ('.T')*
    atom    := 'V' | 'Scalar' | 'T' '(' INT [',' INT] ')' | '(' map ')' | INT

A recursive-descent parser: no ``eval``.  Errors are ``ParseError`` naming the position and what was
expected there.
"""
from __future__ import annotations

from ..errors import ParseError, RepError
from ..text import TokenStream
from .rep import Leaf, Rep, T

_NAMES = "V, Scalar, T(p) or T(p,q)"


def parse_rep(text: str, group=None) -> Rep:
    """Parse the text form of a representation; bind it to ``group`` (a Group or group text) if given."""
    if isinstance(text, Rep):
        rep = text
    else:
        ts = TokenStream(text)
        if ts.peek.kind == "end":
            ts.fail(f"a representation ({_NAMES})")
        rep = _map(ts)
        ts.expect_end("'+', '*', '**', '>>' or the end of the representation")
        if isinstance(rep, int):
            raise ParseError(text, 0, f"a representation ({_NAMES}), not just a number", str(rep))
    return rep if group is None else rep(group)


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
        left = left * _power(ts)  # int*int, int*rep (multiplicity) or rep*rep (tensor product)
    return left


def _power(ts: TokenStream):
    base = _postfix(ts)
    if ts.peek.kind == "op" and ts.peek.value == "**":
        ts.next()
        base = base ** ts.expect_int("an integer exponent")
    return base


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
            return Leaf("V")
        if tok.value == "Scalar":
            return Leaf("Scalar")
        if tok.value == "T":
            ts.expect("(", "'(' after T")
            p = ts.expect_int("the tensor order p of T(p) or T(p,q)")
            q = 0
            if ts.accept(","):
                q = ts.expect_int("the dual order q of T(p,q)")
            ts.expect(")", "')' or ','")
            return T(p, q)
        raise ParseError(ts.text, tok.pos, _NAMES, tok.value)
    ts.fail(f"a representation ({_NAMES})")


def _need_rep(ts: TokenStream, x, pos: int, where: str) -> None:
    if isinstance(x, int):
        raise ParseError(ts.text, pos, f"a representation {where}, not a bare number", str(x))
    if not isinstance(x, Rep):  # pragma: no cover - defensive
        raise RepError(f"unexpected value {x!r} {where}")
