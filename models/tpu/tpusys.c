/* tpusys.c: the systolic array as an `archsim run` machine (`system.type: tpu`, configs/tpu/):
 * one component, `tpu-array`, whose parameters are SCALE-Sim's .cfg keys in archsim's units
 * plus the topology. The run simulates the layers one after the other (tpumodel.c), advances
 * simulated time to the end of the last one (so sim.cycles is the network's cycle count, stalls
 * included), keeps only each layer's report line, and writes SCALE-Sim's three reports into the
 * run directory beside the usual stats files. */
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "tpu.h"

typedef struct {
    uint64_t rows, cols, ifmap_sram, filter_sram, ofmap_sram, bandwidth;
    int64_t ifmap_offset, filter_offset, ofmap_offset;
    int dataflow, interface, input;
    char *topology;
    bool compat;
} TaParams;

typedef struct {
    Component base;
    TaParams p;
    TpuArch arch;
    TpuTopology topo;
    bool loaded;
    GArray *results;             /* TpuLayerResult per layer */
    int next;                    /* next layer to simulate */
    uint64_t wait_left;          /* cycles of the last layer still to pass */
    /* stats */
    uint64_t cycles, stalls, macs, sram_reads, sram_writes, dram_reads, dram_writes, folds;
    uint64_t sampled;            /* layers whose DRAM reads were sampled */
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
    sim_component_wake(c);
}

/* One layer per tick; the next tick comes when this layer's cycles have passed. */
static uint64_t ta_tick(Component *c)
{
    TArray *t = (TArray *)c;
    if (t->wait_left) {          /* time passes in steps, each progress for the watchdog */
        uint64_t step = MIN(t->wait_left, 1u << 20);
        t->wait_left -= step;
        sim_progress(c->eng);
        return step;
    }
    if (t->next >= t->topo.nlayers)
        return 0;
    TpuLayerResult r;
    GError *e = NULL;
    if (!tpu_run_layer(&t->arch, &t->topo.layers[t->next], t->p.compat, &r, &e)) {
        char *m = g_strdup_printf("%s:%u:1: %s", t->topo.file, t->topo.layers[t->next].line,
                                  e->message);
        sim_fail(c->sim, g_error_new_literal(e->domain, e->code, m));
        g_free(m);
        g_error_free(e);
        return 0;
    }
    g_array_append_val(t->results, r);
    t->next++;
    t->cycles += r.total_cycles;
    t->stalls += r.stall_cycles;
    t->macs += r.macs;
    t->folds += r.row_folds * r.col_folds;
    t->sram_reads += r.sram_ifmap_reads + r.sram_filter_reads;
    t->sram_writes += r.sram_ofmap_writes;
    t->dram_reads += r.dram_ifmap_reads + r.dram_filter_reads;
    t->dram_writes += r.dram_ofmap_writes;
    t->sampled += r.sampled_folds != 0;
    sim_progress(c->eng);
    t->wait_left = r.total_cycles ? r.total_cycles : 1;
    return 1;
}

static bool ta_busy(const Component *c)
{
    return TA(c)->next < TA(c)->topo.nlayers || TA(c)->wait_left;
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
}

static void ta_finalize(Component *c)
{
    TArray *t = (TArray *)c;
    if (t->loaded)
        tpu_topology_clear(&t->topo);
    g_free(t->arch.run_name);
    g_free(t->arch.file);
    if (t->results)
        g_array_free(t->results, TRUE);
}

static const PortSpec ta_ports[] = { PORT_END };

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
    .busy = ta_busy,
    .progress = ta_progress,
    .dump = ta_dump,
    .finalize = ta_finalize,
    .write_outputs = ta_outputs,
};

/* ---- system.type: tpu --------------------------------------------------------------------- */
typedef struct {
    int unused;
} TpuSysParams;

static const SystemSection tpu_sections[] = {
    { "tpu", "tpu-array", "the systolic array and its topology", NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static bool tpu_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    (void)sim, (void)params, (void)root, (void)error;
    return true;
}

static const ParamSpec tpu_sys_params[] = { PARAM_END };

const SystemClass tpu_system = {
    .name = "tpu",
    .doc = "one systolic array (TPU) running a SCALE-Sim topology; writes SCALE-Sim's reports",
    .params = tpu_sys_params,
    .params_size = sizeof(TpuSysParams),
    .sections = tpu_sections,
    .build = tpu_build,
};
