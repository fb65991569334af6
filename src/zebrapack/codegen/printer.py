"""The printer: lines of Python source with indentation, comments, docstrings
and long bytes literals wrapped.

Comments and docstrings carry text from the schema (package, tag names), which
is untrusted: it is escaped so that it stays inside them (no line break, NUL or
closing quotes can end them and start code)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

INDENT = "    "
#: Longest line the printer makes of a bytes literal.
WIDTH = 79


class Printer:
    def __init__(self) -> None:
        self._lines: list[str] = []
        self._depth = 0

    def line(self, text: str = "") -> None:
        self._lines.append(INDENT * self._depth + text if text else "")

    def blank(self, count: int = 1) -> None:
        for _ in range(count):
            self.line()

    def comment(self, text: str) -> None:
        self.line(f"# {_inert(text, '')}")

    def docstring(self, lines: list[str]) -> None:
        """A docstring: one line, or a summary, a blank line and the rest."""
        lines = [_inert(text, '"') for text in lines]
        if len(lines) == 1:
            self.line(f'"""{lines[0]}"""')
            return
        self.line(f'"""{lines[0]}')
        for text in lines[1:]:
            self.line(text)
        self.line('"""')

    @contextlib.contextmanager
    def indented(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def bytes_literal(self, name: str, data: bytes) -> None:
        """``name = (b"..." b"...")`` over lines of at most WIDTH characters."""
        self.line(f"{name} = (")
        with self.indented():
            room = WIDTH - len(INDENT) * self._depth - len('b""')
            piece = ""
            for byte in data:
                char = _escape(byte)
                if len(piece) + len(char) > room:
                    self.line(f'b"{piece}"')
                    piece = ""
                piece += char
            self.line(f'b"{piece}"')
        self.line(")")

    def text(self) -> str:
        return "\n".join(self._lines).rstrip("\n") + "\n"


def _inert(text: str, quote: str) -> str:
    """text as it may stand in a comment or (quote '"') a docstring: backslashes,
    the quote and unprintable characters (line breaks, NUL, U+2028, ...) escaped."""
    return "".join(_inert_char(char, quote) for char in text)


def _inert_char(char: str, quote: str) -> str:
    if char == "\\" or (quote and char == quote):
        return "\\" + char
    if char.isprintable():
        return char
    return char.encode("unicode_escape", "backslashreplace").decode("ascii")


def _escape(byte: int) -> str:
    """A byte inside a b"..." literal: printable ASCII as itself, the rest as \\xNN."""
    if 0x20 <= byte <= 0x7E and byte not in (0x22, 0x5C):
        return chr(byte)
    return f"\\x{byte:02x}"
