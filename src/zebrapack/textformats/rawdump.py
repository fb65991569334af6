"""The msgpack structure of any bytes, without a schema (``zebrapack dump FILE``).

What ``protoc --decode_raw`` is to protobuf: every value on its own line with
its byte offset (the offsets ``DecodeError`` reports), its wire type and its
value; container elements are indented under their header and labelled by
index (``[2]``) or by map key (``[-1]``, ``["name"]``: the zid or field name
of a struct entry)::

    # record 1 at offset 0, 67 bytes
           0  fixmap(7)
           2    [-1] fixstr(1) "A"
           5    [0] fixstr(7) "Atlanta"

The walk keeps its own stack, so any nesting depth is fine.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator
from types import MappingProxyType
from typing import Protocol

from .._errors import DecodeError, TornTailError
from ..values.gotime import GoTime

#: Longest str (in characters) and bin (in bytes) shown in full; longer ones are cut.
SHOWN_STR = 60
SHOWN_BIN = 32

_FIXED = MappingProxyType({  # lead byte -> (name, payload size, struct format)
    0xca: ("float32", 4, ">f"), 0xcb: ("float64", 8, ">d"),
    0xcc: ("uint8", 1, ">B"), 0xcd: ("uint16", 2, ">H"), 0xce: ("uint32", 4, ">I"), 0xcf: ("uint64", 8, ">Q"),
    0xd0: ("int8", 1, ">b"), 0xd1: ("int16", 2, ">h"), 0xd2: ("int32", 4, ">i"), 0xd3: ("int64", 8, ">q"),
})
# lead byte -> (name, size of the length field) for str, bin, ext and container headers
_SIZED = MappingProxyType({
    0xd9: ("str8", 1), 0xda: ("str16", 2), 0xdb: ("str32", 4),
    0xc4: ("bin8", 1), 0xc5: ("bin16", 2), 0xc6: ("bin32", 4),
    0xc7: ("ext8", 1), 0xc8: ("ext16", 2), 0xc9: ("ext32", 4),
    0xdc: ("array16", 2), 0xdd: ("array32", 4), 0xde: ("map16", 2), 0xdf: ("map32", 4),
})
_FIXEXT = MappingProxyType({0xd4: 1, 0xd5: 2, 0xd6: 4, 0xd7: 8, 0xd8: 16})


class Readable(Protocol):
    """What the records are read from: a binary file, or anything with its ``read``."""

    def read(self, size: int, /) -> bytes: ...


class Incomplete(Exception):
    """The input ends inside the object: ``needed`` bytes from ``offset`` are missing."""

    def __init__(self, offset: int, needed: int) -> None:
        super().__init__(offset, needed)
        self.offset = offset
        self.needed = needed


class _Value:
    """One decoded lead: a scalar (``text``) or a container header (``count`` items)."""

    __slots__ = ("wire", "text", "end", "count", "is_map")

    def __init__(self, wire: str, text: str, end: int, count: int = -1, is_map: bool = False) -> None:
        self.wire = wire
        self.text = text
        self.end = end
        self.count = count
        self.is_map = is_map

    @property
    def is_container(self) -> bool:
        return self.count >= 0

    def line(self) -> str:
        return f"{self.wire} {self.text}" if self.text else self.wire


class _Frame:
    """A container being walked: how many items are left and the label of the next."""

    __slots__ = ("is_map", "left", "index", "key_label", "key_pending")

    def __init__(self, count: int, is_map: bool) -> None:
        self.is_map = is_map
        self.left = count
        self.index = 0
        self.key_label = ""
        self.key_pending = is_map

    def next_label(self) -> str:
        if not self.is_map:
            self.index += 1
            self.left -= 1
            return f"[{self.index - 1}] "
        if self.key_pending:
            return "key "
        self.left -= 1
        self.key_pending = True
        label, self.key_label = self.key_label, ""
        return label or "value "


def describe(data: bytes | bytearray | memoryview, start: int, base: int = 0) -> tuple[list[str], int]:
    """The lines describing the msgpack object at ``data[start:]``, and where it ends.

    Offsets shown (and in errors) add ``base``. Raises ``Incomplete`` when the
    object runs past the end of ``data`` and ``DecodeError`` for the byte 0xc1.
    """
    lines: list[str] = []
    stack: list[_Frame] = []
    pos = start
    while True:
        frame = stack[-1] if stack else None
        reading_key = frame is not None and frame.is_map and frame.key_pending
        label = frame.next_label() if frame is not None else ""
        value = _read_lead(data, pos, base)
        if reading_key:
            assert frame is not None
            frame.key_pending = False
            if not value.is_container:      # a scalar key labels the value that follows it
                frame.key_label = f"[{value.text or value.wire}] "
                pos = value.end
                continue
        lines.append(f"{base + pos:>10}  {'  ' * len(stack)}{label}{value.line()}")
        pos = value.end
        if value.is_container and value.count > 0:
            stack.append(_Frame(value.count, value.is_map))
            continue
        while stack and stack[-1].left == 0 and not (stack[-1].is_map and not stack[-1].key_pending):
            stack.pop()
        if not stack:
            return lines, pos


def _need(data: bytes | bytearray | memoryview, pos: int, size: int, base: int) -> None:
    if pos + size > len(data):
        raise Incomplete(base + pos, pos + size - len(data))


def _read_lead(data: bytes | bytearray | memoryview, pos: int, base: int) -> _Value:
    _need(data, pos, 1, base)
    lead = data[pos]
    if lead <= 0x7f:
        return _Value("fixint", str(lead), pos + 1)
    if lead >= 0xe0:
        return _Value("fixint", str(lead - 0x100), pos + 1)
    if lead <= 0x8f:
        return _Value(f"fixmap({lead & 0x0f})", "", pos + 1, lead & 0x0f, True)
    if lead <= 0x9f:
        return _Value(f"fixarray({lead & 0x0f})", "", pos + 1, lead & 0x0f)
    if lead <= 0xbf:
        return _sized_payload(data, "fixstr", pos, 1, lead & 0x1f, base)
    if lead == 0xc0:
        return _Value("nil", "", pos + 1)
    if lead in (0xc2, 0xc3):
        return _Value("bool", "true" if lead == 0xc3 else "false", pos + 1)
    if lead in _FIXED:
        name, size, layout = _FIXED[lead]
        _need(data, pos, 1 + size, base)
        number = struct.unpack_from(layout, data, pos + 1)[0]
        if lead in (0xca, 0xcb):
            return _Value(name, _float_text(data, pos, size, number), pos + 1 + size)
        return _Value(name, str(number), pos + 1 + size)
    if lead in _FIXEXT:
        return _ext(data, f"fixext{_FIXEXT[lead]}", pos, 1, _FIXEXT[lead], base)
    if lead in _SIZED:
        name, width = _SIZED[lead]
        _need(data, pos, 1 + width, base)
        length = int.from_bytes(data[pos + 1:pos + 1 + width], "big")
        if name.startswith(("array", "map")):
            return _Value(f"{name}({length})", "", pos + 1 + width, length, name.startswith("map"))
        if name.startswith("ext"):
            return _ext(data, f"{name}({length})", pos, 1 + width, length, base)
        return _sized_payload(data, name, pos, 1 + width, length, base)
    raise DecodeError("0xc1 is never used in msgpack", "$", base + pos)


def _float_text(data: bytes | bytearray | memoryview, pos: int, size: int, number: float) -> str:
    if math.isnan(number):
        return f"nan (bits {bytes(data[pos + 1:pos + 1 + size]).hex()})"
    return repr(number)


def _sized_payload(data: bytes | bytearray | memoryview, name: str, pos: int, header: int, length: int,
                   base: int) -> _Value:
    _need(data, pos, header + length, base)
    payload = bytes(data[pos + header:pos + header + length])
    end = pos + header + length
    if "bin" in name:
        shown = payload[:SHOWN_BIN].hex()
        return _Value(f"{name}({length})", shown + ("..." if length > SHOWN_BIN else ""), end)
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return _Value(f"{name}({length})", f"invalid UTF-8 {payload[:SHOWN_BIN].hex()}", end)
    shown = json.dumps(text[:SHOWN_STR], ensure_ascii=False)
    return _Value(f"{name}({length})", shown + ("..." if len(text) > SHOWN_STR else ""), end)


def _ext(data: bytes | bytearray | memoryview, wire: str, pos: int, header: int, length: int,
         base: int) -> _Value:
    _need(data, pos, header + 1 + length, base)
    code = struct.unpack_from(">b", data, pos + header)[0]
    payload = bytes(data[pos + header + 1:pos + header + 1 + length])
    end = pos + header + 1 + length
    return _Value(f"{wire} type {code}:", _ext_meaning(code, payload), end)


def _ext_meaning(code: int, payload: bytes) -> str:
    """What ZebraPack makes of an ext: time (5; the spec's -1), complex (3, 4), else its bytes."""
    if code == 5 and len(payload) == 12:
        seconds, nanos = struct.unpack(">qi", payload)      # Go reads the nanoseconds as an int32
        return f"time {_time_text(seconds, nanos)}"
    if code == -1 and len(payload) in (4, 8, 12):
        if len(payload) == 4:
            seconds, nanos = struct.unpack(">I", payload)[0], 0
        elif len(payload) == 8:
            packed = struct.unpack(">Q", payload)[0]
            seconds, nanos = packed & 0x3FFFFFFFF, packed >> 34
        else:
            nanos, seconds = struct.unpack(">Iq", payload)
        return f"timestamp {_time_text(seconds, nanos)}"
    if code == 3 and len(payload) == 8:
        return f"complex64 {complex(*struct.unpack('>ff', payload))!r}"
    if code == 4 and len(payload) == 16:
        return f"complex128 {complex(*struct.unpack('>dd', payload))!r}"
    shown = payload[:SHOWN_BIN].hex()
    return shown + ("..." if len(payload) > SHOWN_BIN else "") if payload else "(empty)"


def _time_text(seconds: int, nanos: int) -> str:
    """RFC 3339 UTC, with ISO 8601's signed years beyond 0000-9999 (GoTime.isoformat)."""
    seconds, nanos = seconds + nanos // 1_000_000_000, nanos % 1_000_000_000
    try:
        return GoTime(seconds, nanos).isoformat()
    except ValueError:
        return f"{seconds}s {nanos}ns from the Unix epoch (beyond int64 seconds)"


def iter_raw_records(source: Readable, *, chunk_size: int = 1 << 16,
                     max_record_size: int = 1 << 28) -> Iterator[tuple[int, int, list[str]]]:
    """(offset, size, lines) of each object of a binary stream, read chunk by chunk.

    Memory holds one object plus a chunk; an object larger than
    ``max_record_size`` is a ``DecodeError``, one cut short by the end of the input a
    ``TornTailError`` at its offset. Reads of ``chunk_size`` take what has arrived
    (``source`` as ``zebrapack dump`` gives it); an object is described again from its
    start after each read.
    """
    buffer = bytearray()
    offset = 0          # stream offset of buffer[0]
    at_end = False
    wanted = chunk_size
    while True:
        if buffer:
            try:
                lines, end = describe(buffer, 0, offset)
            except Incomplete as incomplete:
                if at_end:      # a torn tail: the input ends inside the object at offset
                    raise TornTailError(f"torn tail: the input ends inside the object that starts here "
                                        f"({len(buffer)} byte{'' if len(buffer) == 1 else 's'} of it there; "
                                        f"{incomplete.needed} more needed at {incomplete.offset})", "$",
                                        offset) from None
                if len(buffer) > max_record_size:
                    raise DecodeError(f"record larger than max_record_size={max_record_size}", "$", offset) from None
                # The bytes the value cut short needs (a read that waits for them never waits
                # past the object), or what has arrived: describing starts over at each read.
                wanted = max(chunk_size, incomplete.offset + incomplete.needed - offset - len(buffer))
            else:
                yield offset, end, lines
                del buffer[:end]
                offset += end
                wanted = chunk_size
                continue
        elif at_end:
            return
        chunk = source.read(wanted)
        if chunk:
            buffer += chunk
        else:
            at_end = True
