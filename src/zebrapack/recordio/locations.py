"""Where record files live: local paths, and the URLs of fsspec filesystems (``s3://``,
``s3a://``, ``gs://``, ``abfs://``, ``memory://``, ``file://``...). Every reader and
writer of a path comes here, so that URLs are handled in this one place.

A local path (or a ``file://`` URL, turned into one) stays a path: the readers open it
themselves (C stdio in the Arrow reader, ``mmap`` for scans). Any other URL is opened
through fsspec (an optional extra: ``pip install 'zebrapack[fsspec]'``, plus the
filesystem's own package, s3fs for S3) with the caller's ``storage_options``:

- reading: ``RemoteFile``, a seekable binary file over one byte range of the object,
  fetched with ranged reads of ``read_ahead`` bytes at most past what is asked and
  never past the range (a split never downloads the rest of its object); on S3 every
  read is pinned to the object's ETag, so an object replaced mid-read is an error,
  never a mix of two versions;
- writing: ``ObjectOutput``, a whole object: it appears (or replaces the old one) when
  it is committed, complete, and a discarded one leaves nothing. Object stores write
  the final name once (a multipart upload completed at the commit); other filesystems
  write a hidden temporary name beside it and move it into place.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from .reading import register, register_file_object

StorageOptions = Mapping[str, Any] | None
T = TypeVar("T")
Location = str | os.PathLike[str]

#: Bytes fetched past what a reader asks for (and at least this much per request):
#: one request per read-ahead block. Object stores answer large ranged reads best.
READ_AHEAD = 8 << 20
#: Protocols whose writes become visible only when committed whole (multipart or
#: resumable uploads completed at the commit): written at the final name once.
_WHOLE_OBJECT_PROTOCOLS = frozenset({"s3", "s3a", "gs", "gcs", "abfs", "abfss", "az", "adl", "oss", "oci"})
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


def is_url(location: object) -> bool:
    """Whether ``location`` is a URL (``scheme://...``, or a chained ``a::b://...``) other than ``file://``."""
    if not isinstance(location, str):
        return False
    if location.startswith("file://"):
        return False
    return bool(_SCHEME.match(location)) or ("::" in location and "://" in location)


def local_path(location: Location) -> str | None:
    """The local path of ``location`` (a path, or a ``file://`` URL), or None for another URL."""
    if isinstance(location, str):
        if location.startswith("file://"):
            path = location[len("file://"):]
            return path if path.startswith("/") else "/" + path
        if is_url(location):
            return None
    return os.fspath(location)


def check_location(location: object) -> None:
    if not isinstance(location, (str, os.PathLike)):
        raise TypeError(f"a path is a str or os.PathLike (or a URL string), not {location!r}")


def filesystem(url: str, storage_options: StorageOptions = None) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` (made with ``storage_options``) and the object's path in it."""
    try:
        import fsspec
    except ImportError:
        raise ImportError(f"{url}: reading and writing URLs needs fsspec: pip install 'zebrapack[fsspec]' "
                          "(and the filesystem's package: s3fs for s3://, gcsfs for gs://, adlfs for abfs://)") \
            from None
    try:
        fs, path = fsspec.core.url_to_fs(url, **dict(storage_options or {}))
        return fs, str(path)
    except ImportError as exc:      # fsspec knows the protocol, its package is missing
        raise ImportError(f"{url}: {exc}") from None
    except ValueError as exc:       # an unknown protocol
        raise ValueError(f"{url}: {exc}") from None


def identity(location: Location, storage_options: StorageOptions = None) -> str | tuple[str, str, str]:
    """What the readers' registry knows a file by: a local path, or (for a URL) its
    filesystem's protocol and its path there (``s3://`` and ``s3a://`` are one object)."""
    path = local_path(location)
    if path is not None:
        return path
    fs, fs_path = filesystem(os.fspath(location), storage_options)
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return ("url", protocol, fs_path)


def remote_error(url: str, doing: str, error: BaseException) -> OSError:
    """An object store's failure as an ``OSError`` saying what failed on which object: of
    the store's own class (``FileNotFoundError``, ``PermissionError``...), or a plain
    ``OSError`` for anything else (a dropped connection, a protocol error)."""
    reason = f"{type(error).__name__}: {error}" if not isinstance(error, OSError) else \
        (error.strerror or str(error) or type(error).__name__)
    text = f"{doing} {url} failed: {reason}"
    code = getattr(error, "errno", None) or errno.EIO
    if isinstance(error, OSError):
        try:
            return type(error)(code, text)
        except TypeError:       # an OSError subclass of another signature
            pass
    return OSError(code, text)


# -- reading ---------------------------------------------------------------------------

class RemoteFile:
    """A read-only, seekable binary file over the bytes ``start..stop`` of an object at a URL.

    ``read(n)`` fetches with a ranged read from the current position up to ``read_ahead``
    bytes past it (or ``n``, if more), but never past ``stop``, and serves the next reads
    from what it holds. A range read that returns fewer bytes than the object has there
    (a connection dropped mid-read) is an ``OSError``, never an early end.
    ``bytes_fetched`` counts the bytes fetched.
    """

    def __init__(self, url: str, storage_options: StorageOptions = None, *, start: int = 0,
                 stop: int | None = None, read_ahead: int | None = None) -> None:
        from fsspec.spec import AbstractBufferedFile

        read_ahead = READ_AHEAD if read_ahead is None else read_ahead
        self.name = url
        self._fs, self._path = filesystem(url, storage_options)
        try:
            handle = self._fs.open(self._path, "rb", cache_type="none", block_size=read_ahead)
        except Exception as exc:
            raise remote_error(url, "opening", exc) from exc
        if isinstance(handle, AbstractBufferedFile):
            self._handle: Any = handle      # its reads are ranged reads (pinned to the ETag on S3)
            self.size = int(handle.size)
        else:       # a file object of the filesystem's own (memory://): ranged reads by cat_file
            handle.close()
            self._handle = None
            try:
                self.size = int(self._fs.size(self._path))
            except Exception as exc:
                raise remote_error(url, "reading the size of", exc) from exc
        self._stop = self.size if stop is None else min(stop, self.size)
        self._position = start
        self._read_ahead = read_ahead
        self._held = b""
        self._held_at = 0
        self.bytes_fetched = 0
        self.closed = False

    def _fetch(self, start: int, stop: int) -> bytes:
        try:
            if self._handle is not None:
                self._handle.seek(start)
                data = self._handle.read(stop - start)
            else:
                data = self._fs.cat_file(self._path, start=start, end=stop)
        except Exception as exc:
            raise remote_error(self.name, f"reading bytes {start}..{stop} of", exc) from exc
        self.bytes_fetched += len(data)
        if len(data) != stop - start:
            raise OSError(errno.EIO, f"reading bytes {start}..{stop} of {self.name} (a {self.size}-byte object) gave "
                             f"{len(data)} bytes: the connection or the store failed mid-read")
        return bytes(data)

    def read(self, size: int = -1, /) -> bytes:
        if self.closed:
            raise ValueError("read of a closed file")
        left = self._stop - self._position
        size = left if size is None or size < 0 else min(size, left)
        if size <= 0:
            return b""
        offset = self._position - self._held_at
        if not 0 <= offset <= len(self._held):
            offset, self._held, self._held_at = 0, b"", self._position
        if offset + size > len(self._held):
            kept = self._held[offset:]
            fetch_from = self._position + len(kept)
            fetch_to = min(self._stop, max(self._position + size, fetch_from + self._read_ahead))
            self._held, self._held_at, offset = kept + self._fetch(fetch_from, fetch_to), self._position, 0
        chunk = self._held[offset:offset + size]
        self._position += len(chunk)
        return chunk

    def seek(self, offset: int, whence: int = 0, /) -> int:
        base = {0: 0, 1: self._position, 2: self.size}[whence]
        if base + offset < 0:
            raise ValueError(f"negative seek position {base + offset}")
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        return self._position

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._held = b""
            if self._handle is not None:
                self._handle.close()

    def __enter__(self) -> RemoteFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<zebrapack RemoteFile {self.name} {self._position}/{self._stop}>"


def _open_file(handle: Any) -> bool:
    return not handle.closed


def open_input(location: Location, storage_options: StorageOptions = None, *, start: int = 0,
               stop: int | None = None, read_ahead: int | None = None) -> Any:
    """A binary file reading ``location`` (a local file, or a ``RemoteFile`` over
    ``start..stop`` of a URL's object), positioned at ``start`` and registered as read
    (a writer of this process refuses to overwrite it while it is open)."""
    path = local_path(location)
    if path is None:
        remote = RemoteFile(os.fspath(location), storage_options, start=start, stop=stop, read_ahead=read_ahead)
        register(identity(remote.name, storage_options), remote, _open_file)
        return remote
    handle = open(path, "rb")
    register_file_object(handle)
    if start:
        handle.seek(start)
    return handle


def file_size(handle: Any) -> int:
    """The size of the file an ``open_input`` handle reads."""
    if isinstance(handle, RemoteFile):
        return handle.size
    return os.fstat(handle.fileno()).st_size


def _on_filesystem(location: Location, storage_options: StorageOptions, local: Callable[[str], T],
                   remote: Callable[[Any, str], T], doing: str) -> T:
    """``local(path)`` for a local path, ``remote(fs, path)`` on a URL's filesystem (its
    failure an ``OSError`` saying ``doing`` what to which URL)."""
    path = local_path(location)
    if path is not None:
        return local(path)
    url = os.fspath(location)
    fs, fs_path = filesystem(url, storage_options)
    try:
        return remote(fs, fs_path)
    except Exception as exc:
        raise remote_error(url, doing, exc) from exc


def input_size(location: Location, storage_options: StorageOptions = None) -> int:
    return _on_filesystem(location, storage_options, os.path.getsize, lambda fs, path: int(fs.size(path)),
                          "reading the size of")


def exists(location: Location, storage_options: StorageOptions = None) -> bool:
    return _on_filesystem(location, storage_options, os.path.exists, lambda fs, path: bool(fs.exists(path)),
                          "looking up")


def read_bytes(location: Location, storage_options: StorageOptions = None, *, limit: int | None = None) -> bytes:
    """The whole content of a (small) file; more than ``limit`` bytes is a ``ValueError``."""
    with open_input(location, storage_options) as handle:
        data: bytes = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise ValueError(f"{os.fspath(location)}: larger than {limit} bytes")
    return data


# -- folders and globs -------------------------------------------------------------------

def has_magic(location: Location) -> bool:
    return glob.has_magic(os.fspath(location))


def list_files(location: Location, storage_options: StorageOptions = None) -> tuple[str, list[str]]:
    """What ``location`` names: ``("file", [it])``, ``("folder", its files)`` (one level,
    sorted), ``("glob", its matching files)`` (sorted; ``**`` crosses folders), or
    ``("missing", [])``. Files are given as local paths or URLs of the same scheme."""
    path = local_path(location)
    if path is not None:
        if os.path.isdir(path):
            return "folder", sorted(os.path.join(path, entry.name) for entry in os.scandir(path) if entry.is_file())
        if os.path.exists(path):
            return "file", [path]
        if glob.has_magic(path):
            return "glob", sorted(match for match in glob.glob(path, recursive=True) if os.path.isfile(match))
        return "missing", []
    url = os.fspath(location)
    fs, fs_path = filesystem(url, storage_options)
    fs.invalidate_cache()       # listings change as writers work elsewhere: never a stale one
    try:
        if glob.has_magic(fs_path):
            found = fs.glob(fs_path, detail=True)
            return "glob", sorted(_url_of(url, fs, name) for name, info in found.items() if info["type"] == "file")
        if fs.isdir(fs_path):
            return "folder", sorted(_url_of(url, fs, info["name"]) for info in fs.ls(fs_path, detail=True)
                                    if info["type"] == "file")
        if fs.isfile(fs_path):
            return "file", [url]
    except Exception as exc:
        raise remote_error(url, "listing", exc) from exc
    return "missing", []


def _url_of(given: str, fs: Any, name: str) -> str:
    """The URL of the object ``name`` of ``fs``, in the scheme of the URL ``given`` (``s3a://`` stays ``s3a://``)."""
    scheme = given.split("://", 1)[0]
    protocols = (fs.protocol,) if isinstance(fs.protocol, str) else tuple(fs.protocol)
    if "::" not in given and scheme in protocols:
        return f"{scheme}://{name}"
    return str(fs.unstrip_protocol(name))


def join(folder: Location, name: str) -> str:
    """``folder/name`` (a URL's folder joined with ``/``)."""
    if local_path(folder) is None:
        return os.fspath(folder).rstrip("/") + "/" + name
    return os.path.join(local_path(folder) or "", name)


def basename(location: Location) -> str:
    text = os.fspath(location)
    return text.rstrip("/").rsplit("/", 1)[-1] if local_path(text) is None else os.path.basename(text)


def parent(location: Location) -> str:
    text = os.fspath(location)
    if local_path(text) is None:
        return text.rstrip("/").rsplit("/", 1)[0]
    return os.path.dirname(local_path(text) or "")


def make_folder(folder: Location, storage_options: StorageOptions = None) -> None:
    """Make a folder and its parents (on object stores, where folders are prefixes: nothing
    to make, the bucket must exist)."""
    _on_filesystem(folder, storage_options, lambda path: os.makedirs(path, exist_ok=True),
                   lambda fs, path: fs.makedirs(path, exist_ok=True), "making the folder")


def move(source: Location, target: Location, storage_options: StorageOptions = None) -> None:
    """Move a file within one filesystem (replacing ``target``): a rename on local disks,
    a server-side copy then a delete on object stores (the object appears whole)."""
    source_path, target_path = local_path(source), local_path(target)
    if source_path is not None and target_path is not None:
        os.replace(source_path, target_path)
        return
    url = os.fspath(source)
    fs, from_path = filesystem(url, storage_options)
    _, to_path = filesystem(os.fspath(target), storage_options)
    try:
        fs.mv(from_path, to_path)
    except Exception as exc:
        raise remote_error(url, f"moving to {os.fspath(target)}", exc) from exc


def remove(locations: Iterable[Location], storage_options: StorageOptions = None) -> None:
    """Remove the files that exist among ``locations``."""
    for location in locations:
        path = local_path(location)
        if path is not None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            continue
        url = os.fspath(location)
        fs, fs_path = filesystem(url, storage_options)
        try:
            if fs.exists(fs_path):
                fs.rm_file(fs_path)
        except FileNotFoundError:
            pass
        except Exception as exc:
            raise remote_error(url, "removing", exc) from exc


def remove_tree(folder: Location, storage_options: StorageOptions = None) -> None:
    """Remove a folder and everything in it (nothing when it does not exist; errors ignored:
    what is left is hidden from readers by its ``_`` or ``.`` name)."""
    path = local_path(folder)
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)
        return
    fs, fs_path = filesystem(os.fspath(folder), storage_options)
    try:
        if fs.exists(fs_path):
            fs.rm(fs_path, recursive=True)
    except Exception:       # noqa: BLE001 - best effort, as shutil.rmtree(ignore_errors=True)
        pass


# -- writing ------------------------------------------------------------------------------

class ObjectOutput:
    """A new object at a URL, written whole: ``write`` and ``flush`` upload it (the
    store may hold a part of it as it goes, invisibly), ``commit()`` makes it appear
    complete, replacing any object of that name, and ``discard()`` leaves no trace.
    ``write`` returns the bytes taken, as a raw file does."""

    def __init__(self, url: str, storage_options: StorageOptions = None) -> None:
        from fsspec.spec import AbstractBufferedFile

        self.name = url
        self._fs, self._path = filesystem(url, storage_options)
        protocols = {self._fs.protocol} if isinstance(self._fs.protocol, str) else set(self._fs.protocol)
        self._staged: str | None = None
        if not protocols & _WHOLE_OBJECT_PROTOCOLS:
            folder, _, name = self._path.rstrip("/").rpartition("/")
            self._staged = f"{folder}/.{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        target = self._path if self._staged is None else self._staged
        try:
            self._file = self._fs.open(target, "wb", autocommit=self._staged is not None)
        except Exception as exc:
            raise remote_error(url, "creating", exc) from exc
        if self._staged is None and not (isinstance(self._file, AbstractBufferedFile) and not self._file.autocommit):
            self._file.close()
            raise ValueError(f"{url}: this filesystem does not write objects whole")
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> int:
        try:
            count = self._file.write(data)
        except Exception as exc:
            raise remote_error(self.name, "uploading", exc) from exc
        return len(memoryview(data)) if count is None else int(count)

    def flush(self) -> None:
        try:
            self._file.flush()
        except Exception as exc:
            raise remote_error(self.name, "uploading", exc) from exc

    def commit(self) -> None:
        """The object appears, whole (an upload that fails here leaves none)."""
        if self.closed:
            return
        self.closed = True
        try:
            self._file.close()
            if self._staged is None:
                self._file.commit()
            else:
                self._fs.mv(self._staged, self._path)
        except BaseException as exc:
            self._drop()
            if isinstance(exc, Exception):
                raise remote_error(self.name, "uploading", exc) from exc
            raise
        self._fs.invalidate_cache(self._path)

    def discard(self) -> None:
        """Abandon the upload: no object appears (an object of that name is left as it was)."""
        if self.closed:
            return
        self.closed = True
        self._drop()

    def _drop(self) -> None:
        try:
            if self._staged is None:
                self._file.discard()
            else:
                self._file.close()
                self._fs.rm_file(self._staged)
        except Exception:       # noqa: BLE001 - the upload is abandoned whatever remains of it
            pass

    def close(self) -> None:
        self.commit()

    def fileno(self) -> int:
        raise OSError("an object store upload has no file descriptor")

    def __repr__(self) -> str:
        return f"<zebrapack ObjectOutput {self.name}>"


def write_bytes(location: str, data: bytes, storage_options: StorageOptions = None) -> None:
    """Write a URL's object whole, atomically (``data`` is all of it)."""
    output = ObjectOutput(location, storage_options)
    try:
        output.write(data)
    except BaseException:
        output.discard()
        raise
    output.commit()
