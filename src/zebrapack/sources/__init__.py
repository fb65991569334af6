"""Schemas from elsewhere than a ``.z`` document: Go source (``schema_from_go``,
``zebrapack schema``) and the user's dataclasses (``schema_from_dataclasses``).
A ``.z`` or ``.z.json`` document is read by the schema layer itself (``zebrapack.load``).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
