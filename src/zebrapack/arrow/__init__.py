"""Record files straight into Arrow: ``read`` decodes records column by column in
the core and hands out Arrow record batches through the Arrow PyCapsule
interface (pyarrow, Polars, DuckDB and pandas take them without a copy);
``arrow_schema`` is the Arrow schema ``read`` produces. The type mapping:
docs/arrow.md.

This package needs no Arrow library; only conveniences that return pyarrow
objects (``RecordBatchStream.read_all``, iteration, ``.schema``) need pyarrow.
"""

from ._read import ArrowSchemaExport, RecordBatchStream, arrow_schema, read
from ._write import write

__all__ = ["ArrowSchemaExport", "RecordBatchStream", "arrow_schema", "read", "write"]
