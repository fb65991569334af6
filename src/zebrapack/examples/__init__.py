"""Example data shipped with the package, for trying zebrapack without other files.

- ``GO_SOURCE``: ``zp.go``, Go structs with ``zid`` tags: ``A`` (the ZebraPack
  README's record) and structs holding every kind of field;
- ``SCHEMA``: ``zp.z``, that source compiled by the Go reference compiler
  (``zebrapack -write-schema``), and ``SCHEMA_JSON``, the same as ``zp.z.json``;
- ``RECORDS``: ``A_records.zpk``, five ``A`` records written by the Go reference.

Copy them where you work (``shutil.copy(zebrapack.examples.SCHEMA, ".")``) or
use the paths as they are.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["GO_SOURCE", "RECORDS", "SCHEMA", "SCHEMA_JSON"]

_HERE = Path(__file__).resolve().parent

GO_SOURCE = _HERE / "zp.go"
SCHEMA = _HERE / "zp.z"
SCHEMA_JSON = _HERE / "zp.z.json"
RECORDS = _HERE / "A_records.zpk"
