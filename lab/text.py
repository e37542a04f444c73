"""A small tokenizer shared by the group and representation languages (no ``eval`` anywhere)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ParseError

_TOKEN = re.compile(r"\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|>>|[()+*,.]))")


@dataclass(frozen=True)
class Token:
    kind: str  # 'int', 'name', 'op', 'end'
    value: str
    pos: int


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
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
        tokens.append(Token(kind, m.group(kind), start))
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
