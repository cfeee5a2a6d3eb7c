/* trace_core.c: an in-order core driven by a memory-reference trace (valgrind lackey format):
 * a decoupled fetch stage and an execute stage with a fixed CPI for the work between memory
 * references, in the spirit of gem5's TimingSimpleCPU with a fetch queue in front.
 *
 *   trace --> fetch (one instruction per cycle, up to fetch_queue in flight, I-fetch via icache)
 *         --> execute (cpi cycles per instruction; loads wait for data; stores enter a store
 *             buffer of store_buffer entries and retire without waiting; M = load then store)
 *
 * A reference that straddles a line is split into one access per line. Instruction fetches
 * are one access per "I" record, as cachegrind counts them. A trace with no "I" records (pure
 * data traces) makes one instruction per data reference, without fetch.
 */
#include "trace_core.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/error.h"
#include "../../traces/lackey.h"

#define MAX_DATA 8           /* data refs per instruction; more are split into extra instructions */
#define TRACE_BUF 4096

typedef struct {
    char *trace;
    double cpi;
    uint64_t fetch_queue, store_buffer, line, max_insts;
} CoreParams;

typedef struct {
    MemRef fetch;
    bool has_fetch;
    bool cont;               /* continuation of an instruction with > MAX_DATA references */
    uint8_t ndata;
    uint32_t pending;        /* fetch parts outstanding */
    Tick fetch_issued;
    MemRef data[MAX_DATA];
} Instr;

typedef enum { EX_IDLE, EX_WAIT_LOAD, EX_WAIT_SB, EX_RESUME } ExecState;

typedef struct {
    Component base;
    CoreParams p;
    LackeyReader *reader;
    MemRef *rb;
    size_t rb_pos, rb_len;
    bool trace_done, done;
    bool in_instr;           /* the last entry was cut at MAX_DATA: the next one continues it */
    bool sb_stalled;         /* this store already counted one sb_full_stall */
    uint64_t store_seq;
    uint32_t queued_insts;   /* fetch-queue entries that are instructions (not continuations) */
    Instr *fq;
    uint32_t fq_head, fq_count, fq_cap;
    ExecState ex;
    uint32_t di;             /* next data ref of the head instruction */
    bool mod_store;          /* M: the load part is done, the store part is next */
    uint32_t loads_out;
    Tick load_issued;
    uint64_t load_part_max;  /* the slowest part so far of the load in flight */
    /* stores split across lines in flight: token -> parts left << 40 | slowest part's latency,
     * so that each store is one latency sample, as each load and fetch is */
    GHashTable *split_stores;
    uint32_t sb_used;
    double credit;
    Port *ic, *dc;
    uint32_t line_shift;
    /* stats */
    uint64_t insts, ifetches, loads, stores, modifies, fetch_accesses, load_accesses,
        store_accesses, split_refs, finish_cycle, load_stall_cycles, sb_full_stalls;
    SimHist ifetch_lat, load_lat, store_lat;
} Core;

static const ParamSpec core_params[] = {
    { .name = "trace", .type = PARAM_PATH, .flags = PARAM_F_REQUIRED,
      .doc = "valgrind lackey --trace-mem=yes output, plain or .gz; in a multicore system "
             "%d stands for the core number (t%d.lackey.gz: t0.lackey.gz, t1...)",
      .offset = offsetof(CoreParams, trace) },
    { .name = "cpi", .type = PARAM_DOUBLE, .def = "1.0", .flags = PARAM_F_RANGE, .min = 0.125,
      .max = 1000, .doc = "cycles per instruction spent in execute (memory stalls come on top)",
      .offset = offsetof(CoreParams, cpi) },
    { .name = "fetch_queue", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 256, .doc = "instructions fetched ahead of execute",
      .offset = offsetof(CoreParams, fetch_queue) },
    { .name = "store_buffer", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "stores in flight before execute stalls",
      .offset = offsetof(CoreParams, store_buffer) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "access granule: references crossing it are split",
      .offset = offsetof(CoreParams, line) },
    { .name = "max_insts", .type = PARAM_UINT, .def = "0",
      .doc = "stop after this many instructions (0 = whole trace)",
      .offset = offsetof(CoreParams, max_insts) },
    PARAM_END,
};

static const PortSpec core_ports[] = {
    { .name = "icache", .role = PORT_REQUESTER, .doc = "instruction fetches" },
    { .name = "dcache", .role = PORT_REQUESTER, .required = true, .doc = "loads and stores" },
    PORT_END,
};

#define K(x) ((const Core *)(x))
static double f_ipc(const Component *c)
{
    return stats_ratio((double)K(c)->insts, (double)K(c)->finish_cycle);
}
static double f_cpi(const Component *c)
{
    return stats_ratio((double)K(c)->finish_cycle, (double)K(c)->insts);
}
static double f_amat(const Component *c)
{
    const Core *k = K(c);
    return stats_ratio((double)(k->ifetch_lat.sum + k->load_lat.sum + k->store_lat.sum),
                       (double)(k->ifetch_lat.samples + k->load_lat.samples +
                                k->store_lat.samples));
}
static double f_amat_load(const Component *c)
{
    return stats_ratio((double)K(c)->load_lat.sum, (double)K(c)->load_lat.samples);
}
static double f_amat_ifetch(const Component *c)
{
    return stats_ratio((double)K(c)->ifetch_lat.sum, (double)K(c)->ifetch_lat.samples);
}

static const StatSpec core_stats[] = {
    { "insts", STAT_COUNTER, "count", "instructions retired", offsetof(Core, insts), NULL },
    { "cycles", STAT_STAMP, "cycle", "cycle of the last retirement", offsetof(Core, finish_cycle),
      NULL },
    { "ipc", STAT_FORMULA, "inst/cycle", "insts / cycles", 0, f_ipc },
    { "cpi", STAT_FORMULA, "cycle/inst", "cycles / insts", 0, f_cpi },
    { "ifetches", STAT_COUNTER, "count", "instruction fetches (I records)",
      offsetof(Core, ifetches), NULL },
    { "loads", STAT_COUNTER, "count", "loads (L records)", offsetof(Core, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores (S records)", offsetof(Core, stores), NULL },
    { "modifies", STAT_COUNTER, "count", "read-modify-writes (M records: a load then a store)",
      offsetof(Core, modifies), NULL },
    { "split_refs", STAT_COUNTER, "count", "references split because they cross a line",
      offsetof(Core, split_refs), NULL },
    { "load_stall_cycles", STAT_COUNTER, "cycle", "cycles execute waited for load data",
      offsetof(Core, load_stall_cycles), NULL },
    { "sb_full_stalls", STAT_COUNTER, "count", "times a store found the store buffer full",
      offsetof(Core, sb_full_stalls), NULL },
    { "amat", STAT_FORMULA, "cycle",
      "average memory access time seen by the core: (sum of fetch, load and store latencies) / "
      "references (a line-crossing one counts once, at its slowest part)", 0, f_amat },
    { "amat_load", STAT_FORMULA, "cycle", "mean load latency", 0, f_amat_load },
    { "amat_ifetch", STAT_FORMULA, "cycle", "mean instruction-fetch latency", 0, f_amat_ifetch },
    { "ifetch_latency", STAT_HIST, "cycle", "fetch issue to data", offsetof(Core, ifetch_lat), NULL },
    { "load_latency", STAT_HIST, "cycle", "load issue to data", offsetof(Core, load_lat), NULL },
    { "store_latency", STAT_HIST, "cycle", "store issue to ack", offsetof(Core, store_lat), NULL },
    STAT_END,
};

static bool core_realize(Component *c, GError **error)
{
    Core *k = (Core *)c;
    if (strstr(k->p.trace, "%d")) {
        /* one trace per core: substitute the core number (the only conversion allowed) */
        char **parts = g_strsplit(k->p.trace, "%d", -1);
        char *num = g_strdup_printf("%d", c->index < 0 ? 0 : c->index);
        char *path = g_strjoinv(num, parts);
        g_strfreev(parts);
        g_free(num);
        g_free(k->p.trace);
        k->p.trace = path;
    }
    k->reader = lackey_open(k->p.trace, error);
    if (!k->reader)
        return sim_component_prefix_error(c, "trace", error);
    k->rb = g_new(MemRef, TRACE_BUF);
    k->fq_cap = (uint32_t)k->p.fetch_queue;
    k->fq = g_new0(Instr, k->fq_cap);
    k->ic = sim_port(c, "icache", 0);   /* optional: without it, fetches are free */
    k->dc = sim_port(c, "dcache", 0);
    k->line_shift = (uint32_t)__builtin_ctzll(k->p.line);
    if (!k->dc) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "the dcache port must be connected");
        return false;
    }
    return true;
}

static void core_finalize(Component *c)
{
    Core *k = (Core *)c;
    if (k->reader)
        lackey_close(k->reader);
    if (k->split_stores)
        g_hash_table_destroy(k->split_stores);
    g_free(k->rb);
    g_free(k->fq);
}


/* Next trace record, or NULL at the end (or on error, which fails the run). */
static const MemRef *peek_ref(Core *k)
{
    if (k->rb_pos == k->rb_len) {
        if (k->trace_done)
            return NULL;
        GError *e = NULL;
        k->rb_len = lackey_read(k->reader, k->rb, TRACE_BUF, &e);
        k->rb_pos = 0;
        if (e) {
            sim_fail(k->base.sim, e);
            k->trace_done = true;
            return NULL;
        }
        if (k->rb_len == 0) {
            k->trace_done = true;
            return NULL;
        }
    }
    return &k->rb[k->rb_pos];
}

static void core_start(Component *c)
{
    Core *k = (Core *)c;
    /* a trace without a single reference (a crashed recording, only ==pid== lines) is bad
     * input, not an empty success */
    if (!peek_ref(k) && !c->sim->error) {
        sim_fail(c->sim, g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                     "%s: the trace holds no memory references", k->p.trace));
        return;
    }
    sim_component_wake(c);
}

/* Assembles the next instruction: an I record with the data records after it. */
static bool next_instr(Core *k, Instr *in)
{
    /* an instruction cut at MAX_DATA is always finished, even at the max_insts limit */
    if (k->p.max_insts && !k->in_instr && k->insts + k->queued_insts >= k->p.max_insts) {
        k->trace_done = true;
        return false;
    }
    const MemRef *r = peek_ref(k);
    if (!r)
        return false;
    in->ndata = 0;
    in->pending = 0;
    in->cont = false;
    if (r->kind != MEMREF_IFETCH && k->in_instr) {
        /* more data references of the previous instruction than one entry holds */
        in->has_fetch = false;
        in->cont = true;
        while ((r = peek_ref(k)) && r->kind != MEMREF_IFETCH && in->ndata < MAX_DATA) {
            in->data[in->ndata++] = *r;
            k->rb_pos++;
        }
        k->in_instr = r && r->kind != MEMREF_IFETCH;
        return true;
    }
    if (r->kind == MEMREF_IFETCH) {
        in->fetch = *r;
        in->has_fetch = true;
        k->rb_pos++;
        while ((r = peek_ref(k)) && r->kind != MEMREF_IFETCH && in->ndata < MAX_DATA) {
            in->data[in->ndata++] = *r;
            k->rb_pos++;
        }
        k->in_instr = r && r->kind != MEMREF_IFETCH;
    } else {
        in->has_fetch = false;
        in->data[in->ndata++] = *r;
        k->rb_pos++;
    }
    return true;
}

/* Lines a reference touches. The lackey reader refuses references whose last byte would wrap
 * past 2^64 (a wrapped range would touch no line: a load would wait for nothing, a store would
 * vanish), so here a wrap is a bug. */
static uint64_t ref_lines(const Core *k, const MemRef *r)
{
    g_assert(r->size >= 1 && r->addr <= UINT64_MAX - (r->size - 1));
    return ((r->addr + r->size - 1) >> k->line_shift) - (r->addr >> k->line_shift) + 1;
}

/* Sends one access per line touched; returns the number of parts (at least 1). */
static uint32_t send_parts(Core *k, Port *port, uint16_t cmd, uint16_t flags, const MemRef *r,
                           uint64_t tag)
{
    (void)ref_lines(k, r);
    uint64_t first = r->addr >> k->line_shift;
    uint64_t last = (r->addr + r->size - 1) >> k->line_shift;
    uint32_t n = 0;
    /* one reference: an M's store half is the same reference as its load half */
    if (last != first && !(cmd == MSG_WRITE_REQ && r->kind == MEMREF_MODIFY))
        k->split_refs++;
    for (uint64_t b = first; b <= last; b++, n++) {
        Msg *m = sim_msg_alloc(k->base.sim);
        uint64_t lo = b == first ? r->addr : b << k->line_shift;
        uint64_t hi = b == last ? r->addr + r->size : (b + 1) << k->line_shift;
        m->cmd = cmd;
        m->flags = flags;
        mem_msg(m)->addr = lo;
        m->size = (uint32_t)(hi - lo);
        mem_msg(m)->tag = tag;
        if (cmd == MSG_WRITE_REQ)
            mem_msg(m)->value = tag;   /* for stores the "tag" argument is the value written */
        m->issued = k->base.eng->now;
        sim_port_send(&k->base, port, m, 0);
    }
    g_assert(n >= 1);
    return n;
}

static void retire_head(Core *k)
{
    if (!k->fq[k->fq_head].cont) {
        k->insts++;
        k->queued_insts--;
        sim_count_insts(&k->base, 1);
    }
    k->fq_head = k->fq_head + 1 == k->fq_cap ? 0 : k->fq_head + 1;
    k->fq_count--;
    k->di = 0;
    k->mod_store = false;
    k->ex = EX_IDLE;
    k->finish_cycle = sim_component_cycle(&k->base) + 1;
    sim_progress(k->base.eng);
}

/* Runs the head instruction's data references from k->di; returns true if it completed. */
static bool run_data(Core *k)
{
    Instr *in = &k->fq[k->fq_head];
    while (k->di < in->ndata) {
        const MemRef *r = &in->data[k->di];
        bool is_load = r->kind == MEMREF_LOAD || (r->kind == MEMREF_MODIFY && !k->mod_store);
        if (is_load) {
            if (r->kind == MEMREF_MODIFY)
                k->modifies++;
            else
                k->loads++;
            sim_count_refs(&k->base, 1);
            SIM_TRACE(&k->base, "load", 0, TARG_X("addr", r->addr), TARG_U("size", r->size));
            k->loads_out = send_parts(k, k->dc, MSG_READ_REQ, 0, r, 0);
            k->load_issued = k->base.eng->now;
            k->ex = EX_WAIT_LOAD;
            return false;
        }
        uint64_t parts = ref_lines(k, r);
        /* a store split into more parts than the buffer holds still issues into an empty one */
        if (k->sb_used > 0 && k->sb_used + parts > k->p.store_buffer) {
            if (!k->sb_stalled)
                k->sb_full_stalls++;
            k->sb_stalled = true;
            k->ex = EX_WAIT_SB;
            return false;
        }
        k->sb_stalled = false;
        if (r->kind == MEMREF_STORE) {
            k->stores++;
            sim_count_refs(&k->base, 1);
        }
        SIM_TRACE(&k->base, "store", 0, TARG_X("addr", r->addr), TARG_U("size", r->size));
        /* traces carry no values: each store writes a token unique to (core, store) so the
         * reference memory can tell every write apart */
        k->store_seq++;
        uint64_t token = ((uint64_t)(k->base.index + 1) << 48) | (k->store_seq & 0xffffffffffffull);
        uint32_t sent = send_parts(k, k->dc, MSG_WRITE_REQ, 0, r, token);
        k->sb_used += sent;
        if (G_UNLIKELY(sent > 1)) {
            if (!k->split_stores)
                k->split_stores = g_hash_table_new(g_int64_hash, g_int64_equal);
            uint64_t *key = g_new(uint64_t, 1);
            *key = token;
            g_hash_table_insert(k->split_stores, key,
                                GSIZE_TO_POINTER((gsize)((uint64_t)sent << 40)));
        }
        k->mod_store = false;
        k->di++;
    }
    return true;
}

static uint64_t core_tick(Component *c)
{
    Core *k = (Core *)c;
    /* execute: credit accrues one cycle per tick and an instruction costs cpi, so a fractional
     * CPI averages out exactly (cpi 1.5: two instructions every three cycles) */
    k->credit += 1.0;
    if (k->ex == EX_RESUME || k->ex == EX_WAIT_SB) {
        k->ex = EX_IDLE;
        if (run_data(k))
            retire_head(k);
    }
    while (k->ex == EX_IDLE && k->fq_count > 0 && k->fq[k->fq_head].pending == 0) {
        Instr *head = &k->fq[k->fq_head];
        if (!head->cont) {          /* continuations of one instruction pay no second cpi */
            if (k->credit < k->p.cpi)
                break;
            k->credit -= k->p.cpi;
        }
        k->di = 0;
        if (!run_data(k))
            break;
        retire_head(k);
    }
    /* no hoarding: cycles spent stalled do not pay for later instructions */
    bool head_ready = k->ex == EX_IDLE && k->fq_count > 0 && k->fq[k->fq_head].pending == 0;
    if (!head_ready && k->credit > k->p.cpi)
        k->credit = k->p.cpi;
    /* fetch: one instruction per cycle into the queue */
    if (k->fq_count < k->fq_cap && !k->trace_done) {
        uint32_t slot = k->fq_head + k->fq_count;      /* mod fq_cap, without a division */
        if (slot >= k->fq_cap)
            slot -= k->fq_cap;
        Instr *in = &k->fq[slot];
        if (next_instr(k, in)) {
            k->fq_count++;
            if (!in->cont)
                k->queued_insts++;
            if (in->has_fetch && !k->ic)
                in->has_fetch = false;          /* no instruction cache modelled */
            else if (in->has_fetch) {
                k->ifetches++;
                sim_count_refs(&k->base, 1);
            }
            if (in->has_fetch) {
                in->fetch_issued = c->eng->now;
                SIM_TRACE(c, "fetch", 0, TARG_X("addr", in->fetch.addr));
                in->pending = send_parts(k, k->ic, MSG_READ_REQ, MSG_F_IFETCH, &in->fetch, slot);
            }
        }
    }
    bool exec_ready = k->ex == EX_IDLE && k->fq_count > 0 && k->fq[k->fq_head].pending == 0;
    bool fetch_ready = k->fq_count < k->fq_cap && !k->trace_done;
    if (k->trace_done && k->fq_count == 0 && k->ex == EX_IDLE && k->sb_used == 0 && !k->done) {
        k->done = true;
        SIM_TRACE(c, "done", 0, TARG_U("insts", k->insts));
    }
    return exec_ready || fetch_ready ? 1 : 0;
}

static void core_recv(Component *c, Port *port, Msg *m)
{
    Core *k = (Core *)c;
    sim_progress(c->eng);    /* a completed memory operation is progress for the watchdog */
    uint64_t lat = clock_cycle(c->clk, c->eng->now - m->issued);
    if (port == k->ic) {
        Instr *in = &k->fq[mem_msg(m)->tag];
        g_assert(in->pending > 0);
        if (--in->pending == 0)
            sim_hist_add(&k->ifetch_lat, clock_cycle(c->clk, c->eng->now - in->fetch_issued));
        if (in->pending == 0 && mem_msg(m)->tag == k->fq_head && k->ex == EX_IDLE)
            sim_component_wake(c);
    } else if (m->cmd == MSG_READ_RESP) {
        /* one sample per load, its slowest part (load to use), as a fetch is one per fetch */
        k->load_part_max = MAX(k->load_part_max, lat);
        g_assert(k->loads_out > 0);
        if (--k->loads_out == 0) {
            sim_hist_add(&k->load_lat, k->load_part_max);
            k->load_part_max = 0;
            k->load_stall_cycles += clock_cycle(c->clk, c->eng->now - k->load_issued);
            Instr *in = &k->fq[k->fq_head];
            if (in->data[k->di].kind == MEMREF_MODIFY)
                k->mod_store = true;      /* the store half of M comes next */
            else
                k->di++;
            k->ex = EX_RESUME;
            sim_component_wake(c);
        }
    } else {
        g_assert(m->cmd == MSG_WRITE_RESP && k->sb_used > 0);
        uint64_t token = mem_msg(m)->tag;
        gpointer key = NULL, v = NULL;
        if (G_UNLIKELY(k->split_stores != NULL) &&
            g_hash_table_lookup_extended(k->split_stores, &token, &key, &v)) {
            uint64_t left = (uint64_t)GPOINTER_TO_SIZE(v) >> 40;
            uint64_t slow = MAX((uint64_t)GPOINTER_TO_SIZE(v) & ((1ull << 40) - 1), lat);
            if (left > 1) {
                g_hash_table_insert(k->split_stores, key,
                                    GSIZE_TO_POINTER((gsize)((left - 1) << 40 | slow)));
            } else {
                sim_hist_add(&k->store_lat, slow);     /* the store's last part is done */
                g_hash_table_remove(k->split_stores, &token);
                g_free(key);
            }
        } else {
            sim_hist_add(&k->store_lat, lat);
        }
        k->sb_used--;
        if (k->ex == EX_WAIT_SB || (k->sb_used == 0 && k->trace_done))
            sim_component_wake(c);
    }
    sim_msg_free(c->sim, m);
}

static void core_dump(Component *c, GString *out)
{
    static const char *const ex_names[] = { "idle", "wait_load", "wait_store_buffer", "resume" };
    Core *k = (Core *)c;
    g_string_append_printf(out,
                           "  insts %" G_GUINT64_FORMAT ", execute %s, fetch queue %u/%u, "
                           "loads out %u, store buffer %u/%" G_GUINT64_FORMAT ", trace %s\n",
                           k->insts, ex_names[k->ex], k->fq_count, k->fq_cap, k->loads_out,
                           k->sb_used, k->p.store_buffer, k->trace_done ? "done" : "open");
}

static bool core_busy(const Component *c) { return !((const Core *)c)->done; }

static double core_progress(const Component *c)
{
    const Core *k = (const Core *)c;
    if (k->p.max_insts)
        return (double)k->insts / (double)k->p.max_insts;
    return k->done ? 1.0 : lackey_progress(k->reader);
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent trace_teach_events[] = {
    { "load", TEACH_LOAD }, { "store", TEACH_STORE },
    TEACH_EVENTS_END,
};

const ComponentClass trace_core_class = {
    .name = "trace-core",
    .doc = "in-order core replaying a lackey memory trace: fetch queue, fixed CPI, store buffer",
    .size = sizeof(Core),
    .params_offset = offsetof(Core, p),
    .params = core_params,
    .ports = core_ports,
    .stats = core_stats,
    .realize = core_realize,
    .start = core_start,
    .tick = core_tick,
    .recv = core_recv,
    .dump = core_dump,
    .busy = core_busy,
    .progress = core_progress,
    .finalize = core_finalize,
    .check_link = mem_link_line_down,
    .teach_events = trace_teach_events,
};
