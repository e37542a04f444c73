"""A small tokenizer shared by the group and representation languages (no ``eval`` anywhere), and ``count``, the
words for a number of things.

>>> count(1, "training point"), count(1438, "training point"), count(2, "matrix", "matrices")
('1 training point', '1,438 training points', '2 matrices')
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import limits
from .errors import ParseError

_TOKEN = re.compile(r"\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|>>|[()+*,.]))")


@dataclass(frozen=True)
class Token:
    kind: str  # 'int', 'name', 'op', 'end'
    value: str
    pos: int


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``; refuses texts over the ``text`` limit, parentheses nested deeper than the
    ``nesting`` limit (the parsers recurse once per level) and numbers over the ``number`` limit (before
    converting them: ``int()`` of a long digit string is itself slow)."""
    _short = text if len(text) <= 40 else text[:37] + "..."
    limits.check("text", len(text), f"the text {_short!r}")
    max_digits = len(str(limits.get("number")))
    tokens: list[Token] = []
    pos = depth = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            tokens.append(Token("end", "", pos))
            return tokens
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ParseError(text, pos, "a name, a number or one of + * ** >> ( ) , .T")
        kind = m.lastgroup
        start = m.start(kind)
        value = m.group(kind)
        if kind == "int":
            digits = value.lstrip("0")
            # a digit count over the limit's is refused by its size alone: int() of 10 000 digits is slow
            number = int(digits or "0") if len(digits) <= max(max_digits, 50) else 10 ** (len(digits) - 1)
            limits.check("number", number, f"the number at position {start} of {_short!r}")
        if value == "(":
            depth += 1
            limits.check("nesting", depth, f"the text {_short!r}")
        elif value == ")":
            depth -= 1
        tokens.append(Token(kind, value, start))
        pos = m.end()


class TokenStream:
    """Cursor over tokens with helpers that raise ``ParseError`` naming the position."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise ParseError(str(text), 0, "a text")
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0

    @property
    def peek(self) -> Token:
        return self.tokens[self.i]

    def next(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "end":
            self.i += 1
        return tok

    def accept(self, value: str) -> bool:
        if self.peek.kind == "op" and self.peek.value == value:
            self.i += 1
            return True
        return False

    def expect(self, value: str, what: str | None = None) -> Token:
        tok = self.peek
        if tok.kind == "op" and tok.value == value:
            return self.next()
        self.fail(what or repr(value))

    def expect_int(self, what: str = "an integer") -> int:
        tok = self.peek
        if tok.kind != "int":
            self.fail(what)
        self.next()
        return int(tok.value)

    def expect_end(self, what: str) -> None:
        if self.peek.kind != "end":
            self.fail(what)

    def fail(self, expected: str):
        tok = self.peek
        raise ParseError(self.text, tok.pos, expected, tok.value if tok.kind != "end" else "end of input")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 training point``, ``1,438 training points``: ``n`` (thousands marked) and ``noun`` in its number."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
