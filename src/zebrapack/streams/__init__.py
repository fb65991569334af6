"""Streams and files of records beyond reading and writing them (``zebrapack.recordio``):
streams that carry their schema first, the sidecar index and splits of a file, the
planning of splits over many files, and the recovery of a torn file.

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
