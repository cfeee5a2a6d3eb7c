/* tagstore.c: the one tag store of archsim's caches (see tagstore.h for the layout). */
#include "tagstore.h"

#include <string.h>

/* Up to this much tag store is allocated at once (one page); a larger one page by page. */
#define TAG_FLAT_BYTES (4u << 20)
#define TAG_MIN_PAGE (64u << 10)                  /* fewer, larger mallocs below this */

static inline uint64_t set_words(const TagGeom *g)
{
    uint64_t bytes = (g->state ? 3 : 2) * (uint64_t)g->assoc;
    return 2 * (uint64_t)g->assoc + (bytes + 7) / 8;
}

/* Pages: all sets in one when small; else page bytes about equal to the page table's
 * (P sets x set bytes = sets / P x 8), which minimises their sum. */
static uint32_t page_shift(const TagGeom *g)
{
    uint64_t set_bytes = set_words(g) * sizeof(uint64_t);
    uint32_t shift = (uint32_t)__builtin_ctzll(g->sets);
    if (g->lazy) {                          /* pages of about 4 KiB */
        while (shift > 0 && (set_bytes << shift) > 4096)
            shift--;
        return shift;
    }
    if (g->sets * set_bytes > TAG_FLAT_BYTES)
        while (shift > 0 && (set_bytes << shift) > (g->sets >> shift) * sizeof(uint64_t) &&
               (set_bytes << (shift - 1)) >= TAG_MIN_PAGE)
            shift--;
    return shift;
}

bool tag_geom_check(const TagGeom *g, char **problem)
{
    const ReplPolicy *p = g->repl >= 0 && g->repl < 5 ? repl_policies[g->repl] : NULL;
    char *msg = NULL;
    if (g->sets == 0 || (g->sets & (g->sets - 1)))
        msg = g_strdup_printf("%" G_GUINT64_FORMAT " sets: the set count must be a power of two "
                              ">= 1", g->sets);
    else if (g->assoc == 0)
        msg = g_strdup("a cache needs at least one way");
    else if (g->line == 0 || (g->line & (g->line - 1)))
        msg = g_strdup_printf("line %u B is not a power of two", g->line);
    else if (g->sectors == 0 || g->sectors > TAG_MAX_SECTORS || (g->sectors & (g->sectors - 1)) ||
             g->line % g->sectors)
        msg = g_strdup_printf("%u sectors per line: archsim keeps 1, 2, 4 or 8", g->sectors);
    else if (!p)
        msg = g_strdup("unknown replacement policy");
    else if (p->pow2_ways && ((g->assoc & (g->assoc - 1)) || g->assoc > 64))
        msg = g_strdup_printf("%s needs a power-of-two number of ways up to 64, not %u", p->name,
                              g->assoc);
    if (!msg)
        return true;
    if (problem)
        *problem = msg;
    else
        g_free(msg);
    return false;
}

uint64_t tag_footprint(const TagGeom *g)
{
    uint32_t shift = page_shift(g);
    uint64_t npages = g->sets >> shift;
    uint64_t page = (set_words(g) * sizeof(uint64_t)) << shift;
    return npages * sizeof(uint64_t *) + (npages == 1 && !g->lazy ? page : 0);
}

void tag_init(TagStore *ts, const TagGeom *g, Component *owner)
{
    g_assert(tag_geom_check(g, NULL));
    memset(ts, 0, sizeof *ts);
    ts->g = *g;
    ts->ways = g->assoc;
    ts->owner = owner;
    ts->line_shift = (uint32_t)__builtin_ctz(g->line);
    ts->sector_shift = ts->line_shift - (uint32_t)__builtin_ctz(g->sectors);
    ts->set_mask = g->sets - 1;
    g_assert(g->interleave >= 1);
    ts->il_pow2 = (g->interleave & (g->interleave - 1)) == 0;
    ts->il_shift = (uint32_t)__builtin_ctzll(g->interleave);
    ts->page_shift = page_shift(g);
    ts->page_mask = (1ull << ts->page_shift) - 1;
    ts->set_words = set_words(g);
    ts->page_bytes = (size_t)((ts->set_words * sizeof(uint64_t)) << ts->page_shift);
    ts->npages = g->sets >> ts->page_shift;
    ts->pages = g_new0(uint64_t *, ts->npages);
    if (ts->npages == 1 && !g->lazy)
        ts->pages[0] = g_malloc0(ts->page_bytes);
    ts->policy = repl_policies[g->repl];
}

void tag_free(TagStore *ts)
{
    for (uint64_t i = 0; ts->pages && i < ts->npages; i++)
        g_free(ts->pages[i]);
    g_free(ts->pages);
    ts->pages = NULL;
}

void tag_clear(TagStore *ts)
{
    for (uint64_t i = 0; i < ts->npages; i++)
        if (ts->pages[i])
            memset(ts->pages[i], 0, ts->page_bytes);
}

void tag_set_ways(TagStore *ts, uint32_t ways)
{
    g_assert(ways >= 1 && ways <= ts->g.assoc);
    if (ways < ts->ways)
        for (uint64_t p = 0; p < ts->npages; p++) {
            if (!ts->pages[p])
                continue;
            for (uint64_t s = 0; s <= ts->page_mask; s++) {
                TagSet set = tag_set_in_page(ts, ts->pages[p], s);
                for (uint32_t w = ways; w < ts->ways; w++)
                    tag_drop(&set, w);
            }
        }
    ts->ways = ways;
}

TagSet tag_set_touch(TagStore *ts, uint64_t block)
{
    uint64_t set = tag_set_index(ts, block);
    uint64_t **pg = &ts->pages[set >> ts->page_shift];
    if (G_UNLIKELY(!*pg)) {
        if (ts->owner)
            sim_mem_charge(ts->owner, "size", "one more page of the tag store", ts->page_bytes);
        *pg = g_malloc0(ts->page_bytes);
    }
    return tag_set_in_page(ts, *pg, set);
}

uint32_t tag_victim(TagStore *ts, TagSet *s, SimRng *rng, bool *evict)
{
    /* the first invalid way: eight valid bytes at a time (the high bit of each zero byte of x,
     * exactly, with no carry between bytes), then the rest one by one */
    uint32_t w = 0;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    for (; w + 8 <= ts->ways; w += 8) {
        uint64_t x;
        memcpy(&x, s->valid + w, sizeof x);
        uint64_t zero = ~(((x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | x) &
                        0x8080808080808080ull;
        if (zero) {
            *evict = false;
            return w + (uint32_t)__builtin_ctzll(zero) / 8;
        }
    }
#endif
    for (; w < ts->ways; w++)
        if (!s->valid[w]) {
            *evict = false;
            return w;
        }
    *evict = true;
    return ts->policy->victim(s->repl, ts->ways, NULL, rng);
}

uint32_t tag_victim_among(TagStore *ts, TagSet *s, const uint8_t *ok, SimRng *rng)
{
    return ts->policy->victim(s->repl, ts->ways, ok, rng);
}

void mshr_init(MshrTable *t, uint32_t entries)
{
    t->e = g_new(MshrEntry, entries);
    t->busy = g_new0(uint64_t, (entries + 63) / 64);
    t->live = g_new(uint32_t, entries);
    t->pos = g_new(uint32_t, entries);
    t->n = entries;
    t->used = 0;
}

void mshr_free(MshrTable *t)
{
    g_free(t->e);
    g_free(t->busy);
    g_free(t->live);
    g_free(t->pos);
    t->e = NULL;
    t->busy = NULL;
    t->live = t->pos = NULL;
    t->n = t->used = 0;
}

MshrEntry *mshr_alloc(MshrTable *t, uint64_t block, uint64_t now)
{
    if (t->used >= t->n)
        return NULL;
    uint32_t i = 0;
    for (uint32_t w = 0;; w++)
        if (~t->busy[w]) {              /* bits past n are never set, and one below n is free */
            i = w * 64 + (uint32_t)__builtin_ctzll(~t->busy[w]);
            break;
        }
    t->busy[i / 64] |= 1ull << (i % 64);
    t->e[i] = (MshrEntry){ .valid = true, .block = block, .alloc = now };
    t->pos[i] = t->used;
    t->live[t->used++] = i;
    return &t->e[i];
}

void mshr_release(MshrTable *t, MshrEntry *e)
{
    g_assert(e->valid && t->used > 0);
    uint32_t i = (uint32_t)(e - t->e), at = t->pos[i], last = t->live[--t->used];
    t->live[at] = last;                 /* the last in the list takes its place */
    t->pos[last] = at;
    t->busy[i / 64] &= ~(1ull << (i % 64));
    e->valid = false;
    e->head = e->tail = NULL;
}

bool tag_stack_init(TagStack *t, uint64_t sets, uint32_t assoc)
{
    g_assert(sets > 0 && !(sets & (sets - 1)) && assoc > 0);
    memset(t, 0, sizeof *t);
    t->tags32 = g_try_new0(uint32_t, sets * assoc);
    if (t->tags32 == NULL)
        return false;
    t->set_mask = sets - 1;
    t->assoc = assoc;
    return true;
}

void tag_stack_free(TagStack *t)
{
    g_free(t->tags32);
    g_free(t->tags);
    t->tags32 = NULL;
    t->tags = NULL;
}

/* A block number past 32 bits: the store becomes 64-bit, every tag kept. */
G_GNUC_NO_INLINE void tag_stack_widen(TagStack *t)
{
    uint64_t n = (t->set_mask + 1) * t->assoc;
    t->tags = g_new(uint64_t, n);
    for (uint64_t i = 0; i < n; i++)
        t->tags[i] = t->tags32[i];
    g_free(t->tags32);
    t->tags32 = NULL;
}
