/* bus.c: a snooping bus in the style of the SGI Challenge / Sun Gigaplane split-transaction buses
 * (Culler & Singh, "Parallel Computer Architecture", ch. 6.5) with the ordering rules of the
 * Primer's baseline snooping system (2nd ed., section 7.5; see protocols/protocol.h).
 *
 *   requests --> arbitration (round-robin or FIFO) --> address phase (latency cycles)
 *            --> ORDER: every cache snoops at once --> data from the owner cache, the requester
 *                itself, or memory (LLC bank -> DRAM) --> data bus (line / width cycles)
 *
 * Atomic mode: one transaction at a time, from grant to the last data beat. Split mode: the
 * address bus orders a new request every `latency` cycles while up to `outstanding` transactions
 * wait for data; a block with a transaction in flight gets no new one (its requests wait), so
 * transactions are atomic per block. The bus also holds the functional memory: the values that
 * memory supplies and that write-backs update; LLC and DRAM give only the timing.
 *
 * Filtered snoops (snoop_filter, on by default): the caches tell the bus which blocks they hold
 * (snoopfilter.h), so ordering a request snoops the requester and the holders only, not every
 * cache. A cache that holds nothing of the block would have answered with nothing (its I state
 * takes another cache's request with no action); the bus counts those snoops for it, and the
 * cache reports them as its I.Other_* transitions. Timing is unchanged (the address phase is
 * what it always was): the filter saves host time only, and every statistic is the same with it
 * on or off.
 */
#include "bus.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/error.h"
#include "busmsg.h"
#include "snoopfilter.h"
#include "../mem/funcmem.h"

typedef struct {
    uint64_t latency, width, c2c_latency, outstanding, line;
    int arbitration, mode;
    bool snoop_filter;
} BusParams;

enum { ARB_RR, ARB_FIFO };
enum { MODE_ATOMIC, MODE_SPLIT };

typedef struct Bus Bus;

typedef struct {
    SimEvent ev;        /* data ready / transaction end */
    Bus *bus;
    bool used;
    bool waiting_mem;
    bool draining;      /* data sent; the transaction ends when the requester has it */
    int req;            /* requester's cpu_side slot */
    int kind;
    uint64_t block;     /* block address (line aligned) */
    uint64_t tag;
    uint16_t req_flags;
    uint64_t tx_age;    /* the requester's transaction age (BUS_REQ who), 0: none */
    bool excl;
    int src;            /* 0 memory, 1 cache, 2 requester */
    Tick granted, ordered;
    uint8_t *buf;
} Txn;

struct Bus {
    Component base;
    BusParams p;
    int nports, nbanks;
    Port **cpu, **mem;
    Msg **qhead, **qtail;       /* per-port request FIFOs (linked through next_free) */
    /* arbitration's index: the ports waiting for each block (a cache queues one request per
     * block at most), and per port how many of its queued requests are for a block with no
     * transaction in flight (eligible), with a bit per port that has one */
    SnoopFilter waiting;
    uint32_t *elig_count;
    uint64_t *elig;
    uint64_t *wait_set;         /* scratch: the ports waiting for one block */
    uint32_t queued;
    int rr_next;
    Txn *txn;
    uint32_t inflight;
    SimEvent order_ev;
    int ordering;               /* txn in its address phase, -1 if none */
    Tick addr_free, data_free;
    Msg *snoop;                 /* reused for the synchronous snoops */
    GHashTable *mem_pages;      /* functional memory: page -> bytes */
    uint32_t line_shift;
    /* stats */
    uint64_t txns, by_kind[BUS_KINDS], upgrades, putm_nodata, c2c, mem_reads, self_supplied;
    uint64_t writebacks, invalidations, addr_busy, data_busy, exclusive_grants;
    uint64_t nacks;             /* requests refused (HTM responder wins); a stat only when > 0 */
    SimHist wait, latency;
    /* the snoop filter (snoopfilter.h): which caches hold a block; ports that accepted the
     * filter (sf_joined) are snooped only when they hold it, the others always */
    SnoopFilter sf;
    bool sf_on;
    uint64_t *sf_joined;        /* bit per cpu_side port */
    uint64_t *sf_set;           /* scratch: the ports one request snoops */
    uint64_t sf_ordered[BUS_KINDS];   /* requests ordered, by kind (the filter's own count) */
    uint64_t *sf_requested;     /* [port * BUS_KINDS + kind]: ordered requests of that port */
    uint64_t *sf_snooped;       /* [port * BUS_KINDS + kind]: others' requests it was snooped for */
};

static const char *const arb_choices[] = { "rr", "fifo", NULL };
static const char *const mode_choices[] = { "atomic", "split", NULL };
static const char *const kind_names[] = { "GetS", "GetM", "PutM" };

static const ParamSpec bus_params[] = {
    { .name = "mode", .type = PARAM_ENUM, .def = "split", .choices = mode_choices,
      .doc = "atomic: one transaction at a time; split: requests and data decoupled",
      .offset = offsetof(BusParams, mode) },
    { .name = "arbitration", .type = PARAM_ENUM, .def = "rr", .choices = arb_choices,
      .doc = "rr: round-robin over caches; fifo: oldest request first",
      .offset = offsetof(BusParams, arbitration) },
    { .name = "latency", .type = PARAM_CYCLES, .def = "2", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1000, .doc = "address phase: grant to ordering (snoop) point",
      .offset = offsetof(BusParams, latency) },
    { .name = "width", .type = PARAM_SIZE, .def = "32B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 1, .max = 4096, .doc = "data bus bytes per cycle (a line takes line/width cycles)",
      .offset = offsetof(BusParams, width) },
    { .name = "c2c_latency", .type = PARAM_CYCLES, .def = "4", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1000, .doc = "snoop to data ready in the supplying cache",
      .offset = offsetof(BusParams, c2c_latency) },
    { .name = "outstanding", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 256, .doc = "split mode: transactions waiting for data at once",
      .offset = offsetof(BusParams, outstanding) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "coherence block size (the caches' line)",
      .offset = offsetof(BusParams, line) },
    { .name = "snoop_filter", .type = PARAM_BOOL, .def = "true",
      .doc = "snoop only the caches that hold the block (the caches keep the filter exact; "
      "host time only: timing and every statistic are the same either way)",
      .offset = offsetof(BusParams, snoop_filter) },
    PARAM_END,
};

static const PortSpec bus_ports[] = {
    { .name = "cpu_side", .role = PORT_RESPONDER, .required = true, .vector = true,
      .doc = "coherent caches (requests, snoops, data)" },
    { .name = "mem_side", .role = PORT_REQUESTER, .required = true, .vector = true,
      .doc = "LLC banks, interleaved by block" },
    PORT_END,
};

#define B(x) ((const Bus *)(x))
static double f_util(const Component *c)
{
    return stats_ratio((double)B(c)->data_busy, (double)sim_stats_cycles(c));
}
static double f_addr_util(const Component *c)
{
    return stats_ratio((double)B(c)->addr_busy, (double)sim_stats_cycles(c));
}
static double f_bytes(const Component *c)
{
    /* the data bus's transfers: from a cache, from memory, a PutM's write-back (an MSI owner's
     * write-back on a GetS rides its cache-to-cache transfer; an owner's upgrade moves none) */
    const Bus *b = B(c);
    return (double)((b->c2c + b->mem_reads + b->by_kind[BUS_PUTM] - b->putm_nodata) * b->p.line);
}

static const StatSpec bus_stats[] = {
    { "transactions", STAT_COUNTER, "count", "requests ordered", offsetof(Bus, txns), NULL },
    { "GetS", STAT_COUNTER, "count", "GetS transactions (read miss)",
      offsetof(Bus, by_kind[BUS_GETS]), NULL },
    { "GetM", STAT_COUNTER, "count", "GetM transactions (write miss or upgrade)",
      offsetof(Bus, by_kind[BUS_GETM]), NULL },
    { "upgrades", STAT_COUNTER, "count", "GetM from a cache already holding a valid copy",
      offsetof(Bus, upgrades), NULL },
    { "PutM", STAT_COUNTER, "count", "PutM transactions (write-back on replacement)",
      offsetof(Bus, by_kind[BUS_PUTM]), NULL },
    { "PutM_stale", STAT_COUNTER, "count", "PutM from a cache that lost ownership (no data)",
      offsetof(Bus, putm_nodata), NULL },
    { "cache_to_cache", STAT_COUNTER, "count", "data supplied by another cache",
      offsetof(Bus, c2c), NULL },
    { "memory_reads", STAT_COUNTER, "count", "data supplied by memory (LLC)",
      offsetof(Bus, mem_reads), NULL },
    { "self_supplied", STAT_COUNTER, "count", "GetM by an owner: data from the requester itself",
      offsetof(Bus, self_supplied), NULL },
    { "exclusive_grants", STAT_COUNTER, "count", "GetS answered with no other copy (E state)",
      offsetof(Bus, exclusive_grants), NULL },
    { "writebacks", STAT_COUNTER, "count", "lines written to memory", offsetof(Bus, writebacks),
      NULL },
    { "invalidations", STAT_COUNTER, "count", "valid copies lost to another cache's GetM",
      offsetof(Bus, invalidations), NULL },
    { "addr_busy_cycles", STAT_COUNTER, "cycle", "address bus busy", offsetof(Bus, addr_busy),
      NULL },
    { "data_busy_cycles", STAT_COUNTER, "cycle", "data bus busy", offsetof(Bus, data_busy), NULL },
    { "utilization", STAT_FORMULA, "ratio", "data_busy_cycles / sim.cycles", 0, f_util },
    { "addr_utilization", STAT_FORMULA, "ratio", "addr_busy_cycles / sim.cycles", 0, f_addr_util },
    { "data_bytes", STAT_FORMULA_U64, "byte", "lines moved on the data bus x line: "
      "(cache_to_cache + memory_reads + PutM - PutM_stale) x line", 0, f_bytes },
    { "arbitration_wait", STAT_HIST, "cycle", "request to grant", offsetof(Bus, wait), NULL },
    { "miss_latency", STAT_HIST, "cycle", "ordering to data at the requester",
      offsetof(Bus, latency), NULL },
    STAT_END,
};

/* ---- transactions ----------------------------------------------------------------------- */
static uint64_t xfer_cycles(const Bus *b) { return (b->p.line + b->p.width - 1) / b->p.width; }

static bool block_busy(const Bus *b, uint64_t block)
{
    for (uint32_t i = 0; i < b->p.outstanding; i++)
        if (b->txn[i].used && b->txn[i].block == block)
            return true;
    return b->ordering >= 0 && b->txn[b->ordering].block == block;
}

static Port *bank_port(Bus *b, uint64_t block)
{
    return b->mem[(block >> b->line_shift) % (uint64_t)b->nbanks];
}

static void block_freed(Bus *b, uint64_t block);

static void txn_finish(Bus *b, Txn *t)
{
    block_freed(b, t->block);
    t->used = false;
    b->inflight--;
    sim_component_wake(&b->base);
}

/* The data (or the write-back) has crossed the data bus. */
static void txn_event(SimEvent *ev)
{
    Txn *t = ev->ctx;
    Bus *b = t->bus;
    if (t->waiting_mem)
        return;   /* cannot happen: memory answers through recv */
    if (t->draining) {
        t->draining = false;
        txn_finish(b, t);
        return;
    }
    if (t->kind != BUS_PUTM) {
        Msg *m = sim_msg_alloc(b->base.sim);
        m->cmd = MSG_BUS_DATA;
        bus_msg(m)->addr = t->block;
        bus_msg(m)->tag = t->tag;
        bus_msg(m)->kind = t->excl;
        bus_msg(m)->who = (uint64_t)t->src;
        m->data = t->buf;
        m->issued = t->ordered;
        sim_hist_add(&b->latency, clock_cycle(b->base.clk, b->base.eng->now - t->ordered) + 1);
        SIM_TRACE(&b->base, "data", 0, TARG_X("addr", t->block),
                  TARG_S("to", b->cpu[t->req]->peer->owner->name),
                  TARG_E("from", t->src, t->src == 0 ? "memory" : t->src == 1 ? "cache" : "self"),
                  TARG_E("excl", t->excl, t->excl ? "yes" : "no"));
        /* the line is copied by the requester when the message arrives, one tick from now;
         * the buffer is not reused before the next ordering, at least a cycle away */
        Port *p = b->cpu[t->req];
        Tick now = b->base.eng->now, arrive = sim_port_arrival(&b->base, p, now + p->latency);
        sim_port_send_ticks(&b->base, p, m, 0);
        if (G_UNLIKELY(arrive >= now + b->base.clk->period)) {
            /* an L1 on a slower clock takes the data at its next edge: until then the block
             * stays busy (a request ordered before found it waiting for data, in IM_D, which
             * no protocol row answers) and the buffer stays this transaction's */
            t->draining = true;
            sim_schedule(b->base.eng, &t->ev, arrive, SIM_PRI_TICK);
            return;
        }
    }
    txn_finish(b, t);
}

/* Puts the line on the data bus once it is ready at `ready`; the transaction ends after it. */
static void data_transfer(Bus *b, Txn *t, Tick ready)
{
    Tick period = b->base.clk->period;
    Tick start = ready > b->data_free ? ready : b->data_free;
    uint64_t beats = xfer_cycles(b);
    b->data_free = start + beats * period;
    b->data_busy += beats;
    sim_schedule(b->base.eng, &t->ev, b->data_free, SIM_PRI_TICK);
}

static void memory_writeback(Bus *b, uint64_t block, const uint8_t *data)
{
    funcmem_write(b->mem_pages, block, data, (uint32_t)b->p.line);
    SIM_TRACE(&b->base, "writeback", 0, TARG_X("addr", block));
    b->writebacks++;
    Msg *m = sim_msg_alloc(b->base.sim);
    m->cmd = MSG_WRITEBACK;
    mem_msg(m)->addr = block;
    m->size = (uint32_t)b->p.line;
    sim_port_send(&b->base, bank_port(b, block), m, 0);
}

/* The ports a request for t->block snoops: the requester, the holders of the block, and every
 * port that did not accept the filter; every port without the filter. In b->sf_set, a copy:
 * caches that take or drop blocks while being snooped change the table, not the set. */
static const uint64_t *snoop_set(Bus *b, const Txn *t)
{
    uint32_t words = (uint32_t)(b->nports + 63) / 64;
    uint64_t *set = b->sf_set;
    if (!b->sf_on) {
        memset(set, 0xff, words * sizeof(uint64_t));
        return set;
    }
    if (!sf_holders(&b->sf, t->block, set))
        memset(set, 0, words * sizeof(uint64_t));
    for (uint32_t w = 0; w < words; w++)
        set[w] |= ~b->sf_joined[w];
    set[t->req / 64] |= 1ull << (t->req % 64);
    return set;
}

/* The first port of a port bit set at or after `from`, or -1 (snoops go in port order, as
 * without the filter). */
static inline int snoop_next(const Bus *b, const uint64_t *set, int from)
{
    if (from >= b->nports)
        return -1;
    int w = from / 64;
    uint64_t x = set[w] & (~0ull << (from % 64));
    while (!x) {
        if (++w * 64 >= b->nports)
            return -1;
        x = set[w];
    }
    int i = w * 64 + __builtin_ctzll(x);
    return i < b->nports ? i : -1;
}

/* HTM responder wins (models/cache/htm.h): before ordering, asks every other cache whether it
 * refuses the request; if one does, nothing is ordered and the requester gets BUS_NACKED and
 * sends the request again. */
static bool refused(Bus *b, Txn *t)
{
    Msg *s = b->snoop;
    const uint64_t *set = snoop_set(b, t);
    for (int i = snoop_next(b, set, 0); i >= 0; i = snoop_next(b, set, i + 1)) {
        if (i == t->req)
            continue;
        s->cmd = MSG_BUS_SNOOP;
        bus_msg(s)->addr = t->block;
        bus_msg(s)->kind = (uint64_t)t->kind;
        bus_msg(s)->who = (uint64_t)t->req;
        s->flags = SNOOP_PROBE;
        bus_msg(s)->tag = t->tx_age;
        s->data = NULL;
        sim_port_call(&b->base, b->cpu[i], s);
        if (!(s->flags & SNOOP_NACK))
            continue;
        b->nacks++;
        SIM_TRACE(&b->base, "nack", 0, TARG_X("addr", t->block),
                  TARG_E("by", t->req, b->cpu[t->req]->peer->owner->name),
                  TARG_E("refused_by", i, b->cpu[i]->peer->owner->name));
        Msg *m = sim_msg_alloc(b->base.sim);
        m->cmd = MSG_BUS_DATA;
        bus_msg(m)->addr = t->block;
        bus_msg(m)->tag = t->tag;
        bus_msg(m)->kind = 0;
        bus_msg(m)->who = BUS_NACKED;
        m->data = NULL;
        m->issued = t->ordered;
        sim_port_send(&b->base, b->cpu[t->req], m, 1);
        txn_finish(b, t);
        return true;
    }
    return false;
}

static void order_event(SimEvent *ev)
{
    Bus *b = ev->ctx;
    Txn *t = &b->txn[b->ordering];
    b->ordering = -1;
    sim_component_wake(&b->base);     /* the address bus is free for the next request */
    t->ordered = b->base.eng->now;
    if (G_UNLIKELY(mem_shared(b->base.sim)->htm_nackers > 0) && t->kind != BUS_PUTM &&
        refused(b, t))
        return;
    b->txns++;
    b->by_kind[t->kind]++;
    /* every cache snoops the request at this instant (those that hold nothing of the block
     * are counted instead: snoopfilter.h) */
    Msg *s = b->snoop;
    unsigned any = 0;
    const uint64_t *set = snoop_set(b, t);
    b->sf_ordered[t->kind]++;
    b->sf_requested[t->req * BUS_KINDS + t->kind]++;
    for (int i = snoop_next(b, set, 0); i >= 0; i = snoop_next(b, set, i + 1)) {
        if (i != t->req)
            b->sf_snooped[i * BUS_KINDS + t->kind]++;
        s->cmd = MSG_BUS_SNOOP;
        bus_msg(s)->addr = t->block;
        bus_msg(s)->kind = (uint64_t)t->kind;
        bus_msg(s)->who = (uint64_t)t->req;
        s->flags = i == t->req ? SNOOP_OWN : 0;
        /* the requester (own PutM, owner upgrade) or the supplier writes into this buffer */
        s->data = t->buf;
        s->size = (uint32_t)b->p.line;
        sim_port_call(&b->base, b->cpu[i], s);
        unsigned f = s->flags;
        if (f & SNOOP_SUPPLY)
            SIM_TRACE(&b->base, "supply", 0, TARG_X("addr", t->block),
                      TARG_E("cache", i, b->cpu[i]->peer->owner->name));
        /* copies lost to a GetM (a copy given up on a GetS while its PutM waits is not) */
        if (i != t->req && (f & SNOOP_INVALIDATED) && t->kind == BUS_GETM)
            b->invalidations++;
        if ((f & SNOOP_WRITEBACK) && t->kind != BUS_PUTM)
            memory_writeback(b, t->block, t->buf);
        any |= f;
    }
    SIM_TRACE(&b->base, kind_names[t->kind], 0, TARG_X("addr", t->block),
              TARG_E("by", t->req, b->cpu[t->req]->peer->owner->name),
              TARG_E("shared", (any & SNOOP_SHARED) != 0, (any & SNOOP_SHARED) ? "yes" : "no"),
              TARG_E("supplier", t->kind == BUS_PUTM ? 3 : (any & SNOOP_REQ_OWNER) ? 2 :
                     (any & SNOOP_SUPPLY) ? 1 : 0, t->kind == BUS_PUTM ? "-" :
                     (any & SNOOP_REQ_OWNER) ? "self" : (any & SNOOP_SUPPLY) ? "cache" : "memory"));
    /* an upgrade only if the requester still held its copy when the bus ordered the GetM (one
     * lost to another GetM in between makes it a plain write miss) */
    if (any & SNOOP_UPGRADE)
        b->upgrades++;
    Tick now = b->base.eng->now, period = b->base.clk->period;
    if (t->kind == BUS_PUTM) {
        if (any & SNOOP_WRITEBACK) {
            memory_writeback(b, t->block, t->buf);
            data_transfer(b, t, now);
        } else {
            b->putm_nodata++;
            sim_schedule(b->base.eng, &t->ev, now, SIM_PRI_TICK);
        }
        return;
    }
    t->excl = t->kind == BUS_GETS && !(any & SNOOP_SHARED);
    if (t->excl)
        b->exclusive_grants++;
    if (any & SNOOP_REQ_OWNER) {
        t->src = 2;
        b->self_supplied++;
        sim_schedule(b->base.eng, &t->ev, now + period, SIM_PRI_TICK);   /* no data beats */
    } else if (any & SNOOP_SUPPLY) {
        t->src = 1;
        b->c2c++;
        data_transfer(b, t, now + b->p.c2c_latency * period);
    } else {
        t->src = 0;
        b->mem_reads++;
        funcmem_read(b->mem_pages, t->block, t->buf, (uint32_t)b->p.line);
        t->waiting_mem = true;
        Msg *m = sim_msg_alloc(b->base.sim);
        m->cmd = MSG_READ_REQ;
        mem_msg(m)->addr = t->block;
        m->size = (uint32_t)b->p.line;
        mem_msg(m)->tag = (uint64_t)(t - b->txn);
        m->issued = now;
        sim_port_send(&b->base, bank_port(b, t->block), m, 0);
    }
}

/* Whether m's block may get a transaction now: one memo per arbitration, since the requests
 * that wait are mostly for the same few blocks (false sharing: all of them for one). */
typedef struct {
    uint64_t block;
    bool valid, busy;
} BusyMemo;

static inline bool eligible(const Bus *b, const Msg *m, BusyMemo *memo)
{
    uint64_t block = bus_msg_c(m)->addr;
    if (!memo->valid || memo->block != block) {
        memo->block = block;
        memo->busy = block_busy(b, block);
        memo->valid = true;
    }
    return !memo->busy;
}

/* The ports waiting for `block` get (+1) or lose (-1) one eligible request. */
static void waiters_adjust(Bus *b, uint64_t block, int delta)
{
    uint32_t words = (uint32_t)(b->nports + 63) / 64;
    uint64_t *set = b->wait_set;
    if (!sf_holders(&b->waiting, block, set))
        return;
    for (uint32_t w = 0; w < words; w++)
        for (uint64_t x = set[w]; x; x &= x - 1) {
            uint32_t p = w * 64 + (uint32_t)__builtin_ctzll(x);
            b->elig_count[p] = (uint32_t)((int)b->elig_count[p] + delta);
            if (b->elig_count[p])
                b->elig[p / 64] |= 1ull << (p % 64);
            else
                b->elig[p / 64] &= ~(1ull << (p % 64));
        }
}

/* A transaction for block ended: the requests that wait for it are eligible again. */
static void block_freed(Bus *b, uint64_t block)
{
    waiters_adjust(b, block, +1);
}

/* The next port at or after `from`, cyclically, with an eligible request; -1 if none. */
static inline int eligible_next(const Bus *b, int from)
{
    int n = b->nports, w = from / 64;
    uint64_t x = b->elig[w] & (~0ull << (from % 64));
    for (int seen = 0; seen <= n / 64 + 1; seen++) {
        if (x) {
            int i = w * 64 + __builtin_ctzll(x);
            if (i < n)
                return i;
        }
        w = (w + 1) * 64 >= n ? 0 : w + 1;
        x = b->elig[w];
    }
    return -1;
}

/* Picks the next request to grant, or -1. Round-robin: the first port from rr_next on, in
 * cyclic order, with an eligible request (its oldest eligible one); FIFO: the oldest eligible
 * request of all, the lowest port on a tie. Only ports with an eligible request are visited
 * (the index above keeps them). */
static int arbitrate(Bus *b, Msg **picked)
{
    int best = -1;
    Msg *bm = NULL;
    BusyMemo memo = { 0 };
    if (b->queued == 0) {
        *picked = NULL;
        return -1;
    }
    if (b->p.arbitration == ARB_RR) {
        int i = eligible_next(b, b->rr_next);
        if (i >= 0)
            for (Msg *m = b->qhead[i]; m; m = m->next_free)
                if (eligible(b, m, &memo)) {
                    best = i, bm = m;
                    break;
                }
        g_assert(i < 0 || bm != NULL);
    } else {
        for (int i = snoop_next(b, b->elig, 0); i >= 0; i = snoop_next(b, b->elig, i + 1))
            for (Msg *m = b->qhead[i]; m; m = m->next_free)
                if (eligible(b, m, &memo) && (!bm || m->issued < bm->issued)) {
                    best = i, bm = m;
                    break;
                }
    }
    *picked = bm;
    return best;
}

static void queue_remove(Bus *b, int port, Msg *m)
{
    Msg **pp = &b->qhead[port], *prev = NULL;
    while (*pp != m) {
        prev = *pp;
        pp = &(*pp)->next_free;
    }
    *pp = m->next_free;
    if (b->qtail[port] == m)
        b->qtail[port] = prev;
    b->queued--;
}

static uint64_t bus_tick(Component *c)
{
    Bus *b = (Bus *)c;
    Tick now = c->eng->now;
    if (b->queued == 0 || b->ordering >= 0)
        return 0;                                   /* the order event wakes us */
    if (now < b->addr_free)
        return clock_cycle(c->clk, b->addr_free - 1) - clock_cycle(c->clk, now) + 1;
    if (b->p.mode == MODE_ATOMIC ? b->inflight > 0 : b->inflight >= b->p.outstanding)
        return 0;                                   /* txn_finish wakes us */
    Msg *m;
    int port = arbitrate(b, &m);
    if (port < 0)
        return 0;                                   /* all blocked on busy blocks */
    queue_remove(b, port, m);
    /* it is no longer waiting, and its block now has a transaction: the other requests for it
     * are not eligible until it ends */
    sf_remove(&b->waiting, bus_msg(m)->addr, (uint32_t)port);
    b->elig_count[port]--;
    if (!b->elig_count[port])
        b->elig[port / 64] &= ~(1ull << (port % 64));
    waiters_adjust(b, bus_msg(m)->addr, -1);
    b->rr_next = (port + 1) % b->nports;
    uint32_t i = 0;
    while (b->txn[i].used)
        i++;
    Txn *t = &b->txn[i];
    t->used = true;
    t->waiting_mem = false;
    t->req = port;
    t->kind = (int)bus_msg(m)->kind;
    t->block = bus_msg(m)->addr;
    t->tag = bus_msg(m)->tag;
    t->req_flags = m->flags;
    t->tx_age = bus_msg(m)->who;
    t->granted = now;
    b->inflight++;
    sim_hist_add(&b->wait, clock_cycle(c->clk, now - m->issued));
    sim_msg_free(c->sim, m);
    b->ordering = (int)i;
    Tick edge = clock_cycle(c->clk, now) * c->clk->period;
    b->addr_free = edge + b->p.latency * c->clk->period;
    b->addr_busy += b->p.latency;
    sim_schedule(c->eng, &b->order_ev, b->addr_free, SIM_PRI_TICK);
    return 0;
}

/* The snoop filter and arbitration's index grow with what the caches hold (an entry per block
 * held, or waited for: never more than the caches' lines), and the growth is charged to
 * sim.memory_limit as it happens. */
static void bus_charge(Bus *b, uint64_t grown)
{
    if (grown)
        sim_mem_charge_hint(&b->base, "snoop_filter", "a larger snoop filter (an entry per block "
                            "the caches hold)", grown, "smaller caches, bus.snoop_filter: false");
}

/* An express BUS_FILTER call from a cache (busmsg.h). */
static void filter_call(Bus *b, int port, Msg *m)
{
    uint64_t bit = 1ull << (port % 64);
    switch (bus_msg(m)->kind) {
    case BUS_SF_ADD:
        if (b->sf_on && (b->sf_joined[port / 64] & bit))
            bus_charge(b, sf_add(&b->sf, bus_msg(m)->addr, (uint32_t)port));
        break;
    case BUS_SF_REMOVE:
        if (b->sf_on && (b->sf_joined[port / 64] & bit))
            sf_remove(&b->sf, bus_msg(m)->addr, (uint32_t)port);
        break;
    case BUS_SF_SKIPPED: {
        uint64_t k = bus_msg(m)->tag;
        g_assert(k < BUS_KINDS);
        bus_msg(m)->who = !(b->sf_joined[port / 64] & bit) ? 0 :
            b->sf_ordered[k] - b->sf_requested[port * BUS_KINDS + k] -
            b->sf_snooped[port * BUS_KINDS + k];
        break;
    }
    default:
        g_error("%s: unexpected snoop-filter call %" G_GUINT64_FORMAT " from port %d",
                b->base.name, bus_msg(m)->kind, port);
    }
}

static void bus_recv(Component *c, Port *port, Msg *m)
{
    Bus *b = (Bus *)c;
    if (G_UNLIKELY(m->cmd == MSG_BUS_FILTER)) {
        filter_call(b, port->slot, m);
        return;
    }
    if (port->spec == 1) {                          /* mem_side: LLC answered a read */
        g_assert(m->cmd == MSG_READ_RESP && mem_msg(m)->tag < b->p.outstanding);
        Txn *t = &b->txn[mem_msg(m)->tag];
        g_assert(t->used && t->waiting_mem);
        t->waiting_mem = false;
        sim_msg_free(c->sim, m);
        data_transfer(b, t, c->eng->now);
        return;
    }
    g_assert(m->cmd == MSG_BUS_REQ);
    int i = port->slot;
    m->issued = c->eng->now;
    m->next_free = NULL;
    if (b->qtail[i])
        b->qtail[i]->next_free = m;
    else
        b->qhead[i] = m;
    b->qtail[i] = m;
    b->queued++;
    g_assert(!sf_has(&b->waiting, bus_msg(m)->addr, (uint32_t)i));   /* one per block */
    bus_charge(b, sf_add(&b->waiting, bus_msg(m)->addr, (uint32_t)i));
    if (!block_busy(b, bus_msg(m)->addr)) {
        b->elig_count[i]++;
        b->elig[i / 64] |= 1ull << (i % 64);
    }
    sim_component_wake(c);
}

static bool bus_realize(Component *c, GError **error)
{
    Bus *b = (Bus *)c;
    for (guint i = 0; i < c->ports->len; i++) {
        Port *p = g_ptr_array_index(c->ports, i);
        if (p->spec == 0)
            b->nports++;
        else
            b->nbanks++;
    }
    if (b->nports == 0 || b->nbanks == 0) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "needs at least one cache and one memory bank connected");
        return false;
    }
    b->cpu = g_new0(Port *, b->nports);
    b->mem = g_new0(Port *, b->nbanks);
    for (int i = 0; i < b->nports; i++)
        b->cpu[i] = sim_port(c, "cpu_side", i);
    for (int i = 0; i < b->nbanks; i++) {
        b->mem[i] = sim_port(c, "mem_side", i);
        /* lines go to bank (block % banks): a bank that indexes its sets by every block (a
         * machine graph's cache left at interleave 1) would fill a 1/banks of them */
        uint64_t ilv;
        Component *bank = b->mem[i]->peer ? b->mem[i]->peer->owner : NULL;
        if (b->nbanks > 1 && bank && sim_component_param_u64(bank, "interleave", &ilv) &&
            ilv != (uint64_t)b->nbanks) {
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "mem_side[%d] links "
                        "to %s, whose interleave is %" G_GUINT64_FORMAT ", but the bus spreads "
                        "lines over its %d banks by block; hint: give each bank interleave: %d",
                        i, bank->name, ilv, b->nbanks, b->nbanks);
            return false;
        }
    }
    /* one cache or bank linked twice would be two caches (two banks) that are one */
    for (int side = 0; side < 2; side++) {
        Port **ps = side ? b->mem : b->cpu;
        int n = side ? b->nbanks : b->nports;
        GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
        const Component *twice = NULL;
        for (int i = 0; i < n && !twice; i++) {
            const Component *o = ps[i] && ps[i]->peer ? ps[i]->peer->owner : NULL;
            if (o && !g_hash_table_add(seen, (gpointer)o))
                twice = o;
        }
        g_hash_table_destroy(seen);
        if (twice) {
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s links to %s twice; "
                        "each of its %s is another component", side ? "mem_side" : "cpu_side",
                        twice->name, side ? "banks" : "caches");
            return false;
        }
    }
    b->qhead = g_new0(Msg *, b->nports);
    b->qtail = g_new0(Msg *, b->nports);
    b->elig = g_new0(uint64_t, (size_t)(b->nports + 63) / 64);
    b->elig_count = g_new0(uint32_t, (size_t)b->nports);
    b->wait_set = g_new0(uint64_t, (size_t)(b->nports + 63) / 64);
    sf_init(&b->waiting, (uint32_t)b->nports);
    sim_mem_charge(c, "outstanding", "arbitration's index", b->waiting.bytes);
    b->txn = g_new0(Txn, b->p.outstanding);
    for (uint32_t i = 0; i < b->p.outstanding; i++) {
        sim_event_init(&b->txn[i].ev, txn_event, &b->txn[i]);
        b->txn[i].bus = b;
        b->txn[i].buf = g_malloc0(b->p.line);
    }
    b->ordering = -1;
    sim_event_init(&b->order_ev, order_event, b);
    b->snoop = sim_msg_alloc(c->sim);
    b->line_shift = (uint32_t)__builtin_ctzll(b->p.line);
    b->mem_pages = funcmem_new();
    uint32_t words = (uint32_t)(b->nports + 63) / 64;
    b->sf_joined = g_new0(uint64_t, words);
    b->sf_set = g_new0(uint64_t, words);
    b->sf_requested = g_new0(uint64_t, (size_t)b->nports * BUS_KINDS);
    b->sf_snooped = g_new0(uint64_t, (size_t)b->nports * BUS_KINDS);
    return true;
}

/* Offers the snoop filter to every cache; those that keep it exact accept (busmsg.h). */
static void bus_start(Component *c)
{
    Bus *b = (Bus *)c;
    if (!b->p.snoop_filter)
        return;
    sf_init(&b->sf, (uint32_t)b->nports);
    b->sf_on = true;
    bus_charge(b, b->sf.bytes);
    Msg *m = b->snoop;
    for (int i = 0; i < b->nports; i++) {
        m->cmd = MSG_BUS_FILTER;
        m->flags = 0;
        bus_msg(m)->kind = BUS_SF_OFFER;
        sim_port_call(c, b->cpu[i], m);
        if (m->flags & BUSF_SF_ACCEPT)
            b->sf_joined[i / 64] |= 1ull << (i % 64);
    }
    m->cmd = 0;
    m->flags = 0;
}

static void bus_finalize(Component *c)
{
    Bus *b = (Bus *)c;
    for (uint32_t i = 0; b->txn && i < b->p.outstanding; i++)
        g_free(b->txn[i].buf);
    g_free(b->txn);
    g_free(b->cpu);
    g_free(b->mem);
    g_free(b->qhead);
    g_free(b->qtail);
    g_free(b->elig);
    g_free(b->elig_count);
    g_free(b->wait_set);
    if (b->waiting.slots)
        sf_free(&b->waiting);
    if (b->mem_pages)
        g_hash_table_destroy(b->mem_pages);
    if (b->sf_on)
        sf_free(&b->sf);
    g_free(b->sf_joined);
    g_free(b->sf_set);
    g_free(b->sf_requested);
    g_free(b->sf_snooped);
}

static void bus_dump(Component *c, GString *out)
{
    Bus *b = (Bus *)c;
    g_string_append_printf(out, "  %u requests queued, %u transactions in flight%s\n", b->queued,
                           b->inflight, b->ordering >= 0 ? ", one in its address phase" : "");
    for (uint32_t i = 0; i < b->p.outstanding; i++)
        if (b->txn[i].used)
            g_string_append_printf(out, "  txn %u: %s 0x%" G_GINT64_MODIFIER "x by cache %d%s\n",
                                   i, kind_names[b->txn[i].kind], b->txn[i].block, b->txn[i].req,
                                   b->txn[i].waiting_mem ? ", waiting for memory" : "");
}

static bool bus_busy(const Component *c)
{
    const Bus *b = (const Bus *)c;
    return b->queued > 0 || b->inflight > 0;
}

/* bus.nacks appears only in runs where a cache refused a request, so runs without HTM keep
 * their stats. */
static void bus_extra_stats(const Component *c, StatSet *out)
{
    const Bus *b = (const Bus *)c;
    if (!b->nacks)
        return;
    char *n = g_strdup_printf("%s.nacks", c->name);
    stats_add_u64(out, n, b->nacks, "count", "requests refused by a cache in a transaction "
                  "(HTM responder wins) and sent again");
    g_free(n);
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent bus_teach_events[] = {
    { "GetS", TEACH_BUS }, { "GetM", TEACH_BUS }, { "PutM", TEACH_BUS },
    { "nack", TEACH_BUS },   /* has "by": shown among the requester's transactions */
    { "supply", TEACH_SUPPLY }, { "writeback", TEACH_WRITEBACK },
    TEACH_EVENTS_END,
};

const ComponentClass bus_class = {
    .extra_stats = bus_extra_stats,
    .name = "snoop-bus",
    .doc = "snooping bus: round-robin/FIFO arbitration, atomic or split transactions",
    .size = sizeof(Bus),
    .params_offset = offsetof(Bus, p),
    .params = bus_params,
    .ports = bus_ports,
    .stats = bus_stats,
    .realize = bus_realize,
    .start = bus_start,
    .tick = bus_tick,
    .recv = bus_recv,
    .dump = bus_dump,
    .busy = bus_busy,
    .finalize = bus_finalize,
    .check_link = mem_link_line_equal,
    .teach_events = bus_teach_events,
};

/* ---- the bus message family (busmsg.h) ---- */
static const char *const bus_cmd_names[BUS_CMDS] = {
    [BUS_REQ] = "req", [BUS_SNOOP] = "snoop", [BUS_DATA] = "data", [BUS_FILTER] = "filter",
};
const MsgFamily bus_msg_family = {
    .name = "bus", .id = MSG_FAM_BUS, .payload = sizeof(BusPayload),
    .cmds = bus_cmd_names, .ncmds = BUS_CMDS,
};
