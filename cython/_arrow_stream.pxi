# The columnar reader's sources, batches and C stream (ArrowArrayStream).
#
# A reader (ArrowRecordReader) reads its sources one after another: bytes-like
# objects in place, files (and the byte ranges of splits) with C stdio, the
# index entries of an indexed split whole (their CRC32 and record count
# checked), Python file objects through their read(). Only that last one, and
# releasing the reader's Python objects, takes the GIL; everything else runs
# without it, so any thread may pull batches (DuckDB and Polars pull from
# their own) and a consumer holding the GIL in another thread cannot block it.

from libc.stdio cimport FILE, fclose, fread, ferror
from libc.errno cimport errno
from libc.string cimport strerror

cdef extern from "<errno.h>":
    enum:
        EINVAL
        EIO
        ENOMEM
        EBUSY

cdef extern from "Python.h":
    int Py_IsInitialized() nogil

cdef extern from "zp_path.h":
    ctypedef char zp_path_char      # wchar_t on Windows
    zp_path_char *zp_path_new(object path) except NULL
    char *zp_path_display(object path) except NULL
    FILE *zp_path_open_read(const zp_path_char *path) noexcept nogil

cdef extern from "zp_pool.h":
    ctypedef struct zp_pool:
        pass
    zp_pool *zp_pool_new(int64_t limit) noexcept nogil
    void zp_pool_ref(zp_pool *p) noexcept nogil
    void zp_pool_unref(zp_pool *p) noexcept nogil
    void *zp_pool_take(zp_pool *p, int64_t want, int64_t *cap) noexcept nogil
    void zp_pool_give(zp_pool *p, void *ptr, int64_t cap) noexcept nogil
    int64_t zp_pool_bytes(zp_pool *p) noexcept nogil

cdef extern from "zp_columnar.h":
    int zp_fseek64(FILE *f, int64_t offset) noexcept nogil
    int zp_try_enter(int *busy) noexcept nogil
    void zp_leave(int *busy) noexcept nogil

cdef enum:
    SEG_MEM = 0         # a bytes-like object, read in place
    SEG_FILE = 1        # a byte range of a file, read in chunks
    SEG_ENTRY = 2       # an index entry of a split: read whole, checked
    SEG_PYFILE = 3      # a Python binary file object

cdef enum:
    ERROR_SIZE = 2048

cdef struct Segment:
    int kind
    const uint8_t *mem
    int64_t mem_len
    zp_path_char *path      # files: the name the OS opens (zp_path.h)
    char *name              # and as messages show it (UTF-8)
    int64_t start           # first byte (file offset) of the records
    int64_t stop            # file segments: where they end
    int64_t records         # SEG_ENTRY: the index's record count
    uint32_t crc
    PyObject *pyfile        # borrowed: the reader keeps it
    const uint8_t *prefix   # SEG_PYFILE: bytes already read, from offset start
    int64_t prefix_len
    char *label             # "PATH: split A..B: " for splits, or NULL
    bint streamed           # SEG_ENTRY larger than max_record_size: checked, then read in chunks


cdef struct ZStream:
    Col *root
    Dec d
    int64_t batch_rows
    int64_t batch_bytes
    int64_t max_record_size
    int64_t read_chunk      # bytes read at a time from files
    int64_t records         # records read from the whole source so far
    Segment *segs
    int64_t n_segs
    int64_t seg             # the open segment, or -1
    uint8_t *win            # the window of file segments
    int64_t win_cap
    FILE *fp
    int64_t file_left       # bytes of the open file segment not read yet
    bint seg_eof
    int64_t seg_records
    bint finished
    bint failed
    bint torn               # the error is a torn tail (TornTailError)
    int error_code
    int busy
    int64_t err_record
    char *err_label
    char error[ERROR_SIZE]
    ArrowSchema schema      # get_schema hands out copies
    PyObject *owner         # the ArrowRecordReader, while a C stream holds it
    PyObject *source_error  # owned: what a Python file object's read() raised, raised again as is
    zp_pool *pool           # released batches' buffers, for the next batches (zp_pool.h)


# -- errors ---------------------------------------------------------------------------

cdef int zs_fail_decode(ZStream *z) noexcept nogil:
    """The Dec error as the stream's error (the text DecodeError would show)."""
    cdef const char *label = z.segs[z.seg].label if 0 <= z.seg < z.n_segs else NULL
    z.failed = True
    z.error_code = EINVAL
    z.err_record = z.records
    z.err_label = <char *>label
    snprintf(z.error, ERROR_SIZE, "%s: %s%s (record %lld) (byte offset %lld)", z.d.path,
             or_text(label, ""), z.d.message, <long long>z.records, <long long>z.d.fail_at)
    return EINVAL


cdef int zs_fail_split(ZStream *z, int64_t at) noexcept nogil:
    """z.d.message says what is wrong with a split's index entry."""
    z.d.failed = True
    z.d.fail_at = at
    z.d.path[0] = b"$"
    z.d.path[1] = 0
    z.failed = True
    z.error_code = EINVAL
    z.err_record = z.records
    z.err_label = z.segs[z.seg].label
    snprintf(z.error, ERROR_SIZE, "$: %s%s (byte offset %lld)", or_text(z.err_label, ""),
             z.d.message, <long long>at)
    return EINVAL


cdef int zs_fail_os(ZStream *z, const char *what, int code) noexcept nogil:
    cdef const char *why = strerror(code) if code else NULL
    z.failed = True
    z.d.failed = False
    z.error_code = EIO if code == 0 else code
    snprintf(z.error, ERROR_SIZE, "%s %s: %s", what, or_text(z.segs[z.seg].name, ""), or_text(why, "read failed"))
    return z.error_code


# -- reading the sources ---------------------------------------------------------------

cdef int64_t pyfile_read(ZStream *z, Segment *s, uint8_t *dst, int64_t n) noexcept nogil:
    """n bytes from a Python file object (fewer only at its end), with the GIL taken.
    read() may return less than asked (raw files, pipes, sockets): it is called again,
    so that a record is never decoded over and over from one short read to the next."""
    cdef int64_t got = -1, part
    cdef const unsigned char[::1] view
    with gil:
        try:
            got = 0
            while got < n:
                data = (<object>s.pyfile).read(n - got)
                if not data:
                    break
                view = memoryview(data).cast("B")
                part = view.shape[0]
                if part > n - got:
                    raise ValueError(f"read({n - got}) returned {part} bytes")
                memcpy(dst + got, &view[0], part)
                got += part
        except BaseException as exc:
            text = f"reading the source failed: {type(exc).__name__}: {exc}".encode("utf-8", "replace")[:ERROR_SIZE - 1]
            memcpy(z.error, <const char *>text, len(text))
            z.error[len(text)] = 0
            z.failed = True
            z.error_code = EIO
            # kept, so that the reader raises the source's own error (an object store's
            # FileNotFoundError, a split's DecodeError), not a text about it
            Py_XDECREF(z.source_error)
            Py_INCREF(exc)
            z.source_error = <PyObject *>exc
            got = -1
    return got


cdef inline bint seg_reads_file(Segment *s) noexcept nogil:
    """Read from the file in chunks: a file range, or an index entry too large to hold."""
    return s.kind == SEG_FILE or (s.kind == SEG_ENTRY and s.streamed)


cdef int zs_grow_window(ZStream *z, int64_t size, const char *what) noexcept nogil:
    cdef uint8_t *grown
    if size <= z.win_cap:
        return 0
    grown = <uint8_t *>realloc(z.win, size)
    if grown == NULL:
        z.failed = True
        z.error_code = ENOMEM
        snprintf(z.error, ERROR_SIZE, "out of memory for %s of %lld bytes", what, <long long>size)
        return ENOMEM
    z.win = grown
    z.win_cap = size
    return 0


cdef int zs_refill(ZStream *z, int64_t keep_from) noexcept nogil:
    """Keep the window's bytes from keep_from (a record that needs more), read more."""
    cdef Segment *s = &z.segs[z.seg]
    cdef int64_t keep = z.d.end - keep_from, want, got
    cdef uint8_t *grown
    if keep > z.max_record_size:
        snprintf(z.d.message, MESSAGE_SIZE, "record larger than max_record_size=%lld", <long long>z.max_record_size)
        z.d.guard.depth = 0
        z.d.root = z.root.struct_name
        dec_fail(&z.d, keep_from)
        return zs_fail_decode(z)
    if keep and keep_from:
        memmove(z.win, z.win + keep_from, keep)
    z.d.base += keep_from
    want = z.read_chunk if keep < z.read_chunk else keep
    if seg_reads_file(s) and want > z.file_left:
        want = z.file_left
    if keep + want > z.win_cap:
        grown = <uint8_t *>realloc(z.win, keep + want)
        if grown == NULL:
            z.failed = True
            z.error_code = ENOMEM
            snprintf(z.error, ERROR_SIZE, "out of memory for a %lld-byte read", <long long>(keep + want))
            return ENOMEM
        z.win = grown
        z.win_cap = keep + want
    if seg_reads_file(s):
        got = <int64_t>fread(z.win + keep, 1, want, z.fp) if want else 0
        if got < want and ferror(z.fp):
            return zs_fail_os(z, "reading", errno)
        z.file_left -= got
        if got == 0 or z.file_left == 0:
            z.seg_eof = True
    else:
        got = pyfile_read(z, s, z.win + keep, want)
        if got < 0:
            return EIO
        if got == 0:
            z.seg_eof = True
    z.d.buf = z.win
    z.d.pos = 0
    z.d.end = keep + got
    return 0


cdef int zs_close_segment(ZStream *z) noexcept nogil:
    cdef Segment *s = &z.segs[z.seg]
    if z.fp != NULL:
        fclose(z.fp)
        z.fp = NULL
    if s.kind == SEG_ENTRY and z.seg_records != s.records:
        snprintf(z.d.message, MESSAGE_SIZE, "%lld records at %lld..%lld, the index says %lld",
                 <long long>z.seg_records, <long long>s.start, <long long>s.stop, <long long>s.records)
        return zs_fail_split(z, s.start)
    return 0


cdef int zs_open_segment(ZStream *z) noexcept nogil:
    cdef Segment *s = &z.segs[z.seg]
    cdef int64_t size, got
    z.seg_records = 0
    z.seg_eof = False
    z.d.pos = z.d.end = 0
    if s.kind == SEG_MEM:
        z.d.buf = s.mem
        z.d.pos = s.start
        z.d.end = s.mem_len
        z.d.base = 0
        z.seg_eof = True
        return 0
    if s.kind == SEG_PYFILE:
        z.d.base = s.start
        if zs_grow_window(z, s.prefix_len, "the bytes read first"):
            return ENOMEM
        if s.prefix_len:
            memcpy(z.win, s.prefix, s.prefix_len)
        z.d.buf = z.win
        z.d.end = s.prefix_len
        return 0
    z.fp = zp_path_open_read(s.path)
    if z.fp == NULL:
        return zs_fail_os(z, "opening", errno)
    if s.start and zp_fseek64(z.fp, s.start) != 0:
        return zs_fail_os(z, "seeking in", errno)
    z.d.base = s.start
    z.d.buf = z.win
    if s.kind == SEG_FILE:
        z.file_left = s.stop - s.start
        if z.file_left <= 0:
            z.seg_eof = True
        return 0
    # an index entry: checked against the index before any record is read, then
    # held whole, or (larger than max_record_size: an index is untrusted input) read
    # again in chunks; its record count is checked when it closes
    size = s.stop - s.start
    if size > z.max_record_size:
        return zs_open_streamed_entry(z, s, size)
    if zs_grow_window(z, size, "an index entry"):
        return ENOMEM
    got = <int64_t>fread(z.win, 1, size, z.fp) if size > 0 else 0
    if got < size and ferror(z.fp):
        return zs_fail_os(z, "reading", errno)
    z.seg_eof = True
    z.d.buf = z.win
    z.d.end = got
    if got != size:
        return zs_fail_entry_short(z, s, got)
    if zp_crc32(0, z.win, size) != s.crc:
        return zs_fail_entry_crc(z, s)
    return 0


cdef int zs_fail_entry_short(ZStream *z, Segment *s, int64_t got) noexcept nogil:
    snprintf(z.d.message, MESSAGE_SIZE, "the file ends inside the indexed records %lld..%lld",
             <long long>s.start, <long long>s.stop)
    return zs_fail_split(z, s.start + got)


cdef int zs_fail_entry_crc(ZStream *z, Segment *s) noexcept nogil:
    snprintf(z.d.message, MESSAGE_SIZE, "the records %lld..%lld do not match the index's checksum "
             "(the file changed since it was indexed)", <long long>s.start, <long long>s.stop)
    return zs_fail_split(z, s.start)


cdef int zs_open_streamed_entry(ZStream *z, Segment *s, int64_t size) noexcept nogil:
    """An entry too large to hold: its CRC32 checked over chunks, then read again as a file range."""
    cdef int64_t left = size, want, got
    cdef uint32_t crc = 0
    if zs_grow_window(z, z.read_chunk, "a read"):
        return ENOMEM
    while left:
        want = z.read_chunk if left > z.read_chunk else left
        got = <int64_t>fread(z.win, 1, want, z.fp)
        if got < want and ferror(z.fp):
            return zs_fail_os(z, "reading", errno)
        crc = zp_crc32(crc, z.win, got)
        left -= got
        if got < want:
            return zs_fail_entry_short(z, s, size - left)
    if crc != s.crc:
        return zs_fail_entry_crc(z, s)
    if zp_fseek64(z.fp, s.start) != 0:
        return zs_fail_os(z, "seeking in", errno)
    s.streamed = True
    z.file_left = size
    return 0


cdef int zs_advance(ZStream *z, bint *done) noexcept nogil:
    """The window is used up: read more of the open segment, or open the next one."""
    cdef int rc
    done[0] = False
    while True:
        if z.seg >= 0 and not z.seg_eof:
            return zs_refill(z, z.d.end)
        if z.seg >= 0:
            rc = zs_close_segment(z)
            if rc:
                return rc
        if z.seg + 1 >= z.n_segs:
            done[0] = True
            return 0
        z.seg += 1
        rc = zs_open_segment(z)
        if rc:
            return rc
        if z.d.pos < z.d.end:
            return 0


# -- batches ------------------------------------------------------------------------------

cdef int col_begin(Col *c, int64_t *held, zp_pool *pool) noexcept nogil:
    """A fresh batch: the last batch's capacities (no regrowing), in buffers of released
    batches where the pool has them, offsets start with 0."""
    cdef int64_t i
    cdef int32_t zero = 0
    if c.hint_validity and begin_buffer(&c.validity, c.hint_validity, held, pool, True) < 0:
        return -1
    if c.hint_data and begin_buffer(&c.data, c.hint_data, held, pool, c.kind == C_BOOL) < 0:
        return -1
    if c.hint_offsets and begin_buffer(&c.offsets, c.hint_offsets, held, pool, False) < 0:
        return -1
    if c.kind == C_STRING or c.kind == C_BINARY or c.kind == C_RAW or c.kind == C_LIST or c.kind == C_MAP:
        if zp_buf_reserve(&c.offsets, 4, held) < 0:
            return -1
        memcpy(c.offsets.ptr, &zero, 4)
        c.offsets.len = 4
    for i in range(c.n_children):
        if col_begin(c.children[i], held, pool) < 0:
            return -1
    return 0


cdef int begin_buffer(zp_buf *b, int64_t want, int64_t *held, zp_pool *pool, bint zero) noexcept nogil:
    """An empty buffer with room for ``want`` bytes: a pooled one, or new; zeroed with ``zero``."""
    cdef int64_t cap = 0
    cdef void *p = zp_pool_take(pool, want, &cap) if b.ptr == NULL else NULL
    if p == NULL:
        return zp_buf_grow_to(b, want, held, zero)
    if zero:
        memset(p, 0, <size_t>cap)
    b.ptr = <uint8_t *>p
    b.cap = cap
    held[0] += cap
    return 0


cdef void col_follow(Col *c, const Col *previous) noexcept nogil:
    """Start from the capacities another reader of the same columns ended with (the last
    batch's sizes): a range's first batch is then made without regrowing its buffers."""
    cdef int64_t i
    if c.n_children != previous.n_children or c.kind != previous.kind:
        return      # not the same columns: keep this reader's own
    c.hint_validity = max(c.hint_validity, previous.hint_validity)
    c.hint_offsets = max(c.hint_offsets, previous.hint_offsets)
    c.hint_data = max(c.hint_data, previous.hint_data)
    for i in range(c.n_children):
        col_follow(c.children[i], previous.children[i])


cdef struct ExportedBuffers:
    # an exported array's private data: its buffers, their sizes, and the pool they go
    # back to when the consumer releases the array
    void *ptr[3]
    int64_t cap[3]
    zp_pool *pool


cdef void zp_release_array(ArrowArray *a) noexcept nogil:
    cdef int64_t i
    cdef ExportedBuffers *buffers = <ExportedBuffers *>a.private_data
    if a.release == NULL:
        return
    for i in range(a.n_children):
        if a.children[i] != NULL:
            if a.children[i].release != NULL:
                a.children[i].release(a.children[i])
            free(a.children[i])
    free(a.children)
    if buffers != NULL:
        for i in range(a.n_buffers):
            zp_pool_give(buffers.pool, buffers.ptr[i], buffers.cap[i])
        zp_pool_unref(buffers.pool)
        free(buffers)
    a.release = NULL


cdef inline void take(zp_buf *b, ExportedBuffers *into, int i) noexcept nogil:
    """The buffer's memory, handed over as buffer i (never NULL: Arrow wants a pointer
    even when empty)."""
    into.ptr[i] = b.ptr
    into.cap[i] = b.cap
    if b.ptr == NULL:
        into.ptr[i] = calloc(1, 8)
        into.cap[i] = 0
    b.ptr = NULL
    b.len = b.cap = 0


cdef int col_export(Col *c, ArrowArray *out, zp_pool *pool) noexcept nogil:
    """Hand the column's buffers over as an ArrowArray (release gives them to the pool);
    c is empty after."""
    cdef int64_t i, n_buffers
    cdef ExportedBuffers *buffers
    memset(out, 0, sizeof(ArrowArray))
    c.hint_validity = c.validity.cap
    c.hint_offsets = c.offsets.cap
    c.hint_data = c.data.cap
    if c.kind == C_STRING or c.kind == C_BINARY or c.kind == C_RAW:
        n_buffers = 3
    elif c.kind == C_STRUCT or c.kind == C_FIXED_LIST or c.kind == C_COMPLEX or c.kind == C_EXT \
            or c.kind == C_ENTRIES or c.kind == C_NUMBER:
        n_buffers = 1
    else:
        n_buffers = 2
    buffers = <ExportedBuffers *>calloc(1, sizeof(ExportedBuffers))
    if buffers == NULL:
        return -1
    if pool != NULL:
        zp_pool_ref(pool)
        buffers.pool = pool
    out.private_data = buffers
    out.buffers = <const void **>buffers.ptr
    out.n_buffers = n_buffers
    out.length = c.length
    out.release = zp_release_array
    if c.nullable and c.length:
        out.null_count = c.length - zp_count_set_bits(c.validity.ptr, c.length)
        take(&c.validity, buffers, 0)
    if c.kind == C_STRING or c.kind == C_BINARY or c.kind == C_RAW:
        take(&c.offsets, buffers, 1)
        take(&c.data, buffers, 2)
    elif c.kind == C_LIST or c.kind == C_MAP:
        take(&c.offsets, buffers, 1)
    elif n_buffers == 2:
        take(&c.data, buffers, 1)
    c.length = c.room = c.kids_room = 0
    if c.n_children:
        out.children = <ArrowArray **>calloc(c.n_children, sizeof(ArrowArray *))
        if out.children == NULL:
            return -1
        out.n_children = c.n_children
        for i in range(c.n_children):
            out.children[i] = <ArrowArray *>malloc(sizeof(ArrowArray))
            if out.children[i] == NULL:
                return -1
            if col_export(c.children[i], out.children[i], pool) < 0:
                return -1
    return 0


cdef void col_clear(Col *c, zp_pool *pool) noexcept nogil:
    """Drop everything a batch appended (at the end, after an error or an export that
    failed), its buffers back to the pool."""
    cdef int64_t i
    zp_pool_give(pool, c.validity.ptr, c.validity.cap)
    zp_pool_give(pool, c.offsets.ptr, c.offsets.cap)
    zp_pool_give(pool, c.data.ptr, c.data.cap)
    memset(&c.validity, 0, sizeof(zp_buf))
    memset(&c.offsets, 0, sizeof(zp_buf))
    memset(&c.data, 0, sizeof(zp_buf))
    c.length = c.room = c.kids_room = 0
    for i in range(c.n_children):
        col_clear(c.children[i], pool)


cdef enum:
    PRESIZE_AFTER = 1024    # rows of a reader's first batch read before its buffers are sized for the rest


cdef int zs_next(ZStream *z, ArrowArray *out) noexcept nogil:
    """The next batch into out (out.release NULL at the end), or an errno with z.error set."""
    cdef int64_t rows = 0, start, used, first_pos, run
    cdef const unsigned char *first_buf
    cdef bint done = False
    cdef int rc
    out.release = NULL
    if z.failed:
        return z.error_code
    if z.finished:
        return 0
    col_clear(z.root, z.pool)
    z.d.held = z.d.used = 0
    if col_begin(z.root, &z.d.held, z.pool) < 0:
        z.failed = True
        z.error_code = ENOMEM
        snprintf(z.error, ERROR_SIZE, "out of memory for the batch's columns")
        return ENOMEM
    first_buf = NULL
    first_pos = 0
    while rows < z.batch_rows and z.d.used < z.batch_bytes:
        if z.d.pos >= z.d.end:
            rc = zs_advance(z, &done)
            if rc:
                return zs_deliver_then_fail(z, rows, out, rc)
            if done:
                z.finished = True
                break
            continue
        start = z.d.pos
        used = z.d.used
        if rows == 0:
            first_buf = z.d.buf
            first_pos = start
        z.d.root = z.root.struct_name
        # the records the root's plan reads whole, in one run (not past the presize
        # point); else one by read_record
        run = read_rows(&z.d, z.root, min(z.batch_rows - rows, PRESIZE_AFTER - rows) if rows < PRESIZE_AFTER
                        else z.batch_rows - rows, z.batch_bytes)
        if run == 0:
            if read_record(&z.d, z.root) < 0:
                # the record is not in the batch: every column back to where it began
                col_truncate(z.root, rows)
                z.d.used = used
                if z.d.truncated and not z.seg_eof:     # (bytes-like sources and held entries are whole)
                    rc = zs_refill(z, start)
                    if rc:
                        return zs_deliver_then_fail(z, rows, out, rc)
                    continue
                if z.segs[z.seg].kind != SEG_ENTRY and zs_ends_inside(z, start):
                    zs_torn_tail(z, start)
                return zs_deliver_then_fail(z, rows, out, zs_fail_decode(z))
            run = 1
        rows += run
        z.records += run
        z.seg_records += run
        if rows == PRESIZE_AFTER and z.records == rows and z.d.buf == first_buf:
            zs_presize(z, rows, z.d.pos - first_pos)
    return zs_deliver(z, rows, out)


cdef void zs_presize(ZStream *z, int64_t rows, int64_t consumed) noexcept nogil:
    """The reader's first batch, ``rows`` rows in (``consumed`` bytes of input read
    for them): room in every buffer for the rows the batch will likely hold (the
    input at hand at the same density, within batch_rows and batch_bytes) at once,
    instead of doubling there (each doubling copies the buffer). Later batches
    start at the last one's capacities (col_begin). Out of memory: nothing done
    (the general path then says so)."""
    cdef double expected = <double>(z.batch_rows - rows)
    if consumed <= 0 or z.d.used <= 0:
        return
    expected = min(expected, <double>(z.d.end - z.d.pos) * rows / consumed)
    expected = min(expected, <double>(z.batch_bytes - z.d.used) * rows / z.d.used)
    if expected >= 1:
        col_presize(z.root, (rows + expected) / rows, &z.d.held)


cdef void col_presize(Col *c, double scale, int64_t *held) noexcept nogil:
    """Every buffer of c's tree with room for ``scale`` times what it holds."""
    cdef int64_t i
    col_presize_buffer(&c.validity, scale, held, True)
    col_presize_buffer(&c.offsets, scale, held, False)
    col_presize_buffer(&c.data, scale, held, c.kind == C_BOOL)
    for i in range(c.n_children):
        col_presize(c.children[i], scale, held)


cdef inline void col_presize_buffer(zp_buf *b, double scale, int64_t *held, bint zero) noexcept nogil:
    cdef double need = b.len * scale
    if b.len and need > b.cap and need < <double>((<int64_t>1) << 46):
        zp_buf_grow_to(b, <int64_t>need - b.len, held, zero)


cdef bint zs_ends_inside(ZStream *z, int64_t start) noexcept nogil:
    """Whether the input ends inside the record at start: by structure (the skipper
    reaches the end of the input inside it), never by the decoder's message."""
    cdef zp_skipper s
    cdef unsigned char b
    cdef int rc
    if start >= z.d.end:
        return False
    b = z.d.buf[start]
    if not zp_is_map(b):
        return False
    zp_skip_init(&s, z.d.buf, start, z.d.end, z.d.skip_levels, z.d.guard.max_depth + 2, z.d.guard.max_depth, z.d.end - start)
    rc = zp_skip(&s)
    zp_skip_release(&s)
    return rc == ZP_SKIP_TRUNCATED or rc == ZP_SKIP_TOO_MANY


cdef void zs_torn_tail(ZStream *z, int64_t start) noexcept nogil:
    """The Dec error replaced by a torn tail at the record's start."""
    z.torn = True
    snprintf(z.d.message, MESSAGE_SIZE, "torn tail: the input ends inside the record that starts here "
             "(%lld byte%s of it there), where the valid data ends", <long long>(z.d.end - start),
             "" if z.d.end - start == 1 else "s")
    z.d.fail_at = z.d.base + start
    z.d.path[0] = b"$"
    z.d.path[1] = 0


cdef int zs_deliver_then_fail(ZStream *z, int64_t rows, ArrowArray *out, int rc) noexcept nogil:
    """A failure inside a batch (z.failed and its error set, rc its code): the complete
    records before it are delivered as a batch, and the error comes with the next call."""
    if rows == 0:
        col_clear(z.root, z.pool)
        return rc
    return zs_deliver(z, rows, out)


cdef int zs_deliver(ZStream *z, int64_t rows, ArrowArray *out) noexcept nogil:
    """The batch of ``rows`` rows into out (nothing at the end of the sources)."""
    if rows == 0:
        col_clear(z.root, z.pool)
        return 0
    if col_export(z.root, out, z.pool) < 0:
        if out.release != NULL:
            out.release(out)
        col_clear(z.root, z.pool)
        if not z.failed:        # an error already pending is the one to report
            z.failed = True
            z.error_code = ENOMEM
            snprintf(z.error, ERROR_SIZE, "out of memory exporting a batch")
        return z.error_code
    return 0


cdef void segment_free(Segment *s) noexcept nogil:
    free(s.path)
    free(s.name)
    free(s.label)


cdef void zs_free(ZStream *z) noexcept nogil:
    cdef int64_t i
    if z == NULL:
        return
    if z.fp != NULL:
        fclose(z.fp)
    col_free(z.root)
    free(z.d.steps)
    free(z.d.skip_levels)
    if z.d.struct_names != NULL:
        for i in range(z.d.n_struct_names):
            free(z.d.struct_names[i])
    free(z.d.struct_names)
    free(z.d.struct_name_lens)
    if z.d.scratch != NULL:
        for i in range(z.d.n_struct_names):
            col_free(z.d.scratch[i])
    free(z.d.scratch)
    if z.segs != NULL:
        for i in range(z.n_segs):
            segment_free(&z.segs[i])
    free(z.segs)
    free(z.win)
    zp_release_schema(&z.schema)
    zp_pool_unref(z.pool)
    free(z)


# -- the C stream -------------------------------------------------------------------------

cdef int zp_copy_schema(const ArrowSchema *src, ArrowSchema *dst) noexcept nogil:
    """A deep copy of an ArrowSchema this module made (get_schema, from any thread)."""
    cdef int64_t i, size = 0, count = 0, n
    memset(dst, 0, sizeof(ArrowSchema))
    dst.release = zp_release_schema
    dst.flags = src.flags
    dst.format = zp_strdup_c(src.format)
    dst.name = zp_strdup_c(src.name)
    if dst.format == NULL or dst.name == NULL:
        return -1
    if src.metadata != NULL:
        memcpy(&count, src.metadata, 4)
        size = 4
        for i in range(2 * (<int32_t>count)):
            n = 0
            memcpy(&n, src.metadata + size, 4)
            size += 4 + <int32_t>n
        dst.metadata = <const char *>malloc(size)
        if dst.metadata == NULL:
            return -1
        memcpy(<void *>dst.metadata, src.metadata, size)
    if src.n_children:
        dst.children = <ArrowSchema **>calloc(src.n_children, sizeof(ArrowSchema *))
        if dst.children == NULL:
            return -1
        dst.n_children = src.n_children
        for i in range(src.n_children):
            dst.children[i] = <ArrowSchema *>calloc(1, sizeof(ArrowSchema))
            if dst.children[i] == NULL or zp_copy_schema(src.children[i], dst.children[i]) < 0:
                return -1
    return 0


cdef char *zp_strdup_c(const char *text) noexcept nogil:
    cdef size_t n = strlen(text)
    cdef char *out = <char *>malloc(n + 1)
    if out != NULL:
        memcpy(out, text, n + 1)
    return out


cdef int zs_get_schema(ArrowArrayStream *stream, ArrowSchema *out) noexcept nogil:
    cdef ZStream *z = <ZStream *>stream.private_data
    if zp_copy_schema(&z.schema, out) < 0:
        zp_release_schema(out)
        return ENOMEM
    return 0


cdef int zs_get_next(ArrowArrayStream *stream, ArrowArray *out) noexcept nogil:
    cdef ZStream *z = <ZStream *>stream.private_data
    cdef int rc
    if not zp_try_enter(&z.busy):
        out.release = NULL
        snprintf(z.error, ERROR_SIZE, "the stream is being read by another thread")
        return EBUSY
    rc = zs_next(z, out)
    zp_leave(&z.busy)
    return rc


cdef const char *zs_get_last_error(ArrowArrayStream *stream) noexcept nogil:
    cdef ZStream *z = <ZStream *>stream.private_data
    return z.error if z.error[0] else NULL


cdef void zs_release(ArrowArrayStream *stream) noexcept nogil:
    cdef ZStream *z = <ZStream *>stream.private_data
    cdef PyObject *owner = z.owner if z != NULL else NULL
    stream.release = NULL
    if owner != NULL and Py_IsInitialized():
        with gil:
            Py_DECREF(<object>owner)


cdef void zp_stream_capsule_free(object capsule) noexcept:
    cdef ArrowArrayStream *stream = <ArrowArrayStream *>PyCapsule_GetPointer(capsule, "arrow_array_stream")
    if stream != NULL:
        if stream.release != NULL:
            stream.release(stream)
        free(stream)


cdef void zp_array_capsule_free(object capsule) noexcept:
    cdef ArrowArray *array = <ArrowArray *>PyCapsule_GetPointer(capsule, "arrow_array")
    if array != NULL:
        if array.release != NULL:
            array.release(array)
        free(array)


@cython.final
cdef class ArrowRecordReader:
    """One pass of the columnar reader over its sources (zebrapack.arrow builds it).

    ``next_batch()`` returns the next batch as an ("arrow_schema",
    "arrow_array") capsule pair, or None at the end; ``export_stream()`` hands
    the reader to an Arrow consumer as an "arrow_array_stream" capsule.
    """

    cdef ZStream *z
    cdef list _keep             # the Python objects the segments point into
    cdef bint _exported
    cdef object __weakref__     # zebrapack.streams.reading knows the files it reads by it

    def __cinit__(self, field, codec, *, Py_ssize_t batch_rows, Py_ssize_t batch_bytes, bint strict,
                  bint time_us, Py_ssize_t max_record_size=1 << 28, Py_ssize_t read_chunk=1 << 20):
        cdef Codec cd = <Codec?>codec
        cdef int64_t i
        if batch_rows < 1:
            raise ValueError(f"batch_rows must be positive, not {batch_rows}")
        if batch_bytes < 1:
            raise ValueError(f"batch_bytes must be positive, not {batch_bytes}")
        if read_chunk < 1:
            raise ValueError(f"read_chunk must be positive, not {read_chunk}")
        self._keep = []
        self.z = <ZStream *>calloc(1, sizeof(ZStream))
        if self.z == NULL:
            raise MemoryError()
        self.z.seg = -1
        self.z.batch_rows = batch_rows
        self.z.batch_bytes = batch_bytes
        self.z.max_record_size = max_record_size
        self.z.read_chunk = read_chunk
        self.z.d.strict = strict
        self.z.d.time_us = time_us
        # two batches' worth: the one the consumer just released and, with threads, the
        # one released while this reader builds the next
        self.z.pool = zp_pool_new(2 * <int64_t>batch_bytes)
        if self.z.pool == NULL:
            raise MemoryError()
        self.z.d.guard.max_depth = cd.max_depth
        self.z.d.steps = <zp_step *>calloc(cd.max_depth + 2, sizeof(zp_step))
        self.z.d.skip_levels = <zp_skip_level *>calloc(cd.max_depth + 2, sizeof(zp_skip_level))
        names = [name.encode("utf-8") for name in cd._by_name]
        self.z.d.struct_names = <char **>calloc(max(len(names), 1), sizeof(char *))
        self.z.d.struct_name_lens = <int64_t *>calloc(max(len(names), 1), sizeof(int64_t))
        if self.z.d.steps == NULL or self.z.d.skip_levels == NULL \
                or self.z.d.struct_names == NULL or self.z.d.struct_name_lens == NULL:
            raise MemoryError()
        self.z.d.n_struct_names = len(names)
        for i, name in enumerate(names):
            self.z.d.struct_names[i] = zp_strdup_bytes(name)
            self.z.d.struct_name_lens[i] = len(name)
        self.z.root = col_build(field)
        zp_export_schema(&self.z.schema, field)
        # the scratch columns that check values kept as their bytes (interface{},
        # named interfaces, recursive structs) as decode reads them: those of the
        # structs such a value can hold (every struct once a column holds interface{}
        # or a named interface; none for records without such columns, whose reader
        # is then made in a few microseconds)
        from zebrapack.arrow._mapping import arrow_fields
        indexes = {name: i for i, name in enumerate(cd._by_name)}
        self.z.d.scratch = <Col **>calloc(max(len(indexes), 1), sizeof(Col *))
        if self.z.d.scratch == NULL:
            raise MemoryError()
        wanted = set()
        pending = [name for name in indexes] if col_raw_structs(self.z.root, wanted) else sorted(wanted)
        while pending:
            name = pending.pop()
            i = indexes[name]
            if self.z.d.scratch[i] != NULL:
                continue
            self.z.d.scratch[i] = col_build(arrow_fields(codec, name))
            if col_begin(self.z.d.scratch[i], &self.z.d.held, NULL) < 0:
                raise MemoryError()
            wanted.clear()
            pending.extend(indexes if col_raw_structs(self.z.d.scratch[i], wanted) else wanted)
        for i in range(len(indexes)):
            if self.z.d.scratch[i] != NULL:
                col_link_structs(self.z.d.scratch[i], indexes)
        col_link_structs(self.z.root, indexes)

    def __dealloc__(self):
        if self.z != NULL:
            Py_XDECREF(self.z.source_error)
            self.z.source_error = NULL
        zs_free(self.z)
        self.z = NULL

    cdef Segment *_segment(self, int kind, str label, object path=None) except NULL:
        """A new segment; a file's ``path`` (str, bytes or os.PathLike) is kept as the OS names it."""
        cdef Segment made
        memset(&made, 0, sizeof(Segment))
        made.kind = kind
        try:
            if label is not None:
                made.label = zp_path_display(label)
            if path is not None:
                made.path = zp_path_new(path)
                made.name = zp_path_display(path)
        except BaseException:
            segment_free(&made)
            raise
        cdef Segment *grown = <Segment *>realloc(self.z.segs, (self.z.n_segs + 1) * sizeof(Segment))
        if grown == NULL:
            segment_free(&made)
            raise MemoryError()
        self.z.segs = grown
        grown[self.z.n_segs] = made
        self.z.n_segs += 1
        return &grown[self.z.n_segs - 1]

    def add_buffer(self, data, Py_ssize_t start):
        """Records of a bytes-like object from ``start``, read in place."""
        cdef const unsigned char[::1] view = memoryview(data).cast("B")
        cdef Segment *s
        if view.shape[0] <= start:
            return
        self._keep.append(view)
        s = self._segment(SEG_MEM, None)
        s.mem = &view[0]
        s.mem_len = view.shape[0]
        s.start = start

    def add_file(self, path, Py_ssize_t start, Py_ssize_t stop, str label=None):
        """Records of the file's bytes start..stop, read in chunks."""
        cdef Segment *s = self._segment(SEG_FILE, label, path)
        s.start = start
        s.stop = stop

    def add_entry(self, path, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t records, uint32_t crc, str label):
        """An index entry: its bytes must have the CRC32 and hold exactly ``records`` records."""
        cdef Segment *s = self._segment(SEG_ENTRY, label, path)
        s.start = start
        s.stop = stop
        s.records = records
        s.crc = crc

    def add_file_object(self, fileobj, bytes prefix, Py_ssize_t start, str label=None):
        """Records of a binary file object: ``prefix`` (already read, from offset ``start``), then read()."""
        cdef Segment *s = self._segment(SEG_PYFILE, label)
        self._keep.append(fileobj)
        self._keep.append(prefix)
        s.pyfile = <PyObject *>fileobj
        s.prefix = <const uint8_t *>PyBytes_AS_STRING(prefix)
        s.prefix_len = len(prefix)
        s.start = start

    def follow(self, ArrowRecordReader previous):
        """Make this reader's first batch at the sizes ``previous`` (a reader of the same
        columns, done or not yet started here) made its last, in the buffers of
        ``previous``'s batches once they are released: the next range of a decoder
        thread then starts without regrowing its buffers batch after batch, in memory
        already mapped (and in ``previous``'s file window once it has ended)."""
        if previous is self or self.z.root == NULL or previous.z.root == NULL:
            return
        if self.z.records or self.z.seg >= 0:
            raise ValueError("follow() must come before the first batch")
        col_follow(self.z.root, previous.z.root)
        if (previous.z.finished or previous.z.failed) and self.z.win == NULL \
                and zp_try_enter(&previous.z.busy):
            self.z.win, self.z.win_cap = previous.z.win, previous.z.win_cap
            previous.z.win, previous.z.win_cap = NULL, 0
            zp_leave(&previous.z.busy)
        if previous.z.pool != self.z.pool:
            zp_pool_ref(previous.z.pool)
            zp_pool_unref(self.z.pool)
            self.z.pool = previous.z.pool

    def next_batch(self):
        """The next batch as (schema capsule, array capsule), or None at the end."""
        cdef ArrowArray *array
        cdef ArrowSchema *schema
        cdef int rc
        if self._exported:
            raise ValueError("this reader was handed to an Arrow consumer")
        if not zp_try_enter(&self.z.busy):
            raise RuntimeError("the reader is being read by another thread")
        array = <ArrowArray *>malloc(sizeof(ArrowArray))
        if array == NULL:
            zp_leave(&self.z.busy)
            raise MemoryError()
        try:
            with nogil:
                rc = zs_next(self.z, array)
        finally:
            zp_leave(&self.z.busy)
        if rc:
            free(array)
            raise self.error()
        if array.release == NULL:
            free(array)
            return None
        array_capsule = PyCapsule_New(array, "arrow_array", <PyCapsule_Destructor>zp_array_capsule_free)
        schema = <ArrowSchema *>malloc(sizeof(ArrowSchema))
        if schema == NULL:
            raise MemoryError()
        if zp_copy_schema(&self.z.schema, schema) < 0:
            zp_release_schema(schema)
            free(schema)
            raise MemoryError()
        return PyCapsule_New(schema, "arrow_schema", <PyCapsule_Destructor>zp_schema_capsule_free), array_capsule

    @property
    def pooled_bytes(self):
        """Bytes of released batches kept for this reader's next batches (at most two
        batches' ``batch_bytes``)."""
        return zp_pool_bytes(self.z.pool)

    @property
    def reading(self):
        """Whether more may be read: neither at the end of the sources nor failed."""
        return not (self.z.finished or self.z.failed)

    def error(self):
        """The reader's error as an exception: DecodeError (with ``record``; TornTailError for an
        input that ends inside a record), or OSError / MemoryError."""
        if self.z.source_error != NULL:
            source_error = <object>self.z.source_error
            if isinstance(source_error, _DecodeError) and getattr(source_error, "record", None) is None:
                source_error.record = self.z.records
            return source_error
        if self.z.error_code == ENOMEM:
            return MemoryError(self.z.error.decode("utf-8", "replace"))
        if self.z.error_code != EINVAL:
            return OSError(self.z.error_code, self.z.error.decode("utf-8", "replace"))
        label = self.z.err_label.decode("utf-8", "replace") if self.z.err_label != NULL else ""
        reason = f"{label}{self.z.d.message.decode('utf-8', 'replace')} (record {self.z.err_record})"
        error_class = _TornTailError if self.z.torn else _DecodeError
        exc = error_class(reason, self.z.d.path.decode("utf-8", "replace"), self.z.d.fail_at)
        exc.record = self.z.err_record
        return exc

    def export_stream(self):
        """This reader as an "arrow_array_stream" capsule (it can be exported once)."""
        cdef ArrowArrayStream *stream
        if self._exported:
            raise ValueError("this reader was already handed to an Arrow consumer")
        stream = <ArrowArrayStream *>malloc(sizeof(ArrowArrayStream))
        if stream == NULL:
            raise MemoryError()
        self._exported = True
        stream.get_schema = zs_get_schema
        stream.get_next = zs_get_next
        stream.get_last_error = zs_get_last_error
        stream.release = zs_release
        stream.private_data = self.z
        Py_INCREF(self)
        self.z.owner = <PyObject *>self
        return PyCapsule_New(stream, "arrow_array_stream", <PyCapsule_Destructor>zp_stream_capsule_free)
