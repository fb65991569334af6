/* Where a reader or writer is in the value tree, for its errors: a step per nesting
 * level, the one path builder that spells them (Compound.Inners[2].X: every error of
 * the core names its field path so), and the one nesting guard (max_depth levels and
 * the thread's C stack, zp_stack.h, whichever comes first).
 *
 * No Python objects here, so that the columnar reader uses it without the GIL. A step's
 * ref is its owner's: the trail of the decoder and encoder (_trail.pxi) keeps a
 * FieldPlan or a map key (a Python object) there, the columnar reader (_arrow_read.pxi)
 * a field's C name or a key's wire offset; each spells its own fields and keys through
 * a callback (zp_step_spell), and zp_path_write does the rest. */
#ifndef ZP_TRAIL_H
#define ZP_TRAIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "zp_skip.h"
#include "zp_stack.h"

enum {
    ZP_STEP_NONE = 0,   /* entered, no element yet */
    ZP_STEP_FIELD = 1,  /* ref: the field, spelled by its owner */
    ZP_STEP_INDEX = 2,  /* index: the list position */
    ZP_STEP_KEY = 3,    /* a map key (ref, index: its owner's), spelled by its owner */
    ZP_STEP_ZID = 4     /* index: an unknown zid whose value is skipped */
};

typedef struct {
    int kind;
    void *ref;
    int64_t index;
} zp_step;

/* Spells a FIELD step's name, or a KEY step's key (the text between its brackets),
 * into out (room bytes, 0 when there is no more room: out may be NULL then); returns
 * the length of the whole text, written or not. */
typedef int64_t (*zp_step_spell)(void *owner, const zp_step *step, char *out, int64_t room);

/* Copies what fits of n bytes of text at out + at (size bytes in all, the last kept
 * for the NUL); returns at + n. */
static inline int64_t zp_path_put(char *out, int64_t size, int64_t at, const char *text, int64_t n) {
    int64_t room = size - 1 - at;
    if (room > 0)
        memcpy(out + at, text, (size_t)(n < room ? n : room));
    return at + n;
}

/* The field path of steps[1..depth], up to the first step with nothing yet: root ("$"
 * when NULL), then .Name for a field, [i] for a list index, [key] for a map key,
 * .<zid N> for an unknown zid. Written into out (size >= 1 bytes: cut to size - 1,
 * NUL terminated); returns the whole path's length, so that a caller may ask again
 * with room for all of it. */
static int64_t zp_path_write(char *out, int64_t size, const char *root, const zp_step *steps, int64_t depth,
                             zp_step_spell spell, void *owner) {
    char number[48];
    int64_t at, i, room;
    const zp_step *step;
    if (root == NULL)
        root = "$";
    at = zp_path_put(out, size, 0, root, (int64_t)strlen(root));
    for (i = 1; i <= depth; i++) {
        step = &steps[i];
        if (step->kind == ZP_STEP_FIELD || step->kind == ZP_STEP_KEY) {
            at = zp_path_put(out, size, at, step->kind == ZP_STEP_FIELD ? "." : "[", 1);
            room = size - 1 - at;
            at += spell(owner, step, room > 0 ? out + at : NULL, room > 0 ? room : 0);
            if (step->kind == ZP_STEP_KEY)
                at = zp_path_put(out, size, at, "]", 1);
        } else if (step->kind == ZP_STEP_INDEX) {
            at = zp_path_put(out, size, at, number,
                             snprintf(number, sizeof(number), "[%lld]", (long long)step->index));
        } else if (step->kind == ZP_STEP_ZID) {
            at = zp_path_put(out, size, at, number,
                             snprintf(number, sizeof(number), ".<zid %lld>", (long long)step->index));
        } else {
            break;
        }
    }
    out[at < size - 1 ? at : size - 1] = 0;
    return at;
}

/* The levels a failed skip had entered, as index steps after steps[0] (the skip's own
 * level): the position of the value it was reading at each, a map's entries counted
 * once. The owner has room for them: the skipper stops at max_depth too. */
static inline void zp_steps_skipped(zp_step *steps, const zp_skipper *s) {
    int64_t level;
    for (level = 1; level <= s->level; level++) {
        steps[level].kind = ZP_STEP_INDEX;
        steps[level].ref = NULL;
        steps[level].index = zp_skip_index(s, level) >> zp_skip_is_map(s, level);
    }
}

/* The nesting guard: `depth` levels entered, at most max_depth. `cap`: the levels its
 * owner has room for (steps), up to max_depth + 1; when they run out the owner grows
 * (zp_depth_wants_room, zp_depth_grown), and the thread's stack is asked then, once:
 * shallow values never need the stack check. */
typedef struct {
    int64_t depth;
    int64_t max_depth;
    int64_t cap;
    uintptr_t stack_low;        /* the thread's stack: its lowest address, */
    uintptr_t stack_floor;      /* and the lowest frame address recursion may reach (0: not asked) */
} zp_depth;

static inline void zp_depth_init(zp_depth *g, int64_t max_depth, int64_t cap) {
    g->depth = 0;
    g->max_depth = max_depth;
    g->cap = cap < max_depth + 1 ? cap : max_depth + 1;
    g->stack_low = 0;
    g->stack_floor = 0;
}

/* One level deeper: 1; 0, nothing changed, when the owner's room runs out or the C
 * stack does. */
static inline int zp_depth_enter(zp_depth *g) {
    uintptr_t here = zp_stack_here();
    if (g->depth + 1 >= g->cap || (here < g->stack_floor && here >= g->stack_low))
        return 0;
    g->depth += 1;
    return 1;
}

/* After zp_depth_enter refused: whether for room the owner may grow into (the level
 * is within max_depth); if not, a limit refused it (zp_depth_message). */
static inline int zp_depth_wants_room(const zp_depth *g) {
    return g->depth + 1 >= g->cap && g->depth + 1 <= g->max_depth;
}

/* The owner has grown to room for cap levels: the stack asked (the first time), then
 * zp_depth_enter. */
static int zp_depth_grown(zp_depth *g, int64_t cap) {
    g->cap = cap < g->max_depth + 1 ? cap : g->max_depth + 1;
    if (g->stack_floor == 0)
        zp_stack_bounds(&g->stack_low, &g->stack_floor);
    return zp_depth_enter(g);
}

/* Why a level was refused: max_depth, the owner's room (it could not grow: memory),
 * or the C stack. */
static void zp_depth_message(char *out, size_t size, const zp_depth *g) {
    if (g->depth >= g->max_depth)
        snprintf(out, size, "nesting deeper than max_depth=%lld", (long long)g->max_depth);
    else if (g->depth + 1 >= g->cap)
        snprintf(out, size, "out of memory for the field path at %lld levels", (long long)g->depth);
    else
        snprintf(out, size, "nesting deeper than this thread's C stack allows (%lld levels)", (long long)g->depth);
}

#endif
