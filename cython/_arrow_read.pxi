# The columnar reader: records decoded straight into Arrow buffers.
#
# A reader compiles its Arrow field tree (zebrapack.arrow._mapping) once into a
# tree of C column builders (Col): one per Arrow field, each with growable
# buffers (validity bitmap, offsets, data) and its children. Decoding a record
# walks the wire with the builders, appending values; nothing here builds a
# Python object or needs the GIL, so a batch decodes with the GIL released, on
# any thread. Every length read from the wire is checked against the bytes
# left before use (zp_read.h, the decoder's rules); nesting is limited by the
# schema's max_depth and the thread's C stack (zp_trail.h, the decoder's guard).
# Errors leave their reason, the field path (zp_trail.h's builder, spelled as
# decode spells it) and the byte offset in the Dec state; the caller turns them
# into a DecodeError or the C stream's last error.

from libc.stdio cimport snprintf
from libc.string cimport strlen


cdef extern from "zp_columnar.h":
    ctypedef struct zp_buf:
        uint8_t *ptr
        int64_t len
        int64_t cap
    int zp_buf_grow(zp_buf *b, int64_t extra, int64_t *held) noexcept nogil
    int zp_buf_grow_to(zp_buf *b, int64_t extra, int64_t *held, int zero) noexcept nogil
    int zp_buf_reserve(zp_buf *b, int64_t extra, int64_t *held) noexcept nogil
    int zp_bits_reserve(zp_buf *b, int64_t index, int64_t *held) noexcept nogil
    void zp_bit_set(uint8_t *bits, int64_t index) noexcept nogil
    void zp_bits_truncate(zp_buf *b, int64_t start) noexcept nogil
    int64_t zp_count_set_bits(const uint8_t *bits, int64_t length) noexcept nogil
    int64_t zp_utf8_invalid_at(const uint8_t *s, int64_t n) noexcept nogil
    int zp_lowest_bit(uint64_t bits) noexcept nogil
    void zp_crc32_init() noexcept nogil
    uint32_t zp_crc32(uint32_t crc, const uint8_t *p, int64_t n) noexcept nogil
    int zp_mul_add_i64(int64_t a, int64_t b, int64_t c, int64_t *out) noexcept nogil

zp_crc32_init()

cdef extern from "zp_arrow_read.h":
    # Column builder kinds.
    enum:
        C_BOOL "ZP_COL_BOOL"
        C_INT "ZP_COL_INT"                      # signed, width 1/2/4/8
        C_UINT "ZP_COL_UINT"
        C_F32 "ZP_COL_F32"
        C_F64 "ZP_COL_F64"
        C_STRING "ZP_COL_STRING"
        C_BINARY "ZP_COL_BINARY"
        C_FIXED_BINARY "ZP_COL_FIXED_BINARY"
        C_TIME "ZP_COL_TIME"
        C_COMPLEX "ZP_COL_COMPLEX"              # struct<real, imag>
        C_EXT "ZP_COL_EXT"                      # struct<code, data>
        C_RAW "ZP_COL_RAW"                      # binary: the value's own msgpack bytes
        C_STRUCT "ZP_COL_STRUCT"
        C_LIST "ZP_COL_LIST"
        C_FIXED_LIST "ZP_COL_FIXED_LIST"
        C_MAP "ZP_COL_MAP"
        C_ENTRIES "ZP_COL_ENTRIES"              # a map's entries: struct<key, value>
        C_NUMBER "ZP_COL_NUMBER"                # msgp.Number: struct<int, uint, float32, float64>
    # The fast appender of a column's common encodings (zp_col_read_fast).
    enum:
        F_NONE "ZP_FAST_NONE"
        F_STRING "ZP_FAST_STRING"
        F_BINARY "ZP_FAST_BINARY"
        F_INT "ZP_FAST_INT"
        F_F32 "ZP_FAST_F32"
        F_F64 "ZP_FAST_F64"
        F_BOOL "ZP_FAST_BOOL"
        F_TIME "ZP_FAST_TIME"
    # A plan step's own operations (zp_struct_read_plan).
    enum:
        PLAN_NAME "ZP_PLAN_NAME"
        PLAN_SKIP "ZP_PLAN_SKIP"

    # One step of a struct's key plan (zp_arrow_read.h).
    ctypedef struct zp_plan_step:
        zp_col *col
        uint64_t bit
        uint64_t before
        int32_t child
        uint8_t key
        uint8_t op

    # A column builder (zp_arrow_read.h says what each field is).
    cdef struct zp_col:
        int kind
        int fast
        int wire_kind
        int width
        bint nullable
        bint time_field
        bint time_us
        bint is_signed
        int64_t imin
        int64_t imax
        uint64_t umax
        int64_t fixed
        int raw_kind
        int64_t raw_struct
        char *go
        char *name
        int64_t length
        int64_t room
        int64_t kids_room
        zp_buf validity
        zp_buf offsets
        zp_buf data
        int64_t hint_validity
        int64_t hint_offsets
        int64_t hint_data
        zp_col **children
        int64_t n_children
        int32_t *by_zid
        int64_t zid_limit
        zp_name *tags
        char *struct_name
        int64_t struct_name_len
        uint64_t name_word
        uint64_t name_mask
        int64_t name_size
        uint64_t visit
        uint64_t *seen
        int64_t n_unusable
        int64_t *unusable_zids
        char **unusable_tags
        int64_t *unusable_tag_lens
        char **unusable_names
        char **unusable_messages
        zp_plan_step *plan
        int64_t plan_len
        bint plan_full
        bint plan_flat
        int64_t run_skip
        int64_t run_misses
        int64_t plan_misses
        zp_plan_step *learn
        int64_t plan_cap

    int zp_col_make_room(zp_col *c, int64_t *held) noexcept nogil
    int zp_struct_make_room(zp_col *c, int64_t *held) noexcept nogil
    void zp_col_row_done(zp_col *c) noexcept nogil
    int64_t zp_struct_name_entry(const zp_col *c, const unsigned char *p, int64_t left) noexcept nogil
    void zp_struct_name_setup(zp_col *c) noexcept nogil
    int64_t zp_struct_read_fast(zp_col *c, const unsigned char *buf, int64_t *pos, int64_t end, int64_t count,
                                uint64_t *seen, int64_t *last, int64_t *used, int64_t *held) noexcept nogil
    int64_t zp_col_read_fast(zp_col *c, const unsigned char *p, int64_t left, int64_t *used, int64_t *held,
                             int has_room) noexcept nogil
    int64_t zp_struct_read_plan(zp_col *c, const unsigned char *buf, int64_t *pos, int64_t end, int64_t count,
                                int64_t *step, uint64_t *seen, const zp_plan_step **last, int64_t *used,
                                int64_t *held) noexcept nogil
    int64_t zp_struct_read_rows(zp_col *c, const unsigned char *buf, int64_t *pos, int64_t end, int64_t most,
                                int64_t *used, int64_t used_limit, int64_t *held, int *partial) noexcept nogil

ctypedef zp_col Col


cdef enum:
    RAW_ANY = 0         # interface{}
    RAW_IFACE = 1       # a named interface: a map naming a struct of the schema
    RAW_STRUCT = 2      # a struct met again inside itself
    RAW_VERBATIM = 3    # msgp.Raw: any one msgpack value

cdef enum:
    MESSAGE_SIZE = 512
    PATH_SIZE = 1024
    DEC_SHALLOW = 32        # levels a record nests before the reader asks the thread's stack (zp_depth)


cdef struct Dec:
    const unsigned char *buf
    int64_t pos
    int64_t end
    int64_t base            # offset of buf[0] in its source
    bint strict
    bint time_us
    bint truncated          # the input ended inside a value
    bint failed
    int64_t held            # bytes allocated by the column buffers in this batch
    int64_t used            # bytes of values appended in this batch (batch_bytes)
    zp_depth guard          # nesting (zp_trail.h): max_depth, the thread's C stack
    zp_step *steps          # max_depth + 2 entries (zp_trail.h): FIELD's ref the field's name (char *),
                            # KEY's index the key's offset in buf (-1 while it is read)
    zp_skip_level *skip_levels  # dec_skip's stack, by depth (max_depth + 2)
    const char *root
    char **struct_names     # the schema's structs (named interfaces)
    Col **scratch           # a column tree per struct, to check values kept as bytes
    int64_t validating      # inside such a check: times need no Arrow range
    int64_t *struct_name_lens
    int64_t n_struct_names
    int64_t fail_at         # offset in the source
    char message[MESSAGE_SIZE]
    char path[PATH_SIZE]


# -- errors -------------------------------------------------------------------------

cdef inline const char *or_text(const char *text, const char *otherwise) noexcept nogil:
    return text if text != NULL else otherwise


cdef int64_t dec_spell(void *owner, const zp_step *step, char *out, int64_t room) noexcept nogil:
    """A step's field name (its ref) or map key (dec_key_text), for zp_path_write."""
    cdef char tmp[96]
    cdef const char *text = <const char *>step.ref
    cdef int64_t n
    if step.kind == ZP_STEP_KEY:
        n = dec_key_text(<Dec *>owner, step.index, tmp)
        text = tmp
    else:
        n = <int64_t>strlen(text)
    if room > 0:
        memcpy(out, text, n if n < room else room)
    return n


cdef int64_t dec_key_text(Dec *d, int64_t key_at, char *tmp) noexcept nogil:
    """The map key at key_at as decode's path shows it (Python's repr, shortened) into
    tmp (96 bytes); returns its length."""
    cdef unsigned char b, c
    cdef int64_t n = 0, i, header = 0, length = 0, left
    cdef int64_t sv = 0
    cdef uint64_t uv = 0
    if key_at < 0 or key_at >= d.end:
        return key_text(tmp, "<key>")
    b = d.buf[key_at]
    if (b & 0xe0) == 0xa0 or 0xd9 <= b <= 0xdb:
        if (b & 0xe0) == 0xa0:
            length, header = b & 0x1f, 1
        elif b == 0xd9 and key_at + 2 <= d.end:
            length, header = d.buf[key_at + 1], 2
        elif b == 0xda and key_at + 3 <= d.end:
            length, header = zp_load_u16(d.buf + key_at + 1), 3
        elif b == 0xdb and key_at + 5 <= d.end:
            length, header = zp_load_u32(d.buf + key_at + 1), 5
        else:
            return key_text(tmp, "<key>")
        if key_at + header + length > d.end:
            length = d.end - key_at - header
        tmp[0] = b"'"
        n = 1
        for i in range(length):
            if n > 56:
                memcpy(tmp + n, b"...", 3)
                n += 3
                break
            c = d.buf[key_at + header + i]
            if c == b"'" or c == b"\\":
                tmp[n] = b"\\"
                tmp[n + 1] = c
                n += 2
            elif c < 0x20 or c == 0x7f:
                n += snprintf(tmp + n, 8, "\\x%02x", c)
            else:
                tmp[n] = c
                n += 1
        if n <= 59:
            tmp[n] = b"'"
            n += 1
        return n
    if b <= 0x7f or b >= 0xe0:
        sv = b if b <= 0x7f else <int8_t>b
        return snprintf(tmp, 96, "%lld", <long long>sv)
    if 0xcc <= b <= 0xd3 and key_at + 1 + (1 << ((b - 0xcc) & 3)) <= d.end:
        left = d.end - key_at - 1
        if b >= 0xd0:
            return snprintf(tmp, 96, "%lld", <long long>zp_load_int_family(b, d.buf + key_at + 1, left))
        return snprintf(tmp, 96, "%llu", <unsigned long long>zp_load_uint_family(b, d.buf + key_at + 1, left))
    if b == 0xc2 or b == 0xc3:
        return key_text(tmp, "True" if b == 0xc3 else "False")
    return key_text(tmp, "<key>")


cdef inline int64_t key_text(char *tmp, const char *text) noexcept nogil:
    cdef int64_t n = <int64_t>strlen(text)
    memcpy(tmp, text, n)
    return n


cdef void dec_build_path(Dec *d) noexcept nogil:
    """d.path: the field path of the steps (zp_path_write), cut to PATH_SIZE - 4 bytes."""
    zp_path_write(d.path, PATH_SIZE - 3, d.root, d.steps, d.guard.depth, dec_spell, d)


cdef int dec_fail(Dec *d, int64_t at) noexcept nogil:
    """d.message holds the reason: record where, and the path."""
    d.failed = True
    d.fail_at = d.base + at
    dec_build_path(d)
    return -1


cdef int dec_truncated(Dec *d, int64_t at, int64_t needed) noexcept nogil:
    d.truncated = True
    zp_short_message(d.message, MESSAGE_SIZE, needed, d.end - at)
    return dec_fail(d, at)


cdef int dec_refused(Dec *d, int status, const zp_head *h, const char *go, const char *name) noexcept nogil:
    """A zp_read.h refusal of the value at d.pos, in its words (go, name: see zp_read_message)."""
    if status == ZP_READ_SHORT:
        return dec_truncated(d, d.pos + h.at, h.needed)
    zp_read_message(d.message, MESSAGE_SIZE, status, d.buf + d.pos, d.end - d.pos, h, go, name)
    return dec_fail(d, d.pos)


cdef inline int dec_need(Dec *d, int64_t n) noexcept nogil:
    if n > d.end - d.pos:
        return dec_truncated(d, d.pos, n)
    return 0


cdef int dec_type_error(Dec *d, const char *expected, unsigned char b) noexcept nogil:
    snprintf(d.message, MESSAGE_SIZE, "expected %s, found %s", expected, zp_lead_name(b))
    return dec_fail(d, d.pos)


cdef int dec_no_memory(Dec *d) noexcept nogil:
    snprintf(d.message, MESSAGE_SIZE, "out of memory for the batch's columns")
    return dec_fail(d, d.pos)


cdef inline int dec_enter(Dec *d) noexcept nogil:
    """One level deeper (zp_depth_enter: max_depth, the thread's C stack); -1 failed."""
    if not zp_depth_enter(&d.guard) and not (zp_depth_wants_room(&d.guard)
                                             and zp_depth_grown(&d.guard, d.guard.max_depth + 1)):
        return dec_too_deep(d)
    d.steps[d.guard.depth].kind = ZP_STEP_NONE
    return 0


cdef int dec_too_deep(Dec *d) noexcept nogil:
    # out of line: dec_enter, called for every container, stays small enough to inline
    zp_depth_message(d.message, MESSAGE_SIZE, &d.guard)
    return dec_fail(d, d.pos)


# -- skipping -----------------------------------------------------------------------

cdef int dec_skip(Dec *d, bint validate) noexcept nogil:
    """Step over one value (zp_skip.h), nested at most max_depth deep (as skip_value).
    ``validate``: check it as decode reads an interface{} value (UTF-8 in strs;
    strict: map keys str/bin/nil and Go's ext shapes; keys Python can hash; a map
    naming a struct of the schema is read as that struct)."""
    cdef zp_skipper s
    cdef int64_t start_depth = d.guard.depth, level, index, key_at = -1
    cdef int rc
    # Each level lives at its depth: a struct validated inside (which may skip
    # values in turn) only uses deeper entries.
    zp_skip_init(&s, d.buf, d.pos, d.end, d.skip_levels + start_depth, d.guard.max_depth + 2 - start_depth,
                 d.guard.max_depth - start_depth, INT64_MAX)
    if not validate:
        rc = zp_skip(&s)
        d.pos = s.pos
        if rc == ZP_SKIP_DONE:
            return 0
        zp_steps_skipped(d.steps + start_depth, &s)
        d.guard.depth = start_depth + s.level
        return dec_skip_failed(d, &s, rc)
    while zp_skip_next(&s):
        d.guard.depth = start_depth + s.level
        d.pos = s.pos
        index = -1
        if s.level > 0:
            index = zp_skip_index(&s, s.level)
            if zp_skip_is_map(&s, s.level):     # decode's path: [<key>] while a key is read, then [repr(key)]
                d.steps[d.guard.depth].kind = ZP_STEP_KEY
                if index & 1:
                    d.steps[d.guard.depth].index = key_at
                else:
                    d.steps[d.guard.depth].index = -1
                    key_at = d.pos      # keys are scalars: the next value at this level is its value
            else:
                d.steps[d.guard.depth].kind = ZP_STEP_INDEX
                d.steps[d.guard.depth].index = index
                index = -1
        if d.pos < d.end:
            rc = dec_check_any(d, d.buf[d.pos], index)
            if rc < 0:
                return -1
            if rc > 0:                  # stepped over by the check
                s.pos = d.pos
                continue
        rc = zp_skip_one(&s)
        if rc != ZP_SKIP_DONE:
            d.pos = s.pos
            return dec_skip_failed(d, &s, rc)
    d.guard.depth = start_depth
    d.pos = s.pos
    return 0


cdef int dec_check_any(Dec *d, unsigned char b, int64_t index) noexcept nogil:
    """The checks of dec_skip(d, True) on the value at d.pos (``index``: its position
    in a map, keys even, else -1): -1 failed, 1 read whole (d.pos after it), 0 left
    to the skipper."""
    cdef int64_t bad, named
    cdef zp_head h
    cdef int rc
    if index >= 0 and (index & 1) == 0:
        # a map key inside interface{}
        if d.strict and not zp_any_key_ok(b):
            memset(&h, 0, sizeof(h))
            return dec_refused(d, ZP_ANY_KEY, &h, NULL, NULL)
        if zp_is_array(b) or zp_is_map(b):
            snprintf(d.message, MESSAGE_SIZE, "map key cannot be a Python dict key: unhashable type: '%s'",
                     "dict" if zp_is_map(b) else "list")
            return dec_fail(d, d.pos)
    rc = zp_read_str(d.buf + d.pos, d.end - d.pos, &h)
    if rc == ZP_READ_OK:
        bad = zp_utf8_invalid_at(d.buf + d.pos + h.header, h.n)
        if bad >= 0:
            snprintf(d.message, MESSAGE_SIZE, "invalid UTF-8 in a str: byte 0x%02x at position %lld",
                     d.buf[d.pos + h.header + bad], <long long>bad)
            return dec_fail(d, d.pos)
        d.pos += h.header + h.n
        return 1
    if rc != ZP_READ_OTHER:
        return dec_refused(d, rc, &h, NULL, NULL)
    if d.strict:
        rc = zp_read_ext(d.buf + d.pos, d.end - d.pos, &h)
        if rc == ZP_READ_OK and not zp_any_ext_ok(b, h.code, h.n):
            rc = ZP_ANY_EXT
        if rc == ZP_READ_OK:
            d.pos += h.header + h.n
            return 1
        if rc != ZP_READ_OTHER:
            return dec_refused(d, rc, &h, NULL, NULL)
    if zp_is_map(b):
        named = schema_struct_at(d)
        if named >= 0:
            return -1 if validate_struct(d, named, b) < 0 else 1
    return 0


cdef int dec_skip_failed(Dec *d, zp_skipper *s, int rc) noexcept nogil:
    """A failed skip's error (zp_skip_message; d.guard.depth and the steps name where)."""
    zp_skip_message(d.message, MESSAGE_SIZE, rc, s, d.end, d.guard.max_depth, d.guard.depth)
    if rc == ZP_SKIP_TRUNCATED:
        d.truncated = True
    return dec_fail(d, s.at)


# -- appending ----------------------------------------------------------------------

cdef inline int col_valid(Dec *d, Col *c) noexcept nogil:
    """Mark row c.length valid (nullable columns only)."""
    if zp_bits_reserve(&c.validity, c.length, &d.held) < 0:
        return dec_no_memory(d)
    zp_bit_set(c.validity.ptr, c.length)
    return 0


cdef inline int col_row_done(Dec *d, Col *c) noexcept nogil:
    """Close row c.length: valid (nullable columns only), counted; -1 out of memory."""
    if c.nullable and col_valid(d, c) < 0:
        return -1
    c.length += 1
    return 0


cdef inline int col_fixed(Dec *d, Col *c, const void *value) noexcept nogil:
    """Append one fixed-width value (c.width bytes) and close the row."""
    if c.width:                         # ([0]byte has nothing to store)
        if c.data.cap - c.data.len < c.width and zp_buf_grow(&c.data, c.width, &d.held) < 0:
            return dec_no_memory(d)
        memcpy(c.data.ptr + c.data.len, value, c.width)
        c.data.len += c.width
        d.used += c.width
    return col_row_done(d, c)


cdef inline int col_offset(Dec *d, Col *c, int64_t value) noexcept nogil:
    """Append the end offset of the row being closed (utf8, binary, list, map)."""
    cdef int32_t v
    if value > 0x7fffffff:
        snprintf(d.message, MESSAGE_SIZE, "more than 2 GiB of values or 2**31 elements in one column of a batch")
        return dec_fail(d, d.pos)
    v = <int32_t>value
    if c.offsets.cap - c.offsets.len < 4 and zp_buf_grow(&c.offsets, 4, &d.held) < 0:
        return dec_no_memory(d)
    memcpy(c.offsets.ptr + c.offsets.len, &v, 4)
    c.offsets.len += 4
    d.used += 4
    return 0


cdef inline int col_bytes(Dec *d, Col *c, const unsigned char *p, int64_t n) noexcept nogil:
    """Append one variable-length value and close the row."""
    if n:                               # (an empty buffer has no pointer to copy to)
        if c.data.cap - c.data.len < n and zp_buf_grow(&c.data, n, &d.held) < 0:
            return dec_no_memory(d)
        memcpy(c.data.ptr + c.data.len, p, n)
        c.data.len += n
        d.used += n
    if col_offset(d, c, c.data.len) < 0:
        return -1
    return col_row_done(d, c)


cdef int col_fill(Dec *d, Col *c, bint null, bint filler) noexcept nogil:
    """Append a row that is null (null=True), or the zero value of c. ``filler``:
    under a null parent, where any value does (a zero time needs no range)."""
    cdef int64_t i, j, zero_time = 0
    if c.kind == C_BOOL:
        if zp_bits_reserve(&c.data, c.length, &d.held) < 0:
            return dec_no_memory(d)
    elif c.kind == C_INT or c.kind == C_UINT or c.kind == C_F32 or c.kind == C_F64 or c.kind == C_TIME:
        if c.kind == C_TIME and not null and not filler and not d.validating:
            if not d.time_us:
                snprintf(d.message, MESSAGE_SIZE, "Go's zero time 0001-01-01T00:00:00Z is outside "
                         "timestamp[ns] (1677-09-21..2262-04-11); a microsecond time unit holds it")
                return dec_fail(d, d.pos)
            zero_time = ZP_GO_ZERO_SECONDS * 1000000
        if zp_buf_reserve(&c.data, c.width, &d.held) < 0:
            return dec_no_memory(d)
        memcpy(c.data.ptr + c.data.len, &zero_time, c.width)     # zero, or Go's zero time in us
        c.data.len += c.width
        d.used += c.width
    elif c.kind == C_FIXED_BINARY and c.fixed:
        if zp_buf_reserve(&c.data, c.fixed, &d.held) < 0:
            return dec_no_memory(d)
        memset(c.data.ptr + c.data.len, 0, c.fixed)
        c.data.len += c.fixed
        d.used += c.fixed
    elif c.kind == C_STRING or c.kind == C_BINARY:
        if col_offset(d, c, c.data.len) < 0:
            return -1
    elif c.kind == C_RAW:
        if not null and not filler and c.raw_kind == RAW_STRUCT:
            # a struct value's zero: an empty struct map
            if zp_buf_reserve(&c.data, 1, &d.held) < 0:
                return dec_no_memory(d)
            c.data.ptr[c.data.len] = 0x80
            c.data.len += 1
        if col_offset(d, c, c.data.len) < 0:
            return -1
    elif c.kind == C_LIST or c.kind == C_MAP:
        if col_offset(d, c, c.children[0].length) < 0:
            return -1
    elif c.kind == C_FIXED_LIST:
        for j in range(c.fixed):
            if col_fill(d, c.children[0], c.children[0].nullable, filler or null) < 0:
                return -1
    elif c.kind == C_NUMBER:    # the zero: int 0 (its other parts null)
        for i in range(c.n_children):
            if col_fill(d, c.children[i], i > 0 or null, filler or null) < 0:
                return -1
    else:       # struct, complex, ext, entries
        for i in range(c.n_children):
            if col_fill(d, c.children[i], c.children[i].nullable, filler or null) < 0:
                return -1
    if c.nullable:
        if null:
            if zp_bits_reserve(&c.validity, c.length, &d.held) < 0:
                return dec_no_memory(d)
        elif col_valid(d, c) < 0:
            return -1
    c.length += 1
    return 0


cdef void col_truncate(Col *c, int64_t rows) noexcept nogil:
    """Back to ``rows`` rows: undo a record's partial appends (a record read again
    with more input, a duplicated field, a value only checked). Every buffer and
    child is cut back, not only those of closed rows: a row being read has appended
    to its children (and a string its data) before its own length counts it."""
    cdef int64_t i
    cdef int32_t end
    if rows > c.length:
        return
    if c.nullable:
        zp_bits_truncate(&c.validity, rows)
    if c.kind == C_BOOL:
        zp_bits_truncate(&c.data, rows)
    elif c.kind == C_FIXED_BINARY:
        c.data.len = rows * c.fixed
    elif c.width:
        c.data.len = rows * c.width
    elif c.kind == C_STRING or c.kind == C_BINARY or c.kind == C_RAW:
        memcpy(&end, c.offsets.ptr + 4 * rows, 4)
        c.data.len = end
        c.offsets.len = 4 * (rows + 1)
    elif c.kind == C_LIST or c.kind == C_MAP:
        memcpy(&end, c.offsets.ptr + 4 * rows, 4)
        c.offsets.len = 4 * (rows + 1)
        col_truncate(c.children[0], end)
    elif c.kind == C_FIXED_LIST:
        col_truncate(c.children[0], rows * c.fixed)
    else:
        for i in range(c.n_children):
            col_truncate(c.children[i], rows)
    c.length = rows


# -- values ---------------------------------------------------------------------------

cdef int read_int_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    cdef zp_number number
    cdef zp_head h
    cdef int64_t sv
    cdef int8_t v8
    cdef int16_t v16
    cdef int32_t v32
    cdef int64_t size = zp_load_integer(d.buf + d.pos, d.end - d.pos, &number)
    cdef int rc
    if size < 0:
        return dec_truncated(d, d.pos, -size)
    if size == 0:
        return dec_type_error(d, c.go, b)
    rc = zp_check_integer(d.buf + d.pos, &number, c.is_signed, c.imin, c.imax, c.umax, d.strict, &h)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, c.go, NULL)
    d.pos += size
    sv = <int64_t>number.bits
    if c.width == 8:
        return col_fixed(d, c, &sv)
    if c.width == 4:
        v32 = <int32_t>sv
        return col_fixed(d, c, &v32)
    if c.width == 2:
        v16 = <int16_t>sv
        return col_fixed(d, c, &v16)
    v8 = <int8_t>sv
    return col_fixed(d, c, &v8)


cdef int read_float_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """zp_read_float; float32 columns keep a float32's bits (NaN payloads too)."""
    cdef double v = 0.0
    cdef uint32_t bits32 = 0
    cdef zp_head h
    cdef int rc = zp_read_float(d.buf + d.pos, d.end - d.pos, c.kind == C_F32, d.strict, &h, &v)
    if rc == ZP_READ_OTHER:
        return dec_type_error(d, c.go, b)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, c.go, NULL)
    if c.kind == C_F32:
        if h.code:
            bits32 = zp_load_u32(d.buf + d.pos + 1)
        else:
            zp_f32_bits_from_double(v, &bits32)
        d.pos += h.header
        return col_fixed(d, c, &bits32)
    d.pos += h.header
    return col_fixed(d, c, &v)


cdef int read_bytes_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """string, []byte, [N]byte (read_str / read_bin's rules: lenient takes the other family)."""
    cdef zp_head h
    cdef int64_t n, bad
    cdef int rc
    if c.kind == C_STRING:
        rc = zp_read_str(d.buf + d.pos, d.end - d.pos, &h)
        if rc == ZP_READ_OTHER and not d.strict:
            rc = zp_read_bin(d.buf + d.pos, d.end - d.pos, &h)
    else:
        rc = zp_read_bin(d.buf + d.pos, d.end - d.pos, &h)
        if rc == ZP_READ_OTHER and not d.strict:
            rc = zp_read_str(d.buf + d.pos, d.end - d.pos, &h)
    if rc == ZP_READ_OTHER:
        return dec_type_error(d, c.go, b)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, c.go, NULL)
    n = h.n
    if c.kind == C_STRING:
        bad = zp_utf8_invalid_at(d.buf + d.pos + h.header, n)
        if bad >= 0:
            snprintf(d.message, MESSAGE_SIZE, "invalid UTF-8 in a str: byte 0x%02x at position %lld",
                     d.buf[d.pos + h.header + bad], <long long>bad)
            return dec_fail(d, d.pos)
    elif c.kind == C_FIXED_BINARY:
        if n != c.fixed:
            snprintf(d.message, MESSAGE_SIZE, "expected %s (%lld bytes), found %lld bytes", c.go,
                     <long long>c.fixed, <long long>n)
            return dec_fail(d, d.pos)
        d.pos += h.header + n
        return col_fixed(d, c, d.buf + d.pos - n)
    d.pos += h.header + n
    return col_bytes(d, c, d.buf + d.pos - n, n)


cdef int read_time_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """zp_read_time, then the instant as a timestamp of the column's unit."""
    cdef int64_t start = d.pos, seconds = 0, nanos = 0, value
    cdef zp_head h
    cdef int rc = zp_read_time(d.buf + d.pos, d.end - d.pos, d.strict, &h, &seconds, &nanos)
    if rc == ZP_READ_OTHER:
        return dec_type_error(d, "time.Time (ext 5)", b)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, NULL, NULL)
    if c.time_field and seconds == ZP_GO_ZERO_SECONDS and nanos == 0:
        d.pos += h.header + h.n
        return col_fill(d, c, True, False)
    if d.validating:                    # only checked, never stored
        value = 0
    elif d.time_us:
        if nanos % 1000 != 0:
            snprintf(d.message, MESSAGE_SIZE, "time %llds + %lldns has nanoseconds that timestamp[us] cannot hold "
                     "(a nanosecond time unit keeps them)", <long long>seconds, <long long>nanos)
            return dec_fail(d, start)
        if zp_mul_add_i64(seconds, 1000000, nanos // 1000, &value) < 0:
            snprintf(d.message, MESSAGE_SIZE, "time %llds is outside timestamp[us]", <long long>seconds)
            return dec_fail(d, start)
    elif zp_mul_add_i64(seconds, 1000000000, nanos, &value) < 0:
        snprintf(d.message, MESSAGE_SIZE, "time %llds + %lldns is outside timestamp[ns] (1677-09-21..2262-04-11); "
                 "a microsecond time unit holds it", <long long>seconds, <long long>nanos)
        return dec_fail(d, start)
    d.pos += h.header + h.n
    return col_fixed(d, c, &value)


cdef int read_complex_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """zp_read_complex: complex64 columns take float32 parts, complex128 float64 parts."""
    cdef zp_head h
    cdef int is64 = 0
    cdef uint64_t re = 0, im = 0
    cdef double re64, im64
    cdef uint32_t re32, im32
    cdef bint c64 = c.wire_kind == K_C64
    cdef int rc = zp_read_complex(d.buf + d.pos, d.end - d.pos, c64, d.strict, &h, &is64, &re, &im)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, c.go, NULL)
    d.pos += h.header
    if c64:
        re32 = <uint32_t>re
        im32 = <uint32_t>im
        if not is64:
            zp_f32_bits_from_double(zp_double_from_bits(re), &re32)
            zp_f32_bits_from_double(zp_double_from_bits(im), &im32)
        if col_fixed(d, c.children[0], &re32) < 0 or col_fixed(d, c.children[1], &im32) < 0:
            return -1
    else:
        re64 = zp_double_from_f32_bits(<uint32_t>re) if is64 else zp_double_from_bits(re)
        im64 = zp_double_from_f32_bits(<uint32_t>im) if is64 else zp_double_from_bits(im)
        if col_fixed(d, c.children[0], &re64) < 0 or col_fixed(d, c.children[1], &im64) < 0:
            return -1
    c.length += 1
    return 0


cdef int read_ext_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    cdef zp_head h
    cdef int rc = zp_read_ext(d.buf + d.pos, d.end - d.pos, &h)
    if rc == ZP_READ_OTHER:
        return dec_type_error(d, c.go, b)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, c.go, NULL)
    d.pos += h.header + h.n
    if col_fixed(d, c.children[0], &h.code) < 0 or col_bytes(d, c.children[1], d.buf + d.pos - h.n, h.n) < 0:
        return -1
    return col_row_done(d, c)


cdef int read_number_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """msgp.Number (zp_load_number): its value in the part of its family, the others null."""
    cdef zp_number number
    cdef int64_t size = zp_load_number(d.buf + d.pos, d.end - d.pos, &number), k
    cdef uint32_t bits32
    if size < 0:
        return dec_truncated(d, d.pos, -size)
    if size == 0:
        return dec_type_error(d, c.go, b)
    d.pos += size
    for k in range(4):
        if k != number.family - ZP_NUMBER_INT:
            if col_fill(d, c.children[k], True, False) < 0:
                return -1
        elif k == 2:
            bits32 = <uint32_t>number.bits
            if col_fixed(d, c.children[k], &bits32) < 0:
                return -1
        elif col_fixed(d, c.children[k], &number.bits) < 0:
            return -1
    return col_row_done(d, c)


cdef int64_t schema_struct_at(Dec *d) noexcept nogil:
    """The struct of the schema named by the -1 entry of the map at d.pos, as an index
    of d.struct_names, or -1 (peek_struct_plan's test, zp_peek_struct_name; nothing
    consumed, no error: a map whose entries cannot all be there names none)."""
    cdef zp_head h
    cdef int64_t i
    if zp_read_map(d.buf + d.pos, d.end - d.pos, &h) != ZP_READ_OK \
            or zp_peek_struct_name(d.buf + d.pos, d.end - d.pos, &h) != ZP_READ_OK:
        return -1
    for i in range(d.n_struct_names):
        if d.struct_name_lens[i] == h.n and memcmp(d.struct_names[i], d.buf + d.pos + h.header, h.n) == 0:
            return i
    return -1


cdef int validate_struct(Dec *d, int64_t index, unsigned char b) noexcept nogil:
    """Read the struct map at d.pos into the scratch columns of schema struct
    ``index`` and drop it again: the checks decode applies to it, nothing kept."""
    cdef Col *scratch = d.scratch[index]
    cdef int64_t rows, used = d.used
    cdef int rc
    if scratch == NULL:     # (ArrowRecordReader builds those of every struct a value can hold)
        snprintf(d.message, MESSAGE_SIZE, "internal: no scratch columns for struct %s", d.struct_names[index])
        return dec_fail(d, d.pos)
    rows = scratch.length
    d.validating += 1
    rc = read_struct_into(d, scratch, b)
    d.validating -= 1
    col_truncate(scratch, rows)
    d.used = used
    return rc


cdef int read_raw_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """The value's own msgpack bytes, checked as decode reads it."""
    cdef int64_t start = d.pos, named
    if c.raw_kind == RAW_IFACE or c.raw_kind == RAW_STRUCT:
        if not zp_is_map(b):
            if c.raw_kind == RAW_IFACE:
                return dec_type_error(d, c.go, b)
            snprintf(d.message, MESSAGE_SIZE, "expected struct %s (a map), found %s", c.go, zp_lead_name(b))
            return dec_fail(d, start)
    if c.raw_kind == RAW_STRUCT:        # read as the struct it is
        if validate_struct(d, c.raw_struct, b) < 0:
            return -1
    elif c.raw_kind == RAW_IFACE:       # as the struct named on the wire
        named = schema_struct_at(d)
        if named < 0:
            if dec_skip(d, False) < 0:  # an input that ends inside says so first
                return -1
            snprintf(d.message, MESSAGE_SIZE, "a %s value must name a struct of the schema (key -1)", c.go)
            return dec_fail(d, start)
        if validate_struct(d, named, b) < 0:
            return -1
    elif dec_skip(d, c.raw_kind == RAW_ANY) < 0:     # interface{}: as Go reads it; msgp.Raw: any value
        return -1
    return col_bytes(d, c, d.buf + start, d.pos - start)


cdef int64_t dec_count(Dec *d, Col *c, unsigned char b, int rc, const zp_head *h) noexcept nogil:
    """The count a zp_read.h container reader found at d.pos (status rc, h), the header
    consumed; -1 failed."""
    if rc == ZP_READ_OTHER:
        return dec_type_error(d, c.go, b)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, h, NULL, NULL)
    d.pos += h.header
    return h.n


cdef int read_list_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    cdef zp_head h
    cdef int64_t i, n = dec_count(d, c, b, zp_read_array(d.buf + d.pos, d.end - d.pos, &h), &h)
    cdef Col *item = c.children[0]
    if n < 0:
        return -1
    if c.kind == C_FIXED_LIST and n != c.fixed:
        snprintf(d.message, MESSAGE_SIZE, "expected %s (%lld elements), found an array of %lld", c.go,
                 <long long>c.fixed, <long long>n)
        return dec_fail(d, d.pos)
    if dec_enter(d) < 0:
        return -1
    d.steps[d.guard.depth].kind = ZP_STEP_INDEX
    for i in range(n):
        d.steps[d.guard.depth].index = i
        if read_into(d, item) < 0:
            return -1
    d.guard.depth -= 1
    if c.kind == C_LIST and col_offset(d, c, item.length) < 0:
        return -1
    return col_row_done(d, c)


cdef int read_map_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    cdef zp_head h
    cdef int64_t i, n = dec_count(d, c, b, zp_read_map(d.buf + d.pos, d.end - d.pos, &h), &h)
    cdef Col *entries = c.children[0]
    if n < 0:
        return -1
    if dec_enter(d) < 0:
        return -1
    d.steps[d.guard.depth].kind = ZP_STEP_KEY
    for i in range(n):
        d.steps[d.guard.depth].index = -1
        if d.pos < d.end:
            d.steps[d.guard.depth].index = d.pos
        if read_into(d, entries.children[0]) < 0 or read_into(d, entries.children[1]) < 0:
            return -1
    d.guard.depth -= 1
    entries.length += n
    if col_offset(d, c, entries.length) < 0:
        return -1
    return col_row_done(d, c)


cdef int check_name_entry(Dec *d, Col *c) noexcept nogil:
    """At the value of a -1 key: it must name the struct being read (zp_read_struct_name)."""
    cdef zp_head h
    cdef int rc = zp_read_struct_name(d.buf + d.pos, d.end - d.pos, c.struct_name, c.struct_name_len, &h)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, NULL, c.struct_name)
    d.pos += h.header + h.n
    return 0


cdef int check_usable(Dec *d, Col *c, int64_t zid, const unsigned char *tag, int64_t tag_len) noexcept nogil:
    """At the value of a key no column takes: an error if the key is a field whose type
    zebrapack cannot represent (a nil there holds nothing); 0 otherwise."""
    cdef int64_t i
    for i in range(c.n_unusable):
        if (c.unusable_zids[i] == zid and zid >= 0 and tag == NULL) or (tag != NULL and c.unusable_tag_lens[i]
                == tag_len and memcmp(c.unusable_tags[i], tag, tag_len) == 0):
            d.steps[d.guard.depth].kind = ZP_STEP_FIELD
            d.steps[d.guard.depth].ref = c.unusable_names[i]
            snprintf(d.message, MESSAGE_SIZE, "%s", c.unusable_messages[i])
            return dec_fail(d, d.pos)
    return 0


cdef enum:
    PLAN_LEARNING = -1      # read_struct_into's row has left its plan: its entries are learned
    PLAN_OFF = -2           # no plan in this row (no room made: a check's scratch columns; no plan holds it)
    PLAN_MISSES = 8         # rows in a row that left the plan before a struct reads without one,
    PLAN_RETRY = 256        # trying it again every so many rows
    RUN_RETRY = 16          # records read one by one after one that stopped a run of records (read_rows),
    RUN_BACKOFF = 6         # up to 2**RUN_BACKOFF times as many after runs stopping again and again


cdef inline int64_t plan_find(Col *c, int64_t at, unsigned char k) noexcept nogil:
    """The step of c's plan from ``at`` on whose key is k (the next one first), or -1."""
    cdef int64_t j
    for j in range(at, c.plan_len):
        if c.plan[j].key == k:
            return j
    return -1


cdef int64_t plan_learn(Col *c, unsigned char k, int64_t learned) noexcept nogil:
    """The entry of key k appended to c.learn's ``learned`` steps: their count, or -1
    when the row cannot be a plan (a key not a fixint zid or the name, a field past
    the first 64 or given twice, a field no column takes where some fields are
    refused, no room)."""
    cdef zp_plan_step *st
    cdef int32_t child
    cdef int64_t j
    if learned >= c.plan_cap:
        return -1
    st = &c.learn[learned]
    st.key = k
    st.col = NULL
    st.child = -1
    st.bit = 0
    if k == 0xff:
        st.op = PLAN_NAME
        st.col = c
    elif k <= 0x7f:
        child = c.by_zid[k]
        if child < 0:
            if c.n_unusable:
                return -1
            st.op = PLAN_SKIP
        elif child >= 64:
            return -1
        else:
            for j in range(learned):
                if c.learn[j].child == child:
                    return -1
            st.child = child
            st.col = c.children[child]
            st.bit = (<uint64_t>1) << child
            st.op = st.col.fast
    else:
        return -1
    return learned + 1


cdef inline void plan_path_step(Col *c, zp_step *step, const zp_plan_step *last_step) noexcept nogil:
    """The path's step after the plan read up to last_step (NULL: nothing), as the general path leaves it."""
    if last_step == NULL:
        return
    if last_step.child >= 0:
        step.kind = ZP_STEP_FIELD
        step.ref = c.children[last_step.child].name
    else:
        step.kind = ZP_STEP_ZID
        step.index = last_step.key


cdef void plan_adopt(Col *c, int64_t learned) noexcept nogil:
    """The ``learned`` steps of c.learn as c's plan, each with the bits of the steps before it."""
    cdef int64_t j
    cdef uint64_t bits = 0
    memcpy(c.plan, c.learn, learned * sizeof(zp_plan_step))
    c.plan_flat = True
    for j in range(learned):
        c.plan[j].before = bits
        bits |= c.plan[j].bit
        if c.plan[j].op == F_NONE:
            c.plan_flat = False
    c.plan[learned].before = bits
    c.plan_len = learned
    c.plan_full = c.n_children <= 64 and bits == (~(<uint64_t>0) if c.n_children == 64
                                                    else ((<uint64_t>1) << c.n_children) - 1)


cdef int read_struct_into(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """A struct map: its fields into the children, unknown and unchosen ones skipped,
    absent ones given their zero value (read_struct's rules)."""
    cdef zp_head h
    cdef int64_t n, i, child, klen = 0, size
    cdef int64_t zid = 0
    cdef uint64_t uzid = 0
    cdef unsigned char k
    cdef uint64_t visit, bit, seen = 0, missing
    cdef bint has_room, missed
    cdef int64_t read, last = 0, plan_at, at, learned, body
    cdef const zp_plan_step *last_step
    cdef Col *item
    cdef int rc
    cdef zp_step *step
    cdef const unsigned char *tag
    # The cursor lives in locals: after every store through a pointer the compiler
    # must reload whatever lives behind d (no strict aliasing), so d.pos is written
    # only before a call that reads or advances it, and read back after.
    cdef const unsigned char *buf = d.buf
    cdef int64_t pos = d.pos, end = d.end
    rc = zp_read_map(buf + pos, end - pos, &h)
    if rc == ZP_READ_OTHER:
        snprintf(d.message, MESSAGE_SIZE, "expected struct %s (a map), found %s", c.struct_name, zp_lead_name(b))
        return dec_fail(d, d.pos)
    if rc != ZP_READ_OK:
        return dec_refused(d, rc, &h, NULL, NULL)
    pos += h.header
    n = h.n
    body = pos
    i = 0
    plan_at = 0
    last_step = NULL
    # A row its plan reads whole (every child given, in the plan's order, each value
    # taken by its step) is closed here, without the path's level: entering it cannot
    # fail (below the levels where the thread's stack is asked), and nothing in it
    # can fail after it is read. Any other row goes on where the plan stopped.
    if n == c.plan_len and c.plan_full and c.plan_misses < PLAN_MISSES and d.guard.depth + 1 < d.guard.cap \
            and not d.validating and (c.length < c.kids_room or zp_struct_make_room(c, &d.held) == 0):
        i = zp_struct_read_plan(c, buf, &pos, end, n, &plan_at, &seen, &last_step, &d.used, &d.held)
        if i == n:
            if c.plan_misses:
                c.plan_misses = 0
            d.pos = pos
            if c.length >= c.room and zp_col_make_room(c, &d.held) < 0:
                return dec_no_memory(d)
            zp_col_row_done(c)
            return 0
    d.pos = body
    if dec_enter(d) < 0:
        return -1
    step = &d.steps[d.guard.depth]
    plan_path_step(c, step, last_step)
    # Fields seen in this row: a bit each for the first 64 children, a visit number
    # for the others (c.seen).
    c.visit += 1
    visit = c.visit
    # Room in every child for this row, checked once (not per value). Not in the
    # scratch columns of a check (d.validating): a struct met again inside itself
    # reads into the same columns while its outer row is open, so their children
    # can be a row ahead of c.
    has_room = not d.validating and (c.length < c.kids_room or zp_struct_make_room(c, &d.held) == 0)
    # The key plan (c.plan: the entries of the last row that left it, in order) is
    # followed from the row's first entry: each entry whose key is the one expected
    # next is read by its step (zp_struct_read_plan), or by the general path below
    # when the step does not take its value. An entry the plan expects later (an
    # omitted field) moves it on to there; one it does not expect leaves it: the
    # rest of the row is read entry by entry and learned (c.learn), and becomes
    # the plan at the row's end. Not in the scratch columns of a check.
    if not has_room:
        plan_at = PLAN_OFF
    elif c.plan_misses >= PLAN_MISSES:
        # rows keep leaving the plan (an order of their own each, or rows no plan can
        # hold): the fast loop alone, the plan tried again every PLAN_RETRY rows
        c.plan_misses += 1
        if c.plan_misses % PLAN_RETRY:
            plan_at = PLAN_OFF
    learned = 0
    missed = False
    while i < n:
        if plan_at >= 0:
            last_step = NULL
            i += zp_struct_read_plan(c, buf, &pos, end, n - i, &plan_at, &seen, &last_step, &d.used, &d.held)
            plan_path_step(c, step, last_step)
            if i >= n:
                break
        elif has_room and plan_at == PLAN_OFF:
            # as many fields as the fast appenders take, then one by the general path
            read = zp_struct_read_fast(c, buf, &pos, end, n - i, &seen, &last, &d.used, &d.held)
            i += read
            if last >= 0:
                step.kind = ZP_STEP_FIELD     # (as the general path leaves it)
                step.ref = c.children[last].name
            if i >= n:
                break
        i += 1
        if pos >= end:
            d.pos = pos
            return dec_truncated(d, pos, 2 * (n - i + 1))
        k = buf[pos]
        if plan_at >= 0:
            at = plan_find(c, plan_at, k)
            if at >= 0:
                plan_at = at + 1        # the entry the plan expects there, read by the general path
            else:                       # leaves the plan: learn the row from here
                memcpy(c.learn, c.plan, plan_at * sizeof(zp_plan_step))
                learned = plan_at
                plan_at = PLAN_LEARNING
                missed = True
        if plan_at == PLAN_LEARNING:
            learned = plan_learn(c, k, learned)
            if learned < 0:             # no plan holds this row: the fast loop for the rest
                plan_at = PLAN_OFF
        child = -1
        tag = NULL
        if k <= 0x7f:
            pos += 1
            zid = k
            child = c.by_zid[k]        # (room for every fixint zid)
        else:
            if k == 0xff:
                # -1: the struct's name, as Go writes it first; a fixstr the same as
                # c's name is checked here, anything else by check_name_entry
                size = zp_struct_name_entry(c, buf + pos, end - pos)
                if size:
                    pos += size
                    continue
                d.pos = pos + 1
                if check_name_entry(d, c) < 0:
                    return -1
                pos = d.pos
                continue
            d.pos = pos
            rc = zp_read_struct_key(d.buf + d.pos, end - d.pos, &h, &uzid)
            if rc == ZP_KEY_TAG:        # msgp mode: the key is the FieldTagName
                tag = d.buf + d.pos + h.header
                klen = h.n
                child = zp_find_name(c.tags, sizeof(zp_name), c.n_children, tag, klen, i - 1)
                d.pos += h.header + klen
                zid = -3
            elif rc == ZP_KEY_ZID:
                d.pos += h.header
                zid = h.value
                if 0 <= zid < c.zid_limit:
                    child = c.by_zid[zid]
            elif rc == ZP_KEY_NAME:
                d.pos += h.header
                if check_name_entry(d, c) < 0:
                    return -1
                pos = d.pos
                continue
            else:
                return dec_refused(d, rc, &h, NULL, NULL)
            pos = d.pos
        if child < 0:                   # unknown zid or tag, Skip field, or not chosen
            if c.n_unusable and pos < end and buf[pos] != 0xc0:
                d.pos = pos
                if check_usable(d, c, zid, tag, klen) < 0:
                    return -1
            step.kind = ZP_STEP_ZID           # (a key cut short after it is named by this one)
            step.index = zid
            if pos < end:
                klen = zp_skip_scalar_size(buf + pos, end - pos)
                if klen:                # the common case, without dec_skip's call
                    pos += klen
                    continue
            d.pos = pos
            if dec_skip(d, False) < 0:
                return -1
            pos = d.pos
            continue
        item = c.children[child]
        step.kind = ZP_STEP_FIELD
        step.ref = item.name
        if child < 64:
            bit = (<uint64_t>1) << child
            if seen & bit:              # a field given twice: the last one counts, as in decode
                col_truncate(item, item.length - 1)
            seen |= bit
        else:
            if c.seen[child] == visit:
                col_truncate(item, item.length - 1)
            c.seen[child] = visit
        if pos < end:
            size = zp_col_read_fast(item, buf + pos, end - pos, &d.used, &d.held, has_room)
            if size:
                pos += size
                continue
        d.pos = pos
        if read_into(d, item) < 0:
            return -1
        pos = d.pos
    d.pos = pos
    if missed:
        if plan_at == PLAN_LEARNING:
            plan_adopt(c, learned)
        if c.plan_misses < PLAN_MISSES:
            c.plan_misses += 1
    elif plan_at >= 0 and c.plan_misses:
        c.plan_misses = 0
    # the absent fields: their zero value
    missing = (~seen) & (~(<uint64_t>0) if c.n_children >= 64 else ((<uint64_t>1) << c.n_children) - 1)
    while missing:
        child = zp_lowest_bit(missing)
        missing &= missing - 1
        if col_fill_absent(d, c, step, child) < 0:
            return -1
    for child in range(64, c.n_children):
        if c.seen[child] != visit and col_fill_absent(d, c, step, child) < 0:
            return -1
    d.guard.depth -= 1
    if c.length >= c.room and zp_col_make_room(c, &d.held) < 0:
        return dec_no_memory(d)
    zp_col_row_done(c)
    return 0


cdef int col_fill_absent(Dec *d, Col *c, zp_step *step, int64_t child) noexcept nogil:
    """The zero value of struct c's field ``child``, absent from the map being read."""
    cdef Col *item = c.children[child]
    step.kind = ZP_STEP_FIELD
    step.ref = item.name
    return col_fill(d, item, item.nullable, False)


cdef int read_into(Dec *d, Col *c) noexcept nogil:
    """One value of c's type at d.pos, appended to c."""
    cdef unsigned char b
    cdef int kind = c.kind
    cdef int64_t size
    if d.pos >= d.end:
        return dec_truncated(d, d.pos, 1)
    b = d.buf[d.pos]
    if b == 0xc0:                       # nil: null where Python has None, else the zero value
        if kind == C_NUMBER and d.strict:   # but for Go's msgp.Number, which reads numbers only (decode's rule)
            snprintf(d.message, MESSAGE_SIZE, "expected %s (strict), found nil", c.go)
            return dec_fail(d, d.pos)
        d.pos += 1
        return col_fill(d, c, c.nullable, False)
    size = zp_col_read_fast(c, d.buf + d.pos, d.end - d.pos, &d.used, &d.held, False)
    if size:
        d.pos += size
        return 0
    if 0 < kind <= C_NUMBER and COLUMN_READERS[kind] != NULL:
        return COLUMN_READERS[kind](d, c, b)
    snprintf(d.message, MESSAGE_SIZE, "internal: column kind %d", kind)
    return dec_fail(d, d.pos)


cdef int read_not_bool(Dec *d, Col *c, unsigned char b) noexcept nogil:
    """A bool column's value that zp_col_read_fast did not take: no bool."""
    return dec_type_error(d, c.go, b)


ctypedef int (*ColumnReader)(Dec *d, Col *c, unsigned char b) noexcept nogil

# The reader of each column kind (read_into), the value's lead byte b at d.pos; NULL: none.
cdef ColumnReader COLUMN_READERS[C_NUMBER + 1]
COLUMN_READERS[C_BOOL] = read_not_bool
COLUMN_READERS[C_INT] = read_int_into
COLUMN_READERS[C_UINT] = read_int_into
COLUMN_READERS[C_F32] = read_float_into
COLUMN_READERS[C_F64] = read_float_into
COLUMN_READERS[C_STRING] = read_bytes_into
COLUMN_READERS[C_BINARY] = read_bytes_into
COLUMN_READERS[C_FIXED_BINARY] = read_bytes_into
COLUMN_READERS[C_TIME] = read_time_into
COLUMN_READERS[C_COMPLEX] = read_complex_into
COLUMN_READERS[C_EXT] = read_ext_into
COLUMN_READERS[C_RAW] = read_raw_into
COLUMN_READERS[C_STRUCT] = read_struct_into
COLUMN_READERS[C_LIST] = read_list_into
COLUMN_READERS[C_FIXED_LIST] = read_list_into
COLUMN_READERS[C_MAP] = read_map_into
COLUMN_READERS[C_NUMBER] = read_number_into


cdef int64_t read_rows(Dec *d, Col *root, int64_t most, int64_t used_limit) noexcept nogil:
    """Records at d.pos that the root struct's plan reads whole, one after another (at
    most ``most``, while d.used < used_limit: zp_struct_read_rows), as read_record
    would read them; stops before the first it does not, which read_record reads
    (its partial appends undone first). Returns the records read."""
    cdef int64_t rows, pos = d.pos
    cdef int partial
    if root.run_skip:
        root.run_skip -= 1
        return 0
    # read_struct_into's conditions for a row read by its plan alone (the root's level
    # entered: a max_depth of 1 at least)
    if not root.plan_flat or not root.plan_full or root.plan_misses or d.validating or d.guard.max_depth < 1:
        return 0
    rows = zp_struct_read_rows(root, d.buf, &pos, d.end, most, &d.used, used_limit, &d.held, &partial)
    d.pos = pos
    if rows:
        root.run_misses = 0
    if partial:
        # a record the run stops in costs its work twice: runs tried again after
        # RUN_RETRY records, twice as many each time they stop at their first record
        col_truncate(root, root.length)
        root.run_skip = RUN_RETRY << min(root.run_misses, RUN_BACKOFF)
        root.run_misses += 1
    return rows


cdef int read_record(Dec *d, Col *root) noexcept nogil:
    """One record at d.pos into the root struct column."""
    cdef unsigned char b
    d.failed = False
    d.truncated = False
    zp_depth_init(&d.guard, d.guard.max_depth, DEC_SHALLOW)
    d.steps[0].kind = ZP_STEP_NONE
    if d.pos >= d.end:
        return dec_truncated(d, d.pos, 1)
    b = d.buf[d.pos]
    if not zp_is_map(b):
        snprintf(d.message, MESSAGE_SIZE, "a record is a struct map; expected %s, found %s", root.struct_name,
                 zp_lead_name(b))
        return dec_fail(d, d.pos)
    return read_struct_into(d, root, b)


# -- building the columns ----------------------------------------------------------------

cdef dict _INT_WIDTHS = {"c": 1, "C": 1, "s": 2, "S": 2, "i": 4, "I": 4, "l": 8, "L": 8}


cdef char *c_string(str text) except NULL:
    return zp_strdup_bytes(text.encode("utf-8"))


cdef void col_free(Col *c) noexcept nogil:
    cdef int64_t i
    cdef Col *child
    if c == NULL:
        return
    for i in range(c.n_children):
        col_free(c.children[i])
    free(c.children)
    free(c.validity.ptr)
    free(c.offsets.ptr)
    free(c.data.ptr)
    free(c.go)
    free(c.name)
    free(c.by_zid)
    if c.tags != NULL:
        for i in range(c.n_children):
            free(<void *>c.tags[i].text)
    free(c.tags)
    free(c.struct_name)
    free(c.seen)
    for i in range(c.n_unusable):
        free(c.unusable_tags[i])
        free(c.unusable_names[i])
        free(c.unusable_messages[i])
    free(c.unusable_zids)
    free(c.unusable_tags)
    free(c.unusable_tag_lens)
    free(c.unusable_names)
    free(c.unusable_messages)
    free(c.plan)
    free(c.learn)
    free(c)


cdef Col *col_build(object field) except NULL:
    """The builder of one ArrowField (and of its children); col_free frees it."""
    cdef Col *c = <Col *>calloc(1, sizeof(Col))
    if c == NULL:
        raise MemoryError()
    try:
        col_setup(c, field)
    except BaseException:
        col_free(c)
        raise
    return c


cdef int col_setup(Col *c, object field) except -1:
    cdef int64_t i, n = len(field.children)
    cdef str fmt = field.format
    ref = field.type
    while ref is not None and int(ref.kind) == K_POINTER:
        ref = ref.elem
    c.wire_kind = int(ref.kind) if ref is not None else 0
    c.nullable = field.nullable
    c.time_field = field.time_field
    c.name = c_string(field.name)
    c.go = c_string(ref.go if ref is not None else fmt)
    if n:
        c.children = <Col **>calloc(n, sizeof(Col *))
        if c.children == NULL:
            raise MemoryError()
        c.n_children = n
        for i in range(n):
            c.children[i] = col_build(field.children[i])
    if field.raw:
        c.kind = C_RAW
        c.raw_kind = (RAW_ANY if c.wire_kind == K_INTF else RAW_IFACE if c.wire_kind == K_IFACE
                      else RAW_VERBATIM if c.wire_kind == K_RAW else RAW_STRUCT)
    elif c.wire_kind == K_C64 or c.wire_kind == K_C128:
        c.kind = C_COMPLEX
    elif c.wire_kind == K_EXT:
        c.kind = C_EXT
    elif c.wire_kind == K_NUMBER:
        c.kind = C_NUMBER
    elif fmt == "+s":
        c.kind = C_STRUCT if field.struct else C_ENTRIES
        if field.struct:
            struct_setup(c, field)
    elif fmt == "+l":
        c.kind = C_LIST
    elif fmt == "+m":
        c.kind = C_MAP
    elif fmt.startswith("+w:"):
        c.kind = C_FIXED_LIST
        c.fixed = int(fmt[3:])
    elif fmt.startswith("w:"):
        c.kind = C_FIXED_BINARY
        c.fixed = c.width = int(fmt[2:])
    elif fmt == "u":
        c.kind = C_STRING
    elif fmt == "z":
        c.kind = C_BINARY
    elif fmt == "b":
        c.kind = C_BOOL
    elif fmt == "f" or fmt == "g":
        c.kind = C_F32 if fmt == "f" else C_F64
        c.width = 4 if fmt == "f" else 8
    elif fmt.startswith("ts"):
        c.kind = C_TIME
        c.width = 8
    elif fmt in _INT_WIDTHS:
        c.width = _INT_WIDTHS[fmt]
        if c.wire_kind in _INTEGER_RANGES:
            c.is_signed, c.imin, c.imax, c.umax = _INTEGER_RANGES[c.wire_kind]
        else:       # an ext's code
            c.is_signed, c.imin, c.imax, c.umax = True, -128, 127, 0
        c.kind = C_INT if c.is_signed else C_UINT
    else:
        raise AssertionError(f"no column builder for {fmt!r}")
    c.fast = _FAST_READERS.get(c.kind, F_NONE)
    c.time_us = fmt.startswith("tsu")
    return 0


cdef dict _FAST_READERS = {C_STRING: F_STRING, C_BINARY: F_BINARY, C_INT: F_INT, C_UINT: F_INT, C_F32: F_F32,
                           C_F64: F_F64, C_BOOL: F_BOOL, C_TIME: F_TIME}


cdef void col_link_structs(Col *c, dict indexes) except *:
    """Give each recursive-struct column the index of its struct's scratch columns."""
    cdef int64_t i
    if c.kind == C_RAW and c.raw_kind == RAW_STRUCT:
        c.raw_struct = indexes[c.go.decode("utf-8")]
    for i in range(c.n_children):
        col_link_structs(c.children[i], indexes)


cdef bint col_raw_structs(Col *c, set names) except -1:
    """Whether c's tree holds interface{} or a named interface (whose values can name
    any struct of the schema); the names of the structs its recursive-struct columns
    hold added to ``names``."""
    cdef int64_t i
    cdef bint any_struct = c.kind == C_RAW and (c.raw_kind == RAW_ANY or c.raw_kind == RAW_IFACE)
    if c.kind == C_RAW and c.raw_kind == RAW_STRUCT:
        names.add(c.go.decode("utf-8"))
    for i in range(c.n_children):
        if col_raw_structs(c.children[i], names):
            any_struct = True
    return any_struct


cdef int struct_setup(Col *c, object field) except -1:
    cdef int64_t i, zid, n
    cdef int64_t limit = max([child.zid for child in field.children] + [-1]) + 1
    name = field.struct.encode("utf-8")
    c.struct_name = zp_strdup_bytes(name)
    c.struct_name_len = len(name)
    zp_struct_name_setup(c)
    c.by_zid = <int32_t *>malloc(max(limit, 128) * sizeof(int32_t))
    c.tags = <zp_name *>calloc(max(c.n_children, 1), sizeof(zp_name))
    c.seen = <uint64_t *>calloc(max(c.n_children, 1), sizeof(uint64_t))
    # a plan holds each child once, the name entry, and up to 64 fields no column takes
    c.plan_cap = c.n_children + 65
    c.plan = <zp_plan_step *>calloc(c.plan_cap + 1, sizeof(zp_plan_step))
    c.learn = <zp_plan_step *>calloc(c.plan_cap, sizeof(zp_plan_step))
    if c.by_zid == NULL or c.tags == NULL or c.seen == NULL or c.plan == NULL or c.learn == NULL:
        raise MemoryError()
    c.zid_limit = limit
    for i in range(max(limit, 128)):
        c.by_zid[i] = -1
    for i, child in enumerate(field.children):
        if child.zid >= 0:              # a field without a zid is found by its tag only (msgp mode)
            c.by_zid[child.zid] = <int32_t>i
        tag = child.tag.encode("utf-8")
        c.tags[i].text = zp_strdup_bytes(tag)
        c.tags[i].len = len(tag)
    n = len(field.unusable)
    if n:
        c.unusable_zids = <int64_t *>calloc(n, sizeof(int64_t))
        c.unusable_tags = <char **>calloc(n, sizeof(char *))
        c.unusable_tag_lens = <int64_t *>calloc(n, sizeof(int64_t))
        c.unusable_names = <char **>calloc(n, sizeof(char *))
        c.unusable_messages = <char **>calloc(n, sizeof(char *))
        if c.unusable_zids == NULL or c.unusable_tags == NULL or c.unusable_tag_lens == NULL \
                or c.unusable_names == NULL or c.unusable_messages == NULL:
            raise MemoryError()
        c.n_unusable = n
        for i, (zid, name, tag, message) in enumerate(field.unusable):
            c.unusable_zids[i] = zid
            tag_bytes = tag.encode("utf-8")
            c.unusable_tags[i] = zp_strdup_bytes(tag_bytes)
            c.unusable_tag_lens[i] = len(tag_bytes)
            c.unusable_names[i] = c_string(name)
            c.unusable_messages[i] = c_string(message)
    return 0
