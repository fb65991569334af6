"""The ``random`` family: record types drawn at random (seeded), so that the benchmark
measures shapes nobody tuned the core on.

Each record has 2 to 9 fields; a field is a scalar of ten Go types (``int64``,
``int32``, ``uint64``, ``uint8``, ``float64``, ``float32``, ``string``, ``[]byte``,
``bool``, ``time.Time``) or, less often, a pointer, a slice, a ``map[string]`` or a
``map[int64]`` of one, an ``interface{}``, or a nested record drawn the same way (three
levels at most). Values are drawn per field: integers of every width, short words,
sentences, Latin-1 and CJK text, blobs, times, containers of 0 to 50 items, interface
values of every kind. The types and values depend only on the seed, the family's
``SEED`` unless ``--size seed=N`` is given (``bench_family random --size seed=7``,
``instructions random --size seed=7``): a run can be repeated, and another seed gives
other shapes.
"""

from __future__ import annotations

import random
import struct as _struct
from collections.abc import Callable
from dataclasses import field, make_dataclass
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, Optional

import msgspec

import zebrapack

from ._shapes import EPOCH, SEED, WORDS, Shape, generated_schema

#: Records the family holds (each a row, both directions).
RECORDS = 12
SCALARS: tuple[Any, ...] = (int, zebrapack.int32, zebrapack.uint64, zebrapack.uint8, float, zebrapack.float32,
                            str, bytes, bool, datetime)
_LATIN1 = "abcdefghijklmnopqrstuvwxyz éèàçôüß"
_CJK = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 120))

#: A field's type: ("scalar", T), ("pointer", inner), ("list", inner), ("str map", inner),
#: ("int map", inner), ("any",) or ("record", RecordSpec).
FieldType = tuple[Any, ...]


class RecordSpec:
    """A drawn record type: its dataclass and its fields' names and types."""

    def __init__(self, cls: type, fields: list[tuple[str, FieldType]]) -> None:
        self.cls = cls
        self.fields = fields


class _Drawer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[RecordSpec] = []

    def field_type(self, depth: int) -> FieldType:
        roll = self.rng.random()
        if depth > 2 or roll < 0.55:
            return ("scalar", self.rng.choice(SCALARS))
        if roll < 0.66:
            return ("pointer", ("scalar", self.rng.choice(SCALARS)))
        if roll < 0.80:
            return ("list", self.field_type(depth + 1))
        if roll < 0.87:
            return ("str map", self.field_type(depth + 1))
        if roll < 0.90:
            return ("int map", ("scalar", self.rng.choice((str, int, float))))
        if roll < 0.94:
            return ("any",)
        return ("record", self.record(depth + 1))

    def record(self, depth: int) -> RecordSpec:
        fields = [(f"F{i}", self.field_type(depth)) for i in range(self.rng.randrange(2, 10))]
        name = f"Random{len(self.records)}"
        cls = make_dataclass(name, [(f, _annotation(t), field(default=None, metadata={"zid": i}))
                                    for i, (f, t) in enumerate(fields)], slots=True)
        cls.__module__ = __name__
        spec = RecordSpec(cls, fields)
        self.records.append(spec)
        return spec


def _annotation(t: FieldType) -> Any:
    kind = t[0]
    if kind == "scalar":
        return t[1]
    if kind == "pointer":
        return Optional[_annotation(t[1])]
    if kind == "list":
        return list[_annotation(t[1])]  # type: ignore[misc]
    if kind == "str map":
        return dict[str, _annotation(t[1])]  # type: ignore[misc]
    if kind == "int map":
        return dict[int, _annotation(t[1])]  # type: ignore[misc]
    if kind == "any":
        return Any
    return t[1].cls


def _scalar(t: Any, rng: random.Random) -> Any:
    if t is int:
        return rng.choice((rng.randrange(-100, 100), rng.randrange(-(1 << 40), 1 << 40),
                           rng.randrange(-(1 << 63), 1 << 63)))
    if t is zebrapack.int32:
        return rng.randrange(-(1 << 31), 1 << 31)
    if t is zebrapack.uint64:
        return rng.choice((rng.randrange(200), rng.randrange(1 << 64)))
    if t is zebrapack.uint8:
        return rng.randrange(256)
    if t is float:
        return rng.uniform(-1e6, 1e6)
    if t is zebrapack.float32:
        return float(_struct.unpack("<f", _struct.pack("<f", rng.uniform(-1e3, 1e3)))[0])
    if t is str:
        return rng.choice((rng.choice(WORDS), " ".join(rng.choices(WORDS, k=rng.randrange(2, 30))),
                           "".join(rng.choices(_LATIN1, k=30)), "".join(rng.choices(_CJK, k=10))))
    if t is bytes:
        return rng.randbytes(rng.choice((4, 16, 100)))
    if t is bool:
        return rng.random() < 0.5
    if t is datetime:
        return EPOCH + timedelta(seconds=rng.randrange(1 << 31), microseconds=rng.randrange(10**6))
    raise AssertionError(t)


def _any(rng: random.Random) -> Any:
    return rng.choice((rng.randrange(1000), rng.uniform(0, 1), rng.choice(WORDS), [1, "a", 2.5, None],
                       {"a": 1, "b": [True, None], "c": {"d": "e"}}))


def _value(t: FieldType, ns: SimpleNamespace, rng: random.Random, depth: int) -> Any:
    kind = t[0]
    if kind == "scalar":
        return _scalar(t[1], rng)
    if kind == "pointer":
        return None if rng.random() < 0.4 else _value(t[1], ns, rng, depth)
    if kind == "any":
        return _any(rng)
    if kind == "record":
        return _record(t[1], ns, rng, depth + 1)
    n = rng.choice((0, 1, 3, 10, 50)) if depth < 2 else rng.choice((0, 2))
    if kind == "list":
        return [_value(t[1], ns, rng, depth + 1) for _ in range(n)]
    if kind == "str map":
        return {f"{rng.choice(WORDS)}{i}": _value(t[1], ns, rng, depth + 1) for i in range(n)}
    return {rng.randrange(-(1 << 40), 1 << 40): _value(t[1], ns, rng, depth + 1) for _ in range(n)}


def _record(spec: RecordSpec, ns: SimpleNamespace, rng: random.Random, depth: int = 0) -> Any:
    return getattr(ns, spec.cls.__name__)(**{name: _value(t, ns, rng, depth) for name, t in spec.fields})


def _describe(spec: RecordSpec) -> str:
    def text(t: FieldType) -> str:
        kind = t[0]
        if kind == "scalar":
            return {int: "int64", zebrapack.int32: "int32", zebrapack.uint64: "uint64", zebrapack.uint8: "uint8",
                    float: "float64", zebrapack.float32: "float32", str: "string", bytes: "[]byte", bool: "bool",
                    datetime: "time.Time"}[t[1]]
        if kind == "pointer":
            return "*" + text(t[1])
        if kind == "list":
            return "[]" + text(t[1])
        if kind == "str map":
            return "map[string]" + text(t[1])
        if kind == "int map":
            return "map[int64]" + text(t[1])
        if kind == "any":
            return "interface{}"
        return f"{t[1].cls.__name__}{{{', '.join(text(f) for _, f in t[1].fields)}}}"
    return ", ".join(text(t) for _, t in spec.fields)


def random_shapes(seed: int = SEED, count: int = RECORDS,
                  struct_twin: Callable[[type, dict[type, type]], type] | None = None) -> list[Shape]:
    """``count`` drawn record types, each a shape with its seeded value in the three class
    families (``struct_twin`` makes the msgspec.Struct twins: ``_family.struct_twin``)."""
    assert struct_twin is not None
    rng = random.Random(seed)
    drawer = _Drawer(rng)
    tops = [drawer.record(0) for _ in range(count)]
    classes = tuple(spec.cls for spec in drawer.records)
    schema = generated_schema(classes, package="random")
    twins: dict[type, type] = {}
    families = (SimpleNamespace(**{cls.__name__: schema.types[cls.__name__] for cls in classes}),
                SimpleNamespace(**{cls.__name__: cls for cls in classes}),
                SimpleNamespace(**{cls.__name__: struct_twin(cls, twins) for cls in classes}))
    shapes = []
    for number, spec in enumerate(tops, 1):
        value_seed = rng.randrange(1 << 30)
        generated, plain, twin = (_record(spec, ns, random.Random(value_seed)) for ns in families)
        shapes.append(Shape(f"random {number}", _describe(spec), schema, generated, plain, twin,
                            lambda d, cls=spec.cls: msgspec.convert(d, cls), families=("random",)))
    return shapes
