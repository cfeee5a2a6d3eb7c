/* l2.c: one slice of a GPU's L2 cache, the memory sub-partition of GPGPU-Sim (l2cache.cc; Khairy
 * et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling",
 * ISPASS 2019; docs/gpu.md, "The memory side"): a sectored, write-back tag store (the one of
 * models/cache/tagstore.h: 128-byte lines of four 32-byte sectors) behind the SM-to-L2 crossbar,
 * with MSHRs that merge misses to a line, and the raster-operations unit (ROP) that performs
 * global atomics and reductions at the slice, in arrival order.
 *
 *   crossbar --req--> [one line per cycle] --all sectors valid--> answer after hit_latency
 *                          |some missing                             (loads, atomics)
 *                          v
 *                MSHR (line, sectors asked, targets) --sector read--> DRAM channel (mem_side)
 *                          ^                                             |
 *                          +-- fill the sectors; answer every target ----+
 *
 * Stores allocate without fetching (the written sectors become valid and dirty: GPGPU-Sim's
 * lazy fetch-on-read, sector-granular); an evicted line writes back its dirty sectors. An atomic
 * needs its sectors like a load, then holds the ROP one cycle per active lane (lanes to the same
 * line serialize, which is what makes a histogram with global atomics slow) and answers after
 * rop_latency; a reduction (RED) is not answered. The DRAM sees channel-local addresses: the
 * slice's lines packed densely, interleaved with the other slices of its channel.
 */
#include "gpu.h"

#include <string.h>

#include "../../sim/error.h"
#include "../cache/cohshared.h"
#include "../cache/tagstore.h"
#include "../mem/memmsg.h"
#include "coalesce.h"
#include "gpumsg.h"
#include "sm.h"

typedef struct {
    uint64_t size, assoc, hit_latency, rop_latency, mshrs, targets;
    uint64_t slice, slices, subpartitions;
    int repl, hash;
} L2Params;

typedef struct {
    Component base;
    L2Params p;
    TagStore ts;
    MshrTable mshr;             /* aux: DRAM reads outstanding; head/tail: targets (Msg list) */
    Msg *wait_head, *wait_tail; /* requests that found no MSHR or target slot, in order */
    uint32_t waiting;
    uint64_t free_at;           /* cycle the tag pipeline takes the next request */
    uint64_t rop_free;          /* cycle the ROP takes the next atomic */
    Port *net, *mem;
    /* stats */
    uint64_t load_req, store_req, atom_req, red_req;
    uint64_t load_sect, load_sect_hit, store_sect, store_sect_hit, atom_sect, atom_sect_hit;
    uint64_t mshr_merges, blocked, fills, evictions, writebacks;
    uint64_t dram_read_bytes, dram_write_bytes, rop_ops;
} L2;

static const char *const hash_choices[] = { "linear", "xor", NULL };

static const ParamSpec l2_params[] = {
    { .name = "size", .type = PARAM_SIZE, .def = "256KiB", .flags = PARAM_F_RANGE, .min = 512,
      .max = 1ull << 32, .doc = "capacity of this slice", .offset = offsetof(L2Params, size) },
    { .name = "assoc", .type = PARAM_UINT, .def = "16", .flags = PARAM_F_RANGE, .min = 1,
      .max = 256, .doc = "ways per set", .offset = offsetof(L2Params, assoc) },
    { .name = "hit_latency", .type = PARAM_CYCLES, .def = "200", .flags = PARAM_F_RANGE, .min = 1,
      .max = 100000, .doc = "request arrival to answer on a hit (GPGPU-Sim's l2_rop_latency)",
      .offset = offsetof(L2Params, hit_latency) },
    { .name = "rop_latency", .type = PARAM_CYCLES, .def = "200", .flags = PARAM_F_RANGE,
      .min = 1, .max = 100000, .doc = "an atomic's start at the ROP to its answer",
      .offset = offsetof(L2Params, rop_latency) },
    { .name = "mshrs", .type = PARAM_UINT, .def = "256", .flags = PARAM_F_RANGE, .min = 1,
      .max = 65536, .doc = "outstanding missed lines", .offset = offsetof(L2Params, mshrs) },
    { .name = "targets", .type = PARAM_UINT, .def = "32", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "requests that can wait on one MSHR",
      .offset = offsetof(L2Params, targets) },
    { .name = "slice", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .max = 65535,
      .doc = "this slice's number (set by system.type gpu)", .offset = offsetof(L2Params, slice) },
    { .name = "slices", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 65536, .doc = "slices in the L2 (set by system.type gpu)",
      .offset = offsetof(L2Params, slices) },
    { .name = "subpartitions", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "slices sharing this slice's DRAM channel (set by system.type gpu)",
      .offset = offsetof(L2Params, subpartitions) },
    { .name = "repl", .type = PARAM_ENUM, .def = "lru", .choices = repl_names,
      .doc = "replacement policy", .offset = offsetof(L2Params, repl) },
    { .name = "hash", .type = PARAM_ENUM, .def = "xor", .choices = hash_choices,
      .doc = "line-to-slice hash; the SMs use the same (coalesce.h)",
      .offset = offsetof(L2Params, hash) },
    PARAM_END,
};

static const PortSpec l2_ports[] = {
    { .name = "net", .role = PORT_REQUESTER, .required = true,
      .doc = "to the crossbar (a noc's node port): requests in, answers out" },
    { .name = "mem_side", .role = PORT_REQUESTER, .required = true,
      .doc = "to this slice's DRAM channel (a dram's port)" },
    PORT_END,
};

#define L(x) ((const L2 *)(x))
static double f_hit_rate(const Component *c)
{
    const L2 *k = L(c);
    return stats_ratio((double)(k->load_sect_hit + k->store_sect_hit + k->atom_sect_hit),
                       (double)(k->load_sect + k->store_sect + k->atom_sect));
}

static const StatSpec l2_stats[] = {
    { "load_requests", STAT_COUNTER, "count", "line requests of loads",
      offsetof(L2, load_req), NULL },
    { "store_requests", STAT_COUNTER, "count", "line requests of stores",
      offsetof(L2, store_req), NULL },
    { "atomic_requests", STAT_COUNTER, "count", "line requests of atomics (ATOM)",
      offsetof(L2, atom_req), NULL },
    { "reduction_requests", STAT_COUNTER, "count", "line requests of reductions (RED)",
      offsetof(L2, red_req), NULL },
    { "load_sectors", STAT_COUNTER, "count", "sectors loads asked for", offsetof(L2, load_sect),
      NULL },
    { "load_sector_hits", STAT_COUNTER, "count", "of those, valid on arrival",
      offsetof(L2, load_sect_hit), NULL },
    { "store_sectors", STAT_COUNTER, "count", "sectors stores wrote", offsetof(L2, store_sect),
      NULL },
    { "store_sector_hits", STAT_COUNTER, "count", "of those, valid on arrival",
      offsetof(L2, store_sect_hit), NULL },
    { "atomic_sectors", STAT_COUNTER, "count", "sectors atomics and reductions touched",
      offsetof(L2, atom_sect), NULL },
    { "atomic_sector_hits", STAT_COUNTER, "count", "of those, valid on arrival",
      offsetof(L2, atom_sect_hit), NULL },
    { "sector_hit_rate", STAT_FORMULA, "ratio", "sector hits / sectors, every kind "
      "(Nsight Compute's lts__t_sector_hit_rate)", 0, f_hit_rate },
    { "mshr_merges", STAT_COUNTER, "count", "misses merged into an outstanding MSHR",
      offsetof(L2, mshr_merges), NULL },
    { "blocked", STAT_COUNTER, "count", "requests that waited for an MSHR or target slot",
      offsetof(L2, blocked), NULL },
    { "fills", STAT_COUNTER, "count", "sector reads answered by DRAM", offsetof(L2, fills), NULL },
    { "evictions", STAT_COUNTER, "count", "valid lines replaced", offsetof(L2, evictions), NULL },
    { "writebacks", STAT_COUNTER, "count", "lines with dirty sectors written to DRAM",
      offsetof(L2, writebacks), NULL },
    { "dram_read_bytes", STAT_COUNTER, "byte", "bytes read from DRAM (32 per sector)",
      offsetof(L2, dram_read_bytes), NULL },
    { "dram_write_bytes", STAT_COUNTER, "byte", "bytes written to DRAM (32 per dirty sector)",
      offsetof(L2, dram_write_bytes), NULL },
    { "rop_cycles", STAT_COUNTER, "cycle", "cycles the ROP spent on atomics (one per lane)",
      offsetof(L2, rop_ops), NULL },
    STAT_END,
};

static TagGeom l2_geom(const L2Params *p)
{
    uint64_t lines = p->size / GPU_LINE;
    return (TagGeom){ .sets = lines / (p->assoc ? p->assoc : 1), .assoc = (uint32_t)p->assoc,
                      .line = GPU_LINE, .sectors = GPU_LINE / GPU_SECTOR, .interleave = 1,
                      .repl = p->repl, .lazy = true };
}

static uint64_t l2_footprint(const Component *c, const char **key)
{
    const L2Params *p = &((const L2 *)c)->p;
    *key = "size";
    TagGeom g = l2_geom(p);
    if (p->size % (GPU_LINE * p->assoc) || !tag_geom_check(&g, NULL))
        return 0;
    return tag_footprint(&g) + p->mshrs * sizeof(MshrEntry);
}

static bool l2_realize(Component *c, GError **error)
{
    L2 *k = (L2 *)c;
    L2Params *p = &k->p;
    TagGeom g = l2_geom(p);
    if (p->size % (GPU_LINE * p->assoc) || (g.sets & (g.sets - 1)) || g.sets == 0)
        return sim_component_reject(c, sim_component_first_set(c, "size", "assoc", NULL), error,
                                    "size %" G_GUINT64_FORMAT " B / (assoc %" G_GUINT64_FORMAT
                                    " x 128 B lines) must be a whole power-of-two number of sets",
                                    p->size, p->assoc);
    char *problem = NULL;
    if (!tag_geom_check(&g, &problem)) {
        bool r = sim_component_reject(c, "repl", error, "%s", problem);
        g_free(problem);
        return r;
    }
    if (p->slice >= p->slices)
        return sim_component_reject(c, "slice", error, "slice %" G_GUINT64_FORMAT " of %"
                                    G_GUINT64_FORMAT, p->slice, p->slices);
    /* the sets index the slice-local line number (block / slices), which every slice uses
     * densely whatever the hash (coalesce.h) */
    g.interleave = p->slices;
    tag_init(&k->ts, &g, c);        /* pages come as sets are touched; MSHRs at the first miss */
    k->net = sim_port(c, "net", 0);
    k->mem = sim_port(c, "mem_side", 0);
    return true;
}

static void l2_finalize(Component *c)
{
    L2 *k = (L2 *)c;
    tag_free(&k->ts);
    mshr_free(&k->mshr);
}

/* The channel-local address of a sector run of block: the slice's lines packed densely,
 * interleaved with the other slices of its channel. */
static uint64_t dram_addr(const L2 *k, uint64_t block, uint8_t first_sector)
{
    uint64_t local = (block / k->p.slices) * k->p.subpartitions + k->p.slice % k->p.subpartitions;
    return local * GPU_LINE + (uint64_t)first_sector * GPU_SECTOR;
}

/* One DRAM access for the sectors from the first to the last of mask (one burst). */
static void dram_send(L2 *k, uint64_t block, uint8_t mask, bool write, uint32_t tag,
                      uint64_t delay)
{
    uint32_t first = (uint32_t)__builtin_ctz(mask), last = 31u - (uint32_t)__builtin_clz(mask);
    uint32_t bytes = (last - first + 1) * GPU_SECTOR;
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = write ? MSG_WRITEBACK : MSG_READ_REQ;
    m->size = bytes;
    m->issued = k->base.eng->now;
    mem_msg(m)->addr = dram_addr(k, block, (uint8_t)first);
    mem_msg(m)->tag = tag;
    mem_msg(m)->value = (uint64_t)(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
    if (write)
        k->dram_write_bytes += bytes;
    else
        k->dram_read_bytes += bytes;
    sim_port_send(&k->base, k->mem, m, delay);
}

/* Reads (or writes back) the sectors in mask, one DRAM access per run of adjacent sectors (as
 * the sector misses of one line go out; a write-back moves the dirty sectors alone, not the
 * span from the first to the last); returns how many accesses it sent. */
static uint32_t dram_runs(L2 *k, uint64_t block, uint8_t mask, bool write, uint32_t tag,
                          uint64_t delay)
{
    uint32_t n = 0;
    while (mask) {
        uint32_t first = (uint32_t)__builtin_ctz(mask), end = first;
        while (end < 8 && (mask >> end & 1))
            end++;
        uint8_t run = (uint8_t)(((1u << end) - 1) & ~((1u << first) - 1));
        dram_send(k, block, run, write, tag, delay);
        mask &= (uint8_t)~run;
        n++;
    }
    return n;
}

static uint32_t dram_read(L2 *k, uint64_t block, uint8_t mask, uint32_t tag, uint64_t delay)
{
    return dram_runs(k, block, mask, false, tag, delay);
}

/* The way holding block, making one (and writing back a dirty victim) if it is absent. */
static uint32_t line_make(L2 *k, uint64_t block, TagSet *s)
{
    int w = tag_find(&k->ts, block, s);
    if (w >= 0)
        return (uint32_t)w;
    *s = tag_set_touch(&k->ts, block);
    bool evict;
    uint32_t v = tag_victim(&k->ts, s, &k->base.rng, &evict);
    if (evict) {
        k->evictions++;
        if (s->dirty[v]) {
            dram_runs(k, tag_block(s, v), s->dirty[v], true, 0, 0);
            k->writebacks++;
        }
    }
    tag_fill(&k->ts, s, v, block, 0, 0);
    return v;
}

/* Answers m (a load or an atomic whose sectors are all here) `delay` cycles from now; an atomic
 * first waits for the ROP. A reduction is consumed. */
static void answer(L2 *k, Msg *m, uint64_t delay)
{
    GpuPayload *g = gpu_msg(m);
    if (g->op == GPU_MEM_ATOM || g->op == GPU_MEM_RED) {
        uint64_t now = sim_component_cycle(&k->base);
        uint64_t start = MAX(now + delay, k->rop_free);
        uint32_t lanes = MAX(g->lanes, 1u);
        k->rop_free = start + lanes;
        k->rop_ops += lanes;
        if (g->op == GPU_MEM_RED) {
            sim_msg_free(k->base.sim, m);
            return;
        }
        delay = start + lanes - now + k->p.rop_latency;
    }
    m->cmd = MSG_GPU_MEM_RESP;
    m->size = (uint32_t)__builtin_popcount(g->sectors) * GPU_SECTOR;
    noc_msg_route(m, noc_msg_src(m), NOC_VNET_RESPONSE);
    sim_port_send(&k->base, k->net, m, delay);
}

/* Handles one request at service cycle offset `delay`; false if it must wait for an MSHR. */
static bool l2_access(L2 *k, Msg *m, uint64_t delay)
{
    GpuPayload *g = gpu_msg(m);
    uint64_t block = g->line / GPU_LINE;
    uint8_t want = g->sectors;
    TagSet s;
    int w = tag_find(&k->ts, block, &s);
    uint8_t have = w >= 0 ? s.valid[w] : 0;
    if (g->op == GPU_MEM_STORE) {
        uint32_t w2 = line_make(k, block, &s);
        k->store_req++;
        k->store_sect += (uint32_t)__builtin_popcount(want);
        k->store_sect_hit += (uint32_t)__builtin_popcount(want & have);
        s.valid[w2] |= want;
        s.dirty[w2] |= want;
        tag_touch(&k->ts, &s, w2);
        sim_msg_free(k->base.sim, m);
        return true;
    }
    uint8_t missing = want & ~have;
    if (G_UNLIKELY(missing && !k->mshr.e))
        mshr_init(&k->mshr, (uint32_t)k->p.mshrs);
    MshrEntry *ms = missing ? mshr_find(&k->mshr, block) : NULL;
    if (missing && (ms ? ms->ntargets >= k->p.targets : k->mshr.used >= k->mshr.n))
        return false;
    uint32_t nw = (uint32_t)__builtin_popcount(want), nh = (uint32_t)__builtin_popcount(want & have);
    switch (g->op) {
    case GPU_MEM_LOAD:
        k->load_req++, k->load_sect += nw, k->load_sect_hit += nh;
        break;
    case GPU_MEM_ATOM:
        k->atom_req++, k->atom_sect += nw, k->atom_sect_hit += nh;
        break;
    default:
        k->red_req++, k->atom_sect += nw, k->atom_sect_hit += nh;
        break;
    }
    if (!missing) {
        if (g->op != GPU_MEM_LOAD)
            s.dirty[w] |= want;
        tag_touch(&k->ts, &s, (uint32_t)w);
        answer(k, m, delay + k->p.hit_latency);
        return true;
    }
    m->next_free = NULL;
    if (ms) {
        k->mshr_merges++;
        ((Msg *)ms->tail)->next_free = m;
        ms->tail = m;
        ms->ntargets++;
        uint8_t more = missing & ~ms->sectors;
        if (more) {
            ms->sectors |= more;
            ms->aux += dram_read(k, block, more, mshr_index(&k->mshr, ms),
                                 delay + k->p.hit_latency);
        }
        return true;
    }
    ms = mshr_alloc(&k->mshr, block, sim_component_cycle(&k->base));
    ms->head = ms->tail = m;
    ms->ntargets = 1;
    ms->sectors = missing;
    /* the miss is known after the tag pipeline */
    ms->aux = dram_read(k, block, missing, mshr_index(&k->mshr, ms), delay + k->p.hit_latency);
    return true;
}

/* The next service slot of the tag pipeline (one request per cycle), as a delay from now. */
static uint64_t pipe_slot(L2 *k)
{
    uint64_t now = sim_component_cycle(&k->base);
    uint64_t t = MAX(now, k->free_at);
    k->free_at = t + 1;
    return t - now;
}

static void drain_waiting(L2 *k)
{
    while (k->wait_head) {
        Msg *m = k->wait_head;
        Msg *next = m->next_free;     /* read first: an MSHR target is relinked */
        if (!l2_access(k, m, pipe_slot(k)))
            return;
        k->wait_head = next;
        if (!next)
            k->wait_tail = NULL;
        k->waiting--;
    }
}

static void fill(L2 *k, Msg *resp)
{
    g_assert(mem_msg(resp)->tag < k->mshr.n);
    MshrEntry *ms = &k->mshr.e[mem_msg(resp)->tag];
    g_assert(ms->valid && ms->aux > 0);
    k->fills++;
    TagSet s;
    uint32_t w = line_make(k, ms->block, &s);
    s.valid[w] |= (uint8_t)mem_msg(resp)->value;
    sim_msg_free(k->base.sim, resp);
    if (--ms->aux > 0)
        return;
    tag_touch(&k->ts, &s, w);
    for (Msg *t = ms->head; t;) {
        Msg *next = t->next_free;
        if (gpu_msg(t)->op != GPU_MEM_LOAD)
            s.dirty[w] |= gpu_msg(t)->sectors;
        answer(k, t, 1);
        t = next;
    }
    mshr_release(&k->mshr, ms);
    drain_waiting(k);
}

static void l2_recv(Component *c, Port *port, Msg *m)
{
    L2 *k = (L2 *)c;
    if (port == k->mem) {
        g_assert(m->cmd == MSG_READ_RESP);
        fill(k, m);
        return;
    }
    g_assert(m->cmd == MSG_GPU_MEM_REQ);
    if (k->wait_head || !l2_access(k, m, pipe_slot(k))) {
        k->blocked++;
        coh_op_push(&k->wait_head, &k->wait_tail, m);
        k->waiting++;
    }
}

static void l2_dump(Component *c, GString *out)
{
    L2 *k = (L2 *)c;
    g_string_append_printf(out, "  mshrs %u/%u used, %u requests waiting\n", k->mshr.used,
                           k->mshr.n, k->waiting);
}

static bool l2_busy(const Component *c) { return L(c)->mshr.used > 0 || L(c)->waiting > 0; }

const char *gpu_l2_hash_name(const Component *c)
{
    g_assert(c->cls == &gpu_l2_class);
    return hash_choices[((const L2 *)c)->p.hash];
}

const ComponentClass gpu_l2_class = {
    .name = "gpu-l2",
    .doc = "GPU L2 slice: sectored write-back tag store, MSHRs, atomics at the ROP",
    .size = sizeof(L2),
    .params_offset = offsetof(L2, p),
    .params = l2_params,
    .ports = l2_ports,
    .stats = l2_stats,
    .realize = l2_realize,
    .recv = l2_recv,
    .dump = l2_dump,
    .busy = l2_busy,
    .finalize = l2_finalize,
    .footprint = l2_footprint,
};
