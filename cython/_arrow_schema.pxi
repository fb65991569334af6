# ArrowSchema export: the tree of zebrapack.arrow._mapping.ArrowField as C
# Data Interface structs. Everything is allocated with libc malloc and freed by
# the release callback, which any thread may call without the GIL.

from libc.stdlib cimport calloc, free, malloc, realloc
from cpython.pycapsule cimport PyCapsule_Destructor, PyCapsule_GetPointer, PyCapsule_New
from libc.string cimport memset


cdef char *zp_strdup_bytes(bytes text) except NULL:
    cdef Py_ssize_t n = len(text)
    cdef char *out = <char *>malloc(n + 1)
    if out == NULL:
        raise MemoryError()
    memcpy(out, <const char *>text, n)
    out[n] = 0
    return out


cdef char *zp_arrow_metadata(tuple pairs) except? NULL:
    """Arrow's metadata encoding: int32 count, then int32 length + bytes per key and value."""
    cdef list parts = []
    cdef Py_ssize_t size = 4, pos = 0, n
    cdef int32_t count
    cdef char *out
    if not pairs:
        return NULL
    for key, value in pairs:
        parts.append(key.encode("utf-8"))
        parts.append(value.encode("utf-8"))
    for part in parts:
        size += 4 + len(part)
    out = <char *>malloc(size)
    if out == NULL:
        raise MemoryError()
    count = len(pairs)
    memcpy(out, &count, 4)
    pos = 4
    for part in parts:
        n = len(<bytes>part)
        count = <int32_t>n
        memcpy(out + pos, &count, 4)
        memcpy(out + pos + 4, <const char *>(<bytes>part), n)
        pos += 4 + n
    return out


cdef void zp_release_schema(ArrowSchema *schema) noexcept nogil:
    cdef int64_t i
    if schema == NULL or schema.release == NULL:
        return
    for i in range(schema.n_children):
        if schema.children[i] != NULL:
            if schema.children[i].release != NULL:
                schema.children[i].release(schema.children[i])
            free(schema.children[i])
    free(schema.children)
    free(<void *>schema.format)
    free(<void *>schema.name)
    free(<void *>schema.metadata)
    schema.release = NULL


cdef int zp_fill_schema(ArrowSchema *out, object field) except -1:
    """Fill out (zeroed by the caller) from an ArrowField; on error it is released."""
    cdef int64_t i, n = len(field.children)
    out.release = zp_release_schema
    out.flags = ARROW_FLAG_NULLABLE if field.nullable else 0
    out.format = zp_strdup_bytes(field.format.encode("utf-8"))
    out.name = zp_strdup_bytes(field.name.encode("utf-8"))
    out.metadata = zp_arrow_metadata(tuple(field.metadata))
    if n:
        out.children = <ArrowSchema **>calloc(n, sizeof(ArrowSchema *))
        if out.children == NULL:
            raise MemoryError()
        out.n_children = n
        for i in range(n):
            out.children[i] = <ArrowSchema *>calloc(1, sizeof(ArrowSchema))
            if out.children[i] == NULL:
                raise MemoryError()
            zp_fill_schema(out.children[i], field.children[i])
    return 0


cdef void zp_schema_capsule_free(object capsule) noexcept:
    cdef ArrowSchema *schema = <ArrowSchema *>PyCapsule_GetPointer(capsule, "arrow_schema")
    if schema != NULL:
        if schema.release != NULL:
            schema.release(schema)
        free(schema)


cdef int zp_export_schema(ArrowSchema *out, object field) except -1:
    """out (uninitialised) becomes the ArrowSchema of field, owned by the caller."""
    memset(out, 0, sizeof(ArrowSchema))
    try:
        zp_fill_schema(out, field)
    except BaseException:
        zp_release_schema(out)
        raise
    return 0


def arrow_schema_capsule(field):
    """An "arrow_schema" PyCapsule of an ArrowField tree (zebrapack.arrow._mapping)."""
    cdef ArrowSchema *schema = <ArrowSchema *>malloc(sizeof(ArrowSchema))
    if schema == NULL:
        raise MemoryError()
    try:
        zp_export_schema(schema, field)
    except BaseException:
        free(schema)
        raise
    return PyCapsule_New(schema, "arrow_schema", <PyCapsule_Destructor>zp_schema_capsule_free)
