/* oracle.c: golden memory, SWMR tracking and per-word writer records (see oracle.h). Sparse:
 * 4 KiB pages of bytes and of word records in hash tables; blocks' permission sets in a hash
 * table of 64-bit masks (at most 64 caches, the machine's limit). */
#include "oracle.h"

#include <string.h>

#define PAGE 4096u

typedef struct {
    uint8_t bytes[PAGE];
    uint64_t seq[PAGE / 4];     /* per 4-byte word: store sequence of the last write, 0 = never */
    int8_t writer[PAGE / 4];    /* per word: cache that wrote last, -1 = never */
} Page;

typedef struct {
    uint64_t readers;           /* caches with read permission (write implies read) */
    int writer;                 /* cache with write permission, -1 if none */
} Perms;

struct Oracle {
    GHashTable *pages;          /* page number -> Page* */
    GHashTable *perms;          /* block -> Perms* */
    uint32_t line;
    bool check_values;
    uint64_t last_pn;           /* one-entry page cache: accesses cluster in pages */
    Page *last_page;
    uint64_t seq, loads_checked, perm_checks;
};

static guint u64_hash(gconstpointer k) { return g_int64_hash(k); }
static gboolean u64_eq(gconstpointer a, gconstpointer b) { return g_int64_equal(a, b); }

Oracle *oracle_new(uint32_t line_size, bool check_values)
{
    Oracle *o = g_new0(Oracle, 1);
    o->pages = g_hash_table_new_full(u64_hash, u64_eq, g_free, g_free);
    o->perms = g_hash_table_new_full(u64_hash, u64_eq, g_free, g_free);
    o->line = line_size;
    o->check_values = check_values;
    return o;
}

void oracle_free(Oracle *o)
{
    if (!o)
        return;
    g_hash_table_destroy(o->pages);
    g_hash_table_destroy(o->perms);
    g_free(o);
}

static Page *page_get(Oracle *o, uint64_t addr, bool create)
{
    uint64_t pn = addr / PAGE;
    if (o->last_page && o->last_pn == pn)
        return o->last_page;
    Page *p = g_hash_table_lookup(o->pages, &pn);
    if (p) {
        o->last_pn = pn;
        o->last_page = p;
    }
    if (!p && create) {
        p = g_new0(Page, 1);
        memset(p->writer, -1, sizeof p->writer);
        uint64_t *k = g_new(uint64_t, 1);
        *k = pn;
        g_hash_table_insert(o->pages, k, p);
        o->last_pn = pn;
        o->last_page = p;
    }
    return p;
}

static uint8_t byte_at(const Oracle *o, uint64_t a)
{
    uint64_t pn = a / PAGE;
    const Page *p = o->last_page && o->last_pn == pn ? o->last_page
                                                    : g_hash_table_lookup(o->pages, &pn);
    return p ? p->bytes[a % PAGE] : 0;
}

void oracle_store(Oracle *o, int who, uint64_t addr, uint32_t size, uint64_t value)
{
    g_assert(size >= 1 && size <= 8);
    uint64_t seq = ++o->seq;
    for (uint32_t i = 0; i < size; i++) {
        uint64_t a = addr + i;
        Page *p = page_get(o, a, true);
        p->bytes[a % PAGE] = (uint8_t)(value >> (8 * i));
        p->seq[(a % PAGE) / 4] = seq;
        p->writer[(a % PAGE) / 4] = (int8_t)who;
    }
}

uint64_t oracle_value(const Oracle *o, uint64_t addr, uint32_t size)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < size && i < 8; i++)
        v |= (uint64_t)byte_at(o, addr + i) << (8 * i);
    return v;
}

bool oracle_check_load(Oracle *o, int who, uint64_t addr, uint32_t size, uint64_t value,
                       char **msg)
{
    o->loads_checked++;
    if (!o->check_values)
        return true;
    uint64_t want = oracle_value(o, addr, size);
    if (size < 8) {
        uint64_t mask = (1ull << (8 * size)) - 1;
        value &= mask;
    }
    if (value == want)
        return true;
    uint64_t pn = addr / PAGE;
    const Page *p = g_hash_table_lookup(o->pages, &pn);
    int w = p ? p->writer[(addr % PAGE) / 4] : -1;
    *msg = g_strdup_printf("data-value violation: cache %d loaded 0x%" G_GINT64_MODIFIER
                           "x from 0x%" G_GINT64_MODIFIER "x (%u bytes), the newest value is 0x%"
                           G_GINT64_MODIFIER "x (last written by cache %d)",
                           who, value, addr, size, want, w);
    return false;
}

bool oracle_perm(Oracle *o, int who, uint64_t block, int perm, char **msg)
{
    g_assert(who >= 0 && who < 64);
    o->perm_checks++;
    Perms *p = g_hash_table_lookup(o->perms, &block);
    if (!p) {
        if (perm == 0)
            return true;
        p = g_new0(Perms, 1);
        p->writer = -1;
        uint64_t *k = g_new(uint64_t, 1);
        *k = block;
        g_hash_table_insert(o->perms, k, p);
    }
    uint64_t bit = 1ull << who;
    p->readers &= ~bit;
    if (p->writer == who)
        p->writer = -1;
    if (perm >= 1)
        p->readers |= bit;
    if (perm == 2)
        p->writer = who;
    /* SWMR: a writer excludes every other reader (and so every other writer) */
    if (p->writer >= 0 && (p->readers & ~(1ull << p->writer)) != 0) {
        int other = __builtin_ctzll(p->readers & ~(1ull << p->writer));
        *msg = g_strdup_printf("SWMR violation on block 0x%" G_GINT64_MODIFIER
                               "x: cache %d may write while cache %d may read",
                               block * o->line, p->writer, other);
        return false;
    }
    return true;
}

uint64_t oracle_seq(const Oracle *o) { return o->seq; }

bool oracle_written_by_other_since(const Oracle *o, int who, uint64_t addr, uint32_t size,
                                   uint64_t since)
{
    for (uint64_t a = addr & ~3ull; a < addr + size; a += 4) {
        uint64_t pn = a / PAGE;
        const Page *p = g_hash_table_lookup(o->pages, &pn);
        if (!p)
            continue;
        uint32_t w = (uint32_t)((a % PAGE) / 4);
        if (p->seq[w] > since && p->writer[w] != who)
            return true;
    }
    return false;
}

uint64_t oracle_loads_checked(const Oracle *o) { return o->loads_checked; }
uint64_t oracle_perm_checks(const Oracle *o) { return o->perm_checks; }
