"""Go syntax: tokens, type expressions, and the declarations of a schema file.

``parse_go_type`` parses one type expression (``[]*Inner``,
``map[string][3]float64``, ``time.Time``); the loader walks it alongside the
type tree of a field to name the reference compiler's unnamed inlined structs.

``parse_go_file`` reads what a schema file declares, as go/parser would: the
package clause, imports, constants, type declarations and the generator's
``//msgp:`` directives (line comments). Functions, methods
and variables are passed over by bracket matching, so their bodies need only
be well bracketed. Statements end where Go inserts semicolons (at a newline
after an identifier, a literal, ``)``, ``]``, ``}``, ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, TypeVar


@dataclass(frozen=True)
class GoField:
    """One line of a struct type: ``names`` (empty for an embedded field), its
    type, its tag as written (a string literal, or ""), and its line."""

    names: tuple[str, ...]
    type: GoType
    tag: str
    line: int


@dataclass(frozen=True)
class GoType:
    """One node of a Go type expression.

    ``form`` is one of ``ident`` (``name`` set, possibly package-qualified),
    ``slice``, ``array`` (``length`` is the size expression as written),
    ``pointer``, ``map`` (``key`` and ``elem``), ``struct`` (``fields``),
    ``interface`` (``body``: its elements as written, "" when empty),
    ``chan`` (``elem``) and ``func`` (``body``: the signature as written).
    """

    form: str
    name: str = ""
    elem: GoType | None = None
    key: GoType | None = None
    length: str = ""
    fields: tuple[GoField, ...] = ()
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
        if self.form == "chan":
            return f"chan {self.elem}"
        if self.form == "struct":
            return "struct{" + "; ".join(
                " ".join(filter(None, [", ".join(f.names), str(f.type), f.tag])) for f in self.fields) + "}"
        if self.form == "func":
            return f"func{self.body}"
        return f"interface{{{self.body}}}"


@dataclass(frozen=True)
class GoImport:
    name: str  # the local name as written ("", "_", "." or an identifier)
    path: str  # the string literal as written, quotes included
    line: int


@dataclass(frozen=True)
class GoConst:
    name: str
    value: str  # the expression as written; "" when the spec repeats the previous one
    line: int


@dataclass(frozen=True)
class GoTypeDecl:
    name: str
    type: GoType
    alias: bool  # ``type A = B``
    line: int


@dataclass(frozen=True)
class GoDirective:
    """A ``//msgp:`` comment: its text after the prefix (``ignore A B``) and its line."""

    text: str
    line: int


@dataclass(frozen=True)
class GoFile:
    """The declarations of a Go file that a schema is compiled from."""

    package: str
    imports: tuple[GoImport, ...]
    consts: tuple[GoConst, ...]
    types: tuple[GoTypeDecl, ...]
    directives: tuple[GoDirective, ...] = ()


class GoTypeSyntaxError(ValueError):
    """Go source that does not parse; ``line`` is where (1-based), when known."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def parse_go_type(text: str) -> GoType:
    """Parse one Go type expression; raise ``GoTypeSyntaxError`` if it is not one."""
    parser = _Parser(text)
    result = parser.parse_type()
    parser.accept(";")
    if parser.peek().kind != "eof":
        raise GoTypeSyntaxError(f"unexpected {parser.peek().text!r} after type in {text!r}")
    return result


def parse_type_spelling(type_str: str) -> GoType | None:
    """A schema field's ``FieldTypeStr`` parsed, or None when it is empty or not a Go type."""
    try:
        return parse_go_type(type_str) if type_str else None
    except GoTypeSyntaxError:
        return None


def parse_go_file(text: str) -> GoFile:
    """The package, imports, constants and type declarations of a Go source file."""
    return _Parser(text).parse_file()


_ESCAPED = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", "'": "'", '"': '"'}
_STRING_PIECE = re.compile(r'''\\(?:([abfnrtv\\'"])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{3}))|(\\)|[^\\]+''')


def unquote_go_string(literal: str) -> str:
    """The value of a Go string literal (raw or interpreted), as strconv.Unquote gives it."""
    if len(literal) >= 2 and literal[0] == literal[-1] == "`":
        return literal[1:-1].replace("\r", "")
    if len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        raise GoTypeSyntaxError(f"not a string literal: {literal}")
    pieces = []
    for match in _STRING_PIECE.finditer(literal[1:-1]):
        simple, byte, short, long, octal, stray = match.groups()
        if simple:
            pieces.append(_ESCAPED[simple])
        elif byte or short or long or octal:
            pieces.append(chr(int(octal, 8) if octal else int(byte or short or long, 16)))
        elif stray or '"' in match.group():
            raise GoTypeSyntaxError(f"malformed string literal: {literal}")
        else:
            pieces.append(match.group())
    return "".join(pieces)


# -- tokens -------------------------------------------------------------------


#: A line comment starting so is a directive of the generator (``//msgp:ignore T``).
DIRECTIVE_PREFIX = "//msgp:"


class _Token(NamedTuple):
    kind: str  # ident (keywords included), number, string, rune, op, directive, eof
    text: str
    line: int


_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<ident>[^\W\d]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|`[^`]*`)
  | (?P<rune>'(?:[^'\\\n]|\\.)*')
  | (?P<op>\+\+|--|<-|\.\.\.|[-+*/%&|^<>=!~:.,;()\[\]{}])
""", re.VERBOSE | re.DOTALL)

#: After these, a newline ends the statement (the Go spec's semicolon rule).
_ENDS_STATEMENT = frozenset({")", "]", "}", "++", "--", "break", "continue", "fallthrough", "return"})
GO_KEYWORDS = frozenset({
    "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for",
    "func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
    "struct", "switch", "type", "var",
})


def _tokens(text: str) -> Iterator[_Token]:
    line, pos, last = 1, 0, None
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            what = "unterminated comment or literal" if text[pos] in "/\"'`" else f"unexpected {text[pos]!r}"
            raise GoTypeSyntaxError(what, line)
        kind, value = match.lastgroup, match.group()
        pos = match.end()
        breaks = value.count("\n")
        if kind == "comment" and value.startswith(DIRECTIVE_PREFIX):
            yield _Token("directive", value[len(DIRECTIVE_PREFIX):], line)
        if breaks and kind in ("newline", "comment"):
            if last is not None and _ends_statement(last):
                yield _Token("op", ";", line)
            last = None
        elif kind not in ("space", "comment"):
            assert kind is not None
            last = _Token(kind, value, line)
            yield last
        line += breaks
    if last is not None and _ends_statement(last):
        yield _Token("op", ";", line)
    yield _Token("eof", "end of file", line)


def _ends_statement(token: _Token) -> bool:
    if token.kind == "ident":
        return token.text not in GO_KEYWORDS or token.text in _ENDS_STATEMENT
    return token.kind != "op" or token.text in _ENDS_STATEMENT


_OPEN = {"(": ")", "[": "]", "{": "}"}
_Spec = TypeVar("_Spec")


class _Parser:
    def __init__(self, text: str) -> None:
        tokens = list(_tokens(text))
        self.tokens = [token for token in tokens if token.kind != "directive"]
        self.directives = tuple(GoDirective(token.text, token.line) for token in tokens if token.kind == "directive")
        self.pos = 0

    # -- token stream ---------------------------------------------------------

    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self) -> _Token:
        token = self.peek()
        if token.kind != "eof":
            self.pos += 1
        return token

    def accept(self, text: str) -> bool:
        if self.peek().text == text and self.peek().kind in ("op", "ident"):
            self.pos += 1
            return True
        return False

    def fail(self, expected: str) -> GoTypeSyntaxError:
        token = self.peek()
        found = "newline" if token.text == ";" and token.kind == "op" else repr(token.text)
        return GoTypeSyntaxError(f"expected {expected}, found {found}", token.line)

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.fail(repr(text))

    def ident(self) -> str:
        token = self.peek()
        if token.kind != "ident" or token.text in GO_KEYWORDS:
            raise self.fail("a name")
        self.pos += 1
        return token.text

    def balanced(self) -> list[_Token]:
        """The tokens of a bracketed group (the opening one is next), brackets excluded."""
        close = [_OPEN[self.next().text]]
        inner: list[_Token] = []
        while True:
            token = self.next()
            if token.kind == "eof":
                raise GoTypeSyntaxError(f"missing {close[-1]!r}", token.line)
            if token.kind == "op" and token.text in _OPEN:
                close.append(_OPEN[token.text])
            elif token.kind == "op" and token.text == close[-1]:
                close.pop()
                if not close:
                    return inner
            inner.append(token)

    def rest_of_spec(self) -> list[_Token]:
        """The tokens up to the end of a declaration spec (a ``;``, or the ``)`` closing its group)."""
        taken: list[_Token] = []
        depth = 0
        while self.peek().kind != "eof":
            token = self.peek()
            if token.kind == "op":
                if depth == 0 and token.text in (";", ")"):
                    break
                depth += token.text in _OPEN
                depth -= token.text in _OPEN.values()
            taken.append(self.next())
        return taken

    # -- types ----------------------------------------------------------------

    def parse_type(self) -> GoType:
        token = self.peek()
        if token.kind == "op":
            return self._operator_type(token)
        if token.text == "map":
            self.next()
            self.expect("[")
            key = self.parse_type()
            self.expect("]")
            return GoType("map", key=key, elem=self.parse_type())
        if token.text == "chan":
            self.next()
            self.accept("<-")
            return GoType("chan", elem=self.parse_type())
        if token.text == "func":
            self.next()
            return GoType("func", body=self._signature())
        if token.text == "struct":
            self.next()
            return GoType("struct", fields=self._struct_fields())
        if token.text == "interface":
            self.next()
            if self.peek().text != "{":
                raise self.fail("'{'")
            return GoType("interface", body=_joined(self.balanced()))
        if token.kind != "ident" or token.text in GO_KEYWORDS:
            raise self.fail("a type")
        name = self.ident()
        if self.accept("."):
            name += "." + self.ident()
        return GoType("ident", name=name)

    def _operator_type(self, token: _Token) -> GoType:
        if self.accept("*"):
            return GoType("pointer", elem=self.parse_type())
        if self.accept("<-"):
            self.expect("chan")
            return GoType("chan", elem=self.parse_type())
        if token.text == "(":
            self.next()
            inner = self.parse_type()
            self.expect(")")
            return inner
        if token.text == "[":
            length = _joined(self.balanced())
            if not length:
                return GoType("slice", elem=self.parse_type())
            return GoType("array", length=length, elem=self.parse_type())
        raise self.fail("a type")

    def _signature(self) -> str:
        if self.peek().text != "(":
            raise self.fail("'('")
        text = f"({_joined(self.balanced())})"
        if self.peek().text == "(":
            return f"{text} ({_joined(self.balanced())})"
        if self._starts_type():
            return f"{text} {self.parse_type()}"
        return text

    def _starts_type(self) -> bool:
        token = self.peek()
        if token.kind == "ident":
            return token.text not in GO_KEYWORDS or token.text in ("map", "chan", "func", "struct", "interface")
        return token.kind == "op" and token.text in ("*", "[", "(", "<-")

    def _struct_fields(self) -> tuple[GoField, ...]:
        self.expect("{")
        fields: list[GoField] = []
        while not self.accept("}"):
            if self.accept(";"):
                continue
            if self.peek().kind == "eof":
                raise self.fail("'}'")
            line = self.peek().line
            if self._embedded_field_next():
                names: tuple[str, ...] = ()
            else:
                names = (self.ident(),)
                while self.accept(","):
                    names += (self.ident(),)
            field_type = self.parse_type()
            tag = self.next().text if self.peek().kind == "string" else ""
            if self.peek().text != "}":
                self.expect(";")
            fields.append(GoField(names, field_type, tag, line))
        return tuple(fields)

    def _embedded_field_next(self) -> bool:
        """An embedded field (``Inner``, ``*Inner``, ``time.Time``) rather than ``Name Type``."""
        if self.peek().text == "*":
            return True
        after = self.peek(1)
        return after.kind == "string" or after.kind == "op" and after.text in (";", "}", ".")

    # -- declarations ---------------------------------------------------------

    def parse_file(self) -> GoFile:
        while self.accept(";"):
            pass
        self.expect("package")
        package = self.ident()
        imports: list[GoImport] = []
        consts: list[GoConst] = []
        types: list[GoTypeDecl] = []
        while self.peek().kind != "eof":
            if self.accept(";"):
                continue
            keyword = self.next()
            if keyword.text == "import":
                imports.extend(self._specs(self._import_spec))
            elif keyword.text == "const":
                consts.extend(const for group in self._specs(self._const_spec) for const in group)
            elif keyword.text == "type":
                types.extend(self._specs(self._type_spec))
            elif keyword.text in ("var", "func"):
                self.rest_of_spec()
            else:
                self.pos -= 1
                raise self.fail("a declaration")
        return GoFile(package, tuple(imports), tuple(consts), tuple(types), self.directives)

    def _specs(self, parse_spec: Callable[[], _Spec]) -> list[_Spec]:
        """The specs of a declaration: one, or a parenthesized group."""
        if not self.accept("("):
            spec = parse_spec()
            self._end_of_spec()
            return [spec]
        specs: list[_Spec] = []
        while not self.accept(")"):
            if self.accept(";"):
                continue
            specs.append(parse_spec())
            self._end_of_spec()
        return specs

    def _end_of_spec(self) -> None:
        if self.peek().text != ")" and self.peek().kind != "eof":
            self.expect(";")

    def _import_spec(self) -> GoImport:
        line = self.peek().line
        name = ""
        if self.peek().kind == "ident" or self.peek().text == ".":
            name = self.next().text
        if self.peek().kind != "string":
            raise self.fail("an import path")
        return GoImport(name, self.next().text, line)

    def _const_spec(self) -> list[GoConst]:
        line = self.peek().line
        names = [self.ident()]
        while self.accept(","):
            names.append(self.ident())
        spec = self.rest_of_spec()
        values = _split_values(spec)
        if len(values) < len(names):
            values = [""] * len(names)
        return [GoConst(name, value, line) for name, value in zip(names, values)]

    def _type_spec(self) -> GoTypeDecl:
        line = self.peek().line
        name = self.ident()
        alias = self.accept("=")
        return GoTypeDecl(name, self.parse_type(), alias, line)


def _split_values(spec: list[_Token]) -> list[str]:
    """The values of a const spec (``[Type] = v1, v2``) as written; [] without ``=``."""
    for index, token in enumerate(spec):
        if token.kind == "op" and token.text == "=":
            values: list[list[_Token]] = [[]]
            for item in spec[index + 1:]:
                if item.kind == "op" and item.text == ",":
                    values.append([])
                else:
                    values[-1].append(item)
            return [_joined(value) for value in values]
    return []


def _joined(tokens: list[_Token]) -> str:
    """Tokens as text: adjacent ones joined directly, with a space only between two words."""
    text = ""
    for token in tokens:
        word = token.text[0].isalnum() or token.text[0] in "_`\""
        if text and word and (text[-1].isalnum() or text[-1] in "_)"):
            text += " "
        text += token.text + " " if token.kind == "op" and token.text in ";," else token.text
    return text.strip("; ")
