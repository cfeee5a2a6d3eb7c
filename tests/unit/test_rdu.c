/* test_rdu.c: CUnit tests for the dataflow RDU (models/rdu): the graph parser (each error at its
 * line and column), the mapper (N-buffer depths b - a + 1, fusion, tiling, kernel splits), the
 * metapipeline runtime on a bare engine (pipe, sequential and stream controllers against
 * sum T + (N - 1) max T and N sum T on random stage times, nested loops, back-pressure), memory
 * tiers as a shared bandwidth, and whole runs of the rdu system (the same stats twice).
 * Run from the repo root.
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../models/rdu/graph.h"
#include "../../models/rdu/mapper.h"
#include "../../models/rdu/metapipe.h"
#include "../../sim/error.h"
#include "sysutil.h"
#include "tmpdir.h"

static char *tdir;

static RduGraph *parse(const char *text, GError **e)
{
    CfgNode *root = cfg_load_string("g.yaml", text, NULL, e);
    if (!root)
        return NULL;
    RduGraph *g = rdu_graph_from_tree(root, "g.yaml", e);
    cfg_node_free(root);
    return g;
}

static RduChipSpec chip(uint32_t rows, uint32_t cols)
{
    RduChipSpec c = { .rows = rows, .cols = cols, .lanes = 16, .stages = 6,
                      .macs = { [RDU_BF16] = 96, [RDU_FP32] = 48, [RDU_INT8] = 192 },
                      .pmu_bytes = 256 * 1024, .pmu_banks = 16, .hop_cycles = 2, .turn_cycles = 1, .link_bytes = 64,
                      .hbm_bpc = 100, .ddr_bpc = 25, .hbm_bytes = 1ull << 34,
                      .ddr_bytes = 1ull << 36 };
    return c;
}

/* ---- the parser ---- */

static void test_parse_errors(void)
{
    static const struct { const char *yaml, *want; } cases[] = {
        { "graph:\n  nodes:\n    a: {op: fixd, cycles: 3}\n",
          "g.yaml:3:13: op: unknown 'fixd'; did you mean 'fixed'?" },
        { "graph:\n  nodes:\n    a: {op: fixed}\n", "g.yaml:3:5: node 'a': op fixed needs cycles" },
        { "graph:\n  nodes:\n    a: {op: map, cycles: 3}\n", "g.yaml:3:26: cycles: only op fixed" },
        { "graph:\n  tensors:\n    x: {shape: [4, 8], dtype: bf16, tier: hbm}\n"
          "    y: {shape: [4, 9], dtype: bf16, tier: hbm}\n    z: {shape: [4, 8], dtype: bf16}\n"
          "  nodes:\n    a: {op: zip, in: [x, y], out: z}\n",
          "g.yaml:7:35: node 'a': shape mismatch: zip's two inputs have one shape (x [4, 8], y [4, 9] -> z [4, 8])" },
        { "graph:\n  tensors:\n    x: {shape: [4, 8], dtype: bf16, tier: hbm}\n"
          "    w: {shape: [9, 2], dtype: bf16, tier: hbm}\n    z: {shape: [4, 2], dtype: bf16}\n"
          "  nodes:\n    a: {op: gemm, in: [x, w], out: z}\n",
          "g.yaml:7:36: node 'a': shape mismatch: gemm multiplies [.., M, K] by [K, N]" },
        { "graph:\n  tensors:\n    x: {shape: [4], dtype: bf16}\n  nodes:\n"
          "    a: {op: map, in: y, out: x}\n",
          "g.yaml:5:22: in: unknown tensor 'y'" },
        { "graph:\n  tensors:\n    x: {shape: [4], dtype: bf17}\n  nodes:\n    a: {op: fixed, cycles: 1}\n",
          "g.yaml:3:28: dtype: unknown 'bf17'; did you mean 'bf16'?" },
        { "graph:\n  tensors:\n    x: {shape: [4], dtype: bf16}\n    y: {shape: [4], dtype: bf16}\n"
          "  nodes:\n    a: {op: map, in: x, out: y}\n    b: {op: map, in: y, out: x}\n",
          "g.yaml:6:5: a cycle without a loop: a -> b -> a; hint: list them in one loop's body" },
        /* a node downstream of the cycle, listed first (the walk followed successors and ran
         * off the sink c: an out-of-bounds read and write) */
        { "graph:\n  tensors:\n    ta: {shape: [16], dtype: fp32}\n    tb: {shape: [16], dtype: fp32}\n"
          "  nodes:\n    c: {op: fixed, cycles: 1, in: ta}\n"
          "    a: {op: fixed, cycles: 1, in: tb, out: ta}\n    b: {op: fixed, cycles: 1, in: ta, out: tb}\n",
          "g.yaml:7:5: a cycle without a loop: a -> b -> a;" },
        { "graph:\n  nodes:\n    a: {op: fixed, cycles: 1}\n  loops:\n"
          "    - {name: l, trips: 2, controller: piped, body: [a]}\n",
          "g.yaml:5:39: controller: unknown 'piped'; did you mean 'pipe'?" },
        { "graph:\n  nodes:\n    a: {op: fixed, cycles: 1}\n  loops:\n"
          "    - {name: l, trips: 2, body: [a, bb]}\n",
          "g.yaml:5:37: body: unknown node or loop 'bb'" },
        { "graph:\n  nodes:\n    a: {op: fixed, cycles: 1}\n  loops:\n"
          "    - {name: l, trips: 2, body: [a]}\n    - {name: m, trips: 2, body: [a]}\n",
          "g.yaml:6:34: body: node 'a' is already in loop 'l'" },
        { "graph:\n  nodes:\n    a: {op: fixed, cycles: 1}\n  loops:\n"
          "    - {name: l, trips: 2, body: [a, m]}\n    - {name: m, trips: 2, body: [l]}\n",
          "loop 'l' is inside itself" },
        { "graph:\n  tensors:\n    y: {shape: [4], dtype: fp32}\n  nodes:\n"
          "    a: {op: zip, in: [y, y], out: y}\n",
          "g.yaml:5:23: in: node 'a' reads the tensor it writes, outside any loop" },
        { "graph:\n  nodes:\n    a: {op: fixed, cycles: 1, colour: red}\n",
          "g.yaml:3:31: unknown key 'colour' in a node" },
        { "graph:\n  tensors:\n    x: {shape: [4], dtype: bf16}\n  nodes:\n    a: {op: map, in: x, out: x2}\n",
          "g.yaml:5:30: out: unknown tensor 'x2'" },
        { "graph:\n  tensors:\n    x: {shape: [4], dtype: bf16}\n    y: {shape: [4], dtype: bf16}\n"
          "  nodes:\n    a: {op: map, in: x, out: y}\n",
          "g.yaml:3:5: tensor 'x' is read but no node makes it; hint: give it a tier" },
        { "graph:\n  tensors:\n    x: {shape: [0], dtype: bf16}\n  nodes:\n    a: {op: fixed, cycles: 1}\n",
          "g.yaml:3:17: shape: expected a whole number from 1" },
        { "graph:\n  tensors:\n    x: {shape: [4, 8], dtype: bf16, tier: hbm}\n"
          "    y: {shape: [2, 15], dtype: bf16}\n  nodes:\n    r: {op: reshape, in: x, out: y}\n",
          "g.yaml:6:34: node 'r': shape mismatch: reshape keeps the number of elements" },
        { "graph:\n  nodes:\n    a: {op: fixed, cycles: 1}\n  loops:\n    - {name: l, trips: 0, body: [a]}\n",
          "g.yaml:5:24: trips: expected a whole number from 1" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *e = NULL;
        RduGraph *g = parse(cases[i].yaml, &e);
        CU_ASSERT_PTR_NULL(g);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
        if (!strstr(e->message, cases[i].want))
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, e->message, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, cases[i].want));
        g_error_free(e);
        rdu_graph_free(g);
    }
}

static void test_parse_ok(void)
{
    GError *e = NULL;
    RduGraph *g = parse("graph:\n  tensors:\n    x: {shape: [8, 64], dtype: BF16, tier: hbm}\n"
                        "    w: {shape: [64, 32], dtype: bf16, tier: sram}\n"
                        "    h: {shape: [8, 32], dtype: fp32}\n    r: {shape: [8], dtype: fp32}\n"
                        "    s: {shape: [8, 1], dtype: fp32, tier: ddr}\n"
                        "  nodes:\n    red: {op: reduce, in: h, out: r}\n"
                        "    mm: {op: gemm, in: [x, w], out: h}\n"
                        "    red2: {op: fold, in: h, out: s}\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(g->nnodes, 3);
    CU_ASSERT_EQUAL(g->tensors[0].dtype, RDU_BF16);
    CU_ASSERT_EQUAL(g->tensors[4].tier, RDU_TIER_DDR);
    /* the top level in data order: mm before the two reductions, those in file order */
    CU_ASSERT_EQUAL(g->ntop, 3);
    CU_ASSERT_STRING_EQUAL(g->nodes[g->top[0].index].name, "mm");
    CU_ASSERT_STRING_EQUAL(g->nodes[g->top[1].index].name, "red");
    CU_ASSERT_STRING_EQUAL(g->nodes[g->top[2].index].name, "red2");
    rdu_graph_free(g);
}

/* ---- the mapper ---- */

static const RduMLoop *loop_named(const RduKernel *k, const char *name)
{
    for (uint32_t i = 0; i < k->nloops; i++)
        if (!strcmp(k->loops[i].name, name))
            return &k->loops[i];
    return NULL;
}

static const RduDep *dep(const RduMLoop *L, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i < L->ndep; i++)
        if (L->dep[i].from == a && L->dep[i].to == b)
            return &L->dep[i];
    return NULL;
}

#define FOUR_STAGES                                                                     \
    "graph:\n  tensors:\n    ab: {shape: [1024], dtype: fp32}\n"                         \
    "    ad: {shape: [65536], dtype: fp32}\n    bc: {shape: [1024], dtype: fp32}\n"      \
    "  nodes:\n    a: {op: fixed, cycles: 10, out: ab}\n"                                \
    "    b: {op: fixed, cycles: 10, in: ab, out: bc}\n"                                  \
    "    c: {op: fixed, cycles: 10, in: bc}\n    d: {op: fixed, cycles: 10, in: ad}\n"   \
    "    a2: {op: fixed, cycles: 5, out: ad}\n"                                          \
    "  loops:\n    - {name: l, trips: 4, controller: %s, body: [a2, a, b, c, d]}\n"

static void test_mapper_buffers(void)
{
    static const struct { const char *ctrl; uint32_t ab, a2d, bc; } cases[] = {
        { "pipe", 2, 5, 2 }, { "sequential", 1, 1, 1 }, { "stream", 4, 4, 4 },
        { "pipe, depth: 3", 3, 3, 3 },
    };
    RduChipSpec c = chip(4, 4);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *y = g_strdup_printf(FOUR_STAGES, cases[i].ctrl);
        GError *e = NULL;
        RduGraph *g = parse(y, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        RduProgram *p = rdu_map(g, &c, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL(p->nk, 1);
        const RduMLoop *L = loop_named(&p->k[0], "l");
        CU_ASSERT_PTR_NOT_NULL_FATAL(L);
        /* stages: a2 0, a 1, b 2, c 3, d 4 */
        const RduDep *ab = dep(L, 1, 2), *a2d = dep(L, 0, 4), *bc = dep(L, 2, 3);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ab);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a2d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(bc);
        CU_ASSERT_EQUAL(ab->depth, cases[i].ab);
        CU_ASSERT_EQUAL(a2d->depth, cases[i].a2d);
        CU_ASSERT_EQUAL(bc->depth, cases[i].bc);
        CU_ASSERT_EQUAL(ab->kind, RDU_DEP_DATA);
        CU_ASSERT_EQUAL(ab->bytes, 4096);
        /* 256 KiB of ad per version: one PMU each */
        CU_ASSERT_EQUAL(a2d->pmus, cases[i].a2d);
        CU_ASSERT_EQUAL(p->k[0].sram_bytes, 4096ull * (ab->depth + bc->depth) + 262144ull * a2d->depth);
        /* a control token between stages without data: no PMU */
        const RduDep *cd = dep(L, 3, 4);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cd);
        CU_ASSERT_EQUAL(cd->kind, RDU_DEP_CONTROL);
        CU_ASSERT_EQUAL(cd->pmus, 0);
        rdu_program_free(p);
        rdu_graph_free(g);
        g_free(y);
    }
}

static void test_mapper_fuse_tile_split(void)
{
    RduChipSpec c = chip(4, 4);
    GError *e = NULL;
    /* silu and the product fuse into the gemm's stage; the fixed stage is never fused */
    RduGraph *g = parse("graph:\n  tensors:\n    x: {shape: [64, 128], dtype: bf16, tier: hbm}\n"
                        "    w: {shape: [128, 128], dtype: bf16, tier: sram}\n"
                        "    h: {shape: [64, 128], dtype: bf16}\n    a: {shape: [64, 128], dtype: bf16}\n"
                        "    o: {shape: [64, 128], dtype: bf16, tier: hbm}\n"
                        "  nodes:\n    mm: {op: gemm, in: [x, w], out: h}\n"
                        "    act: {op: silu, in: h, out: a}\n    mul: {op: zip, in: [a, h], out: o}\n"
                        "    f: {op: fixed, cycles: 9}\n"
                        "  loops:\n    - {name: l, trips: 8, body: [mm, act, mul, f]}\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    RduProgram *p = rdu_map(g, &c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    const RduMLoop *L = loop_named(&p->k[0], "l");
    CU_ASSERT_EQUAL(L->nst, 2);
    CU_ASSERT_STRING_EQUAL(L->st[0].name, "mm+act+mul");
    CU_ASSERT_EQUAL(L->st[0].rd[RDU_TIER_HBM], 64 * 128 * 2);
    CU_ASSERT_EQUAL(L->st[0].wr[RDU_TIER_HBM], 64 * 128 * 2);
    CU_ASSERT_EQUAL(L->st[0].flops, 2ull * 64 * 128 * 128 + 64 * 128 * 4 + 64 * 128);
    /* the fixed stage keeps one PCU, the gemm gets the rest it can use (powers of two) */
    CU_ASSERT_EQUAL(L->st[1].pcus, 1);
    CU_ASSERT(L->st[0].pcus > 1 && L->st[0].pcus <= 15);
    rdu_program_free(p);
    rdu_graph_free(g);

    /* a 2.4 MB tile between stages does not fit 16 PMUs x 256 KiB twice: the loop is tiled */
    g = parse("graph:\n  tensors:\n    t: {shape: [600000], dtype: fp32}\n"
              "  nodes:\n    a: {op: fixed, cycles: 10, out: t}\n    b: {op: fixed, cycles: 10, in: t}\n"
              "  loops:\n    - {name: l, trips: 4, body: [a, b]}\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    p = rdu_map(g, &c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->nk, 1);
    L = loop_named(&p->k[0], "l");
    CU_ASSERT_EQUAL(L->tile, 2);
    CU_ASSERT_EQUAL(L->trips, 8);
    CU_ASSERT(p->k[0].pmus <= 16);
    CU_ASSERT_PTR_NOT_NULL(strstr(p->notes->str, "tiled 2x"));
    rdu_program_free(p);
    rdu_graph_free(g);

    /* 20 stages on 16 PCUs: two kernels, and the message says why */
    GString *y = g_string_new("graph:\n  nodes:\n");
    for (int i = 0; i < 20; i++)
        g_string_append_printf(y, "    s%d: {op: fixed, cycles: %d}\n", i, 10 + i);
    g_string_append(y, "  loops:\n    - {name: big, trips: 3, body: [");
    for (int i = 0; i < 20; i++)
        g_string_append_printf(y, "%ss%d", i ? ", " : "", i);
    g_string_append(y, "]}\n");
    g = parse(y->str, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    p = rdu_map(g, &c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->nk, 2);
    CU_ASSERT_EQUAL(p->k[0].pcus, 16);
    CU_ASSERT_EQUAL(p->k[1].pcus, 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(p->notes->str, "loop 'big' does not fit one kernel (20 PCUs"));
    rdu_program_free(p);
    rdu_graph_free(g);
    g_string_free(y, TRUE);

    /* a 64 KiB tile read out of one PMU of 16 banks (64 bytes a cycle): 1,024 cycles however
     * many PCUs the map has; it gets two (1,030 cycles on one, 518 on two) and no more */
    g = parse("graph:\n  tensors:\n    t: {shape: [16384], dtype: fp32}\n"
              "    o: {shape: [16384], dtype: fp32, tier: hbm}\n"
              "  nodes:\n    a: {op: fixed, cycles: 10, out: t}\n    b: {op: map, in: t, out: o}\n"
              "  loops:\n    - {name: l, trips: 4, body: [a, b]}\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    p = rdu_map(g, &c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    L = loop_named(&p->k[0], "l");
    CU_ASSERT_EQUAL(L->st[1].pmu_cycles, 1024);
    CU_ASSERT_EQUAL(L->st[1].compute_cycles, 1024);
    CU_ASSERT_EQUAL(L->st[1].pcus, 2);
    rdu_program_free(p);
    rdu_graph_free(g);

    /* one stage bigger than the whole chip: an error at the node */
    g = parse("graph:\n  tensors:\n    w: {shape: [16777216], dtype: fp32, tier: sram}\n"
              "    o: {shape: [4], dtype: fp32}\n"
              "  nodes:\n    a: {op: gather, in: [w, o], out: o2}\n", &e);
    CU_ASSERT_PTR_NULL(g);
    g_clear_error(&e);
    g = parse("graph:\n  tensors:\n    w: {shape: [16777216], dtype: fp32, tier: sram}\n"
              "    o: {shape: [16777216], dtype: fp32, tier: hbm}\n"
              "  nodes:\n    a: {op: map, in: w, out: o}\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    p = rdu_map(g, &c, &e);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "g.yaml:6:5: node 'a' does not fit the chip even alone"));
    g_clear_error(&e);
    rdu_graph_free(g);
}

/* ---- the runtime on a bare engine ---- */

typedef struct {
    SimEvent ev;
    MpRun *r;
    MpStage *st;
} Xfer;

typedef struct {
    Engine *eng;
    MpRun *r;
    double bpc;             /* bytes per cycle of the one tier */
    Tick free_at;
    bool done;
} Tier;

static void xfer_done(SimEvent *ev)
{
    Xfer *x = ev->ctx;
    mp_mem_done(x->r, x->st);
    g_free(x);
}

static void tier_mem(void *ctx, MpStage *st, RduTier tier, bool write, uint64_t bytes)
{
    (void)tier;
    (void)write;
    Tier *t = ctx;
    Xfer *x = g_new0(Xfer, 1);
    x->r = t->r;
    x->st = st;
    sim_event_init(&x->ev, xfer_done, x);
    Tick start = MAX(t->eng->now, t->free_at);
    t->free_at = start + (Tick)((double)bytes / t->bpc + 0.999999);
    sim_schedule(t->eng, &x->ev, t->free_at, SIM_PRI_TICK);
}

static void tier_done(void *ctx) { ((Tier *)ctx)->done = true; }

/* Runs every kernel of the graph one after another (1 tick = 1 cycle); returns the cycles and,
 * when asked, the first stage's blocked cycles. */
static uint64_t run_text(const char *yaml, const RduChipSpec *c, uint64_t *blocked0)
{
    GError *e = NULL;
    RduGraph *g = parse(yaml, &e);
    if (!g)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    RduProgram *p = rdu_map(g, c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    Engine eng;
    sim_engine_init(&eng);
    uint64_t total = 0;
    for (uint32_t k = 0; k < p->nk; k++) {
        Tier t = { .eng = &eng, .bpc = c->hbm_bpc };
        MpHooks h = { .mem = tier_mem, .done = tier_done, .ctx = &t };
        MpRun *r = mp_new(&eng, 1, &p->k[k], &h, NULL, "t");
        t.r = r;
        mp_start(r);
        sim_run(&eng, TICK_MAX);
        CU_ASSERT(t.done);
        CU_ASSERT(mp_done(r));
        total += mp_finished(r) - mp_started(r);
        if (blocked0 && k == 0)
            *blocked0 = mp_stage_stats(r, 0)->blocked;
        mp_free(r);
    }
    sim_engine_destroy(&eng);
    rdu_program_free(p);
    rdu_graph_free(g);
    return total;
}

static char *stages_yaml(const uint64_t *t, uint32_t n, uint64_t trips, const char *ctrl)
{
    GString *y = g_string_new("graph:\n  nodes:\n");
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(y, "    s%u: {op: fixed, cycles: %" G_GUINT64_FORMAT "}\n", i, t[i]);
    g_string_append_printf(y, "  loops:\n    - {name: l, trips: %" G_GUINT64_FORMAT ", controller: "
                           "%s, body: [", trips, ctrl);
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(y, "%ss%u", i ? ", " : "", i);
    g_string_append(y, "]}\n");
    return g_string_free(y, FALSE);
}

static void test_controllers(void)
{
    RduChipSpec c = chip(8, 8);
    const uint64_t lec[3] = { 100, 150, 80 };
    char *y = stages_yaml(lec, 3, 16, "pipe");
    CU_ASSERT_EQUAL(run_text(y, &c, NULL), 2580);
    g_free(y);
    y = stages_yaml(lec, 3, 16, "sequential");
    CU_ASSERT_EQUAL(run_text(y, &c, NULL), 5280);
    g_free(y);
    /* any stage times and trip count: sum T + (N - 1) max T pipelined (and streamed through
     * FIFOs), N sum T sequential */
    GRand *rnd = g_rand_new_with_seed(11);
    for (int k = 0; k < 60; k++) {
        uint64_t t[8], sum = 0, mx = 0;
        uint32_t n = (uint32_t)g_rand_int_range(rnd, 1, 9);
        uint64_t trips = (uint64_t)g_rand_int_range(rnd, 1, 41);
        for (uint32_t i = 0; i < n; i++) {
            t[i] = (uint64_t)g_rand_int_range(rnd, 1, 301);
            sum += t[i];
            mx = MAX(mx, t[i]);
        }
        static const char *const ctrl[] = { "pipe", "stream", "sequential" };
        for (int j = 0; j < 3; j++) {
            y = stages_yaml(t, n, trips, ctrl[j]);
            uint64_t want = j < 2 ? sum + (trips - 1) * mx : trips * sum;
            uint64_t got = run_text(y, &c, NULL);
            if (got != want)
                fprintf(stderr, "%s n=%u trips=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT
                        " cycles, want %" G_GUINT64_FORMAT "\n", ctrl[j], n, trips, got, want);
            CU_ASSERT_EQUAL(got, want);
            g_free(y);
        }
    }
    g_rand_free(rnd);
    /* a nested loop is one stage: outer sequential over (inner pipe of 10, 20 x 5; fixed 7):
     * inner 30 + 4 x 20 = 110, outer 3 x (110 + 7) = 351 */
    CU_ASSERT_EQUAL(run_text("graph:\n  nodes:\n    a: {op: fixed, cycles: 10}\n"
                             "    b: {op: fixed, cycles: 20}\n    f: {op: fixed, cycles: 7}\n"
                             "  loops:\n    - {name: in, trips: 5, controller: pipe, body: [a, b]}\n"
                             "    - {name: out, trips: 3, controller: sequential, body: [in, f]}\n",
                             &c, NULL), 351);
    /* pipelined outer loop: stages 110 and 7 over 3 trips: 117 + 2 x 110 = 337 */
    CU_ASSERT_EQUAL(run_text("graph:\n  nodes:\n    a: {op: fixed, cycles: 10}\n"
                             "    b: {op: fixed, cycles: 20}\n    f: {op: fixed, cycles: 7}\n"
                             "  loops:\n    - {name: in, trips: 5, controller: pipe, body: [a, b]}\n"
                             "    - {name: out, trips: 3, controller: pipe, body: [in, f]}\n",
                             &c, NULL), 337);
    /* a carried edge (c feeds a's next iteration) serializes the body: each trip 10 + 20 + 30,
     * and the 64-byte hand-off c -> a between trips: a cycle into the router, 2 hops (PCU 2 to
     * PCU 0) of 2 cycles and one cycle on a 64-byte link */
    uint64_t got = run_text("graph:\n  tensors:\n    x: {shape: [16], dtype: fp32}\n"
                            "  nodes:\n    a: {op: fixed, cycles: 10, in: x}\n"
                            "    b: {op: fixed, cycles: 20}\n    c: {op: fixed, cycles: 30, out: x}\n"
                            "  loops:\n    - {name: l, trips: 4, body: [a, b, c]}\n", &c, NULL);
    if (got != 4 * 60 + 3 * 6)
        fprintf(stderr, "carried: %" G_GUINT64_FORMAT " cycles\n", got);
    CU_ASSERT_EQUAL(got, 4 * 60 + 3 * 6);
    /* the mapper sees the recurrence: an iteration every 60 + 6 cycles, not every 30 */
    GError *e = NULL;
    RduGraph *g = parse("graph:\n  tensors:\n    x: {shape: [16], dtype: fp32}\n"
                        "  nodes:\n    a: {op: fixed, cycles: 10, in: x}\n"
                        "    b: {op: fixed, cycles: 20}\n    c: {op: fixed, cycles: 30, out: x}\n"
                        "  loops:\n    - {name: l, trips: 4, body: [a, b, c]}\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    RduProgram *p = rdu_map(g, &c, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->k[0].predicted_cycles, 4 * 60 + 3 * 6);
    rdu_program_free(p);
    rdu_graph_free(g);
}

static void test_backpressure(void)
{
    RduChipSpec c = chip(4, 4);
    /* one buffer version: load waits for compute to finish each tile: 16 x 250 + 80 */
    uint64_t blocked = 0;
    uint64_t cyc = run_text("graph:\n  nodes:\n    load: {op: fixed, cycles: 100}\n"
                            "    compute: {op: fixed, cycles: 150}\n    store: {op: fixed, cycles: 80}\n"
                            "  loops:\n    - {name: l, trips: 16, depth: 1, body: [load, compute, store]}\n",
                            &c, &blocked);
    CU_ASSERT_EQUAL(cyc, 4080);
    CU_ASSERT_EQUAL(blocked, 15 * 150);
    /* two versions (the mapper's b - a + 1): load runs ahead, blocked only by compute's pace */
    cyc = run_text("graph:\n  nodes:\n    load: {op: fixed, cycles: 100}\n"
                   "    compute: {op: fixed, cycles: 150}\n    store: {op: fixed, cycles: 80}\n"
                   "  loops:\n    - {name: l, trips: 16, body: [load, compute, store]}\n", &c, &blocked);
    CU_ASSERT_EQUAL(cyc, 2580);
    CU_ASSERT(blocked > 0 && blocked < 15 * 150);
}

static void test_memory_bound(void)
{
    /* two stages each moving 10,000 bytes a trip over one tier of 100 B/cycle: the tier, not
     * their 20 cycles of compute, sets the pace (200 cycles a trip) */
    RduChipSpec c = chip(4, 4);
    uint64_t cyc = run_text("graph:\n  tensors:\n    a: {shape: [2500], dtype: fp32, tier: hbm}\n"
                            "    b: {shape: [2500], dtype: fp32, tier: hbm}\n"
                            "    x: {shape: [2500], dtype: fp32}\n    y: {shape: [2500], dtype: fp32}\n"
                            "  nodes:\n    ra: {op: map, in: a, out: x}\n"
                            "    rb: {op: map, in: b, out: y}\n"
                            "  loops:\n    - {name: l, trips: 10, body: [ra, rb]}\n", &c, NULL);
    CU_ASSERT(cyc >= 10 * 200 && cyc <= 10 * 200 + 200);
}

/* ---- whole runs ---- */

static SystemRun *build(const char *graph_text, const char *name)
{
    char *gp = g_build_filename(tdir, name, NULL);
    CU_ASSERT_FATAL(g_file_set_contents(gp, graph_text, -1, NULL));
    GError *e = NULL;
    CfgNode *root = cfg_load_file("configs/rdu/teach-4x4.yaml", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    char *set = g_strconcat("workload.graph=", gp, NULL);
    CU_ASSERT(cfg_apply_set(root, set, &e));
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    if (!r)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    g_free(set);
    g_free(gp);
    return r;
}

static void test_system_runs(void)
{
    const char *g = "graph:\n  tensors:\n    x: {shape: [64, 128], dtype: bf16, tier: hbm}\n"
                    "    w: {shape: [128, 128], dtype: bf16, tier: hbm}\n"
                    "    h: {shape: [64, 128], dtype: bf16}\n    o: {shape: [64, 128], dtype: bf16, tier: ddr}\n"
                    "  nodes:\n    mm: {op: gemm, in: [x, w], out: h}\n"
                    "    sm: {op: softmax, in: h, out: o}\n"
                    "  loops:\n    - {name: l, trips: 12, body: [mm, sm]}\n";
    uint64_t v[2][6];
    for (int i = 0; i < 2; i++) {
        SystemRun *r = build(g, "g.yaml");
        GError *e = NULL;
        CU_ASSERT_FATAL(system_run(r, &e));
        v[i][0] = stat_u(r, "rdu.cycles");
        v[i][1] = stat_u(r, "rdu.kernel_calls");
        v[i][2] = stat_u(r, "rdu.hbm_bytes");
        v[i][3] = stat_u(r, "rdu.ddr_bytes");
        v[i][4] = stat_u(r, "rdu.stage.l.mm.busy");
        v[i][5] = stat_u(r, "sim.events");
        system_free(r);
    }
    CU_ASSERT_EQUAL(memcmp(v[0], v[1], sizeof v[0]), 0);
    CU_ASSERT_EQUAL(v[0][1], 1);
    CU_ASSERT_EQUAL(v[0][2], 12ull * (64 * 128 * 2 + 128 * 128 * 2));
    CU_ASSERT_EQUAL(v[0][3], 12ull * 64 * 128 * 2);
    CU_ASSERT(v[0][0] > 0 && v[0][4] > 0);
}

/* One 64 KiB tile a trip between two 10-cycle stages: a link (64 B a cycle) moves one tile in
 * 1,024 cycles and carries one at a time, so the network sets the pace; the mapper predicts it
 * exactly: 10 + (1 into the router + 1 hop of 2 cycles + 1,024) + 10 + 15 x 1,024. */
static void test_network_bound(void)
{
    SystemRun *r = build("graph:\n  tensors:\n    t: {shape: [16384], dtype: fp32}\n"
                         "  nodes:\n    a: {op: fixed, cycles: 10, out: t}\n"
                         "    b: {op: fixed, cycles: 10, in: t}\n"
                         "  loops:\n    - {name: l, trips: 16, body: [a, b]}\n", "net.yaml");
    GError *e = NULL;
    CU_ASSERT_FATAL(system_run(r, &e));
    uint64_t want = 10 + 1 + 2 + 1024 + 10 + 15 * 1024;
    if (stat_u(r, "rdu.cycles") != want)
        fprintf(stderr, "network: %" G_GUINT64_FORMAT " cycles, predicted %" G_GUINT64_FORMAT "\n",
                stat_u(r, "rdu.cycles"), stat_u(r, "rdu.predicted_cycles"));
    CU_ASSERT_EQUAL(stat_u(r, "rdu.cycles"), want);
    CU_ASSERT_EQUAL(stat_u(r, "rdu.predicted_cycles"), want);
    CU_ASSERT_EQUAL(stat_u(r, "rdu.net_bytes"), 16 * 65536);
    CU_ASSERT_EQUAL(stat_u(r, "net.messages"), 16);
    /* a: blocked by its two buffer versions while the link drains */
    CU_ASSERT(stat_u(r, "rdu.stage.l.a.blocked") > 10 * 1024);
    system_free(r);
}

int main(void)
{
    tdir = tmpdir_new("test_rdu.XXXXXX");
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("rdu", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "parser: errors at their line and column", test_parse_errors) ||
        !CU_add_test(s, "parser: a good graph, its top level in data order", test_parse_ok) ||
        !CU_add_test(s, "mapper: N-buffer depths per controller", test_mapper_buffers) ||
        !CU_add_test(s, "mapper: fusion, tiling, kernel splits", test_mapper_fuse_tile_split) ||
        !CU_add_test(s, "controllers: pipe, stream, sequential, nested, carried", test_controllers) ||
        !CU_add_test(s, "back-pressure: a full buffer stops its producer", test_backpressure) ||
        !CU_add_test(s, "memory: a shared tier sets the pace", test_memory_bound) ||
        !CU_add_test(s, "system: whole runs, the same stats twice", test_system_runs) ||
        !CU_add_test(s, "network: one link's tiles set the pace", test_network_bound)) {
        CU_cleanup_registry();
        return CU_get_error();
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    tmpdir_remove(&tdir);
    return failed ? 1 : 0;
}
