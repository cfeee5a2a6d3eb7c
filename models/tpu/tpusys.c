/* tpusys.c: the systolic array as an `archsim run` machine (`system.type: tpu`, configs/tpu/):
 * one component, `tpu-array`, whose parameters are SCALE-Sim's .cfg keys in archsim's units
 * plus the topology, and whose memory port `mem` carries its SRAM fills and drains as messages
 * to whatever the machine links it to: `tpu-memory` (tpumem.c, SCALE-Sim's CALC/USER interface)
 * or a timed memory such as `dram`. The run simulates the layers one after the other
 * (tpumodel.c gives each layer's cycles and DRAM traffic), plays each layer out fold by fold on
 * the port (docs/tpu.md, "The memory port"), so sim.cycles is the network's cycle count, stalls
 * included, keeps only each layer's report line, and writes SCALE-Sim's three reports into the
 * run directory beside the usual stats files.
 *
 *   edge S        S+1 = b0        b1              b2 ...          bF = next layer's S
 *   |analytic     |fold 0         |fold 1         |               |
 *   fill 0 ->     fill 1 ->       fill 2 ->        ...
 *                       drain 0 ->|     drain 1 ->|     drain F-1 ->|
 * A fold starts once its fill has been answered (double buffering: fill i+1 goes out as fold
 * i starts); the layer ends once every drain has been acknowledged. Time lost waiting is the
 * port's stall (mem.stall_cycles): none with tpu-memory, whose answers come within the cycle.
 */
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../mem/memmsg.h"
#include "tpu.h"

typedef struct {
    uint64_t rows, cols, ifmap_sram, filter_sram, ofmap_sram, bandwidth;
    int64_t ifmap_offset, filter_offset, ofmap_offset;
    int dataflow, interface, input;
    char *topology;
    bool compat;
    uint64_t transfer;           /* bytes per message on the mem port; 0: a block a message */
} TaParams;

/* The mem port's operands, told apart by address (the .cfg's offsets), as SCALE-Sim's three
 * DRAM interfaces are: IFMAP and filter fills are reads, OFMAP drains writes. */
enum { TA_IFMAP = 0, TA_FILTER, TA_OFMAP, TA_NOPS };

/* Where the layer under way stands on the port (ta_tick's steps). */
typedef enum {
    TA_NEXT_LAYER = 0,           /* at the edge: run the next layer's model, send fold 0's fill */
    TA_FOLD_START,               /* fold `fold` may start once its fill is answered */
    TA_DRAIN,                    /* the fold's last cycle: send its drain */
    TA_FOLD_END,                 /* the fold is over */
    TA_LAYER_END,                /* every drain acknowledged: the layer is over */
} TaStep;

/* The layers of `archsim tpu` (tpu_port_run): the CLI's architecture, topology and hooks. */
typedef struct {
    const TpuArch *arch;
    const TpuTopology *topo;
    TpuLayerRunFn run;
    TpuLayerDoneFn done;
    void *ctx;
} TaCli;

typedef struct {
    Component base;
    TaParams p;
    const TaCli *cli;            /* set: the CLI's layers (arch and topo borrowed), else NULL */
    TpuArch arch;
    TpuTopology topo;
    bool loaded;
    GArray *results;             /* TpuLayerResult per layer */
    int next;                    /* next layer to simulate */
    Port *mem;                   /* the memory port (requester) */
    bool timed;                  /* the peer is a timed memory, not tpu-memory (extra stats) */
    /* the layer under way on the port */
    TaStep step;
    TpuLayerResult cur;          /* its model's result */
    uint64_t at;                 /* cycle of the next step */
    uint64_t fold, nfolds;       /* fold under way; folds played out (<= the layer's cycles) */
    uint64_t len, start;         /* the layer's cycles (>= 1); cycle its fold 0 was to start */
    uint64_t planned;            /* cycle the fold under way was to start (before port stalls) */
    uint64_t layer_stall;        /* port stall cycles of the layer so far */
    uint64_t words[TA_NOPS];     /* the layer's traffic per operand (words = bytes) */
    uint64_t region[TA_NOPS];    /* each operand's size in words: addresses wrap inside it */
    uint64_t pos[TA_NOPS];       /* words of each operand sent so far in the layer */
    uint64_t fill_left;          /* fill messages not yet answered (one block at a time) */
    uint64_t drain_left;         /* drain messages not yet acknowledged */
    bool waiting;                /* asleep until the port answers */
    /* stats */
    uint64_t cycles, stalls, macs, sram_reads, sram_writes, dram_reads, dram_writes, folds;
    uint64_t sampled;            /* layers whose DRAM reads were sampled */
    uint64_t mem_reqs, mem_read, mem_written, mem_stalls;   /* the port's traffic and stalls */
    double util_sum;
} TArray;

static const char *const df_choices[] = { "os", "ws", "is", NULL };
static const char *const if_choices[] = { "calc", "user", NULL };
static const char *const in_choices[] = { "conv", "gemm", NULL };

static const ParamSpec ta_params[] = {
    { .name = "topology", .type = PARAM_PATH, .def = NULL,
      .doc = "SCALE-Sim topology CSV (conv rows, or name, M, N, K with input: gemm)",
      .offset = offsetof(TaParams, topology) },
    { .name = "input", .type = PARAM_ENUM, .def = "conv", .choices = in_choices,
      .doc = "the topology's form", .offset = offsetof(TaParams, input) },
    { .name = "rows", .type = PARAM_UINT, .def = "32", .flags = PARAM_F_RANGE, .min = 1,
      .max = TPU_MAX_ARRAY_DIM, .doc = "PE rows (SCALE-Sim ArrayHeight)", .offset = offsetof(TaParams, rows) },
    { .name = "cols", .type = PARAM_UINT, .def = "32", .flags = PARAM_F_RANGE, .min = 1,
      .max = TPU_MAX_ARRAY_DIM, .doc = "PE columns (ArrayWidth)", .offset = offsetof(TaParams, cols) },
    { .name = "ifmap_sram", .type = PARAM_SIZE, .def = "64KiB", .flags = PARAM_F_RANGE,
      .min = 1024, .max = TPU_MAX_SRAM_KB * 1024, .doc = "IFMAP SRAM, double buffered (whole KiB)",
      .offset = offsetof(TaParams, ifmap_sram) },
    { .name = "filter_sram", .type = PARAM_SIZE, .def = "64KiB", .flags = PARAM_F_RANGE,
      .min = 1024, .max = TPU_MAX_SRAM_KB * 1024, .doc = "filter SRAM (whole KiB)",
      .offset = offsetof(TaParams, filter_sram) },
    { .name = "ofmap_sram", .type = PARAM_SIZE, .def = "64KiB", .flags = PARAM_F_RANGE,
      .min = 1024, .max = TPU_MAX_SRAM_KB * 1024, .doc = "OFMAP SRAM (whole KiB)",
      .offset = offsetof(TaParams, ofmap_sram) },
    { .name = "dataflow", .type = PARAM_ENUM, .def = "os", .choices = df_choices,
      .doc = "output, weight or input stationary", .offset = offsetof(TaParams, dataflow) },
    { .name = "interface", .type = PARAM_ENUM, .def = "calc", .choices = if_choices,
      .doc = "DRAM interface: calc (stall-free, report the bandwidth needed) or user (bandwidth "
      "words/cycle, stalls)", .offset = offsetof(TaParams, interface) },
    { .name = "bandwidth", .type = PARAM_UINT, .def = "10", .flags = PARAM_F_RANGE, .min = 1,
      .max = TPU_MAX_BANDWIDTH, .doc = "DRAM words per cycle (interface user)",
      .offset = offsetof(TaParams, bandwidth) },
    { .name = "ifmap_offset", .type = PARAM_INT, .def = "0", .flags = PARAM_F_RANGE, .min = 0,
      .max = TPU_MAX_OFFSET,
      .doc = "address of the IFMAP's first word", .offset = offsetof(TaParams, ifmap_offset) },
    { .name = "filter_offset", .type = PARAM_INT, .def = "10000000", .flags = PARAM_F_RANGE,
      .min = 0, .max = TPU_MAX_OFFSET,
      .doc = "address of the filters' first word", .offset = offsetof(TaParams, filter_offset) },
    { .name = "ofmap_offset", .type = PARAM_INT, .def = "20000000", .flags = PARAM_F_RANGE,
      .min = 0, .max = TPU_MAX_OFFSET,
      .doc = "address of the OFMAP's first word", .offset = offsetof(TaParams, ofmap_offset) },
    { .name = "scalesim_compat", .type = PARAM_BOOL, .def = "false",
      .doc = "SCALE-Sim v2's numbers, quirks included (docs/experiments/systolic.md)",
      .offset = offsetof(TaParams, compat) },
    { .name = "transfer", .type = PARAM_SIZE, .def = "0", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1u << 30,
      .doc = "bytes per message on the mem port (0: one message per fill or drain block and "
      "operand); a timed memory takes its own size (dram: at most 4KiB)",
      .offset = offsetof(TaParams, transfer) },
    PARAM_END,
};

#define TA(x) ((const TArray *)(x))
static double f_layers(const Component *c) { return (double)TA(c)->next; }
static double f_util(const Component *c)
{
    const TArray *t = TA(c);
    return stats_ratio((double)t->macs * 100.0,
                       (double)t->cycles * (double)t->p.rows * (double)t->p.cols);
}

static const StatSpec ta_stats[] = {
    { "layers", STAT_FORMULA_U64, "count", "layers simulated", 0, f_layers },
    { "cycles", STAT_COUNTER, "cycle", "Total Cycles summed over the layers (as reported)",
      offsetof(TArray, cycles), NULL },
    { "stall_cycles", STAT_COUNTER, "cycle", "Stall Cycles summed", offsetof(TArray, stalls),
      NULL },
    { "macs", STAT_COUNTER, "count", "multiply-accumulates (M x N x K per layer)",
      offsetof(TArray, macs), NULL },
    { "folds", STAT_COUNTER, "count", "array folds", offsetof(TArray, folds), NULL },
    { "utilization", STAT_FORMULA, "percent", "macs x 100 / (cycles x rows x cols)", 0, f_util },
    { "sram_reads", STAT_COUNTER, "word", "IFMAP and filter SRAM reads",
      offsetof(TArray, sram_reads), NULL },
    { "sram_writes", STAT_COUNTER, "word", "OFMAP SRAM writes", offsetof(TArray, sram_writes),
      NULL },
    { "dram_reads", STAT_COUNTER, "word", "IFMAP and filter DRAM reads",
      offsetof(TArray, dram_reads), NULL },
    { "dram_writes", STAT_COUNTER, "word", "OFMAP DRAM writes", offsetof(TArray, dram_writes),
      NULL },
    { "sampled_layers", STAT_COUNTER, "count",
      "layers whose IFMAP and filter DRAM reads were sampled (docs/tpu.md, huge layers)",
      offsetof(TArray, sampled), NULL },
    STAT_END,
};

static bool ta_realize(Component *c, GError **error)
{
    TArray *t = (TArray *)c;
    const TaParams *p = &t->p;
    if (t->cli) {                /* the CLI has loaded and checked them */
        t->arch = *t->cli->arch;
        t->topo = *t->cli->topo;
        return true;
    }
    if (!p->topology) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s.topology: missing: give a SCALE-Sim topology CSV", c->name);
        return false;
    }
    const char *bad = p->ifmap_sram % 1024 ? "ifmap_sram" : p->filter_sram % 1024 ? "filter_sram"
                      : p->ofmap_sram % 1024 ? "ofmap_sram" : NULL;
    if (bad) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s.%s: must be a whole number of KiB (SCALE-Sim's unit)", c->name, bad);
        return false;
    }
    t->arch = (TpuArch){ .run_name = g_strdup(c->name), .rows = p->rows, .cols = p->cols,
                         .ifmap_kb = p->ifmap_sram / 1024, .filter_kb = p->filter_sram / 1024,
                         .ofmap_kb = p->ofmap_sram / 1024, .ifmap_offset = p->ifmap_offset,
                         .filter_offset = p->filter_offset, .ofmap_offset = p->ofmap_offset,
                         .dataflow = (TpuDataflow)p->dataflow,
                         .bw_mode = p->interface ? TPU_BW_USER : TPU_BW_CALC,
                         .bandwidth = p->bandwidth, .file = g_strdup(c->name) };
    if (!tpu_topology_load(p->topology, p->input == 1, &t->topo, error))
        return false;
    /* the reader's warnings (title rows): the model has no other channel to the user; they
     * come before the run's own output, as the CLI prints them */
    for (guint i = 0; t->topo.warnings != NULL && i < t->topo.warnings->len; i++)
        fprintf(stderr, "%s\n", (const char *)g_ptr_array_index(t->topo.warnings, i));
    t->loaded = true;
    t->results = g_array_new(FALSE, FALSE, sizeof(TpuLayerResult));
    if (!sim_port(c, "mem", 0))      /* a machine graph checks it first (PortSpec.required) */
        return sim_component_reject(c, NULL, error, "the mem port is not linked: link it to a "
                                    "tpu-memory or a dram");
    /* a layer the model would refuse (too large for its memory) fails the build, not the run */
    for (int i = 0; i < t->topo.nlayers; i++) {
        GError *e = NULL;
        if (!tpu_layer_check(&t->arch, &t->topo.layers[i], p->compat, false, &e)) {
            g_set_error(error, e->domain, e->code, "%s:%u:1: %s", t->topo.file,
                        t->topo.layers[i].line, e->message);
            g_error_free(e);
            return false;
        }
    }
    return true;
}

static void ta_start(Component *c)
{
    TArray *t = (TArray *)c;
    t->mem = sim_port(c, "mem", 0);  /* linked: ta_realize checked */
    t->timed = t->mem->peer->owner->cls != &tpu_memory_class;
    sim_component_wake(c);
}

/* ---- the memory port ----------------------------------------------------------------------
 * The model gives a layer's DRAM traffic per operand; it goes out spread evenly over the
 * layer's folds (block i of W words over F folds: W / F, one more for i < W mod F), so that
 * what the port moves is exactly the reports' DRAM reads and writes. */
#define TA_MAX_MSG (1ull << 30)      /* a message's size is 32 bits: blocks beyond go in parts */
/* A layer of more folds than this (SCALE-Sim's huge GEMMs: 10^8 folds) plays out in this many
 * blocks of consecutive folds, so that the port costs at most a few hundred thousand events a
 * layer beside the model's own time. */
#define TA_MAX_BLOCKS (1ull << 16)

static int64_t ta_offset(const TArray *t, int op)
{
    return op == TA_IFMAP ? t->arch.ifmap_offset
           : op == TA_FILTER ? t->arch.filter_offset : t->arch.ofmap_offset;
}

/* Sends block `fold`'s words of operand op: reads for the fills, writes for the drain, each of
 * at most tpu.transfer bytes (a word is a byte), at addresses that walk the operand's region
 * (its offset + the words sent so far, modulo the operand's size) and, with a transfer size,
 * never cross its end. */
static void ta_send_block(TArray *t, int op, uint64_t fold)
{
    Component *c = &t->base;
    uint64_t w = t->words[op] / t->nfolds + (fold < t->words[op] % t->nfolds);
    uint64_t max = t->p.transfer ? t->p.transfer : TA_MAX_MSG;
    while (w) {
        uint64_t in = t->pos[op] % t->region[op];
        uint64_t k = MIN(w, max);
        if (t->p.transfer)           /* a block a message may stand for re-reads of a region */
            k = MIN(k, t->region[op] - in);
        Msg *m = sim_msg_alloc(c->sim);
        m->cmd = op == TA_OFMAP ? MSG_WRITE_REQ : MSG_READ_REQ;
        mem_msg(m)->addr = (uint64_t)ta_offset(t, op) + in;
        m->size = (uint32_t)k;
        mem_msg(m)->tag = (uint64_t)op;
        m->issued = c->eng->now;
        if (op == TA_OFMAP) {
            t->drain_left++;
            t->mem_written += k;
        } else {
            t->fill_left++;
            t->mem_read += k;
        }
        t->mem_reqs++;
        t->pos[op] += k;
        w -= k;
        sim_port_send(c, t->mem, m, 0);
    }
}

static void ta_send_fill(TArray *t, uint64_t fold)
{
    ta_send_block(t, TA_IFMAP, fold);
    ta_send_block(t, TA_FILTER, fold);
}

/* Cycles of fold i: the layer's cycles cut at floor(i x len / F), so that the folds add up to
 * the model's count exactly and each has at least one cycle (F <= len). */
static uint64_t ta_fold_len(const TArray *t, uint64_t i)
{
    __extension__ typedef unsigned __int128 U128;
    uint64_t b0 = (uint64_t)((U128)i * t->len / t->nfolds);
    uint64_t b1 = (uint64_t)((U128)(i + 1) * t->len / t->nfolds);
    return b1 - b0;
}

static uint64_t ta_region(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t v = a * b * c;          /* bounded by the layer checks (tpu_layer_check) */
    return v ? v : 1;
}

/* Runs layer `next`'s model at cycle now and sends fold 0's fill; false if the model failed
 * (the run fails with its error). */
static bool ta_layer_begin(TArray *t, uint64_t now)
{
    Component *c = &t->base;
    const TpuLayer *l = &t->topo.layers[t->next];
    TpuLayerResult *r = &t->cur;
    GError *e = NULL;
    if (t->cli) {
        if (!t->cli->run(t->cli->ctx, t->next, r, &e)) {
            sim_fail(c->sim, e);     /* the CLI says it with the layer's line */
            return false;
        }
    } else if (!tpu_run_layer(&t->arch, l, t->p.compat, r, &e)) {
        char *m = g_strdup_printf("%s:%u:1: %s", t->topo.file, l->line, e->message);
        sim_fail(c->sim, g_error_new_literal(e->domain, e->code, m));
        g_free(m);
        g_error_free(e);
        return false;
    }
    t->len = r->total_cycles ? r->total_cycles : 1;
    uint64_t folds = r->row_folds * r->col_folds;
    t->nfolds = MAX(1, MIN(MIN(folds, t->len), TA_MAX_BLOCKS));
    t->words[TA_IFMAP] = r->dram_ifmap_reads;
    t->words[TA_FILTER] = r->dram_filter_reads;
    t->words[TA_OFMAP] = r->dram_ofmap_writes;
    t->region[TA_IFMAP] = ta_region(l->ifmap_h, l->ifmap_w, l->channels);
    t->region[TA_FILTER] = ta_region(l->filter_h * l->filter_w, l->channels, l->filters);
    t->region[TA_OFMAP] = ta_region(r->M, r->N, 1);
    memset(t->pos, 0, sizeof t->pos);
    t->fold = 0;
    t->layer_stall = 0;
    t->start = t->planned = now + 1;
    ta_send_fill(t, 0);
    return true;
}

/* Every drain acknowledged: the layer's line, its port stalls counted in its cycles. */
static void ta_layer_end(TArray *t)
{
    TpuLayerResult r = t->cur;
    if (t->layer_stall) {        /* Overall Util % counts stalls (tpumodel.c's formula) */
        r.total_cycles += t->layer_stall;
        r.stall_cycles += t->layer_stall;
        r.overall_util = (double)r.macs * 100.0 /
                         ((double)r.total_cycles * (double)t->arch.rows * (double)t->arch.cols);
    }
    if (t->cli)                  /* one line at a time: memory does not grow with the layers */
        t->cli->done(t->cli->ctx, t->next, &r);
    else
        g_array_append_val(t->results, r);
    t->next++;
    t->cycles += r.total_cycles;
    t->stalls += r.stall_cycles;
    t->mem_stalls += t->layer_stall;
    t->macs += r.macs;
    t->folds += r.row_folds * r.col_folds;
    t->sram_reads += r.sram_ifmap_reads + r.sram_filter_reads;
    t->sram_writes += r.sram_ofmap_writes;
    t->dram_reads += r.dram_ifmap_reads + r.dram_filter_reads;
    t->dram_writes += r.dram_ofmap_writes;
    t->sampled += r.sampled_folds != 0;
}

/* The steps of a layer (the diagram at the top): each tick does what is due at this edge and
 * sleeps until the next step (in steps of at most 2^20 cycles, each progress for the
 * watchdog), or until the port answers. */
static uint64_t ta_tick(Component *c)
{
    TArray *t = (TArray *)c;
    uint64_t now = sim_component_cycle(c);
    sim_progress(c->eng);
    for (;;) {
        if (t->step != TA_NEXT_LAYER && now < t->at)
            return MIN(t->at - now, 1u << 20);
        switch (t->step) {
        case TA_NEXT_LAYER:
            if (t->next >= t->topo.nlayers || !ta_layer_begin(t, now))
                return 0;
            t->step = TA_FOLD_START;
            t->at = t->start;
            break;
        case TA_FOLD_START:
            if (t->fill_left) {
                t->waiting = true;
                return 0;
            }
            t->layer_stall += now - t->planned;
            if (t->fold + 1 < t->nfolds)
                ta_send_fill(t, t->fold + 1);
            t->at = now + ta_fold_len(t, t->fold) - 1;
            t->step = TA_DRAIN;
            break;
        case TA_DRAIN:
            ta_send_block(t, TA_OFMAP, t->fold);
            t->at = now + 1;
            t->step = TA_FOLD_END;
            break;
        case TA_FOLD_END:
            t->planned = now;
            t->step = ++t->fold < t->nfolds ? TA_FOLD_START : TA_LAYER_END;
            break;
        case TA_LAYER_END:
            if (t->drain_left) {
                t->waiting = true;
                return 0;
            }
            t->layer_stall += now - t->planned;
            ta_layer_end(t);
            t->step = TA_NEXT_LAYER;
            break;
        }
    }
}

static void ta_recv(Component *c, Port *port, Msg *m)
{
    TArray *t = (TArray *)c;
    (void)port;
    if (m->cmd == MSG_READ_RESP) {
        g_assert(t->fill_left > 0);
        t->fill_left--;
    } else if (m->cmd == MSG_WRITE_RESP) {
        g_assert(t->drain_left > 0);
        t->drain_left--;
    } else {
        g_error("%s: unexpected message cmd %u on the mem port", c->name, m->cmd);
    }
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    if (t->waiting && ((t->step == TA_FOLD_START && !t->fill_left) ||
                       (t->step == TA_LAYER_END && !t->drain_left))) {
        t->waiting = false;
        sim_component_wake(c);
    }
}

static bool ta_busy(const Component *c)
{
    return TA(c)->next < TA(c)->topo.nlayers || TA(c)->step != TA_NEXT_LAYER;
}

static double ta_progress(const Component *c)
{
    return TA(c)->topo.nlayers ? (double)TA(c)->next / TA(c)->topo.nlayers : 1.0;
}

static bool ta_outputs(Component *c, const char *dir, GError **error)
{
    TArray *t = (TArray *)c;
    TpuReports *r = tpu_reports_open(dir, error);
    if (!r)
        return false;
    for (guint i = 0; i < t->results->len; i++)
        tpu_reports_add(r, (int)i, t->topo.layers[i].name, &t->arch,
                        &g_array_index(t->results, TpuLayerResult, i));
    return tpu_reports_close(r, error);
}

static void ta_dump(Component *c, GString *out)
{
    TArray *t = (TArray *)c;
    g_string_append_printf(out, "  layer %d of %d\n", t->next, t->topo.nlayers);
    if (t->step != TA_NEXT_LAYER)
        g_string_append_printf(out, "  fold %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               "; fill messages unanswered %" G_GUINT64_FORMAT
                               ", drain messages unacknowledged %" G_GUINT64_FORMAT "\n",
                               t->fold, t->nfolds, t->fill_left, t->drain_left);
}

/* tpu.mem.* appear only when the port leads to a timed memory: with tpu-memory they repeat
 * dram_reads and dram_writes and the stalls are none, so the SCALE-Sim runs keep their stats. */
static void ta_extra_stats(const Component *c, StatSet *out)
{
    const TArray *t = TA(c);
    if (!t->timed)
        return;
    static const struct {
        const char *name, *unit, *desc;
        size_t off;
    } rows[] = {
        { "mem.requests", "count", "read and write messages sent on the mem port",
          offsetof(TArray, mem_reqs) },
        { "mem.bytes_read", "byte", "bytes the fills read through the mem port (= dram_reads)",
          offsetof(TArray, mem_read) },
        { "mem.bytes_written", "byte",
          "bytes the drains wrote through the mem port (= dram_writes)",
          offsetof(TArray, mem_written) },
        { "mem.stall_cycles", "cycle",
          "cycles the folds waited for the mem port's answers (in cycles and stall_cycles)",
          offsetof(TArray, mem_stalls) },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        char *n = g_strdup_printf("%s.%s", c->name, rows[i].name);
        stats_add_u64(out, n, *(const uint64_t *)((const char *)t + rows[i].off), rows[i].unit,
                      rows[i].desc);
        g_free(n);
    }
}

/* The mem port's peer: tpu-memory (SCALE-Sim's interface, whose timing is the array's own
 * model) takes any message; a timed memory answers in its own time, so SCALE-Sim's USER
 * bandwidth model would count the same bandwidth twice, and it takes messages of its size. */
static bool ta_check_link(Component *c, Port *mine, Port *theirs, GError **error)
{
    TArray *t = (TArray *)c;
    Component *o = theirs->owner;
    (void)mine;
    if (o->cls == &tpu_memory_class)
        return true;
    if (t->p.interface != 0)
        return sim_component_reject(c, "interface", error,
                                    "user is SCALE-Sim's bandwidth model of tpu-memory, but the "
                                    "mem port leads to %s (class %s), which times the traffic "
                                    "itself: use interface: calc", o->name, o->cls->name);
    uint64_t line = 0;
    bool has_line = sim_component_param_u64(o, "line", &line);
    uint64_t max = has_line ? line : strcmp(o->cls->name, "dram") == 0 ? 4096 : TA_MAX_MSG;
    if (t->p.transfer == 0 || t->p.transfer > max || (has_line && t->p.transfer != line))
        return sim_component_reject(c, "transfer", error,
                                    "%" G_GUINT64_FORMAT " bytes per message, but %s (class %s) "
                                    "takes %s%" G_GUINT64_FORMAT " bytes: set transfer to %s"
                                    "%" G_GUINT64_FORMAT "B", t->p.transfer, o->name,
                                    o->cls->name, has_line ? "" : "1 to ", max,
                                    has_line ? "" : "at most ", max);
    return true;
}

static void ta_finalize(Component *c)
{
    TArray *t = (TArray *)c;
    if (t->loaded)
        tpu_topology_clear(&t->topo);
    if (!t->cli) {
        g_free(t->arch.run_name);
        g_free(t->arch.file);
    }
    if (t->results)
        g_array_free(t->results, TRUE);
}

static const PortSpec ta_ports[] = {
    { .name = "mem", .role = PORT_REQUESTER, .required = true,
      .doc = "SRAM fills (reads of the IFMAP and filter regions) and drains (writes of the OFMAP "
      "region) to tpu-memory or a timed memory (dram); the operands are told apart by address "
      "(ifmap_offset, filter_offset, ofmap_offset)" },
    PORT_END,
};

const ComponentClass tpu_array_class = {
    .name = "tpu-array",
    .doc = "systolic array of MAC PEs running a SCALE-Sim topology layer by layer (docs/tpu.md)",
    .size = sizeof(TArray),
    .params_offset = offsetof(TArray, p),
    .params = ta_params,
    .ports = ta_ports,
    .stats = ta_stats,
    .realize = ta_realize,
    .start = ta_start,
    .tick = ta_tick,
    .recv = ta_recv,
    .busy = ta_busy,
    .progress = ta_progress,
    .dump = ta_dump,
    .finalize = ta_finalize,
    .write_outputs = ta_outputs,
    .extra_stats = ta_extra_stats,
    .check_link = ta_check_link,
};

/* ---- archsim tpu: the same machine, built here ------------------------------------------- */
bool tpu_port_run(const TpuArch *a, const TpuTopology *t, TpuLayerRunFn run, TpuLayerDoneFn done,
                  void *ctx, GError **error)
{
    const TaCli cli = { .arch = a, .topo = t, .run = run, .done = done, .ctx = ctx };
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);       /* the array's cycles; no stat of the run is kept */
    Component *c = sim_component_new(&sim, &tpu_array_class, "tpu", &sim.sys_clk, NULL, error);
    Component *m = c ? sim_component_new(&sim, &tpu_memory_class, "memory", &sim.sys_clk, NULL,
                                         error) : NULL;
    if (c)
        ((TArray *)c)->cli = &cli;
    bool ok = m && sim_connect(c, "mem", m, "port", 1, error) &&
              sim_check_links(&sim, NULL, NULL, error) && sim_realize_all(&sim, error);
    if (ok) {
        sim_run(&sim.eng, TICK_MAX);
        if (sim.error) {
            g_propagate_error(error, sim.error);
            sim.error = NULL;
            ok = false;
        }
        g_assert(!ok || ((TArray *)c)->next == t->nlayers);
    }
    sim_destroy(&sim);
    return ok;
}

/* ---- system.type: tpu --------------------------------------------------------------------- */
typedef struct {
    int unused;
} TpuSysParams;

static const char *const tpu_memory_alts[] = { "dram", NULL };

static const SystemSection tpu_sections[] = {
    { "tpu", "tpu-array", "the systolic array and its topology", NULL, NULL },
    { "memory", "tpu-memory", "what the array's mem port leads to: SCALE-Sim's interface "
      "(tpu-memory) or, with type: dram, a DRAM channel", NULL, tpu_memory_alts },
    { NULL, NULL, NULL, NULL, NULL },
};

/*   tpu.mem -> memory.port   (latency 1 tick) */
static bool tpu_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    (void)params, (void)root;
    return sim_connect(sim_component_find(sim, "tpu"), "mem", sim_component_find(sim, "memory"),
                       "port", 1, error);
}

static const ParamSpec tpu_sys_params[] = { PARAM_END };

const SystemClass tpu_system = {
    .name = "tpu",
    .doc = "one systolic array (TPU) running a SCALE-Sim topology, its mem port linked to "
           "SCALE-Sim's interface (tpu-memory) or a dram; writes SCALE-Sim's reports",
    .params = tpu_sys_params,
    .params_size = sizeof(TpuSysParams),
    .sections = tpu_sections,
    .build = tpu_build,
};
