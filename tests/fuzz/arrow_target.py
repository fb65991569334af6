"""The Arrow reader's fuzz target: every input is read through zebrapack.arrow.read
with the decode target's (schema, type) pairs; only DecodeError may escape, every
table passes pyarrow's full validation, and what Arrow accepts decode accepts."""

from __future__ import annotations

import warnings

import pyarrow

import zebrapack.arrow as zpa
from zebrapack import DecodeError
from decode_target import check_error, configs


def check_arrow(data: bytes) -> None:
    """Raise AssertionError (or the unexpected exception) when the input breaks a rule."""
    strict = bool(data) and bool(data[-1] & 1)
    for schema, type_name in configs():
        if type_name is None:
            if len(schema.structs) != 1:
                continue
            type_name = next(iter(schema.structs))
        try:
            table = zpa.read(data, schema, type_name, strict=strict, time_unit="us", batch_rows=7).read_all()
        except DecodeError as error:
            check_error(error, len(data))
            continue
        table.validate(full=True)
        assert isinstance(table, pyarrow.Table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert len(schema.decode_all(data, type_name, strict=strict)) == table.num_rows
