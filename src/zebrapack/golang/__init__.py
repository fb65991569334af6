"""Go source: the type-syntax parser, the Go-to-schema compiler (``zebrapack schema``) and the schema-to-Go emitter (``zebrapack go``).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
