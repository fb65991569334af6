"""Record files in Spark 4: a Python data source named ``zebrapack``.

::

    spark.dataSource.register(zebrapack.spark.DataSource)
    df = (spark.read.format("zebrapack").option("schema", "events.z").option("type", "Event")
          .load("/data/events/*.zpk"))

The driver plans one partition per split (per file, or per index split of a
file with a sidecar index, as ``zebrapack.dask`` does); each executor task
reads its split with ``zebrapack.arrow.read`` and hands Spark Arrow record
batches, cast to the types Spark has (docs/cluster.md):

- ``uint64``/``uint`` -> ``decimal(20,0)`` (option ``uint64=long``: ``bigint``,
  an error for a value above 2**63-1), ``uint32`` -> ``bigint``, ``uint16`` ->
  ``int``, ``uint8``/``byte`` -> ``smallint``;
- ``time.Time`` -> ``timestamp`` (microseconds, UTC): a time with nanoseconds
  below the microsecond is an error unless option ``nanoseconds=truncate``;
- ``[N]byte`` -> ``binary``, ``[N]T`` -> ``array``; the extension columns
  (complex numbers, exts, ``interface{}``'s msgpack bytes) keep their storage
  type, and their extension name in the field's metadata.

Writing: ``df.write.format("zebrapack").option("schema", ...).option("type", ...)
.mode("append" | "overwrite").save(folder)`` writes one record file per task
(``part-NNNNN-<job>.zpk``) through ``zebrapack.arrow.write``, the columns matched
to the struct's fields by name and cast back to their Go types (a value that does
not fit is an error), the fields without a column written as their zero values.

Options (strings, as Spark passes them): ``schema`` (a ``.z`` / ``.z.json``
path readable by the driver, or the ``.z.json`` document itself), ``type``,
``columns`` (comma-separated Go field names or dotted paths), ``split_records``,
``split_bytes``, ``batch_rows``, ``strict`` (``true``/``false``), ``uint64``
(``decimal``/``long``), ``nanoseconds`` (``error``/``truncate``), ``index``
(writing: ``true`` writes each file's sidecar index). Needs pyspark 4 and pyarrow
(``pip install 'zebrapack[spark]'``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import datasource
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_schema

from . import arrow as zpa
from .arrow.jobs import FolderJob
from .arrow.metadata_keys import EXTENSION_METADATA, EXTENSION_NAME
from .recordio.index_format import Split
from .schema.loader import Schema, load
from .streams.planning import plan_splits

__all__ = ["DataSource", "spark_schema"]

NAME = "zebrapack"
_UINT64_CHOICES = ("decimal", "long")
_NANOSECONDS_CHOICES = ("error", "truncate")
#: Field metadata keys of the Spark schema that keep what the Arrow extension said.
SPARK_EXTENSION_KEY = "zebrapack.extension"
SPARK_EXTENSION_METADATA_KEY = "zebrapack.extension_metadata"


# -- types ---------------------------------------------------------------------

def _spark_type(arrow_type: pa.DataType, uint64: str) -> st.DataType:
    if pa.types.is_uint64(arrow_type):
        return st.DecimalType(20, 0) if uint64 == "decimal" else st.LongType()
    simple = _SIMPLE.get(arrow_type)
    if simple is not None:
        return simple
    if pa.types.is_timestamp(arrow_type):
        return st.TimestampType()
    if pa.types.is_binary(arrow_type) or pa.types.is_fixed_size_binary(arrow_type):
        return st.BinaryType()
    if pa.types.is_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        return st.ArrayType(_spark_type(arrow_type.value_type, uint64))
    if pa.types.is_map(arrow_type):
        return st.MapType(_spark_type(arrow_type.key_type, uint64), _spark_type(arrow_type.item_type, uint64))
    if pa.types.is_struct(arrow_type):
        return st.StructType([_spark_field(arrow_type.field(i), uint64) for i in range(arrow_type.num_fields)])
    raise TypeError(f"no Spark type for the Arrow type {arrow_type}")


_SIMPLE: dict[pa.DataType, st.DataType] = {
    pa.bool_(): st.BooleanType(), pa.string(): st.StringType(),
    pa.int8(): st.ByteType(), pa.int16(): st.ShortType(), pa.int32(): st.IntegerType(), pa.int64(): st.LongType(),
    pa.uint8(): st.ShortType(), pa.uint16(): st.IntegerType(), pa.uint32(): st.LongType(),
    pa.float32(): st.FloatType(), pa.float64(): st.DoubleType(),
}


def _spark_field(field: pa.Field, uint64: str) -> st.StructField:
    metadata = {}
    arrow_metadata = field.metadata or {}
    if EXTENSION_NAME.encode() in arrow_metadata:
        metadata[SPARK_EXTENSION_KEY] = arrow_metadata[EXTENSION_NAME.encode()].decode()
        extension_metadata = arrow_metadata.get(EXTENSION_METADATA.encode(), b"").decode()
        if extension_metadata:
            metadata[SPARK_EXTENSION_METADATA_KEY] = extension_metadata
    # Nullable, as Spark makes the columns of its own file sources: its Arrow conversions
    # refuse a non-nullable field inside a struct that is null.
    return st.StructField(field.name, _spark_type(field.type, uint64), True, metadata)


def spark_schema(schema: Schema, type: Any = None, *, columns: list[str] | None = None,
                 uint64: str = "decimal") -> st.StructType:
    """The Spark schema of the rows the data source reads for ``schema``'s struct
    ``type`` (and ``columns``), with the casts of this module's docstring."""
    _check_choice("uint64", uint64, _UINT64_CHOICES)
    arrow = pa.schema(zpa.arrow_schema(schema, type, columns=columns, time_unit="us"))
    return st.StructType([_spark_field(field, uint64) for field in arrow])


def _check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"option {option} must be one of {', '.join(choices)}, not {value!r}")


# -- options -------------------------------------------------------------------

@dataclass(frozen=True)
class Options:
    """The data source's options (reading and writing), parsed and checked on the driver."""

    schema: Schema
    type: str
    columns: tuple[str, ...] | None
    split_records: int | None
    split_bytes: int | None
    batch_rows: int
    strict: bool
    uint64: str
    nanoseconds: str
    index: bool
    storage_options: dict[str, Any] | None = None

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> Options:
        given = {key.lower(): value for key, value in options.items()}
        if "schema" not in given:
            raise ValueError("the zebrapack data source needs option 'schema': a .z or .z.json path, "
                             "or the .z.json document")
        storage_options = _storage_options(given)
        schema = _load_schema(given["schema"], storage_options)
        columns = None
        if given.get("columns"):
            columns = tuple(name.strip() for name in given["columns"].split(",") if name.strip())
        uint64 = given.get("uint64", "decimal").lower()
        nanoseconds = given.get("nanoseconds", "error").lower()
        _check_choice("uint64", uint64, _UINT64_CHOICES)
        _check_choice("nanoseconds", nanoseconds, _NANOSECONDS_CHOICES)
        struct = zpa.arrow_schema(schema, given.get("type") or None, columns=columns).field.struct
        return cls(schema, struct, columns, _int_option(given, "split_records"), _int_option(given, "split_bytes"),
                   _int_option(given, "batch_rows") or 65536, _bool_option(given, "strict"), uint64, nanoseconds,
                   _bool_option(given, "index"), storage_options)

    def spark_schema(self) -> st.StructType:
        return spark_schema(self.schema, self.type, columns=None if self.columns is None else list(self.columns),
                            uint64=self.uint64)


def _load_schema(value: str, storage_options: dict[str, Any] | None) -> Schema:
    if value.lstrip().startswith("{"):
        try:
            document = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"option schema: not a .z.json document: {exc}") from None
        return load(document)
    return load(value, storage_options=storage_options)


def _storage_options(options: Mapping[str, str]) -> dict[str, Any] | None:
    """Option ``storage_options``: fsspec's options for URLs, as a JSON object."""
    value = options.get("storage_options")
    if not value:
        return None
    try:
        parsed = json.loads(value)
    except ValueError as exc:
        raise ValueError(f"option storage_options: not a JSON object: {exc}") from None
    if not isinstance(parsed, dict):
        raise ValueError("option storage_options must be a JSON object")
    return parsed


def _int_option(options: Mapping[str, str], name: str) -> int | None:
    value = options.get(name)
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"option {name} must be an integer, not {value!r}") from None
    if number < 1:
        raise ValueError(f"option {name} must be positive, not {number}")
    return number


def _bool_option(options: Mapping[str, str], name: str) -> bool:
    value = options.get(name, "false").lower()
    if value not in ("true", "false"):
        raise ValueError(f"option {name} must be true or false, not {value!r}")
    return value == "true"


def _paths(options: Mapping[str, str]) -> list[str]:
    given = {key.lower(): value for key, value in options.items()}
    if "paths" in given:             # load([a, b]): a JSON array
        return list(json.loads(given["paths"]))
    if given.get("path"):
        return [given["path"]]
    raise ValueError("the zebrapack data source needs a path: .load(path), a folder or a glob, or a list of them")


# -- reading -------------------------------------------------------------------

class SplitPartition(datasource.InputPartition):
    """One split of one record file (it pickles to the executor that reads it)."""

    def __init__(self, split: Split) -> None:
        super().__init__(split)
        self.split = split


class DataSource(datasource.DataSource):
    """The ``zebrapack`` data source (register it with ``spark.dataSource.register``)."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> st.StructType:
        return Options.parse(self.options).spark_schema()

    def reader(self, schema: st.StructType) -> Reader:
        return Reader(Options.parse(self.options), _paths(self.options), schema)

    def writer(self, schema: st.StructType, overwrite: bool) -> Writer:
        return Writer(Options.parse(self.options), _output_folder(self.options), schema, overwrite)


class Reader(datasource.DataSourceReader):
    """Plans the splits on the driver; reads one split per task, as Arrow batches."""

    def __init__(self, options: Options, paths: list[str], schema: st.StructType) -> None:
        names = schema.fieldNames()
        if names != options.spark_schema().fieldNames():
            # A schema given to spark.read.schema(...): its columns are the ones read.
            options = dataclasses.replace(options, columns=tuple(names))
        self.options = options
        self.paths = paths
        self.target = to_arrow_schema(schema, timezone="UTC")

    def partitions(self) -> list[datasource.InputPartition]:
        splits = plan_splits(self.paths, split_records=self.options.split_records,
                             split_bytes=self.options.split_bytes, storage_options=self.options.storage_options)
        return [SplitPartition(split) for split in splits]

    def read(self, partition: datasource.InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, SplitPartition)
        options = self.options
        truncate = options.nanoseconds == "truncate"
        stream = zpa.read(partition.split, options.schema, options.type, columns=options.columns,
                          batch_rows=options.batch_rows, time_unit="ns" if truncate else "us",
                          strict=options.strict)
        for batch in stream:
            if truncate:
                batch = _truncate_times(batch)
            yield _cast(batch, self.target, f"{partition.split.path}: split {partition.split.start}.."
                                            f"{partition.split.stop}", " (option uint64=decimal holds every uint64)")


def _rebuilt(field: pa.Field, leaf: Callable[[pa.DataType], pa.DataType], nullable: bool | None) -> pa.Field:
    """``field`` with ``leaf`` applied to every type that holds no other, and (unless
    ``nullable`` is None) every field nullable or not, map keys apart."""
    arrow_type = field.type
    if pa.types.is_struct(arrow_type):
        arrow_type = pa.struct([_rebuilt(arrow_type.field(i), leaf, nullable) for i in range(arrow_type.num_fields)])
    elif pa.types.is_map(arrow_type):
        arrow_type = pa.map_(_rebuilt(arrow_type.key_field, leaf, None), _rebuilt(arrow_type.item_field, leaf, nullable))
    elif pa.types.is_fixed_size_list(arrow_type):
        arrow_type = pa.list_(_rebuilt(arrow_type.value_field, leaf, nullable), arrow_type.list_size)
    elif pa.types.is_list(arrow_type):
        arrow_type = pa.list_(_rebuilt(arrow_type.value_field, leaf, nullable))
    else:
        arrow_type = leaf(arrow_type)
    return field.with_type(arrow_type).with_nullable(field.nullable if nullable is None else nullable)


def _microseconds(arrow_type: pa.DataType) -> pa.DataType:
    return pa.timestamp("us", arrow_type.tz) if pa.types.is_timestamp(arrow_type) else arrow_type


def _truncate_times(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Nanosecond times truncated to microseconds (toward 1970), nothing else changed:
    the unsafe cast is confined to the times."""
    target = pa.schema([_rebuilt(field, _microseconds, None) for field in batch.schema])
    return batch if target.equals(batch.schema) else batch.cast(target, safe=False)


def _cast(batch: pa.RecordBatch, target: pa.Schema, where: str, hint: str = "") -> pa.RecordBatch:
    """The batch with the ``target`` types; a value a target type cannot hold is a
    ``ValueError`` naming ``where`` and the column (and ``hint``, for an integer out of range)."""
    try:
        return batch.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        error, name = exc, "?"
        for column_name, column, field in zip(batch.schema.names, batch.columns, target, strict=True):
            try:
                column.cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as column_error:
                error, name = column_error, column_name
                break
        raise ValueError(f"{where}: column {name}: {error}{hint if 'not in range' in str(error) else ''}") from None


# -- writing -------------------------------------------------------------------

def _output_folder(options: Mapping[str, str]) -> str:
    paths = _paths(options)
    if len(paths) != 1:
        raise ValueError(f"writing needs one output folder, not {paths}")
    return paths[0]


@dataclass(frozen=True)
class WrittenFiles(datasource.WriterCommitMessage):
    """The files one task wrote into the job's staging folder (names only)."""

    names: tuple[str, ...]


class Writer(datasource.DataSourceArrowWriter):
    """Writes each task's rows as one record file ``part-NNNNN-<job>.zpk``: into
    ``FOLDER/_temporary/<job>/`` while the job runs, moved into the folder when it
    commits, removed if it aborts (so a failed job changes nothing). The folder may be
    a URL (``s3a://bucket/out``): each object is written whole."""

    def __init__(self, options: Options, folder: str, schema: st.StructType, overwrite: bool) -> None:
        self.options = options
        self.overwrite = overwrite
        self.job = FolderJob(folder, options.storage_options)
        self.columns = schema.fieldNames()
        wanted = pa.schema(zpa.arrow_schema(options.schema, options.type, time_unit="us"))
        unknown = [name for name in self.columns if name not in wanted.names]
        if unknown:
            raise ValueError(f"no such field in {options.type}: {', '.join(unknown)} "
                             f"(its fields: {', '.join(wanted.names)})")
        # Spark's columns cast back to the struct's own Arrow types (decimal(20,0) -> uint64,
        # bigint -> uint32...), each value checked; the struct's other fields take their zero
        # values. Nullable as Spark's are (a null struct's children are null): where a null
        # is not allowed, the writer refuses it.
        self.target = pa.schema([_rebuilt(wanted.field(name), lambda leaf: leaf, True) for name in self.columns])

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WrittenFiles:
        from pyspark import TaskContext

        context = TaskContext.get()
        partition = context.partitionId() if context is not None else 0
        where = f"part-{partition:05d}"
        batches = (_cast(batch, self.target, where) for batch in iterator)
        return WrittenFiles(self.job.write_part(partition, batches, self.target, self.options.schema,
                                                self.options.type, index=self.options.index))

    def commit(self, messages: list[datasource.WriterCommitMessage | None]) -> None:
        names = [name for message in messages if isinstance(message, WrittenFiles) for name in message.names]
        self.job.commit(names, overwrite=self.overwrite)

    def abort(self, messages: list[datasource.WriterCommitMessage | None]) -> None:
        self.job.abort()
