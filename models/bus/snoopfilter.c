/* snoopfilter.c: block -> holders, for the snooping bus (snoopfilter.h).
 *
 *   slots: | block | bits[0 .. words) | block | bits ... |     cap entries, linear probing
 *
 * A free slot holds SF_EMPTY, which no block can be (blocks are line-aligned addresses and a
 * line is at least 8 bytes). Deletion shifts the following run back (Knuth 6.4, algorithm R),
 * so there are no tombstones and a lookup stops at the first free slot.
 */
#include "snoopfilter.h"

#include <glib.h>
#include <string.h>

#define SF_EMPTY UINT64_MAX
#define SF_MIN_CAP 1024u

/* The home slot of block: a multiplicative hash (Fibonacci hashing, Knuth 6.4): the top
 * log2(cap) bits of the product, where every bit of the block counts. */
static inline uint64_t sf_home(const SnoopFilter *f, uint64_t block)
{
    return (block * 0x9E3779B97F4A7C15ull) >> (64 - __builtin_ctzll(f->cap));
}

static inline uint64_t *sf_slot(const SnoopFilter *f, uint64_t i)
{
    return f->slots + i * (1 + (uint64_t)f->words);
}

static void sf_alloc(SnoopFilter *f, uint64_t cap)
{
    f->cap = cap;
    f->slots = g_new(uint64_t, cap * (1 + (uint64_t)f->words));
    for (uint64_t i = 0; i < cap; i++)
        *sf_slot(f, i) = SF_EMPTY;
    f->bytes = cap * (1 + (uint64_t)f->words) * sizeof(uint64_t);
}

void sf_init(SnoopFilter *f, uint32_t ports)
{
    memset(f, 0, sizeof *f);
    f->words = (ports + 63) / 64;
    if (f->words == 0)
        f->words = 1;
    sf_alloc(f, SF_MIN_CAP);
}

void sf_free(SnoopFilter *f)
{
    g_free(f->slots);
    f->slots = NULL;
    f->cap = f->used = 0;
}

/* The slot of block, or of the free slot where it would go. */
static uint64_t sf_find(const SnoopFilter *f, uint64_t block)
{
    uint64_t mask = f->cap - 1, i = sf_home(f, block);
    for (;;) {
        uint64_t b = *sf_slot(f, i);
        if (b == block || b == SF_EMPTY)
            return i;
        i = (i + 1) & mask;
    }
}

static void sf_grow(SnoopFilter *f)
{
    uint64_t *old = f->slots, oldcap = f->cap, stride = 1 + (uint64_t)f->words;
    sf_alloc(f, oldcap * 2);
    for (uint64_t i = 0; i < oldcap; i++) {
        const uint64_t *e = old + i * stride;
        if (*e != SF_EMPTY)
            memcpy(sf_slot(f, sf_find(f, *e)), e, stride * sizeof(uint64_t));
    }
    g_free(old);
}

uint64_t sf_add(SnoopFilter *f, uint64_t block, uint32_t port)
{
    g_assert(block != SF_EMPTY && port / 64 < f->words);
    uint64_t grown = 0;
    uint64_t *e = sf_slot(f, sf_find(f, block));
    if (*e == SF_EMPTY) {
        if (2 * (f->used + 1) > f->cap) {          /* keep the load at most 1/2 */
            uint64_t before = f->bytes;
            sf_grow(f);
            grown = f->bytes - before;
            e = sf_slot(f, sf_find(f, block));
        }
        e[0] = block;
        memset(e + 1, 0, f->words * sizeof(uint64_t));
        f->used++;
    }
    e[1 + port / 64] |= 1ull << (port % 64);
    return grown;
}

void sf_remove(SnoopFilter *f, uint64_t block, uint32_t port)
{
    uint64_t mask = f->cap - 1, i = sf_find(f, block);
    uint64_t *e = sf_slot(f, i);
    if (*e == SF_EMPTY)
        return;
    e[1 + port / 64] &= ~(1ull << (port % 64));
    for (uint32_t w = 0; w < f->words; w++)
        if (e[1 + w])
            return;
    /* no holder left: delete, shifting back the entries of the run that follows whose home
     * is not between the hole and them */
    uint64_t stride = 1 + (uint64_t)f->words;
    f->used--;
    for (uint64_t j = i;;) {
        j = (j + 1) & mask;
        uint64_t *n = sf_slot(f, j);
        if (*n == SF_EMPTY)
            break;
        uint64_t home = sf_home(f, *n);
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        memcpy(sf_slot(f, i), n, stride * sizeof(uint64_t));
        i = j;
    }
    *sf_slot(f, i) = SF_EMPTY;
}

bool sf_holders(const SnoopFilter *f, uint64_t block, uint64_t *out)
{
    const uint64_t *e = sf_slot(f, sf_find(f, block));
    if (*e == SF_EMPTY)
        return false;
    memcpy(out, e + 1, f->words * sizeof(uint64_t));
    return true;
}

bool sf_has(const SnoopFilter *f, uint64_t block, uint32_t port)
{
    const uint64_t *e = sf_slot(f, sf_find(f, block));
    return *e != SF_EMPTY && (e[1 + port / 64] >> (port % 64)) & 1;
}

uint64_t sf_home_slot(const SnoopFilter *f, uint64_t block)
{
    return sf_home(f, block);
}
