"""Streams of records: reading and writing them, and streams that carry their schema first.

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
