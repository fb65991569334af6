"""The Arrow mapping of a schema is made once per struct, columns and time unit, and
reused: never stale, bounded, dropped with its schema, safe across threads."""

from __future__ import annotations

import dataclasses
import gc
import threading
import weakref

import zebrapack
import zebrapack.arrow as zpa
from zebrapack.arrow import _mapping
from zebrapack.arrow._mapping import _Builder, arrow_fields
from zebrapack.examples import SCHEMA


def fresh(schema, type, columns=None, time_unit="ns"):
    """The mapping built anew, without the cache."""
    struct_def = _mapping.resolve_struct(schema, type)
    selection = None if columns is None else _mapping._selection(struct_def, list(columns), schema.model)
    return _Builder(schema.model, time_unit).struct_field("", struct_def, False, selection, (struct_def.name,))


def test_the_same_request_reuses_the_mapping_and_it_equals_a_fresh_one():
    schema = zebrapack.load(SCHEMA)
    first = arrow_fields(schema, "Compound", columns=["Shown", "Renamed"])
    assert arrow_fields(schema, "Compound", columns=("Shown", "Renamed")) is first
    assert arrow_fields(schema, schema.types.Compound, columns=["Shown", "Renamed"]) is first
    assert first == fresh(schema, "Compound", ["Shown", "Renamed"])
    for other in (arrow_fields(schema, "Compound"), arrow_fields(schema, "Compound", columns=["Renamed", "Shown"]),
                  arrow_fields(schema, "Compound", columns=["Shown", "Renamed"], time_unit="us"),
                  arrow_fields(schema, "A")):
        assert other is not first
    assert arrow_fields(schema, "Prims", time_unit="us") == fresh(schema, "Prims", time_unit="us")
    assert arrow_fields(schema, "Prims", time_unit="us") != arrow_fields(schema, "Prims")


def test_another_schema_never_gets_this_schemas_mapping():
    one, two = zebrapack.load(SCHEMA), zebrapack.load(SCHEMA)
    assert arrow_fields(one, "A") is not arrow_fields(two, "A")
    # a schema whose model changed (it never does; the cache checks anyway) gets a new mapping
    mapped = arrow_fields(one, "A")
    changed = dataclasses.replace(one.model)
    one._model = changed
    assert arrow_fields(one, "A") is not mapped


def test_errors_are_not_cached_and_stay_errors():
    schema = zebrapack.load(SCHEMA)
    for _ in range(2):
        try:
            arrow_fields(schema, "A", columns=["Nope"])
        except ValueError as exc:
            assert "Nope" in str(exc)
        else:
            raise AssertionError("an unknown column must be refused")
        try:
            arrow_fields(schema, "A", columns=[["Name"]])
        except TypeError:
            pass
        else:
            raise AssertionError("a column that is not a str must be refused")


def test_the_cache_is_bounded_per_schema_and_dropped_with_the_schema():
    schema = zebrapack.load(SCHEMA)
    names = [f.go_name for f in schema.model.structs["Prims"].wire_fields]
    for i in range(_mapping._PER_SCHEMA + 20):
        arrow_fields(schema, "Prims", columns=[names[i % len(names)], names[(i // len(names)) % len(names)]])
    assert len(_mapping._MAPPINGS._by_schema[schema]) <= _mapping._PER_SCHEMA
    zpa.read(b"", schema, type="A")
    dropped = weakref.ref(schema)
    del schema
    gc.collect()
    assert dropped() is None


def test_threads_mapping_at_once_get_equal_mappings():
    schema = zebrapack.load(SCHEMA)
    results, errors = [], []

    def work():
        try:
            for _ in range(50):
                results.append(arrow_fields(schema, "Compound"))
        except BaseException as exc:       # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(r == results[0] for r in results) and len({id(r) for r in results}) <= 4
