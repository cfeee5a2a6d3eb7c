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
 * The tags, the replacement policy and the MSHR table are the shared tag store of
 * models/cache/tagstore.h (allocated by page of sets on first fill).
 */
#include <string.h>

#include "../../sim/component.h"
#include "../mem/linkcheck.h"
#include "../../sim/registry.h"
#include "../mem/memmsg.h"
#include "../../sim/error.h"
#include "cache.h"
#include "tagstore.h"

typedef struct {
    uint64_t size, assoc, line;
    uint64_t hit_latency, response_latency;
    uint64_t mshrs, targets;
    uint64_t interleave;
    int repl;
} CacheParams;


typedef struct {
    Component base;
    CacheParams p;
    TagStore ts;
    MshrTable mshr;        /* flag: fill the line dirty (a write target or an absorbed
                              writeback); targets linked through Msg.next_free */
    Msg *wait_head, *wait_tail;   /* requests blocked on MSHRs, in arrival order */
    uint32_t waiting;
    Port *mem;
    /* stats */
    uint64_t reads, writes, read_hits, write_hits, read_misses, write_misses;
    uint64_t mshr_merges, blocked, writebacks, wb_received, fills, evictions;
    SimHist miss_latency;
} Cache;

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
    { .name = "repl", .type = PARAM_ENUM, .def = "lru", .choices = repl_names,
      .doc = "replacement policy", .offset = offsetof(CacheParams, repl) },
    PARAM_END,
};

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

static TagGeom cache_geom(const CacheParams *p)
{
    uint64_t lines = p->size / p->line;
    return (TagGeom){ .sets = lines / p->assoc, .assoc = (uint32_t)p->assoc,
                      .line = (uint32_t)p->line, .sectors = 1, .interleave = p->interleave,
                      .repl = p->repl };
}

/* A geometry realize accepts: size / (assoc x line) a power-of-two number of sets >= 1. */
static bool cache_geom_ok(const CacheParams *p)
{
    uint64_t lines = p->size / p->line;
    return lines >= p->assoc && lines % p->assoc == 0 && !((lines / p->assoc) &
                                                            (lines / p->assoc - 1));
}

/* What realize allocates: the page table (and the one page of a small cache), the MSHRs. */
static uint64_t cache_footprint(const Component *c, const char **key)
{
    const CacheParams *p = &((const Cache *)c)->p;
    *key = "size";
    if (!cache_geom_ok(p))
        return 0;                               /* realize refuses the geometry */
    TagGeom g = cache_geom(p);
    if (!tag_geom_check(&g, NULL))
        return 0;
    return tag_footprint(&g) + p->mshrs * sizeof(MshrEntry);
}

static bool cache_realize(Component *c, GError **error)
{
    Cache *k = (Cache *)c;
    CacheParams *p = &k->p;
    if (!cache_geom_ok(p)) {
        return sim_component_reject(c, sim_component_first_set(c, "assoc", "size", "line", NULL),
                                    error, "size %" G_GUINT64_FORMAT " B / (assoc %"
                                    G_GUINT64_FORMAT " x line %" G_GUINT64_FORMAT " B) must give a "
                                    "power-of-two number of sets >= 1", p->size, p->assoc,
                                    p->line);
    }
    TagGeom g = cache_geom(p);
    char *problem = NULL;
    if (!tag_geom_check(&g, &problem)) {
        bool ok = sim_component_reject(c, "repl", error, "%s", problem);
        g_free(problem);
        return ok;
    }
    tag_init(&k->ts, &g, c);
    mshr_init(&k->mshr, (uint32_t)p->mshrs);
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
    tag_free(&k->ts);
    mshr_free(&k->mshr);
}

static void send_writeback(Cache *k, uint64_t block)
{
    Msg *wb = sim_msg_alloc(k->base.sim);
    wb->cmd = MSG_WRITEBACK;
    mem_msg(wb)->addr = block << k->ts.line_shift;
    wb->size = (uint32_t)k->p.line;
    wb->issued = k->base.eng->now;
    k->writebacks++;
    SIM_TRACE(&k->base, "writeback", 0, TARG_X("addr", mem_msg(wb)->addr));
    sim_port_send(&k->base, k->mem, wb, 0);
}

/* Puts block into its set (choosing and evicting a victim if needed). */
static void tag_insert(Cache *k, uint64_t block, bool dirty)
{
    TagSet s = tag_set_touch(&k->ts, block);
    bool evict;
    uint32_t w = tag_victim(&k->ts, &s, &k->base.rng, &evict);
    if (evict) {
        k->evictions++;
        if (s.dirty[w])
            send_writeback(k, tag_block(&s, w));
    }
    tag_fill(&k->ts, &s, w, block, 1, dirty);
}

static inline void respond(Cache *k, Msg *m, uint64_t delay)
{
    Port *back = m->dst;   /* the cpu_side port it arrived on */
    m->cmd = m->cmd == MSG_READ_REQ ? MSG_READ_RESP : MSG_WRITE_RESP;
    sim_port_send(&k->base, back, m, delay);
}

/* Handles one request; returns false if it must wait (no MSHR / target slot). */
static bool cache_access(Cache *k, Msg *m)
{
    uint64_t block = mem_msg(m)->addr >> k->ts.line_shift;
    bool write = m->cmd == MSG_WRITE_REQ;
    TagSet s;
    int w = tag_find(&k->ts, block, &s);
    if (w >= 0) {
        tag_touch(&k->ts, &s, (uint32_t)w);
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
    MshrEntry *ms = mshr_find(&k->mshr, block);
    if (ms) {
        if (ms->ntargets >= k->p.targets)
            return false;
    } else if (k->mshr.used >= k->mshr.n) {
        return false;
    }
    if (write)
        k->writes++, k->write_misses++;
    else
        k->reads++, k->read_misses++;
    m->next_free = NULL;
    if (ms) {
        k->mshr_merges++;
        ((Msg *)ms->tail)->next_free = m;
        ms->tail = m;
        ms->ntargets++;
        ms->flag |= write;
        SIM_TRACE(&k->base, "miss", 0, TARG_X("addr", mem_msg(m)->addr),
                  TARG_S("op", write ? "write" : "read"), TARG_S("mshr", "merge"));
        return true;
    }
    ms = mshr_alloc(&k->mshr, block, k->base.eng->now);
    uint32_t idx = mshr_index(&k->mshr, ms);
    ms->flag = write;
    ms->head = ms->tail = m;
    ms->ntargets = 1;
    if (k->mshr.used == 1)                /* the oldest miss in flight: its fill is reported late */
        SIM_TRACE_HOLD(&k->base, clock_cycle(k->base.clk, ms->alloc));
    SIM_TRACE(&k->base, "miss", 0, TARG_X("addr", mem_msg(m)->addr),
              TARG_S("op", write ? "write" : "read"), TARG_U("mshr", idx));
    Msg *req = sim_msg_alloc(k->base.sim);
    req->cmd = MSG_READ_REQ;
    mem_msg(req)->addr = block << k->ts.line_shift;
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
    uint64_t block = mem_msg(m)->addr >> k->ts.line_shift;
    k->wb_received++;
    TagSet s;
    int w = tag_find(&k->ts, block, &s);
    if (w >= 0) {
        s.dirty[w] = 1;
        tag_touch(&k->ts, &s, (uint32_t)w);
    } else {
        MshrEntry *ms = mshr_find(&k->mshr, block);
        if (ms)
            ms->flag = true;   /* the fill in flight is now stale-clean: keep it dirty */
        else
            tag_insert(k, block, true);
    }
    sim_msg_free(k->base.sim, m);
}

static void fill(Cache *k, Msg *resp)
{
    g_assert(mem_msg(resp)->tag < k->p.mshrs);
    MshrEntry *ms = &k->mshr.e[mem_msg(resp)->tag];
    g_assert(ms->valid);
    k->fills++;
    uint64_t lat = clock_cycle(k->base.clk, k->base.eng->now - ms->alloc);
    sim_hist_add(&k->miss_latency, lat);
    /* one slice per miss, from the MSHR's allocation to the fill (it was stamped at the fill,
     * which drew it lat cycles into the future) */
    SIM_TRACE_AT(&k->base, clock_cycle(k->base.clk, ms->alloc), "fill", lat,
                 TARG_X("addr", ms->block << k->ts.line_shift), TARG_U("targets", ms->ntargets));
    tag_insert(k, ms->block, ms->flag);
    for (Msg *t = ms->head; t;) {
        Msg *next = t->next_free;
        respond(k, t, k->p.response_latency);
        t = next;
    }
    mshr_release(&k->mshr, ms);
    if (G_UNLIKELY(k->base.trace_track >= 0)) {   /* the next oldest miss, if any */
        Tick oldest = TICK_MAX;
        for (uint32_t i = 0; i < k->mshr.n; i++)
            if (mshr_valid(&k->mshr, i) && k->mshr.e[i].alloc < oldest)
                oldest = k->mshr.e[i].alloc;
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
        g_assert((mem_msg(m)->addr >> k->ts.line_shift) ==
                 ((mem_msg(m)->addr + (m->size ? m->size : 1) - 1) >> k->ts.line_shift));
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
                           k->mshr.used, k->p.mshrs, k->waiting);
    for (uint32_t i = 0; i < k->mshr.n; i++)
        if (mshr_valid(&k->mshr, i))
            g_string_append_printf(out, "  mshr[%u] block 0x%" G_GINT64_MODIFIER "x targets %u since cycle %"
                                   G_GUINT64_FORMAT "\n", i, k->mshr.e[i].block << k->ts.line_shift,
                                   k->mshr.e[i].ntargets, clock_cycle(c->clk, k->mshr.e[i].alloc));
}

static bool cache_busy(const Component *c)
{
    const Cache *k = (const Cache *)c;
    return k->mshr.used > 0 || k->waiting > 0;
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
