"""Pickling a ``Schema`` and the records of its generated classes.

A schema pickles as its schema document (msgpack2, zlib-compressed: about a
fifth of its size) and its load options;
the process that unpickles it loads it again, once: a per-process registry
keyed by (document digest, options) hands every later unpickling the same
``Schema``, so the records of one schema unpickle to instances of one class.
The registry holds the schemas that are alive (weakly) and the most recently
unpickled ones (strongly), so that a worker unpickling one task after another
keeps its schema between tasks without keeping every schema it ever saw.

Each pickled schema also carries a random token naming the ``Schema`` object
it was pickled from; the process holding that object (and its forks) gets that
very object back, even when it loaded the same document twice, and records
sent to a worker and back come home as instances of their original class.

A generated class pickles its instances as (schema, struct name) plus the
field values, set after the instance exists so that pickle's memo handles the
cycles and shared references of the user's data. The user's own classes
(``types=``) are not touched: they pickle by reference as usual.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .loader import Schema

#: How many recently unpickled schemas a process keeps alive when nothing else does.
RECENT_SCHEMAS = 32

SchemaKey = tuple[bytes, int, bool, tuple[tuple[str, type], ...]]


class PickleIdentity(NamedTuple):
    """What a schema's pickle carries besides its options (its compressed document and
    its token), and the key (document digest and options) it is registered under."""

    compressed: bytes
    key: SchemaKey
    token: bytes


def identify(document: bytes, max_depth: int, preserve_unknown: bool, types: Mapping[str, type] | None,
                    token: bytes | None = None, compressed: bytes | None = None) -> PickleIdentity:
    """The identity of a schema with this document and these options (a new token if none is given)."""
    digest = hashlib.sha256(document).digest()
    key = (digest, max_depth, preserve_unknown, tuple(sorted((types or {}).items())))
    return PickleIdentity(compressed if compressed is not None else zlib.compress(document),
                          key, token if token is not None else os.urandom(8))


_lock = threading.Lock()
_by_token: weakref.WeakValueDictionary[tuple[bytes, SchemaKey], Schema] = weakref.WeakValueDictionary()
_by_key: weakref.WeakValueDictionary[SchemaKey, Schema] = weakref.WeakValueDictionary()
_recent: OrderedDict[SchemaKey, Schema] = OrderedDict()


def remember(schema: Schema, identity: PickleIdentity) -> None:
    """Register a schema that is being pickled, so that this process unpickles it to itself."""
    with _lock:
        _by_token[identity.token, identity.key] = schema
        _by_key.setdefault(identity.key, schema)


def restore(identity: PickleIdentity, build: Callable[[], Schema]) -> Schema:
    """The schema of this process for a pickled identity: the object the token names,
    else the one registered under its key, else a new one from ``build``."""
    with _lock:
        schema = _by_token.get((identity.token, identity.key))
        if schema is None:
            schema = _by_key.get(identity.key)
            if schema is None:
                schema = build()
                _by_key[identity.key] = schema
            _by_token[identity.token, identity.key] = schema
        _recent[identity.key] = schema
        _recent.move_to_end(identity.key)
        while len(_recent) > RECENT_SCHEMAS:
            _recent.popitem(last=False)
        return schema


def new_record(schema: Schema, struct: str) -> Any:
    """An empty instance of ``struct``'s class in ``schema`` (its fields come next, from the pickle's state)."""
    cls: Any = schema.types[struct]
    return cls.__new__(cls)


def bind_records(schema: Schema, classes: Mapping[str, type]) -> None:
    """Make the instances of the generated ``classes`` (struct name -> class) pickle by ``schema``."""
    for struct, cls in classes.items():
        setattr(cls, "__reduce__", _record_reduce(schema, struct, cls))
        setattr(cls, "__setstate__", _record_setstate(cls))


def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))      # zebrapack_unknown included


def _record_reduce(schema: Schema, struct: str, cls: type) -> Callable[[Any], tuple[Any, ...]]:
    names = _field_names(cls)
    values: Callable[[Any], Any] = attrgetter(*names) if names else (lambda _: ())
    arguments = (schema, struct)
    if len(names) == 1:
        def __reduce__(self: Any) -> tuple[Any, ...]:
            return new_record, arguments, (values(self),)
    else:
        def __reduce__(self: Any) -> tuple[Any, ...]:
            return new_record, arguments, values(self)
    return __reduce__


def _record_setstate(cls: type) -> Callable[[Any, tuple[Any, ...]], None]:
    names = _field_names(cls)

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        if not isinstance(state, tuple) or len(state) != len(names):
            raise ValueError(f"a pickled {cls.__qualname__} carries {len(names)} field values")
        for name, value in zip(names, state):
            setattr(self, name, value)
    return __setstate__
