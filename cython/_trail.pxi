# The trail: where the decoder or encoder is in the value tree. One entry per
# container level, updated with a store or two per element, so that an error
# anywhere can name its field path (Compound.Inners[2].X) without any work on
# the success path. It also enforces the nesting limits: max_depth levels, and
# the thread's C stack (zp_stack.h), whichever comes first. The steps, the path
# builder and the guard are zp_trail.h's, which the columnar reader uses too.

cdef extern from "zp_traceback.h":
    void zp_traceback_shorten(object tb) noexcept
    void zp_traceback_shorten_pending() noexcept

cdef extern from "zp_trail.h":
    enum:
        ZP_STEP_NONE
        ZP_STEP_FIELD
        ZP_STEP_INDEX
        ZP_STEP_KEY
        ZP_STEP_ZID
    ctypedef struct zp_step:
        int kind
        void *ref
        int64_t index
    ctypedef int64_t (*zp_step_spell)(void *owner, const zp_step *step, char *out, int64_t room) noexcept
    int64_t zp_path_write(char *out, int64_t size, const char *root, const zp_step *steps, int64_t depth,
                          zp_step_spell spell, void *owner) noexcept nogil
    ctypedef struct zp_depth:
        int64_t depth
        int64_t max_depth
        int64_t cap
        uintptr_t stack_floor
    void zp_steps_skipped(zp_step *steps, const zp_skipper *s) noexcept nogil
    void zp_depth_init(zp_depth *g, int64_t max_depth, int64_t cap) noexcept nogil
    bint zp_depth_enter(zp_depth *g) noexcept nogil
    bint zp_depth_wants_room(const zp_depth *g) noexcept nogil
    bint zp_depth_grown(zp_depth *g, int64_t cap) noexcept nogil
    void zp_depth_message(char *out, size_t size, const zp_depth *g) noexcept nogil

cdef enum:
    TRAIL_INLINE = 32
    TRAIL_PATH_SMALL = 256          # a path this long is built on the stack, a longer one on the heap
    DEPTH_MESSAGE_SIZE = 128

# Steps (zp_step): FIELD's ref the FieldPlan (borrowed: the codec owns it), KEY's ref
# a strong reference to the map key (NULL while it is read).
cdef struct Trail:
    zp_depth guard
    PyObject *root                  # the root struct's name (borrowed), or NULL
    zp_step *entries
    zp_step inline_entries[TRAIL_INLINE]


cdef inline void trail_init(Trail *t, Py_ssize_t max_depth) noexcept:
    zp_depth_init(&t.guard, max_depth, TRAIL_INLINE)
    t.root = NULL
    t.entries = t.inline_entries
    t.entries[0].kind = ZP_STEP_NONE
    t.entries[0].ref = NULL


cdef inline bint trail_enter(Trail *t) noexcept:
    """Go one level deeper (zp_depth_enter); False when that passes a limit (or memory ran out)."""
    if not zp_depth_enter(&t.guard) and not trail_grow(t):
        return False
    t.entries[t.guard.depth].kind = ZP_STEP_NONE
    t.entries[t.guard.depth].ref = NULL
    return True


cdef bint trail_grow(Trail *t) noexcept:
    """zp_depth_enter's slow path: more entries (on the heap past TRAIL_INLINE), then enter."""
    cdef Py_ssize_t cap = t.guard.cap * 4
    if not zp_depth_wants_room(&t.guard):
        return False
    if cap > t.guard.max_depth + 1:
        cap = t.guard.max_depth + 1
    return trail_entries(t, cap) and zp_depth_grown(&t.guard, cap)


cdef bint trail_reserve(Trail *t, Py_ssize_t depth) noexcept:
    """Entries up to depth (within max_depth: a failed skip's levels); False when memory ran out."""
    if depth < t.guard.cap:
        return True
    if not trail_entries(t, depth + 1):
        return False
    t.guard.cap = depth + 1
    return True


cdef bint trail_entries(Trail *t, Py_ssize_t cap) noexcept:
    """The entries moved to (or grown on) the heap, cap of them; False when memory ran out."""
    cdef zp_step *entries
    if t.entries == t.inline_entries:
        entries = <zp_step *>PyMem_Malloc(cap * sizeof(zp_step))
        if entries != NULL:
            memcpy(entries, t.inline_entries, t.guard.cap * sizeof(zp_step))
    else:
        entries = <zp_step *>PyMem_Realloc(t.entries, cap * sizeof(zp_step))
    if entries == NULL:
        return False
    t.entries = entries
    return True


cdef str trail_too_deep(Trail *t):
    """Why trail_enter refused to go deeper (zp_depth_message)."""
    cdef char message[DEPTH_MESSAGE_SIZE]
    zp_depth_message(message, sizeof(message), &t.guard)
    return message.decode("utf-8")


cdef inline Py_ssize_t trail_levels_left(Trail *t) noexcept:
    """The levels below this one that max_depth still allows."""
    return t.guard.max_depth - t.guard.depth


cdef inline bint trail_levels_fit(Trail *t, Py_ssize_t levels) noexcept:
    """Whether the levels down to ``levels`` below this one would all be entered without
    growing the trail or asking the thread's stack (within max_depth, then; a trail grown
    later only has more room, and a stack that let the levels before go deeper lets these
    go as deep): a writer that asks once may store what lies there without entering it."""
    return t.guard.depth + levels < t.guard.cap and t.guard.stack_floor == 0


cdef inline void trail_leave(Trail *t) noexcept:
    t.guard.depth -= 1


cdef inline void trail_field(Trail *t, PyObject *fp) noexcept:
    """At the field whose FieldPlan is fp (borrowed: the codec owns it)."""
    cdef zp_step *entry = &t.entries[t.guard.depth]     # once: the stores may alias the trail's words
    entry.kind = ZP_STEP_FIELD
    entry.ref = fp


cdef inline void trail_index(Trail *t, Py_ssize_t index) noexcept:
    cdef zp_step *entry = &t.entries[t.guard.depth]     # (as trail_field)
    entry.kind = ZP_STEP_INDEX
    entry.index = index


cdef inline void trail_zid(Trail *t, Py_ssize_t zid) noexcept:
    cdef zp_step *entry = &t.entries[t.guard.depth]
    entry.kind = ZP_STEP_ZID
    entry.index = zid


cdef inline void trail_key_reading(Trail *t) noexcept:
    """Before a map key is read: drop the previous key."""
    cdef zp_step *entry = &t.entries[t.guard.depth]
    cdef PyObject *old = <PyObject *>entry.ref if entry.kind == ZP_STEP_KEY else NULL
    entry.kind = ZP_STEP_KEY
    entry.ref = NULL
    Py_XDECREF(old)


cdef inline void trail_key(Trail *t, object key) noexcept:
    """The map key whose value comes next (a strong reference until replaced)."""
    Py_INCREF(key)
    t.entries[t.guard.depth].ref = <PyObject *>key


cdef inline void trail_map_done(Trail *t) noexcept:
    """A map level ends normally: release its key, then leave."""
    trail_key_reading(t)
    t.guard.depth -= 1


cdef void trail_release(Trail *t) noexcept:
    """End of a call: release keys left by an error, free the heap entries."""
    cdef Py_ssize_t d
    for d in range(1, t.guard.depth + 1):
        if t.entries[d].kind == ZP_STEP_KEY:
            Py_XDECREF(<PyObject *>t.entries[d].ref)
            t.entries[d].ref = NULL
    t.guard.depth = 0
    if t.entries != t.inline_entries:
        PyMem_Free(t.entries)
        t.entries = t.inline_entries
        t.guard.cap = min(TRAIL_INLINE, t.guard.max_depth + 1)


cdef str trail_path(Trail *t):
    """The field path, e.g. Compound.Inners[2].X or $[3] when no struct is known (zp_path_write)."""
    return path_text(<object>t.root if t.root != NULL else None, t.entries, t.guard.depth, trail_spell, NULL)


cdef str path_text(str root, const zp_step *steps, int64_t depth, zp_step_spell spell, void *owner):
    """zp_path_write's path as a str, whatever its length (the trail's, the Arrow writer's)."""
    cdef char small[TRAIL_PATH_SMALL]
    cdef char *text
    cdef const char *root_c = PyUnicode_AsUTF8AndSize(root, NULL) if root is not None else NULL
    cdef int64_t n = zp_path_write(small, sizeof(small), root_c, steps, depth, spell, owner)
    if n < TRAIL_PATH_SMALL:
        return small[:n].decode("utf-8", "surrogatepass")
    text = <char *>PyMem_Malloc(n + 1)
    if text == NULL:
        raise MemoryError()
    try:
        zp_path_write(text, n + 1, root_c, steps, depth, spell, owner)
        return text[:n].decode("utf-8", "surrogatepass")
    finally:
        PyMem_Free(text)


cdef int64_t trail_spell(void *owner, const zp_step *step, char *out, int64_t room) noexcept:
    """A trail step's field name (its FieldPlan's) or map key (its repr, shortened), for zp_path_write."""
    try:
        if step.kind == ZP_STEP_FIELD:
            text = (<FieldPlan>step.ref).name
        else:
            text = "<key>" if step.ref == NULL else _short_repr(<object>step.ref)
    except Exception:                   # a key whose repr fails: named as an unknown key
        text = "<key>"
    return spell_text(text, out, room)


cdef int64_t spell_text(str text, char *out, int64_t room) noexcept:
    """A step's text for zp_path_write: its UTF-8 copied into out as far as room goes; its length."""
    cdef Py_ssize_t n
    try:
        encoded = text.encode("utf-8", "surrogatepass")
    except Exception:
        encoded = b"<key>"
    n = len(encoded)
    if room > 0:
        memcpy(out, <const char *>encoded, n if n < room else room)
    return n


cdef str _short_repr(object value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
