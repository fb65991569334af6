"""Parsing Go type expressions (``[]*Inner``, ``map[string][3]float64``, ``time.Time``).

The reference compiler writes an unnamed inlined struct as ``{"Kind": 25,
"Str": "Struct"}``; its name is only in the field's ``FieldTypeStr``. The
loader walks this parse alongside the type tree to recover it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GoType:
    """One node of a Go type expression.

    ``form`` is one of ``ident`` (``name`` set, possibly package-qualified),
    ``slice``, ``array`` (``length`` is the size expression as written),
    ``pointer``, ``map`` (``key`` and ``elem``), ``interface`` and ``struct``
    (``body`` is the text between the braces).
    """

    form: str
    name: str = ""
    elem: GoType | None = None
    key: GoType | None = None
    length: str = ""
    body: str = ""

    def __str__(self) -> str:
        if self.form == "ident":
            return self.name
        if self.form == "slice":
            return f"[]{self.elem}"
        if self.form == "array":
            return f"[{self.length}]{self.elem}"
        if self.form == "pointer":
            return f"*{self.elem}"
        if self.form == "map":
            return f"map[{self.key}]{self.elem}"
        return f"{self.form}{{{self.body}}}"


class GoTypeSyntaxError(ValueError):
    """A Go type expression that does not parse."""


def parse_go_type(text: str) -> GoType:
    """Parse one Go type expression; raise ``GoTypeSyntaxError`` if it is not one."""
    parser = _Parser(text)
    result = parser.parse_type()
    parser.skip_space()
    if parser.pos != len(text):
        raise GoTypeSyntaxError(f"unexpected {text[parser.pos:]!r} after type in {text!r}")
    return result


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def _fail(self, what: str) -> GoTypeSyntaxError:
        return GoTypeSyntaxError(f"{what} at offset {self.pos} of {self.text!r}")

    def _take(self, literal: str) -> bool:
        if self.text.startswith(literal, self.pos):
            self.pos += len(literal)
            return True
        return False

    def _keyword(self, word: str) -> bool:
        """Take ``word`` when it stands as a whole word (``map`` but not ``mapping``)."""
        end = self.pos + len(word)
        if not self.text.startswith(word, self.pos):
            return False
        if end < len(self.text) and (self.text[end].isalnum() or self.text[end] == "_"):
            return False
        self.pos = end
        return True

    def parse_type(self) -> GoType:
        self.skip_space()
        if self._take("[]"):
            return GoType("slice", elem=self.parse_type())
        if self._take("["):
            close = self.text.find("]", self.pos)
            if close < 0:
                raise self._fail("unclosed array length")
            length = self.text[self.pos:close].strip()
            if not length:
                raise self._fail("empty array length")
            self.pos = close + 1
            return GoType("array", length=length, elem=self.parse_type())
        if self._take("*"):
            return GoType("pointer", elem=self.parse_type())
        if self._keyword("map"):
            self.skip_space()
            if not self._take("["):
                raise self._fail("expected '[' after map")
            key = self.parse_type()
            self.skip_space()
            if not self._take("]"):
                raise self._fail("expected ']' after map key")
            return GoType("map", key=key, elem=self.parse_type())
        for form in ("interface", "struct"):
            if self._keyword(form):
                self.skip_space()
                return GoType(form, body=self._braced_body())
        if self._keyword("chan") or self._keyword("func"):
            raise self._fail("channel and function types cannot be serialized")
        return GoType("ident", name=self._qualified_ident())

    def _braced_body(self) -> str:
        if not self._take("{"):
            raise self._fail("expected '{'")
        depth, start = 1, self.pos
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return self.text[start:self.pos - 1].strip()
        raise self._fail("unclosed '{'")

    def _ident(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        name = self.text[start:self.pos]
        if not name.isidentifier():
            self.pos = start
            raise self._fail("expected a type")
        return name

    def _qualified_ident(self) -> str:
        name = self._ident()
        if self._take("."):
            name += "." + self._ident()
        return name
