/* tagstore.h: the one set-associative tag store of archsim's caches: sets x ways of block tags,
 * optional sectors per line (a valid and a dirty bit per sector, as NVIDIA's 32-byte sectors of
 * 128-byte lines), a per-line state byte for protocols (coherence states, HTM read/write bits),
 * a pluggable replacement policy (models/cache/repl/), and an MSHR table that merges misses to
 * the same block (Kroft, ISCA 1981). The cache models (cache.c; the GPU's L1D and L2 slices in
 * models/gpu/) keep their own timing and protocol; this keeps what every cache shares.
 *
 * Storage is allocated by page of sets on first fill, so that a cache's memory follows what it
 * holds, not its capacity (a 1 TiB LLC that sees 1 MB of lines holds a few MB). A page holds P
 * sets, each one run of words (a set's lookup touches 2-3 host cache lines):
 *
 *     tags[A] | repl[A] | valid[A] dirty[A] (state[A]) (bytes, padded to a word)
 *
 * A tag word holds block + 1, so that a zeroed page is all invalid ways and a lookup is one
 * compare per way. valid[w] and dirty[w] are sector masks (bit s: sector s; an unsectored line
 * is sector 0 alone). A store of at most TAG_FLAT_BYTES is one page, allocated at init.
 *
 * A functional cache that needs only hit or miss under exact LRU (cachegrind mode, cgsim.c) uses
 * the store's second layout, the LRU stack (TagStack below): a set is its block numbers most
 * recently used first, which is LRU itself (a hit moves to the front, a miss drops the last),
 * with no per-way state to keep; one pass finds and reorders.
 */
#ifndef ARCHSIM_TAGSTORE_H
#define ARCHSIM_TAGSTORE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../../sim/component.h"
#include "repl/repl.h"

#define TAG_MAX_SECTORS 8

typedef struct {
    uint64_t sets;          /* a power of two */
    uint32_t assoc;         /* ways allocated per set */
    uint32_t line;          /* bytes, a power of two */
    uint32_t sectors;       /* per line: 1 (unsectored) .. TAG_MAX_SECTORS, a power of two */
    uint64_t interleave;    /* one of N banks interleaved by line: sets indexed by block / N */
    int repl;               /* index into repl_policies */
    bool state;             /* keep a state byte per line */
    bool lazy;              /* allocate even a small store page by page as sets are touched
                               (many slices or SMs of which a run may use few) */
} TagGeom;

typedef struct {
    TagGeom g;
    uint32_t ways;          /* ways in use (<= assoc; victims and fills among these) */
    uint32_t line_shift, sector_shift;
    uint64_t set_mask;
    uint32_t il_shift;      /* log2 interleave when it is a power of two (il_pow2) */
    bool il_pow2;
    uint64_t **pages;
    uint64_t npages, set_words;
    uint64_t page_mask;
    uint32_t page_shift;
    size_t page_bytes;
    uint64_t clock;         /* access counter: the replacement stamps */
    const ReplPolicy *policy;
    Component *owner;       /* pages after the first are charged to its sim.memory_limit */
} TagStore;

/* One set's ways inside its page. */
typedef struct {
    uint64_t *tags, *repl;
    uint8_t *valid, *dirty, *state;
} TagSet;

/* Checks g (sets a power of two, sectors divide the line, the policy's way rule); on failure
 * sets *problem (g_free it) and returns false. */
bool tag_geom_check(const TagGeom *g, char **problem);
/* Bytes a way takes in a store of g (tag, replacement word, valid and dirty masks, state),
 * padding aside: what a cache's memory estimate counts per line. */
static inline uint64_t tag_way_bytes(const TagGeom *g)
{
    return 2 * sizeof(uint64_t) + (g->state ? 3 : 2);
}
/* The bytes tag_init allocates at once (the page table and a one-page store's page). */
uint64_t tag_footprint(const TagGeom *g);
/* g must pass tag_geom_check. owner may be NULL (no memory charge). */
void tag_init(TagStore *ts, const TagGeom *g, Component *owner);
void tag_free(TagStore *ts);
/* Invalidates every line (pages stay allocated). */
void tag_clear(TagStore *ts);
/* Lines in use per set from now on (1..assoc); lines in ways beyond are dropped. */
void tag_set_ways(TagStore *ts, uint32_t ways);

static inline uint64_t tag_set_index(const TagStore *ts, uint64_t block)
{
    /* a shift for 1, 2, 4... banks; written as a branch the compiler keeps, since block / 1
     * == block let it fold `interleave == 1 ? block : block / interleave` into a division on
     * every lookup */
    if (G_LIKELY(ts->il_pow2))
        return (block >> ts->il_shift) & ts->set_mask;
    return (block / ts->g.interleave) & ts->set_mask;
}

static inline TagSet tag_set_in_page(const TagStore *ts, uint64_t *pg, uint64_t set)
{
    uint32_t a = ts->g.assoc;
    uint64_t *t = pg + (set & ts->page_mask) * ts->set_words;
    uint8_t *v = (uint8_t *)(t + 2 * a);
    return (TagSet){ t, t + a, v, v + a, ts->g.state ? v + 2 * a : NULL };
}

/* The way of *s holding block, or -1 (s is left unset when the set's page was never touched);
 * *set_out (may be NULL) gets the set's index. */
static inline int tag_find_in(const TagStore *ts, uint64_t block, TagSet *s, uint64_t *set_out)
{
    uint64_t set = tag_set_index(ts, block);
    if (set_out)
        *set_out = set;
    uint64_t *pg = ts->pages[set >> ts->page_shift];
    if (G_UNLIKELY(!pg))
        return -1;
    uint64_t *t = pg + (set & ts->page_mask) * ts->set_words, want = block + 1;
    uint32_t w = 0;
    while (w < ts->ways && t[w] != want)
        w++;
    if (w == ts->ways)
        return -1;
    *s = tag_set_in_page(ts, pg, set);
    return (int)w;
}
static inline int tag_find(const TagStore *ts, uint64_t block, TagSet *s)
{
    return tag_find_in(ts, block, s, NULL);
}

/* Set number set of a store whose page of it is allocated (a set found or touched before). */
static inline TagSet tag_set_at(const TagStore *ts, uint64_t set)
{
    return tag_set_in_page(ts, ts->pages[set >> ts->page_shift], set);
}

/* The set of block, allocating its page on first touch. */
TagSet tag_set_touch(TagStore *ts, uint64_t block);

/* A use of way w (the policy's bookkeeping; LRU without the indirect call). */
static inline void tag_touch(TagStore *ts, TagSet *s, uint32_t w)
{
    if (G_LIKELY(ts->policy == &repl_lru))
        s->repl[w] = ++ts->clock;
    else
        ts->policy->touch(s->repl, w, ts->ways, ++ts->clock);
}

/* Controllers that keep a frame per line laid out as set x assoc + way (the coherence L1s):
 * the set of block, which frame `index` holds, and that frame's way in it. */
static inline uint32_t tag_frame_way(TagStore *ts, uint64_t block, size_t index, TagSet *s)
{
    uint64_t set = tag_set_index(ts, block);
    *s = ts->npages == 1 ? tag_set_at(ts, set) : tag_set_touch(ts, block);
    return (uint32_t)(index - set * ts->g.assoc);
}

/* The way a fill of *s goes to: the first invalid way, else the policy's victim (*evict true:
 * the caller writes back or drops the line there before tag_fill). */
uint32_t tag_victim(TagStore *ts, TagSet *s, SimRng *rng, bool *evict);
/* The policy's victim among the ways with ok[w] != 0 (valid lines a controller may replace
 * now), or ways when there is none. */
uint32_t tag_victim_among(TagStore *ts, TagSet *s, const uint8_t *ok, SimRng *rng);
/* Puts block into way w of *s with these sector masks (state byte 0) and tells the policy. */
static inline void tag_fill(TagStore *ts, TagSet *s, uint32_t w, uint64_t block, uint8_t valid,
                            uint8_t dirty)
{
    s->tags[w] = block + 1;
    s->valid[w] = valid;
    s->dirty[w] = dirty;
    if (s->state)
        s->state[w] = 0;
    if (G_LIKELY(ts->policy == &repl_lru))
        s->repl[w] = ++ts->clock;
    else
        ts->policy->insert(s->repl, w, ts->ways, ++ts->clock);
}
static inline uint64_t tag_block(const TagSet *s, uint32_t w) { return s->tags[w] - 1; }
static inline void tag_drop(TagSet *s, uint32_t w)
{
    s->tags[w] = 0;
    s->valid[w] = s->dirty[w] = 0;
    if (s->state)
        s->state[w] = 0;
}

/* Sector mask of the bytes [addr, addr + size) within their line (size >= 1, one line). */
static inline uint8_t tag_sector_mask(const TagStore *ts, uint64_t addr, uint32_t size)
{
    uint32_t off = (uint32_t)(addr & ((1u << ts->line_shift) - 1));
    uint32_t first = off >> ts->sector_shift, last = (off + size - 1) >> ts->sector_shift;
    return (uint8_t)(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
}

/* ---- MSHRs: outstanding misses by block, each with its waiting targets ---- */

typedef struct {
    bool valid;
    bool flag;              /* the owner's (cache.c: fill the line dirty) */
    uint8_t sectors;        /* sectors requested from below */
    uint64_t block;
    void *head, *tail;      /* the owner's targets (a list it links itself) */
    uint32_t ntargets;
    uint64_t alloc;         /* when allocated (the owner's time unit) */
    uint64_t aux;
    uint32_t first, last;   /* the owner's targets as a list of indices (the GPU's L1) */
} MshrEntry;

typedef struct {
    MshrEntry *e;           /* written when allocated: an entry never used is never touched */
    uint64_t *busy;         /* bit i: entry i is valid */
    uint32_t *live;         /* the indices of the valid entries, in no order (the search list) */
    uint32_t *pos;          /* entry i's place in live */
    uint32_t n, used;
} MshrTable;

void mshr_init(MshrTable *t, uint32_t entries);
void mshr_free(MshrTable *t);
/* The entry of block, or NULL: a search of the entries in use only. */
static inline MshrEntry *mshr_find(MshrTable *t, uint64_t block)
{
    for (uint32_t i = 0; i < t->used; i++) {
        MshrEntry *e = &t->e[t->live[i]];
        if (e->block == block)
            return e;
    }
    return NULL;
}
static inline bool mshr_valid(const MshrTable *t, uint32_t i)
{
    return t->busy[i / 64] >> (i % 64) & 1;
}
/* The lowest free entry, zeroed and marked valid for block; NULL when all are taken. */
MshrEntry *mshr_alloc(MshrTable *t, uint64_t block, uint64_t now);
static inline uint32_t mshr_index(const MshrTable *t, const MshrEntry *e)
{
    return (uint32_t)(e - t->e);
}
void mshr_release(MshrTable *t, MshrEntry *e);

/* ---- the LRU-stack layout ----
 *
 *   tags: | set 0: MRU ... LRU | set 1: MRU ... LRU | ... |     (sets * assoc block numbers)
 *
 * A tag is the whole block number (not just the bits above the index), and the store starts
 * zeroed: block 0 is then in every way of set 0, as in valgrind's cachegrind (cg_sim.c), whose
 * counts this layout reproduces. While every block number seen fits in 32 bits the tags are
 * 32-bit (a 16-way set is one host cache line); the first larger block widens the whole store to
 * 64 bits, value for value, so the answer is the same either way. */
typedef struct {
    uint32_t *tags32;       /* while narrow */
    uint64_t *tags;         /* once wide (NULL before) */
    uint64_t set_mask;      /* sets - 1 */
    uint32_t assoc;
} TagStack;

/* false when the memory cannot be had (sets a power of two, assoc >= 1) */
bool tag_stack_init(TagStack *t, uint64_t sets, uint32_t assoc);
void tag_stack_free(TagStack *t);
void tag_stack_widen(TagStack *t);

/* Looks block up in its set and makes it the most recent; true on a miss (the least recent is
 * dropped). One pass: each slot is shifted down while searching, so a hit at depth i costs i
 * moves and a miss assoc - 1, with no second loop. */
#define TAG_STACK_IS_MISS(T, set, assoc, block)                                               \
    do {                                                                                      \
        T prev_ = (set)[0];                                                                   \
        if (prev_ == (block))                                                                 \
            return false;   /* the common case: same line as the last access to this set */ \
        for (uint32_t i_ = 1; i_ < (assoc); i_++) {                                           \
            T cur_ = (set)[i_];                                                               \
            (set)[i_] = prev_;                                                                \
            if (cur_ == (block)) {                                                            \
                (set)[0] = (block);                                                           \
                return false;                                                                 \
            }                                                                                 \
            prev_ = cur_;                                                                     \
        }                                                                                     \
        (set)[0] = (block);                                                                   \
        return true;                                                                          \
    } while (0)

#if defined(__SSE2__)
/* The same for a narrow set of 4 x N ways (8 and 16: the common L1 and LL shapes) without a
 * branch that depends on where the block is (SSE2, in every x86-64): the ways compared four at
 * a time into a match mask whose lowest bit is the way the loop above stops at (no match: the
 * last way), then every way rewritten at once as "the one before it, up to that way; itself
 * after it", and the block put first. The one data-dependent branch left is the MRU test, so a
 * stream of hits at varying depths and misses no longer mispredicts at every access
 * (issue 18). Same tags in the same order as TAG_STACK_IS_MISS. */
static inline __attribute__((always_inline)) bool tag_stack_miss4n(uint32_t *set, uint32_t block,
                                                                   uint32_t n)
{
    if (set[0] == block)
        return false;
    __m128i key = _mm_set1_epi32((int)block), v[4], eq;
    uint32_t m = 0;
#pragma GCC unroll 4
    for (uint32_t j = 0; j < n; j++) {
        v[j] = _mm_loadu_si128((const __m128i *)(const void *)(set + 4 * j));
        eq = _mm_cmpeq_epi32(v[j], key);
        m |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(eq)) << (4 * j);
    }
    uint32_t pos = (uint32_t)__builtin_ctz(m | 1u << (4 * n - 1));
    __m128i lim = _mm_set1_epi32((int)pos + 1);
#pragma GCC unroll 4
    for (uint32_t j = 0; j < n; j++) {
        /* lanes 4j..4j+3 shifted up by one: the previous way of each */
        __m128i sh = _mm_slli_si128(v[j], 4);
        if (j > 0)
            sh = _mm_or_si128(sh, _mm_srli_si128(v[j - 1], 12));
        __m128i idx = _mm_setr_epi32((int)(4 * j), (int)(4 * j + 1), (int)(4 * j + 2),
                                     (int)(4 * j + 3));
        __m128i take = _mm_cmpgt_epi32(lim, idx);                    /* idx <= pos */
        __m128i w = _mm_or_si128(_mm_and_si128(take, sh), _mm_andnot_si128(take, v[j]));
        if (j == 0)
            w = _mm_or_si128(w, _mm_cvtsi32_si128((int)block));      /* lane 0 was 0 */
        _mm_storeu_si128((__m128i *)(void *)(set + 4 * j), w);
    }
    return m == 0;
}
#endif

/* tag_stack_miss with the associativity `A` known where it is inlined (A == t->assoc), or 0 for
 * t->assoc: a caller that specializes its loop for a common shape (cgsim's 8-way L1s and 16-way
 * LL) then indexes sets by shifts and picks the vector path at compile time. */
static inline __attribute__((always_inline)) bool tag_stack_miss_a(TagStack *t, uint64_t block,
                                                                   uint32_t A)
{
    uint32_t assoc = A ? A : t->assoc;
    if (G_LIKELY(t->tags32 != NULL)) {
        if (G_LIKELY(block <= UINT32_MAX)) {
            uint32_t b32 = (uint32_t)block;
            uint32_t *set = t->tags32 + (block & t->set_mask) * assoc;
#if defined(__SSE2__)
            if (assoc == 8)
                return tag_stack_miss4n(set, b32, 2);
            if (assoc == 16)
                return tag_stack_miss4n(set, b32, 4);
#endif
            TAG_STACK_IS_MISS(uint32_t, set, assoc, b32);
        }
        tag_stack_widen(t);
    }
    uint64_t *set = t->tags + (block & t->set_mask) * assoc;
    TAG_STACK_IS_MISS(uint64_t, set, assoc, block);
}

static inline __attribute__((always_inline)) bool tag_stack_miss(TagStack *t, uint64_t block)
{
    return tag_stack_miss_a(t, block, 0);
}

#endif
