"""Schema evolution: the compatibility checker (``zebrapack check``, ``zebrapack.check_compatible``).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
