"""The three error types of zebrapack. All are ``ValueError`` subclasses."""

from __future__ import annotations


class SchemaError(ValueError):
    """A compiled schema (or a class offered for it) is malformed.

    ``struct`` and ``field`` name where, when known.
    """

    def __init__(self, message: str, struct: str | None = None, field: str | None = None) -> None:
        self.reason = message
        self.struct = struct
        self.field = field
        where = ".".join(part for part in (struct, field) if part)
        super().__init__(f"{where}: {message}" if where else message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.struct, self.field))


class _CodecError(ValueError):
    """Common shape of DecodeError and EncodeError: a reason, a field path, a byte offset."""

    def __init__(self, message: str, path: str = "$", offset: int | None = None) -> None:
        self.reason = message
        self.path = path
        self.offset = offset
        text = f"{path}: {message}"
        if offset is not None:
            text += f" (byte offset {offset})"
        super().__init__(text)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.path, self.offset))


class DecodeError(_CodecError):
    """Bytes that do not decode under the schema.

    ``path`` is the field path (``Compound.Inners[2].X``), ``offset`` the byte
    offset in the input where the offending value starts.
    """


class TornTailError(DecodeError):
    """The input ended inside a record: a torn tail, such as a writer killed mid-write
    or a connection closed mid-record leaves.

    Every record before it was complete, and the reader has delivered them. ``offset``
    is where the torn record starts, which is where the valid data ends: truncating the
    file there leaves only complete records, and appending may resume from it.
    """


class EncodeError(_CodecError):
    """A value that does not fit the declared type (what the Go reader would reject).

    ``path`` is the field path; ``offset`` is the output position reached.
    """
