"""The benchmark family: the eleven record shapes of ``_shapes`` and the broader rows
of issue 26, by the general path each one stresses.

Families (a row may belong to several; ``records`` is the eleven):

- ``strings``: one ``str`` of 16 B, 1 KB, 10 KB and 1 MB (UTF-8 bytes) in four kinds
  of text, ASCII, Latin-1 (accented letters: one byte per character in CPython, two
  in UTF-8), CJK (two bytes per character in CPython, three in UTF-8) and emoji
  among ASCII (four and four); lists of n 16-byte strings of each kind; and ASCII of
  1 KB and 10 KB with one Latin-1 letter at three quarters of it;
- ``ints``: lists of n ``int64`` in each width band of the wire (positive and
  negative fixint, 8, 16, 32 and 64 bits of magnitude with either sign), the full
  ``int64`` and ``uint64`` ranges, and the full ``int32`` and ``uint32`` ranges;
- ``floats``: n ``float32``, 100 n ``float64`` (the output buffer grows);
- ``bytes``: one ``[]byte`` of 16 B, 1 KB, 100 KB and 1 MB, n blobs of 16 B, a
  10 KB ASCII ``str`` beside a 100 KB ``[]byte``;
- ``times``: n ``time.Time`` in a list, n records holding one;
- ``any``: ``interface{}`` payloads of about 2 KB of msgpack, number-heavy,
  string-heavy, nested-map-heavy, list-heavy, 64 levels deep, scalars of every
  kind, and a 64 KB JSON-like one (the eleven's JSON-like 2 KB is in it too);
- ``maps``: n entries of ``map[int64]int64``, ``map[int64]string``, ``map[int32]string``;
  n/10 of ``map[string][]int64`` (five small ints each);
- ``optional``: n ``*int64`` in a list and n/10 records of six pointer fields, each
  90% nil and 90% set;
- ``bools``: n ``bool`` and n ``*bool`` (half nil) in a list;
- ``small``: small records that hold containers, where the cost of a record and of a
  container is most of the work: one short ``[]string``, a name and two tags, an id and
  a two-entry ``map[string]int64``, an id and a nested struct, three lists of two, three
  labels and a count;
- ``random``: twelve record types drawn at random, seeded (``_random_shapes``): fields of
  ten scalar Go types, pointers, slices, maps, ``interface{}`` and nested records.

Every row is one record type, a slots dataclass with zids written once here: its
``msgspec.Struct`` twin is derived from it (``struct_twin``), msgspec's dataclass
mode decodes into it, and zebrapack uses the class generated from its schema (as
for the eleven). Values are seeded (``_shapes.SEED``) and equal for every library.
Where msgspec has no exact Go type (``float32``, the narrow and unsigned integers,
``time.Time``), the row's ``note`` says what msgspec holds instead: its nearest
type, which is never slower than the exact one would be.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import struct
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, Optional

import msgpack
import msgspec

import zebrapack

from ._random_shapes import random_shapes
from ._shapes import EPOCH, SEED, WORDS, Shape, build_shapes, generated_schema, json_like

FAMILIES = ("records", "strings", "ints", "floats", "bytes", "times", "any", "maps", "optional", "bools", "small",
            "random")


# -- the record types ------------------------------------------------------------------

def _zid(n: int, **kwargs: Any) -> Any:
    return field(metadata={"zid": n}, **kwargs)


@dataclass(slots=True)
class Str:
    V: str = _zid(0, default="")


@dataclass(slots=True)
class Strs:
    V: list[str] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Blob:
    V: bytes = _zid(0, default=b"")


@dataclass(slots=True)
class Blobs:
    V: list[bytes] = _zid(0, default_factory=list)


@dataclass(slots=True)
class StrBlob:
    S: str = _zid(0, default="")
    B: bytes = _zid(1, default=b"")


@dataclass(slots=True)
class I64s:
    V: list[int] = _zid(0, default_factory=list)


@dataclass(slots=True)
class U64s:
    V: list[zebrapack.uint64] = _zid(0, default_factory=list)


@dataclass(slots=True)
class I32s:
    V: list[zebrapack.int32] = _zid(0, default_factory=list)


@dataclass(slots=True)
class U32s:
    V: list[zebrapack.uint32] = _zid(0, default_factory=list)


@dataclass(slots=True)
class F32s:
    V: list[zebrapack.float32] = _zid(0, default_factory=list)


@dataclass(slots=True)
class F64s:
    V: list[float] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Times:
    V: list[datetime] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Event:
    At: Optional[datetime] = _zid(0, default=None)
    Seq: int = _zid(1, default=0)


@dataclass(slots=True)
class Events:
    V: list[Event] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Payload:
    V: Any = _zid(0, default=None)


@dataclass(slots=True)
class IntIntMap:
    V: dict[int, int] = _zid(0, default_factory=dict)


@dataclass(slots=True)
class IntStrMap:
    V: dict[int, str] = _zid(0, default_factory=dict)


@dataclass(slots=True)
class I32StrMap:
    V: dict[zebrapack.int32, str] = _zid(0, default_factory=dict)


@dataclass(slots=True)
class StrIntsMap:
    V: dict[str, list[int]] = _zid(0, default_factory=dict)


@dataclass(slots=True)
class OptInts:
    V: list[Optional[int]] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Point:
    X: int = _zid(0, default=0)
    Y: int = _zid(1, default=0)


@dataclass(slots=True)
class Opt:
    I: Optional[int] = _zid(0, default=None)
    F: Optional[float] = _zid(1, default=None)
    S: Optional[str] = _zid(2, default=None)
    B: Optional[bool] = _zid(3, default=None)
    P: Optional[Point] = _zid(4, default=None)
    U: Optional[zebrapack.uint32] = _zid(5, default=None)


@dataclass(slots=True)
class Opts:
    V: list[Opt] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Bools:
    V: list[bool] = _zid(0, default_factory=list)


@dataclass(slots=True)
class OptBools:
    V: list[Optional[bool]] = _zid(0, default_factory=list)


@dataclass(slots=True)
class Tagged:
    Name: str = _zid(0, default="")
    Tags: list[str] = _zid(1, default_factory=list)


@dataclass(slots=True)
class Counted:
    ID: int = _zid(0, default=0)
    Counts: dict[str, int] = _zid(1, default_factory=dict)


@dataclass(slots=True)
class Located:
    ID: int = _zid(0, default=0)
    At: Point = _zid(1, default_factory=Point)


@dataclass(slots=True)
class ThreeLists:
    A: list[int] = _zid(0, default_factory=list)
    B: list[str] = _zid(1, default_factory=list)
    C: list[float] = _zid(2, default_factory=list)


@dataclass(slots=True)
class Labeled:
    Labels: dict[str, str] = _zid(0, default_factory=dict)
    Count: int = _zid(1, default=0)


DATACLASSES = (Str, Strs, Blob, Blobs, StrBlob, I64s, U64s, I32s, U32s, F32s, F64s, Times, Event, Events,
               Payload, IntIntMap, IntStrMap, I32StrMap, StrIntsMap, OptInts, Point, Opt, Opts, Bools, OptBools, Tagged,
               Counted, Located, ThreeLists, Labeled)
#: Records whose fields can be at their zero: their Struct twin leaves defaults out, as
#: zebrapack leaves out empty fields (elsewhere both write every field).
_OMIT_DEFAULTS = frozenset({Opt})


def struct_twin(cls: type, twins: dict[type, type]) -> type:
    """The ``msgspec.Struct`` with the dataclass's fields, annotations and defaults
    (nested dataclasses replaced by their twins; ``twins`` caches them)."""
    if cls not in twins:
        hints = typing.get_type_hints(cls, include_extras=True)
        fields = []
        for f in dataclasses.fields(cls):
            default = (f.default if f.default_factory is dataclasses.MISSING
                       else msgspec.field(default_factory=f.default_factory))
            fields.append((f.name, _twin_annotation(hints[f.name], twins), default))
        twins[cls] = msgspec.defstruct(cls.__name__, fields, omit_defaults=cls in _OMIT_DEFAULTS,
                                       module=__name__)
    return twins[cls]


def _twin_annotation(annotation: Any, twins: dict[type, type]) -> Any:
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return struct_twin(annotation, twins)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return list[_twin_annotation(args[0], twins)]  # type: ignore[misc]
    if origin is dict:
        return dict[_twin_annotation(args[0], twins), _twin_annotation(args[1], twins)]  # type: ignore[misc]
    if origin is typing.Union:
        return typing.Union[tuple(_twin_annotation(arg, twins) for arg in args)]
    return annotation       # scalars, Annotated Go widths (msgspec ignores the mark), Any


# -- seeded values -----------------------------------------------------------------

_ACCENTED = "éèêàâçôûùüëïöäßñÉÀÇ"
#: The characters of each kind of text (weights by repetition).
_ALPHABETS = {
    "ascii": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      .,;-",
    "latin1": "abcdefghijklmnopqrstuvwxyz      .," + _ACCENTED,
    "cjk": "".join(chr(c) for c in range(0x4E00, 0x4E00 + 160)) + "，。 ",
    "emoji": "abcdefghijklmnopqrstuvwxyz    " + "".join(chr(c) for c in range(0x1F600, 0x1F640)),
}
_SIZES = {"16B": 16, "1KB": 1 << 10, "10KB": 10 << 10, "1MB": 1 << 20}


def text(rng: random.Random, kind: str, size: int) -> str:
    """Seeded text of one kind, ``size`` bytes of UTF-8 at most (a whole character less)."""
    while True:     # seeded: the same draws every run; a non-ASCII kind gets a non-ASCII character
        chunk = "".join(rng.choices(_ALPHABETS[kind], k=min(size, 4096)))
        whole = chunk * (size // len(chunk.encode()) + 1)
        value = whole.encode()[:size].decode("utf-8", "ignore")
        if value.isascii() == (kind == "ascii"):
            return value


def mostly_ascii(rng: random.Random, size: int) -> str:
    """Seeded ASCII text of ``size - 1`` characters, one of them, at three quarters of it, a
    Latin-1 letter (two bytes of UTF-8): ``size`` bytes."""
    chars = list(text(rng, "ascii", size - 1))
    chars[len(chars) * 3 // 4] = rng.choice(_ACCENTED)
    return "".join(chars)


def _f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (so that every library holds the same value)."""
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def _signed(rng: random.Random, low_bits: int, high_bits: int) -> int:
    """A magnitude in [2**low_bits, 2**high_bits), either sign."""
    value = rng.randrange(1 << low_bits, 1 << high_bits)
    return -value if rng.random() < 0.5 else value


def _time(rng: random.Random) -> datetime:
    return EPOCH + timedelta(seconds=rng.randrange(0, 4_000_000_000), microseconds=rng.randrange(1_000_000))


def _until(size: int, add: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A str-keyed map grown by ``add`` until it takes ``size`` bytes of msgpack."""
    body: dict[str, Any] = {}
    while len(msgpack.packb(body, datetime=True)) < size:
        add(body)
    return body


def _number_heavy(rng: random.Random) -> dict[str, Any]:
    def add(body: dict[str, Any]) -> None:
        body[f"series{len(body)}"] = [rng.choice((rng.randrange(-100, 100), _signed(rng, 7, 31),
                                                  _signed(rng, 31, 62), rng.uniform(-1e6, 1e6)))
                                      for _ in range(16)]
    return _until(2000, add)


def _string_heavy(rng: random.Random) -> dict[str, Any]:
    def add(body: dict[str, Any]) -> None:
        key = f"{rng.choice(WORDS)}{len(body)}"
        body[key] = (" ".join(rng.choices(WORDS, k=rng.randrange(1, 6))) if rng.random() < 0.7
                     else [text(rng, rng.choice(("ascii", "latin1")), rng.randrange(4, 40)) for _ in range(3)])
    return _until(2000, add)


def _map_heavy(rng: random.Random) -> dict[str, Any]:
    def inner(depth: int) -> dict[str, Any]:
        if depth == 0:
            return {rng.choice(WORDS): rng.randrange(1000), "ok": rng.random() < 0.5}
        return {f"{rng.choice(WORDS)}{i}": inner(depth - 1) for i in range(rng.randrange(2, 4))}

    def add(body: dict[str, Any]) -> None:
        body[f"m{len(body)}"] = inner(2)
    return _until(2000, add)


def _list_heavy(rng: random.Random) -> dict[str, Any]:
    def add(body: dict[str, Any]) -> None:
        body[f"l{len(body)}"] = [[rng.randrange(-50, 50), round(rng.uniform(0, 10), 2), rng.choice(WORDS)]
                                 for _ in range(rng.randrange(3, 8))]
    return _until(2000, add)


def _deep(rng: random.Random, depth: int = 64) -> Any:
    """Maps and lists nested ``depth`` levels, a scalar or two at each level."""
    value: Any = rng.choice(WORDS)
    for level in range(depth):
        value = ({"level": level, "next": value} if level % 2 else [level, rng.choice(WORDS), value])
    return value


def _scalars(rng: random.Random) -> list[Any]:
    """Scalars of every kind an interface{} holds: ints, floats, str, bytes, bool, nil, time."""
    makers = (lambda: rng.randrange(-(1 << 40), 1 << 40), lambda: rng.uniform(-1e9, 1e9),
              lambda: rng.choice(WORDS), lambda: rng.randbytes(rng.randrange(1, 24)),
              lambda: rng.random() < 0.5, lambda: None, lambda: _time(rng))
    return [rng.choice(makers)() for _ in range(160)]


def _json_like(rng: random.Random, size: int) -> dict[str, Any]:
    def add(body: dict[str, Any]) -> None:
        body[f"item{len(body)}"] = json_like(rng, 1)
    return _until(size, add)


def _opt(ns: SimpleNamespace, rng: random.Random, set_share: float) -> Any:
    def maybe(make: Callable[[], Any]) -> Any:
        return make() if rng.random() < set_share else None
    return ns.Opt(I=maybe(lambda: _signed(rng, 0, 40)), F=maybe(lambda: rng.uniform(-1e3, 1e3)),
                  S=maybe(lambda: rng.choice(WORDS)), B=maybe(lambda: rng.random() < 0.5),
                  P=maybe(lambda: ns.Point(X=rng.randrange(1, 1000), Y=-rng.randrange(1, 1000))),
                  U=maybe(lambda: rng.randrange(1 << 32)))


# -- the rows ----------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One row of the family before it is built: its record type and how to fill it."""
    name: str
    families: tuple[str, ...]
    description: str
    record: type
    #: the record in one class family (dataclasses, generated classes or Struct twins)
    make: Callable[[SimpleNamespace, random.Random], Any]
    #: the msgpack-python path: unpackb's dict -> the dataclass
    build_plain: Callable[[Any], Any]
    note: str = ""


def _single(name: str, families: str, description: str, record: type, value: Callable[[random.Random], Any],
            note: str = "") -> Row:
    """A row whose record holds its value in field ``V`` (the value itself is shared by the
    three class families: the same object, built once)."""
    cache: list[Any] = []

    def make(ns: SimpleNamespace, rng: random.Random) -> Any:
        if not cache:
            cache.append(value(rng))
        return getattr(ns, record.__name__)(V=cache[0])
    return Row(name, tuple(families.split()), description, record, make, lambda d: record(**d), note)


def rows(sizes: dict[str, int] | None = None) -> list[Row]:
    """The new rows (the eleven come from ``_shapes.build_shapes``); ``sizes["n"]``: list
    and map length (default 1000)."""
    n = {"n": 1000, **(sizes or {})}["n"]
    table: list[Row] = []
    for kind, label in (("ascii", "ASCII"), ("latin1", "Latin-1"), ("cjk", "CJK"), ("emoji", "emoji")):
        for size_name, size in _SIZES.items():
            table.append(_single(f"str {kind} {size_name}", "strings", f"one {label} str of {size_name}", Str,
                                 lambda rng, kind=kind, size=size: text(rng, kind, size)))
        table.append(_single(f"{n} x str {kind} 16B", "strings", f"list of {n} {label} str of 16 B", Strs,
                             lambda rng, kind=kind: [text(rng, kind, 16) for _ in range(n)]))
    for size_name in ("1KB", "10KB"):
        table.append(_single(f"str mostly ASCII {size_name}", "strings",
                             f"one ASCII str of {size_name} with one Latin-1 letter at three quarters", Str,
                             functools.partial(mostly_ascii, size=_SIZES[size_name])))

    bands: list[tuple[str, str, Callable[[random.Random], int]]] = [
        ("fixint", "in [0, 128): positive fixint", lambda rng: rng.randrange(128)),
        ("negative fixint", "in [-32, 0): negative fixint", lambda rng: -rng.randrange(1, 33)),
        ("8-bit", "magnitude in [2^7, 2^8), either sign", lambda rng: _signed(rng, 7, 8)),
        ("16-bit", "magnitude in [2^8, 2^16), either sign", lambda rng: _signed(rng, 8, 16)),
        ("32-bit", "magnitude in [2^16, 2^32), either sign", lambda rng: _signed(rng, 16, 32)),
        ("64-bit", "magnitude in [2^32, 2^63), either sign", lambda rng: _signed(rng, 32, 63)),
        ("full range", "uniform over the whole int64 range", lambda rng: rng.randrange(-(1 << 63), 1 << 63)),
    ]
    for band, description, draw in bands:
        table.append(_single(f"{n} int64 {band}", "ints", f"list of {n} int64 {description}", I64s,
                             lambda rng, draw=draw: [draw(rng) for _ in range(n)]))
    table += [
        _single(f"{n} uint64 full range", "ints", f"list of {n} uint64 uniform over [0, 2^64)", U64s,
                lambda rng: [rng.randrange(1 << 64) for _ in range(n)], "msgspec: list[int]"),
        _single(f"{n} int32 full range", "ints", f"list of {n} int32 uniform over the int32 range", I32s,
                lambda rng: [rng.randrange(-(1 << 31), 1 << 31) for _ in range(n)], "msgspec: list[int]"),
        _single(f"{n} uint32 full range", "ints", f"list of {n} uint32 uniform over [0, 2^32)", U32s,
                lambda rng: [rng.randrange(1 << 32) for _ in range(n)], "msgspec: list[int]"),
        _single(f"{n} float32", "floats", f"list of {n} float32 (values exact in float32)", F32s,
                lambda rng: [_f32(rng.uniform(-1e6, 1e6)) for _ in range(n)],
                "msgspec: list[float], 9 bytes a value where zebrapack writes 5"),
        _single(f"{100 * n} float64", "floats", f"list of {100 * n} float64 (the output buffer grows)", F64s,
                lambda rng: [rng.uniform(-1e9, 1e9) for _ in range(100 * n)]),
    ]
    for size_name, size in (("16B", 16), ("1KB", 1 << 10), ("100KB", 100 << 10), ("1MB", 1 << 20)):
        table.append(_single(f"bytes {size_name}", "bytes", f"one []byte of {size_name}", Blob,
                             lambda rng, size=size: rng.randbytes(size)))
    table += [
        _single(f"{n} x bytes 16B", "bytes", f"list of {n} []byte of 16 B", Blobs,
                lambda rng: [rng.randbytes(16) for _ in range(n)]),
        Row("str 10KB + bytes 100KB", ("bytes", "strings"), "a 10 KB ASCII str and a 100 KB []byte", StrBlob,
            lambda ns, rng: ns.StrBlob(S=text(rng, "ascii", 10 << 10), B=rng.randbytes(100 << 10)),
            lambda d: StrBlob(**d)),
        _single(f"{n} times", "times", f"list of {n} time.Time (UTC, microseconds)", Times,
                lambda rng: [_time(rng) for _ in range(n)],
                "msgspec: list[datetime] as the msgpack timestamp (ext -1); zebrapack writes Go's ext 5"),
        Row(f"{n} x Event", ("times",), f"list of {n} records of a time.Time and an int64", Events,
            lambda ns, rng: ns.Events(V=[ns.Event(At=_time(rng), Seq=i + 1) for i in range(n)]),
            lambda d: Events(V=[Event(**x) for x in d["V"]]),
            "msgspec: datetime as the msgpack timestamp (ext -1); zebrapack writes Go's ext 5"),
    ]
    payloads: list[tuple[str, str, Callable[[random.Random], Any]]] = [
        ("numbers", "lists of ints of every width and floats", _number_heavy),
        ("strings", "strings and lists of strings (some Latin-1)", _string_heavy),
        ("nested maps", "maps of maps of maps, small leaves", _map_heavy),
        ("lists", "lists of short lists of int, float, str", _list_heavy),
        ("deep", "maps and lists nested 64 levels", _deep),
        ("scalars", "160 scalars of every kind: int, float, str, bytes, bool, nil, time", _scalars),
        ("JSON-like 64KB", "JSON-like maps and lists, as the eleven's 2 KB one, 64 KB",
         lambda rng: _json_like(rng, 64 << 10)),
    ]
    for label, description, payload in payloads:
        note = "msgspec: times as the msgpack timestamp (ext -1)" if label == "scalars" else ""
        table.append(_single(f"interface{{}} {label}", "any", f"interface{{}} holding {description}", Payload,
                             payload, note))
    keys = max(1, n // 10)
    table += [
        _single(f"map[int64]int64 x {n}", "maps", f"map[int64]int64 of {n} entries, keys of every width",
                IntIntMap, lambda rng: {_signed(rng, 0, 62): _signed(rng, 0, 40) for _ in range(n)}),
        _single(f"map[int64]string x {n}", "maps", f"map[int64]string of {n} entries", IntStrMap,
                lambda rng: {_signed(rng, 0, 62): rng.choice(WORDS) for _ in range(n)}),
        _single(f"map[int32]string x {n}", "maps", f"map[int32]string of {n} entries", I32StrMap,
                lambda rng: {rng.randrange(-(1 << 31), 1 << 31): rng.choice(WORDS) for _ in range(n)},
                "msgspec: dict[int, str]"),
        _single(f"map[string][]int64 x {keys}", "maps",
                f"map[string][]int64 of {keys} entries, keys k0, k1, ..., each a list of 5 small ints", StrIntsMap,
                lambda rng: {f"k{i}": [rng.randrange(128) for _ in range(5)] for i in range(keys)}),
    ]
    for share, label in ((0.1, "90% nil"), (0.9, "90% set")):
        table.append(_single(f"{n} *int64 {label}", "optional", f"list of {n} *int64, {label}", OptInts,
                             lambda rng, share=share: [_signed(rng, 0, 40) if rng.random() < share else None
                                                       for _ in range(n)]))
    records = max(1, n // 10)
    for share, label in ((0.1, "90% nil"), (0.9, "90% set")):
        table.append(Row(f"{records} x Opt {label}", ("optional",),
                         f"list of {records} records of six pointer fields (int64, float64, string, bool, "
                         f"struct, uint32), {label}", Opts,
                         lambda ns, rng, share=share: ns.Opts(V=[_opt(ns, rng, share) for _ in range(records)]),
                         _build_opts, "msgspec: Optional[int] for the *uint32"))
    table += [
        _single(f"{n} bool", "bools", f"list of {n} bool", Bools, lambda rng: [rng.random() < 0.5 for _ in range(n)]),
        _single(f"{n} *bool half nil", "bools", f"list of {n} *bool, half nil", OptBools,
                lambda rng: [rng.random() < 0.5 if rng.random() < 0.5 else None for _ in range(n)]),
        _single("small: one-str list", "small", "a []string of one word", Strs, lambda rng: [rng.choice(WORDS)]),
        Row("small: name + 2 tags", ("small",), "a str and a []string of two words", Tagged,
            lambda ns, rng: ns.Tagged(Name=f"{rng.choice(WORDS)} {rng.choice(WORDS)}",
                                      Tags=[rng.choice(WORDS), rng.choice(WORDS)]),
            lambda d: Tagged(**d)),
        Row("small: id + 2-entry map", ("small",), "an int64 and a map[string]int64 of two entries", Counted,
            lambda ns, rng: ns.Counted(ID=rng.randrange(1 << 20),
                                       Counts={"alpha": rng.randrange(100), "bravo": rng.randrange(100)}),
            lambda d: Counted(**d)),
        Row("small: id + struct", ("small",), "an int64 and a nested struct of two int64", Located,
            lambda ns, rng: ns.Located(ID=rng.randrange(1 << 20), At=ns.Point(X=rng.randrange(1000),
                                                                             Y=-rng.randrange(1, 1000))),
            lambda d: Located(ID=d["ID"], At=Point(**d["At"]))),
        Row("small: 3 lists of 2", ("small",), "a []int64, a []string and a []float64 of two items each",
            ThreeLists, lambda ns, rng: ns.ThreeLists(A=[rng.randrange(1000), -rng.randrange(1000)],
                                                      B=[rng.choice(WORDS), rng.choice(WORDS)],
                                                      C=[rng.uniform(0, 1), rng.uniform(-1, 0)]),
            lambda d: ThreeLists(**d)),
        Row("small: 3 labels + count", ("small",), "a map[string]string of three entries and an int64", Labeled,
            lambda ns, rng: ns.Labeled(Labels={"env": rng.choice(WORDS), "team": rng.choice(WORDS),
                                               "app": rng.choice(WORDS)}, Count=rng.randrange(100)),
            lambda d: Labeled(**d)),
    ]
    return table


def _build_opts(d: dict[str, Any]) -> Opts:
    out = []
    for x in d["V"]:
        if x.get("P") is not None:
            x["P"] = Point(**x["P"])
        out.append(Opt(**x))
    return Opts(V=out)


# -- selecting and building --------------------------------------------------------

def names(sizes: dict[str, int] | None = None) -> list[str]:
    """Every row's name, the eleven first, the drawn ones last."""
    return ([shape.name for shape in build_shapes(sizes)] + [row.name for row in rows(sizes)]
            + [shape.name for shape in random_shapes(_random_seed(sizes), struct_twin=struct_twin)])


def _random_seed(sizes: dict[str, int] | None) -> int:
    """The ``random`` family's seed: ``--size seed=N``, else the family's ``SEED``."""
    return (sizes or {}).get("seed", SEED)


def select(wanted: Iterable[str] = (), sizes: dict[str, int] | None = None) -> list[Shape]:
    """The shapes named in ``wanted``: family names (every row of the family) or row names;
    nothing: every row. Only the rows asked for are built. Raises ``SystemExit`` naming the
    known ones when a name is neither."""
    wanted = list(wanted)
    eleven = build_shapes(sizes)
    new = rows(sizes)
    drawn = random_shapes(_random_seed(sizes), struct_twin=struct_twin)
    known = {shape.name for shape in eleven} | {row.name for row in new} | {shape.name for shape in drawn}
    unknown = [w for w in wanted if w not in known and w not in FAMILIES]
    if unknown:
        raise SystemExit(f"unknown family or row {', '.join(map(repr, unknown))}; families: "
                         f"{', '.join(FAMILIES)}; rows: {', '.join(sorted(known))}")

    def chosen(name: str, families: Sequence[str]) -> bool:
        return not wanted or name in wanted or any(f in wanted for f in families)

    shapes = [shape for shape in eleven if chosen(shape.name, shape.families)]
    picked = [row for row in new if chosen(row.name, row.families)]
    if picked:
        shapes += _build(picked)
    return shapes + [shape for shape in drawn if chosen(shape.name, shape.families)]


def _build(picked: list[Row]) -> list[Shape]:
    schema = generated_schema(DATACLASSES, package="family")
    twins: dict[type, type] = {}
    plain = SimpleNamespace(**{cls.__name__: cls for cls in DATACLASSES})
    generated = SimpleNamespace(**{cls.__name__: schema.types[cls.__name__] for cls in DATACLASSES})
    structs = SimpleNamespace(**{cls.__name__: struct_twin(cls, twins) for cls in DATACLASSES})
    shapes = []
    for row in picked:
        zp_value, plain_value, struct_value = (row.make(ns, random.Random(SEED)) for ns in (generated, plain, structs))
        shapes.append(Shape(row.name, row.description, schema, zp_value, plain_value, struct_value,
                            row.build_plain, families=row.families, note=row.note))
    return shapes
