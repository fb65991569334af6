"""Pickling: a Schema travels as its document and options, records of its generated
classes as (schema, struct, field values); other processes rebuild them once."""

from __future__ import annotations

import copy
import functools
import gc
import importlib
import multiprocessing
import os
import pickle
import pickletools
import signal
import subprocess
import sys
import warnings
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgpack
from support import pickle_workers
import pytest
from support.cli import cli_env
from support.vectors import MANIFEST, TESTS, VECTORS, case_id, vector_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.strategies import structs
from support.expected_values import same

import zebrapack
from zebrapack import SchemaError
from zebrapack.codegen import generate_module
from zebrapack.schema import pickling
from zebrapack.schema.loader import restore_schema

SCHEMAS = VECTORS / "schemas"
UTC = timezone.utc
ZP = zebrapack.load(SCHEMAS / "zp.z")
EVO1_KEEPING = zebrapack.load(SCHEMAS / "evo1.z", preserve_unknown=True)
WRITTEN_BY_V2 = (VECTORS / "evo1" / "v2_as_v1.zpk").read_bytes()    # zids 3 and 4 unknown to evo1
RECORD_CASES = [case for case in MANIFEST if "count" not in case]   # one record each (not streams)


@dataclass(slots=True)
class MyInner:
    """A user class standing in for zp's Inner (module level: pickles by reference)."""

    X: int = 0
    Y: str = ""


@dataclass
class Note:
    Text: str = field(default="", metadata={"zid": 0})
    Tags: list[str] = field(default_factory=list, metadata={"zid": 1})


def _loaded(case: dict[str, Any]) -> zebrapack.Schema:
    return zebrapack.load(SCHEMAS / case["schema"])


def _decoded(schema: zebrapack.Schema, case: dict[str, Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # deprecated fields are read
        return schema.decode(vector_bytes(case), type=case["type"])


def _encoded(schema: zebrapack.Schema, value: Any, **options: Any) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # Compound.Old is deprecated
        return schema.encode(value, **options)


def _globals_named(value: Any) -> set[str]:
    """The module-level names the pickle of ``value`` refers to (the callables it will run)."""
    data = pickle.dumps(value, protocol=2)     # protocol 2 names each global in full (GLOBAL)
    return {str(argument).replace(" ", ".") for opcode, argument, _ in pickletools.genops(data)
            if opcode.name == "GLOBAL"}


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a new worker sees it: no schema unpickled or pickled yet."""
    monkeypatch.setattr(pickling, "_by_origin", weakref.WeakValueDictionary())
    monkeypatch.setattr(pickling, "_by_key", weakref.WeakValueDictionary())
    monkeypatch.setattr(pickling, "_recent", OrderedDict())


def as_another_process() -> None:
    """Forget the schemas pickled so far, as a process that did not pickle them would not know them."""
    pickling._by_origin.clear()
    pickling._by_key.clear()
    pickling._recent.clear()


# -- the schema ------------------------------------------------------------------


def test_a_schema_pickles_as_its_document_and_options_not_its_compiled_plans() -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z", max_depth=77)
    data = pickle.dumps(schema)
    assert _globals_named(schema) == {"zebrapack.schema.loader.restore_schema", "_codecs.encode"}
    for internal in (b"StructPlan", b"Codec", b"_by_name", b"_by_class", b"zebrapack.schemas"):
        assert internal not in data
    compressed, max_depth, preserve_unknown, zero_allowance, types, _token = schema.__reduce__()[1]
    assert (max_depth, preserve_unknown, zero_allowance, types) == (77, False, zebrapack.DEFAULT_ZERO_ALLOWANCE, None)
    assert zebrapack.load(zlib.decompress(compressed)).model == schema.model
    assert len(data) < len((SCHEMAS / "zp.z").read_bytes()) / 2


def test_a_schema_unpickles_to_itself_in_the_process_that_holds_it() -> None:
    again = zebrapack.load(SCHEMAS / "zp.z")      # the same document loaded twice: two schemas
    assert pickle.loads(pickle.dumps(ZP)) is ZP
    assert pickle.loads(pickle.dumps(again)) is again
    record = again.types.A(Name="x")
    assert type(pickle.loads(pickle.dumps(record))) is again.types.A


@pytest.mark.parametrize("options", [{}, {"max_depth": 500}, {"preserve_unknown": True}, {"zero_allowance": 5}],
                         ids=str)
def test_a_new_process_rebuilds_a_schema_with_the_same_plans_and_options(
        fresh_registry: None, options: dict[str, Any]) -> None:
    original = zebrapack.load(SCHEMAS / "zp.z", **options)
    data = pickle.dumps(original)
    as_another_process()
    rebuilt = pickle.loads(data)
    assert rebuilt is not original
    assert rebuilt.model == original.model and list(rebuilt.types) == list(original.types)
    assert (rebuilt.max_depth, rebuilt.zero_allowance) == (original.max_depth, original.zero_allowance)
    assert rebuilt.__reduce__()[1][:5] == original.__reduce__()[1][:5]
    for case in RECORD_CASES:
        if case["schema"] == "zp.z":
            value = _decoded(rebuilt, case)
            assert type(value) is rebuilt.types[case["type"]]
            assert _encoded(rebuilt, value) == _encoded(original, _decoded(original, case))


@pytest.mark.parametrize("path", sorted([*SCHEMAS.glob("*.z"), *(TESTS / "golden" / "schemas").glob("*.z")]),
                         ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_every_schema_rebuilds_to_the_same_model(fresh_registry: None, path: Path) -> None:
    schema = zebrapack.load(path)
    data = pickle.dumps(schema)
    as_another_process()
    rebuilt = pickle.loads(data)
    assert rebuilt is not schema
    assert rebuilt.model == schema.model and list(rebuilt.types) == list(schema.types)


def test_unpickling_many_pickles_of_a_schema_loads_it_once(fresh_registry: None) -> None:
    pickles = [pickle.dumps(zebrapack.load(SCHEMAS / "zp.z")) for _ in range(3)]
    as_another_process()
    gc.collect()
    rebuilt = [pickle.loads(data) for data in pickles * 2]
    assert all(schema is rebuilt[0] for schema in rebuilt)
    # Other options are another schema.
    assert pickle.loads(pickle.dumps(zebrapack.load(SCHEMAS / "zp.z", max_depth=5))) is not rebuilt[0]


def test_a_worker_keeps_recent_schemas_alive_and_forgets_old_unused_ones(
        fresh_registry: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pickling, "RECENT_SCHEMAS", 2)
    pickles = [pickle.dumps(zebrapack.load(SCHEMAS / "evo1.z", max_depth=depth)) for depth in (10, 11, 12, 13)]
    as_another_process()
    gc.collect()
    first = weakref.ref(pickle.loads(pickles[0]))
    kept_alive_by_a_record = pickle.loads(pickles[1]).types.Person()
    gc.collect()
    assert first() is not None                     # nothing holds it but the registry
    pickle.loads(pickles[2])
    pickle.loads(pickles[3])
    gc.collect()
    assert first() is None                         # pushed out by two more recent ones
    again = pickle.loads(pickles[1])               # pushed out too, but alive: the same class
    assert type(kept_alive_by_a_record) is again.types.Person


def test_a_schema_with_user_classes_pickles_them_by_reference(fresh_registry: None) -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z", types={"Inner": MyInner})
    data = pickle.dumps(schema)
    assert f"{__name__}.MyInner" in _globals_named(schema)
    as_another_process()
    rebuilt = pickle.loads(data)
    assert rebuilt is not schema
    assert rebuilt.types.Inner is MyInner
    compound = rebuilt.decode((VECTORS / "zp" / "Compound_full.zpk").read_bytes())
    assert type(compound.Nested) is MyInner
    back = pickle.loads(pickle.dumps(compound))
    assert back == compound and type(back.Ptr) is MyInner


def test_a_schema_of_dataclasses_pickles_with_its_classes(fresh_registry: None) -> None:
    schema = zebrapack.schema_from_dataclasses(Note, package="notes")
    data = pickle.dumps([schema, Note("hi", ["a"])])
    as_another_process()
    rebuilt, note = pickle.loads(data)
    assert rebuilt is not schema and rebuilt.types.Note is Note
    assert rebuilt.decode(schema.encode(note)) == Note("hi", ["a"])


def test_a_schema_is_immutable_so_copies_are_itself() -> None:
    assert copy.copy(ZP) is ZP
    assert copy.deepcopy(ZP) is ZP


def test_a_pickled_schema_that_is_not_a_schema_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="pickled schema: not a msgpack2 schema"):
        restore_schema(zlib.compress(b"\xc1"), 100, False, 10, None, b"token123")
    with pytest.raises(SchemaError, match="needs Structs"):
        restore_schema(zlib.compress(msgpack.packb({"SourcePackage": "x"})), 100, False, 10, None, b"token123")


# -- records -----------------------------------------------------------------------


@pytest.mark.parametrize("case", RECORD_CASES, ids=case_id)
def test_every_vector_record_pickles_to_an_equal_record_of_its_class(case: dict[str, Any]) -> None:
    schema = _loaded(case)
    value = _decoded(schema, case)
    back = pickle.loads(pickle.dumps(value))
    assert type(back) is type(value)
    same(back, value)
    assert _encoded(schema, back) == _encoded(schema, value)


@pytest.mark.parametrize("case", RECORD_CASES, ids=case_id)
def test_every_vector_record_unpickles_in_a_new_process_to_the_same_bytes(
        fresh_registry: None, case: dict[str, Any]) -> None:
    schema = _loaded(case)
    value = _decoded(schema, case)
    data = pickle.dumps((value, schema))
    as_another_process()
    back, rebuilt = pickle.loads(data)
    assert rebuilt is not schema and type(back) is rebuilt.types[case["type"]]
    assert _encoded(rebuilt, back) == _encoded(schema, value)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_records_pickle_with_every_protocol(protocol: int) -> None:
    value = ZP.decode((VECTORS / "zp" / "Compound_full.zpk").read_bytes())
    assert pickle.loads(pickle.dumps(value, protocol=protocol)) == value


PROPERTY_SETTINGS = settings(max_examples=60, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY_SETTINGS
@given(data=st.data())
def test_generated_values_survive_pickling(data: st.DataObject) -> None:
    # Nanosecond times, Ext values, NaN, -0.0, full integer ranges, nested and recursive structs.
    name = data.draw(st.sampled_from(list(ZP.structs)))
    value = data.draw(structs(ZP, name))
    back = pickle.loads(pickle.dumps(value))
    same(back, value)
    assert _encoded(ZP, back) == _encoded(ZP, value)


def test_unknown_entries_survive_pickling_and_are_written_back() -> None:
    person = EVO1_KEEPING.decode(WRITTEN_BY_V2)
    assert set(person.zebrapack_unknown) == {3, 4}
    back = pickle.loads(pickle.dumps(person))
    assert back.zebrapack_unknown == person.zebrapack_unknown
    assert EVO1_KEEPING.encode(back) == WRITTEN_BY_V2


def test_copy_shares_unknown_entries_and_deepcopy_copies_them() -> None:
    person = EVO1_KEEPING.decode(WRITTEN_BY_V2)
    shallow, deep = copy.copy(person), copy.deepcopy(person)
    assert shallow == person == deep
    assert type(shallow) is type(deep) is type(person)
    assert shallow.zebrapack_unknown is person.zebrapack_unknown
    assert deep.zebrapack_unknown == person.zebrapack_unknown and deep.zebrapack_unknown is not person.zebrapack_unknown
    assert EVO1_KEEPING.encode(shallow) == EVO1_KEEPING.encode(deep) == WRITTEN_BY_V2


def _cyclic_tree() -> Any:
    root = ZP.types.Tree(Label="root")
    kid = ZP.types.Tree(Label="kid", Up=root)
    root.Kids = [kid]
    return root


@pytest.mark.parametrize("duplicate", [lambda value: pickle.loads(pickle.dumps(value)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_cycles_and_shared_references_survive(duplicate: Any) -> None:
    root = duplicate(_cyclic_tree())
    assert root.Label == "root" and root.Kids[0].Label == "kid"
    assert root.Kids[0].Up is root
    shared = ZP.types.Inner(X=3)
    compound = duplicate(ZP.types.Compound(Nested=shared, Ptr=shared, Inners=[shared]))
    assert compound.Ptr is compound.Nested is compound.Inners[0]
    assert compound.Ptr is not shared


def test_copy_of_a_record_is_a_new_record_sharing_its_values() -> None:
    value = ZP.decode((VECTORS / "zp" / "Compound_full.zpk").read_bytes())
    shallow = copy.copy(value)
    assert shallow == value and shallow is not value and type(shallow) is type(value)
    assert shallow.Ints is value.Ints


def test_timestamps_with_nanoseconds_and_ext_values_pickle() -> None:
    moment = zebrapack.Timestamp(2024, 2, 29, 23, 59, 59, 999999, UTC, nanosecond=1)
    ext = zebrapack.Ext(7, b"\x00\xff")
    for value in (moment, ext):
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value) and back == value
    assert pickle.loads(pickle.dumps(moment)).nanosecond == 1
    prims = pickle.loads(pickle.dumps(ZP.types.Prims(T=moment, Any=ext)))
    assert prims.T.nanosecond == 1 and prims.Any == ext
    assert ZP.encode(prims) == ZP.encode(ZP.types.Prims(T=moment, Any=ext))
    times = pickle.loads(pickle.dumps(ZP.types.Compound(Times=[moment, datetime(1, 1, 1, tzinfo=UTC)])))
    assert times.Times[0].nanosecond == 1


def test_records_of_structs_with_no_field_or_one_field_pickle() -> None:
    schema = zebrapack.load({"SourcePackage": "small", "Structs": {
        "Empty": {"StructName": "Empty", "Fields": []},
        "One": {"StructName": "One", "Fields": [
            {"Zid": 0, "FieldGoName": "Only", "FieldTypeStr": "[]Empty", "FieldCategory": 26,
             "FieldFullType": {"Kind": 26, "Str": "Slice", "Domain": {"Kind": 22, "Str": "Empty"}}}]},
    }})
    value = schema.types.One(Only=[schema.types.Empty(), schema.types.Empty()])
    back = pickle.loads(pickle.dumps(value))
    assert back == value and type(back.Only[1]) is schema.types.Empty
    assert schema.encode(back) == schema.encode(value)


GeneratedInner: Any = ZP.types.Inner


class ShoutingInner(GeneratedInner):     # type: ignore[misc]
    """A user's subclass of a generated class (module level: pickles by reference)."""

    def shout(self) -> str:
        return str(self.Y).upper()


def test_generated_classes_pickle_as_their_schema_and_struct(fresh_registry: None) -> None:
    assert pickle.loads(pickle.dumps(ZP.types.A)) is ZP.types.A
    assert copy.deepcopy(ZP.types.A) is ZP.types.A
    assert _globals_named(ZP.types.A) == {"zebrapack.schema.pickling.record_class",
                                          "zebrapack.schema.loader.restore_schema", "_codecs.encode"}
    data = pickle.dumps([ZP.types.Tree, ZP.types.Tree(Label="x")])
    as_another_process()
    tree_class, tree = pickle.loads(data)
    assert tree_class is not ZP.types.Tree and tree_class.__name__ == "Tree"
    assert type(tree) is tree_class and tree.Label == "x"


def test_a_pickled_record_with_the_wrong_number_of_fields_is_refused() -> None:
    inner: Any = ZP.types.Inner
    record = inner.__new__(inner)
    with pytest.raises(ValueError, match="carries 2 field values"):
        record.__setstate__((1, "y", "extra"))


def test_the_types_of_a_schema_pickle_and_copy() -> None:
    for types in (pickle.loads(pickle.dumps(ZP.types)), copy.copy(ZP.types), copy.deepcopy(ZP.types)):
        assert dict(types) == dict(ZP.types) and types.Tree is ZP.types.Tree


def test_a_subclass_of_a_generated_class_pickles_by_reference() -> None:
    value = ShoutingInner(X=1, Y="quiet")
    value.extra = [value]
    back = pickle.loads(pickle.dumps(value))
    assert type(back) is ShoutingInner and back.shout() == "QUIET" and back.X == 1
    assert back.extra[0] is back
    assert f"{__name__}.ShoutingInner" in _globals_named(value)


# -- other processes -------------------------------------------------------------------


@pytest.fixture(scope="module")
def spawn_pool() -> Iterator[Any]:
    """Two worker processes started as macOS, Windows and Dask start them (spawn)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        yield pool


def test_pool_map_of_schema_decode_works_in_spawned_workers(spawn_pool: Any) -> None:
    cases = [case for case in RECORD_CASES if case["schema"] == "zp.z"]
    chunks = [vector_bytes(case) for case in cases]
    decoded = spawn_pool.map(ZP.decode, chunks)
    prims = [case for case in cases if case["type"] == "Prims"]
    by_class = spawn_pool.map(functools.partial(ZP.decode, type=ZP.types.Prims), map(vector_bytes, prims))
    for value, case in zip(by_class, prims, strict=True):
        same(value, _decoded(ZP, case))
    for value, data, case in zip(decoded, chunks, cases):
        assert type(value) is ZP.types[case["type"]]
        same(value, _decoded(ZP, case))
    stream = (VECTORS / "zp" / "A_stream.zpk").read_bytes()
    assert spawn_pool.map(ZP.decode_all, [stream, stream]) == [ZP.decode_all(stream)] * 2
    assert spawn_pool.map(ZP.encode, decoded[:3]) == [ZP.encode(value) for value in decoded[:3]]


def test_a_decode_error_in_a_worker_reaches_the_caller_whole(spawn_pool: Any) -> None:
    truncated = (VECTORS / "zp" / "Compound_full.zpk").read_bytes()[:-3]
    with pytest.raises(zebrapack.DecodeError) as raised:
        spawn_pool.map(ZP.decode, [truncated])
    with pytest.raises(zebrapack.DecodeError) as here:
        ZP.decode(truncated)
    assert (raised.value.reason, raised.value.path, raised.value.offset) == (
        here.value.reason, here.value.path, here.value.offset)


def test_a_worker_loads_a_schema_once_across_pickles_and_tasks(spawn_pool: Any) -> None:
    records = [ZP.decode((VECTORS / "zp" / name).read_bytes()) for name in ("A_seed.zpk", "Tree_deep.zpk")]
    schema_pickles = [pickle.dumps(ZP), pickle.dumps(zebrapack.load(SCHEMAS / "zp.z"))]
    record_pickles = [pickle.dumps(record) for record in records * 2]
    schemas, own_classes, encoded = spawn_pool.apply(pickle_workers.unpickle_all, (schema_pickles, record_pickles))
    assert (schemas, own_classes) == (1, True)
    assert encoded == [ZP.encode(record) for record in records * 2]
    # One task after another (each pickles the schema again): one schema per worker.
    seen = spawn_pool.map(pickle_workers.first_sight, [ZP] * 8, chunksize=1)
    assert sorted(pid for pid, first in seen if first) == sorted({pid for pid, _ in seen})


def test_records_sent_to_a_worker_come_back_as_instances_of_their_class(spawn_pool: Any) -> None:
    sent: Any = ZP.types.A(Name="grace", Bday=zebrapack.Timestamp(1906, 12, 9, tzinfo=UTC, nanosecond=5))
    back: Any = spawn_pool.apply(pickle_workers.shout, (sent,))
    assert back == ZP.types.A(Name="GRACE", Bday=sent.Bday) and back.Bday.nanosecond == 5
    assert type(back) is ZP.types.A


def test_a_worker_writes_back_the_unknown_entries_of_a_record(spawn_pool: Any) -> None:
    person = EVO1_KEEPING.decode(WRITTEN_BY_V2)
    assert spawn_pool.apply(pickle_workers.encode, (EVO1_KEEPING, person)) == WRITTEN_BY_V2


UNPICKLE_GENERATED = """
import pickle, sys
import zp_pickled_models
record, schema = pickle.loads(sys.stdin.buffer.read())
assert type(record) is zp_pickled_models.A, type(record)
assert schema.types["A"] is zp_pickled_models.A
print(schema.encode(record).hex())
"""


def test_generated_module_classes_pickle_by_reference(tmp_path: Path) -> None:
    (tmp_path / "zp_pickled_models.py").write_text(generate_module(ZP.model))
    sys.path.insert(0, str(tmp_path))
    try:
        models = importlib.import_module("zp_pickled_models")
        record = models.schema.decode((VECTORS / "zp" / "A_seed.zpk").read_bytes())
        data = pickle.dumps((record, models.schema))
        assert "zp_pickled_models.A" in _globals_named(record)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("zp_pickled_models", None)
    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    result = subprocess.run([sys.executable, "-c", UNPICKLE_GENERATED], input=data, capture_output=True,
                            env=env, timeout=120, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == (VECTORS / "zp" / "A_seed.zpk").read_bytes().hex()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_fork_made_while_the_registry_is_locked_can_unpickle() -> None:
    data = pickle.dumps(ZP.types.A(Name="forked"))
    with pickling._lock, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # fork() in a threaded process
        pid = os.fork()
        if pid == 0:                # the child: exit code 0 when it unpickles
            code = 1
            try:
                signal.alarm(20)    # a deadlocked child dies instead of hanging the test
                code = 0 if pickle.loads(data).Name == "forked" else 1
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
