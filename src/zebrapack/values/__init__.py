"""Python value types for Go values that have no exact built-in counterpart (``Ext``, ``Timestamp``).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
