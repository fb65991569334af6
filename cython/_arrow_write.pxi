# The Arrow writer: record batches imported through the C Data / C Stream
# Interface (PyCapsules from pyarrow, Polars, our own reader...) written as
# records, row by row, straight from the Arrow buffers. One WCol per schema
# field says how its column is read (the Arrow layout) and written (the plan's
# kind, omission, key), and, compiled from both when the columns are built, the
# op by which a struct writes its non-null values without a dispatch per value
# (aw_struct_value). Rows are encoded without the GIL straight into the encoder's
# chunk buffer, sized from the batch's bound, and come back as views of it. Every row is written exactly as encode
# writes the value decode would give for it, and refused where encode refuses
# (an EncodeError naming the row and the column path).

from cpython.pycapsule cimport PyCapsule_GetName, PyCapsule_GetPointer, PyCapsule_IsValid
from cpython.bytearray cimport PyByteArray_FromStringAndSize
from libc.stdlib cimport calloc, free, malloc, realloc

cdef extern from "zp_arrow_write.h":
    ctypedef struct zp_out:
        unsigned char *data
        Py_ssize_t pos
        Py_ssize_t cap
    enum:
        ZP_LANE_ESCAPE
        ZP_LANE_CONST
        ZP_LANE_STR
        ZP_LANE_BIN
        ZP_LANE_I64
        ZP_LANE_F64
        ZP_LANE_BOOL
        ZP_LANE_TIME
    ctypedef struct zp_lane:
        int op
        bint escape
        bint omit
        bint large
        const unsigned char *key
        Py_ssize_t key_len
        uint64_t key_word
        Py_ssize_t room_after
        const uint8_t *validity
        const unsigned char *data1
        const unsigned char *data2
        int64_t off
        int64_t first
        int64_t last
        int64_t utf8_ok
        int64_t imin
        int64_t imax
        int64_t per_second
    Py_ssize_t zp_lane_value(const zp_lane *f, int64_t j, bint omit, unsigned char *p,
                             const unsigned char *limit) noexcept nogil
    Py_ssize_t zp_lanes_write(zp_lane **fields, Py_ssize_t k, Py_ssize_t n, int64_t at, unsigned char **pp,
                              const unsigned char *limit, Py_ssize_t *count) noexcept nogil
    ctypedef struct zp_row_check:
        int64_t to
    int64_t zp_rows_write(zp_lane **fields, Py_ssize_t n, const unsigned char *name, Py_ssize_t name_len,
                          bint with_name, Py_ssize_t room, const uint8_t *validity, int64_t off, int64_t r,
                          int64_t stop, zp_out *out, Py_ssize_t chunk_bytes, int64_t *ends, Py_ssize_t ends_cap,
                          Py_ssize_t *n_ends, int *full, zp_row_check *check) noexcept nogil
    unsigned char *zp_copy_words(unsigned char *dst, const unsigned char *src, Py_ssize_t n) noexcept nogil
    bint zp_all_valid(const uint8_t *bitmap, int64_t offset, int64_t length) noexcept nogil
    void zp_split_timestamp(int64_t v, int64_t per_second, int64_t *seconds, uint32_t *nanos) noexcept nogil
    Py_ssize_t zp_duplicate_key(const unsigned char *base, const Py_ssize_t *spans, Py_ssize_t n) noexcept nogil

cdef extern from "zp_write.h":
    Py_ssize_t zp_store_f64_bits(unsigned char *p, uint64_t bits) noexcept nogil

cdef extern from "Python.h":
    Py_ssize_t aw_refcount "Py_REFCNT"(PyObject *o) noexcept     # (of a borrowed pointer: no reference taken)

cdef extern from "zp_wire.h":
    void aw_copy_short "zp_copy_short"(unsigned char *dst, const void *src, Py_ssize_t n) noexcept nogil


cdef enum:
    # Arrow layouts the writer reads
    L_NULL = 1      # "n": every value null
    L_BOOL          # "b"
    L_INT           # c C s S i I l L (width, signedness)
    L_FLOAT         # e f g (width 2, 4, 8)
    L_TIMESTAMP     # ts?:zone, int64 in a unit
    L_BIN           # u z: int32 offsets
    L_LARGE_BIN     # U Z: int64 offsets
    L_VIEW_BIN      # vu vz: 16-byte views, variadic buffers
    L_FIXED_BIN     # w:N
    L_DICT          # dictionary-encoded: integer indices, the values column beside
    L_LIST          # +l
    L_LARGE_LIST    # +L
    L_LIST_VIEW     # +vl
    L_LARGE_LIST_VIEW   # +vL
    L_FIXED_LIST    # +w:N
    L_STRUCT        # +s
    L_MAP           # +m

cdef enum:
    # ops: how a struct writes a field's non-null value (aw_struct_value), from its kind and layout
    OP_GENERAL = 0  # aw_value: every kind and layout (nested values, dictionaries, views, raw bytes...)
    OP_CONST        # W_CONST: the bytes compiled for a field without a column
    OP_STR          # string from utf8 / large_utf8 (offsets)
    OP_BIN          # []byte, [N]byte from binary / large_binary / fixed_size_binary
    OP_I64          # a signed integer from an int64 column
    OP_INT          # an integer from another integer column
    OP_F64          # float64 from a float64 column
    OP_FLOAT        # float32, float64 from another float or integer column
    OP_BOOL
    OP_TIME         # time.Time from a timestamp

#: A string column's bytes are checked as UTF-8 in blocks of this many (aw_utf8_check).
cdef int64_t UTF8_BLOCK = 1 << 16


cdef enum:
    W_VALUE = 0     # a column of values
    W_CONST = 1     # a field without a column: its zero value's bytes (key included), or nothing
    W_RAW = 2       # msgpack bytes written verbatim (interface{}, named interfaces, recursive structs)


cdef struct WCol:
    zp_lane ln              # first: zp_lanes_write takes a struct's children as their lanes
    # what is written
    int how                 # W_VALUE, W_CONST, W_RAW
    int kind                # the plan kind of the value (pointers unwrapped)
    bint ptr                # under a pointer: null is nil, and the value's zero is written
    bint time_field         # a struct's own time.Time field: null is Go's zero time
    bint omit               # as a struct field: a zero value is left out with its key
    bint deprecated         # writing it warns (as encode)
    bint deprecated_written
    bint is_signed
    int64_t imin
    int64_t imax
    uint64_t umax
    Py_ssize_t length       # [N]T, [N]byte
    Py_ssize_t level        # the trail depth this value's container opens (struct, list, map)
    PyObject *field         # borrowed FieldPlan of a struct field (paths), or NULL
    PyObject *type_plan     # borrowed TypePlan (messages, raw checks)
    PyObject *struct_plan   # borrowed StructPlan of a struct value
    const unsigned char *key        # the field's key as written (zid, or tag in msgp mode); this and
                                    # the other compiled bytes below are padded for zp_copy_words
    Py_ssize_t key_len
    const unsigned char *name_entry  # the struct's -1 entry, when written
    Py_ssize_t name_len
    const unsigned char *const_bytes # W_CONST: key + zero value (empty: omitted)
    Py_ssize_t const_len
    # how a struct writes it (aw_struct_value), fixed when the columns are built
    int op                  # OP_*
    int field_op            # a struct's field: the op aw_struct_value writes it by when its lane leaves it
                            # (OP_GENERAL for a deprecated field, whose writes are marked there)
    bint omit_value         # omit, and not under a pointer: a zero non-null value is left out
    Py_ssize_t header_size  # a struct: the room of its map header (zp_map_header_size)
    Py_ssize_t room         # a struct: the bound of its fixed part (header, name, each field's key and
                            # value of bounded size, and the slack of zp_copy_words)
    Py_ssize_t room_after   # a struct's field: the bound of the fixed part after it, slack included
    # how it is read
    int layout
    int width               # bytes per value: integers, floats, fixed binary; N of fixed lists
    bint src_signed
    int64_t per_second      # timestamps: units per second
    Py_ssize_t n_children
    WCol **children          # struct fields in write order; list item; map key, value; complex/ext parts
    Py_ssize_t *arrow_index # struct: the Arrow child of each field (-1: W_CONST)
    WCol *values             # L_DICT: the dictionary's values
    # bound for each batch
    ArrowArray *arr
    int64_t off             # arr.offset
    const uint8_t *validity
    const unsigned char *data1
    const unsigned char *data2
    int64_t last            # L_BIN, L_LARGE_BIN: the last offset, the data buffer's extent
    int64_t first           # L_BIN, L_LARGE_BIN: the first offset
    bint utf8_bad           # a string column: invalid at ln.utf8_ok (aw_utf8_check)
    Py_ssize_t n_variadic
    ArrowArray *entries     # L_MAP: the entries struct
    PyObject *bind_path     # the column's path in bind's errors, kept from the first batch (ArrowRecordEncoder.keep)


cdef struct WriteCtx:
    zp_out out              # in out_bytes, a bytearray of out.cap bytes (the encoder's chunk, borrowed)
    PyObject *out_bytes
    bint msgp
    bint structnames
    bint fixext             # ext headers as the reference's EncodeMsg writes them (zp_store_ext_header)
    int64_t row
    Py_ssize_t max_depth
    zp_step *path           # by level, 1..depth (aw_enter): as a trail's steps (zp_trail.h), but ref
                            # is a column (FIELD: the field's; KEY: the key's, NULL until the key is
                            # written, its index the entry's row there), a Python value only in errors
    Py_ssize_t depth        # the level the value being written is in
    PyObject *root_name
    PyObject *codec         # borrowed Codec (raw checks)
    Py_ssize_t *spans       # map key spans (start, length), a stack shared by nested maps
    Py_ssize_t spans_top
    Py_ssize_t spans_cap
    int64_t *ends           # record ends in out, when wanted
    Py_ssize_t ends_cap
    Py_ssize_t n_ends
    bint want_ends
    bint rows_of_lanes      # the root struct's fields all have lanes, in a fixmap (zp_rows_write)
    zp_row_check check      # the rows zp_rows_write checked in bulk last (reset when a batch is bound)


# -- errors -----------------------------------------------------------------------

# -- where the writer is: the field path of errors, the depth limit ------------------

cdef inline int aw_enter(WriteCtx *ctx, WCol *c, int kind) except -1 nogil:
    """Into the level c's container opens (c.level, fixed when the columns are bound),
    at elements of kind (ZP_STEP_FIELD, ZP_STEP_INDEX, ZP_STEP_KEY); refused past max_depth."""
    if c.level > ctx.max_depth:
        with gil:
            return ctx_fail(ctx, f"nesting deeper than max_depth={ctx.max_depth} (does a value contain itself?)")
    ctx.depth = c.level
    ctx.path[c.level].kind = kind
    ctx.path[c.level].ref = NULL
    return 0


cdef inline void aw_leave(WriteCtx *ctx, WCol *c) noexcept nogil:
    ctx.depth = c.level - 1


cdef str aw_path(WriteCtx *ctx):
    """The field path, e.g. Compound.Inners[2].X: zp_path_write's, as trail_path's."""
    return path_text(<object>ctx.root_name, ctx.path, ctx.depth, aw_spell, NULL)


cdef int64_t aw_spell(void *owner, const zp_step *step, char *out, int64_t room) noexcept:
    """A writer step's field name (its column's FieldPlan's) or map key (the key column's
    value at the entry's row, its repr shortened), for zp_path_write."""
    cdef WCol *col = <WCol *>step.ref
    try:
        if step.kind == ZP_STEP_FIELD:
            text = (<FieldPlan>col.field).name if col != NULL else ""
        else:
            text = "<key>" if col == NULL else _short_repr(_col_value(col, step.index))
    except Exception:                   # a key whose repr fails: named as an unknown key
        text = "<key>"
    return spell_text(text, out, room)


# -- errors -----------------------------------------------------------------------

cdef int ctx_fail(WriteCtx *ctx, str message) except -1:
    """An EncodeError naming the row and the field path of the value being written."""
    path = aw_path(ctx)
    error = _EncodeError(message, f"row {ctx.row}, {path}", None)
    error.row = ctx.row
    error.column = path
    raise error


cdef int fail_nogil(WriteCtx *ctx, const char *message) except -1 nogil:
    with gil:
        return ctx_fail(ctx, message.decode("utf-8"))


cdef int fail_oom(WriteCtx *ctx) except -1 nogil:
    with gil:
        raise MemoryError("out of memory for the records being written")


# -- the output: room made in ctx.out, the msgpack stored there by zp_write.h ---------

cdef int aw_grow(WriteCtx *ctx, Py_ssize_t n) except -1 nogil:
    """Room for n more bytes: the chunk buffer (a bytearray) resized (rarely: it is sized from
    the batch's bound, aw_start_chunk)."""
    cdef Py_ssize_t cap = ctx.out.cap * 2
    if cap < ctx.out.pos + n:
        cap = ctx.out.pos + n
    with gil:
        PyByteArray_Resize(<object>ctx.out_bytes, cap)     # (nothing else holds it: resized in place or moved)
        ctx.out.data = <unsigned char *>PyByteArray_AS_STRING(<object>ctx.out_bytes)
        ctx.out.cap = cap
    return 0


cdef inline unsigned char *aw_room(WriteCtx *ctx, Py_ssize_t n) except NULL nogil:
    """Where the next n bytes of output go (the room made)."""
    if n > ctx.out.cap - ctx.out.pos:
        aw_grow(ctx, n)
    return ctx.out.data + ctx.out.pos


cdef unsigned char *aw_room_at(WriteCtx *ctx, unsigned char *p, Py_ssize_t n) except NULL nogil:
    """aw_room for a writer that keeps its position in p (aw_struct_value): where p is now."""
    ctx.out.pos = p - ctx.out.data
    return aw_room(ctx, n)


cdef inline int aw_put_byte(WriteCtx *ctx, unsigned char b) except -1 nogil:
    aw_room(ctx, 1)[0] = b
    ctx.out.pos += 1
    return 0


cdef inline int aw_put_raw(WriteCtx *ctx, const void *p, Py_ssize_t n) except -1 nogil:
    aw_room(ctx, n)
    if n:
        memcpy(ctx.out.data + ctx.out.pos, p, n)
    ctx.out.pos += n
    return 0


cdef int aw_put_header(WriteCtx *ctx, int family, int64_t n) except -1 nogil:
    """A str, bin, array or map header (zp_store_header), within msgpack's limit."""
    if n > ZP_MAX_LENGTH32:
        return aw_fail_limit(ctx)
    ctx.out.pos += zp_store_header(aw_room(ctx, 5), family, n)
    return 0


cdef int aw_put_time(WriteCtx *ctx, int64_t seconds, uint32_t nanos) except -1 nogil:
    ctx.out.pos += zp_store_time(aw_room(ctx, 15), seconds, nanos)
    return 0


cdef inline str _go(WCol *c):
    return (<TypePlan>c.type_plan).go


cdef int aw_fail_null(WriteCtx *ctx, WCol *c) except -1 nogil:
    with gil:
        if c.kind == K_TIME:
            detail = "None is only allowed for a time field itself"
        else:
            detail = "None is only allowed for pointers and interfaces"
        return ctx_fail(ctx, f"expected {_go(c)}, got null ({detail})")


# -- reading Arrow values ---------------------------------------------------------

cdef inline bint aw_is_null(WCol *c, int64_t i) noexcept nogil:
    cdef int64_t at
    if c.layout == L_NULL:
        return True
    if c.validity == NULL:
        return False
    at = i + c.arr.offset
    return (c.validity[at >> 3] >> (at & 7)) & 1 == 0


cdef inline int64_t aw_read_int(WCol *c, int64_t at) noexcept nogil:
    """A signed integer of any width at physical index at."""
    if c.width == 1:
        return (<const int8_t *>c.data1)[at]
    if c.width == 2:
        return (<const int16_t *>c.data1)[at]
    if c.width == 4:
        return (<const int32_t *>c.data1)[at]
    return (<const int64_t *>c.data1)[at]


cdef inline uint64_t aw_read_uint(WCol *c, int64_t at) noexcept nogil:
    if c.width == 1:
        return (<const uint8_t *>c.data1)[at]
    if c.width == 2:
        return (<const uint16_t *>c.data1)[at]
    if c.width == 4:
        return (<const uint32_t *>c.data1)[at]
    return (<const uint64_t *>c.data1)[at]


cdef inline int aw_offsets(WriteCtx *ctx, WCol *c, int64_t at, int64_t *start, int64_t *stop) except -1 nogil:
    """Where binary value at (physical index) of a binary or large binary column starts and stops
    in its data buffer: between its neighbours, inside the buffer (whose extent is the last offset)."""
    if c.layout == L_BIN:
        start[0] = (<const int32_t *>c.data1)[at]
        stop[0] = (<const int32_t *>c.data1)[at + 1]
    else:
        start[0] = (<const int64_t *>c.data1)[at]
        stop[0] = (<const int64_t *>c.data1)[at + 1]
    if start[0] < 0 or stop[0] < start[0] or stop[0] > c.last:
        return aw_fail_offsets(ctx)
    return 0


cdef int aw_fail_offsets(WriteCtx *ctx) except -1 nogil:
    return fail_nogil(ctx, "offsets out of order or past the data buffer (invalid Arrow data)")


cdef int aw_read_bytes(WriteCtx *ctx, WCol *c, int64_t i, const unsigned char **p, int64_t *n) except -1 nogil:
    """The bytes of a binary or string value (any of its layouts)."""
    cdef int64_t at = i + c.arr.offset, start = 0, stop = 0, index, offset
    cdef const unsigned char *view
    if c.layout == L_BIN or c.layout == L_LARGE_BIN:
        aw_offsets(ctx, c, at, &start, &stop)
        p[0] = c.data2 + start
        n[0] = stop - start
        return 0
    elif c.layout == L_FIXED_BIN:
        p[0] = c.data1 + at * c.width
        n[0] = c.width
        return 0
    else:   # L_VIEW_BIN
        view = c.data1 + 16 * at
        n[0] = (<const int32_t *>view)[0]
        if n[0] < 0:
            return fail_nogil(ctx, "a binary view of negative length (invalid Arrow data)")
        if n[0] <= 12:
            p[0] = view + 4
            return 0
        index = (<const int32_t *>view)[2]
        offset = (<const int32_t *>view)[3]
        if index < 0 or index >= c.n_variadic or offset < 0 \
                or offset + n[0] > (<const int64_t *>c.arr.buffers[2 + c.n_variadic])[index]:
            return fail_nogil(ctx, "a binary view outside its data buffers (invalid Arrow data)")
        p[0] = <const unsigned char *>c.arr.buffers[2 + index] + offset
        return 0


cdef int aw_list_range(WriteCtx *ctx, WCol *c, int64_t i, int64_t *start, int64_t *n) except -1 nogil:
    """The logical indices in the item column of list value i."""
    cdef int64_t at = i + c.arr.offset
    cdef ArrowArray *items = c.entries if c.layout == L_MAP else c.children[0].arr
    if c.layout == L_LIST or c.layout == L_MAP:
        start[0] = (<const int32_t *>c.data1)[at]
        n[0] = (<const int32_t *>c.data1)[at + 1] - start[0]
    elif c.layout == L_LARGE_LIST:
        start[0] = (<const int64_t *>c.data1)[at]
        n[0] = (<const int64_t *>c.data1)[at + 1] - start[0]
    elif c.layout == L_LIST_VIEW:
        start[0] = (<const int32_t *>c.data1)[at]
        n[0] = (<const int32_t *>c.data2)[at]
    elif c.layout == L_LARGE_LIST_VIEW:
        start[0] = (<const int64_t *>c.data1)[at]
        n[0] = (<const int64_t *>c.data2)[at]
    else:   # L_FIXED_LIST (the item column's length was checked when the batch was bound)
        start[0] = at * c.width
        n[0] = c.width
    if start[0] < 0 or n[0] < 0 or n[0] > items.length - start[0]:
        return fail_nogil(ctx, "list offsets outside the item column (invalid Arrow data)")
    return 0


cdef object _col_value(WCol *c, int64_t i):
    """A scalar as Python sees it, for a map key in an error path."""
    cdef const unsigned char *p = NULL
    cdef int64_t n = 0, at = i + c.arr.offset
    if c.layout == L_DICT:
        return _col_value(c.values, aw_read_int(c, at) if c.src_signed else <int64_t>aw_read_uint(c, at))
    if c.layout == L_INT:
        return aw_read_int(c, at) if c.src_signed else aw_read_uint(c, at)
    if c.layout == L_FLOAT:
        return (<const double *>c.data1)[at] if c.width == 8 else (<const float *>c.data1)[at]
    if c.layout == L_BOOL:
        return bool((c.data1[at >> 3] >> (at & 7)) & 1)
    if c.layout in (L_BIN, L_LARGE_BIN, L_VIEW_BIN, L_FIXED_BIN):
        aw_read_bytes(NULL, c, i, &p, &n)
        data = PyBytes_FromStringAndSize(<const char *>p, n)
        return data.decode("utf-8", "replace") if c.kind == K_STRING else data
    return "<key>"


# -- writing values -----------------------------------------------------------------
#
# A value's rule is written once, as a store at p (room made by the caller) or as the
# checked bytes of a binary value; aw_value (any value, its room made per value) and
# aw_struct_value (a struct's fields, its room made once for the fixed part) use them.

cdef int aw_value(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    """Value i of column c; 1 when written, 0 when omit left out a zero value."""
    cdef int kind = c.kind
    cdef Py_ssize_t size
    if aw_is_null(c, i):
        return aw_null(ctx, c, omit)
    if c.ptr:
        omit = False            # a non-nil pointer is written whatever its value
    if c.op == OP_STR or c.op == OP_BIN:
        return aw_binary(ctx, c, i, omit)
    if c.op != OP_GENERAL:      # the ops of bounded size
        size = aw_store_bounded(ctx, c, c.op, i + c.off, omit, aw_room(ctx, 15))
        ctx.out.pos += size
        return size != 0
    if c.layout == L_DICT:
        return aw_dictionary_value(ctx, c, i, omit)
    if c.how == W_RAW:
        return aw_raw(ctx, c, i, omit)
    if kind == K_STRING or kind == K_BYTES or kind == K_BYTEARRAY:
        return aw_binary(ctx, c, i, omit)
    if kind == K_STRUCT:
        return aw_struct_value(ctx, c, i + c.arr.offset, ctx.structnames)
    if kind == K_SLICE or kind == K_ARRAY:
        return aw_list(ctx, c, i, omit)
    if kind == K_MAP:
        return aw_map_value(ctx, c, i, omit)
    if kind == K_C64 or kind == K_C128:
        return aw_complex_value(ctx, c, i, omit)
    if kind == K_EXT:
        return aw_ext_value(ctx, c, i)
    if kind == K_NUMBER:
        return aw_number_value(ctx, c, i)
    with gil:
        raise AssertionError(f"no Arrow writer for plan kind {kind}")


cdef inline Py_ssize_t aw_store_bounded(WriteCtx *ctx, WCol *c, int op, int64_t at, bint omit,
                                        unsigned char *p) except -1 nogil:
    """A non-null value of c, whose op (op) is of bounded size (at most 15 bytes), at p;
    its size, 0 when omit left out a zero value."""
    cdef Py_ssize_t size
    if op == OP_INT:
        return aw_store_int(ctx, c, at, omit, p)
    if op == OP_FLOAT:
        return aw_store_float(ctx, c, at, omit, p)
    size = zp_lane_value(&c.ln, at, omit, p, p + 15)    # OP_I64, OP_F64, OP_BOOL, OP_TIME: its lane's
    if size < 0:                                        # (an int64 outside the field's range)
        return aw_fail_range(ctx, c, (<const int64_t *>c.data1)[at], 0)
    return size


cdef inline int aw_text_span(WriteCtx *ctx, WCol *c, int64_t at, bint omit, const unsigned char **src,
                             int64_t *n) except -1 nogil:
    """The bytes of string value at (physical index) of an OP_STR column (utf8, large_utf8),
    checked as encode checks them (UTF-8, msgpack's limit): 1 to write them, 0 when omit
    leaves an empty value out."""
    cdef int64_t start = 0, stop = 0
    cdef const unsigned char *d = c.data2
    aw_offsets(ctx, c, at, &start, &stop)
    src[0] = d + start
    n[0] = stop - start
    if stop == start:
        return not omit
    # inside the part of the data already checked, between two characters: valid
    if not (start >= c.first and stop < c.ln.utf8_ok and d[start] & 0xc0 != 0x80 and d[stop] & 0xc0 != 0x80):
        aw_utf8_check(ctx, c, start, stop)
    if n[0] > ZP_MAX_LENGTH32:
        return aw_fail_limit(ctx)
    return 1


cdef int aw_binary_span(WriteCtx *ctx, WCol *c, int64_t at, bint omit, const unsigned char **src,
                        int64_t *n) except -1 nogil:
    """The bytes of binary or string value at (physical index) of any layout, checked as
    encode checks them ([N]byte's length, UTF-8, msgpack's limit): 1 to write them, 0
    when omit leaves an empty value out."""
    cdef int64_t start = 0, stop = 0
    if c.op == OP_STR:
        return aw_text_span(ctx, c, at, omit, src, n)
    if c.layout == L_BIN or c.layout == L_LARGE_BIN:
        aw_offsets(ctx, c, at, &start, &stop)
        src[0] = c.data2 + start
        n[0] = stop - start
    elif c.layout == L_FIXED_BIN:
        src[0] = c.data1 + at * c.width
        n[0] = c.width
    else:
        aw_read_bytes(ctx, c, at - c.off, src, n)
    if c.kind == K_BYTEARRAY and n[0] != c.length:
        with gil:
            return ctx_fail(ctx, f"expected {_go(c)}: {c.length} bytes, got {n[0]}")
    if n[0] == 0:
        return not omit
    if c.kind == K_STRING and zp_utf8_invalid_at(<const uint8_t *>src[0], n[0]) >= 0:
        return fail_nogil(ctx, "invalid UTF-8 in a string")
    if n[0] > ZP_MAX_LENGTH32:
        return aw_fail_limit(ctx)
    return 1


cdef int aw_fail_limit(WriteCtx *ctx) except -1 nogil:
    return fail_nogil(ctx, "more than 2**32-1 elements or bytes: msgpack's limit")


cdef int aw_utf8_check(WriteCtx *ctx, WCol *c, int64_t start, int64_t stop) except -1 nogil:
    """String bytes data2[start:stop] (not empty) of an offsets column checked as UTF-8.
    A column's data is checked once, in blocks from its first offset as its values come
    (ln.utf8_ok: checked that far; utf8_bad: invalid there); a value inside the checked part
    that starts and stops between characters (not on a continuation byte) is valid (a
    cut of valid UTF-8 between characters is), any other is checked alone."""
    cdef const unsigned char *d = c.data2
    cdef int64_t end, bad
    cdef int k
    if not c.utf8_bad and start >= c.first and stop > c.ln.utf8_ok:
        end = stop + UTF8_BLOCK if c.last - stop > UTF8_BLOCK else c.last
        for k in range(3):          # the block ends between characters where it can
            if end == stop or end == c.last or d[end] & 0xc0 != 0x80:
                break
            end -= 1
        bad = zp_utf8_invalid_at(<const uint8_t *>d + c.ln.utf8_ok, end - c.ln.utf8_ok)
        if bad < 0:
            c.ln.utf8_ok = end
        else:
            c.ln.utf8_ok += bad
            c.utf8_bad = True
    if start >= c.first and stop <= c.ln.utf8_ok and d[start] & 0xc0 != 0x80 \
            and (stop == c.ln.utf8_ok or d[stop] & 0xc0 != 0x80):
        return 0
    if zp_utf8_invalid_at(<const uint8_t *>d + start, stop - start) >= 0:
        return fail_nogil(ctx, "invalid UTF-8 in a string")
    return 0


cdef int aw_binary(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    cdef const unsigned char *src = NULL
    cdef int64_t n = 0
    cdef unsigned char *p
    if not aw_binary_span(ctx, c, i + c.off, omit, &src, &n):
        return 0
    p = aw_room(ctx, n + 5)
    if c.kind == K_STRING:
        ctx.out.pos += zp_store_str(p, src, n)
    else:
        p += zp_store_header(p, ZP_BIN, n)
        aw_copy_short(p, src, n)
        ctx.out.pos = p + n - ctx.out.data
    return 1


cdef int aw_null(WriteCtx *ctx, WCol *c, bint omit) except -1 nogil:
    if c.ptr or c.kind == K_IFACE:
        if omit:
            return 0
        return aw_put_byte(ctx, ZP_NIL) + 1
    if c.kind == K_INTF or c.kind == K_EXT:     # never empty to the reference generator: nil is written
        return aw_put_byte(ctx, ZP_NIL) + 1
    if c.time_field:
        if omit:
            return 0
        return aw_put_time(ctx, ZP_GO_ZERO_SECONDS, 0) + 1
    return aw_fail_null(ctx, c)


cdef int aw_dictionary_value(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    cdef int64_t at = i + c.arr.offset
    cdef int64_t k
    if c.src_signed:
        k = aw_read_int(c, at)
    else:
        k = <int64_t>aw_read_uint(c, at)
    if k < 0 or k >= c.values.arr.length:
        return fail_nogil(ctx, "dictionary index outside the dictionary (invalid Arrow data)")
    return aw_value(ctx, c.values, k, omit)


cdef Py_ssize_t aw_store_int(WriteCtx *ctx, WCol *c, int64_t at, bint omit, unsigned char *p) except -1 nogil:
    """An integer column's value into an integer (9 bytes of room); 0 when omitted."""
    cdef int64_t v
    cdef uint64_t u
    if c.src_signed:
        v = aw_read_int(c, at)
        if v == 0 and omit:
            return 0
        if c.is_signed:
            if v < c.imin or v > c.imax:
                return aw_fail_range(ctx, c, v, 0)
            return zp_store_signed(p, v)
        if v < 0 or <uint64_t>v > c.umax:
            return aw_fail_range(ctx, c, v, 0)
        return zp_store_unsigned(p, <uint64_t>v)
    u = aw_read_uint(c, at)
    if u == 0 and omit:
        return 0
    if c.is_signed:
        if u > <uint64_t>c.imax:
            return aw_fail_range(ctx, c, 0, u)
        return zp_store_signed(p, <int64_t>u)
    if u > c.umax:
        return aw_fail_range(ctx, c, 0, u)
    return zp_store_unsigned(p, u)


cdef int aw_fail_range(WriteCtx *ctx, WCol *c, int64_t v, uint64_t u) except -1 nogil:
    with gil:
        value = <object>v if c.src_signed else <object>u     # as Python ints: no C conversion between them
        bounds = f"{c.imin}..{c.imax}" if c.is_signed else f"0..{c.umax}"
        return ctx_fail(ctx, f"{value} is outside the range of {_go(c)} ({bounds})")


cdef double aw_half_to_double(uint16_t h) noexcept nogil:
    cdef int exponent = (h >> 10) & 0x1f
    cdef double mantissa = h & 0x3ff
    cdef double value
    if exponent == 0:
        value = mantissa * 5.9604644775390625e-08          # 2**-24
    elif exponent == 31:
        value = zp_double_from_bits(0x7ff0000000000000ULL if mantissa == 0 else 0x7ff8000000000000ULL)
    else:
        value = (1.0 + mantissa / 1024.0) * (<double>(1 << exponent) / 32768.0)
    return -value if h & 0x8000 else value


cdef Py_ssize_t aw_store_float(WriteCtx *ctx, WCol *c, int64_t at, bint omit,
                               unsigned char *p) except -1 nogil:
    """A float or integer column's value into a float32 or float64 (9 bytes of room); 0
    when omitted (positive zero only)."""
    cdef int64_t v = 0
    cdef uint64_t u = 0
    cdef double d
    cdef uint32_t bits = 0
    cdef bint exact_source = c.layout == L_FLOAT
    if c.layout == L_FLOAT and c.width == 4 and c.kind == K_F32:
        bits = (<const uint32_t *>c.data1)[at]        # float32 to float32: the bits as they are
        if bits == 0 and omit:
            return 0
        return zp_store_f32_bits(p, bits)
    if c.layout == L_FLOAT:
        if c.width == 8:
            d = (<const double *>c.data1)[at]
        elif c.width == 4:
            d = (<const float *>c.data1)[at]
        else:
            d = aw_half_to_double((<const uint16_t *>c.data1)[at])
    elif c.src_signed:                  # an integer column: only exact values (as encode takes an int)
        v = aw_read_int(c, at)
        if not zp_i64_fits_double(v):
            return aw_fail_inexact(ctx, c, v, 0, False)
        d = <double>v
    else:
        u = aw_read_uint(c, at)
        if not zp_u64_fits_double(u):
            return aw_fail_inexact(ctx, c, 0, u, True)
        d = <double>u
    if omit and d == 0.0 and not signbit(d):
        return 0
    if c.kind == K_F64:
        return zp_store_f64(p, d)       # (a float64 column is OP_F64's, written as its bits)
    if not exact_source and not zp_double_fits_f32(d):
        return aw_fail_inexact(ctx, c, v, u, not c.src_signed)
    if zp_f32_bits_from_double(d, &bits) < 0:
        with gil:
            return ctx_fail(ctx, f"{d!r} overflows {_go(c)}")
    return zp_store_f32_bits(p, bits)


cdef int aw_fail_inexact(WriteCtx *ctx, WCol *c, int64_t v, uint64_t u, bint unsigned) except -1 nogil:
    with gil:
        value = <object>u if unsigned else <object>v
        return ctx_fail(ctx, f"{value} is not exactly a {_go(c)}")


cdef int aw_complex_value(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    cdef int64_t at = i + c.arr.offset
    cdef double part[2]
    cdef uint32_t bits[2]
    cdef int k
    cdef WCol *p
    for k in range(2):
        p = c.children[k]
        if aw_is_null(p, at):
            with gil:
                return ctx_fail(ctx, f"the {'imaginary' if k else 'real'} part is null")
        if p.width == 8:
            part[k] = (<const double *>p.data1)[at + p.arr.offset]
        else:
            part[k] = (<const float *>p.data1)[at + p.arr.offset]
    if omit and part[0] == 0.0 and part[1] == 0.0 and not signbit(part[0]) and not signbit(part[1]):
        return 0
    if c.kind == K_C128:
        ctx.out.pos += zp_store_complex128(aw_room(ctx, 18), part[0], part[1])
        return 1
    for k in range(2):
        p = c.children[k]
        if p.width == 4:
            bits[k] = (<const uint32_t *>p.data1)[at + p.arr.offset]
        elif zp_f32_bits_from_double(part[k], &bits[k]) < 0:
            with gil:
                return ctx_fail(ctx, f"{'imaginary' if k else 'real'} part {part[k]!r} overflows float32")
    ctx.out.pos += zp_store_complex64(aw_room(ctx, 10), bits[0], bits[1])
    return 1


cdef int aw_ext_value(WriteCtx *ctx, WCol *c, int64_t i) except -1 nogil:
    """msgp.Extension: struct<code, data>, written as the reference writes it (zp_store_ext)."""
    cdef int64_t at = i + c.arr.offset, code, n = 0
    cdef const unsigned char *p = NULL
    cdef WCol *code_col = c.children[0]
    cdef WCol *data_col = c.children[1]
    if aw_is_null(code_col, at) or aw_is_null(data_col, at):
        return fail_nogil(ctx, "an ext's code or data is null")
    if code_col.src_signed:
        code = aw_read_int(code_col, at + code_col.arr.offset)
    else:
        code = <int64_t>min(aw_read_uint(code_col, at + code_col.arr.offset), <uint64_t>1000)
    if code < -128 or code > 127:
        with gil:
            return ctx_fail(ctx, f"ext code {code} is not in -128..127")
    aw_read_bytes(ctx, data_col, at, &p, &n)
    if n > ZP_MAX_LENGTH32:
        return fail_nogil(ctx, "an ext of more than 2**32-1 bytes: msgpack's limit")
    ctx.out.pos += zp_store_ext(aw_room(ctx, 6 + n), <int8_t>code, p, n, ctx.fixext)
    return 1


cdef int aw_number_value(WriteCtx *ctx, WCol *c, int64_t i) except -1 nogil:
    """msgp.Number (zp_store_number): from a struct<int, uint, float32, float64> with one
    part set, or from a plain number column, whose Arrow type says the family."""
    cdef int64_t at = i + c.arr.offset
    cdef zp_number number
    cdef uint32_t bits32 = 0
    cdef WCol *src = c
    cdef Py_ssize_t k, found = 0
    if c.layout == L_STRUCT:
        for k in range(4):
            if not aw_is_null(c.children[k], at):
                found += 1
                src = c.children[k]
                number.family = ZP_NUMBER_INT + k
        if found != 1:
            with gil:
                return ctx_fail(ctx, f"a {_go(c)} row holds {found} of its parts ({', '.join(_NUMBER_PARTS)}): "
                                     "exactly one says its value and family")
        at += src.arr.offset
    elif src.layout == L_INT:
        number.family = ZP_NUMBER_INT if src.src_signed else ZP_NUMBER_UINT
    else:
        number.family = ZP_NUMBER_F32 if src.width <= 4 else ZP_NUMBER_F64
    if src.layout == L_INT:
        number.bits = <uint64_t>aw_read_int(src, at) if src.src_signed else aw_read_uint(src, at)
    elif src.width == 8:
        number.bits = zp_double_bits((<const double *>src.data1)[at])
    elif src.width == 4:
        number.bits = (<const uint32_t *>src.data1)[at]      # float32 bits as they are
    else:                           # half float: exactly a float32
        zp_f32_bits_from_double(aw_half_to_double((<const uint16_t *>src.data1)[at]), &bits32)
        number.bits = bits32
    ctx.out.pos += zp_store_number(aw_room(ctx, 9), &number)
    return 1


cdef int aw_raw(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    """Msgpack bytes kept verbatim: checked as encode checks preserved bytes (one value
    that decoding reads back), named interfaces and structs as the struct they are."""
    cdef const unsigned char *p = NULL
    cdef int64_t n = 0
    aw_read_bytes(ctx, c, i, &p, &n)
    if c.kind == K_RAW:
        if n == 0:                          # decode's b"": written as encode writes it, nil
            return aw_put_byte(ctx, ZP_NIL) + 1
        with gil:
            problem = raw_problem(p, n, ctx.max_depth - (c.level - 1))
            if problem is not None:
                ctx_fail(ctx, f"{_go(c)} must hold exactly one msgpack value: {problem}")
        return aw_put_raw(ctx, p, n) + 1
    if n == 1 and p[0] == ZP_NIL and c.kind == K_IFACE:
        return aw_null(ctx, c, omit)     # a nil named interface is None to decode
    if n == 1 and p[0] == ZP_NIL and c.kind == K_STRUCT:
        return aw_put_raw(ctx, c.const_bytes, c.const_len) + 1
    with gil:
        check_raw_bytes(ctx, c, p, n)
    return aw_put_raw(ctx, p, n) + 1


cdef int check_raw_bytes(WriteCtx *ctx, WCol *c, const unsigned char *p, Py_ssize_t n) except -1:
    cdef Reader r
    reader_over(&r, p, n, ctx.max_depth - (c.level - 1), <Codec>ctx.codec)
    try:
        if n == 0:
            reader_fail(&r, 0, "no bytes")
        read_back(&r, <TypePlan>c.type_plan)
    except _DecodeError as exc:
        zp_traceback_shorten(exc.__traceback__)
        ctx_fail(ctx, f"the {_go(c)} column's msgpack bytes do not read back: {exc}")
    finally:
        trail_release(&r.trail)
    return 0


cdef int aw_list(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    cdef int64_t start = 0, n = 0, j
    cdef WCol *item = c.children[0]
    aw_list_range(ctx, c, i, &start, &n)
    if c.kind == K_ARRAY and n != c.length:
        with gil:
            return ctx_fail(ctx, f"expected {_go(c)}: {c.length} elements, got {n}")
    if n == 0 and omit:         # a [0]T array too (write_sequence)
        return 0
    aw_put_header(ctx, ZP_ARRAY, n)
    aw_enter(ctx, c, ZP_STEP_INDEX)
    for j in range(n):
        ctx.path[c.level].index = j
        aw_value(ctx, item, start + j, False)
    aw_leave(ctx, c)
    return 1


cdef int aw_map_value(WriteCtx *ctx, WCol *c, int64_t i, bint omit) except -1 nogil:
    """A map in entry order; a key written twice is refused (a Python dict, as Go's
    map, holds each key once). Key spans go on a stack in ctx shared by nested maps."""
    cdef int64_t start = 0, n = 0, j, at
    cdef WCol *key = c.children[0]
    cdef WCol *value = c.children[1]
    cdef Py_ssize_t base = ctx.spans_top, found
    cdef Py_ssize_t *grown
    aw_list_range(ctx, c, i, &start, &n)
    if n == 0 and omit:
        return 0
    aw_put_header(ctx, ZP_MAP, n)
    if base + 2 * n > ctx.spans_cap:
        grown = <Py_ssize_t *>realloc(ctx.spans, (base + 2 * n + 64) * sizeof(Py_ssize_t))
        if grown == NULL:
            return fail_oom(ctx)
        ctx.spans = grown
        ctx.spans_cap = base + 2 * n + 64
    ctx.spans_top = base + 2 * n
    aw_enter(ctx, c, ZP_STEP_KEY)
    for j in range(n):
        at = start + j + c.entries.offset       # the entries struct's offset applies to its children
        ctx.path[c.level].ref = NULL            # "[<key>]" until the key is written
        if aw_is_null(key, at):
            return fail_nogil(ctx, "a map key is null")
        ctx.spans[base + 2 * j] = ctx.out.pos
        aw_value(ctx, key, at, False)
        ctx.spans[base + 2 * j + 1] = ctx.out.pos - ctx.spans[base + 2 * j]
        ctx.path[c.level].ref = key
        ctx.path[c.level].index = at
        aw_value(ctx, value, at, False)
    found = zp_duplicate_key(ctx.out.data, ctx.spans + base, n)
    if found == -2:
        return fail_oom(ctx)
    if found >= 0:
        ctx.path[c.level].index = start + found + c.entries.offset
        return fail_nogil(ctx, "the key repeats an earlier key of the map (a Go map holds each key once)")
    ctx.spans_top = base
    aw_leave(ctx, c)
    return 1


cdef int aw_struct_value(WriteCtx *ctx, WCol *c, int64_t at, bint with_name) except -1 nogil:
    """The struct whose fields are at index ``at`` of their columns: fields in write
    order under a map header sized for the fields actually written. Room for the fixed
    part (c.room) is made once; a string or binary value makes room for its bytes, a
    field written by aw_value for the fixed part after it (room_after)."""
    cdef Py_ssize_t header_pos, count = 0, k, size, key_pos
    cdef unsigned char *p
    cdef unsigned char *key_at
    cdef const unsigned char *src = NULL
    cdef WCol *f
    cdef int64_t j, n = 0
    cdef int op, written
    cdef zp_step *step
    aw_room(ctx, c.room)
    header_pos = ctx.out.pos
    p = ctx.out.data + header_pos + c.header_size
    if with_name:
        p = zp_copy_words(p, c.name_entry, c.name_len)
        count += 1
    aw_enter(ctx, c, ZP_STEP_FIELD)
    step = &ctx.path[c.level]
    k = 0
    while True:
        # the fields of lanes, until one the lanes leave here
        k = zp_lanes_write(<zp_lane **>c.children, k, c.n_children, at, &p, ctx.out.data + ctx.out.cap, &count)
        if k >= c.n_children:
            break
        f = c.children[k]
        k += 1
        step.ref = f
        op = f.field_op
        if op == OP_CONST:
            if f.const_len:
                p = zp_copy_words(p, f.const_bytes, f.const_len)
                count += 1
                if f.deprecated:
                    f.deprecated_written = True
            continue
        j = at + f.off
        if f.validity != NULL and not (f.validity[j >> 3] >> (j & 7)) & 1:
            op = OP_GENERAL         # a null, as aw_value writes it
        key_at = p
        p = zp_copy_words(p, f.key, f.key_len)
        if op == OP_STR:
            if not aw_text_span(ctx, f, j, f.omit_value, &src, &n):
                p = key_at
                continue
            if n > ctx.out.cap - (p - ctx.out.data) - 5 - f.room_after:
                p = aw_room_at(ctx, p, n + 5 + f.room_after)
            p += zp_store_str(p, src, n)
        elif op == OP_BIN:
            if not aw_binary_span(ctx, f, j, f.omit_value, &src, &n):
                p = key_at
                continue
            if n > ctx.out.cap - (p - ctx.out.data) - 5 - f.room_after:
                p = aw_room_at(ctx, p, n + 5 + f.room_after)
            p += zp_store_header(p, ZP_BIN, n)
            aw_copy_short(p, src, n)
            p += n
        elif op == OP_GENERAL:
            key_pos = key_at - ctx.out.data
            ctx.out.pos = p - ctx.out.data
            written = aw_value(ctx, f, at, f.omit)
            if not written:
                ctx.out.pos = key_pos
            p = aw_room(ctx, f.room_after)
            if not written:
                continue
            if f.deprecated:
                f.deprecated_written = True
        else:
            # each op's store inlined with its constant: no second dispatch
            if op == OP_I64:
                size = aw_store_bounded(ctx, f, OP_I64, j, f.omit_value, p)
            elif op == OP_F64:
                size = aw_store_bounded(ctx, f, OP_F64, j, f.omit_value, p)
            elif op == OP_BOOL:
                size = aw_store_bounded(ctx, f, OP_BOOL, j, f.omit_value, p)
            elif op == OP_TIME:
                size = aw_store_bounded(ctx, f, OP_TIME, j, f.omit_value, p)
            elif op == OP_INT:
                size = aw_store_bounded(ctx, f, OP_INT, j, f.omit_value, p)
            else:
                size = aw_store_bounded(ctx, f, OP_FLOAT, j, f.omit_value, p)
            if size == 0:
                p = key_at
                continue
            p += size
        count += 1
    aw_leave(ctx, c)
    ctx.out.pos = zp_close_map(ctx.out.data, header_pos, c.header_size, p - ctx.out.data, count)
    return 1


cdef int aw_encode_rows(WriteCtx *ctx, WCol *root, int64_t start, int64_t stop, Py_ssize_t chunk_bytes,
                     int64_t row_base, int64_t *done) except -1 nogil:
    """Rows start.. of the bound batch, until stop or until the output holds chunk_bytes:
    runs of them by zp_rows_write where the root's fields all have lanes, the rows it
    leaves (and all the others) one by one."""
    cdef int64_t r = start
    cdef int64_t *ends
    cdef int full = 0
    if ctx.want_ends and ctx.ends == NULL:     # (zp_rows_write takes NULL as no ends wanted)
        ctx.ends = <int64_t *>malloc(1024 * sizeof(int64_t))
        if ctx.ends == NULL:
            return fail_oom(ctx)
        ctx.ends_cap = 1024
    while r < stop:
        if ctx.rows_of_lanes:
            r = zp_rows_write(<zp_lane **>root.children, root.n_children, root.name_entry, root.name_len,
                              ctx.structnames, root.room, root.ln.validity, root.off, r, stop, &ctx.out,
                              chunk_bytes, ctx.ends if ctx.want_ends else NULL, ctx.ends_cap, &ctx.n_ends, &full,
                              &ctx.check)
            if full:
                done[0] = r
                return 0
            if r >= stop:
                break
        ctx.row = row_base + r
        ctx.depth = 0
        ctx.spans_top = 0
        if aw_is_null(root, r):
            return fail_nogil(ctx, "the row is null")
        aw_struct_value(ctx, root, r + root.arr.offset, ctx.structnames)
        if ctx.want_ends:
            if ctx.n_ends == ctx.ends_cap:
                ends = <int64_t *>realloc(ctx.ends, (ctx.ends_cap * 2 + 1024) * sizeof(int64_t))
                if ends == NULL:
                    return fail_oom(ctx)
                ctx.ends = ends
                ctx.ends_cap = ctx.ends_cap * 2 + 1024
            ctx.ends[ctx.n_ends] = ctx.out.pos
            ctx.n_ends += 1
        r += 1
        if ctx.out.pos >= chunk_bytes:
            done[0] = r
            return 0
    done[0] = stop
    return 0


# -- importing Arrow data through PyCapsules ------------------------------------------

cdef class _ImportedSchema:
    """An ArrowSchema moved out of its capsule; released with this object."""
    cdef ArrowSchema schema

    def __dealloc__(self):
        if self.schema.release != NULL:
            self.schema.release(&self.schema)

    def arrow_type(self):
        return _arrow_type(&self.schema, 0)


cdef class _ImportedArray:
    """An ArrowArray moved out of its capsule or stream; released with this object."""
    cdef ArrowArray array

    def __dealloc__(self):
        if self.array.release != NULL:
            self.array.release(&self.array)

    @property
    def length(self):
        return self.array.length


cdef class _ImportedStream:
    """An ArrowArrayStream moved out of its capsule: its schema, then its batches."""
    cdef ArrowArrayStream stream

    def __dealloc__(self):
        if self.stream.release != NULL:
            self.stream.release(&self.stream)

    cdef str _error(self, int code):
        cdef const char *text = NULL
        if self.stream.get_last_error != NULL:
            text = self.stream.get_last_error(&self.stream)
        message = (<bytes>text).decode("utf-8", "replace") if text != NULL else f"error code {code}"
        return f"the Arrow stream failed: {message}"

    def schema(self):
        cdef _ImportedSchema result = _ImportedSchema()
        cdef int code
        with nogil:
            code = self.stream.get_schema(&self.stream, &result.schema)
        if code != 0:
            raise ValueError(self._error(code))
        return result

    def next_batch(self):
        """The next batch, or None at the end of the stream."""
        cdef _ImportedArray result = _ImportedArray()
        cdef int code
        with nogil:
            code = self.stream.get_next(&self.stream, &result.array)
        if code != 0:
            raise ValueError(self._error(code))
        if result.array.release == NULL:
            return None
        return result


cdef void *_capsule_pointer(object capsule, const char *name) except NULL:
    if not PyCapsule_IsValid(capsule, name):
        raise TypeError(f"expected a PyCapsule named {(<bytes>name).decode()!r}, got {capsule!r}")
    return PyCapsule_GetPointer(capsule, name)


def _import_stream(capsule):
    """Take the ArrowArrayStream out of an "arrow_array_stream" capsule (the capsule's is marked released)."""
    cdef ArrowArrayStream *source = <ArrowArrayStream *>_capsule_pointer(capsule, b"arrow_array_stream")
    cdef _ImportedStream result = _ImportedStream()
    if source.release == NULL:
        raise ValueError("the Arrow stream capsule was already consumed")
    memcpy(&result.stream, source, sizeof(ArrowArrayStream))
    source.release = NULL
    return result


def _import_array(schema_capsule, array_capsule):
    """Take the ArrowSchema and ArrowArray out of their capsules (``__arrow_c_array__``)."""
    cdef ArrowSchema *schema = <ArrowSchema *>_capsule_pointer(schema_capsule, b"arrow_schema")
    cdef ArrowArray *array = <ArrowArray *>_capsule_pointer(array_capsule, b"arrow_array")
    cdef _ImportedSchema imported_schema = _ImportedSchema()
    cdef _ImportedArray imported_array = _ImportedArray()
    if schema.release == NULL or array.release == NULL:
        raise ValueError("the Arrow capsules were already consumed")
    memcpy(&imported_schema.schema, schema, sizeof(ArrowSchema))
    schema.release = NULL
    memcpy(&imported_array.array, array, sizeof(ArrowArray))
    array.release = NULL
    return imported_schema, imported_array


# -- the imported Arrow schema ----------------------------------------------------------

cdef class _ArrowType:
    """One node of an imported ArrowSchema (copied out of it)."""
    cdef readonly str format
    cdef readonly str name
    cdef readonly bint nullable
    cdef readonly list children
    cdef readonly _ArrowType dictionary


cdef _ArrowType _arrow_type(const ArrowSchema *s, int depth):
    cdef _ArrowType node = _ArrowType()
    cdef int64_t k
    if depth > 256:
        raise ValueError("the Arrow schema nests deeper than 256 levels")
    if s == NULL or s.format == NULL:
        raise ValueError("an Arrow schema without a format (released or invalid)")
    node.format = (<bytes>s.format).decode("utf-8", "replace")
    node.name = (<bytes>s.name).decode("utf-8", "replace") if s.name != NULL else ""
    node.nullable = (s.flags & ARROW_FLAG_NULLABLE) != 0
    node.children = [_arrow_type(s.children[k], depth + 1) for k in range(s.n_children)]
    node.dictionary = _arrow_type(s.dictionary, depth + 1) if s.dictionary != NULL else None
    return node


cdef dict _INT_FORMATS = {"c": (1, True), "C": (1, False), "s": (2, True), "S": (2, False),
                          "i": (4, True), "I": (4, False), "l": (8, True), "L": (8, False)}
cdef dict _BIN_FORMATS = {"u": L_BIN, "z": L_BIN, "U": L_LARGE_BIN, "Z": L_LARGE_BIN,
                          "vu": L_VIEW_BIN, "vz": L_VIEW_BIN}
cdef dict _LIST_FORMATS = {"+l": L_LIST, "+L": L_LARGE_LIST, "+vl": L_LIST_VIEW, "+vL": L_LARGE_LIST_VIEW}
cdef dict _PER_SECOND = {"s": 1, "m": 1000, "u": 1000000, "n": 1000000000}


#: msgp.Number as a struct (zebrapack.arrow's mapping): the part set in a row says the family.
cdef tuple _NUMBER_PARTS = ("int", "uint", "float32", "float64")
cdef tuple _NUMBER_PART_FORMATS = (("c", "s", "i", "l"), ("C", "S", "I", "L"), ("f",), ("g",))


cdef int _fixed_size(str fmt, str prefix) except -2:
    """N of "w:N" / "+w:N", or -1 when fmt is not of that shape."""
    if not fmt.startswith(prefix):
        return -1
    try:
        n = int(fmt[len(prefix):])
    except ValueError:
        return -1
    return n if 0 <= n <= 0x7fffffff else -1


# What a buffer that is not there reads as: no byte is read from it, but pointer
# arithmetic on NULL (even + 0) is undefined.
cdef unsigned char _NO_BYTES[8]

#: The most values an imported array may claim (its byte extents must fit in 64 bits).
cdef int64_t _MAX_ARROW_LENGTH = 0x100000000000000     # 2**56


cdef int _invalid(str path, str message) except -1:
    """Arrow data that does not hold what its own fields say: an EncodeError naming the column."""
    raise _EncodeError(f"{message} (invalid Arrow data)", path, None)


cdef str _child_path(WCol *c, Py_ssize_t k, str path):
    cdef WCol *child = c.children[k]
    if child.field != NULL:
        return f"{path}.{(<FieldPlan>child.field).name}"
    if c.kind == K_NUMBER:
        return f"{path}.{_NUMBER_PARTS[k]}"
    return path + ((".real", ".imag") if c.kind == K_C64 or c.kind == K_C128 else (".code", ".data"))[k]


cdef inline str _bound_path(WCol *c):
    """c's path as its first bind made it; None before."""
    return <str>c.bind_path if c.bind_path != NULL else None


cdef inline int64_t _layout_buffers(int layout) noexcept:
    """The buffers an array of the layout has (the validity bitmap first), but variadic ones."""
    if layout == L_NULL:
        return 0
    if layout == L_FIXED_LIST or layout == L_STRUCT:
        return 1
    if layout == L_BIN or layout == L_LARGE_BIN or layout == L_VIEW_BIN or layout == L_LIST_VIEW \
            or layout == L_LARGE_LIST_VIEW:
        return 3
    return 2        # BOOL, INT, FLOAT, TIMESTAMP, FIXED_BIN, DICT, LIST, LARGE_LIST, MAP


cdef int _check_array(ArrowArray *arr, int64_t need, str path) except -1:
    """The fields of an imported array that every layout relies on."""
    if arr == NULL or arr.release == NULL:
        _invalid(path, "a released or missing array in the batch")
    if arr.length < 0 or arr.offset < 0 or arr.length > _MAX_ARROW_LENGTH or arr.offset > _MAX_ARROW_LENGTH:
        _invalid(path, f"an array of length {arr.length} at offset {arr.offset}")
    if arr.length < need:
        _invalid(path, f"an array of {arr.length} values where {need} are needed")
    if arr.null_count < -1 or arr.null_count > arr.length:
        _invalid(path, f"an array of {arr.length} values with a null count of {arr.null_count}")
    if arr.n_buffers < 0 or arr.n_children < 0 or (arr.n_children and arr.children == NULL):
        _invalid(path, "an array without its buffers or children")
    return 0


cdef int _bind_binary(WCol *c, ArrowArray *arr, str path) except -1:
    """The extent of a binary column's data buffer: its last offset (what the producer
    says it holds), after the first; every value is checked against it as it is read."""
    cdef int64_t first = 0, last = 0
    if arr.length > 0:                  # (no value is read from an empty column)
        if c.layout == L_BIN:
            first = (<const int32_t *>c.data1)[arr.offset]
            last = (<const int32_t *>c.data1)[arr.offset + arr.length]
        else:
            first = (<const int64_t *>c.data1)[arr.offset]
            last = (<const int64_t *>c.data1)[arr.offset + arr.length]
    if first < 0 or last < first:
        _invalid(path, f"binary offsets from {first} to {last}")
    if c.data2 == NULL:
        if last > 0:
            _invalid(path, f"a binary array of {last} bytes without its data buffer")
        c.data2 = _NO_BYTES
    c.last = last
    c.first = first
    c.ln.utf8_ok = first           # nothing checked yet (aw_utf8_check)
    c.utf8_bad = False
    return 0


cdef int _bind_views(WCol *c, ArrowArray *arr, str path) except -1:
    """A binary view column: its variadic buffers and their sizes (the views are checked
    against them as they are read)."""
    cdef int64_t k
    cdef const int64_t *sizes
    c.n_variadic = arr.n_buffers - 3
    if c.n_variadic == 0:
        return 0
    sizes = <const int64_t *>arr.buffers[arr.n_buffers - 1]
    if sizes == NULL:
        _invalid(path, "a binary view array without its buffer sizes")
    for k in range(c.n_variadic):
        if sizes[k] < 0 or (sizes[k] > 0 and arr.buffers[2 + k] == NULL):
            _invalid(path, f"a binary view array whose data buffer {k} is missing or of {sizes[k]} bytes")
    return 0


cdef class ArrowRecordEncoder:
    """Writes the rows of imported Arrow record batches as records of one struct.

    Built by ``zebrapack.arrow.write`` from the stream's schema (a ``+s`` of
    columns); ``encode`` takes one imported batch at a time."""

    cdef Codec codec
    cdef StructPlan plan
    cdef bint msgp
    cdef bint structnames
    cdef list keep              # objects the Cols borrow from
    cdef WCol **cols             # every WCol allocated, to free
    cdef Py_ssize_t n_cols
    cdef Py_ssize_t cap_cols
    cdef Py_ssize_t max_level
    cdef WCol *root
    cdef WriteCtx ctx
    cdef list deprecated        # (StructPlan, FieldPlan, WCol address) of deprecated fields
    cdef set warned
    cdef object _bound          # the batch the WCols point into
    cdef bytearray _chunk       # the buffer chunks are written into (_start_chunk)

    def __cinit__(self):
        memset(&self.ctx, 0, sizeof(WriteCtx))

    def __init__(self, Codec codec, str struct_name, _ArrowType arrow_type, *, bint structnames=True,
                 str mode="zebrapack", bint fixext=False):
        self.codec = codec
        self.plan = codec._plan_for_type(struct_name)
        self.msgp = _mode_is_msgp(mode)
        self.structnames = structnames and not self.msgp
        self.keep = []
        self.deprecated = []
        self.warned = set()
        if arrow_type.format != "+s":
            raise ValueError(f"a stream of record batches has struct rows, not Arrow format {arrow_type.format!r}")
        self.ctx.msgp = self.msgp
        self.ctx.structnames = self.structnames
        self.ctx.fixext = fixext        # before the columns: their constant bytes are written with it
        self.root = self._new_col(W_VALUE, K_STRUCT, 1)
        self.root.layout = L_STRUCT
        self._build_struct(self.root, self.plan, arrow_type, self.plan.name, False)
        self.ctx.max_depth = codec.max_depth
        self.ctx.root_name = <PyObject *>self.plan.name
        self.ctx.codec = <PyObject *>codec
        self.ctx.rows_of_lanes = self.root.header_size == 1 and all(
            not self.root.children[k].ln.escape for k in range(self.root.n_children))
        self.ctx.path = <zp_step *>calloc(self.max_level + 2, sizeof(zp_step))
        if self.ctx.path == NULL:
            raise MemoryError()

    def __dealloc__(self):
        cdef Py_ssize_t k
        for k in range(self.n_cols):
            free(self.cols[k].children)
            free(self.cols[k].arrow_index)
            free(self.cols[k])
        free(self.cols)
        free(self.ctx.path)
        free(self.ctx.ends)
        free(self.ctx.spans)

    # -- building ----------------------------------------------------------------

    cdef WCol *_new_col(self, int how, int kind, Py_ssize_t level) except NULL:
        cdef WCol *c = <WCol *>calloc(1, sizeof(WCol))
        cdef WCol **grown
        if c == NULL:
            raise MemoryError()
        if self.n_cols == self.cap_cols:
            grown = <WCol **>realloc(self.cols, (self.cap_cols * 2 + 16) * sizeof(WCol *))
            if grown == NULL:
                free(c)
                raise MemoryError()
            self.cols = grown
            self.cap_cols = self.cap_cols * 2 + 16
        self.cols[self.n_cols] = c
        self.n_cols += 1
        c.how = how
        c.kind = kind
        c.level = level
        if level > self.max_level:
            self.max_level = level
        return c

    cdef const unsigned char *_borrow(self, bytes data):
        """data's bytes, kept, padded for zp_copy_words."""
        padded = data + bytes(8)
        self.keep.append(padded)
        return <const unsigned char *>PyBytes_AS_STRING(padded)

    cdef int _children(self, WCol *c, Py_ssize_t n) except -1:
        c.children = <WCol **>calloc(max(n, 1), sizeof(WCol *))
        c.arrow_index = <Py_ssize_t *>calloc(max(n, 1), sizeof(Py_ssize_t))
        if c.children == NULL or c.arrow_index == NULL:
            raise MemoryError()
        c.n_children = n
        return 0

    cdef int _build_struct(self, WCol *c, StructPlan sp, _ArrowType node, str path, bint inlined) except -1:
        """The columns of struct sp; ``inlined``: TypePlan.inlined (msgp mode writes every field)."""
        cdef FieldPlan fp
        cdef WCol *f
        cdef Py_ssize_t k
        if node.format != "+s":
            _schema_error(path, f"expected a struct column for {sp.name}, found Arrow format {node.format!r}")
        if sp.without_zid is not None and not self.msgp:
            _schema_error(path, f"{sp.name}.{sp.without_zid} has no zid (the schema was made for -msgp): "
                                f"zebrapack mode keys fields by zid; write with mode='msgp'")
        by_name = {}
        for k, child in enumerate(node.children):
            if (<_ArrowType>child).name in by_name:
                _schema_error(path, f"two columns named {(<_ArrowType>child).name!r}")
            by_name[(<_ArrowType>child).name] = k
        fields = sp.msgp_fields if self.msgp else sp.fields
        unknown = set(by_name) - {(<FieldPlan>item).name for item in fields}
        if unknown:
            names = ", ".join((<FieldPlan>item).name for item in sp.fields)
            _schema_error(path, f"no field of {sp.name} is named {', '.join(sorted(map(repr, unknown)))} "
                                f"(its fields: {names})")
        c.struct_plan = <PyObject *>sp
        self.keep.append(sp)
        name_entry = sp.name_entry
        c.name_entry = self._borrow(name_entry)
        c.name_len = len(name_entry)
        self._children(c, len(fields))
        for k, item in enumerate(fields):
            fp = <FieldPlan>item
            sub = f"{path}.{fp.name}"
            if fp.name in by_name and fp.type.kind == K_UNUSABLE:
                _schema_error(sub, f"no column can be written as {fp.type.go}, which zebrapack cannot "
                                   f"represent ({fp.type.reason})")
            if fp.name in by_name:
                f = self._build_value(fp.type, node.children[by_name[fp.name]], sub, c.level + 1, fp.time_field)
                c.arrow_index[k] = by_name[fp.name]
                key = fp.tag_key if self.msgp else fp.zid_key
                f.key = self._borrow(key)
                f.key_len = len(key)
            else:
                f = self._new_col(W_CONST, fp.type.kind, c.level + 1)
                f.op = OP_CONST
                f.field_op = OP_CONST
                f.ln.op = ZP_LANE_CONST
                c.arrow_index[k] = -1
                zero = self._zero_field(fp, inlined)
                f.const_bytes = self._borrow(zero)
                f.const_len = len(zero)
            f.field = <PyObject *>fp
            f.omit = _omits(fp, self.msgp, inlined)
            f.omit_value = f.omit and not f.ptr
            if f.how != W_CONST:
                f.field_op = OP_GENERAL if fp.deprecated else f.op
                f.ln.key = f.key
                f.ln.key_len = f.key_len
            else:
                f.ln.key = f.const_bytes
                f.ln.key_len = f.const_len
            memcpy(&f.ln.key_word, f.ln.key, 8)    # (padded: 8 bytes there)
            f.ln.omit = f.omit_value
            f.ln.escape = f.ln.escape or fp.deprecated
            f.deprecated = fp.deprecated
            if fp.deprecated:
                self.deprecated.append((sp, fp, <Py_ssize_t>f))
            c.children[k] = f
        # the bounds aw_struct_value makes room by: the 8 bytes of slack, then each
        # field's fixed part, from the last
        after = 8
        for k in reversed(range(c.n_children)):
            f = c.children[k]
            f.room_after = after
            f.ln.room_after = after
            after += f.const_len if f.how == W_CONST else f.key_len + _VALUE_ROOM[f.field_op]
        c.header_size = zp_map_header_size(c.n_children + self.structnames)
        c.room = c.header_size + (c.name_len if self.structnames else 0) + after
        return 0

    cdef bytes _zero_field(self, FieldPlan fp, bint inlined):
        """Key and zero value of a field without a column, as encode writes it (b"" when left out)."""
        return self._packed(fp.tag_key if self.msgp else fp.zid_key, fp.type, None if fp.time_field else make_zero(fp.type),
                            _omits(fp, self.msgp, inlined), fp.time_field)

    cdef bytes _packed(self, bytes key, TypePlan t, object value, bint omit, bint time_field):
        """key and value as encode's own writers write them (b"" when omit leaves the value out)."""
        cdef Writer w
        w.out_array = NULL
        w.has_view = False
        w.pos = 0
        w.cap = 64
        w.msgp = self.msgp
        w.structnames = self.structnames
        w.fixext = self.ctx.fixext
        w.by_class = <PyObject *>self.codec._by_class
        trail_init(&w.trail, self.codec.max_depth)
        out = PyBytes_FromStringAndSize(NULL, w.cap)
        Py_INCREF(out)
        w.out_bytes = <PyObject *>out
        del out
        try:
            w.data = <unsigned char *>PyBytes_AS_STRING(<object>w.out_bytes)
            put_bytes_object(&w, key)
            if time_field:
                written = write_time(&w, t, value, omit, True)
            else:
                written = write_value(&w, t, value, omit)
            result = PyBytes_FromStringAndSize(<const char *>w.data, w.pos if written else 0)
        finally:
            trail_release(&w.trail)
            Py_XDECREF(w.out_bytes)
        return result

    cdef WCol *_build_value(self, TypePlan t, _ArrowType node, str path, Py_ssize_t level,
                           bint time_field) except NULL:
        """The WCol of a value of type t read from the Arrow column node, with its op."""
        cdef WCol *c = self._build_column(t, node, path, level, time_field)
        c.op = _op(c)
        c.ln.op = _lane_op(c)
        c.ln.escape = c.ln.op == ZP_LANE_ESCAPE
        c.ln.large = c.layout == L_LARGE_BIN
        c.ln.imin, c.ln.imax, c.ln.per_second = c.imin, c.imax, c.per_second
        return c

    cdef WCol *_build_column(self, TypePlan t, _ArrowType node, str path, Py_ssize_t level,
                            bint time_field) except NULL:
        """The WCol of a value of type t read from the Arrow column node: its layout and kind."""
        cdef bint ptr = False
        cdef WCol *c
        cdef int kind
        cdef str fmt = node.format
        while t.kind == K_POINTER:
            ptr = True
            t = t.elem
        kind = t.kind
        c = self._new_col(W_VALUE, kind, level)
        c.ptr = ptr
        c.time_field = time_field
        c.type_plan = <PyObject *>t
        self.keep.append(t)
        c.is_signed, c.imin, c.imax, c.umax, c.length = t.is_signed, t.imin, t.imax, t.umax, t.length
        nullable = ptr or time_field or kind in (K_INTF, K_IFACE, K_EXT)
        if node.dictionary is not None:
            if fmt not in _INT_FORMATS:
                _schema_error(path, f"dictionary indices of Arrow format {fmt!r}")
            c.layout = L_DICT
            c.width, c.src_signed = _INT_FORMATS[fmt]
            c.values = self._build_value(t, node.dictionary, path, level, time_field)
            c.values.ptr = ptr
            return c
        if fmt == "n":
            if not nullable:
                _schema_error(path, f"a column of nulls cannot hold {t.go} (only pointers, interfaces, "
                                    f"ext and time fields are nullable)")
            c.layout = L_NULL
            return c
        if kind in (K_INTF, K_IFACE, K_RAW) or (kind == K_STRUCT and fmt in _BIN_FORMATS):
            if fmt not in _BIN_FORMATS or fmt.endswith("u"):
                self._mismatch(path, t, fmt, "binary holding msgpack bytes")
            c.how = W_RAW
            c.layout = _BIN_FORMATS[fmt]
            if kind == K_STRUCT:
                # nil decodes as the struct's zero value: written as encode writes that
                zero = self._packed(b"", t, make_zero(t), False, False)
                c.const_bytes = self._borrow(zero)
                c.const_len = len(zero)
            return c
        if kind == K_STRING or kind == K_BYTES or kind == K_BYTEARRAY:
            fixed = _fixed_size(fmt, "w:")
            if kind == K_STRING and fmt in ("u", "U", "vu") or kind != K_STRING and fmt in ("z", "Z", "vz"):
                c.layout = _BIN_FORMATS[fmt]
            elif kind != K_STRING and fixed >= 0:
                if kind == K_BYTEARRAY and fixed != t.length:
                    _schema_error(path, f"expected {t.go}: {t.length} bytes, the column holds {fixed}")
                c.layout = L_FIXED_BIN
                c.width = fixed
            else:
                self._mismatch(path, t, fmt, "utf8" if kind == K_STRING else "binary")
            return c
        if K_UINT <= kind <= K_INT64:
            if fmt not in _INT_FORMATS:
                self._mismatch(path, t, fmt, "an integer")
            c.layout = L_INT
            c.width, c.src_signed = _INT_FORMATS[fmt]
            return c
        if kind == K_F32 or kind == K_F64:
            if fmt in ("e", "f", "g"):
                c.layout = L_FLOAT
                c.width = {"e": 2, "f": 4, "g": 8}[fmt]
            elif fmt in _INT_FORMATS:
                c.layout = L_INT
                c.width, c.src_signed = _INT_FORMATS[fmt]
            else:
                self._mismatch(path, t, fmt, "a float")
            return c
        if kind == K_BOOL:
            if fmt != "b":
                self._mismatch(path, t, fmt, "bool")
            c.layout = L_BOOL
            return c
        if kind == K_TIME:
            if len(fmt) < 4 or not fmt.startswith("ts") or fmt[2] not in _PER_SECOND or fmt[3] != ":":
                self._mismatch(path, t, fmt, "a timestamp")
            if len(fmt) == 4:
                _schema_error(path, "a timestamp without a time zone is ambiguous, as a naive datetime is to "
                                    "encode: give the column a zone (UTC, e.g. Polars' dt.replace_time_zone)")
            c.layout = L_TIMESTAMP
            c.per_second = _PER_SECOND[fmt[2]]
            return c
        if kind == K_STRUCT:
            self._build_struct(c, t.struct_plan, node, path, t.inlined)
            c.layout = L_STRUCT
            return c
        if kind == K_C64 or kind == K_C128:
            self._build_parts(c, node, path, t, ("real", "imag"), (("f", "g"), ("f", "g")))
            return c
        if kind == K_EXT:
            self._build_parts(c, node, path, t, ("code", "data"), (tuple(_INT_FORMATS), ("z", "Z", "vz")))
            return c
        if kind == K_NUMBER:
            if fmt == "+s":     # zebrapack.number, as the reader gives it: one part set per row
                self._build_parts(c, node, path, t, _NUMBER_PARTS, _NUMBER_PART_FORMATS)
            elif fmt in _INT_FORMATS:       # a plain number column: its Arrow type says the family
                c.layout = L_INT
                c.width, c.src_signed = _INT_FORMATS[fmt]
            elif fmt in ("e", "f", "g"):
                c.layout = L_FLOAT
                c.width = {"e": 2, "f": 4, "g": 8}[fmt]
            else:
                self._mismatch(path, t, fmt, f"a struct<{', '.join(_NUMBER_PARTS)}> or a number column")
            return c
        if kind == K_SLICE or kind == K_ARRAY:
            fixed = _fixed_size(fmt, "+w:")
            if fmt in _LIST_FORMATS:
                c.layout = _LIST_FORMATS[fmt]
            elif fixed >= 0:
                if kind == K_ARRAY and fixed != t.length:
                    _schema_error(path, f"expected {t.go}: {t.length} elements, the column holds {fixed}")
                c.layout = L_FIXED_LIST
                c.width = fixed
            else:
                self._mismatch(path, t, fmt, "a list")
            if len(node.children) != 1:
                _schema_error(path, "a list column without its one item column")
            self._children(c, 1)
            c.children[0] = self._build_value(t.elem, node.children[0], path + "[]", level + 1, False)
            return c
        if kind == K_MAP:
            if fmt != "+m" or len(node.children) != 1 or len((<_ArrowType>node.children[0]).children) != 2:
                self._mismatch(path, t, fmt, "a map")
            c.layout = L_MAP
            entries = <_ArrowType>node.children[0]
            self._children(c, 2)
            c.children[0] = self._build_value(t.key, entries.children[0], path + "[<key>]", level + 1, False)
            c.children[1] = self._build_value(t.elem, entries.children[1], path + "[]", level + 1, False)
            return c
        raise AssertionError(f"no Arrow writer for plan kind {kind}")

    cdef int _build_parts(self, WCol *c, _ArrowType node, str path, TypePlan t, tuple names,
                          tuple formats) except -1:
        """complex (real, imag), ext (code, data) and number (int, uint, float32, float64): a
        struct of named columns, each of one of its formats (formats[k] for names[k])."""
        cdef WCol *part
        cdef Py_ssize_t k
        if node.format != "+s" or sorted(child.name for child in node.children) != sorted(names):
            self._mismatch(path, t, node.format, f"a struct<{', '.join(names)}>")
        c.layout = L_STRUCT
        self._children(c, len(names))
        for k, child in enumerate(node.children):
            slot = names.index((<_ArrowType>child).name)
            fmt = (<_ArrowType>child).format
            if fmt not in formats[slot]:
                self._mismatch(f"{path}.{names[slot]}", t, fmt, "its part")
            part = self._new_col(W_VALUE, K_BYTES, c.level)
            part.width = 8 if fmt == "g" else 4
            if fmt in _INT_FORMATS:
                part.layout = L_INT
                part.width, part.src_signed = _INT_FORMATS[fmt]
            elif fmt in _BIN_FORMATS:
                part.layout = _BIN_FORMATS[fmt]
            else:
                part.layout = L_FLOAT
            c.children[slot] = part
            c.arrow_index[slot] = k
        return 0

    cdef int _mismatch(self, str path, TypePlan t, str fmt, str wanted) except -1:
        return _schema_error(path, f"a column of Arrow format {fmt!r} cannot be written as {t.go} "
                                   f"(expected {wanted})")

    # -- binding a batch -------------------------------------------------------------

    cdef int _bind(self, WCol *c, ArrowArray *arr, int64_t need, str path) except -1:
        """_bind_column, then c's lane pointed at the same buffers."""
        if c.bind_path == NULL:         # (the next batches' binds make no path strings)
            self.keep.append(path)
            c.bind_path = <PyObject *>path
        self._bind_column(c, arr, need, path)
        c.ln.data1, c.ln.data2, c.ln.off = c.data1, c.data2, c.off
        c.ln.first, c.ln.last = c.first, c.last
        # a bitmap that holds no null (counted: a null count is the producer's word) is not read
        c.ln.validity = c.validity
        if c.validity != NULL and zp_all_valid(c.validity, arr.offset, arr.length):
            c.ln.validity = NULL
        return 0

    cdef int _bind_column(self, WCol *c, ArrowArray *arr, int64_t need, str path) except -1:
        """Point c (and its children) at arr, checking everything the layout reads against
        what arr says it holds (no producer is trusted: its buffers' extents follow from its
        length and offset, and from the last offset of a binary column); ``need``: how many
        logical values its parent may index; ``path``: the column's, for errors."""
        cdef Py_ssize_t k
        cdef int64_t child_need, buffers, size
        cdef int layout = c.layout
        _check_array(arr, need, path)
        c.arr = arr
        c.off = arr.offset
        buffers = _layout_buffers(layout)
        if arr.n_buffers and arr.buffers == NULL:
            _invalid(path, "an array without its buffers")
        if arr.n_buffers < buffers:
            _invalid(path, f"an array with {arr.n_buffers} buffers where {buffers} are needed")
        # the validity bitmap is honoured wherever there is one; a null count without one is refused
        c.validity = <const uint8_t *>arr.buffers[0] if buffers else NULL
        if buffers and c.validity == NULL and arr.null_count > 0:
            _invalid(path, f"an array of {arr.null_count} nulls without a validity bitmap")
        if layout == L_NULL:
            return 0
        c.data1 = <const unsigned char *>arr.buffers[1] if buffers > 1 else NULL
        c.data2 = <const unsigned char *>arr.buffers[2] if buffers > 2 else NULL
        if arr.length > 0 and not (layout == L_FIXED_BIN and c.width == 0):
            if (buffers > 1 and c.data1 == NULL) or \
                    ((layout == L_LIST_VIEW or layout == L_LARGE_LIST_VIEW) and c.data2 == NULL):
                _invalid(path, "an array without its data buffer")
        if c.data1 == NULL:
            c.data1 = _NO_BYTES         # nothing is read from it (no value, or none of any width)
        if layout == L_BIN or layout == L_LARGE_BIN:
            _bind_binary(c, arr, path)
        elif layout == L_VIEW_BIN:
            _bind_views(c, arr, path)
        if layout == L_DICT:
            if arr.dictionary == NULL:
                _invalid(path, "a dictionary-encoded array without its dictionary")
            return self._bind(c.values, arr.dictionary, 0, path)
        if c.how != W_VALUE:
            return 0
        if layout == L_STRUCT:
            for k in range(c.n_children):
                if c.arrow_index[k] < 0:
                    continue
                if c.arrow_index[k] >= arr.n_children:
                    _invalid(path, "a struct array without its children")
                self._bind(c.children[k], arr.children[c.arrow_index[k]], arr.offset + arr.length,
                           _bound_path(c.children[k]) or _child_path(c, k, path))
            return 0
        if layout in (L_LIST, L_LARGE_LIST, L_LIST_VIEW, L_LARGE_LIST_VIEW, L_FIXED_LIST, L_MAP):
            if arr.n_children != 1:
                _invalid(path, "a list or map array without its one child")
            if layout == L_MAP:
                c.entries = arr.children[0]
                _check_array(c.entries, 0, path)
                if c.entries.n_children != 2 or c.entries.children == NULL:
                    _invalid(path, "a map array without its key and value columns")
                child_need = c.entries.offset + c.entries.length
                self._bind(c.children[0], c.entries.children[0], child_need,
                           _bound_path(c.children[0]) or path + "[<key>]")
                self._bind(c.children[1], c.entries.children[1], child_need, _bound_path(c.children[1]) or path + "[]")
            else:
                self._bind(c.children[0], arr.children[0], 0, _bound_path(c.children[0]) or path + "[]")
                size = arr.offset + arr.length
                if layout == L_FIXED_LIST and c.width and size > c.children[0].arr.length // c.width:
                    _invalid(path, f"a fixed-size list array of {size} lists of {c.width} over "
                                   f"{c.children[0].arr.length} items")
        return 0

    # -- encoding --------------------------------------------------------------------

    def bind(self, _ImportedArray batch):
        """Check the batch against its schema and what its own fields say it holds
        (``ValueError``: invalid Arrow data) before any row is written: its row count."""
        self.ctx.check.to = 0       # no row of it checked in bulk yet
        self._bind(self.root, &batch.array, batch.array.length, self.plan.name)
        self._bound = batch
        return batch.array.length

    def encode(self, _ImportedArray batch, int64_t start, int64_t row_base, Py_ssize_t chunk_bytes,
               bint want_ends=False):
        """Rows from ``start`` of the batch, until its end or until about
        ``chunk_bytes`` are written: (a read-only memoryview of the chunk, rows done,
        record ends or None). The chunk's buffer is the encoder's, written again by the
        next call once nothing else holds it (drop the view when it is written)."""
        cdef int64_t done = start, stop
        cdef ArrowArray *arr = &batch.array
        if batch is not self._bound:
            self.bind(batch)
        stop = arr.length
        self._start_chunk(start, stop, chunk_bytes)
        self.ctx.n_ends = 0
        self.ctx.want_ends = want_ends
        with nogil:
            aw_encode_rows(&self.ctx, self.root, start, stop, chunk_bytes, row_base, &done)
        data = memoryview(self._chunk)[:self.ctx.out.pos].toreadonly()
        self._warn_deprecated()
        ends = None
        if want_ends:
            ends = PyBytes_FromStringAndSize(<const char *>self.ctx.ends, self.ctx.n_ends * sizeof(int64_t))
        return data, done, ends

    cdef int _start_chunk(self, int64_t start, int64_t stop, Py_ssize_t chunk_bytes) except -1:
        """The buffer the chunk's records are written into, sized from the batch's
        bound: the root struct's fixed part a row and the bytes of its binary columns
        between the rows' offsets; at most about chunk_bytes (the chunk stops after the
        record that reaches it) and one record's bound beyond. The few writes past it
        (values nested in lists, maps, structs) grow it (aw_grow)."""
        cdef WCol *root = self.root
        cdef WCol *f
        cdef Py_ssize_t k, cap
        cdef int64_t rows = stop - start if stop > start else 0, bound, part
        cdef int64_t most = chunk_bytes + root.room + (1 << 16)
        bound = rows * root.room if rows < most // root.room + 1 else most
        for k in range(root.n_children):
            f = root.children[k]
            if bound >= most or (f.op != OP_STR and f.op != OP_BIN) or rows == 0:
                continue
            if f.layout == L_FIXED_BIN:
                part = rows * f.width if rows < most // (f.width + 1) + 1 else most
            elif f.layout == L_BIN:     # (a struct's children are indexed by its physical index)
                part = (<const int32_t *>f.data1)[stop + root.off + f.off] \
                    - (<const int32_t *>f.data1)[start + root.off + f.off]
            elif f.layout == L_LARGE_BIN:
                part = (<const int64_t *>f.data1)[stop + root.off + f.off] \
                    - (<const int64_t *>f.data1)[start + root.off + f.off]
            else:
                continue
            # (offsets are checked value by value as they are written: here only sizes)
            bound += part if 0 <= part <= f.last - f.first else f.last - f.first
        cap = <Py_ssize_t>(bound if bound < most else most)
        # the last chunk's bytearray again when nothing but the encoder holds it (no view of
        # it is left): its pages stay mapped and in cache, where a new one of a megabyte is
        # mapped anew by malloc and faults in page by page
        if self._chunk is None or aw_refcount(<PyObject *>self._chunk) != 1:
            self._chunk = PyByteArray_FromStringAndSize(NULL, cap)
        elif PyByteArray_GET_SIZE(self._chunk) < cap:
            PyByteArray_Resize(self._chunk, cap)
        self.ctx.out_bytes = <PyObject *>self._chunk
        self.ctx.out.data = <unsigned char *>PyByteArray_AS_STRING(self._chunk)
        self.ctx.out.cap = PyByteArray_GET_SIZE(self._chunk)
        self.ctx.out.pos = 0
        return 0

    cdef int _warn_deprecated(self) except -1:
        cdef WCol *c
        for sp, fp, address in self.deprecated:
            c = <WCol *><Py_ssize_t>address
            if c.deprecated_written and address not in self.warned:
                self.warned.add(address)
                warn_deprecated(<StructPlan>sp, <FieldPlan>fp)
        return 0


#: The most bytes a value of each op takes beside its key, but for a string's or binary's bytes
#: (OP_GENERAL: none counted, aw_value makes its own room).
cdef dict _VALUE_ROOM = {OP_GENERAL: 0, OP_STR: 5, OP_BIN: 5, OP_I64: 9, OP_INT: 9, OP_F64: 9, OP_FLOAT: 9,
                         OP_BOOL: 1, OP_TIME: 15}


cdef int _lane_op(WCol *c):
    """The lane of c's values (zp_lane_value), or ZP_LANE_ESCAPE."""
    if c.op == OP_STR:
        return ZP_LANE_STR
    if c.op == OP_BIN and c.kind == K_BYTES and (c.layout == L_BIN or c.layout == L_LARGE_BIN):
        return ZP_LANE_BIN
    return {OP_I64: ZP_LANE_I64, OP_F64: ZP_LANE_F64, OP_BOOL: ZP_LANE_BOOL, OP_TIME: ZP_LANE_TIME}.get(
        c.op, ZP_LANE_ESCAPE)


cdef int _op(WCol *c):
    """How a struct writes c's non-null values (aw_struct_value): an op of its own for
    each kind and layout of bounded work, OP_GENERAL (aw_value) for the others."""
    cdef int kind = c.kind, layout = c.layout
    if c.how != W_VALUE:
        return OP_GENERAL
    if kind == K_STRING and (layout == L_BIN or layout == L_LARGE_BIN):
        return OP_STR
    if (kind == K_BYTES or kind == K_BYTEARRAY) and (layout == L_BIN or layout == L_LARGE_BIN or layout == L_FIXED_BIN):
        return OP_BIN
    if K_UINT <= kind <= K_INT64 and layout == L_INT:
        return OP_I64 if c.src_signed and c.width == 8 and c.is_signed else OP_INT
    if kind == K_F64 and layout == L_FLOAT and c.width == 8:
        return OP_F64
    if (kind == K_F32 or kind == K_F64) and (layout == L_FLOAT or layout == L_INT):
        return OP_FLOAT
    if kind == K_BOOL and layout == L_BOOL:
        return OP_BOOL
    if kind == K_TIME and layout == L_TIMESTAMP:
        return OP_TIME
    return OP_GENERAL


cdef inline bint _omits(FieldPlan fp, bint msgp, bint inlined):
    """Whether a zero value of the field is left out, as write_struct decides: every zero
    in zebrapack mode; in msgp mode the omitempty fields' (none of an inlined struct)."""
    return not msgp or (fp.omitempty and not inlined)


cdef int _schema_error(str path, str message) except -1:
    raise _EncodeError(message, path, None)

