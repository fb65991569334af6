"""The decode target shared by the atheris fuzzer (``run_atheris.py``), the
hypothesis mutation test and the replay of committed inputs.

One input is decoded with every vector schema (and, for the schemas written
without struct names on the wire, as each of their structs). Only
``DecodeError`` may escape, its offset must lie inside the input, and whatever
decodes must encode, and decode from that back to the same value. The one
exception: lenient reading keeps, inside ``interface{}`` values, what Go's reader
rejects (maps with other keys than str, ext 3/4/5 of another shape) and the writer
refuses to write it; whatever ``strict=True`` decodes must encode. And one value
changes type as it does in Go: a ``GoUint64`` below 128 is written as a fixint
(Go's writer does so), which every reader, Go's included, reads back as a signed int.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent
VECTORS = TESTS / "vectors"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from support.expected_values import same  # noqa: E402

import zebrapack  # noqa: E402
from zebrapack import DecodeError, EncodeError  # noqa: E402

#: Decoded values are compared recursively in Python: keep them well inside its recursion limit.
FUZZ_MAX_DEPTH = 250
#: What the writer refuses inside interface{} because Go's reader would reject it.
GO_UNREADABLE = re.compile(r"map\[string\]interface\{\} to Go|inside interface\{\}: Go reads ext")
#: A field path: "$" before any struct is known, else "Struct", then .Field, [index], [key], .<zid N>.
PATH = re.compile(r"(\$|[A-Za-z_]\w*)([.\[].*)?\Z", re.DOTALL)


@cache
def configs() -> tuple[tuple[zebrapack.Schema, str | None], ...]:
    """(schema, type) pairs an input is decoded with."""
    found: list[tuple[zebrapack.Schema, str | None]] = []
    for name in ("zp", "zpn", "mp", "evo1", "evo2", "iface"):
        schema = zebrapack.load(VECTORS / "schemas" / f"{name}.z", max_depth=FUZZ_MAX_DEPTH)
        found.append((schema, None))
        if name in ("zpn", "mp"):
            found.extend((schema, struct) for struct in schema.structs)
    return tuple(found)


def check_input(data: bytes) -> None:
    """Raise AssertionError (or the unexpected exception) when the input breaks a rule."""
    strict = bool(data) and bool(data[-1] & 1)      # both modes get their share of inputs
    for schema, type_name in configs():
        try:
            value = schema.decode(data, type_name, strict=strict)
        except DecodeError as error:
            check_error(error, len(data))
            continue
        check_round_trip(schema, type_name, value, strict)
    schema = configs()[0][0]
    check_pushed(schema, data)
    try:
        records = schema.decode_all(data)
    except DecodeError as error:
        check_error(error, len(data))
        return
    for record in records:
        check_round_trip(schema, None, record, False)


def check_pushed(schema: zebrapack.Schema, data: bytes) -> None:
    """The push decoder fed the input in pieces (sizes and kinds taken from its bytes) gives
    the records and the error iter_decode of the whole input gives."""
    expected, expected_error = records_and_error(schema.iter_decode(data))
    got, error = records_and_error(pushed(schema.stream_decoder(max_record_size=1 << 40), data))
    assert (type(error), error and error.offset) == (type(expected_error), expected_error and expected_error.offset), \
        f"pushed: {error!r}, iter_decode: {expected_error!r}"
    if error is not None:
        check_error(error, len(data))
    assert len(got) == len(expected)
    for pushed_record, record in zip(got, expected):
        if not has_key_unequal_to_itself(record):
            same(pushed_record, record)


def pushed(decoder: zebrapack.StreamDecoder[Any], data: bytes) -> Any:
    """The records of data fed in pieces of 1 to 23 bytes (sizes from its own bytes), every
    third from a bytearray (copied), the others as bytes (read in place); the records are
    taken after three pieces in four (so that pieces also wait in the decoder)."""
    position = number = 0
    while position < len(data):
        piece = data[position:position + 1 + data[number % len(data)] % 23]
        position += len(piece)
        decoder.feed(bytearray(piece) if number % 3 == 2 else piece)
        if number % 4 != 3:
            for record in decoder:      # not yield from: it would close the decoder with the generator
                yield record
        number += 1
    for record in decoder:
        yield record
    decoder.close()


def records_and_error(records: Any) -> tuple[list[Any], DecodeError | None]:
    got: list[Any] = []
    try:
        for record in records:
            got.append(record)
    except DecodeError as error:
        return got, error
    return got, None


def check_error(error: DecodeError, size: int) -> None:
    assert error.offset is not None and 0 <= error.offset <= size, f"offset {error.offset} outside 0..{size}"
    assert PATH.match(error.path), f"malformed path {error.path!r}"


def check_round_trip(schema: zebrapack.Schema, type_name: str | None, value: Any, strict: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            encoded = schema.encode(value)
        except EncodeError as error:
            if strict or not GO_UNREADABLE.search(error.reason):
                raise
            return
        again = schema.decode(encoded, type_name)
        assert schema.encode(again) == encoded, "re-encoding what decoded changed the bytes"
    if not has_key_unequal_to_itself(value):    # a NaN key matches no key: the bytes compared above
        same(again, as_go_rewrites_it(value))


def as_go_rewrites_it(value: Any) -> Any:
    """The value as written and read back: a GoUint64 below 128 becomes a plain int."""
    if type(value) is zebrapack.GoUint64:
        return int(value) if value < 128 else value
    if type(value) is list:
        return [as_go_rewrites_it(item) for item in value]
    if type(value) is dict:
        return {key: as_go_rewrites_it(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        rewritten = copy.copy(value)
        for f in dataclasses.fields(value):
            setattr(rewritten, f.name, as_go_rewrites_it(getattr(value, f.name)))
        return rewritten
    return value


def has_key_unequal_to_itself(value: Any) -> bool:
    if isinstance(value, dict):
        return any(key != key or has_key_unequal_to_itself(item) for key, item in value.items())
    if isinstance(value, list):
        return any(has_key_unequal_to_itself(item) for item in value)
    slots = getattr(type(value), "__slots__", None)
    if slots is not None and not isinstance(value, (str, bytes)):
        return any(has_key_unequal_to_itself(getattr(value, name, None)) for name in slots)
    return False
