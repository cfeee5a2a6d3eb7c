/* fuzz_rdu.c: fuzz harness for the dataflow RDU's graph reader (models/rdu/graph.c) driven
 * through the mapper (mapper.c) and the metapipeline runtime (metapipe.c).
 *
 * Input: a graph YAML (tests/fuzz/rdu/README.md). Each file named in argv[1..] is read, mapped
 * onto a 4 x 4 teaching chip and a 26 x 40 one, and, when its work is small, run on a bare
 * engine; abort() when an oracle fails (AFL++ records a crash). Oracles: a refused graph has
 * ARCHSIM_CONFIG_ERROR, code 78 (66 only for an unreadable file) and a message starting
 * "FILE:LINE:COL: "; a mapped program fits its chip (PCUs, PMUs), every buffer of a pipelined
 * loop holds b - a + 1 versions unless the loop sets its depth (carried edges 1), and a run
 * ends with every stage's trips done, its cycles at least the slowest stage's work.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/rdu/graph.h"
#include "../../models/rdu/mapper.h"
#include "../../models/rdu/metapipe.h"
#include "../../sim/error.h"

#define FUZZ_NAME "fuzz_rdu"
#include "fuzz.h"

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

/* events a run may take before it is skipped (a fraction of a second) */
#define FUZZ_MAX_EVENTS 200000ull

static void fuzz_error(const char *input, GError *e, const char *path)
{
    fuzz_check(e != NULL, input, "refused without an error");
    fuzz_check(e->domain == ARCHSIM_CONFIG_ERROR && e->code == ARCHSIM_EXIT_CONFIG, input,
               "error of the wrong domain or code (78)");
    fuzz_check(fuzz_has_position(e->message, path, 0), input,
               "error does not start with FILE:LINE:COL: ");
    g_error_free(e);
}

static void fuzz_done(void *ctx) { *(bool *)ctx = true; }

static void fuzz_mem(void *ctx, MpStage *st, RduTier tier, bool write, uint64_t bytes)
{
    (void)ctx; (void)st; (void)tier; (void)write; (void)bytes;
}

/* Events a kernel's run would take, roughly: every leaf stage's iterations over its loops. */
static uint64_t fuzz_events(const RduKernel *k)
{
    uint64_t total = 0;
    for (uint32_t li = 0; li < k->nloops; li++) {
        uint64_t reps = 1;
        for (int x = (int)li; x >= 0; x = k->loops[x].parent)
            reps = reps > FUZZ_MAX_EVENTS ? reps : reps * k->loops[x].trips;
        total += reps * k->loops[li].nst;
        if (total > FUZZ_MAX_EVENTS)
            return total;
    }
    return total;
}

static void fuzz_program(const char *input, const RduGraph *g, const RduProgram *p,
                         const RduChipSpec *c)
{
    uint32_t units = rdu_chip_units(c);
    fuzz_check(p->nk >= 1, input, "no kernel");
    for (uint32_t i = 0; i < p->nk; i++) {
        const RduKernel *k = &p->k[i];
        fuzz_check(k->pcus <= units && k->pmus <= units, input, "a kernel exceeds the chip");
        for (uint32_t li = 0; li < k->nloops; li++) {
            const RduMLoop *L = &k->loops[li];
            const RduLoop *gl = NULL;
            for (uint32_t j = 0; j < g->nloops && li > 0; j++)
                if (!strcmp(g->loops[j].name, L->name))
                    gl = &g->loops[j];
            for (uint32_t d = 0; d < L->ndep; d++) {
                const RduDep *x = &L->dep[d];
                fuzz_check(x->from < L->nst && x->to < L->nst && x->from != x->to, input,
                           "an edge outside its loop's stages");
                if (x->carried)
                    fuzz_check(x->depth == 1 && x->to < x->from, input, "a carried edge's depth");
                else if (gl && gl->depth)
                    fuzz_check(x->depth == gl->depth, input, "the loop's depth not kept");
                else if (L->ctrl == RDU_CTRL_PIPE)
                    fuzz_check(x->depth == x->to - x->from + 1, input, "N-buffer is not b - a + 1");
            }
        }
        if (fuzz_events(k) > FUZZ_MAX_EVENTS)
            continue;
        Engine eng;
        sim_engine_init(&eng);
        bool done = false;
        MpHooks h = { .mem = fuzz_mem, .done = fuzz_done, .ctx = &done };
        MpRun *r = mp_new(&eng, 1, k, &h, NULL, "f");
        /* transfers are answered at once by no one here: only graphs without tier traffic run */
        bool traffic = false;
        for (uint32_t li = 0; li < k->nloops; li++)
            for (uint32_t s = 0; s < k->loops[li].nst; s++)
                for (int t = 0; t < 4; t++)
                    traffic |= k->loops[li].st[s].rd[t] || k->loops[li].st[s].wr[t];
        if (!traffic) {
            mp_start(r);
            sim_run(&eng, TICK_MAX);
            fuzz_check(done && mp_done(r), input, "a run did not finish");
            uint64_t slow = 0;
            for (uint32_t s = 0; s < mp_stage_count(r); s++)
                slow = MAX(slow, mp_stage_stats(r, s)->busy);
            fuzz_check(mp_finished(r) - mp_started(r) >= slow, input,
                       "a run shorter than its busiest stage");
        }
        mp_free(r);
        sim_engine_destroy(&eng);
    }
}

static void fuzz_one(const char *input)
{
    GError *e = NULL;
    RduGraph *g = rdu_graph_load(input, &e);
    if (!g) {
        if (e && e->code == ARCHSIM_EXIT_NOINPUT) {
            /* the input itself unreadable; or an include: it names missing, at its position */
            if (!g_str_has_prefix(e->message, input)) {
                fprintf(stderr, "fuzz_rdu: cannot read %s\n", input);
                exit(2);
            }
            fuzz_check(fuzz_has_position(e->message, input, 0), input,
                       "a missing include without its position");
            g_error_free(e);
            return;
        }
        fuzz_error(input, e, input);
        return;
    }
    fuzz_check(g->ntop >= 1, input, "an accepted graph with nothing at the top level");
    RduChipSpec chips[2] = {
        { .rows = 4, .cols = 4, .lanes = 16, .stages = 6, .macs = { 96, 48, 192 },
          .pmu_bytes = 256 * 1024, .pmu_banks = 16, .hop_cycles = 2, .turn_cycles = 1, .link_bytes = 64, .hbm_bpc = 100,
          .ddr_bpc = 25, .hbm_bytes = 1ull << 34, .ddr_bytes = 1ull << 36 },
        { .rows = 26, .cols = 40, .lanes = 32, .stages = 6, .macs = { 192, 96, 384 },
          .pmu_bytes = 500000, .pmu_banks = 32, .hop_cycles = 2, .turn_cycles = 1, .link_bytes = 64, .hbm_bpc = 1000,
          .ddr_bpc = 62.5, .hbm_bytes = 64ull << 30, .ddr_bytes = 1536ull << 30 },
    };
    for (int i = 0; i < 2; i++) {
        RduProgram *p = rdu_map(g, &chips[i], &e);
        if (!p) {
            fuzz_error(input, e, input);
            e = NULL;
            continue;
        }
        fuzz_program(input, g, p, &chips[i]);
        rdu_program_free(p);
    }
    rdu_graph_free(g);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
