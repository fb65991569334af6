"""Python value types for Go values that have no exact built-in counterpart: ``Ext``,
``Timestamp``, ``GoTime``, and Go's number types in ``interface{}`` (``GoFloat32``,
``GoUint64``, ``GoComplex64``).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing outside it, so that its modules can depend on each other without circles.
"""
