"""The field-metadata keys of Arrow extension types (the Arrow columnar format's own
names), for whatever reads or writes zebrapack's extension types: the type mapping,
and the Spark data source, which carries them into Spark's field metadata."""

EXTENSION_NAME = "ARROW:extension:name"
EXTENSION_METADATA = "ARROW:extension:metadata"
