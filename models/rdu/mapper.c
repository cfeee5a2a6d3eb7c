/* mapper.c: the RDU mapper (mapper.h; docs/rdu.md, "The mapper"). Stages, fusion, PCU
 * balancing, N-buffers, tiling, placement and kernel splits, each a short pass over the loops.
 */
#include "mapper.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"

#define MAX_TILE 4096u

static uint64_t ceil_div(uint64_t a, uint64_t b) { return b ? a / b + (a % b != 0) : a; }
/* a x b and a + b, saturating at 2^64 - 1: sizes and trips from the graph (up to 2^40 each,
 * nested 16 deep) would wrap, and a wrapped buffer fits any chip */
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* Ops that fuse into the stage before them: element-wise ones, and reshape (a view). */
static bool is_elementwise(RduOp op)
{
    return op == RDU_OP_MAP || op == RDU_OP_ZIP || op == RDU_OP_SILU || op == RDU_OP_ROPE ||
           op == RDU_OP_RESHAPE;
}

/* What the kernel being built holds: a node is in it, or it is in another kernel (its tensors
 * then cross through HBM). */
typedef struct {
    const RduGraph *g;
    const RduChipSpec *chip;
    const int8_t *member;        /* per node: 1 in this kernel, 0 elsewhere (its tensors made
                                    here that a node elsewhere reads are written to HBM) */
    GArray *loops;               /* RduMLoop, growing */
} KBuild;

static uint32_t lg2(uint64_t x)
{
    uint32_t r = 0;
    while (x > 1) {
        x >>= 1;
        r++;
    }
    return r;
}

/* One node's compute on one PCU, per iteration (docs/rdu.md, "Compute per op"). */
static uint64_t node_work(const RduGraph *g, const RduChipSpec *c, const RduNode *n, bool fused,
                          uint64_t *flops)
{
    const RduTensor *in0 = n->nin ? &g->tensors[n->in[0]] : NULL;
    const RduTensor *out = n->out >= 0 ? &g->tensors[n->out] : NULL;
    uint64_t L = c->lanes;
    *flops = 0;
    switch (n->op) {
    case RDU_OP_FIXED:
        return n->cycles;
    case RDU_OP_MAP: case RDU_OP_ZIP: case RDU_OP_SILU: case RDU_OP_ROPE: {
        uint64_t e = rdu_tensor_elems(out);
        *flops = e * (n->op == RDU_OP_ROPE ? 6 : n->op == RDU_OP_SILU ? 4 : 1);
        return fused ? 0 : ceil_div(e, L);      /* fused: one more stage of the same pipeline */
    }
    case RDU_OP_REDUCE: case RDU_OP_FOLD: case RDU_OP_SCAN: {
        uint64_t e = rdu_tensor_elems(in0);
        *flops = e;
        return ceil_div(e, L) + lg2(L);         /* the cross-lane reduction tree */
    }
    case RDU_OP_SOFTMAX: case RDU_OP_LAYERNORM: case RDU_OP_RMSNORM: {
        uint64_t e = rdu_tensor_elems(in0);
        uint64_t passes = n->op == RDU_OP_RMSNORM ? 2 : 3;
        *flops = e * (n->op == RDU_OP_SOFTMAX ? 5 : 4);
        return passes * ceil_div(e, L) + lg2(L);
    }
    case RDU_OP_GEMM: {
        uint64_t K = in0->dim[in0->rank - 1];
        uint64_t macs = rdu_tensor_elems(out) * K;      /* M N K, batches included */
        *flops = 2 * macs;
        uint64_t rate = c->macs[in0->dtype] ? c->macs[in0->dtype] : 1;
        return ceil_div(macs, rate);
    }
    case RDU_OP_RESHAPE:
        return 0;                               /* a view: the next reader addresses it anew */
    case RDU_OP_KV_READ: case RDU_OP_GATHER:
        return ceil_div(rdu_tensor_elems(out), L);
    case RDU_OP_KV_WRITE:
        return ceil_div(rdu_tensor_elems(in0), L);
    default:
        return 1;
    }
}

/* Product of the trips of the loops from node n's loop up to (not including) scope. */
static uint64_t trips_between(const RduGraph *g, int n, int scope)
{
    uint64_t t = 1;
    for (int l = g->nodes[n].loop; l != scope && l >= 0; l = g->loops[l].parent)
        t = sat_mul(t, g->loops[l].trips);
    return t;
}

/* Node p accumulates tensor t: it reads what it writes. */
static bool accumulates(const RduGraph *g, int p, int t)
{
    for (uint32_t q = 0; q < g->nodes[p].nin; q++)
        if (g->nodes[p].in[q] == t)
            return true;
    return false;
}

/* Tier traffic of a leaf stage's node: inputs from HBM/DDR (or from a kernel before this one),
 * outputs to HBM/DDR (or to another kernel). */
static void node_traffic(KBuild *b, RduStage *s, const RduNode *n)
{
    const RduGraph *g = b->g;
    for (uint32_t i = 0; i < n->nin; i++) {
        const RduTensor *t = &g->tensors[n->in[i]];
        uint64_t bytes = rdu_tensor_bytes(t);
        if (n->op == RDU_OP_GATHER && i == 0)            /* only the rows gathered */
            bytes = rdu_tensor_bytes(&g->tensors[n->out]);
        if (t->tier == RDU_TIER_HBM || t->tier == RDU_TIER_DDR)
            s->rd[t->tier] += bytes;
        else if (t->tier == RDU_TIER_SRAM)
            s->sram_rd += bytes;
        else if (t->tier == RDU_TIER_CHIP && t->producer >= 0 && !b->member[t->producer])
            /* made by another kernel: every tile its maker wrote for one iteration here (all
             * those of a loop nested between them, as an on-chip buffer holds them), unless
             * its maker accumulates it (reads it too): then its last value */
            s->rd[RDU_TIER_HBM] = sat_add(s->rd[RDU_TIER_HBM],
                                          accumulates(g, t->producer, n->in[i]) ? bytes :
                                          sat_mul(bytes, trips_between(g, t->producer,
                                                  rdu_graph_common_scope(g, t->producer,
                                                                         (int)(n - g->nodes)))));
    }
    if (n->op == RDU_OP_KV_READ)
        s->rd[n->tier] += rdu_tensor_bytes(&g->tensors[n->out]);
    if (n->op == RDU_OP_KV_WRITE)
        s->wr[n->tier] += rdu_tensor_bytes(&g->tensors[n->in[0]]);
    if (n->out >= 0) {
        const RduTensor *t = &g->tensors[n->out];
        if (t->tier == RDU_TIER_HBM || t->tier == RDU_TIER_DDR) {
            s->wr[t->tier] += rdu_tensor_bytes(t);
        } else {
            /* read by a node of another kernel: a later one, or (a loop whose parts the host
             * calls a trip at a time) an earlier one that reads it at the next trip */
            int self = (int)(n - g->nodes);
            bool accum = accumulates(g, self, n->out);
            uint64_t every = 0;         /* its iterations per value a reader takes; 0: none */
            for (uint32_t v = 0; v < g->nnodes; v++)
                for (uint32_t i = 0; i < g->nodes[v].nin; i++)
                    if (g->nodes[v].in[i] == n->out && !b->member[v]) {
                        /* an accumulator's reader takes its last value of each run of the
                         * loops between them (the reads above count one tile); each
                         * iteration of anything else is a tile of its own */
                        uint64_t k = accum ? trips_between(g, self, rdu_graph_common_scope(
                                                               g, self, (int)v)) : 1;
                        every = every ? MIN(every, k) : k;
                    }
            if (every)                  /* amortized over the iterations (rounded up) */
                s->wr[RDU_TIER_HBM] += ceil_div(rdu_tensor_bytes(t), every);
        }
    }
}

static int build_loop(KBuild *b, int gl, const RduEntry *body, uint32_t nbody, int parent);

/* The stage of a loop (its items `body`, their stages stage_ix) that holds node n, or -1. */
static int stage_of(const RduGraph *g, const RduEntry *body, uint32_t nbody, const int *stage_ix,
                    int n, int scope)
{
    RduEntry e = rdu_graph_entry_in(g, n, scope);
    for (uint32_t i = 0; i < nbody; i++)
        if (body[i].is_loop == e.is_loop && body[i].index == e.index)
            return stage_ix[i];
    return -1;
}

static void add_dep(RduMLoop *L, RduDep d)
{
    for (uint32_t i = 0; i < L->ndep; i++) {
        RduDep *x = &L->dep[i];
        if (x->from == d.from && x->to == d.to) {
            if (d.kind == RDU_DEP_DATA) {
                x->kind = RDU_DEP_DATA;
                x->bytes = sat_add(x->bytes, d.bytes);
                if (!x->tensor)
                    x->tensor = d.tensor;
                else
                    g_free(d.tensor);
            } else {
                g_free(d.tensor);
            }
            return;
        }
    }
    L->dep = g_renew(RduDep, L->dep, L->ndep + 1);
    L->dep[L->ndep++] = d;
}

/* gl: the graph loop (or -1 for the kernel's root); body: the items this kernel runs of it. */
static int build_loop(KBuild *b, int gl, const RduEntry *body, uint32_t nbody, int parent)
{
    const RduGraph *g = b->g;
    const RduChipSpec *c = b->chip;
    int li = (int)b->loops->len;
    RduMLoop L0 = { 0 };
    L0.name = g_strdup(gl >= 0 ? g->loops[gl].name : "kernel");
    L0.trips = gl >= 0 ? g->loops[gl].trips : 1;
    L0.ctrl = gl >= 0 ? g->loops[gl].ctrl : RDU_CTRL_PIPE;
    L0.parent = parent;
    L0.tile = 1;
    L0.split = 1;
    g_array_append_val(b->loops, L0);
    GArray *st = g_array_new(FALSE, TRUE, sizeof(RduStage));
    int *stage_ix = g_new(int, nbody ? nbody : 1);
    for (uint32_t i = 0; i < nbody; i++) {
        RduEntry e = body[i];
        if (e.is_loop) {
            const RduLoop *cl = &g->loops[e.index];
            int ci = build_loop(b, e.index, cl->body, cl->nbody, li);
            RduStage s = { .name = g_strdup(cl->name), .child = ci, .tile = 1 };
            g_array_append_val(st, s);
            stage_ix[i] = (int)st->len - 1;
            continue;
        }
        const RduNode *n = &g->nodes[e.index];
        RduStage *last = st->len ? &g_array_index(st, RduStage, st->len - 1) : NULL;
        bool fuse = false;
        if (last && last->child < 0 && !last->fixed && n->op != RDU_OP_FIXED &&
            is_elementwise(n->op) && last->nnodes < G_N_ELEMENTS(last->nodes) &&
            last->nnodes < c->stages) {
            const RduNode *prev = &g->nodes[last->nodes[last->nnodes - 1]];
            for (uint32_t k = 0; k < n->nin; k++)
                fuse |= prev->out >= 0 && n->in[k] == prev->out &&
                        g->tensors[prev->out].tier == RDU_TIER_CHIP;
        }
        uint64_t fl = 0;
        if (fuse) {
            char *nm = g_strdup_printf("%s+%s", last->name, n->name);
            g_free(last->name);
            last->name = nm;
            last->nodes[last->nnodes++] = e.index;
            last->work_cycles += node_work(g, c, n, true, &fl);
            last->flops += fl;
            node_traffic(b, last, n);
            stage_ix[i] = (int)st->len - 1;
            continue;
        }
        RduStage s = { .name = g_strdup(n->name), .child = -1, .nodes = { e.index }, .nnodes = 1,
                       .fixed = n->op == RDU_OP_FIXED, .pcus = 1, .tile = 1 };
        s.work_cycles = node_work(g, c, n, false, &fl);
        s.flops = fl;
        node_traffic(b, &s, n);
        g_array_append_val(st, s);
        stage_ix[i] = (int)st->len - 1;
    }
    RduMLoop *L = &g_array_index(b->loops, RduMLoop, li);
    L->nst = st->len;
    L->st = (RduStage *)(void *)g_array_free(st, FALSE);
    /* data dependences between this loop's stages: every tensor made on chip by a node of one
     * stage and read by a node of another, where this loop is the innermost holding both */
    for (uint32_t v = 0; v < g->nnodes; v++) {
        if (!b->member[v])
            continue;
        const RduNode *n = &g->nodes[v];
        for (uint32_t k = 0; k < n->nin; k++) {
            const RduTensor *t = &g->tensors[n->in[k]];
            int p = t->producer;
            if (p < 0 || !b->member[p] || rdu_graph_common_scope(g, p, (int)v) != gl)
                continue;
            int a = stage_of(g, body, nbody, stage_ix, p, gl);
            int z = stage_of(g, body, nbody, stage_ix, (int)v, gl);
            if (a < 0 || z < 0 || a == z)
                continue;
            bool on_chip = t->tier == RDU_TIER_CHIP;
            /* a tensor made in a loop nested in this one is every inner iteration's tile, unless
             * its maker accumulates it (reads it too): then only its last value leaves */
            bool accum = accumulates(g, p, n->in[k]);
            uint64_t bytes = on_chip ? sat_mul(rdu_tensor_bytes(t), accum ? 1 : trips_between(g, p, gl))
                                     : 0;
            add_dep(L, (RduDep){ .from = (uint32_t)a, .to = (uint32_t)z,
                                 .kind = on_chip ? RDU_DEP_DATA : RDU_DEP_CONTROL,
                                 .carried = z < a, .bytes = bytes,
                                 .tensor = on_chip ? g_strdup(t->name) : NULL });
        }
    }
    for (uint32_t s = 1; s < L->nst; s++)
        add_dep(L, (RduDep){ .from = s - 1, .to = s, .kind = RDU_DEP_CONTROL });
    g_free(stage_ix);
    return li;
}

/* Buffer depths and PMUs of one loop's edges (depth from the controller). */
static void set_depths(RduMLoop *L, const RduLoop *gl, const RduChipSpec *c)
{
    for (uint32_t i = 0; i < L->ndep; i++) {
        RduDep *d = &L->dep[i];
        if (d->carried)
            d->depth = 1;
        else if (gl && gl->depth)
            d->depth = gl->depth;
        else if (L->ctrl == RDU_CTRL_SEQUENTIAL)
            d->depth = 1;
        else if (L->ctrl == RDU_CTRL_STREAM)
            d->depth = 4;                        /* a FIFO of 4 tiles (PIR's default depth) */
        else
            d->depth = d->to - d->from + 1;      /* N-buffering: b - a + 1 versions */
        uint64_t per = ceil_div(d->bytes, L->split);
        d->pmus = per ? (uint32_t)MIN(ceil_div(sat_mul(per, d->depth), c->pmu_bytes), (uint64_t)1 << 30)
                      : 0;
    }
}

static const RduLoop *graph_loop_of(const RduGraph *g, const RduMLoop *L, int li)
{
    if (li == 0 || L->parent < 0)
        return NULL;
    for (uint32_t i = 0; i < g->nloops; i++)
        if (!strcmp(g->loops[i].name, L->name))
            return &g->loops[i];
    return NULL;
}

static void kernel_totals(const RduGraph *g, RduKernel *k, const RduChipSpec *c,
                          const bool *resident)
{
    k->pcus = k->pmus = 0;
    k->sram_bytes = 0;
    for (uint32_t li = 0; li < k->nloops; li++) {
        RduMLoop *L = &k->loops[li];
        set_depths(L, graph_loop_of(g, L, (int)li), c);
        for (uint32_t s = 0; s < L->nst; s++)
            if (L->st[s].child < 0)
                k->pcus += L->st[s].pcus;
        for (uint32_t i = 0; i < L->ndep; i++) {
            k->pmus += L->dep[i].pmus;
            k->sram_bytes = sat_add(k->sram_bytes, sat_mul(ceil_div(L->dep[i].bytes, L->split),
                                                           L->dep[i].depth));
        }
    }
    for (uint32_t t = 0; t < g->ntensors; t++)
        if (resident[t]) {
            uint64_t b = rdu_tensor_bytes(&g->tensors[t]);
            k->pmus += MIN(ceil_div(b, c->pmu_bytes), (uint64_t)1 << 30);
            k->sram_bytes = sat_add(k->sram_bytes, b);
        }
}

/* Stage time per iteration alone (mapper.h). */
double rdu_stage_time(const RduStage *s, const RduChipSpec *c)
{
    uint64_t hb = s->rd[RDU_TIER_HBM] + s->wr[RDU_TIER_HBM];
    uint64_t db = s->rd[RDU_TIER_DDR] + s->wr[RDU_TIER_DDR];
    double hbm = hb ? (double)hb / c->hbm_bpc + (double)c->hbm_lat : 0;
    double ddr = db ? (double)db / c->ddr_bpc + (double)c->ddr_lat : 0;
    double mem = MAX(hbm, ddr);
    return MAX((double)s->compute_cycles, mem);
}

/* A leaf stage's compute alone, per iteration: its work over its PCUs plus the pipeline fill. */
static uint64_t pure_compute(const RduStage *st, const RduChipSpec *c)
{
    uint64_t w = ceil_div(st->work_cycles, st->tile);
    return st->fixed ? w : ceil_div(w, st->pcus) + c->stages;
}

/* Cycles to read a stage's on-chip inputs out of the PMUs that hold them: each buffer (or
 * resident tensor) spread over its PMUs, every bank of each delivering 4 bytes a cycle; the
 * slowest input binds. fixed stages read nothing they compute on. */
static void set_pmu_cycles(RduKernel *k, const RduChipSpec *c)
{
    uint64_t per_pmu = (uint64_t)c->pmu_banks * 4;
    for (uint32_t li = 0; li < k->nloops; li++) {
        RduMLoop *L = &k->loops[li];
        for (uint32_t s = 0; s < L->nst; s++) {
            RduStage *st = &L->st[s];
            st->pmu_cycles = 0;
            if (st->child >= 0 || st->fixed || per_pmu == 0)
                continue;
            if (st->sram_rd) {                  /* read whole at every iteration */
                uint64_t p = MAX(1, ceil_div(st->sram_rd, c->pmu_bytes));
                st->pmu_cycles = ceil_div(st->sram_rd, p * per_pmu);
            }
            for (uint32_t i = 0; i < L->ndep; i++) {
                const RduDep *d = &L->dep[i];
                if (d->to != s || d->kind != RDU_DEP_DATA || d->pmus == 0)
                    continue;
                uint64_t b = ceil_div(d->bytes, L->split);
                /* the PMUs hold depth versions: one version's share of them serves a read */
                uint64_t p = MAX(1, d->pmus / MAX(1, d->depth));
                st->pmu_cycles = MAX(st->pmu_cycles, ceil_div(b, p * per_pmu));
            }
        }
    }
}

static void set_compute(RduKernel *k, const RduChipSpec *c)
{
    set_pmu_cycles(k, c);
    for (uint32_t li = 0; li < k->nloops; li++)
        for (uint32_t s = 0; s < k->loops[li].nst; s++) {
            RduStage *st = &k->loops[li].st[s];
            if (st->child >= 0)
                continue;
            st->compute_cycles = MAX(pure_compute(st, c), st->pmu_cycles);
        }
}

/* Predicted time of loop li (the metapipeline formula over its stages). */
static double loop_time(const RduKernel *k, uint32_t li, const RduChipSpec *c, double *ii)
{
    const RduMLoop *L = &k->loops[li];
    double sum = 0, mx = 0, hbm = 0, ddr = 0;
    double *ts = g_new(double, L->nst ? L->nst : 1);
    for (uint32_t s = 0; s < L->nst; s++) {
        const RduStage *st = &L->st[s];
        double t = st->child >= 0 ? loop_time(k, (uint32_t)st->child, c, NULL) : rdu_stage_time(st, c);
        ts[s] = t;
        sum += t;
        mx = MAX(mx, t);
        if (st->child < 0) {
            hbm += (double)(st->rd[RDU_TIER_HBM] + st->wr[RDU_TIER_HBM]) / c->hbm_bpc;
            ddr += (double)(st->rd[RDU_TIER_DDR] + st->wr[RDU_TIER_DDR]) / c->ddr_bpc;
        }
    }
    /* the stages share each tier: an iteration cannot start faster than the tier moves what
     * all of them ask of it; nor faster than a link moves one hand-off's tile */
    mx = MAX(mx, MAX(hbm, ddr));
    for (uint32_t i = 0; i < L->ndep; i++) {
        uint64_t per = ceil_div(L->dep[i].bytes, L->split);
        if (per)
            mx = MAX(mx, (double)ceil_div(c->header_bytes + per, c->link_bytes));
        if (!L->dep[i].carried)
            sum += (double)L->dep[i].xfer_cycles;      /* the first tile crosses each hand-off */
    }
    /* Two cycles bound how fast iterations can start (the recurrence bound of modulo
     * scheduling, RecMII: Rau, MICRO 1994), each a longest forward path from a stage a (its
     * start) to a stage b (its end), stage times and hand-offs:
     * - a carried edge from b back to an earlier a: a's iteration i + 1 waits for b's
     *   iteration i, which waits through the forward edges for a's iteration i: the path
     *   plus the carried hand-off;
     * - back-pressure on a forward edge a -> b of depth versions (pipe): a's iteration
     *   i + depth waits for b to release version i as it ends: the path over depth
     *   (a stream's FIFO entry is released as b starts: the path to b's start).
     * One longest-path pass per source stage over the edges into each stage. */
    uint32_t n = L->nst ? L->nst : 1;
    double *dist = g_new(double, n);
    uint32_t *in_start = g_new0(uint32_t, n + 1), *in_dep = g_new(uint32_t, L->ndep ? L->ndep : 1);
    bool *source = g_new0(bool, n);
    for (uint32_t i = 0; i < L->ndep; i++) {
        const RduDep *d = &L->dep[i];
        if (d->carried)
            source[d->to] = true;
        else if (L->ctrl != RDU_CTRL_SEQUENTIAL)
            source[d->from] = true;
        if (!d->carried)
            in_start[d->to + 1]++;
    }
    for (uint32_t s = 0; s < n; s++)
        in_start[s + 1] += in_start[s];
    uint32_t *fill = g_memdup2(in_start, sizeof(uint32_t) * n);
    for (uint32_t i = 0; i < L->ndep; i++)
        if (!L->dep[i].carried)
            in_dep[fill[L->dep[i].to]++] = i;
    g_free(fill);
    for (uint32_t q = 0; q < L->nst; q++) {
        if (!source[q])
            continue;
        for (uint32_t s = 0; s < L->nst; s++)
            dist[s] = s == q ? ts[q] : -1;
        for (uint32_t s = q + 1; s < L->nst; s++)
            for (uint32_t j = in_start[s]; j < in_start[s + 1]; j++) {
                const RduDep *d = &L->dep[in_dep[j]];
                if (dist[d->from] >= 0)
                    dist[s] = MAX(dist[s], dist[d->from] + (double)d->xfer_cycles + ts[s]);
            }
        for (uint32_t i = 0; i < L->ndep; i++) {
            const RduDep *d = &L->dep[i];
            if (d->carried && d->to == q && dist[d->from] >= 0)
                mx = MAX(mx, dist[d->from] + (double)d->xfer_cycles);
            else if (!d->carried && d->from == q && L->ctrl != RDU_CTRL_SEQUENTIAL &&
                     dist[d->to] >= 0 && L->trips > MAX(d->depth, 1u))   /* else never full */
                mx = MAX(mx, (dist[d->to] - (L->ctrl == RDU_CTRL_STREAM ? ts[d->to] : 0)) /
                                 (double)MAX(d->depth, 1u));
        }
    }
    g_free(in_start);
    g_free(in_dep);
    g_free(source);
    g_free(dist);
    g_free(ts);
    if (ii)
        *ii = L->ctrl == RDU_CTRL_SEQUENTIAL ? sum : mx;
    if (L->ctrl == RDU_CTRL_SEQUENTIAL)
        return (double)L->trips * sum;
    return sum + (double)(L->trips - 1) * mx;
}

/* Loops' total trips from the root down to li (the weight of a stage's time in the kernel). */
static double loop_weight(const RduKernel *k, uint32_t li)
{
    double w = 1;
    for (int x = (int)li; x >= 0; x = k->loops[x].parent)
        w *= (double)k->loops[x].trips;
    return w;
}

/* Doubles the PCUs of the stage that costs the kernel most until the chip's are spent or no
 * stage is bound by its compute any more (Plasticine's parallelization to balance a pipeline). */
static void balance(RduKernel *k, const RduChipSpec *c)
{
    uint32_t units = rdu_chip_units(c);
    for (;;) {
        set_compute(k, c);
        double best = 0;
        RduStage *pick = NULL;
        uint32_t used = 0;
        for (uint32_t li = 0; li < k->nloops; li++)
            for (uint32_t s = 0; s < k->loops[li].nst; s++)
                if (k->loops[li].st[s].child < 0)
                    used += k->loops[li].st[s].pcus;
        for (uint32_t li = 0; li < k->nloops; li++) {
            double w = loop_weight(k, li);
            for (uint32_t s = 0; s < k->loops[li].nst; s++) {
                RduStage *st = &k->loops[li].st[s];
                if (st->child >= 0 || st->fixed || used + st->pcus > units)
                    continue;
                uint64_t w1 = ceil_div(st->work_cycles, st->tile);
                if (ceil_div(w1, st->pcus) <= 1)
                    continue;                       /* one cycle of work: nothing to split */
                double mem = rdu_stage_time(st, c);
                if ((double)st->compute_cycles < mem)
                    continue;                       /* bound by its tier, not its compute */
                if (pure_compute(st, c) <= st->pmu_cycles)
                    continue;                       /* bound by its PMUs' banks */
                double cost = (double)st->compute_cycles * w;
                if (cost > best) {
                    best = cost;
                    pick = st;
                }
            }
        }
        if (!pick)
            break;
        pick->pcus *= 2;
    }
    set_compute(k, c);
}

static uint32_t first_leaf_pcu(const RduKernel *k, uint32_t li, uint32_t s, bool last)
{
    const RduStage *st = &k->loops[li].st[s];
    if (st->child < 0)
        return last ? st->first_pcu + st->pcus - 1 : st->first_pcu;
    const RduMLoop *C = &k->loops[st->child];
    return C->nst ? first_leaf_pcu(k, (uint32_t)st->child, last ? C->nst - 1 : 0, last) : 0;
}

static void place_loop(RduKernel *k, uint32_t li, uint32_t *next)
{
    RduMLoop *L = &k->loops[li];
    for (uint32_t s = 0; s < L->nst; s++) {
        if (L->st[s].child >= 0) {
            place_loop(k, (uint32_t)L->st[s].child, next);
        } else {
            L->st[s].first_pcu = *next;
            *next += L->st[s].pcus;
        }
    }
}

static void place(RduKernel *k, const RduChipSpec *c)
{
    uint32_t next = 0;
    place_loop(k, 0, &next);
    for (uint32_t li = 0; li < k->nloops; li++) {
        RduMLoop *L = &k->loops[li];
        for (uint32_t i = 0; i < L->ndep; i++) {
            RduDep *d = &L->dep[i];
            uint32_t a = first_leaf_pcu(k, li, d->from, true), z = first_leaf_pcu(k, li, d->to, false);
            d->src_pcu = a;
            d->dst_pcu = z;
            uint32_t ra, ca, rz, cz;
            rdu_slot_xy(c, a, &ra, &ca);
            rdu_slot_xy(c, z, &rz, &cz);
            d->hops = (ra > rz ? ra - rz : rz - ra) + (ca > cz ? ca - cz : cz - ca);
            uint64_t per = ceil_div(d->bytes, L->split);
            /* one cycle into the router (the injection channel), the hops (or the turn at the
             * router itself), the flits once (cut-through) */
            d->xfer_cycles = per ? 1 + (d->hops ? d->hops * (uint64_t)c->hop_cycles : c->turn_cycles) +
                                   ceil_div(c->header_bytes + per, c->link_bytes) : 0;
        }
    }
}

/* Halves the data of every iteration of loop li and of each loop inside it, stages' work and
 * traffic and hand-offs alike (a nested loop keeps its trips, over half the data each). */
static void halve_loop(RduKernel *k, uint32_t li)
{
    RduMLoop *L = &k->loops[li];
    L->split *= 2;
    for (uint32_t s = 0; s < L->nst; s++) {
        RduStage *st = &L->st[s];
        if (st->child >= 0) {
            halve_loop(k, (uint32_t)st->child);
            continue;
        }
        st->tile *= 2;
        for (int t = 0; t < 4; t++) {
            st->rd[t] = ceil_div(st->rd[t], 2);
            st->wr[t] = ceil_div(st->wr[t], 2);
        }
        st->flops = ceil_div(st->flops, 2);
    }
}

/* One tiling step of loop li: twice the trips, each over half the data. */
static void tile_loop(RduKernel *k, uint32_t li)
{
    RduMLoop *L = &k->loops[li];
    L->tile *= 2;
    L->trips = sat_mul(L->trips, 2);
    halve_loop(k, li);
}

static void kernel_free_loops(RduKernel *k)
{
    for (uint32_t li = 0; li < k->nloops; li++) {
        RduMLoop *L = &k->loops[li];
        for (uint32_t s = 0; s < L->nst; s++)
            g_free(L->st[s].name);
        for (uint32_t i = 0; i < L->ndep; i++)
            g_free(L->dep[i].tensor);
        g_free(L->st);
        g_free(L->dep);
        g_free(L->name);
    }
    g_free(k->loops);
    k->loops = NULL;
    k->nloops = 0;
}

/* A kernel of the given items: the top-level items `top` and, when part_loop >= 0, that loop's
 * body items [lo, hi) alone at the top. Returns whether it fits the chip; tiles loops whose
 * buffers overflow the PMUs until it does (or cannot). */
typedef struct {
    RduEntry *top;
    uint32_t ntop;
    int part_loop;
    uint32_t lo, hi;
    bool per_trip;               /* a part the host calls once per trip of part_loop */
} KSpec;

static void mark_entry(const RduGraph *g, RduEntry e, int8_t *m)
{
    if (!e.is_loop) {
        m[e.index] = 1;
        return;
    }
    const RduLoop *l = &g->loops[e.index];
    for (uint32_t i = 0; i < l->nbody; i++)
        mark_entry(g, l->body[i], m);
}

static void spec_members(const RduGraph *g, const KSpec *ks, int8_t *m)
{
    memset(m, 0, g->nnodes);
    for (uint32_t i = 0; i < ks->ntop; i++)
        mark_entry(g, ks->top[i], m);
    if (ks->part_loop >= 0)
        for (uint32_t i = ks->lo; i < ks->hi; i++)
            mark_entry(g, g->loops[ks->part_loop].body[i], m);
}

static bool build_kernel(const RduGraph *g, const RduChipSpec *c, const KSpec *ks,
                         RduKernel *k, const bool *resident)
{
    int8_t *member = g_new0(int8_t, g->nnodes);
    spec_members(g, ks, member);
    KBuild b = { .g = g, .chip = c, .member = member,
                 .loops = g_array_new(FALSE, TRUE, sizeof(RduMLoop)) };
    memset(k, 0, sizeof *k);
    if (ks->part_loop >= 0) {
        /* root -> a copy of the loop with part of its body */
        RduMLoop R = { .name = g_strdup("kernel"), .trips = 1, .ctrl = RDU_CTRL_PIPE, .parent = -1,
                       .tile = 1, .split = 1 };
        g_array_append_val(b.loops, R);
        const RduLoop *pl = &g->loops[ks->part_loop];
        int ci = build_loop(&b, ks->part_loop, pl->body + ks->lo, ks->hi - ks->lo, 0);
        if (ks->per_trip)
            g_array_index(b.loops, RduMLoop, ci).trips = 1;     /* one trip a call */
        RduMLoop *root = &g_array_index(b.loops, RduMLoop, 0);
        root->st = g_new0(RduStage, 1);
        root->st[0] = (RduStage){ .name = g_strdup(pl->name), .child = ci, .tile = 1 };
        root->nst = 1;
    } else {
        build_loop(&b, -1, ks->top, ks->ntop, -1);
    }
    k->nloops = b.loops->len;
    k->loops = (RduMLoop *)(void *)g_array_free(b.loops, FALSE);
    bool *res_here = g_new0(bool, g->ntensors ? g->ntensors : 1);
    for (uint32_t v = 0; v < g->nnodes; v++)
        if (member[v])
            for (uint32_t i = 0; i < g->nodes[v].nin; i++)
                res_here[g->nodes[v].in[i]] |= resident[g->nodes[v].in[i]];
    kernel_totals(g, k, c, res_here);
    uint32_t units = rdu_chip_units(c);
    /* tiling: halve the iteration of the loop with the most buffer PMUs, among those where
     * halving frees one, until they fit (a loop tiled MAX_TILE times is left as it is, the
     * next one tried); and of a loop with a hand-off tile past what one network message
     * carries (4 GiB) */
    for (;;) {
        uint64_t best = 0;
        int pick = -1;
        bool huge = false;
        for (uint32_t li = 0; li < k->nloops && !huge; li++) {
            const RduMLoop *L = &k->loops[li];
            uint64_t p = 0;
            bool shrinks = false;           /* halving frees a PMU of some buffer */
            for (uint32_t i = 0; i < L->ndep; i++) {
                const RduDep *d = &L->dep[i];
                uint64_t per = ceil_div(d->bytes, L->split);
                p += d->pmus;
                huge |= per > RDU_MAX_TILE_BYTES;
                shrinks |= ceil_div(sat_mul(ceil_div(per, 2), d->depth), c->pmu_bytes) < d->pmus;
            }
            if (L->tile < MAX_TILE && (huge || (k->pmus > units && shrinks && p > best))) {
                best = p;
                pick = (int)li;
            }
        }
        if (pick < 0 || (!huge && best <= 1))
            break;
        tile_loop(k, (uint32_t)pick);
        kernel_totals(g, k, c, res_here);
    }
    k->max_tile = 0;
    for (uint32_t li = 0; li < k->nloops; li++)
        for (uint32_t i = 0; i < k->loops[li].ndep; i++)
            k->max_tile = MAX(k->max_tile, ceil_div(k->loops[li].dep[i].bytes, k->loops[li].split));
    g_free(res_here);
    g_free(member);
    return k->pcus <= units && k->pmus <= units && k->max_tile <= RDU_MAX_TILE_BYTES;
}

static void finish_kernel(RduKernel *k, const RduChipSpec *c)
{
    balance(k, c);
    place(k, c);
    k->pcus = 0;
    for (uint32_t li = 0; li < k->nloops; li++)
        for (uint32_t s = 0; s < k->loops[li].nst; s++)
            if (k->loops[li].st[s].child < 0)
                k->pcus += k->loops[li].st[s].pcus;
    double t = ceil(loop_time(k, 0, c, NULL));
    k->predicted_cycles = t >= 0x1p64 ? UINT64_MAX : (uint64_t)t;
    /* the initiation interval of the busiest loop (the one with the most trips below the root) */
    double best_w = 0;
    k->ii = 0;
    for (uint32_t li = 0; li < k->nloops; li++) {
        double ii, w = loop_weight(k, li);
        loop_time(k, li, c, &ii);
        if (w > best_w || (w == best_w && ii > k->ii)) {
            best_w = w;
            k->ii = ii;
        }
    }
}

static const char *entry_nm(const RduGraph *g, RduEntry e)
{
    return e.is_loop ? g->loops[e.index].name : g->nodes[e.index].name;
}

/* Why kernel k does not fit, for a message: what it needs against what the chip has. */
static char *misfit(const RduKernel *k, uint32_t units)
{
    if (k->max_tile > RDU_MAX_TILE_BYTES && k->pcus <= units && k->pmus <= units)
        return g_strdup_printf("a hand-off tile of %" G_GUINT64_FORMAT " B, more than one network "
                               "message carries (4 GiB) after tiling %ux", k->max_tile, MAX_TILE);
    return g_strdup_printf("%u PCUs and %" G_GUINT64_FORMAT " PMUs, the chip has %u of each",
                           k->pcus, k->pmus, units);
}

/* The first carried edge of loop l (a node of body item a reading what a node of a later item
 * z makes, for its next trip) with a and z in different parts, the parts starting at
 * starts[0..nparts); false when none crosses. */
static bool carried_across(const RduGraph *g, int l, const uint32_t *starts, uint32_t nparts,
                           int *from, int *to)
{
    const RduLoop *L = &g->loops[l];
    for (uint32_t v = 0; v < g->nnodes; v++)
        for (uint32_t k = 0; k < g->nodes[v].nin; k++) {
            /* whatever its tier: one through HBM orders the trips as one on chip does */
            int p = g->tensors[g->nodes[v].in[k]].producer;
            if (p < 0 || rdu_graph_common_scope(g, p, (int)v) != l)
                continue;
            RduEntry ep = rdu_graph_entry_in(g, p, l), ev = rdu_graph_entry_in(g, (int)v, l);
            uint32_t ip = 0, iv = 0;
            for (uint32_t i = 0; i < L->nbody; i++) {
                if (L->body[i].is_loop == ep.is_loop && L->body[i].index == ep.index)
                    ip = i;
                if (L->body[i].is_loop == ev.is_loop && L->body[i].index == ev.index)
                    iv = i;
            }
            if (ip <= iv)
                continue;                               /* forward: the next part reads it */
            uint32_t pp = 0, pv = 0;
            for (uint32_t j = 0; j < nparts; j++) {
                if (starts[j] <= ip)
                    pp = j;
                if (starts[j] <= iv)
                    pv = j;
            }
            if (pp != pv) {
                *from = p;
                *to = (int)v;
                return true;
            }
        }
    return false;
}

RduProgram *rdu_map(const RduGraph *g, const RduChipSpec *c, GError **error)
{
    RduProgram *p = g_new0(RduProgram, 1);
    p->notes = g_string_new(NULL);
    bool *resident = g_new0(bool, g->ntensors ? g->ntensors : 1);
    for (uint32_t t = 0; t < g->ntensors; t++) {
        resident[t] = g->tensors[t].tier == RDU_TIER_SRAM;
        if (resident[t])
            p->sram_resident += rdu_tensor_bytes(&g->tensors[t]);
    }
    uint32_t units = rdu_chip_units(c);
    GArray *specs = g_array_new(FALSE, TRUE, sizeof(KSpec));
    GArray *groups = g_array_new(FALSE, TRUE, sizeof(RduCallGroup));
    KSpec cur = { .top = g_new0(RduEntry, g->ntop ? g->ntop : 1), .part_loop = -1 };
    RduKernel k;
    bool ok = true;
    /* pass 1: which items go in which kernel (greedy, in run order) */
    for (uint32_t i = 0; ok && i < g->ntop; i++) {
        cur.top[cur.ntop++] = g->top[i];
        bool fit = build_kernel(g, c, &cur, &k, resident);
        char *why = misfit(&k, units);
        kernel_free_loops(&k);
        if (fit) {
            g_free(why);
            continue;
        }
        cur.ntop--;
        if (cur.ntop > 0) {
            g_string_append_printf(p->notes, "kernel %u ends before '%s': with it the kernel "
                                   "needs %s\n", specs->len, entry_nm(g, g->top[i]), why);
            g_array_append_val(groups, ((RduCallGroup){ specs->len, 1, 1 }));
            g_array_append_val(specs, cur);
            cur = (KSpec){ .top = g_new0(RduEntry, g->ntop), .part_loop = -1 };
        }
        g_free(why);
        cur.top[cur.ntop++] = g->top[i];
        if (build_kernel(g, c, &cur, &k, resident)) {
            kernel_free_loops(&k);
            continue;
        }
        why = misfit(&k, units);
        char *need = k.max_tile > RDU_MAX_TILE_BYTES && k.pcus <= units && k.pmus <= units ?
                     g_strdup_printf("a hand-off tile of %" G_GUINT64_FORMAT " B needed, more "
                                     "than one network message carries", k.max_tile) :
                     g_strdup_printf("%u PCUs, %" G_GUINT64_FORMAT " PMUs needed, %u of each on "
                                     "the chip", k.pcus, k.pmus, units);
        kernel_free_loops(&k);
        /* one item alone does not fit: a loop splits its body into consecutive parts */
        RduEntry e = g->top[i];
        if (!e.is_loop) {
            const RduNode *n = &g->nodes[e.index];
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s:%d:%d: node '%s' "
                        "does not fit the chip even alone: it needs %s", g->file, n->line,
                        n->col, n->name, why);
            g_free(why);
            g_free(need);
            ok = false;
            break;
        }
        const RduLoop *l = &g->loops[e.index];
        g_string_append_printf(p->notes, "loop '%s' does not fit one kernel (%s): its body "
                               "splits into consecutive parts, each a kernel", l->name, need);
        g_free(why);
        g_free(need);
        cur.ntop = 0;
        uint32_t lo = 0, first = specs->len;
        GArray *starts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        while (ok && lo < l->nbody) {
            uint32_t hi = lo + 1;
            KSpec part = { .top = NULL, .ntop = 0, .part_loop = e.index, .lo = lo, .hi = hi };
            if (!build_kernel(g, c, &part, &k, resident)) {
                why = misfit(&k, units);
                kernel_free_loops(&k);
                RduEntry be = l->body[lo];
                int line = be.is_loop ? g->loops[be.index].line : g->nodes[be.index].line;
                int col = be.is_loop ? g->loops[be.index].col : g->nodes[be.index].col;
                g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s:%d:%d: '%s' "
                            "(a stage of loop '%s') does not fit the chip even alone: it needs "
                            "%s", g->file, line, col, entry_nm(g, be), l->name, why);
                g_free(why);
                ok = false;
                break;
            }
            kernel_free_loops(&k);
            while (hi < l->nbody) {
                part.hi = hi + 1;
                bool f = build_kernel(g, c, &part, &k, resident);
                kernel_free_loops(&k);
                if (!f)
                    break;
                hi++;
            }
            part.hi = hi;
            g_array_append_val(specs, part);
            g_array_append_val(starts, lo);
            lo = hi;
        }
        if (ok) {
            /* a carried edge from a later part back to an earlier one: the earlier part's next
             * trip needs the later part's last, so no part may run all trips alone; the host
             * calls the parts in turn, one trip each (kernel looping) */
            uint32_t nparts = specs->len - first;
            int from = -1, to = -1;
            bool per_trip = carried_across(g, e.index, (const uint32_t *)(void *)starts->data,
                                           nparts, &from, &to);
            for (uint32_t j = first; j < specs->len; j++)
                g_array_index(specs, KSpec, j).per_trip = per_trip;
            if (per_trip) {
                g_array_append_val(groups, ((RduCallGroup){ first, nparts, l->trips }));
                g_string_append_printf(p->notes, "; '%s' reads what '%s' makes at the trip "
                                       "before, across parts, so the host calls the %u parts in "
                                       "turn, one trip each: %" G_GUINT64_FORMAT " x %u kernel "
                                       "calls, the tensors between parts through HBM\n",
                                       g->nodes[to].name, g->nodes[from].name, nparts, l->trips,
                                       nparts);
            } else {
                g_array_append_val(groups, ((RduCallGroup){ first, nparts, 1 }));
                g_string_append_printf(p->notes, " running all %" G_GUINT64_FORMAT " trips, the "
                                       "tensors between parts through HBM\n", l->trips);
            }
        }
        g_array_free(starts, TRUE);
    }
    if (ok && cur.ntop > 0) {
        g_array_append_val(groups, ((RduCallGroup){ specs->len, 1, 1 }));
        g_array_append_val(specs, cur);
    } else {
        g_free(cur.top);
    }
    if (ok) {
        /* pass 2: the kernels, with the tensors that cross between them through HBM */
        p->nk = specs->len;
        p->k = g_new0(RduKernel, p->nk ? p->nk : 1);
        for (uint32_t i = 0; i < p->nk; i++) {
            build_kernel(g, c, &g_array_index(specs, KSpec, i), &p->k[i], resident);
            finish_kernel(&p->k[i], c);
            for (uint32_t li = 0; li < p->k[i].nloops; li++)
                if (p->k[i].loops[li].tile > 1)
                    g_string_append_printf(p->notes, "kernel %u: loop '%s' tiled %" G_GUINT64_FORMAT
                                           "x (its buffers did not fit the PMUs): %"
                                           G_GUINT64_FORMAT " trips%s\n", i, p->k[i].loops[li].name,
                                           p->k[i].loops[li].tile, p->k[i].loops[li].trips,
                                           li == 1 && g_array_index(specs, KSpec, i).per_trip ?
                                           " a call" : "");
        }
        p->ngroups = groups->len;
        p->groups = (RduCallGroup *)(void *)g_array_free(groups, FALSE);
        groups = NULL;
    }
    for (guint i = 0; i < specs->len; i++)
        g_free(g_array_index(specs, KSpec, i).top);
    g_array_free(specs, TRUE);
    if (groups)
        g_array_free(groups, TRUE);
    g_free(resident);
    if (!ok) {
        rdu_program_free(p);
        return NULL;
    }
    return p;
}

/* Kernel calls in all (saturating), and the predicted cycles of them all. */
uint64_t rdu_program_calls(const RduProgram *p, uint64_t *predicted)
{
    uint64_t calls = 0, cyc = 0;
    for (uint32_t i = 0; i < p->ngroups; i++) {
        const RduCallGroup *gr = &p->groups[i];
        uint64_t one = 0;
        for (uint32_t j = gr->first; j < gr->first + gr->count; j++)
            one = sat_add(one, p->k[j].predicted_cycles);
        calls = sat_add(calls, sat_mul(gr->count, gr->repeats));
        cyc = sat_add(cyc, sat_mul(one, gr->repeats));
    }
    if (predicted)
        *predicted = cyc;
    return calls;
}

void rdu_program_free(RduProgram *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->nk; i++)
        kernel_free_loops(&p->k[i]);
    g_free(p->k);
    g_free(p->groups);
    g_string_free(p->notes, TRUE);
    g_free(p);
}

static void report_loop(const RduKernel *k, uint32_t li, const RduChipSpec *c, int indent,
                        GString *out)
{
    const RduMLoop *L = &k->loops[li];
    double ii;
    double t = loop_time(k, li, c, &ii);
    g_string_append_printf(out, "%*sloop %s: %" G_GUINT64_FORMAT " trips, %s", indent, "",
                           L->name, L->trips, rdu_ctrl_names[L->ctrl]);
    if (L->tile > 1)
        g_string_append_printf(out, ", tiled %" G_GUINT64_FORMAT "x", L->tile);
    g_string_append_printf(out, "; predicted II %.0f cycles, %.0f cycles in all\n", ii, t);
    for (uint32_t s = 0; s < L->nst; s++) {
        const RduStage *st = &L->st[s];
        if (st->child >= 0) {
            g_string_append_printf(out, "%*s  stage %u: loop %s\n", indent, "", s, st->name);
            report_loop(k, (uint32_t)st->child, c, indent + 4, out);
            continue;
        }
        uint32_t r0, c0;
        rdu_slot_xy(c, st->first_pcu, &r0, &c0);
        g_string_append_printf(out, "%*s  stage %u: %s  %u PCU%s at (%u,%u)  %" G_GUINT64_FORMAT
                               " cycles/iter", indent, "", s, st->name, st->pcus,
                               st->pcus == 1 ? "" : "s", r0, c0, st->compute_cycles);
        uint64_t hb = st->rd[RDU_TIER_HBM] + st->wr[RDU_TIER_HBM];
        uint64_t db = st->rd[RDU_TIER_DDR] + st->wr[RDU_TIER_DDR];
        if (st->pmu_cycles && st->pmu_cycles >= pure_compute(st, c))
            g_string_append_printf(out, " (its PMU reads: %" G_GUINT64_FORMAT ")", st->pmu_cycles);
        if (hb)
            g_string_append_printf(out, ", HBM %" G_GUINT64_FORMAT " B/iter (%.0f cycles)", hb,
                                   (double)hb / c->hbm_bpc);
        if (db)
            g_string_append_printf(out, ", DDR %" G_GUINT64_FORMAT " B/iter (%.0f cycles)", db,
                                   (double)db / c->ddr_bpc);
        g_string_append_c(out, '\n');
    }
    for (uint32_t i = 0; i < L->ndep; i++) {
        const RduDep *d = &L->dep[i];
        if (d->kind == RDU_DEP_CONTROL && !d->carried)
            continue;
        g_string_append_printf(out, "%*s  buffer %s -> %s", indent, "", L->st[d->from].name,
                               L->st[d->to].name);
        if (d->tensor)
            g_string_append_printf(out, " (%s)", d->tensor);
        uint64_t per = ceil_div(d->bytes, L->split);
        g_string_append_printf(out, ": %" G_GUINT64_FORMAT " B x %u version%s = %"
                               G_GUINT64_FORMAT " B in %u PMU%s, %u hop%s%s\n", per, d->depth,
                               d->depth == 1 ? "" : "s", sat_mul(per, d->depth), d->pmus,
                               d->pmus == 1 ? "" : "s", d->hops, d->hops == 1 ? "" : "s",
                               d->carried ? ", carried to the next iteration" : "");
    }
}

void rdu_program_report(const RduProgram *p, const RduGraph *g, const RduChipSpec *c, GString *out)
{
    uint32_t units = rdu_chip_units(c);
    g_string_append_printf(out, "graph %s on a %ux%u chip (%u PCUs, %u PMUs of %" G_GUINT64_FORMAT
                            " B): %u kernel%s\n", g->path, c->rows, c->cols, units, units,
                            c->pmu_bytes, p->nk, p->nk == 1 ? "" : "s");
    if (p->notes->len)
        g_string_append(out, p->notes->str);
    for (uint32_t i = 0; i < p->nk; i++) {
        const RduKernel *k = &p->k[i];
        uint64_t calls = 1;
        for (uint32_t j = 0; j < p->ngroups; j++)
            if (i >= p->groups[j].first && i < p->groups[j].first + p->groups[j].count)
                calls = p->groups[j].repeats;
        g_string_append_printf(out, "kernel %u: %u PCUs, %" G_GUINT64_FORMAT " PMUs, SRAM %"
                               G_GUINT64_FORMAT " B (%.1f%% of %" G_GUINT64_FORMAT " B), predicted "
                               "II %.0f cycles, %" G_GUINT64_FORMAT " cycles", i, k->pcus, k->pmus,
                               k->sram_bytes, 100.0 * (double)k->sram_bytes /
                               ((double)c->pmu_bytes * units), c->pmu_bytes * units, k->ii,
                               k->predicted_cycles);
        if (calls > 1)
            g_string_append_printf(out, " a call, called %" G_GUINT64_FORMAT " times", calls);
        g_string_append_c(out, '\n');
        report_loop(k, 0, c, 2, out);
    }
    uint64_t predicted, calls = rdu_program_calls(p, &predicted);
    if (calls != p->nk)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT " kernel calls in all, predicted %"
                               G_GUINT64_FORMAT " cycles\n", calls, predicted);
}
