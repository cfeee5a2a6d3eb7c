/* test_mmcore.c: mm-core (models/cpu/mmcore.c) and litmus random mode (models/litmus/simrun.c):
 * exact small cases built by hand (SB under SC and TSO, forwarding, fences, RMW atomicity on
 * every protocol, CMPXCHG, determinism), and herd7's 15 classic tests (tests/litmus/herd or
 * tests/litmus) under all four models: no forbidden outcome ever, every allowed one seen. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <string.h>

#include "../../models/cpu/memmodel.h"
#include "../../models/mem/memmsg.h"
#include "../../models/cpu/mmcore.h"
#include "../../models/litmus/litmus.h"
#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/system.h"

/* ---- hand-built tests: one line per thread, ops separated by ';' ----------------------------
 *   st LOC V | st LOC REG | ld REG LOC | mf | lf | sf | xchg REG LOC V | add LOC V (LOCK ADD) |
 *   xadd REG LOC V | cas LOC V (LOCK CMPXCHG [LOC],V comparing EAX) | mov REG V | inc REG
 * Observed: "0:EAX 1:EAX x" (registers as T:REG, locations by name). */
typedef struct {
    const char *name;
    const char *init;                      /* "x=1 y=2" or NULL */
    const char *threads[LIT_MAX_THREADS];  /* NULL-terminated */
    const char *obs;
} Spec;

static int find_or_add(char **names, int *n, int max, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    g_assert(*n < max);
    names[*n] = g_strdup(name);
    return (*n)++;
}

static LitTest *build(const Spec *s)
{
    LitTest *t = g_new0(LitTest, 1);
    t->name = g_strdup(s->name);
    for (int th = 0; s->threads[th]; th++) {
        LitThread *T = &t->t[th];
        t->nthreads++;
        char **ops = g_strsplit(s->threads[th], ";", -1);
        for (char **o = ops; *o; o++) {
            char **w = g_strsplit(g_strstrip(*o), " ", -1);
            if (!w[0] || !*w[0]) {
                g_strfreev(w);
                continue;
            }
            LitOp *op = &T->ops[T->nops++];
            op->loc = op->reg = op->cmp = -1;
            op->text = g_strdup(*o);
#define LOC(x) find_or_add(t->locs, &t->nlocs, LIT_MAX_LOCS, (x))
#define REG(x) find_or_add(T->regs, &T->nregs, LIT_MAX_REGS, (x))
#define SRC(x)                                                                   \
    (g_ascii_isdigit((x)[0]) || (x)[0] == '-'                                    \
         ? (LitSrc){ .is_reg = false, .imm = g_ascii_strtoll((x), NULL, 10) }    \
         : (LitSrc){ .is_reg = true, .reg = REG(x) })
            if (strcmp(w[0], "st") == 0) {
                op->kind = LOP_STORE;
                op->loc = LOC(w[1]);
                op->src = SRC(w[2]);
            } else if (strcmp(w[0], "ld") == 0) {
                op->kind = LOP_LOAD;
                op->reg = REG(w[1]);
                op->loc = LOC(w[2]);
            } else if (strcmp(w[0], "mf") == 0 || strcmp(w[0], "lf") == 0 ||
                       strcmp(w[0], "sf") == 0) {
                op->kind = LOP_MFENCE;
                op->fence = w[0][0] == 'm' ? LFEN_FULL : w[0][0] == 'l' ? LFEN_LOAD : LFEN_STORE;
            } else if (strcmp(w[0], "xchg") == 0 || strcmp(w[0], "xadd") == 0) {
                op->kind = LOP_RMW;
                op->rmw = w[0][1] == 'c' ? LRMW_XCHG : LRMW_ADD;
                op->reg = REG(w[1]);
                op->loc = LOC(w[2]);
                op->src = SRC(w[3]);
            } else if (strcmp(w[0], "add") == 0) {
                op->kind = LOP_RMW;
                op->rmw = LRMW_ADD;
                op->loc = LOC(w[1]);
                op->src = SRC(w[2]);
            } else if (strcmp(w[0], "cas") == 0) {
                op->kind = LOP_RMW;
                op->rmw = LRMW_CMPXCHG;
                op->reg = op->cmp = REG("EAX");     /* as the parser: EAX gets the old value */
                op->loc = LOC(w[1]);
                op->src = SRC(w[2]);
            } else if (strcmp(w[0], "mov") == 0 || strcmp(w[0], "inc") == 0) {
                op->kind = LOP_ALU;
                op->alu = w[0][0] == 'm' ? LALU_MOV : LALU_ADD;
                op->reg = REG(w[1]);
                op->src = w[0][0] == 'm' ? SRC(w[2]) : (LitSrc){ .imm = 1 };
            } else {
                g_error("bad op '%s'", *o);
            }
            g_strfreev(w);
        }
        g_strfreev(ops);
    }
    if (s->init) {
        char **kv = g_strsplit(s->init, " ", -1);
        for (char **p = kv; *p; p++) {
            char **a = g_strsplit(*p, "=", 2);
            t->loc_init[LOC(a[0])] = g_ascii_strtoll(a[1], NULL, 10);
            g_strfreev(a);
        }
        g_strfreev(kv);
    }
    char **ob = g_strsplit(s->obs, " ", -1);
    for (char **p = ob; *p; p++) {
        if (!**p)
            continue;
        const char *colon = strchr(*p, ':');
        if (colon) {
            int th = atoi(*p);
            LitThread *T = &t->t[th];
            t->obs[t->nobs].thread = th;
            t->obs[t->nobs++].idx = REG(colon + 1);
        } else {
            t->obs[t->nobs].is_loc = true;
            t->obs[t->nobs++].idx = LOC(*p);
        }
    }
    g_strfreev(ob);
    return t;
#undef LOC
#undef REG
#undef SRC
}

static LitTest *build_one(const char *prog)
{
    Spec s = { "one", NULL, { prog, NULL }, "" };
    return build(&s);
}

static void free_built(LitTest *t)
{
    for (int th = 0; th < t->nthreads; th++) {
        for (int i = 0; i < t->t[th].nops; i++)
            g_free(t->t[th].ops[i].text);
        for (int r = 0; r < t->t[th].nregs; r++)
            g_free(t->t[th].regs[r]);
    }
    for (int l = 0; l < t->nlocs; l++)
        g_free(t->locs[l]);
    g_free(t->name);
    g_free(t);
}

static bool verbose;

/* ---- mm-core alone against a mock L1 (exact cycles) -------------------------------------------
 * The mock answers every access `latency` cycles after it arrives and logs it; the links take
 * one tick (1 ps), so an access sent at cycle t arrives in cycle t and is answered in t + latency,
 * when the core sends what was waiting for it. */
typedef struct {
    Component base;
    int dummy;
    uint64_t latency;
    GHashTable *mem;            /* addr -> value (absent: 0) */
    GString *log;               /* "CYCLE:W ADDR=V" / "CYCLE:R ADDR" / "CYCLE:RMWn ADDR=V,C" */
} MockL1;

static const PortSpec mock_ports[] = { { .name = "cpu_side", .role = PORT_RESPONDER, .doc = "" },
                                       PORT_END };

static uint64_t mock_get(MockL1 *k, uint64_t a)
{
    return GPOINTER_TO_SIZE(g_hash_table_lookup(k->mem, GSIZE_TO_POINTER(a)));
}

static void mock_recv(Component *c, Port *p, Msg *m)
{
    MockL1 *k = (MockL1 *)c;
    uint64_t now = sim_component_cycle(c), old = mock_get(k, mem_msg(m)->addr);
    if (k->log->len)
        g_string_append_c(k->log, ' ');
    if (m->cmd == MSG_READ_REQ) {
        g_string_append_printf(k->log, "%" G_GUINT64_FORMAT ":R %" G_GINT64_MODIFIER "x", now,
                               mem_msg(m)->addr);
        mem_msg(m)->value = old;
        m->cmd = MSG_READ_RESP;
    } else if (m->flags & MSG_F_RMW) {
        g_string_append_printf(k->log, "%" G_GUINT64_FORMAT ":RMW%u %" G_GINT64_MODIFIER "x=%"
                               G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, now, MSG_RMW_OP(m->flags),
                               mem_msg(m)->addr, mem_msg(m)->value, mem_msg(m)->arg);
        uint64_t nv = MSG_RMW_OP(m->flags) == MSG_RMW_ADD ? old + mem_msg(m)->value
                      : MSG_RMW_OP(m->flags) == MSG_RMW_XCHG || old == mem_msg(m)->arg
                          ? mem_msg(m)->value
                          : old;
        g_hash_table_insert(k->mem, GSIZE_TO_POINTER(mem_msg(m)->addr), GSIZE_TO_POINTER(nv));
        mem_msg(m)->value = old;
        m->cmd = MSG_WRITE_RESP;
    } else {
        g_string_append_printf(k->log, "%" G_GUINT64_FORMAT ":W %" G_GINT64_MODIFIER "x=%"
                               G_GUINT64_FORMAT, now, mem_msg(m)->addr, mem_msg(m)->value);
        g_hash_table_insert(k->mem, GSIZE_TO_POINTER(mem_msg(m)->addr),
                            GSIZE_TO_POINTER(mem_msg(m)->value));
        m->cmd = MSG_WRITE_RESP;
    }
    sim_port_send(c, p, m, k->latency);
}

static const ComponentClass mock_l1_class = { .name = "mock-l1", .doc = "", .size = sizeof(MockL1),
                                              .params_offset = offsetof(MockL1, dummy),
                                              .ports = mock_ports, .recv = mock_recv };

/* locations a, b, c, ... of the mock tests live at 0xa0, 0xb0, 0xc0 ... (named in the log) */
static const uint64_t mock_addr[LIT_MAX_LOCS] = { 0xa0, 0xb0, 0xc0, 0xd0 };

typedef struct {
    const char *model, *prog;    /* one thread, the hand-built syntax below */
    const char *log;             /* what the L1 sees, in order */
    uint64_t done;               /* cycle the last op performs */
    const char *regs;            /* final registers "EAX=1 EBX=0" */
    uint64_t forwarded, fences;
} MockCase;


/* Runs and returns the histogram (caller clears it). */
static uint64_t mm_stat(Sim *sim, const char *name)
{
    StatSet st;
    stats_init(&st);
    sim_collect_stats(sim, &st);
    const StatEntry *e = stats_find(&st, name);
    uint64_t v = e ? e->u : UINT64_MAX;
    stats_clear(&st);
    return v;
}

/* Every row: one core, no random timing, mock latency 10. Locations are named a, b, c so the
 * first one used is at 0xa0 and so on. */
static const MockCase mock_cases[] = {
    /* TSO: a load passes an earlier store to another location; SC waits for it */
    { "tso", "st a 1; ld EAX b", "0:W a0=1 0:R b0", 10, "EAX=0", 0, 0 },
    { "sc", "st a 1; ld EAX b", "0:W a0=1 10:R b0", 20, "EAX=0", 0, 0 },
    /* forwarding: the load of a takes 1 from the buffer at once; SC reads it from the L1 */
    { "tso", "st a 1; ld EAX a; ld EBX b", "0:W a0=1 0:R b0", 10, "EAX=1 EBX=0", 1, 0 },
    { "sc", "st a 1; ld EAX a; ld EBX b", "0:W a0=1 10:R a0 20:R b0", 30, "EAX=1 EBX=0", 0, 0 },
    /* store -> store: kept by TSO (FIFO buffer), relaxed by PSO */
    { "tso", "st a 1; st b 2", "0:W a0=1 10:W b0=2", 20, "", 0, 0 },
    { "pso", "st a 1; st b 2", "0:W a0=1 0:W b0=2", 10, "", 0, 0 },
    /* same location: never reordered, not even by WEAK */
    { "weak", "st a 1; st a 2", "0:W a0=1 10:W a0=2", 20, "", 0, 0 },
    { "weak", "ld EAX a; st a 2", "0:R a0 10:W a0=2", 20, "EAX=0", 0, 0 },
    /* load -> load and load -> store: kept by PSO, relaxed by WEAK */
    { "pso", "ld EAX a; ld EBX b", "0:R a0 10:R b0", 20, "EAX=0 EBX=0", 0, 0 },
    { "weak", "ld EAX a; ld EBX b", "0:R a0 0:R b0", 10, "EAX=0 EBX=0", 0, 0 },
    { "pso", "ld EAX a; st b 1", "0:R a0 10:W b0=1", 20, "EAX=0", 0, 0 },
    { "weak", "ld EAX a; st b 1", "0:R a0 0:W b0=1", 10, "EAX=0", 0, 0 },
    /* a data dependency orders even under WEAK: the stored value comes from the load */
    { "weak", "st a 7; mf; ld EAX a; st b EAX", "0:W a0=7 10:R a0 20:W b0=7", 30, "EAX=7", 0, 1 },
    { "weak", "mov ECX 3; inc ECX; st a ECX", "0:W a0=4", 10, "ECX=4", 0, 0 },
    /* MFENCE: everything before it performs before anything after it starts */
    { "weak", "st a 1; mf; ld EAX b", "0:W a0=1 10:R b0", 20, "EAX=0", 0, 1 },
    /* SFENCE orders stores only, LFENCE holds back everything after it until earlier loads
       have performed (nothing else) */
    { "weak", "st a 1; sf; st b 2", "0:W a0=1 10:W b0=2", 20, "", 0, 1 },
    { "weak", "st a 1; sf; ld EAX b", "0:W a0=1 0:R b0", 10, "EAX=0", 0, 1 },
    { "weak", "ld EAX a; lf; st b 1", "0:R a0 10:W b0=1", 20, "EAX=0", 0, 1 },
    { "tso", "st a 1; lf; ld EAX b", "0:W a0=1 0:R b0", 10, "EAX=0", 0, 1 },
    /* locked RMW orders like MFENCE; XCHG is op 0, ADD op 1, CMPXCHG op 2 with EAX compared */
    { "weak", "st a 1; xchg EAX b 5; ld EBX c", "0:W a0=1 10:RMW0 b0=5,0 20:R c0", 30,
      "EAX=0 EBX=0", 0, 0 },
    { "tso", "add a 2; xadd EBX a 3", "0:RMW1 a0=2,0 10:RMW1 a0=3,0", 20, "EBX=2", 0, 0 },
    { "tso", "st a 4; mov EAX 4; cas a 9; ld EBX a", "0:W a0=4 10:RMW2 a0=9,4 20:R a0", 30,
      "EAX=4 EBX=9", 0, 0 },
};

static void test_mock_exact(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(mock_cases); i++) {
        const MockCase *mc = &mock_cases[i];
        Sim sim;
        sim_init(&sim, 1, 1000000000ull);
        GError *e = NULL;
        Component *core = sim_component_new(&sim, &mm_core_class, "core", &sim.sys_clk, NULL, &e);
        MockL1 *l1 = (MockL1 *)sim_component_new(&sim, &mock_l1_class, "l1", &sim.sys_clk,
                                                 NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(core);
        l1->latency = 10;
        l1->mem = g_hash_table_new(NULL, NULL);
        l1->log = g_string_new(NULL);
        CU_ASSERT_TRUE_FATAL(sim_connect(core, "dcache", &l1->base, "cpu_side", 1, &e));
        CU_ASSERT_TRUE_FATAL(sim_realize_all(&sim, &e));
        LitTest *t = build_one(mc->prog);
        uint64_t addr[LIT_MAX_LOCS];
        for (int l = 0; l < t->nlocs; l++)
            addr[l] = mock_addr[t->locs[l][0] - 'a'];
        mmcore_set_program(core, &t->t[0], (const char *const *)t->locs, addr,
                           mem_model_find(mc->model), false);
        mmcore_start(core);
        sim_run(&sim.eng, TICK_MAX);
        CU_ASSERT_TRUE(mmcore_done(core));
        GString *regs = g_string_new(NULL);
        for (int r = 0; r < t->t[0].nregs; r++)
            g_string_append_printf(regs, "%s%s=%" G_GINT64_FORMAT, r ? " " : "",
                                   t->t[0].regs[r], mmcore_reg(core, r));
        uint64_t done = clock_cycle(&sim.sys_clk, sim.eng.now);
        bool ok = strcmp(l1->log->str, mc->log) == 0 && done == mc->done &&
                  strcmp(regs->str, mc->regs) == 0 &&
                  mm_stat(&sim, "core.forwarded") == mc->forwarded &&
                  mm_stat(&sim, "core.fences") == mc->fences;
        if (!ok)
            fprintf(stderr, "\n%s '%s': L1 saw '%s' (want '%s'), done at %" G_GUINT64_FORMAT
                    " (want %" G_GUINT64_FORMAT "), %s (want %s), forwarded %" G_GUINT64_FORMAT
                    ", fences %" G_GUINT64_FORMAT "\n", mc->model, mc->prog, l1->log->str,
                    mc->log, done, mc->done, regs->str, mc->regs,
                    mm_stat(&sim, "core.forwarded"), mm_stat(&sim, "core.fences"));
        CU_ASSERT(ok);
        g_string_free(regs, TRUE);
        free_built(t);
        g_hash_table_destroy(l1->mem);
        g_string_free(l1->log, TRUE);
        sim_destroy(&sim);
    }
}

static LitHist sim_runs(const LitTest *t, const char *model, uint64_t runs, uint64_t seed,
                        const char *config)
{
    LitHist h;
    litmus_hist_init(&h);
    LitSimOptions o = { .model = mem_model_find(model), .runs = runs, .seed = seed,
                        .config_yaml = config };
    GError *e = NULL;
    bool ok = litmus_simulate(t, &o, &h, &e);
    if (!ok)
        fprintf(stderr, "litmus_simulate: %s\n", e->message);
    CU_ASSERT_FATAL(ok);
    if (verbose) {
        GHashTableIter it;
        gpointer k, v;
        fprintf(stderr, "%s under %s, %" G_GUINT64_FORMAT " runs:\n", t->name, model, runs);
        g_hash_table_iter_init(&it, h.counts);
        while (g_hash_table_iter_next(&it, &k, &v))
            fprintf(stderr, "  %8" G_GUINT64_FORMAT " %s\n", *(uint64_t *)v, (char *)k);
    }
    return h;
}

static uint64_t count_of(const LitHist *h, const LitTest *t, const int64_t *vals)
{
    LitOutcome o = { .n = t->nobs };
    memcpy(o.v, vals, (size_t)t->nobs * sizeof vals[0]);
    char *k = litmus_outcome_text(t, &o);
    uint64_t *c = g_hash_table_lookup(h->counts, k);
    g_free(k);
    return c ? *c : 0;
}

static const Spec SB = { "SB", NULL, { "st x 1; ld EAX y", "st y 1; ld EAX x", NULL },
                         "0:EAX 1:EAX" };

static void test_sb_sc_tso(void)
{
    LitTest *t = build(&SB);
    static const int64_t o00[] = { 0, 0 }, o01[] = { 0, 1 }, o10[] = { 1, 0 }, o11[] = { 1, 1 };
    LitHist h = sim_runs(t, "sc", 2000, 1, NULL);
    CU_ASSERT_EQUAL(h.runs, 2000);
    CU_ASSERT_EQUAL(count_of(&h, t, o00), 0);       /* SC: never both 0 */
    CU_ASSERT(count_of(&h, t, o01) > 0 && count_of(&h, t, o10) > 0 && count_of(&h, t, o11) > 0);
    litmus_hist_clear(&h);
    h = sim_runs(t, "tso", 2000, 1, NULL);
    CU_ASSERT(count_of(&h, t, o00) > 0);            /* TSO: the store buffer shows it */
    CU_ASSERT(count_of(&h, t, o01) > 0 && count_of(&h, t, o10) > 0 && count_of(&h, t, o11) > 0);
    litmus_hist_clear(&h);
    free_built(t);
}

/* herd7's 15 tests (tests/litmus/herd) written by hand, with the condition's values (in obs
 * order) and MANIFEST.csv's verdicts for SC, TSO, PSO, WEAK (A allowed, F forbidden). */
typedef struct {
    Spec s;
    int64_t cond[8];
    const char *verdict;
} Classic;

static const Classic classics[] = {
    { { "2+2W", NULL, { "st x 2; st y 1", "st y 2; st x 1", NULL }, "x y" }, { 2, 2 }, "FFAA" },
    { { "2+2W+mfences", NULL, { "st x 2; mf; st y 1", "st y 2; mf; st x 1", NULL }, "x y" },
      { 2, 2 }, "FFFF" },
    { { "CoRR", NULL, { "st x 1", "ld EAX x; ld EBX x", NULL }, "1:EAX 1:EBX" }, { 1, 0 },
      "FFFF" },
    { { "iriw", NULL, { "ld EAX y; ld EBX x", "st x 1", "ld EAX x; ld EBX y", "st y 1", NULL },
        "0:EAX 0:EBX 2:EAX 2:EBX" }, { 1, 0, 1, 0 }, "FFFA" },
    { { "LB", NULL, { "ld EAX x; st y 1", "ld EAX y; st x 1", NULL }, "0:EAX 1:EAX" }, { 1, 1 },
      "FFFA" },
    { { "MP", NULL, { "st x 1; st y 1", "ld EAX y; ld EBX x", NULL }, "1:EAX 1:EBX" }, { 1, 0 },
      "FFAA" },
    { { "MP+mfence+po", NULL, { "st x 1; mf; st y 1", "ld EAX y; ld EBX x", NULL },
        "1:EAX 1:EBX" }, { 1, 0 }, "FFFA" },
    { { "MP+mfences", NULL, { "st x 1; mf; st y 1", "ld EAX y; mf; ld EBX x", NULL },
        "1:EAX 1:EBX" }, { 1, 0 }, "FFFF" },
    { { "R", NULL, { "st x 1; st y 1", "st y 2; ld EAX x", NULL }, "y 1:EAX" }, { 2, 0 },
      "FAAA" },
    { { "R+mfences", NULL, { "st x 1; mf; st y 1", "st y 2; mf; ld EAX x", NULL }, "y 1:EAX" },
      { 2, 0 }, "FFFF" },
    { { "S", NULL, { "st x 2; st y 1", "ld EAX y; st x 1", NULL }, "x 1:EAX" }, { 2, 1 },
      "FFAA" },
    { { "SB", NULL, { "st x 1; ld EAX y", "st y 1; ld EAX x", NULL }, "0:EAX 1:EAX" }, { 0, 0 },
      "FAAA" },
    { { "SB+mfences", NULL, { "st x 1; mf; ld EAX y", "st y 1; mf; ld EAX x", NULL },
        "0:EAX 1:EAX" }, { 0, 0 }, "FFFF" },
    { { "SB+rfi-pos", NULL, { "st x 1; ld EAX x; ld EBX y", "st y 1; ld EAX y; ld EBX x", NULL },
        "0:EAX 0:EBX 1:EAX 1:EBX" }, { 1, 0, 1, 0 }, "FAAA" },
    { { "WRC", NULL, { "st x 1", "ld EAX x; st y 1", "ld EAX y; ld EBX x", NULL },
        "1:EAX 2:EAX 2:EBX" }, { 1, 1, 0 }, "FFFA" },
};

/* The simulated outcomes against the exhaustive enumerator's: none it forbids, every one it
 * allows (within `runs` runs); and the condition's verdict. Returns false and says why. */
static bool check_against_enumerator(const LitTest *t, const char *model, uint64_t runs,
                                     const char *config, int verdict)
{
    LitHist allowed, h;
    litmus_hist_init(&allowed);
    GError *e = NULL;
    bool ok = litmus_enumerate(t, mem_model_find(model), 10000000, &allowed, &e);
    CU_ASSERT_TRUE_FATAL(ok);
    h = sim_runs(t, model, runs, 1, config);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, h.counts);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (!g_hash_table_contains(allowed.counts, k)) {
            fprintf(stderr, "\n%s under %s%s%s: FORBIDDEN outcome %s seen %" G_GUINT64_FORMAT
                    " times\n", t->name, model, config ? " with " : "", config ? config : "",
                    (char *)k, *(uint64_t *)v);
            ok = false;
        }
    g_hash_table_iter_init(&it, allowed.counts);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (!g_hash_table_contains(h.counts, k) && !config) {
            fprintf(stderr, "\n%s under %s: allowed outcome %s never seen in %" G_GUINT64_FORMAT
                    " runs\n", t->name, model, (char *)k, runs);
            ok = false;
        }
    bool seen = g_hash_table_size(h.holds) > 0;
    if (verdict >= 0 && seen != (verdict > 0)) {
        fprintf(stderr, "\n%s under %s: condition %s, but it %s\n", t->name, model,
                verdict ? "allowed" : "forbidden", seen ? "held" : "never held");
        ok = false;
    }
    litmus_hist_clear(&h);
    litmus_hist_clear(&allowed);
    return ok;
}

/* Where herd7's 15 tests are: the repository's copy. */
static const char *litmus_dir(void)
{
    static const char *const dirs[] = { "tests/litmus/herd", NULL };
    for (int i = 0; dirs[i]; i++) {
        char *m = g_build_filename(dirs[i], "MANIFEST.csv", NULL);
        bool there = g_file_test(m, G_FILE_TEST_EXISTS);
        g_free(m);
        if (there)
            return dirs[i];
    }
    return NULL;
}

static const char *const model_names[] = { "sc", "tso", "pso", "weak" };

/* The hand-built copies: checked against the enumerator and MANIFEST.csv's verdicts; 10,000
 * runs each when the files are not there to be checked themselves (below). */
static void test_classics_by_hand(void)
{
    uint64_t runs = litmus_dir() ? 3000 : 10000;
    for (size_t i = 0; i < G_N_ELEMENTS(classics); i++) {
        LitTest *t = build(&classics[i].s);
        /* the condition by hand: an AND of obs = value */
        LitCond *atoms = g_new0(LitCond, 2 * t->nobs);
        for (int k = 0; k < t->nobs; k++) {
            LitCond *a = &atoms[k];
            a->kind = t->obs[k].is_loc ? LC_LOC : LC_REG;
            a->thread = t->obs[k].thread;
            a->reg = a->loc = t->obs[k].idx;
            a->value = classics[i].cond[k];
            if (k == 0) {
                t->cond = a;
            } else {
                LitCond *and = &atoms[t->nobs + k];
                and->kind = LC_AND;
                and->a = t->cond;
                and->b = a;
                t->cond = and;
            }
        }
        for (int m = 0; m < 4; m++)
            CU_ASSERT(check_against_enumerator(t, model_names[m], runs, NULL,
                                               classics[i].verdict[m] == 'A'));
        g_free(atoms);
        t->cond = NULL;
        free_built(t);
    }
}

/* Every test of a manifest (columns test,file,condition,SC,TSO,PSO,WEAK), parsed from its
 * file: under every model 10,000 runs against the enumerator and the manifest's verdicts; on
 * MSI and MOESI (fewer runs) no forbidden outcome. Returns the number of tests. */
static int check_manifest(const char *dir)
{
    char *mpath = g_build_filename(dir, "MANIFEST.csv", NULL), *text = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(mpath, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    int tests = 0;
    for (char **l = lines + 1; *l; l++) {
        char **f = g_strsplit(g_strstrip(*l), ",", -1);
        if (g_strv_length(f) != 7) {
            g_strfreev(f);
            continue;
        }
        char *path = g_build_filename(dir, f[1], NULL);
        GError *e = NULL;
        LitTest *t = litmus_parse_file(path, &e);
        if (!t)
            fprintf(stderr, "%s\n", e->message);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        tests++;
        for (int m = 0; m < 4; m++) {
            CU_ASSERT(check_against_enumerator(t, model_names[m], 10000, NULL,
                                               strcmp(f[3 + m], "allowed") == 0));
            CU_ASSERT(check_against_enumerator(t, model_names[m], 500, "l1d: {protocol: msi}",
                                               -1));
            CU_ASSERT(check_against_enumerator(t, model_names[m], 500,
                                               "l1d: {protocol: moesi}", -1));
        }
        litmus_free(t);
        g_free(path);
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(text);
    g_free(mpath);
    return tests;
}

/* herd7's 15 files themselves (the issue's required result), then the repository's own tests
 * of fences, locked instructions and dependencies (tests/litmus). */
static void test_litmus_files(void)
{
    const char *dir = litmus_dir();
    if (dir) {
        CU_ASSERT_EQUAL(check_manifest(dir), 15);
    } else {
        fprintf(stderr, "(no tests/litmus/herd: the hand-built copies "
                        "stand in) ");
    }
    if (g_file_test("tests/litmus/MANIFEST.csv", G_FILE_TEST_EXISTS)) {
        CU_ASSERT(check_manifest("tests/litmus") > 0);
    }
}

/* Sum of the counts of the outcomes listed (each n values, in obs order). */
static uint64_t count_all(const LitHist *h, const LitTest *t, const int64_t *vals, int nout)
{
    uint64_t sum = 0;
    for (int i = 0; i < nout; i++)
        sum += count_of(h, t, vals + i * t->nobs);
    return sum;
}

/* N cores LOCK ADD one counter: the sum is exact on every protocol and model; XADD hands out
 * distinct old values. Without the lock (load, add, store) updates are lost: the check can fail. */
static void test_rmw_atomic(void)
{
    static const char *const protos[] = { "msi", "mesi", "moesi" };
    static const char *const models[] = { "sc", "tso", "pso", "weak" };
    const Spec adds = { "ADD4", NULL, { "add c 1; add c 1; add c 1", "add c 1; add c 1; add c 1",
                                        "add c 1; add c 1; add c 1", "add c 1; add c 1; add c 1",
                                        NULL }, "c" };
    LitTest *t = build(&adds);
    for (int p = 0; p < 3; p++)
        for (int m = 0; m < 4; m++) {
            char *cfg = g_strdup_printf("l1d: {protocol: %s}", protos[p]);
            LitHist h = sim_runs(t, models[m], 300, 3, cfg);
            static const int64_t twelve[] = { 12 };
            CU_ASSERT_EQUAL(count_of(&h, t, twelve), 300);
            CU_ASSERT_EQUAL(g_hash_table_size(h.counts), 1);
            litmus_hist_clear(&h);
            g_free(cfg);
        }
    free_built(t);

    const Spec xadd = { "XADD3", "c=10", { "xadd EAX c 1", "xadd EAX c 1", "xadd EAX c 1", NULL },
                        "0:EAX 1:EAX 2:EAX c" };
    t = build(&xadd);
    static const int64_t perms[6][4] = { { 10, 11, 12, 13 }, { 10, 12, 11, 13 },
                                         { 11, 10, 12, 13 }, { 11, 12, 10, 13 },
                                         { 12, 10, 11, 13 }, { 12, 11, 10, 13 } };
    LitHist h = sim_runs(t, "tso", 2000, 5, NULL);
    CU_ASSERT_EQUAL(count_all(&h, t, &perms[0][0], 6), 2000);
    for (int i = 0; i < 6; i++)
        CU_ASSERT(count_of(&h, t, perms[i]) > 0);        /* every order of the three happens */
    litmus_hist_clear(&h);
    free_built(t);

    const Spec racy = { "INC2", NULL,
                        { "ld EAX c; inc EAX; st c EAX", "ld EAX c; inc EAX; st c EAX", NULL },
                        "c" };
    t = build(&racy);
    h = sim_runs(t, "sc", 2000, 5, NULL);
    static const int64_t one[] = { 1 }, two[] = { 2 };
    CU_ASSERT(count_of(&h, t, one) > 0);                 /* a lost update */
    CU_ASSERT(count_of(&h, t, two) > 0);
    CU_ASSERT_EQUAL(count_of(&h, t, one) + count_of(&h, t, two), 2000);
    litmus_hist_clear(&h);
    free_built(t);
}

/* LOCK CMPXCHG as a lock: of two cores that try to take x from 0, exactly one wins; the loser
 * gets the winner's value in EAX. */
static void test_cmpxchg(void)
{
    const Spec cas = { "CAS2", NULL, { "mov EAX 0; cas x 1", "mov EAX 0; cas x 2", NULL },
                       "0:EAX 1:EAX x" };
    LitTest *t = build(&cas);
    static const char *const models[] = { "sc", "weak" };
    for (int m = 0; m < 2; m++) {
        LitHist h = sim_runs(t, models[m], 1000, 9, "l1d: {protocol: moesi}");
        static const int64_t win0[] = { 0, 1, 1 }, win1[] = { 2, 0, 2 };
        CU_ASSERT(count_of(&h, t, win0) > 0 && count_of(&h, t, win1) > 0);
        CU_ASSERT_EQUAL(count_of(&h, t, win0) + count_of(&h, t, win1), 1000);
        litmus_hist_clear(&h);
    }
    free_built(t);
}

static bool hist_equal(const LitHist *a, const LitHist *b)
{
    if (g_hash_table_size(a->counts) != g_hash_table_size(b->counts))
        return false;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, a->counts);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        uint64_t *w = g_hash_table_lookup(b->counts, k);
        if (!w || *w != *(uint64_t *)v)
            return false;
    }
    return true;
}

/* Same seed, same histogram; another seed, another one. */
static void test_determinism(void)
{
    LitTest *t = build(&classics[3].s);     /* iriw: 16 outcomes under WEAK */
    LitHist a = sim_runs(t, "weak", 3000, 42, NULL);
    LitHist b = sim_runs(t, "weak", 3000, 42, NULL);
    LitHist c = sim_runs(t, "weak", 3000, 43, NULL);
    CU_ASSERT_TRUE(hist_equal(&a, &b));
    CU_ASSERT_FALSE(hist_equal(&a, &c));
    litmus_hist_clear(&a);
    litmus_hist_clear(&b);
    litmus_hist_clear(&c);
    free_built(t);
}

/* Without the reference memory (system.check: false) locations are read back by loads. */
static void test_no_oracle(void)
{
    LitTest *t = build(&classics[0].s);     /* 2+2W: x=2 /\ y=2 only when stores reorder */
    static const int64_t both2[] = { 2, 2 };
    LitHist h = sim_runs(t, "sc", 2000, 1, "system: {check: false}");
    CU_ASSERT_EQUAL(h.runs, 2000);
    CU_ASSERT_EQUAL(count_of(&h, t, both2), 0);
    CU_ASSERT(g_hash_table_size(h.counts) == 3);
    litmus_hist_clear(&h);
    h = sim_runs(t, "pso", 2000, 1, "system: {check: false}");
    CU_ASSERT(count_of(&h, t, both2) > 0);
    litmus_hist_clear(&h);
    free_built(t);
    /* thread 0's registers beside a location: the read-back runs on core 0 after they are
     * taken (it left thread 0's registers holding the locations read back: CoWR "Sometimes") */
    GError *e = NULL;
    LitTest *w = litmus_parse_file("tests/litmus/CoWR.litmus", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (int m = 0; m < 4; m++) {
        CU_ASSERT(check_against_enumerator(w, model_names[m], 2000, "system: {check: false}", 0));
        LitTest *c = litmus_parse_file("tests/litmus/CAS-lock.litmus", &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT(check_against_enumerator(c, model_names[m], 2000, "system: {check: false}", 0));
        litmus_free(c);
    }
    litmus_free(w);
}

/* --trace: the first run's store buffer, drains, forwards and fences, per cycle. */
static void test_trace(void)
{
    const Spec s = { "SB+rfi+mf", NULL, { "st x 1; ld EAX x; mf; ld EBX y", "st y 1; ld EAX y",
                                          NULL }, "0:EAX 0:EBX 1:EAX" };
    LitTest *t = build(&s);
    char *dir = g_dir_make_tmp("mmcore-XXXXXX", NULL);
    char *path = g_build_filename(dir, "sb.txt", NULL);
    LitHist h;
    litmus_hist_init(&h);
    LitSimOptions o = { .model = mem_model_find("tso"), .runs = 50, .seed = 1,
                        .trace_path = path };
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(litmus_simulate(t, &o, &h, &e));
    char *text = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &text, NULL, NULL));
    if (verbose)
        fprintf(stderr, "%s", text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core0: sb entries=[x]=1 n=1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core0: forward loc=x"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core0: drain loc=x"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core0: fence what=wait pending="));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core0: fence what=done"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core0: load addr="));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "l1d0: state"));
    /* only the first run is traced: one drain of x */
    const char *p = strstr(text, "core0: drain loc=x");
    CU_ASSERT_PTR_NULL(p ? strstr(p + 1, "core0: drain loc=x") : NULL);
    g_free(text);
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
    litmus_hist_clear(&h);
    free_built(t);
}

/* Errors come back as GErrors with the exit code: a bad machine config (78), and a deadlock
 * (3) here forced by a watchdog shorter than one miss. */
static void test_errors(void)
{
    LitTest *t = build(&SB);
    LitHist h;
    litmus_hist_init(&h);
    LitSimOptions o = { .model = mem_model_find("tso"), .runs = 10, .seed = 1,
                        .config_yaml = "l1d: {protocol: mosi}" };
    GError *e = NULL;
    CU_ASSERT_FALSE(litmus_simulate(t, &o, &h, &e));
    CU_ASSERT(e && e->code == ARCHSIM_EXIT_CONFIG && strstr(e->message, "protocol"));
    g_clear_error(&e);
    o.config_yaml = "l1d: [";
    CU_ASSERT_FALSE(litmus_simulate(t, &o, &h, &e));
    CU_ASSERT(e && e->code == ARCHSIM_EXIT_CONFIG);
    g_clear_error(&e);
    o.config_yaml = "sim: {watchdog: 2}";
    CU_ASSERT_FALSE(litmus_simulate(t, &o, &h, &e));
    CU_ASSERT(e && e->code == ARCHSIM_EXIT_CHECK && strstr(e->message, "SB: run 1 (seed 1)") &&
              strstr(e->message, "deadlock") && strstr(e->message, "core0"));
    if (verbose && e)
        fprintf(stderr, "%s\n", e->message);
    g_clear_error(&e);
    CU_ASSERT_EQUAL(h.runs, 0);
    litmus_hist_clear(&h);
    free_built(t);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    verbose = g_getenv("MMCORE_VERBOSE") != NULL;
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("mmcore", NULL, NULL);
    CU_add_test(s, "mm-core on a mock L1: what each model sends when, exact cycles",
                test_mock_exact);
    CU_add_test(s, "SB under SC never 0/0, under TSO it does", test_sb_sc_tso);
    CU_add_test(s, "15 classic tests by hand: as the enumerator and herd7 say",
                test_classics_by_hand);
    CU_add_test(s, "litmus files, every model: no forbidden outcome, every allowed one",
                test_litmus_files);
    CU_add_test(s, "locked RMW: exact sums on MSI/MESI/MOESI, XADD, lost updates without",
                test_rmw_atomic);
    CU_add_test(s, "LOCK CMPXCHG: exactly one of two wins", test_cmpxchg);
    CU_add_test(s, "same seed, same histogram", test_determinism);
    CU_add_test(s, "system.check false: locations read back by loads", test_no_oracle);
    CU_add_test(s, "--trace shows store buffer, forward, drain, fence", test_trace);
    CU_add_test(s, "bad config, deadlock: errors with exit codes", test_errors);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
