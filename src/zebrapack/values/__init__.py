"""Python value types for Go values that have no exact built-in counterpart: ``Ext``,
``Timestamp``, ``GoTime``, and Go's ``complex64`` in ``interface{}`` (``GoComplex64``; its
``float32`` and ``uint64``, ``GoFloat32`` and ``GoUint64``, are C types of the compiled core).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing outside it, so that its modules can depend on each other without circles.
"""
