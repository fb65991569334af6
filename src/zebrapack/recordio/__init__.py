"""Records in and out of bytes, whatever the schema: where bytes live (local paths, fsspec
URLs, files, pipes, sockets), reading records as their bytes arrive and appending them
(``RecordWriter``, ``AsyncRecordWriter``), torn tails, stepping over a file's records,
and the sidecar index's file format.

Below the schema layer: a schema is only what ``records.Schema`` (a protocol) asks of it.
The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
