"""Text forms of records: the typed JSON of ``dump``/``encode`` and the raw msgpack dump with byte offsets.

The public names are re-exported by ``zebrapack``; this package keeps no state
and imports nothing, so that its modules can depend on each other without circles.
"""
