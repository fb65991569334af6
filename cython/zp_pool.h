/* The Arrow reader's buffer pool: the buffers of batches the consumer has released,
 * kept for the next batches of the same reader (and of the readers that follow it, a
 * decoder thread's next ranges).
 *
 * Why: a batch is made on a decoder thread and freed on the consumer's. glibc gives
 * each thread its own arena and trims a thread arena's top as soon as enough of it is
 * free, so every batch's buffers came back as fresh pages: 30,000 page faults for a
 * 1 GB read with two threads against 3,000 with one, a sixth of the CPU time. Kept
 * here, the pages stay mapped and the next batch writes into them.
 *
 * Bounded: at most ZP_POOL_SLOTS buffers and `limit` bytes are kept; what does not fit
 * is freed. The pool is freed with its last reference: each reader holding it and
 * each exported array whose buffers go back to it hold one, so buffers released after
 * the readers are gone are freed, not kept. Any thread may give or take (an Arrow
 * consumer releases arrays where it likes, without the GIL): a lock guards it. */
#ifndef ZP_POOL_H
#define ZP_POOL_H

#include <stdint.h>
#include <stdlib.h>
#include "Python.h"
#include "pythread.h"

#define ZP_POOL_SLOTS 128
/* Smaller buffers are cheap to get from malloc: not worth a slot. */
#define ZP_POOL_MIN_BYTES 4096

typedef struct {
    void *ptr;
    int64_t cap;
} zp_pooled;

typedef struct {
    PyThread_type_lock lock;
    int64_t refs;
    int64_t bytes;      /* held by the buffers kept */
    int64_t limit;      /* the most bytes kept */
    int n;
    zp_pooled kept[ZP_POOL_SLOTS];
} zp_pool;

/* A pool with one reference, or NULL when memory runs out. */
static zp_pool *zp_pool_new(int64_t limit) {
    zp_pool *p = (zp_pool *)calloc(1, sizeof(zp_pool));
    if (p == NULL)
        return NULL;
    p->lock = PyThread_allocate_lock();
    if (p->lock == NULL) {
        free(p);
        return NULL;
    }
    p->refs = 1;
    p->limit = limit;
    return p;
}

static void zp_pool_ref(zp_pool *p) {
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    p->refs++;
    PyThread_release_lock(p->lock);
}

static void zp_pool_unref(zp_pool *p) {
    int64_t refs;
    int i;
    if (p == NULL)
        return;
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    refs = --p->refs;
    PyThread_release_lock(p->lock);
    if (refs)
        return;
    for (i = 0; i < p->n; i++)
        free(p->kept[i].ptr);
    PyThread_free_lock(p->lock);
    free(p);
}

/* The bytes kept now. */
static int64_t zp_pool_bytes(zp_pool *p) {
    int64_t bytes;
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    bytes = p->bytes;
    PyThread_release_lock(p->lock);
    return bytes;
}

/* The smallest kept buffer of at least `want` bytes (its size in *cap), or NULL. */
static void *zp_pool_take(zp_pool *p, int64_t want, int64_t *cap) {
    void *ptr = NULL;
    int i, best = -1;
    if (p == NULL || want < ZP_POOL_MIN_BYTES)
        return NULL;
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    for (i = 0; i < p->n; i++)
        if (p->kept[i].cap >= want && (best < 0 || p->kept[i].cap < p->kept[best].cap))
            best = i;
    if (best >= 0) {
        ptr = p->kept[best].ptr;
        *cap = p->kept[best].cap;
        p->bytes -= *cap;
        p->kept[best] = p->kept[--p->n];
    }
    PyThread_release_lock(p->lock);
    return ptr;
}

/* A released buffer of `cap` bytes: kept if it fits, else freed. */
static void zp_pool_give(zp_pool *p, void *ptr, int64_t cap) {
    if (ptr == NULL)
        return;
    if (p != NULL && cap >= ZP_POOL_MIN_BYTES) {
        PyThread_acquire_lock(p->lock, WAIT_LOCK);
        if (p->n < ZP_POOL_SLOTS && p->bytes + cap <= p->limit) {
            p->kept[p->n].ptr = ptr;
            p->kept[p->n].cap = cap;
            p->n++;
            p->bytes += cap;
            ptr = NULL;
        }
        PyThread_release_lock(p->lock);
    }
    free(ptr);
}

#endif
