"""The schema: its model (parsed from a .z document), the document form, the dataclasses built for it, the user's own classes, and the loader (``zebrapack.load``).

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
