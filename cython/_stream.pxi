# The push decoder (Schema.stream_decoder): the records of bytes that arrive in
# pieces of any size (a socket, a pipe, asyncio's data_received), each one given
# out as soon as its last byte has been fed.
#
# The bytes are read where they are when they can be: a piece fed as bytes (or a
# memoryview of bytes, which cannot change) is kept by reference and decoded in
# place (what a socket, asyncio's data_received or StreamReader.read give).
# Otherwise, and for the bytes of a record that continues into the next piece,
# they are copied into the decoder's own buffer, which so holds at most the
# records not taken yet and the start of the one still arriving; of the next piece
# only what completes that record is copied, the rest is read in place again.
#
# A record that lies whole in the bytes at hand is decoded straight away. One that
# the bytes fed so far end inside is scanned with the resumable skipper
# (zp_skip_resume), which after each feed carries on where it stopped, and is
# decoded once its last byte is there: a record that comes in k pieces is read
# about twice, never k times, so the cost is linear in the bytes however they are
# split. The record at the end of the bytes at hand is scanned first when it may
# well be cut short (fewer bytes left than the last record's size and a quarter),
# so that a decode rarely fails on a cut and throws its work away; one that does
# fails at most once per feed.
#
# Memory: the pieces fed and not taken (by reference, or copied); a record that
# needs (or is known to need) more than max_record_size bytes is a DecodeError, so a
# peer that sends an endless record, or a header claiming 4 GB, cannot make the
# decoder hold more than that.

cdef enum:
    STREAM_FIRST_CAPACITY = 1 << 16     # the buffer's first size; also the least it shrinks to
    STREAM_SHRINK_ABOVE = 1 << 22       # a buffer larger than this is given back when (mostly) empty

#: The default ``max_record_size`` of the stream readers (``iter_decode``, ``stream_decoder``...).
DEFAULT_MAX_RECORD_SIZE = 1 << 28


cdef inline Py_ssize_t _needed_end(const zp_skipper *s, int rc) noexcept:
    """Where the value a skip stopped in ends at least: ZP_SKIP_TRUNCATED, the bytes it
    needs; ZP_SKIP_TOO_MANY, a byte at least for each value claimed over the budget."""
    return s.at + s.needed if rc == ZP_SKIP_TRUNCATED else s.end + s.needed


cdef inline object _bytes_of(object data):
    """The bytes object that holds data when its bytes cannot change or move while the
    decoder reads them in place (bytes, or a memoryview of bytes), else None. Holding a
    reference to it keeps them: no buffer export is held, which would tie the decoder to
    a memoryview the collector may clear."""
    if PyBytes_CheckExact(data):
        return data
    if PyMemoryView_Check(data) and PyMemoryView_GET_BASE(data) != NULL \
            and PyBytes_CheckExact(<object>PyMemoryView_GET_BASE(data)):
        return <object>PyMemoryView_GET_BASE(data)
    return None


@cython.final
cdef class StreamDecoder:
    """A push decoder: ``feed`` it bytes as they arrive, iterate it for the records
    complete so far, ``close`` it at the end of the stream.

    Made by ``schema.stream_decoder(type=None, *, strict=False, max_record_size=...,
    offset=0)``. ``feed(data)`` takes any bytes-like piece (bytes are kept by
    reference, mutable buffers copied: the caller may reuse them); iterating gives
    every record whose last byte has been fed, and stops: iterate again after the
    next ``feed``. ``close()`` says the stream has ended: it raises ``TornTailError``
    when the bytes fed end inside a record (``offset`` where that record starts);
    ``feed`` after ``close`` is an error. Error offsets count from the stream's
    start (``offset=`` the offset of the first byte fed). A ``DecodeError`` ends the
    stream: later ``feed`` and iteration raise it again. Not for use from several
    threads at once.
    """

    cdef Codec _codec
    cdef StructPlan _plan
    cdef bint _strict
    cdef readonly Py_ssize_t max_record_size
    cdef const unsigned char *_buf  # the bytes being read: _own's, or those of the piece _lent
    cdef Py_ssize_t _start          # _buf index of the next record (what is before it was given out)
    cdef Py_ssize_t _end            # _buf index past the bytes at hand
    cdef Py_ssize_t _base           # the stream offset of _buf[0]
    cdef unsigned char *_own        # the decoder's own buffer, _cap bytes (PyMem)
    cdef Py_ssize_t _cap
    cdef object _lent               # the bytes object _buf points into, while a piece is read in place
    cdef bint _lending
    cdef object _next               # the bytes object of a piece whose bytes come after _buf's:
    cdef const unsigned char *_next_buf     # _next_buf[_next_pos:_next_len]
    cdef Py_ssize_t _next_pos
    cdef Py_ssize_t _next_len
    cdef bint _has_next
    cdef Py_ssize_t _pull           # how much of _next the record cut short takes next (doubles while it lasts)
    cdef Py_ssize_t _last_size      # the size of the record given out last
    cdef bint _scanning             # _skip is partway through the record at _start
    cdef zp_skipper _skip           # its values_left: the bytes up to _skip_end, less the values claimed
    cdef Py_ssize_t _skip_end
    cdef Py_ssize_t _needed_end     # where the record cut short ends at least, when the scan stops
    cdef zp_skip_level _levels[ZP_SKIP_INLINE]
    cdef bint _closed
    cdef bint _busy                 # decoding a record (whose __post_init__ may call back)
    cdef tuple _failure             # the DecodeError that ended the stream (its class and arguments: the
                                    # error itself would hold its traceback, which holds the decoder), or None
    cdef readonly Py_ssize_t records

    def __init__(self, Codec codec not None, type=None, *, bint strict=False,
                 Py_ssize_t max_record_size=DEFAULT_MAX_RECORD_SIZE, Py_ssize_t offset=0):
        if self._codec is not None:
            raise TypeError("a StreamDecoder is initialised once")
        if max_record_size < 1:
            raise ValueError(f"max_record_size must be positive, not {max_record_size}")
        if offset < 0:
            raise ValueError(f"offset must be 0 or more, not {offset}")
        self._plan = codec._plan_for_type(type)
        self._codec = codec
        self._strict = strict
        self.max_record_size = max_record_size
        self._base = offset

    def __dealloc__(self):
        if self._scanning:
            zp_skip_release(&self._skip)
        PyMem_Free(self._own)

    def __class_getitem__(cls, item):
        return _GenericAlias(cls, item)

    @property
    def offset(self):
        """The stream offset the next record starts at: the bytes given out as records so far (plus ``offset=``)."""
        return self._base + self._start

    @property
    def buffered(self):
        """The bytes fed and not given out as records yet: records not taken, and the start of one still arriving."""
        return self._end - self._start + (self._next_len - self._next_pos if self._has_next else 0)

    @property
    def closed(self):
        return self._closed

    def __repr__(self):
        return (f"<StreamDecoder offset={self._base + self._start} buffered={self.buffered} "
                f"records={self.records}{' closed' if self._closed else ''}>")

    def feed(self, data):
        """Append ``data`` (bytes, bytearray, memoryview or any contiguous buffer) to the
        stream. Iterate the decoder afterwards for the records it completes. Bytes are
        read in place (kept until their records are taken); the bytes of a mutable
        buffer are copied, so that the caller may fill it again at once."""
        cdef Py_buffer view
        cdef const unsigned char *data_buf
        cdef Py_ssize_t size
        self._check_usable()
        if self._closed:
            raise ValueError("feed after close: the stream has ended")
        PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
        data_buf = <const unsigned char *>view.buf
        size = view.len
        if size == 0:
            PyBuffer_Release(&view)
            return
        owner = _bytes_of(data)
        if owner is None:
            try:
                self._spill_next()
                self._append(data_buf, size)
            finally:
                PyBuffer_Release(&view)
            return
        PyBuffer_Release(&view)         # data_buf stays valid: owner, bytes, is kept
        self._spill_next()              # one piece at most waits behind the bytes at hand
        if self._start == self._end:    # nothing held: the piece is read where it is
            self._base += self._start
            self._lent = owner
            self._lending = True
            self._buf = data_buf
            self._start = 0
            self._end = size
        else:
            self._next = owner
            self._next_buf = data_buf
            self._next_pos = 0
            self._next_len = size
            self._has_next = True

    def close(self):
        """The stream has ended: raise ``TornTailError`` if the bytes fed end inside a
        record (its ``offset`` is where that record starts, its ``__cause__`` what
        decoding the part that came says). Complete records not taken yet can still be
        iterated; iteration that reaches the torn record raises the error too. Closing
        again, or after a ``DecodeError``, does nothing more."""
        cdef Py_ssize_t torn
        if self._busy:
            raise RuntimeError("StreamDecoder.close() while it is decoding a record")
        if self._closed or self._failure is not None:
            self._closed = True
            return
        self._closed = True
        self._spill_next()              # all the bytes at hand, for the scan below
        torn = self._torn_record()
        if torn >= 0:
            raise self._end_error(torn)

    def __iter__(self):
        return self

    def __next__(self):
        if self._busy or self._failure is not None:
            self._check_usable()
        record = self._next_record()
        if record is None:
            raise StopIteration
        return record

    cdef int _check_usable(self) except -1:
        if self._busy:
            raise RuntimeError("StreamDecoder used while it is decoding a record (from __post_init__, or "
                               "another thread)")
        if self._failure is not None:
            error_class, arguments = self._failure
            raise error_class(*arguments)
        return 0

    cdef int _append(self, const unsigned char *data, Py_ssize_t n) except -1:
        """Copy n bytes after the bytes at hand (into the decoder's own buffer)."""
        cdef Py_ssize_t want, cap
        cdef unsigned char *own
        if n == 0:
            return 0
        self._own_the_bytes()
        if n > self._cap - self._end:
            self._shift()
            want = self._end + n
            if want > self._cap or (self._cap > STREAM_SHRINK_ABOVE and want * 4 < self._cap):
                cap = max(want, self._cap * 2) if want > self._cap else want * 2
                cap = max(cap, <Py_ssize_t>STREAM_FIRST_CAPACITY)
                own = <unsigned char *>PyMem_Realloc(self._own, cap)
                if own == NULL:
                    raise MemoryError(f"no memory for a stream buffer of {cap} bytes")
                self._own = own
                self._buf = own
                self._cap = cap
        memcpy(self._own + self._end, data, n)
        self._end += n
        return 0

    cdef int _own_the_bytes(self) except -1:
        """Copy the bytes at hand of a piece read in place into the decoder's own buffer."""
        cdef Py_ssize_t held = self._end - self._start, by = self._start
        cdef unsigned char *own
        if not self._lending:
            return 0
        if held > self._cap:
            own = <unsigned char *>PyMem_Realloc(self._own, max(held, <Py_ssize_t>STREAM_FIRST_CAPACITY))
            if own == NULL:
                raise MemoryError(f"no memory for a stream buffer of {held} bytes")
            self._own = own
            self._cap = max(held, <Py_ssize_t>STREAM_FIRST_CAPACITY)
        memcpy(self._own, self._buf + by, held)
        self._drop_lent()
        self._buf = self._own
        self._moved(by)
        return 0

    cdef void _drop_lent(self) noexcept:
        if self._lending:
            self._lent = None
            self._lending = False
            self._buf = self._own

    cdef int _spill_next(self) except -1:
        """Copy the rest of the piece waiting behind the bytes at hand after them."""
        if self._has_next:
            self._take_next(self._next_len - self._next_pos)
        return 0

    cdef int _take_next(self, Py_ssize_t n) except -1:
        """Copy n bytes of the piece waiting behind the bytes at hand after them."""
        n = min(n, self._next_len - self._next_pos)
        self._append(self._next_buf + self._next_pos, n)
        self._next_pos += n
        if self._next_pos == self._next_len:
            self._next = None
            self._has_next = False
        return 0

    cdef int _read_next_in_place(self) except -1:
        """All given out: read the waiting piece where it is."""
        self._base += self._start - self._next_pos      # the stream offset of its byte 0
        self._lent = self._next
        self._lending = True
        self._next = None
        self._has_next = False
        self._buf = self._next_buf
        self._start = self._next_pos
        self._end = self._next_len
        return 0

    cdef void _shift(self) noexcept:
        """Move the bytes not given out yet to the front of the decoder's own buffer."""
        cdef Py_ssize_t by = self._start
        if by == 0:
            return
        memmove(self._own, self._own + by, self._end - by)
        self._moved(by)

    cdef void _moved(self, Py_ssize_t by) noexcept:
        """The bytes at hand now start at _buf[0], by bytes before where they were."""
        self._end -= by
        self._start = 0
        self._base += by
        if self._scanning:
            self._skip.pos -= by
            self._skip.at -= by
            self._skip_end -= by

    cdef object _next_record(self):
        """The next complete record, or None when the bytes fed end before one."""
        cdef Reader r
        cdef Py_ssize_t start = self._start, end
        cdef PyObject *raw
        if start == self._end:
            if self._has_next:
                self._read_next_in_place()
                return self._next_record()
            self._base += start         # all given out: the buffer starts over, nothing to move
            self._start = self._end = 0
            self._drop_lent()
            if self._cap > STREAM_SHRINK_ABOVE:     # grown for a large record: given back
                PyMem_Free(self._own)
                self._own = NULL
                self._buf = NULL
                self._cap = 0
            return None
        if not self._scanning and self._end - start > self._last_size + (self._last_size >> 2) + 8:
            raw = self._decode_raw(&r, start, self._end)
            if raw != NULL:
                return self._give(raw, r.pos)
            if not PyErr_ExceptionMatches(Exception):
                self._codec._decode_failed(&r, NULL, False)     # KeyboardInterrupt and the like go on
            # Cut short, or an error in a record that may be: a tear is told from corruption
            # by structure, as every reader does. The record is scanned, and decoded again
            # (its error raised) once it is whole; a stream that ends inside it is a torn
            # tail, its cause the error.
            PyErr_Clear()
            decode_done(&r, NULL, False)
        end = self._scan()
        if end < 0 and self._has_next:
            end = self._complete_from_next()
        if end < 0:
            return None
        start = self._start                 # (taking from the piece may have moved the record)
        raw = self._decode_raw(&r, start, end)
        if raw == NULL:
            self._decode_failed(&r)
        return self._give(raw, end)

    cdef Py_ssize_t _complete_from_next(self) except -2:
        """The record at _start goes on in the piece waiting behind: copy of the piece what
        completes it (in growing steps, scanning after each), and give back what came after
        it, so that the rest of the piece is read in place. Its end, or -1 (still cut short)."""
        cdef Py_ssize_t end = -1
        while end < 0 and self._has_next:
            self._take_next(max(self._pull, self._needed_end - self._end))
            self._pull *= 2
            end = self._scan()
        if end >= 0 and self._has_next:     # what follows the record came from the piece: left there
            self._next_pos -= self._end - end
            self._end = end
        return end

    cdef inline PyObject *_decode_raw(self, Reader *r, Py_ssize_t start, Py_ssize_t stop) noexcept:
        """The record of _buf[start:stop] (a new reference; r.pos: its end), or NULL with
        its error pending and r still to be finished (_decode_failed, or decode_done).
        Read as a C result, as Codec._decode_span does: no exception handling on the way."""
        cdef PyObject *raw
        self._codec._start_decode(r, self._buf, start, stop, self._base, self._strict)
        self._busy = True
        raw = (<decode_body_raw>decode_body)(r, self._plan, 4, &self._codec._last_named)
        self._busy = False
        if raw != NULL:
            decode_done(r, NULL, False)
        return raw

    cdef int _decode_failed(self, Reader *r) except -1:
        """Raise the pending error of _decode_raw, which ends the stream."""
        try:
            self._codec._decode_failed(r, NULL, False)
        except _DecodeError as exc:
            self._fail(exc)
        return -1

    cdef inline object _give(self, PyObject *raw, Py_ssize_t end):
        """The record decoded (raw: its new reference) that ends at end."""
        cdef Py_ssize_t size = end - self._start
        record = <object>raw
        Py_DECREF(record)       # _decode_raw's reference, now held by record
        if size > self.max_record_size:
            self._fail(self._too_large(size))
        self._start = end
        self._last_size = size
        self.records += 1
        return record

    cdef Py_ssize_t _scan(self) except -2:
        """The end of the record at _start, found by the resumable skipper; -1 while the
        bytes fed end inside it. Its headers may claim as many values as it has bytes so
        far, as decode's may claim as many as the input has."""
        cdef unsigned char lead = self._buf[self._start]
        cdef int rc
        if not self._scanning:
            if not zp_is_map(lead):
                self._fail_as_decode(ZP_SKIP_DONE)      # decode's own "a record is a struct map"
            zp_skip_init(&self._skip, self._buf, self._start, self._end, self._levels, ZP_SKIP_INLINE,
                         self._codec.max_depth, self._end - self._start)
            self._skip_end = self._end
            self._scanning = True
            self._pull = 64
        else:
            self._skip.buf = self._buf
            self._skip.end = self._end
            self._skip.values_left += self._end - self._skip_end
            self._skip_end = self._end
        rc = zp_skip_resume(&self._skip)
        if rc == ZP_SKIP_TRUNCATED or rc == ZP_SKIP_TOO_MANY:
            self._needed_end = _needed_end(&self._skip, rc)
            if self._needed_end - self._start > self.max_record_size:
                self._fail(self._too_large(self._needed_end - self._start))
            if self._closed:
                self._fail(self._end_error(self._start))
            return -1
        if rc != ZP_SKIP_DONE:
            self._fail_as_decode(rc)
        self._scanning = False
        zp_skip_release(&self._skip)
        return self._skip.pos

    cdef int _fail_as_decode(self, int rc) except -1:
        """Fail with the error decode_all gives for the malformed record at _start (with
        its field path), or else with the skipper's (rc; ZP_SKIP_DONE: not a map)."""
        cdef Reader r
        cdef PyObject *raw = self._decode_raw(&r, self._start, self._end)
        if raw != NULL:
            record = <object>raw
            Py_DECREF(record)       # the record is dropped: decode found no error
        elif not r.truncated:
            self._decode_failed(&r)
        else:
            PyErr_Clear()
            decode_done(&r, NULL, False)
        if rc == ZP_SKIP_DONE:
            self._fail(_DecodeError(f"a record is a struct map, not {wire_type_name(self._buf[self._start])}",
                                    "$", self._base + self._start))
        r.end = self._end
        r.base = self._base
        trail_init(&r.trail, self._codec.max_depth)
        try:
            skip_failed(&r, &self._skip, rc)
        except _DecodeError as exc:
            self._fail(exc)
        finally:
            trail_release(&r.trail)
        return -1

    cdef int _fail(self, object error) except -1:
        self._failure = (type(error), (error.reason, error.path, error.offset))
        if self._scanning:
            zp_skip_release(&self._skip)
            self._scanning = False
        raise error

    cdef object _too_large(self, Py_ssize_t size):
        return _DecodeError(f"record larger than max_record_size={self.max_record_size} bytes "
                            f"(it takes {size} at least)", "$", self._base + self._start)

    cdef object _end_error(self, Py_ssize_t start):
        """The TornTailError of a stream that ends inside the record at start (the skipper
        found it cut short), its cause what decoding the part that came says."""
        cdef Reader r
        cdef Py_ssize_t held = self._end - start
        cdef PyObject *raw = self._decode_raw(&r, start, self._end)
        cause = None
        if raw != NULL:         # cannot be: the skipper found the record cut short
            record = <object>raw
            Py_DECREF(record)
        else:
            try:
                self._codec._decode_failed(&r, NULL, False)
            except Exception as exc:
                cause = exc
        error = _TornTailError(f"torn tail: the input ends inside the record that starts here ({held} "
                               f"byte{'' if held == 1 else 's'} of it there), where the valid data ends", "$",
                               self._base + start)
        error.__cause__ = cause
        return error

    cdef Py_ssize_t _torn_record(self) except -2:
        """Where the record that the bytes fed end inside starts, or -1 (they end after a
        record, or before a malformed one that iteration reports)."""
        cdef zp_skipper s
        cdef zp_skip_level levels[ZP_SKIP_INLINE]
        cdef Py_ssize_t position = self._start
        cdef int rc
        while position < self._end:
            zp_skip_init(&s, self._buf, position, self._end, levels, ZP_SKIP_INLINE, self._codec.max_depth,
                         self._end - position)
            rc = zp_skip(&s)
            zp_skip_release(&s)
            if rc == ZP_SKIP_TRUNCATED or rc == ZP_SKIP_TOO_MANY:
                return position
            if rc != ZP_SKIP_DONE:
                return -1
            position = s.pos
        return -1
