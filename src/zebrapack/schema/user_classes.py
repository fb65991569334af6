"""User classes for a schema's structs (``zebrapack.load(..., types=...)``).

Generated classes are a fast path, not a special case: any class that takes
the schema's fields as keyword arguments (dataclasses above all) can stand in
for a struct. Slots dataclasses whose fields are exactly the schema's are
filled slot by slot like the generated ones (``__post_init__`` is called if
defined, ``__init__`` is not); other classes are called with the fields as
keyword arguments. A class deriving from ``zebrapack.Record`` or ``FrozenRecord``
(schema/record_bases.py) is refused if its records could not be left untracked by
the garbage collector safely.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from types import ModuleType

from .._errors import SchemaError
from .model import UNKNOWN_ATTR, SchemaDef, StructDef, python_name
from .record_bases import FrozenRecord, Record, check_record_class


def check_user_classes(schema: SchemaDef, types: Mapping[str, type] | object,
                       preserve_unknown: bool = False) -> dict[str, type]:
    """The user's classes by struct name, each checked to hold its struct's fields
    (and, with ``preserve_unknown``, a ``zebrapack_unknown`` attribute)."""
    if isinstance(types, Mapping):
        unknown = sorted(set(types) - set(schema.structs))
        if unknown:
            raise SchemaError(f"types names structs the schema does not have: {', '.join(unknown)}")
        chosen = dict(types)
    elif isinstance(types, ModuleType) or hasattr(types, "__dict__"):
        chosen = {}
        for name in schema.structs:
            candidate = getattr(types, python_name(name), None)
            if candidate is not None:
                chosen[name] = candidate
    else:
        raise TypeError(f"types must be a mapping or a module, not {type(types).__name__}")
    for name, cls in chosen.items():
        _check_class(schema.structs[name], cls)
        if issubclass(cls, (Record, FrozenRecord)):
            refusal = check_record_class(cls)
            if refusal is not None:
                raise SchemaError(f"{cls.__qualname__} {refusal}", name)
        if preserve_unknown and not _can_hold_unknown(cls):
            raise SchemaError(f"preserve_unknown needs a {UNKNOWN_ATTR!r} field (or __dict__) on "
                              f"{cls.__qualname__}", name)
    return chosen


def _can_hold_unknown(cls: type) -> bool:
    if dataclasses.is_dataclass(cls) and UNKNOWN_ATTR in {f.name for f in dataclasses.fields(cls)}:
        return True
    return any(UNKNOWN_ATTR in getattr(base, "__slots__", ()) or "__dict__" in getattr(base, "__dict__", {})
               for base in cls.__mro__ if base is not object)


def _check_class(struct: StructDef, cls: object) -> None:
    if not isinstance(cls, type):
        raise SchemaError(f"the class given for it is not a class ({cls!r})", struct.name)
    wanted = [f.attr for f in struct.wire_fields]
    if dataclasses.is_dataclass(cls):
        wanted_or_unknown = [*wanted, UNKNOWN_ATTR]
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for attr in wanted:
            if attr not in fields:
                raise SchemaError(f"{cls.__qualname__} has no field for it", struct.name, attr)
            if not fields[attr].init:
                raise SchemaError(f"{cls.__qualname__}.{attr} is not an __init__ field", struct.name, attr)
        for extra, f in fields.items():
            missing = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            if extra not in wanted_or_unknown and f.init and missing:
                raise SchemaError(
                    f"{cls.__qualname__}.{extra} is not in the schema and has no default", struct.name, extra)
        return
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"cannot inspect {cls.__qualname__}: {exc}", struct.name) from exc
    parameters = signature.parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    for attr in wanted:
        parameter = parameters.get(attr)
        if parameter is None and not takes_any:
            raise SchemaError(f"{cls.__qualname__}() takes no {attr!r} argument", struct.name, attr)
        if parameter is not None and parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise SchemaError(f"{cls.__qualname__}() takes {attr!r} only by position", struct.name, attr)
    for attr, parameter in parameters.items():
        if attr not in wanted and parameter.default is inspect.Parameter.empty and parameter.kind in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            raise SchemaError(f"{cls.__qualname__}() requires {attr!r}, which is not in the schema",
                              struct.name, attr)
