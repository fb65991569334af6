"""Pickling a ``Schema`` and the records of its generated classes.

A schema pickles as its schema document (msgpack2, zlib-compressed: about a
fifth of its size), its load options and a random token naming the ``Schema``
object it was pickled from. The process that unpickles it loads it once: a
per-process registry keyed by (document digest, options) hands every later
unpickling the same ``Schema``, so the records of one schema unpickle to
instances of one class. The registry holds the schemas that are alive (weakly)
and the most recently unpickled ones (strongly), so that a worker unpickling one
task after another keeps its schema without keeping every schema it ever saw.

The token makes a pickle seen before a plain lookup (no decompression, no
digest), and gives the process that holds the pickled object (or a fork of it)
that very object back, even when it loaded the same document twice; a schema
rebuilt in a worker pickles with the token it came with, so records sent to a
worker and back come home as instances of their original classes. (A worker
that received two such same-document schemas shares one between them, so their
records come home as instances of the classes of one of them.)

A generated class pickles as (schema, struct name), through its metaclass, and
its instances as (schema, struct name) plus the field values, set after the
instance exists so that pickle's memo handles the cycles and shared references
of the user's data. The user's own classes (``types=``) are not touched: they
pickle by reference as usual.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import os
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, NamedTuple, Protocol, TypeVar

from zebrapack._core import RecordBase

#: How many recently unpickled schemas a process keeps alive when nothing else does.
RECENT_SCHEMAS = 32



class PicklableSchema(Protocol):
    """What pickling needs of a ``Schema`` (declared here, so that the loader, which
    pickles its schemas with this module, is not imported by it): its classes."""

    @property
    def types(self) -> Mapping[str, type]: ...


S = TypeVar("S", bound=PicklableSchema)

SchemaKey = tuple[bytes, int, bool, int, tuple[tuple[str, type], ...]]
#: A pickled schema exactly as sent: (token, compressed document, options).
Origin = tuple[bytes, bytes, int, bool, int, tuple[tuple[str, type], ...]]


class PickleIdentity(NamedTuple):
    """How a schema pickles: its compressed document and token (sent with its options),
    and the key it is registered under (document digest and options)."""

    compressed: bytes
    token: bytes
    key: SchemaKey

    @property
    def origin(self) -> Origin:
        return (self.token, self.compressed, *self.key[1:])


def _options_key(types: Mapping[str, type] | None) -> tuple[tuple[str, type], ...]:
    return tuple(sorted((types or {}).items()))


def identify(document: bytes, max_depth: int, preserve_unknown: bool, zero_allowance: int,
             types: Mapping[str, type] | None) -> PickleIdentity:
    """The identity of a schema to be pickled: this document and options, a new token."""
    key = (hashlib.sha256(document).digest(), max_depth, preserve_unknown, zero_allowance, _options_key(types))
    return PickleIdentity(zlib.compress(document), os.urandom(8), key)


_lock = threading.Lock()


def _new_lock_in_child() -> None:
    # A fork made while another thread held the lock would leave the child's copy held forever.
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_new_lock_in_child)
_by_origin: weakref.WeakValueDictionary[Origin, Any] = weakref.WeakValueDictionary()
_by_key: weakref.WeakValueDictionary[SchemaKey, Any] = weakref.WeakValueDictionary()
_recent: OrderedDict[int, Any] = OrderedDict()


def remember(schema: PicklableSchema, identity: PickleIdentity) -> None:
    """Register a schema that is being pickled, so that this process unpickles it to itself."""
    with _lock:
        _by_origin[identity.origin] = schema
        _by_key.setdefault(identity.key, schema)


def restore(compressed: bytes, max_depth: int, preserve_unknown: bool, zero_allowance: int,
            types: Mapping[str, type] | None, token: bytes,
            build: Callable[[bytes, PickleIdentity], S]) -> S:
    """The schema of this process for a pickled one: the same pickle seen before gives
    the same schema at the cost of a lookup; else the schema registered under its key
    (document digest and options), else a new one from ``build(document, identity)``."""
    origin = (token, compressed, max_depth, preserve_unknown, zero_allowance, _options_key(types))
    with _lock:
        schema: S | None = _by_origin.get(origin)
        if schema is None:
            document = zlib.decompress(compressed)
            identity = PickleIdentity(compressed, token, (hashlib.sha256(document).digest(), *origin[2:]))
            schema = _by_key.get(identity.key)
            if schema is None:
                schema = build(document, identity)
                _by_key[identity.key] = schema
            _by_origin[origin] = schema
        _recent[id(schema)] = schema       # held here, so its id stays its own
        _recent.move_to_end(id(schema))
        while len(_recent) > RECENT_SCHEMAS:
            _recent.popitem(last=False)
        return schema


#: The class attribute binding a generated class to its schema (a ``_Binding``).
_BINDING = "_zebrapack_binding"


class _Binding(NamedTuple):
    arguments: tuple[PicklableSchema, str]  # what new_record takes: (schema, struct name)
    names: tuple[str, ...]                  # the fields, zebrapack_unknown included
    values: Callable[[Any], tuple[Any, ...]]


class RecordClass(type):
    """The metaclass of the generated classes: pickle sends such a class as its
    schema and struct name (registered with ``copyreg``), since it cannot import it."""


class GeneratedRecord(RecordBase, metaclass=RecordClass):
    """The base of the generated classes: an instance pickles as its schema, its
    struct name and its field values. Its C base (``RecordBase``) lets the decoder
    leave records that hold no containers untracked by the garbage collector."""

    __slots__ = ()

    def __reduce_ex__(self, protocol: Any) -> Any:
        binding = type(self).__dict__.get(_BINDING)
        if binding is None:     # a subclass of a generated class: pickled as any class is
            return object.__reduce_ex__(self, protocol)
        # The values are a state set once the instance exists, so that pickle's
        # memo resolves the references back to it (cycles).
        return new_record, binding.arguments, binding.values(self)

    def __setstate__(self, state: Any) -> None:
        binding = type(self).__dict__.get(_BINDING)
        if binding is None:     # object's state of a subclass instance: __dict__, or (__dict__, slots)
            attributes, slots = state if isinstance(state, tuple) else (state, None)
            for name, value in [*(attributes or {}).items(), *(slots or {}).items()]:
                setattr(self, name, value)
            return
        if not isinstance(state, tuple) or len(state) != len(binding.names):
            raise ValueError(f"a pickled {type(self).__qualname__} carries {len(binding.names)} field values")
        for name, value in zip(binding.names, state):
            setattr(self, name, value)


def bind_records(schema: PicklableSchema, classes: Mapping[str, type]) -> None:
    """Make the generated ``classes`` (struct name -> class) and their instances pickle by ``schema``."""
    for struct, cls in classes.items():
        names = tuple(f.name for f in dataclasses.fields(cls))
        setattr(cls, _BINDING, _Binding((schema, struct), names, _values_getter(names)))


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        single = attrgetter(names[0])
        return lambda record: (single(record),)
    return lambda record: ()


def new_record(schema: PicklableSchema, struct: str) -> Any:
    """An empty instance of ``struct``'s class in ``schema`` (its fields come next, from the pickle's state)."""
    cls: Any = schema.types[struct]
    return cls.__new__(cls)


def record_class(schema: PicklableSchema, struct: str) -> type:
    """The class of ``struct`` in ``schema`` (a generated class, unpickled)."""
    return schema.types[struct]


def _reduce_record_class(cls: type) -> Any:
    binding = cls.__dict__.get(_BINDING)
    if binding is None:     # a subclass, or a class of no schema: by reference, as any class
        return cls.__qualname__
    return record_class, binding.arguments


copyreg.pickle(RecordClass, _reduce_record_class)
