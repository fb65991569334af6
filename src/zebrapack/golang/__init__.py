"""Go source from a schema: the schema-to-Go emitter (``zebrapack go``, ``zebrapack.go_source``).

Go source into a schema is ``zebrapack.sources.from_go``; the Go type-spelling parser
both use is ``zebrapack.schema.type_spelling``.
The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
