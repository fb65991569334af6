"""Python modules generated from compiled schemas (``zebrapack gen``).

Built the way tinylib/msgp builds Go code, in four steps:

- parse: the schema loader (``zebrapack.load``) gives the normalized
  ``SchemaDef`` (``schema.model``);
- model (``model.py``): the module to write: classes in definition order,
  field annotations and zero values by the rules of ``schema.types``, names
  checked and aliases chosen;
- emit (``emit.py``): one emitter per part of the module (header and imports,
  each dataclass, the schema binding), spelling Python objects as source with
  ``expressions.py``;
- print (``printer.py``): lines, indentation, docstrings, wrapped literals.

The output depends on the schema only: the same schema, from a ``.z``, a
``.z.json`` or its Go source, gives the same text.
"""

from __future__ import annotations

from ..schema.model import SchemaDef
from .emit import emit_module
from .model import build_module

__all__ = ["generate_module"]


def generate_module(schema: SchemaDef) -> str:
    """The Python module for a parsed schema (``zebrapack.load(...).model``).

    Raises ``SchemaError`` for names a module cannot use (a struct called ``schema``).
    """
    return emit_module(build_module(schema))
