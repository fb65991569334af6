# The push decoder (Schema.stream_decoder): the records of bytes that arrive in
# pieces of any size (a socket, a pipe, asyncio's data_received), each one given
# out as soon as its last byte has been fed.
#
# Fed bytes are copied into one buffer that holds the records not taken yet and
# the start of the one still arriving. A record that lies whole in the buffer is
# decoded straight away. One that the bytes fed so far end inside is scanned with
# the resumable skipper (zp_skip_resume), which after each feed carries on where
# it stopped, and is decoded once its last byte is there: a record that comes in
# k pieces is read about twice, never k times, so the cost is linear in the bytes
# however they are split. The record at the end of the buffer is scanned first
# when it may well be cut short (fewer bytes left than twice the last record's
# size), so that a decode rarely fails on a cut and throws its work away; one that
# does fails at most once per feed.
#
# Memory: the buffer holds what was fed and not taken; a record that needs (or is
# known to need) more than max_record_size bytes is a DecodeError, so a peer that
# sends an endless record, or a header claiming 4 GB, cannot make it grow beyond that.

cdef enum:
    STREAM_FIRST_CAPACITY = 1 << 16     # the buffer's first size; also the least it shrinks to
    STREAM_SHRINK_ABOVE = 1 << 22       # a buffer larger than this is given back when (mostly) empty

#: The default ``max_record_size`` of the stream readers (``iter_decode``, ``stream_decoder``...).
DEFAULT_MAX_RECORD_SIZE = 1 << 28

cdef object _TornTailError = TornTailError


cdef class StreamDecoder:
    """A push decoder: ``feed`` it bytes as they arrive, iterate it for the records
    complete so far, ``close`` it at the end of the stream.

    Made by ``schema.stream_decoder(type=None, *, strict=False, max_record_size=...,
    offset=0)``. ``feed(data)`` takes any bytes-like piece (copied); iterating gives
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
    cdef unsigned char *_buf
    cdef Py_ssize_t _cap
    cdef Py_ssize_t _start          # _buf index of the next record (what is before it was given out)
    cdef Py_ssize_t _end            # _buf index past the bytes fed
    cdef Py_ssize_t _base           # the stream offset of _buf[0]
    cdef Py_ssize_t _last_size      # the size of the record given out last
    cdef bint _scanning             # _skip is partway through the record at _start
    cdef zp_skipper _skip
    cdef zp_skip_level _levels[ZP_SKIP_INLINE]
    cdef bint _closed
    cdef bint _busy                 # inside __next__ (a record's __post_init__ may call back)
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
        PyMem_Free(self._buf)

    def __class_getitem__(cls, item):
        return _GenericAlias(cls, item)

    @property
    def offset(self):
        """The stream offset the next record starts at: the bytes given out as records so far (plus ``offset=``)."""
        return self._base + self._start

    @property
    def buffered(self):
        """The bytes fed and not given out as records yet: records not taken, and the start of one still arriving."""
        return self._end - self._start

    @property
    def closed(self):
        return self._closed

    def __repr__(self):
        return (f"<StreamDecoder offset={self._base + self._start} buffered={self._end - self._start} "
                f"records={self.records}{' closed' if self._closed else ''}>")

    def feed(self, data):
        """Append ``data`` (bytes, bytearray, memoryview or any contiguous buffer; copied)
        to the stream. Iterate the decoder afterwards for the records it completes."""
        cdef Py_buffer view
        self._check_usable()
        if self._closed:
            raise ValueError("feed after close: the stream has ended")
        PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
        try:
            self._append(<const unsigned char *>view.buf, view.len)
        finally:
            PyBuffer_Release(&view)

    def close(self):
        """The stream has ended: raise ``TornTailError`` if the bytes fed end inside a
        record (its ``offset`` is where that record starts; if the part that came is
        malformed already, the ``DecodeError`` decoding it gives). Complete records
        not taken yet can still be iterated; iteration that reaches the torn record
        raises the error too. Closing again, or after a ``DecodeError``, does nothing more."""
        cdef Py_ssize_t torn
        cdef Py_ssize_t needed_end = -1
        if self._busy:
            raise RuntimeError("StreamDecoder.close() while it is decoding a record")
        if self._closed or self._failure is not None:
            self._closed = True
            return
        self._closed = True
        torn = self._torn_record(&needed_end)
        if torn >= 0:
            raise self._end_error(torn, needed_end)

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
        cdef Py_ssize_t want, cap
        cdef unsigned char *buf
        if n == 0:
            return 0
        if n > self._cap - self._end:
            self._shift()
            want = self._end + n
            if want > self._cap or (self._cap > STREAM_SHRINK_ABOVE and want * 4 < self._cap):
                cap = max(want, self._cap * 2) if want > self._cap else max(<Py_ssize_t>STREAM_FIRST_CAPACITY, want * 2)
                cap = max(cap, <Py_ssize_t>STREAM_FIRST_CAPACITY)
                buf = <unsigned char *>PyMem_Realloc(self._buf, cap)
                if buf == NULL:
                    raise MemoryError(f"no memory for a stream buffer of {cap} bytes")
                self._buf = buf
                self._cap = cap
        memcpy(self._buf + self._end, data, n)
        self._end += n
        return 0

    cdef void _shift(self) noexcept:
        """Move the bytes not given out yet to the front of the buffer."""
        cdef Py_ssize_t by = self._start
        if by == 0:
            return
        memmove(self._buf, self._buf + by, self._end - by)
        self._end -= by
        self._start = 0
        self._base += by
        if self._scanning:
            self._skip.pos -= by
            self._skip.at -= by

    cdef object _next_record(self):
        """The next complete record, or None when the bytes fed end before one."""
        cdef Reader r
        cdef Py_ssize_t start = self._start, end
        cdef PyObject *raw
        if start == self._end:
            self._base += start         # all given out: the buffer starts over, nothing to move
            self._start = self._end = 0
            if self._cap > STREAM_SHRINK_ABOVE:     # grown for a large record: given back
                PyMem_Free(self._buf)
                self._buf = NULL
                self._cap = 0
            return None
        if not self._scanning and self._end - start > 2 * self._last_size:
            raw = self._decode_raw(&r, start, self._end)
            if raw != NULL:
                return self._give(raw, r.pos)
            if not r.truncated:
                self._decode_failed(&r)
            PyErr_Clear()               # cut short: scanned instead, decoded when whole
            decode_done(&r, NULL, False)
        end = self._scan()
        if end < 0:
            return None
        raw = self._decode_raw(&r, start, end)
        if raw == NULL:
            self._decode_failed(&r)
        return self._give(raw, end)

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
        bytes fed end inside it."""
        cdef unsigned char lead = self._buf[self._start]
        cdef int rc
        if not self._scanning:
            if (lead & 0xf0) != 0x80 and lead != 0xde and lead != 0xdf:
                self._fail_as_decode(ZP_SKIP_DONE)      # decode's own "a record is a struct map"
            zp_skip_init(&self._skip, self._buf, self._start, self._end, self._levels, ZP_SKIP_INLINE,
                         self._codec.max_depth, INT64_MAX)
            self._scanning = True
        else:
            self._skip.buf = self._buf
            self._skip.end = self._end
        rc = zp_skip_resume(&self._skip)
        if rc == ZP_SKIP_TRUNCATED:
            if self._skip.at + self._skip.needed - self._start > self.max_record_size:
                self._fail(self._too_large(self._skip.at + self._skip.needed - self._start))
            if self._closed:
                self._fail(self._end_error(self._start, self._skip.at + self._skip.needed))
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

    cdef object _end_error(self, Py_ssize_t start, Py_ssize_t needed_end):
        """The error of a stream that ends inside the record at start: decode's own when
        its bytes are malformed already (what iter_decode of the same bytes says), else
        the TornTailError."""
        cdef Reader r
        cdef PyObject *raw = self._decode_raw(&r, start, self._end)
        if raw != NULL:         # cannot be: the skipper found the record cut short
            record = <object>raw
            Py_DECREF(record)
        elif not r.truncated:
            try:
                self._codec._decode_failed(&r, NULL, False)
            except _DecodeError as exc:
                return exc
        else:
            PyErr_Clear()
            decode_done(&r, NULL, False)
        return self._torn_error(start, needed_end)

    cdef object _torn_error(self, Py_ssize_t start, Py_ssize_t needed_end):
        """The TornTailError of a record at start that the stream ends inside
        (needed_end: where it would end at least, or -1)."""
        message = f"the input ends inside a record: {self._end - start} bytes of it"
        if needed_end > self._end:
            message += f", {needed_end - self._end} more needed at least"
        return _TornTailError(message, "$", self._base + start)

    cdef Py_ssize_t _torn_record(self, Py_ssize_t *needed_end) except -2:
        """Where the record that the bytes fed end inside starts (needed_end: where it
        would end at least), or -1 (they end after a record, or before a malformed one
        that iteration reports)."""
        cdef zp_skipper s
        cdef zp_skip_level levels[ZP_SKIP_INLINE]
        cdef Py_ssize_t position = self._start
        cdef int rc
        while position < self._end:
            zp_skip_init(&s, self._buf, position, self._end, levels, ZP_SKIP_INLINE, self._codec.max_depth,
                         INT64_MAX)
            rc = zp_skip(&s)
            zp_skip_release(&s)
            if rc == ZP_SKIP_TRUNCATED:
                needed_end[0] = s.at + s.needed
                return position
            if rc != ZP_SKIP_DONE:
                return -1
            position = s.pos
        return -1
