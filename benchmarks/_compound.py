"""The container-heavy ``Compound`` record of tests/vectors/schemas/zp.z, in the
plain-dataclass and ``msgspec.Struct`` families (zebrapack uses the schema's classes)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any, Optional

import msgspec


@dataclass(slots=True)
class Inner:
    X: int = 0
    Y: str = ""


@dataclass(slots=True)
class Compound:
    Ints: list[int] = field(default_factory=list)
    Strs: list[str] = field(default_factory=list)
    Arr: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    ByteArr: bytes = bytes(4)
    SMap: dict[str, int] = field(default_factory=dict)
    IMap: dict[int, str] = field(default_factory=dict)
    Nested: Inner = field(default_factory=Inner)
    Ptr: Optional[Inner] = None
    Inners: list[Inner] = field(default_factory=list)
    PInners: list[Optional[Inner]] = field(default_factory=list)
    MInner: dict[str, Optional[Inner]] = field(default_factory=dict)
    Matrix: list[list[int]] = field(default_factory=list)
    Old: int = 0
    Shown: int = 0
    PInt: Optional[int] = None
    Renamed: str = ""
    Anys: list[Any] = field(default_factory=list)
    Times: list[datetime] = field(default_factory=list)


class InnerStruct(msgspec.Struct, omit_defaults=True):
    X: int = 0
    Y: str = ""


class CompoundStruct(msgspec.Struct, omit_defaults=True):
    Ints: list[int] = []
    Strs: list[str] = []
    Arr: list[float] = msgspec.field(default_factory=lambda: [0.0, 0.0, 0.0])
    ByteArr: bytes = bytes(4)
    SMap: dict[str, int] = {}
    IMap: dict[int, str] = {}
    Nested: InnerStruct = msgspec.field(default_factory=InnerStruct)
    Ptr: Optional[InnerStruct] = None
    Inners: list[InnerStruct] = []
    PInners: list[Optional[InnerStruct]] = []
    MInner: dict[str, Optional[InnerStruct]] = {}
    Matrix: list[list[int]] = []
    Old: int = 0
    Shown: int = 0
    PInt: Optional[int] = None
    Renamed: str = ""
    Anys: list[Any] = []
    Times: list[datetime] = []


PLAIN = SimpleNamespace(Inner=Inner, Compound=Compound)
STRUCT = SimpleNamespace(Inner=InnerStruct, Compound=CompoundStruct)


def compound_values(ns: SimpleNamespace, rng: random.Random) -> Any:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    inner = ns.Inner
    return ns.Compound(
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
