/* pattern.c: two front ends that need no captured trace.
 *
 * pattern-core: a core that walks one of the classic sharing layouts of the coherence
 * literature (Culler & Singh ch. 5; Hennessy & Patterson 5.3) with real values:
 *   private            each core reads/writes its own words (no sharing)
 *   shared_ro          every core reads the same words (read-only sharing)
 *   producer_consumer  core 0 writes words that the other cores read
 *   migratory          every core read-modify-writes the same words in turn
 *   false_sharing      each core read-modify-writes its OWN word; the words sit `spacing` bytes
 *                      apart, so with spacing < line they share lines (use spacing = line for
 *                      the padded layout)
 *   true_sharing       every core read-modify-writes the SAME word
 * One memory op at a time, `gap` cycles of compute between ops.
 *
 * random-tester: gem5's Ruby random tester in spirit: random loads and stores of 1, 2, 4 or 8
 * bytes to a few lines laid out for false and true sharing, with random gaps and several ops in
 * flight; every load is checked against the reference memory by the caches (models/mem/oracle.h).
 */
#include "pattern.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include "../../sim/error.h"

/* ---- pattern-core ------------------------------------------------------------------------ */

enum { PAT_PRIVATE, PAT_SHARED_RO, PAT_PRODCONS, PAT_MIGRATORY, PAT_FALSE, PAT_TRUE };
static const char *const pattern_choices[] = { "private", "shared_ro", "producer_consumer",
                                               "migratory", "false_sharing", "true_sharing",
                                               NULL };

typedef struct {
    int pattern;
    uint64_t ops, base, words, word, spacing, gap;
    double write_ratio;
} PatParams;

typedef struct {
    Component base;
    PatParams p;
    Port *dc;
    uint64_t word_idx;       /* issued % words, kept as a counter */
    uint64_t own_base;       /* private: base + index * words * spacing, this core's words */
    uint64_t value_tag;      /* (index + 1) << 48: the top of every value it writes */
    uint64_t store_below;    /* private: a draw below this (of 10^6) is a store */
    uint64_t issued, done_ops, cycle_done;
    bool waiting, rmw_store, finished;
    uint64_t rmw_addr;
    uint64_t loads, stores;
    SimHist lat;
} PatCore;

static const ParamSpec pat_params[] = {
    { .name = "pattern", .type = PARAM_ENUM, .def = "private", .choices = pattern_choices,
      .doc = "sharing layout (see describe text)", .offset = offsetof(PatParams, pattern) },
    { .name = "ops", .type = PARAM_UINT, .def = "10000", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e12, .doc = "memory operations per core (a read-modify-write counts once)",
      .offset = offsetof(PatParams, ops) },
    { .name = "base", .type = PARAM_UINT, .def = "0x100000", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e15, .doc = "first address (every core's words end below 2^64: at most 10^15)",
      .offset = offsetof(PatParams, base) },
    { .name = "words", .type = PARAM_UINT, .def = "16", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1 << 24, .doc = "words each core cycles through",
      .offset = offsetof(PatParams, words) },
    { .name = "word", .type = PARAM_SIZE, .def = "8B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 1, .max = 8, .doc = "access size", .offset = offsetof(PatParams, word) },
    { .name = "spacing", .type = PARAM_SIZE, .def = "8B", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1 << 20, .doc = "distance between words: false_sharing, one word per core this far "
      "apart; private, a core's own words this far apart (its region: words x spacing)",
      .offset = offsetof(PatParams, spacing) },
    { .name = "gap", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e6, .doc = "compute cycles between memory operations",
      .offset = offsetof(PatParams, gap) },
    { .name = "write_ratio", .type = PARAM_DOUBLE, .def = "0.3", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1, .doc = "private pattern: fraction of stores",
      .offset = offsetof(PatParams, write_ratio) },
    PARAM_END,
};

static const PortSpec pat_ports[] = {
    { .name = "dcache", .role = PORT_REQUESTER, .required = true, .doc = "loads and stores" },
    PORT_END,
};

#define PC(x) ((const PatCore *)(x))
static double f_pat_cycles_per_op(const Component *c)
{
    return stats_ratio((double)PC(c)->cycle_done, (double)PC(c)->done_ops);
}

static const StatSpec pat_stats[] = {
    { "ops", STAT_COUNTER, "count", "memory operations completed", offsetof(PatCore, done_ops),
      NULL },
    { "loads", STAT_COUNTER, "count", "loads issued", offsetof(PatCore, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores issued", offsetof(PatCore, stores), NULL },
    { "cycles", STAT_STAMP, "cycle", "cycle of the last completion", offsetof(PatCore, cycle_done),
      NULL },
    { "cycles_per_op", STAT_FORMULA, "cycle", "cycles / ops", 0, f_pat_cycles_per_op },
    { "latency", STAT_HIST, "cycle", "access latency", offsetof(PatCore, lat), NULL },
    STAT_END,
};

/* reuse: the answer just received, sent again as the next request (NULL: a new message) */
static inline __attribute__((always_inline)) void pat_send(PatCore *k, Msg *reuse, bool store,
                                                           uint64_t addr, uint64_t delay)
{
    Msg *m = reuse ? sim_msg_reuse(reuse) : sim_msg_alloc(k->base.sim);
    m->cmd = store ? MSG_WRITE_REQ : MSG_READ_REQ;
    mem_msg(m)->addr = addr;
    m->size = (uint32_t)k->p.word;
    mem_msg(m)->value = k->value_tag | (k->issued & 0xffffffffffffull);
    m->issued = k->base.eng->now;
    if (store)
        k->stores++;
    else
        k->loads++;
    k->waiting = true;
    sim_port_send(&k->base, k->dc, m, delay);
}

/* Issues the next op `delay` cycles from now (the compute gap), or finishes. Sending with a
 * delay instead of sleeping and ticking saves one event per operation. reuse: as pat_send's
 * (freed here when the core has finished). */
static inline __attribute__((always_inline)) void pat_next(Component *c, Msg *reuse,
                                                           uint64_t delay)
{
    PatCore *k = (PatCore *)c;
    if (k->issued == k->p.ops) {
        k->finished = true;
        if (reuse)
            sim_msg_free(c->sim, reuse);
        return;
    }
    int me = c->index < 0 ? 0 : c->index;
    uint64_t w = k->word_idx, word = k->p.word, base = k->p.base;
    if (++k->word_idx == k->p.words)
        k->word_idx = 0;
    uint64_t addr;
    bool store = false, rmw = false;
    switch (k->p.pattern) {
    case PAT_PRIVATE:
        addr = k->own_base + w * k->p.spacing;
        store = sim_rng_below(&c->rng, 1000000) < k->store_below;
        break;
    case PAT_SHARED_RO:
        addr = base + w * word;
        break;
    case PAT_PRODCONS:
        addr = base + w * word;
        store = me == 0;
        break;
    case PAT_MIGRATORY:
        addr = base + w * word;
        rmw = true;
        break;
    case PAT_FALSE:
        addr = base + (uint64_t)me * k->p.spacing;
        rmw = true;
        break;
    default:
        addr = base;
        rmw = true;
        break;
    }
    k->issued++;
    k->rmw_store = rmw;
    k->rmw_addr = addr;
    pat_send(k, reuse, store, addr, delay);
}

static uint64_t pat_tick(Component *c)
{
    PatCore *k = (PatCore *)c;
    if (!k->waiting && !k->finished)
        pat_next(c, NULL, 0);
    return 0;
}

static void pat_recv(Component *c, Port *port, Msg *m)
{
    PatCore *k = (PatCore *)c;
    (void)port;
    SIM_TRACE(c, m->cmd == MSG_WRITE_RESP ? "store" : "load", 0, TARG_X("addr", mem_msg(m)->addr),
              TARG_X("value", mem_msg(m)->value), TARG_S("cache", k->dc->peer->owner->name));
    sim_hist_add(&k->lat, clock_cycle(c->clk, c->eng->now - m->issued));
    sim_progress(c->eng);
    if (k->rmw_store) {                     /* the store half of a read-modify-write */
        k->rmw_store = false;
        pat_send(k, m, true, k->rmw_addr, 0);
        return;
    }
    k->waiting = false;
    k->done_ops++;
    sim_count_refs(&k->base, 1);
    k->cycle_done = sim_component_cycle(c) + 1;
    pat_next(c, m, k->p.gap);
}

static bool pat_realize(Component *c, GError **error)
{
    PatCore *k = (PatCore *)c;
    k->dc = sim_port(c, "dcache", 0);
    if (!k->dc) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "dcache is not connected");
        return false;
    }
    k->store_below = (uint64_t)(k->p.write_ratio * 1000000);
    uint64_t me = c->index < 0 ? 0 : (uint64_t)c->index;
    k->own_base = k->p.base + me * k->p.words * k->p.spacing;
    k->value_tag = (uint64_t)(c->index + 1) << 48;
    if (k->p.base % k->p.word || k->p.spacing % k->p.word) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "base and spacing must be multiples of word (%" G_GUINT64_FORMAT " B)",
                    k->p.word);
        return false;
    }
    return true;
}

bool pattern_check_private(Component *core, uint64_t line, GError **error)
{
    if (core->cls != &pattern_core_class)
        return true;
    const PatCore *k = (const PatCore *)core;
    uint64_t region = k->p.words * k->p.spacing;
    if (k->p.pattern != PAT_PRIVATE || line == 0 || (region % line == 0 && k->p.base % line == 0))
        return true;
    return sim_component_reject(core, k->p.base % line ? "base" : "words", error,
                                "the private pattern gives each core words x spacing = %"
                                G_GUINT64_FORMAT " B from base 0x%" G_GINT64_MODIFIER "x, which "
                                "does not start and end on %" G_GUINT64_FORMAT " B lines: cores "
                                "would share lines (false sharing, not private data); hint: make "
                                "words x spacing and base multiples of l1d.line",
                                region, k->p.base, line);
}

static void pat_start(Component *c) { sim_component_wake(c); }
static bool pat_busy(const Component *c) { return !PC(c)->finished; }
static double pat_progress(const Component *c)
{
    return (double)PC(c)->done_ops / (double)PC(c)->p.ops;
}
static void pat_dump(Component *c, GString *out)
{
    PatCore *k = (PatCore *)c;
    g_string_append_printf(out, "  %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ops%s\n",
                           k->done_ops, k->p.ops, k->waiting ? ", waiting for memory" : "");
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent pattern_teach_events[] = {
    { "load", TEACH_LOAD }, { "store", TEACH_STORE },
    TEACH_EVENTS_END,
};

const ComponentClass pattern_core_class = {
    .name = "pattern-core",
    .doc = "core walking a synthetic sharing pattern (private, shared_ro, producer_consumer, "
           "migratory, false_sharing, true_sharing)",
    .size = sizeof(PatCore),
    .params_offset = offsetof(PatCore, p),
    .params = pat_params,
    .ports = pat_ports,
    .stats = pat_stats,
    .realize = pat_realize,
    .start = pat_start,
    .tick = pat_tick,
    .recv = pat_recv,
    .dump = pat_dump,
    .busy = pat_busy,
    .progress = pat_progress,
    .check_link = mem_link_line_down,
    .teach_events = pattern_teach_events,
};

/* ---- random-tester ---------------------------------------------------------------------- */

typedef struct {
    uint64_t ops, lines, line, base, stride, outstanding, max_gap;
    double write_ratio;
} TesterParams;

typedef struct {
    Component base;
    TesterParams p;
    Port *dc;
    uint64_t issued, completed, inflight;
    uint64_t loads, stores, cycle_done;
    bool finished;
} Tester;

static const ParamSpec tester_params[] = {
    { .name = "ops", .type = PARAM_UINT, .def = "1000", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e12, .doc = "random loads and stores per core",
      .offset = offsetof(TesterParams, ops) },
    { .name = "lines", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1 << 20, .doc = "lines the addresses fall in (few: heavy true and false sharing)",
      .offset = offsetof(TesterParams, lines) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "line size of the layout (the caches' line)",
      .offset = offsetof(TesterParams, line) },
    { .name = "base", .type = PARAM_UINT, .def = "0x40000", .doc = "first address",
      .offset = offsetof(TesterParams, base) },
    { .name = "stride", .type = PARAM_SIZE, .def = "4KiB", .flags = PARAM_F_RANGE, .min = 8,
      .max = 1ull << 30,
      .doc = "distance between the lines (a multiple of the caches' set span makes them "
             "conflict, which exercises replacements and write-backs)",
      .offset = offsetof(TesterParams, stride) },
    { .name = "outstanding", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 64, .doc = "ops in flight per core", .offset = offsetof(TesterParams, outstanding) },
    { .name = "max_gap", .type = PARAM_CYCLES, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e6, .doc = "random 1..max_gap cycles between issues (randomizes races)",
      .offset = offsetof(TesterParams, max_gap) },
    { .name = "write_ratio", .type = PARAM_DOUBLE, .def = "0.4", .flags = PARAM_F_RANGE,
      .min = 0, .max = 1, .doc = "fraction of stores", .offset = offsetof(TesterParams, write_ratio) },
    PARAM_END,
};

static const StatSpec tester_stats[] = {
    { "ops", STAT_COUNTER, "count", "ops completed", offsetof(Tester, completed), NULL },
    { "loads", STAT_COUNTER, "count", "loads issued (each checked by the reference memory)",
      offsetof(Tester, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores issued", offsetof(Tester, stores), NULL },
    { "cycles", STAT_STAMP, "cycle", "cycle of the last completion", offsetof(Tester, cycle_done),
      NULL },
    STAT_END,
};

static uint64_t tester_tick(Component *c)
{
    Tester *k = (Tester *)c;
    if (k->issued == k->p.ops || k->inflight >= k->p.outstanding)
        return 0;
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    uint32_t size = sizes[sim_rng_below(&c->rng, 4)];
    if (size > k->p.line)
        size = (uint32_t)k->p.line;
    uint64_t line = sim_rng_below(&c->rng, k->p.lines);
    uint64_t off = sim_rng_below(&c->rng, k->p.line / size) * size;   /* aligned: no straddle */
    bool store = sim_rng_below(&c->rng, 1000000) < (uint64_t)(k->p.write_ratio * 1000000);
    Msg *m = sim_msg_alloc(c->sim);
    m->cmd = store ? MSG_WRITE_REQ : MSG_READ_REQ;
    mem_msg(m)->addr = k->p.base + line * k->p.stride + off;
    m->size = size;
    mem_msg(m)->value = ((uint64_t)(c->index + 1) << 56) ^ (k->issued * 0x9E3779B97F4A7C15ull);
    m->issued = c->eng->now;
    if (store)
        k->stores++;
    else
        k->loads++;
    k->issued++;
    k->inflight++;
    sim_port_send(c, k->dc, m, 0);
    return 1 + sim_rng_below(&c->rng, k->p.max_gap);
}

static void tester_recv(Component *c, Port *port, Msg *m)
{
    Tester *k = (Tester *)c;
    (void)port;
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    k->inflight--;
    k->completed++;
    k->cycle_done = sim_component_cycle(c) + 1;
    if (k->completed == k->p.ops)
        k->finished = true;
    else if (k->issued < k->p.ops)
        sim_component_wake(c);
}

static bool tester_realize(Component *c, GError **error)
{
    Tester *k = (Tester *)c;
    k->dc = sim_port(c, "dcache", 0);
    if (!k->dc) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "dcache is not connected");
        return false;
    }
    if (k->p.stride < k->p.line || k->p.stride % k->p.line) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "stride must be a multiple of line");
        return false;
    }
    return true;
}

static bool tester_busy(const Component *c) { return !((const Tester *)c)->finished; }
static double tester_progress(const Component *c)
{
    return (double)((const Tester *)c)->completed / (double)((const Tester *)c)->p.ops;
}
static void tester_dump(Component *c, GString *out)
{
    Tester *k = (Tester *)c;
    g_string_append_printf(out, "  %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                           " ops done, %" G_GUINT64_FORMAT " in flight\n",
                           k->completed, k->p.ops, k->inflight);
}

const ComponentClass random_tester_class = {
    .name = "random-tester",
    .doc = "random loads/stores to a few shared lines, every load checked (Ruby tester style)",
    .size = sizeof(Tester),
    .params_offset = offsetof(Tester, p),
    .params = tester_params,
    .ports = pat_ports,
    .stats = tester_stats,
    .realize = tester_realize,
    .start = pat_start,
    .tick = tester_tick,
    .recv = tester_recv,
    .dump = tester_dump,
    .busy = tester_busy,
    .progress = tester_progress,
    .check_link = mem_link_line_down,
};
