"""The benchmark records, built the same way for every library.

Two records, seeded so that every run measures the same bytes:

- ``A``: the ZebraPack README's struct (string, time, string, int, float, bool);
- ``Compound``: container-heavy: lists of ints and strings, maps, a nested
  struct, a list of structs, a map of struct pointers, a matrix.

zebrapack uses the generated classes of tests/vectors/schemas/zp.z; msgspec
and msgpack use plain slots dataclasses with the same fields and values.
"""

from __future__ import annotations

import dataclasses
import gc
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import zebrapack

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "tests" / "vectors" / "schemas" / "zp.z"


@dataclass(slots=True)
class PlainA:
    Name: str = ""
    Bday: datetime | None = None
    Phone: str = ""
    Sibs: int = 0
    GPA: float = 0.0
    Friend: bool = False


@dataclass(slots=True)
class PlainInner:
    X: int = 0
    Y: str = ""


@dataclass(slots=True)
class PlainCompound:
    Ints: list[int] = field(default_factory=list)
    Strs: list[str] = field(default_factory=list)
    Arr: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    ByteArr: bytes = bytes(4)
    SMap: dict[str, int] = field(default_factory=dict)
    IMap: dict[int, str] = field(default_factory=dict)
    Nested: PlainInner = field(default_factory=PlainInner)
    Ptr: PlainInner | None = None
    Inners: list[PlainInner] = field(default_factory=list)
    PInners: list[PlainInner | None] = field(default_factory=list)
    MInner: dict[str, PlainInner | None] = field(default_factory=dict)
    Matrix: list[list[int]] = field(default_factory=list)
    Old: int = 0
    Shown: int = 0
    PInt: int | None = None
    Renamed: str = ""
    Anys: list[Any] = field(default_factory=list)
    Times: list[datetime] = field(default_factory=list)


def a_fields() -> dict[str, Any]:
    return dict(Name="Atlanta", Bday=datetime(1990, 12, 20, tzinfo=timezone.utc), Phone="650-555-1212",
                Sibs=3, GPA=3.95, Friend=True)


def compound_fields(inner: Callable[..., Any]) -> dict[str, Any]:
    rng = random.Random(20261122)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    return dict(
        Ints=[rng.randrange(-10**6, 10**6) for _ in range(20)],
        Strs=[rng.choice(words) for _ in range(10)],
        Arr=[rng.random() for _ in range(3)],
        ByteArr=bytes(rng.randrange(256) for _ in range(4)),
        SMap={f"key{i}": rng.randrange(10**9) for i in range(8)},
        IMap={rng.randrange(10**6): rng.choice(words) for _ in range(4)},
        Nested=inner(X=7, Y="nested"),
        Ptr=inner(X=42, Y="pointer"),
        Inners=[inner(X=i, Y=rng.choice(words)) for i in range(8)],
        PInners=[inner(X=i, Y="p") for i in range(4)],
        MInner={w: inner(X=len(w), Y=w) for w in words[:4]},
        Matrix=[[rng.randrange(1000) for _ in range(4)] for _ in range(4)],
        Shown=5,
        PInt=99,
        Renamed="renamed",
        Times=[datetime(2020, 1, 1, tzinfo=timezone.utc), datetime(2021, 6, 30, 12, tzinfo=timezone.utc)],
    )


@dataclass
class Case:
    name: str
    zebrapack_value: Any
    plain_value: Any
    plain_type: type


def cases(schema: zebrapack.Schema) -> list[Case]:
    types = schema.types
    return [
        Case("A", types.A(**a_fields()), PlainA(**a_fields()), PlainA),
        Case("Compound", types.Compound(**compound_fields(types.Inner)),
             PlainCompound(**compound_fields(PlainInner)), PlainCompound),
    ]


def plain_compound_from_dict(d: dict[str, Any]) -> PlainCompound:
    """msgpack's path: build the dataclasses by hand from the unpacked dict."""
    d["Nested"] = PlainInner(**d["Nested"])
    if d["Ptr"] is not None:
        d["Ptr"] = PlainInner(**d["Ptr"])
    d["Inners"] = [PlainInner(**x) for x in d["Inners"]]
    d["PInners"] = [None if x is None else PlainInner(**x) for x in d["PInners"]]
    d["MInner"] = {k: None if v is None else PlainInner(**v) for k, v in d["MInner"].items()}
    return PlainCompound(**d)


def plain_a_from_dict(d: dict[str, Any]) -> PlainA:
    return PlainA(**d)


def as_dict(value: Any) -> Any:
    """msgpack's input: the record as plain dicts and lists."""
    return dataclasses.asdict(value)


def measure(function: Callable[[], Any], *, repeat: int = 7, target_seconds: float = 0.2) -> float:
    """Best-of-``repeat`` nanoseconds per call (timeit's method: the minimum is the least disturbed)."""
    loops = 1
    while True:
        start = time.perf_counter_ns()
        for _ in range(loops):
            function()
        elapsed = time.perf_counter_ns() - start
        if elapsed >= target_seconds * 1e9 / repeat or loops >= 1 << 24:
            break
        loops *= 2
    best = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.perf_counter_ns()
            for _ in range(loops):
                function()
            best.append((time.perf_counter_ns() - start) / loops)
    finally:
        if gc_was_enabled:
            gc.enable()
    return min(best)


def versions() -> str:
    import msgpack
    import msgspec

    return (f"Python {sys.version.split()[0]}, zebrapack {zebrapack.__version__}, "
            f"msgspec {msgspec.__version__}, msgpack {'.'.join(map(str, msgpack.version))}")


def print_table(title: str, rows: list[tuple[str, float, float, float]]) -> None:
    print(title)
    print(f"{'record':<10} {'zebrapack':>12} {'msgspec':>12} {'msgpack':>12} {'zp/msgspec':>11} {'zp/msgpack':>11}")
    for name, zp_ns, msgspec_ns, msgpack_ns in rows:
        print(f"{name:<10} {zp_ns:>9.0f} ns {msgspec_ns:>9.0f} ns {msgpack_ns:>9.0f} ns "
              f"{zp_ns / msgspec_ns:>11.2f} {zp_ns / msgpack_ns:>11.2f}")
    print(versions())
