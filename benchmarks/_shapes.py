"""The benchmark shapes: one logical record per shape, built the same way for every library.

Each shape has a slots dataclass with zids (the class msgspec's dataclass mode and
the msgpack-python path build; its schema comes from ``schema_from_dataclasses``), a
``msgspec.Struct`` twin in ``_structs``, and a seeded builder called once per family,
so every library holds equal values. zebrapack decodes into and encodes from the
classes generated when that schema is loaded as a ``.z`` file (``generated_schema``):
they are what a user of ``zebrapack.load`` gets, and the counterpart of ``Struct``.
``Compound`` is the container-heavy record of tests/vectors/schemas/zp.z: zebrapack
uses the classes generated from that schema (its Go integer widths included).

The Struct twins write the same keys as zebrapack (see ``_structs``).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Optional

import msgpack
import msgspec

import zebrapack
from zebrapack.schema.document import schema_document

from . import _structs
from ._structs import WIDE_FIELDS

ROOT = Path(__file__).resolve().parent.parent
ZP_SCHEMA_PATH = ROOT / "tests" / "vectors" / "schemas" / "zp.z"
SEED = 20261122


@dataclass(slots=True)
class A:
    """The ZebraPack README's record."""
    Name: str = field(default="", metadata={"zid": 0})
    Bday: Optional[datetime] = field(default=None, metadata={"zid": 1})
    Phone: str = field(default="", metadata={"zid": 2})
    Sibs: int = field(default=0, metadata={"zid": 3})
    GPA: float = field(default=0.0, metadata={"zid": 4})
    Friend: bool = field(default=False, metadata={"zid": 5})


@dataclass(slots=True)
class Tiny:
    X: int = field(default=0, metadata={"zid": 0})
    Y: int = field(default=0, metadata={"zid": 1})
    Z: int = field(default=0, metadata={"zid": 2})


@dataclass(slots=True)
class Ints:
    V: list[int] = field(default_factory=list, metadata={"zid": 0})


@dataclass(slots=True)
class Floats:
    V: list[float] = field(default_factory=list, metadata={"zid": 0})


@dataclass(slots=True)
class As:
    V: list[A] = field(default_factory=list, metadata={"zid": 0})


@dataclass(slots=True)
class Node:
    Val: int = field(default=0, metadata={"zid": 0})
    Next: Optional["Node"] = field(default=None, metadata={"zid": 1})


@dataclass(slots=True)
class StrMap:
    M: dict[str, int] = field(default_factory=dict, metadata={"zid": 0})


@dataclass(slots=True)
class Doc:
    Body: Any = field(default=None, metadata={"zid": 0})


Wide = dataclasses.make_dataclass(
    "Wide", [(name, kind, field(default=kind(), metadata={"zid": i}))
             for i, (name, kind) in enumerate(WIDE_FIELDS)], slots=True)
Wide.__module__ = __name__

DATACLASSES = (A, Tiny, Wide, Ints, Floats, As, Node, StrMap, Doc)


def shapes_schema(classes: tuple[type, ...] = DATACLASSES, package: str = "bench") -> zebrapack.Schema:
    """The shapes' schema bound to the dataclasses above (classes given by the user)."""
    return zebrapack.schema_from_dataclasses(*classes, package=package)


def generated_schema(classes: tuple[type, ...] = DATACLASSES, package: str = "bench") -> zebrapack.Schema:
    """The same schema loaded as a user loads a ``.z`` file: its classes generated, the
    counterpart of msgspec's ``Struct`` (records holding no containers are not
    GC-tracked, as ``Struct`` instances; user dataclasses stay tracked)."""
    document = schema_document(shapes_schema(classes, package).model)
    return zebrapack.load(msgpack.packb(document, use_bin_type=True))


# -- seeded values ------------------------------------------------------------------

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
         "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"]
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _int64(rng: random.Random) -> int:
    """Integers of every width, as real data has: mostly small, some large, some negative."""
    bits = rng.choice((6, 7, 8, 15, 16, 31, 32, 40, 62))
    value = rng.randrange(1 << bits)
    return -value if rng.random() < 0.3 else value


def a_values(rng: random.Random) -> dict[str, Any]:
    return dict(Name=rng.choice(WORDS).capitalize() + " " + rng.choice(WORDS),
                Bday=EPOCH + timedelta(seconds=rng.randrange(0, 2_000_000_000)),
                Phone=f"{rng.randrange(200, 999)}-555-{rng.randrange(10000):04d}",
                Sibs=rng.randrange(1, 9), GPA=round(rng.uniform(1.0, 4.0), 2), Friend=True)


def json_like(rng: random.Random, depth: int = 0) -> Any:
    """A JSON-like value (what an ``interface{}`` field carries)."""
    if depth >= 3:
        return rng.choice([rng.randrange(-1000, 100000), round(rng.uniform(-1e3, 1e3), 3),
                           rng.choice(WORDS), rng.random() < 0.5, None])
    if depth % 2 == 0:
        return {rng.choice(WORDS) + str(i): json_like(rng, depth + 1) for i in range(rng.randrange(3, 6))}
    return [json_like(rng, depth + 1) for _ in range(rng.randrange(2, 5))]


def _doc_body(rng: random.Random) -> dict[str, Any]:
    """A JSON-like document of about 2 KB of msgpack."""
    body: dict[str, Any] = {}
    while len(msgpack.packb(body)) < 2000:
        body[f"item{len(body)}"] = json_like(rng, 1)
    return body


def wide_values(rng: random.Random, only: tuple[str, ...] | None = None) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, kind in WIDE_FIELDS:
        if only is not None and name not in only:
            continue
        if kind is int:
            values[name] = _int64(rng) or 1
        elif kind is float:
            values[name] = rng.uniform(-1e6, 1e6)
        elif kind is str:
            values[name] = rng.choice(WORDS) + "-" + rng.choice(WORDS)
        else:
            values[name] = True
    return values


# -- the shapes ---------------------------------------------------------------------

@dataclass
class Shape:
    """One logical record, in each library's class family."""
    name: str
    description: str
    schema: zebrapack.Schema
    zebrapack_value: Any          # an instance of the schema's (generated) class
    plain_value: Any              # the slots dataclass (msgspec dataclass mode, msgpack)
    struct_value: Any             # the msgspec.Struct twin
    build_plain: Callable[[Any], Any]   # msgpack path: unpackb's dict -> the dataclasses
    plain_dict: Any = None        # msgpack path: packb's input
    families: tuple[str, ...] = ("records",)   # the benchmark families the shape belongs to (_family)
    note: str = ""                # what msgspec holds where it has no exact Go type

    def __post_init__(self) -> None:
        self.plain_dict = to_builtins(self.plain_value)


def to_builtins(value: Any) -> Any:
    """The record (a dataclass or a msgspec.Struct) as plain dicts and lists, with every field
    (msgpack.packb's input, from_pylist's input)."""
    if isinstance(value, msgspec.Struct):
        return {name: to_builtins(getattr(value, name)) for name in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_builtins(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list):
        return [to_builtins(v) for v in value]
    if isinstance(value, dict):
        return {k: to_builtins(v) for k, v in value.items()}
    return value


def _build_node(d: dict[str, Any] | None) -> Node | None:
    if d is None:
        return None
    return Node(Val=d["Val"], Next=_build_node(d["Next"]))


def _build_compound(plain: SimpleNamespace) -> Callable[[dict[str, Any]], Any]:
    def build(d: dict[str, Any]) -> Any:
        inner = plain.Inner
        d["Nested"] = inner(**d["Nested"])
        if d["Ptr"] is not None:
            d["Ptr"] = inner(**d["Ptr"])
        d["Inners"] = [inner(**x) for x in d["Inners"]]
        d["PInners"] = [None if x is None else inner(**x) for x in d["PInners"]]
        d["MInner"] = {k: None if v is None else inner(**v) for k, v in d["MInner"].items()}
        return plain.Compound(**d)
    return build


def _chain(node: Callable[..., Any], depth: int) -> Any:
    head = None
    for i in range(depth, 0, -1):
        head = node(Val=i * 1000 + 7, Next=head)
    return head


def _by_family(make: Callable[[SimpleNamespace, random.Random], Any], *families: SimpleNamespace) -> list[Any]:
    """``make`` run for each class family with the same seed: equal values, different classes."""
    return [make(family, random.Random(SEED)) for family in families]


def build_shapes(sizes: dict[str, int] | None = None) -> list[Shape]:
    """Every shape. ``sizes`` shrinks the collections (``n``: list/map length, ``depth``: the chain)."""
    sizes = {"n": 1000, "depth": 20, **(sizes or {})}
    n, depth = sizes["n"], sizes["depth"]
    schema = generated_schema()
    dc = SimpleNamespace(A=A, Tiny=Tiny, Wide=Wide, Ints=Ints, Floats=Floats, As=As, Node=Node,
                         StrMap=StrMap, Doc=Doc, SparseWide=Wide)
    gen = SimpleNamespace(**{name: schema.types[cls.__name__] for name, cls in vars(dc).items()})
    st = SimpleNamespace(**{name: getattr(_structs, name) for name in vars(dc)})
    sparse_fields = ("F05", "F22")

    # name, description, the record built in a class family, the msgpack path's builder, the
    # families of _family the shape belongs to besides "records"
    makers: list[tuple[str, str, Callable[[SimpleNamespace, random.Random], Any], Callable[[Any], Any],
                       tuple[str, ...]]] = [
        ("A", "README record A (2 str, time, int, float, bool)",
         lambda ns, rng: ns.A(**a_values(rng)), lambda d: A(**d), ("times",)),
        ("tiny", "3 ints", lambda ns, rng: ns.Tiny(X=7, Y=300, Z=-70000), lambda d: Tiny(**d), ("ints",)),
        ("wide", "40 scalars (int, float, str, bool)",
         lambda ns, rng: ns.Wide(**wide_values(rng)), lambda d: Wide(**d), ()),
        (f"{n} int64", f"list of {n} int64",
         lambda ns, rng: ns.Ints(V=[_int64(rng) for _ in range(n)]), lambda d: Ints(**d), ("ints",)),
        (f"{n} float64", f"list of {n} float64",
         lambda ns, rng: ns.Floats(V=[rng.uniform(-1e9, 1e9) for _ in range(n)]), lambda d: Floats(**d),
         ("floats",)),
        (f"{n} x A", f"list of {n} records A",
         lambda ns, rng: ns.As(V=[ns.A(**a_values(rng)) for _ in range(n)]),
         lambda d: As(V=[A(**x) for x in d["V"]]), ("times",)),
        (f"{depth}-deep chain", f"{depth} nested *Node (int + pointer)",
         lambda ns, rng: _chain(ns.Node, depth), _build_node, ("optional",)),
        (f"map[str]int x {n}", f"map[string]int64 of {n} entries",
         lambda ns, rng: ns.StrMap(M={f"{rng.choice(WORDS)}{i}": _int64(rng) for i in range(n)}),
         lambda d: StrMap(**d), ("maps",)),
        ("interface{} 2KB", "interface{} holding ~2 KB of JSON-like maps/lists",
         lambda ns, rng: ns.Doc(Body=_doc_body(rng)), lambda d: Doc(**d), ("any",)),
        ("wide 2/40 set", "the wide record with 2 of 40 fields set",
         lambda ns, rng: ns.SparseWide(**wide_values(rng, sparse_fields)), lambda d: Wide(**d), ("optional",)),
    ]
    shapes = []
    for name, description, make, build, families in makers:
        zp_value, plain_value, struct_value = _by_family(make, gen, dc, st)
        shapes.append(Shape(name, description, schema, zp_value, plain_value, struct_value, build,
                            families=("records", *families)))
    shapes.append(compound_shape())
    return shapes


def compound_shape() -> Shape:
    zp_schema = zebrapack.load(ZP_SCHEMA_PATH)
    from . import _compound
    zp_value, plain_value, struct_value = _by_family(
        _compound.compound_values, SimpleNamespace(Inner=zp_schema.types.Inner, Compound=zp_schema.types.Compound),
        _compound.PLAIN, _compound.STRUCT)
    return Shape("Compound", "zp.z Compound: lists, maps, nested structs, matrix, times", zp_schema,
                 zp_value, plain_value, struct_value, _build_compound(_compound.PLAIN))
