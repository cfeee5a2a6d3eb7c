/* cache.c: a timing, set-associative, write-back + write-allocate cache with MSHRs and a
 * pluggable replacement policy (models/cache/repl/). Non-blocking in the sense of Kroft (ISCA
 * 1981): a miss allocates an MSHR, later misses to the same block merge into it as targets, and
 * requests wait in arrival order only when all MSHRs (or a block's targets) are taken.
 *
 *   cpu_side[0..n) --req--> [tag lookup: hit_latency] --hit--> response after hit_latency
 *                                   |miss
 *                                   v
 *                      MSHR (block, targets...) --line read--> mem_side
 *                                   ^                              |
 *                                   +---- fill: victim (write back if dirty), respond to
 *                                         every target after response_latency
 *
 * Writebacks from above are absorbed (hit: mark dirty; miss: allocate the whole line dirty, no
 * fetch needed). No coherence here: the multicore issues add protocol controllers.
 *
 * The tag store is allocated by page of sets on first fill, so that a cache's memory follows
 * what it holds, not its capacity (a 1 TiB LLC that sees 1 MB of lines holds a few MB). A page
 * holds P sets, each one run of words (a set's lookup touches 2-3 host cache lines):
 *     tags[A] | repl[A] | valid[A] dirty[A] (bytes, padded to a word)
 * A cache of at most CACHE_FLAT_BYTES of tag store is one page, allocated at realize.
 * A tag word holds block + 1, so that the zeroed page is all invalid ways and a lookup is one
 * compare per way (valid[] says the same, for the fill order).
 */
#include <string.h>

#include "../../sim/component.h"
#include "../mem/linkcheck.h"
#include "../../sim/registry.h"
#include "../mem/memmsg.h"
#include "../../sim/error.h"
#include "cache.h"
#include "repl/repl.h"

typedef struct {
    uint64_t size, assoc, line;
    uint64_t hit_latency, response_latency;
    uint64_t mshrs, targets;
    uint64_t interleave;
    int repl;
} CacheParams;

typedef struct {
    bool valid;
    bool dirty_on_fill;    /* a write target or an absorbed writeback: fill the line dirty */
    uint64_t block;
    Msg *head, *tail;      /* targets, linked through Msg.next_free */
    uint32_t ntargets;
    Tick alloc;
} Mshr;

typedef struct {
    Component base;
    CacheParams p;
    /* geometry */
    uint64_t sets;
    uint32_t assoc, line_shift;
    uint64_t set_mask;
    /* tag store: pages of 1 << page_shift sets (block number, policy state, flags per way) */
    uint64_t **pages;
    uint64_t npages, set_words;     /* words per set */
    uint64_t page_mask;             /* set -> set within its page */
    uint32_t page_shift;
    size_t page_bytes;
    uint64_t access_clock;
    const ReplPolicy *policy;
    Mshr *mshr;
    uint32_t mshr_used;
    Msg *wait_head, *wait_tail;   /* requests blocked on MSHRs, in arrival order */
    uint32_t waiting;
    Port *mem;
    /* stats */
    uint64_t reads, writes, read_hits, write_hits, read_misses, write_misses;
    uint64_t mshr_merges, blocked, writebacks, wb_received, fills, evictions;
    SimHist miss_latency;
} Cache;

static const char *const repl_choices[] = { "lru", "fifo", "random", NULL };

static const ParamSpec cache_params[] = {
    { .name = "size", .type = PARAM_SIZE, .def = "32KiB", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 64, .max = 1ull << 40, .doc = "capacity", .offset = offsetof(CacheParams, size) },
    { .name = "assoc", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "ways per set", .offset = offsetof(CacheParams, assoc) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "line (block) size", .offset = offsetof(CacheParams, line) },
    { .name = "hit_latency", .type = PARAM_CYCLES, .def = "2", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e6, .doc = "tag + data lookup: a hit is answered this many cycles after arrival",
      .offset = offsetof(CacheParams, hit_latency) },
    { .name = "response_latency", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE,
      .min = 0, .max = 1e6, .doc = "from a fill arriving to the response leaving",
      .offset = offsetof(CacheParams, response_latency) },
    { .name = "mshrs", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "miss status holding registers (outstanding missed blocks)",
      .offset = offsetof(CacheParams, mshrs) },
    { .name = "targets", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "requests that can wait on one MSHR",
      .offset = offsetof(CacheParams, targets) },
    { .name = "interleave", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "this cache is one of N banks interleaved by line (set by multi-bank "
      "systems): sets are indexed by line / N, so every set of the bank is used",
      .offset = offsetof(CacheParams, interleave) },
    { .name = "repl", .type = PARAM_ENUM, .def = "lru", .choices = repl_choices,
      .doc = "replacement policy", .offset = offsetof(CacheParams, repl) },
    PARAM_END,
};

/* Up to this much tag store is allocated at once (one page); a larger one page by page. */
#define CACHE_FLAT_BYTES (4u << 20)
#define CACHE_MIN_PAGE (64u << 10)                  /* fewer, larger mallocs below this */

/* Words of one set: tag and policy state per way, then the valid and dirty bytes. */
static inline uint64_t cache_set_words(uint64_t assoc) { return 2 * assoc + (2 * assoc + 7) / 8; }

/* One set's ways inside its page. */
typedef struct {
    uint64_t *tags, *repl;
    uint8_t *valid, *dirty;
} CacheSet;

static const PortSpec cache_ports[] = {
    { .name = "cpu_side", .role = PORT_RESPONDER, .required = true, .vector = true,
      .doc = "requests from above (cores or upper caches)" },
    { .name = "mem_side", .role = PORT_REQUESTER, .required = true, .doc = "to the next level" },
    PORT_END,
};

#define C(x) ((const Cache *)(x))
static double f_miss_rate(const Component *c)
{
    return stats_ratio((double)(C(c)->read_misses + C(c)->write_misses),
                       (double)(C(c)->reads + C(c)->writes));
}
static double f_read_miss_rate(const Component *c)
{
    return stats_ratio((double)C(c)->read_misses, (double)C(c)->reads);
}
static double f_write_miss_rate(const Component *c)
{
    return stats_ratio((double)C(c)->write_misses, (double)C(c)->writes);
}
static double f_accesses(const Component *c) { return (double)(C(c)->reads + C(c)->writes); }
static double f_hits(const Component *c) { return (double)(C(c)->read_hits + C(c)->write_hits); }
static double f_misses(const Component *c)
{
    return (double)(C(c)->read_misses + C(c)->write_misses);
}
static double f_avg_miss_latency(const Component *c)
{
    return stats_ratio((double)C(c)->miss_latency.sum, (double)C(c)->miss_latency.samples);
}

static const StatSpec cache_stats[] = {
    { "accesses", STAT_FORMULA_U64, "count", "reads + writes", 0, f_accesses },
    { "hits", STAT_FORMULA_U64, "count", "read_hits + write_hits", 0, f_hits },
    { "misses", STAT_FORMULA_U64, "count", "read_misses + write_misses (MSHR merges included)", 0,
      f_misses },
    { "miss_rate", STAT_FORMULA, "ratio", "misses / accesses", 0, f_miss_rate },
    { "reads", STAT_COUNTER, "count", "read requests (loads and fetches)", offsetof(Cache, reads),
      NULL },
    { "writes", STAT_COUNTER, "count", "write requests (stores)", offsetof(Cache, writes), NULL },
    { "read_hits", STAT_COUNTER, "count", "reads that hit", offsetof(Cache, read_hits), NULL },
    { "write_hits", STAT_COUNTER, "count", "writes that hit", offsetof(Cache, write_hits), NULL },
    { "read_misses", STAT_COUNTER, "count", "reads that missed", offsetof(Cache, read_misses),
      NULL },
    { "write_misses", STAT_COUNTER, "count", "writes that missed", offsetof(Cache, write_misses),
      NULL },
    { "read_miss_rate", STAT_FORMULA, "ratio", "read_misses / reads", 0, f_read_miss_rate },
    { "write_miss_rate", STAT_FORMULA, "ratio", "write_misses / writes", 0, f_write_miss_rate },
    { "mshr_merges", STAT_COUNTER, "count", "misses merged into an outstanding MSHR",
      offsetof(Cache, mshr_merges), NULL },
    { "blocked", STAT_COUNTER, "count", "requests that waited for a free MSHR or target slot",
      offsetof(Cache, blocked), NULL },
    { "fills", STAT_COUNTER, "count", "lines filled from below", offsetof(Cache, fills), NULL },
    { "evictions", STAT_COUNTER, "count", "valid lines replaced", offsetof(Cache, evictions),
      NULL },
    { "writebacks", STAT_COUNTER, "count", "dirty lines written to the next level",
      offsetof(Cache, writebacks), NULL },
    { "writebacks_received", STAT_COUNTER, "count", "dirty lines absorbed from above",
      offsetof(Cache, wb_received), NULL },
    { "avg_miss_latency", STAT_FORMULA, "cycle", "sum of MSHR lifetimes / MSHRs allocated", 0,
      f_avg_miss_latency },
    { "miss_latency", STAT_HIST, "cycle", "MSHR allocation to fill", offsetof(Cache, miss_latency),
      NULL },
    STAT_END,
};

/* Pages: all sets in one when small; else page bytes about equal to the page table's
 * (P sets x set bytes = sets / P x 8), which minimises their sum. */
static uint32_t cache_page_shift(uint64_t sets, uint64_t assoc)
{
    uint64_t set_bytes = cache_set_words(assoc) * sizeof(uint64_t);
    uint32_t shift = (uint32_t)__builtin_ctzll(sets);
    if (sets * set_bytes > CACHE_FLAT_BYTES)
        while (shift > 0 && (set_bytes << shift) > (sets >> shift) * sizeof(uint64_t) &&
               (set_bytes << (shift - 1)) >= CACHE_MIN_PAGE)
            shift--;
    return shift;
}

/* What realize allocates: the page table (and the one page of a small cache), the MSHRs. */
static uint64_t cache_footprint(const Component *c, const char **key)
{
    const CacheParams *p = &((const Cache *)c)->p;
    uint64_t lines = p->size / p->line, sets = lines / p->assoc;
    *key = "size";
    if (lines < p->assoc || lines % p->assoc || (sets & (sets - 1)))
        return 0;                               /* realize refuses the geometry */
    uint32_t shift = cache_page_shift(sets, p->assoc);
    uint64_t npages = sets >> shift;
    uint64_t page = (cache_set_words(p->assoc) * sizeof(uint64_t)) << shift;
    return npages * sizeof(uint64_t *) + (npages == 1 ? page : 0) + p->mshrs * sizeof(Mshr);
}

static bool cache_realize(Component *c, GError **error)
{
    Cache *k = (Cache *)c;
    CacheParams *p = &k->p;
    uint64_t lines = p->size / p->line;
    if (lines < p->assoc || lines % p->assoc != 0 || ((lines / p->assoc) & (lines / p->assoc - 1))) {
        return sim_component_reject(c, sim_component_first_set(c, "assoc", "size", "line", NULL),
                                    error, "size %" G_GUINT64_FORMAT " B / (assoc %"
                                    G_GUINT64_FORMAT " x line %" G_GUINT64_FORMAT " B) must give a "
                                    "power-of-two number of sets >= 1", p->size, p->assoc,
                                    p->line);
    }
    k->sets = lines / p->assoc;
    k->assoc = (uint32_t)p->assoc;
    k->line_shift = (uint32_t)__builtin_ctzll(p->line);
    k->set_mask = k->sets - 1;
    k->page_shift = cache_page_shift(k->sets, p->assoc);
    k->page_mask = (1ull << k->page_shift) - 1;
    k->set_words = cache_set_words(p->assoc);
    k->page_bytes = (size_t)((k->set_words * sizeof(uint64_t)) << k->page_shift);
    k->npages = k->sets >> k->page_shift;
    k->pages = g_new0(uint64_t *, k->npages);
    if (k->npages == 1)
        k->pages[0] = g_malloc0(k->page_bytes);
    k->policy = repl_policies[p->repl];
    k->mshr = g_new0(Mshr, p->mshrs);
    k->mem = sim_port(c, "mem_side", 0);
    if (!k->mem) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "mem_side is not connected");
        return false;
    }
    return true;
}

static void cache_finalize(Component *c)
{
    Cache *k = (Cache *)c;
    for (uint64_t i = 0; k->pages && i < k->npages; i++)
        g_free(k->pages[i]);
    g_free(k->pages);
    g_free(k->mshr);
}

/* The set of a block: a bank of an N-way interleaved cache sees only every N-th line. */
static inline uint64_t set_index(const Cache *k, uint64_t block)
{
    return (k->p.interleave == 1 ? block : block / k->p.interleave) & k->set_mask;
}

static inline CacheSet set_in_page(const Cache *k, uint64_t *pg, uint64_t set)
{
    uint64_t *t = pg + (set & k->page_mask) * k->set_words;
    uint8_t *v = (uint8_t *)(t + 2 * k->assoc);
    return (CacheSet){ t, t + k->assoc, v, v + k->assoc };
}

/* The set of block, allocating its page on first touch (charged to sim.memory_limit). */
static CacheSet set_touch(Cache *k, uint64_t block)
{
    uint64_t set = set_index(k, block);
    uint64_t **pg = &k->pages[set >> k->page_shift];
    if (G_UNLIKELY(!*pg)) {
        sim_mem_charge(&k->base, "size", "one more page of the tag store", k->page_bytes);
        *pg = g_malloc0(k->page_bytes);
    }
    return set_in_page(k, *pg, set);
}

/* Returns the way of *s holding block, or -1 (s->tags NULL: its page was never touched). */
static inline int tag_find(const Cache *k, uint64_t block, CacheSet *s)
{
    uint64_t set = set_index(k, block);
    uint64_t *pg = k->pages[set >> k->page_shift];
    if (G_UNLIKELY(!pg))
        return -1;
    *s = set_in_page(k, pg, set);
    uint64_t t = block + 1;                  /* the tag word of block (0: an invalid way) */
    for (uint32_t w = 0; w < k->assoc; w++)
        if (s->tags[w] == t)
            return (int)w;
    return -1;
}

/* The replacement policy's bookkeeping; LRU (the default) without the indirect call. */
static inline void repl_touch(Cache *k, CacheSet *s, uint32_t w)
{
    if (G_LIKELY(k->policy == &repl_lru))
        s->repl[w] = ++k->access_clock;
    else
        k->policy->touch(s->repl, w, ++k->access_clock);
}

static void send_writeback(Cache *k, uint64_t block)
{
    Msg *wb = sim_msg_alloc(k->base.sim);
    wb->cmd = MSG_WRITEBACK;
    mem_msg(wb)->addr = block << k->line_shift;
    wb->size = (uint32_t)k->p.line;
    wb->issued = k->base.eng->now;
    k->writebacks++;
    SIM_TRACE(&k->base, "writeback", 0, TARG_X("addr", mem_msg(wb)->addr));
    sim_port_send(&k->base, k->mem, wb, 0);
}

/* Puts block into its set (choosing and evicting a victim if needed). */
static void tag_insert(Cache *k, uint64_t block, bool dirty)
{
    CacheSet s = set_touch(k, block);
    uint32_t w;
    for (w = 0; w < k->assoc; w++)
        if (!s.valid[w])
            break;
    if (w == k->assoc) {
        w = k->policy->victim(s.repl, k->assoc, &k->base.rng);
        k->evictions++;
        if (s.dirty[w])
            send_writeback(k, s.tags[w] - 1);
    }
    s.tags[w] = block + 1;
    s.valid[w] = 1;
    s.dirty[w] = dirty;
    k->policy->insert(s.repl, w, ++k->access_clock);
}

static inline void respond(Cache *k, Msg *m, uint64_t delay)
{
    Port *back = m->dst;   /* the cpu_side port it arrived on */
    m->cmd = m->cmd == MSG_READ_REQ ? MSG_READ_RESP : MSG_WRITE_RESP;
    sim_port_send(&k->base, back, m, delay);
}

static Mshr *mshr_find(Cache *k, uint64_t block)
{
    for (uint32_t i = 0; i < k->p.mshrs; i++)
        if (k->mshr[i].valid && k->mshr[i].block == block)
            return &k->mshr[i];
    return NULL;
}

/* Handles one request; returns false if it must wait (no MSHR / target slot). */
static bool cache_access(Cache *k, Msg *m)
{
    uint64_t block = mem_msg(m)->addr >> k->line_shift;
    bool write = m->cmd == MSG_WRITE_REQ;
    CacheSet s;
    int w = tag_find(k, block, &s);
    if (w >= 0) {
        repl_touch(k, &s, (uint32_t)w);
        if (write) {
            s.dirty[w] = 1;
            k->writes++, k->write_hits++;
        } else {
            k->reads++, k->read_hits++;
        }
        SIM_TRACE(&k->base, "hit", 0, TARG_X("addr", mem_msg(m)->addr),
                  TARG_S("op", write ? "write" : "read"));
        respond(k, m, k->p.hit_latency);
        return true;
    }
    Mshr *ms = mshr_find(k, block);
    if (ms) {
        if (ms->ntargets >= k->p.targets)
            return false;
    } else if (k->mshr_used >= k->p.mshrs) {
        return false;
    }
    if (write)
        k->writes++, k->write_misses++;
    else
        k->reads++, k->read_misses++;
    m->next_free = NULL;
    if (ms) {
        k->mshr_merges++;
        ms->tail->next_free = m;
        ms->tail = m;
        ms->ntargets++;
        ms->dirty_on_fill |= write;
        SIM_TRACE(&k->base, "miss", 0, TARG_X("addr", mem_msg(m)->addr),
                  TARG_S("op", write ? "write" : "read"), TARG_S("mshr", "merge"));
        return true;
    }
    uint32_t idx = 0;
    while (k->mshr[idx].valid)
        idx++;
    ms = &k->mshr[idx];
    *ms = (Mshr){ .valid = true, .dirty_on_fill = write, .block = block, .head = m, .tail = m,
                  .ntargets = 1, .alloc = k->base.eng->now };
    k->mshr_used++;
    if (k->mshr_used == 1)                /* the oldest miss in flight: its fill is reported late */
        SIM_TRACE_HOLD(&k->base, clock_cycle(k->base.clk, ms->alloc));
    SIM_TRACE(&k->base, "miss", 0, TARG_X("addr", mem_msg(m)->addr),
              TARG_S("op", write ? "write" : "read"), TARG_U("mshr", idx));
    Msg *req = sim_msg_alloc(k->base.sim);
    req->cmd = MSG_READ_REQ;
    mem_msg(req)->addr = block << k->line_shift;
    req->size = (uint32_t)k->p.line;
    mem_msg(req)->tag = idx;
    req->flags = m->flags;
    req->issued = k->base.eng->now;
    /* the miss is known after the tag lookup */
    sim_port_send(&k->base, k->mem, req, k->p.hit_latency);
    return true;
}

static void wait_push(Cache *k, Msg *m)
{
    m->next_free = NULL;
    if (k->wait_tail)
        k->wait_tail->next_free = m;
    else
        k->wait_head = m;
    k->wait_tail = m;
    k->waiting++;
}

static void drain_waiting(Cache *k)
{
    while (k->wait_head) {
        Msg *m = k->wait_head;
        Msg *next = m->next_free;
        if (!cache_access(k, m))
            return;
        k->wait_head = next;
        if (!next)
            k->wait_tail = NULL;
        k->waiting--;
    }
}

static void absorb_writeback(Cache *k, Msg *m)
{
    uint64_t block = mem_msg(m)->addr >> k->line_shift;
    k->wb_received++;
    CacheSet s;
    int w = tag_find(k, block, &s);
    if (w >= 0) {
        s.dirty[w] = 1;
        repl_touch(k, &s, (uint32_t)w);
    } else {
        Mshr *ms = mshr_find(k, block);
        if (ms)
            ms->dirty_on_fill = true;   /* the fill in flight is now stale-clean: keep it dirty */
        else
            tag_insert(k, block, true);
    }
    sim_msg_free(k->base.sim, m);
}

static void fill(Cache *k, Msg *resp)
{
    g_assert(mem_msg(resp)->tag < k->p.mshrs);
    Mshr *ms = &k->mshr[mem_msg(resp)->tag];
    g_assert(ms->valid);
    k->fills++;
    uint64_t lat = clock_cycle(k->base.clk, k->base.eng->now - ms->alloc);
    sim_hist_add(&k->miss_latency, lat);
    /* one slice per miss, from the MSHR's allocation to the fill (it was stamped at the fill,
     * which drew it lat cycles into the future) */
    SIM_TRACE_AT(&k->base, clock_cycle(k->base.clk, ms->alloc), "fill", lat,
                 TARG_X("addr", ms->block << k->line_shift), TARG_U("targets", ms->ntargets));
    tag_insert(k, ms->block, ms->dirty_on_fill);
    for (Msg *t = ms->head; t;) {
        Msg *next = t->next_free;
        respond(k, t, k->p.response_latency);
        t = next;
    }
    ms->valid = false;
    ms->head = ms->tail = NULL;
    k->mshr_used--;
    if (G_UNLIKELY(k->base.trace_track >= 0)) {   /* the next oldest miss, if any */
        Tick oldest = TICK_MAX;
        for (uint32_t i = 0; i < k->p.mshrs; i++)
            if (k->mshr[i].valid && k->mshr[i].alloc < oldest)
                oldest = k->mshr[i].alloc;
        SIM_TRACE_HOLD(&k->base, oldest == TICK_MAX ? UINT64_MAX : clock_cycle(k->base.clk, oldest));
    }
    sim_msg_free(k->base.sim, resp);
    drain_waiting(k);
}

static void cache_recv(Component *c, Port *port, Msg *m)
{
    Cache *k = (Cache *)c;
    if (port == k->mem) {
        g_assert(m->cmd == MSG_READ_RESP);
        fill(k, m);
        return;
    }
    switch (m->cmd) {
    case MSG_READ_REQ:
    case MSG_WRITE_REQ:
        g_assert((mem_msg(m)->addr >> k->line_shift) ==
                 ((mem_msg(m)->addr + (m->size ? m->size : 1) - 1) >> k->line_shift));
        if (k->wait_head || !cache_access(k, m)) {
            k->blocked++;
            wait_push(k, m);
        }
        break;
    case MSG_WRITEBACK:
        absorb_writeback(k, m);
        break;
    default:
        g_error("%s: cycle %" G_GUINT64_FORMAT ": unexpected message %s (cmd 0x%x) addr 0x%"
                G_GINT64_MODIFIER "x on cpu_side", c->name, sim_component_cycle(c),
                MSG_NAME(m->cmd), m->cmd, mem_msg(m)->addr);
    }
}

static void cache_dump(Component *c, GString *out)
{
    Cache *k = (Cache *)c;
    g_string_append_printf(out, "  mshrs %u/%" G_GUINT64_FORMAT " used, %u requests waiting\n",
                           k->mshr_used, k->p.mshrs, k->waiting);
    for (uint32_t i = 0; i < k->p.mshrs; i++)
        if (k->mshr[i].valid)
            g_string_append_printf(out, "  mshr[%u] block 0x%" G_GINT64_MODIFIER "x targets %u since cycle %"
                                   G_GUINT64_FORMAT "\n", i, k->mshr[i].block << k->line_shift,
                                   k->mshr[i].ntargets, clock_cycle(c->clk, k->mshr[i].alloc));
}

static bool cache_busy(const Component *c)
{
    const Cache *k = (const Cache *)c;
    return k->mshr_used > 0 || k->waiting > 0;
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent cache_teach_events[] = {
    { "writeback", TEACH_WRITEBACK },
    TEACH_EVENTS_END,
};

const ComponentClass cache_class = {
    .name = "cache",
    .doc = "set-associative write-back, write-allocate cache with MSHRs",
    .size = sizeof(Cache),
    .params_offset = offsetof(Cache, p),
    .params = cache_params,
    .ports = cache_ports,
    .stats = cache_stats,
    .realize = cache_realize,
    .recv = cache_recv,
    .dump = cache_dump,
    .busy = cache_busy,
    .finalize = cache_finalize,
    .footprint = cache_footprint,
    .check_link = mem_link_line_down,
    .teach_events = cache_teach_events,
};
