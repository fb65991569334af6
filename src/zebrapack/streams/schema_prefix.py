"""Recognising the schema document a self-describing file starts with
(``writer(..., write_schema=True)``), for the readers that skip it: ``iter_split``,
``build_index``, ``zebrapack.arrow.read``, ``recover``, and the index check of
``data_start``.

A leading object is the schema document when it is a map whose keys are all keys of
a ``zebra.Schema`` (``SourcePath``, ``SourcePackage``, ``ZebraSchemaId``, ``Structs``,
``Imports``), ``Structs`` among them, and it parses as a schema. A msgp-mode record is a
map of str keys too, but its keys are its fields' tag names: one that also named only
``zebra.Schema`` keys would have to be a record of a struct with no other field.
"""

from __future__ import annotations

import mmap
import msgpack

from .._core import skip_records
from .._errors import DecodeError, SchemaError
from ..recordio.byte_sources import BinaryReader
from ..schema.model import parse_schema
from .self_describing import MAX_SCHEMA_SIZE

#: The keys of a zebra.Schema document.
SCHEMA_KEYS = frozenset({"SourcePath", "SourcePackage", "ZebraSchemaId", "Structs", "Imports"})
#: Bytes looked at first (a schema document usually fits; more is read when it does not).
_HEAD = 1 << 16


def is_schema_document(document: object) -> bool:
    if not isinstance(document, dict) or "Structs" not in document or not SCHEMA_KEYS.issuperset(document):
        return False
    try:
        parse_schema(document)
    except SchemaError:
        return False
    return True


def may_start_with_schema(head: bytes | bytearray | memoryview | mmap.mmap) -> bool:
    """A schema document is a map whose first key is a str (a cheap test before reading more)."""
    if not len(head):
        return False
    lead = head[0]
    at = 1 if 0x80 <= lead <= 0x8f else 3 if lead == 0xde else 5 if lead == 0xdf else len(head)
    return at < len(head) and (0xa0 <= head[at] <= 0xbf or head[at] in (0xd9, 0xda, 0xdb))


def schema_prefix_end(data: bytes | bytearray | memoryview | mmap.mmap, max_depth: int) -> int:
    """Where the records of ``data`` start: after a leading schema document, or 0 (no
    schema document, or a first object that is malformed or not whole in ``data``)."""
    if not may_start_with_schema(data):
        return 0
    try:
        end, _ = skip_records(data, 0, 1, 0, max_depth)
    except DecodeError:
        return 0
    if end > MAX_SCHEMA_SIZE:
        return 0
    with memoryview(data) as view:     # released before an mmap under it is closed
        try:
            document = msgpack.unpackb(view[:end], raw=False, strict_map_key=False)
        except (ValueError, TypeError):     # TypeError: an unhashable map key
            return 0
    return end if is_schema_document(document) else 0


def read_schema_prefix(handle: BinaryReader, size: int, max_depth: int) -> tuple[int, bytes]:
    """``schema_prefix_end`` of a file of ``size`` bytes, read from its current position
    (its start), and the bytes read: 64 KiB, more only for a schema document that needs it."""
    head = handle.read(min(size, _HEAD))
    if may_start_with_schema(head) and len(head) < size and not _first_object_whole(head, max_depth):
        head += handle.read(min(size, MAX_SCHEMA_SIZE) - len(head))
    return schema_prefix_end(head, max_depth), head


def _first_object_whole(head: bytes, max_depth: int) -> bool:
    try:
        return skip_records(head, 0, 1, 0, max_depth, True)[1] == 1
    except DecodeError:
        return True         # malformed: no schema document, whatever follows
