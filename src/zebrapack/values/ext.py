"""``Ext``: a msgpack extension value the schema gives no other meaning to."""

from __future__ import annotations

from typing import NamedTuple


class Ext(NamedTuple):
    """A msgpack ext value: ``code`` (-128..127) and its raw ``data``.

    Used for Go's ``msgp.Extension`` fields and for ext types other than
    time (5), complex64 (3), complex128 (4) and the spec timestamp (-1) inside
    ``interface{}`` values. ``msgpack.ExtType`` values are accepted on encode too.
    """

    code: int
    data: bytes
