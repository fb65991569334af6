"""The files zebrapack's readers have open in this process, so that a writer asked to
write one of them refuses before it truncates it: ``zpa.write(zpa.read(P), P)``, or
``schema.writer(P)`` fed from ``schema.iter_decode(P)``, would otherwise empty P before
its records are read.

A file is known by its device and inode, so another path to it (a link, ``./P``) is
the same file. A reader registers the object that reads it with a test that says
whether it still does (a file object: not closed); the registry keeps a weak
reference, so a reader that is dropped stops counting without unregistering.
"""

from __future__ import annotations

import os
import stat
import threading
import weakref
from collections.abc import Callable
from typing import Any

_lock = threading.Lock()
#: (device, inode) -> the readers of that file: (weak reference, "still reading?")
_readers: dict[tuple[Any, ...], list[tuple[weakref.ref[Any], Callable[[Any], bool]]]] = {}
#: The size of _readers at which readers no longer reading are forgotten.
_prune_at = 64


#: A file as the registry takes it: a path, a descriptor, or the identity of an object at a
#: URL (``("url", protocol, path)``, from ``sources.identity``).
File = str | os.PathLike[str] | int | tuple[str, str, str]


def _key(file: File) -> tuple[Any, ...] | None:
    """The identity of a regular file (a path or a descriptor) or of an object at a URL,
    or None (no such file, a pipe...)."""
    if isinstance(file, tuple):
        return file
    try:
        status = os.fstat(file) if isinstance(file, int) else os.stat(file)
    except OSError:
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def register(file: File, reader: Any, reading: Callable[[Any], bool]) -> None:
    """``reader`` reads ``file`` (a path or a descriptor) while ``reading(reader)`` is true."""
    key = _key(file)
    if key is None:
        return
    global _prune_at
    with _lock:
        _readers.setdefault(key, []).append((weakref.ref(reader), reading))
        if len(_readers) >= _prune_at:         # files read once and never written: forget them
            for other in list(_readers):
                _live(other)
            _prune_at = max(64, 2 * len(_readers))


def register_file_object(handle: Any) -> None:
    """A binary file object that reads the file until it is closed (when it has a descriptor)."""
    found = descriptor(handle)
    if found is not None:
        register(found, handle, _not_closed)


def _not_closed(handle: Any) -> bool:
    return not handle.closed


def descriptor(fileobj: Any) -> int | None:
    """The descriptor of a file object, or None (an in-memory file, a closed one...)."""
    try:
        found = fileobj.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return found if isinstance(found, int) else None


def being_read(file: File) -> bool:
    """Whether a reader of this process still reads ``file`` (a path or a descriptor)."""
    key = _key(file)
    if key is None:
        return False
    with _lock:
        return _live(key)


def _live(key: tuple[Any, ...]) -> bool:
    """Whether the file has readers still reading (the others forgotten); _lock held."""
    live = [(ref, reading) for ref, reading in _readers.get(key, ()) if _still_reading(ref, reading)]
    if live:
        _readers[key] = live
    else:
        _readers.pop(key, None)
    return bool(live)


def _still_reading(ref: weakref.ref[Any], reading: Callable[[Any], bool]) -> bool:
    reader = ref()
    return reader is not None and reading(reader)
