/* rdu.c: the RDU's components (rdu.h): the host that launches kernels (rdu-workload), the chip
 * that maps a parallel-pattern graph onto its PCUs and PMUs and runs each kernel as a
 * metapipeline (rdu-chip), and a memory tier (rdu-mem: HBM or DDR) that serves transfers in
 * order at its bandwidth after its latency. Unit model: Plasticine (Prabhakar et al., ISCA 2017);
 * SN40L figures: Prabhakar et al., arXiv 2405.07518 and Hot Chips 2024 (docs/rdu.md).
 */
#include "rdu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "graph.h"
#include "metapipe.h"

/* ---- rdu-workload: the host ---- */

typedef struct {
    char *graph;
    uint64_t launch_latency;
} WorkParams;

typedef struct {
    Component base;
    WorkParams p;
    Port *chip;
    SimEvent launch_ev;
    uint32_t next;
    bool finished;
    uint64_t kernels, launch_cycles, end_cycle;
} RduWork;

static const ParamSpec work_params[] = {
    { .name = "graph", .type = PARAM_PATH, .flags = PARAM_F_REQUIRED,
      .doc = "the dataflow graph to run (YAML: nodes, tensors, loops; docs/rdu.md)",
      .offset = offsetof(WorkParams, graph) },
    { .name = "launch_latency", .type = PARAM_CYCLES, .def = "0", .flags = PARAM_F_RANGE,
      .max = 1e12, .doc = "the host's cost of one kernel call, before each kernel starts (not "
      "in rdu.cycles; reported as launch_latency_cycles)",
      .offset = offsetof(WorkParams, launch_latency) },
    PARAM_END,
};

static const PortSpec work_ports[] = {
    { .name = "chip", .role = PORT_REQUESTER, .required = true,
      .doc = "to the chip's host port: kernel calls out, their ends back" },
    PORT_END,
};

static const StatSpec work_stats[] = {
    { "kernels", STAT_COUNTER, "count", "kernel calls made", offsetof(RduWork, kernels), NULL },
    { "launch_latency_cycles", STAT_COUNTER, "cycle", "the host's launch cost, summed over "
      "kernel calls", offsetof(RduWork, launch_cycles), NULL },
    { "total_cycles", STAT_COUNTER, "cycle", "from the start to the last kernel's end, launch "
      "costs included", offsetof(RduWork, end_cycle), NULL },
    STAT_END,
};

static void work_launch(SimEvent *ev)
{
    RduWork *w = ev->ctx;
    Component *c = &w->base;
    Msg *m = sim_msg_alloc(c->sim);
    m->cmd = MSG_RDU_KERNEL_LAUNCH;
    rdu_msg(m)->kernel = w->next++;
    w->kernels++;
    sim_port_send(c, w->chip, m, 0);
}

static void work_call(RduWork *w)
{
    Component *c = &w->base;
    w->launch_cycles += w->p.launch_latency;
    Tick e = clock_edge_at_or_after(c->clk, c->eng->now), l = sim_tick_mul(w->p.launch_latency,
                                                                           c->clk->period);
    Tick at = l > TICK_MAX - e ? TICK_MAX : e + l;
    sim_quiet_until(c->eng, at);        /* the host's launch cost: a wait, not a deadlock */
    sim_schedule(c->eng, &w->launch_ev, at, SIM_PRI_TICK);
}

static bool work_realize(Component *c, GError **error)
{
    (void)error;
    RduWork *w = (RduWork *)c;
    w->chip = sim_port(c, "chip", 0);
    sim_event_init(&w->launch_ev, work_launch, w);
    return true;
}

static void work_start(Component *c) { work_call((RduWork *)c); }

static void work_recv(Component *c, Port *port, Msg *m)
{
    (void)port;
    RduWork *w = (RduWork *)c;
    g_assert(m->cmd == MSG_RDU_KERNEL_DONE);
    bool last = rdu_msg(m)->last;
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    if (last) {
        w->finished = true;
        w->end_cycle = sim_component_cycle(c);
    } else {
        work_call(w);
    }
}

static bool work_busy(const Component *c) { return !((const RduWork *)c)->finished; }

static void work_dump(Component *c, GString *out)
{
    RduWork *w = (RduWork *)c;
    g_string_append_printf(out, "  %" G_GUINT64_FORMAT " kernel calls made%s\n", w->kernels,
                           w->finished ? ", all done" : "");
}

const ComponentClass rdu_workload_class = {
    .name = "rdu-workload",
    .doc = "the RDU's host: calls the kernels the chip mapped a dataflow graph into, one after "
           "another, each after the launch latency",
    .size = sizeof(RduWork),
    .params_offset = offsetof(RduWork, p),
    .params = work_params,
    .ports = work_ports,
    .stats = work_stats,
    .realize = work_realize,
    .start = work_start,
    .recv = work_recv,
    .dump = work_dump,
    .busy = work_busy,
};

/* ---- rdu-mem: a memory tier ---- */

typedef struct {
    uint64_t bandwidth, latency, capacity;
} MemParams;

typedef struct {
    Component base;
    MemParams p;
    Port *port;
    Tick free_at;
    uint64_t reads, writes, bytes_read, bytes_written, busy_ticks;
} RduMem;

static const ParamSpec mem_params[] = {
    { .name = "bandwidth", .type = PARAM_BANDWIDTH, .def = "1600GB/s", .flags = PARAM_F_RANGE,
      .min = 1e6, .max = 1e15, .doc = "bytes per second, reads and writes together",
      .offset = offsetof(MemParams, bandwidth) },
    { .name = "latency", .type = PARAM_TIME, .def = "100ns", .flags = PARAM_F_RANGE, .max = 1e9,
      .doc = "from a transfer's start to its first byte", .offset = offsetof(MemParams, latency) },
    { .name = "capacity", .type = PARAM_SIZE, .def = "64GiB", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e18,
      .doc = "what the graph's tensors in this tier may hold together",
      .offset = offsetof(MemParams, capacity) },
    PARAM_END,
};

static const PortSpec mem_ports[] = {
    { .name = "port", .role = PORT_RESPONDER, .required = true,
      .doc = "transfers from the chip's hbm or ddr port" },
    PORT_END,
};

static double mem_util(const Component *c)
{
    const RduMem *m = (const RduMem *)c;
    return stats_ratio((double)m->busy_ticks, (double)c->eng->now);
}

static double mem_gbps(const Component *c)
{
    const RduMem *m = (const RduMem *)c;
    double s = (double)c->eng->now / (double)TICKS_PER_SECOND;
    return s > 0 ? (double)(m->bytes_read + m->bytes_written) / s / 1e9 : 0;
}

static const StatSpec mem_stats[] = {
    { "reads", STAT_COUNTER, "count", "read transfers", offsetof(RduMem, reads), NULL },
    { "writes", STAT_COUNTER, "count", "write transfers", offsetof(RduMem, writes), NULL },
    { "bytes_read", STAT_COUNTER, "byte", "bytes read", offsetof(RduMem, bytes_read), NULL },
    { "bytes_written", STAT_COUNTER, "byte", "bytes written", offsetof(RduMem, bytes_written),
      NULL },
    { "utilization", STAT_FORMULA, "ratio", "time moving data / the run's time",
      0, mem_util },
    { "bandwidth_gbps", STAT_FORMULA, "GB/s", "(bytes_read + bytes_written) / the run's "
      "time, in 10^9 B/s", 0, mem_gbps },
    STAT_END,
};

static bool mem_realize(Component *c, GError **error)
{
    (void)error;
    RduMem *m = (RduMem *)c;
    m->port = sim_port(c, "port", 0);
    return true;
}

/* Transfers are served one after another at the tier's bandwidth; each answer leaves when its
 * last byte has moved, plus the latency. */
static void mem_recv(Component *c, Port *port, Msg *msg)
{
    (void)port;
    RduMem *m = (RduMem *)c;
    g_assert(msg->cmd == MSG_RDU_MEM_REQ);
    RduPayload *p = rdu_msg(msg);
    Tick now = c->eng->now;
    Tick start = MAX(now, m->free_at);
    double dd = ceil((double)p->bytes * (double)TICKS_PER_SECOND / (double)m->p.bandwidth);
    Tick dur = dd >= 0x1p64 ? TICK_MAX : (Tick)dd;
    m->free_at = dur > TICK_MAX - start ? TICK_MAX : start + dur;
    m->busy_ticks += dur;
    if (p->write) {
        m->writes++;
        m->bytes_written += p->bytes;
    } else {
        m->reads++;
        m->bytes_read += p->bytes;
    }
    msg->cmd = MSG_RDU_MEM_RESP;
    Tick wait = m->free_at - now;
    wait = m->p.latency > TICK_MAX - now - wait ? TICK_MAX - now : wait + m->p.latency;
    /* a long transfer (4 GiB at a few hundred GB/s) is work under way, not a deadlock */
    sim_quiet_until(c->eng, now + wait);
    sim_port_send_ticks(c, m->port, msg, wait);
}

const ComponentClass rdu_mem_class = {
    .name = "rdu-mem",
    .doc = "a memory tier of the RDU (HBM or DDR): transfers served in order at its bandwidth "
           "after its latency",
    .size = sizeof(RduMem),
    .params_offset = offsetof(RduMem, p),
    .params = mem_params,
    .ports = mem_ports,
    .stats = mem_stats,
    .realize = mem_realize,
    .recv = mem_recv,
};

/* ---- rdu-chip ---- */

typedef struct {
    uint64_t lanes, stages, macs_bf16, macs_fp32, macs_int8, pmu_capacity, pmu_banks;
} ChipParams;

typedef struct {
    Component base;
    ChipParams p;
    Port *host, *hbm, *ddr;
    RduChipSpec spec;
    RduGraph *g;
    RduProgram *prog;
    MpRun **runs;                /* one per kernel, built at start (stage tracks registered) */
    MpRun *run;                  /* the one running, or NULL */
    uint32_t cur;                /* the kernel called */
    uint32_t call_group, call_ix;/* the next call: group, kernel within it, */
    uint64_t call_rep;           /* ... and its repeat */
    SimEvent start_ev;
    Port **net;                  /* net[e]: the link to the noc's endpoint e */
    uint32_t run_seq;            /* kernel runs so far: a tile carries its run's number */
    /* stats */
    uint64_t cycles, kernel_calls, hbm_bytes, ddr_bytes, net_bytes, flops, sram_bytes;
    uint64_t pcus_used, pmus_used, predicted;
} RduChip;

static const ParamSpec chip_params[] = {
    { .name = "lanes", .type = PARAM_UINT, .def = "16", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "SIMD lanes of a PCU", .offset = offsetof(ChipParams, lanes) },
    { .name = "stages", .type = PARAM_UINT, .def = "6", .flags = PARAM_F_RANGE, .min = 1,
      .max = 64, .doc = "pipeline stages of a PCU (element-wise ops fused into one stage, at "
      "most this many; also its fill latency in cycles)", .offset = offsetof(ChipParams, stages) },
    { .name = "macs_bf16", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .max = 1e6,
      .doc = "BF16 multiply-accumulates per cycle of one PCU (0: lanes x stages, the PCU as a "
      "systolic array)", .offset = offsetof(ChipParams, macs_bf16) },
    { .name = "macs_fp32", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .max = 1e6,
      .doc = "FP32 MACs per cycle of one PCU (0: half the BF16 rate)",
      .offset = offsetof(ChipParams, macs_fp32) },
    { .name = "macs_int8", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .max = 1e6,
      .doc = "INT8 MACs per cycle of one PCU (0: twice the BF16 rate)",
      .offset = offsetof(ChipParams, macs_int8) },
    { .name = "pmu_capacity", .type = PARAM_SIZE, .def = "256KiB", .flags = PARAM_F_RANGE,
      .min = 64, .max = 1e12, .doc = "one PMU's scratchpad", .offset = offsetof(ChipParams, pmu_capacity) },
    { .name = "pmu_banks", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .max = 1024,
      .doc = "banks of a PMU, each reading a 4-byte word a cycle: a stage reads its on-chip "
      "inputs no faster (0: one per lane, Plasticine's rule)",
      .offset = offsetof(ChipParams, pmu_banks) },
    PARAM_END,
};

static const PortSpec chip_ports[] = {
    { .name = "host", .role = PORT_RESPONDER, .required = true,
      .doc = "from the host (rdu-workload): kernel calls" },
    { .name = "net", .role = PORT_REQUESTER, .vector = true, .required = true,
      .doc = "net[e] to the switch network's endpoint e (a noc mesh, endpoint = row x cols + "
             "col of a PCU and its PMU): tiles between stages" },
    { .name = "hbm", .role = PORT_REQUESTER, .required = true, .doc = "to the HBM tier (rdu-mem)" },
    { .name = "ddr", .role = PORT_REQUESTER, .required = true, .doc = "to the DDR tier (rdu-mem)" },
    PORT_END,
};

static double chip_tflops(const Component *c)
{
    const RduChip *k = (const RduChip *)c;
    double s = (double)k->cycles / (double)c->clk->freq_hz;
    return s > 0 ? (double)k->flops / s / 1e12 : 0;
}

static double chip_peak(const Component *c)
{
    const RduChip *k = (const RduChip *)c;
    return 2.0 * (double)k->spec.macs[RDU_BF16] * rdu_chip_units(&k->spec) *
           (double)c->clk->freq_hz / 1e12;
}

static double chip_hbm_util(const Component *c)
{
    const RduChip *k = (const RduChip *)c;
    return stats_ratio((double)k->hbm_bytes, (double)k->cycles * k->spec.hbm_bpc);
}

static const StatSpec chip_stats[] = {
    { "cycles", STAT_COUNTER, "cycle", "cycles the chip ran kernels, from each kernel's start to "
      "its last stage's end, summed (launch costs not included)", offsetof(RduChip, cycles), NULL },
    { "kernel_calls", STAT_COUNTER, "count", "kernel calls run (each kernel once; the parts of a loop split with a carried edge between them once per trip)",
      offsetof(RduChip, kernel_calls), NULL },
    { "hbm_bytes", STAT_COUNTER, "byte", "bytes read from and written to HBM",
      offsetof(RduChip, hbm_bytes), NULL },
    { "ddr_bytes", STAT_COUNTER, "byte", "bytes read from and written to DDR",
      offsetof(RduChip, ddr_bytes), NULL },
    { "net_bytes", STAT_COUNTER, "byte", "bytes moved between stages over the switch network "
      "(on-chip buffers, never off chip)", offsetof(RduChip, net_bytes), NULL },
    { "flops", STAT_COUNTER, "count", "floating-point operations (a MAC is 2)",
      offsetof(RduChip, flops), NULL },
    { "sram_bytes", STAT_COUNTER, "byte", "on-chip SRAM the largest kernel holds: buffers x "
      "versions + resident tensors", offsetof(RduChip, sram_bytes), NULL },
    { "pcus_used", STAT_COUNTER, "count", "PCUs of the largest kernel", offsetof(RduChip, pcus_used),
      NULL },
    { "pmus_used", STAT_COUNTER, "count", "PMUs of the largest kernel", offsetof(RduChip, pmus_used),
      NULL },
    { "predicted_cycles", STAT_COUNTER, "cycle", "the mapper's prediction of cycles (sum T + "
      "(trips - 1) max T per pipelined loop, trips x sum T per sequential one)",
      offsetof(RduChip, predicted), NULL },
    { "achieved_tflops", STAT_FORMULA, "TFLOP/s", "flops / (cycles / clock) / 10^12", 0,
      chip_tflops },
    { "peak_tflops", STAT_FORMULA, "TFLOP/s", "2 x macs_bf16 x PCUs x clock / 10^12", 0,
      chip_peak },
    { "hbm_utilization", STAT_FORMULA, "ratio", "hbm_bytes / (cycles x HBM bytes per cycle)", 0,
      chip_hbm_util },
    STAT_END,
};

/* A numeric parameter of the component at the other end of p (a tier's bandwidth). */
static uint64_t peer_u64(Port *p, const char *key)
{
    uint64_t v = 0;
    if (p && p->peer)
        sim_component_param_u64(p->peer->owner, key, &v);
    return v;
}

/* Bytes the tensors that live in a tier hold over the whole run (each tensor's shape times the
 * trips of the loops around its producer or, for an input, its first reader). */
static bool check_capacity(const RduGraph *g, RduTier tier, uint64_t cap, GError **error)
{
    uint64_t total = 0, worst_b = 0;
    int worst = -1;
    for (uint32_t t = 0; t < g->ntensors; t++) {
        const RduTensor *x = &g->tensors[t];
        if (x->tier != tier)
            continue;
        int n = x->producer;
        for (uint32_t v = 0; v < g->nnodes && n < 0; v++)
            for (uint32_t i = 0; i < g->nodes[v].nin; i++)
                if (g->nodes[v].in[i] == (int)t)
                    n = (int)v;
        uint64_t trips = 1;
        for (int l = n >= 0 ? g->nodes[n].loop : -1; l >= 0; l = g->loops[l].parent)
            trips = trips > UINT64_MAX / g->loops[l].trips ? UINT64_MAX : trips * g->loops[l].trips;
        uint64_t b = rdu_tensor_bytes(x);
        b = trips > UINT64_MAX / b ? UINT64_MAX : b * trips;
        total = total > UINT64_MAX - b ? UINT64_MAX : total + b;
        if (worst < 0 || b > worst_b) {       /* the largest over the run, trips included */
            worst = (int)t;
            worst_b = b;
        }
    }
    if (total <= cap)
        return true;
    const RduTensor *w = &g->tensors[worst];
    char *need = sim_mem_format(total), *has = sim_mem_format(cap);
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s:%d:%d: the tensors in %s "
                "hold %s over the run (the largest: '%s'), more than %s.capacity %s",
                g->file, w->line, w->col, rdu_tier_names[tier], need, w->name,
                rdu_tier_names[tier], has);
    g_free(need);
    g_free(has);
    return false;
}

static bool chip_realize(Component *c, GError **error)
{
    RduChip *k = (RduChip *)c;
    k->host = sim_port(c, "host", 0);
    k->hbm = sim_port(c, "hbm", 0);
    k->ddr = sim_port(c, "ddr", 0);
    RduChipSpec *s = &k->spec;
    /* the grid is the network's: a mesh of nodes routers, width columns */
    Port *n0 = sim_port(c, "net", 0);
    Component *noc = n0 && n0->peer ? n0->peer->owner : NULL;
    uint64_t nodes = 0, width = 0, rd = 1, ll = 1, lw = 16, hdr = 0;
    if (noc) {
        sim_component_param_u64(noc, "nodes", &nodes);
        sim_component_param_u64(noc, "width", &width);
        sim_component_param_u64(noc, "router_delay", &rd);
        sim_component_param_u64(noc, "link_latency", &ll);
        sim_component_param_u64(noc, "link_width", &lw);
        sim_component_param_u64(noc, "header", &hdr);
    }
    if (!noc || nodes == 0 || width == 0 || nodes % width != 0)
        return sim_component_reject(c, NULL, error, "the net ports must link to a noc mesh of "
                                    "rows x cols routers (system.rows, system.cols)");
    s->rows = (uint32_t)(nodes / width);
    s->cols = (uint32_t)width;
    uint32_t links = 0;
    while (sim_port(c, "net", (int)links))
        links++;
    if (links != rdu_chip_units(s))
        return sim_component_reject(c, NULL, error, "net is linked %u times; the grid has %u "
                                    "endpoints", links, rdu_chip_units(s));
    k->net = g_new0(Port *, links);
    for (uint32_t i = 0; i < links; i++)
        k->net[i] = sim_port(c, "net", (int)i);
    s->hop_cycles = (uint32_t)(rd + ll);
    s->turn_cycles = (uint32_t)rd;
    s->link_bytes = lw;
    s->header_bytes = hdr;
    s->lanes = (uint32_t)k->p.lanes;
    s->stages = (uint32_t)k->p.stages;
    uint64_t bf = k->p.macs_bf16 ? k->p.macs_bf16 : k->p.lanes * k->p.stages;
    s->macs[RDU_BF16] = bf;
    s->macs[RDU_FP32] = k->p.macs_fp32 ? k->p.macs_fp32 : MAX(1, bf / 2);
    s->macs[RDU_INT8] = k->p.macs_int8 ? k->p.macs_int8 : bf * 2;
    s->pmu_bytes = k->p.pmu_capacity;
    s->pmu_banks = (uint32_t)(k->p.pmu_banks ? k->p.pmu_banks : k->p.lanes);
    double hz = (double)c->clk->freq_hz;
    s->hbm_bpc = (double)peer_u64(k->hbm, "bandwidth") / hz;
    s->ddr_bpc = (double)peer_u64(k->ddr, "bandwidth") / hz;
    /* latencies in chip cycles, rounded up */
    s->hbm_lat = (uint64_t)ceil((double)peer_u64(k->hbm, "latency") * hz / 1e12);
    s->ddr_lat = (uint64_t)ceil((double)peer_u64(k->ddr, "latency") * hz / 1e12);
    s->hbm_bytes = peer_u64(k->hbm, "capacity");
    s->ddr_bytes = peer_u64(k->ddr, "capacity");
    if (s->hbm_bpc <= 0 || s->ddr_bpc <= 0)
        return sim_component_reject(c, NULL, error, "the hbm and ddr ports must link to rdu-mem "
                                    "tiers with a bandwidth");
    const char *path = k->host && k->host->peer ?
                       sim_component_param_str(k->host->peer->owner, "graph") : NULL;
    if (!path)
        return sim_component_reject(c, NULL, error, "no graph: set workload.graph (a dataflow "
                                    "graph, workloads/dataflow/*.yaml)");
    /* the graph's own errors name their file, line and column: no prefix from the config */
    c->placed = true;
    k->g = rdu_graph_load(path, error);
    if (!k->g)
        return false;
    if (!check_capacity(k->g, RDU_TIER_HBM, s->hbm_bytes, error) ||
        !check_capacity(k->g, RDU_TIER_DDR, s->ddr_bytes, error))
        return false;
    k->prog = rdu_map(k->g, s, error);
    if (!k->prog)
        return false;
    c->placed = false;
    rdu_program_calls(k->prog, &k->predicted);
    for (uint32_t i = 0; i < k->prog->nk; i++) {
        const RduKernel *kk = &k->prog->k[i];
        k->sram_bytes = MAX(k->sram_bytes, kk->sram_bytes);
        k->pcus_used = MAX(k->pcus_used, kk->pcus);
        k->pmus_used = MAX(k->pmus_used, kk->pmus);
    }
    return true;
}

static void chip_mem(void *ctx, MpStage *st, RduTier tier, bool write, uint64_t bytes)
{
    RduChip *k = ctx;
    Component *c = &k->base;
    Msg *m = sim_msg_alloc(c->sim);
    m->cmd = MSG_RDU_MEM_REQ;
    RduPayload *p = rdu_msg(m);
    p->write = write;
    p->bytes = bytes;
    p->cookie = st;
    if (tier == RDU_TIER_HBM)
        k->hbm_bytes += bytes;
    else
        k->ddr_bytes += bytes;
    sim_port_send(c, tier == RDU_TIER_HBM ? k->hbm : k->ddr, m, 0);
}

/* A tile over the switch network: a message from the producer's endpoint (its PCU's router) to
 * the consumer's, carrying the tile's bytes; the noc routes it (XY), holds each link for its
 * flits and queues it behind others. */
static void chip_net(void *ctx, void *tile, uint32_t gen, const RduDep *d, uint64_t bytes)
{
    RduChip *k = ctx;
    Component *c = &k->base;
    Msg *m = sim_msg_alloc(c->sim);
    m->cmd = MSG_RDU_TILE;
    m->size = (uint32_t)MIN(bytes, (uint64_t)UINT32_MAX);
    RduPayload *p = rdu_msg(m);
    p->kernel = k->run_seq;
    p->cookie = tile;
    p->gen = gen;
    uint32_t r, col;
    rdu_slot_xy(&k->spec, d->dst_pcu, &r, &col);
    noc_msg_route(m, r * k->spec.cols + col, NOC_VNET_REQUEST);
    rdu_slot_xy(&k->spec, d->src_pcu, &r, &col);
    k->net_bytes += bytes;
    sim_port_send(c, k->net[r * k->spec.cols + col], m, 0);
}

static void chip_fail(void *ctx, const char *stage, uint64_t cycles)
{
    RduChip *k = ctx;
    Component *c = &k->base;
    sim_fail(c->sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CONFIG, "cycle %" G_GUINT64_FORMAT
                                 ": %s: stage %s's %" G_GUINT64_FORMAT " cycles end past the last "
                                 "tick the simulation can hold (2^64 ps, about 213 days)",
                                 sim_component_cycle(c), c->name, stage, cycles));
}

static void chip_kernel_done(void *ctx)
{
    RduChip *k = ctx;
    Component *c = &k->base;
    k->cycles += clock_cycle(c->clk, mp_finished(k->run)) - clock_cycle(c->clk, mp_started(k->run));
    const RduKernel *kk = &k->prog->k[k->cur];
    for (uint32_t li = 0; li < kk->nloops; li++) {
        uint64_t reps = 1;
        for (int x = (int)li; x >= 0; x = kk->loops[x].parent)
            reps *= kk->loops[x].trips;
        const RduMLoop *L = &kk->loops[li];
        for (uint32_t s = 0; s < L->nst; s++)
            k->flops += L->st[s].child < 0 ? L->st[s].flops * reps : 0;
    }
    Msg *m = sim_msg_alloc(c->sim);
    m->cmd = MSG_RDU_KERNEL_DONE;
    rdu_msg(m)->kernel = k->cur;
    rdu_msg(m)->last = k->call_group >= k->prog->ngroups;     /* no call left */
    sim_port_send(c, k->host, m, 0);
    sim_progress(c->eng);
    k->run = NULL;          /* kept in runs[] for its stage stats */
}

static void chip_start_kernel(SimEvent *ev)
{
    RduChip *k = ev->ctx;
    k->kernel_calls++;
    k->run_seq++;
    k->run = k->runs[k->cur];
    mp_start(k->run);
}

/* Every kernel's run is built before the first starts, so that with a dump open its stages'
 * tracks are registered before any event; a kernel called again (a loop whose parts the host
 * calls a trip at a time) runs its run again, its stage stats adding up. */
static void chip_start(Component *c)
{
    RduChip *k = (RduChip *)c;
    sim_event_init(&k->start_ev, chip_start_kernel, k);
    MpHooks h = { .mem = chip_mem, .done = chip_kernel_done, .net = chip_net, .fail = chip_fail,
                  .ctx = k };
    k->runs = g_new0(MpRun *, k->prog->nk);
    for (uint32_t i = 0; i < k->prog->nk; i++) {
        char *prefix = k->prog->nk > 1 ? g_strdup_printf("%s.k%u", c->name, i) : g_strdup(c->name);
        k->runs[i] = mp_new(c->eng, c->clk->period, &k->prog->k[i], &h,
                            c->trace_track >= 0 ? c->sim->trace : NULL, prefix);
        g_free(prefix);
    }
}

static void chip_recv(Component *c, Port *port, Msg *m)
{
    (void)port;
    RduChip *k = (RduChip *)c;
    if (m->cmd == MSG_RDU_TILE) {
        RduPayload *p = rdu_msg(m);
        /* a tile of a run that has ended (a carried hand-off after the last trip) is dropped */
        if (k->run && p->kernel == k->run_seq)
            mp_tile_arrived(k->run, p->cookie, p->gen);
        sim_msg_free(c->sim, m);
        return;
    }
    if (m->cmd == MSG_RDU_MEM_RESP) {
        MpStage *st = rdu_msg(m)->cookie;
        sim_msg_free(c->sim, m);
        mp_mem_done(k->run, st);
        return;
    }
    g_assert(m->cmd == MSG_RDU_KERNEL_LAUNCH);
    /* the host's next call: each group's kernels in turn, the group repeated (a loop whose
     * parts run a trip a call), then the next group */
    g_assert(k->call_group < k->prog->ngroups);
    const RduCallGroup *gr = &k->prog->groups[k->call_group];
    k->cur = gr->first + k->call_ix;
    if (++k->call_ix == gr->count) {
        k->call_ix = 0;
        if (++k->call_rep == gr->repeats) {
            k->call_rep = 0;
            k->call_group++;
        }
    }
    g_assert(k->cur < k->prog->nk);
    sim_msg_free(c->sim, m);
    sim_schedule(c->eng, &k->start_ev, clock_edge_at_or_after(c->clk, c->eng->now), SIM_PRI_TICK);
}

static bool chip_busy(const Component *c) { return ((const RduChip *)c)->run != NULL; }

static void chip_dump(Component *c, GString *out)
{
    RduChip *k = (RduChip *)c;
    if (!k->run) {
        g_string_append(out, "  no kernel running\n");
        return;
    }
    g_string_append_printf(out, "  kernel %u of %u:\n", k->cur, k->prog->nk);
    mp_dump(k->run, out);
}

/* rdu.stage.LOOP.STAGE.*: each leaf stage's iterations, busy/starved/blocked cycles and its
 * utilization (busy / the kernel's cycles). */
static void chip_extra_stats(const Component *c, StatSet *out)
{
    const RduChip *k = (const RduChip *)c;
    if (!k->runs)
        return;
    for (uint32_t ki = 0; ki < k->prog->nk; ki++)
        for (uint32_t i = 0; i < mp_stage_count(k->runs[ki]); i++) {
            const MpStageStats *r = mp_stage_stats(k->runs[ki], i);
            char *b = k->prog->nk > 1 ? g_strdup_printf("%s.stage.k%u.%s", c->name, ki, r->name)
                                      : g_strdup_printf("%s.stage.%s", c->name, r->name);
            char *n;
#define ADD(suffix, val, unit, desc) \
            n = g_strconcat(b, suffix, NULL); stats_add_u64(out, n, val, unit, desc); g_free(n)
            ADD(".iterations", r->iterations, "count", "iterations the stage ran");
            ADD(".busy", r->busy, "cycle", "cycles working");
            ADD(".starved", r->starved, "cycle", "cycles idle with work left, waiting for an "
                "input (a bubble)");
            ADD(".blocked", r->blocked, "cycle", "cycles idle with its inputs ready, waiting for "
                "room in an output buffer (back-pressure)");
#undef ADD
            n = g_strconcat(b, ".utilization", NULL);
            stats_add_double(out, n, stats_ratio((double)r->busy, (double)k->cycles), "ratio",
                             "busy / rdu.cycles");
            g_free(n);
            g_free(b);
        }
}

static void chip_finalize(Component *c)
{
    RduChip *k = (RduChip *)c;
    for (uint32_t i = 0; k->runs && i < k->prog->nk; i++)
        mp_free(k->runs[i]);
    g_free(k->runs);
    g_free(k->net);
    rdu_program_free(k->prog);
    rdu_graph_free(k->g);
}

void rdu_chip_report(Component *c, GString *out)
{
    RduChip *k = (RduChip *)c;
    rdu_program_report(k->prog, k->g, &k->spec, out);
}

static bool chip_check_link(Component *c, Port *mine, Port *theirs, GError **error)
{
    const char *pn = c->cls->ports[mine->spec].name;
    const char *want = !strcmp(pn, "host") ? "rdu-workload" : !strcmp(pn, "net") ? "noc"
                                                                                : "rdu-mem";
    if (strcmp(theirs->owner->cls->name, want) != 0) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s.%s: links to %s, a "
                    "%s; it must link to a %s", c->name, pn, theirs->owner->name,
                    theirs->owner->cls->name, want);
        return false;
    }
    return true;
}

const ComponentClass rdu_chip_class = {
    .name = "rdu-chip",
    .doc = "a reconfigurable dataflow chip: a grid of PCUs and PMUs on a switch network; maps a "
           "parallel-pattern graph and runs it as metapipelined kernels",
    .size = sizeof(RduChip),
    .params_offset = offsetof(RduChip, p),
    .params = chip_params,
    .ports = chip_ports,
    .stats = chip_stats,
    .realize = chip_realize,
    .start = chip_start,
    .recv = chip_recv,
    .dump = chip_dump,
    .busy = chip_busy,
    .finalize = chip_finalize,
    .extra_stats = chip_extra_stats,
    .check_link = chip_check_link,
};

static const char *const rdu_cmd_names[RDU_CMDS] = {
    [RDU_KERNEL_LAUNCH] = "kernel_launch", [RDU_KERNEL_DONE] = "kernel_done",
    [RDU_MEM_REQ] = "mem_req", [RDU_MEM_RESP] = "mem_resp", [RDU_TILE] = "tile",
};
const MsgFamily rdu_msg_family = {
    .name = "rdu", .id = MSG_FAM_RDU, .payload = sizeof(RduPayload),
    .cmds = rdu_cmd_names, .ncmds = RDU_CMDS,
};
