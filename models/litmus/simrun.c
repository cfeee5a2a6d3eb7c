/* simrun.c: litmus random mode: a litmus test run many times on the simulated coherent
 * multiprocessor (system smp: mm-core cores with store buffers, coherent L1s on a snooping bus,
 * LLC, DRAM) with seeded random timing, its outcomes counted in a LitHist. Like herd7's litmus7
 * tool on real hardware (Alglave et al., "Litmus: running tests against hardware", TACAS 2011),
 * except that the hardware is the simulator, so a coherence bug shows up as a forbidden outcome.
 *
 * ONE machine is built and reused for every run (building one costs far more than a run):
 *   setup   each location is written its initial value by a real store from a randomly chosen
 *           core, and other cores read it at random, so lines start in varied caches and states
 *   test    thread i runs on core i under this run's timing policy (lit_timing: independent
 *           random delays, or staged: a random thread order with held ops); the engine runs
 *           until every op has performed and the memory system is quiet
 *   outcome registers from the cores, locations from the reference memory (sim.check) or, when
 *           it is off, by loads from core 0
 * The deadlock watchdog (sim.watchdog cycles without progress) and the reference checks (every
 * load's value, SWMR) end the whole simulation with exit code 3.
 */
#include "litmus.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../mem/oracle.h"
#include "../../sim/system.h"
#include "../cpu/mmcore.h"

/* The default litmus machine; LitSimOptions.config_yaml is merged over it, and then the runner
 * sets system.type smp, system.cores (one core per thread) and core.type mm-core. */
static const char litmus_machine_yaml[] =
    "system:\n"
    "  type: smp\n"
    "  llc_banks: 1\n"
    "  check: true\n"
    "core:\n"
    "  type: mm-core\n"
    "l1d:\n"
    "  protocol: mesi\n"
    "  size: 4KiB\n"
    "  assoc: 4\n"
    "  classify_misses: false\n"
    "llc:\n"
    "  size: 64KiB\n";

#define LIT_BASE_ADDR 0x10000u    /* location i is at LIT_BASE_ADDR + i x line: one line each */

typedef struct {
    const LitTest *t;
    const LitSimOptions *o;
    SystemRun *run;
    int ncores;
    Component *core[LIT_MAX_THREADS];
    uint64_t addr[LIT_MAX_LOCS];
    LitThread *setup;              /* per core: the setup program of the current run */
    LitThread readout;             /* loads of every location (when there is no oracle) */
    SimRng rng;
    int slot[LIT_MAX_THREADS];     /* this run's thread order (staged runs), else -1 */
    unsigned late_pct, split_pct;
    int *tracks;                   /* every component's trace track, while tracing is paused */
    uint64_t runno;
} LitSim;

static void set_tracing(LitSim *L, bool on)
{
    GPtrArray *cs = L->run->sim.components;
    for (guint i = 0; i < cs->len; i++)
        ((Component *)g_ptr_array_index(cs, i))->trace_track = on ? L->tracks[i] : -1;
}

static bool lit_fail(LitSim *L, GError **error, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static bool lit_fail(LitSim *L, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK, "%s: run %" G_GUINT64_FORMAT
                " (seed %" G_GUINT64_FORMAT "): %s", L->t->name ? L->t->name : "litmus",
                L->runno + 1, L->o->seed, msg);
    g_free(msg);
    return false;
}

/* Runs the engine until nothing is left to happen; fails on a reference-check failure, on
 * sim.watchdog cycles without progress, and on a core still waiting with an empty queue. */
static bool lit_run_phase(LitSim *L, const char *phase, GError **error)
{
    Sim *sim = &L->run->sim;
    Engine *eng = &sim->eng;
    uint64_t wd = L->run->sp.watchdog;
    for (;;) {
        uint64_t seen = eng->progress;
        Tick limit = wd ? eng->now + sim_tick_mul(wd, sim->sys_clk.period) : TICK_MAX;
        sim_run(eng, limit);
        if (sim->error) {
            bool r = lit_fail(L, error, "%s: %s", phase, sim->error->message);
            g_clear_error(&sim->error);
            return r;
        }
        if (sim_pending(eng) == 0)
            break;
        if (eng->progress == seen) {
            GString *d = g_string_new(NULL);
            sim_dump_all(sim, d);
            lit_fail(L, error, "%s: deadlock: nothing completed for %" G_GUINT64_FORMAT
                     " cycles (sim.watchdog), at cycle %" G_GUINT64_FORMAT "\n%s", phase, wd,
                     clock_cycle(&sim->sys_clk, eng->now), d->str);
            g_string_free(d, TRUE);
            return false;
        }
    }
    for (int i = 0; i < L->ncores; i++)
        if (!mmcore_done(L->core[i])) {
            GString *d = g_string_new(NULL);
            sim_dump_all(sim, d);
            lit_fail(L, error, "%s: deadlock: the event queue is empty at cycle %"
                     G_GUINT64_FORMAT " but %s still waits\n%s", phase,
                     clock_cycle(&sim->sys_clk, eng->now), L->core[i]->name, d->str);
            g_string_free(d, TRUE);
            return false;
        }
    return true;
}

static void add_op(LitThread *th, LitOpKind kind, int loc, int reg, int64_t value)
{
    g_assert(th->nops < LIT_MAX_OPS);
    LitOp *op = &th->ops[th->nops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->loc = loc;
    op->reg = reg;
    op->src.imm = value;
    op->cmp = -1;
}

/* Setup: each location gets its initial value from a random core's store; each other core then
 * reads it with probability 1/4 (a shared copy, or a miss if the store comes later). */
static bool lit_setup(LitSim *L, GError **error)
{
    const LitTest *t = L->t;
    for (int c = 0; c < L->ncores; c++) {
        L->setup[c].nops = 0;
        L->setup[c].nregs = 1;
    }
    for (int l = 0; l < t->nlocs; l++)
        add_op(&L->setup[sim_rng_below(&L->rng, (uint64_t)L->ncores)], LOP_STORE, l, -1,
               t->loc_init[l]);
    for (int c = 0; c < L->ncores; c++)
        for (int l = 0; l < t->nlocs; l++)
            if (sim_rng_below(&L->rng, 4) == 0)
                add_op(&L->setup[c], LOP_LOAD, l, 0, 0);
    for (int c = 0; c < L->ncores; c++) {
        mmcore_set_program(L->core[c], &L->setup[c], (const char *const *)t->locs, L->addr,
                           &mem_models[MM_SC], false);
        mmcore_start(L->core[c]);
    }
    return lit_run_phase(L, "setup", error);
}

/* This run's timing policy: a quarter of the runs use the cores' independent log-uniform
 * delays (races of every kind, for the protocol checks), the others are staged: the threads
 * start one after the other in a random order, and each op that the model lets a later op
 * bypass is held back until after all of them with probability 1/4 or 1/2 (chosen per run). A
 * cycle of the test (IRIW, 2+2W, long W/R chains) needs its threads to act in the cycle's order
 * with the relaxed ops late: independent delays find that once in 10^4-10^5 runs for 4 threads,
 * staging about once in 4! x 4 = 100 (litmus7 -s/-r and its "stride" serve the same end). */
static void lit_timing(LitSim *L)
{
    if (sim_rng_below(&L->rng, 4) == 0) {
        for (int c = 0; c < L->ncores; c++)
            L->slot[c] = -1;
        return;
    }
    for (int c = 0; c < L->ncores; c++)
        L->slot[c] = c;
    for (int c = L->ncores - 1; c > 0; c--) {
        int j = (int)sim_rng_below(&L->rng, (uint64_t)c + 1);
        int x = L->slot[c];
        L->slot[c] = L->slot[j];
        L->slot[j] = x;
    }
    static const unsigned split[] = { 0, 10, 25 };
    L->late_pct = sim_rng_below(&L->rng, 2) ? 50 : 25;
    L->split_pct = split[sim_rng_below(&L->rng, G_N_ELEMENTS(split))];
}

static guint outcome_hash(gconstpointer p)
{
    const LitOutcome *o = p;
    guint h = 2166136261u;
    for (int i = 0; i < o->n; i++)
        h = (h ^ (guint)((uint64_t)o->v[i] ^ ((uint64_t)o->v[i] >> 32))) * 16777619u;
    return h;
}

static gboolean outcome_equal(gconstpointer a, gconstpointer b)
{
    const LitOutcome *x = a, *y = b;
    return x->n == y->n && memcmp(x->v, y->v, (size_t)x->n * sizeof x->v[0]) == 0;
}

/* The outcome of the run just finished. */
static bool lit_outcome(LitSim *L, LitOutcome *oc, GError **error)
{
    const LitTest *t = L->t;
    Oracle *orc = mem_oracle(&L->run->sim);
    bool read_out = false;
    oc->n = t->nobs;
    /* the registers first: the read-out program below runs on core 0, over thread 0's */
    for (int i = 0; i < t->nobs; i++) {
        int idx = t->obs[i].idx;
        if (!t->obs[i].is_loc)
            oc->v[i] = mmcore_reg(L->core[t->obs[i].thread], idx);
        else if (orc)
            oc->v[i] = (int64_t)oracle_value(orc, L->addr[idx], 8);
        else
            read_out = true;
    }
    if (read_out) {
        mmcore_set_program(L->core[0], &L->readout, (const char *const *)t->locs, L->addr,
                           &mem_models[MM_SC], false);
        mmcore_start(L->core[0]);
        if (!lit_run_phase(L, "read-out", error))
            return false;
        for (int i = 0; i < t->nobs; i++)
            if (t->obs[i].is_loc)
                oc->v[i] = mmcore_reg(L->core[0], t->obs[i].idx);
    }
    return true;
}

static SystemRun *lit_build(const LitTest *t, const LitSimOptions *o, TraceDump *td,
                            const TraceOptions *to, GError **error)
{
    CfgNode *root = cfg_load_string("<litmus machine>", litmus_machine_yaml, NULL, error);
    g_assert(root);
    if (o->config_yaml && *o->config_yaml) {
        CfgNode *extra = cfg_load_string("<litmus config>", o->config_yaml, NULL, error);
        if (!extra) {
            cfg_node_free(root);
            return NULL;
        }
        cfg_merge(root, extra);
    }
    if (o->config)
        cfg_merge(root, cfg_node_copy(o->config));
    char n[16];
    g_snprintf(n, sizeof n, "%d", t->nthreads);
    static const char *const fixed[][3] = { { "system", "type", "smp" },
                                            { "system", "cores", NULL },
                                            { "core", "type", "mm-core" } };
    for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++) {
        CfgNode *sec = cfg_map_get(root, fixed[i][0]);
        if (!sec) {
            sec = cfg_node_new_map("<litmus machine>", 0, 0);
            cfg_map_set(root, fixed[i][0], sec);
        }
        cfg_map_set(sec, fixed[i][1],
                    cfg_node_new_scalar(fixed[i][2] ? fixed[i][2] : n, "<litmus machine>", 0, 0));
    }
    return system_build(root, (int64_t)(o->seed & (uint64_t)INT64_MAX), td, to, error);
}

volatile sig_atomic_t litmus_stop_requested;

bool litmus_simulate(const LitTest *t, const LitSimOptions *o, LitHist *out, GError **error)
{
    g_assert(t && o && o->model && out);
    if (t->nthreads < 1 || t->nthreads > LIT_MAX_THREADS) {
        g_set_error(error, ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: %d threads: random mode runs 1 to %d", t->name ? t->name : "litmus",
                    t->nthreads, LIT_MAX_THREADS);
        return false;
    }
    if (!out->counts)
        litmus_hist_init(out);
    TraceOptions to = { .format = TRACE_FMT_TEXT, .end = UINT64_MAX };
    TraceDump *td = NULL;
    if (o->trace_path) {
        to.path = o->trace_path;
        to.force = o->trace_force;
        trace_format_guess(o->trace_path, &to.format);    /* text when the suffix says nothing */
        if (!(td = trace_open(&to, error)))
            return false;
    }
    LitSim L = { .t = t, .o = o, .ncores = t->nthreads };
    L.run = lit_build(t, o, td, &to, error);
    if (!L.run) {
        if (td)
            trace_abort(td);
        return false;
    }
    Sim *sim = &L.run->sim;
    uint64_t line = 64;
    Component *l1 = sim_component_find(sim, "l1d0");
    if (l1)
        sim_component_param_u64(l1, "line", &line);
    for (int l = 0; l < t->nlocs; l++)
        L.addr[l] = LIT_BASE_ADDR + (uint64_t)l * line;
    for (int c = 0; c < L.ncores; c++) {
        char name[16];
        g_snprintf(name, sizeof name, "core%d", c);
        L.core[c] = sim_component_find(sim, name);
        g_assert(L.core[c] && L.core[c]->cls == &mm_core_class);
    }
    L.setup = g_new0(LitThread, L.ncores);
    L.readout.nregs = t->nlocs;
    for (int l = 0; l < t->nlocs; l++)
        add_op(&L.readout, LOP_LOAD, l, l, 0);
    sim_rng_seed(&L.rng, o->seed, "litmus");
    L.tracks = g_new(int, sim->components->len);
    for (guint i = 0; i < sim->components->len; i++)
        L.tracks[i] = ((Component *)g_ptr_array_index(sim->components, i))->trace_track;

    GHashTable *seen = g_hash_table_new_full(outcome_hash, outcome_equal, g_free, g_free);
    bool ok = true;
    for (L.runno = 0; ok && L.runno < o->runs; L.runno++) {
        if (G_UNLIKELY(litmus_stop_requested)) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_INTERRUPTED,
                        "archsim litmus: interrupted by signal %d in test %s (run %"
                        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "); no results written",
                        (int)litmus_stop_requested, t->name ? t->name : "litmus", L.runno,
                        o->runs);
            ok = false;
            break;
        }
        bool tracing = td && L.runno == 0;     /* the dump shows the first run's test phase */
        set_tracing(&L, false);
        if (!lit_setup(&L, error)) {
            ok = false;
            break;
        }
        set_tracing(&L, tracing);
        lit_timing(&L);
        for (int c = 0; c < L.ncores; c++) {
            mmcore_set_program(L.core[c], &t->t[c], (const char *const *)t->locs, L.addr,
                               o->model, true);
            if (L.slot[c] >= 0)
                mmcore_set_stage(L.core[c], L.slot[c], L.ncores, L.late_pct, L.split_pct);
            mmcore_start(L.core[c]);
        }
        ok = lit_run_phase(&L, "test", error);
        set_tracing(&L, false);
        LitOutcome oc;
        if (ok)
            ok = lit_outcome(&L, &oc, error);
        if (!ok)
            break;
        uint64_t *count = g_hash_table_lookup(seen, &oc);
        if (!count) {
            count = g_new0(uint64_t, 1);
            g_hash_table_insert(seen, g_memdup2(&oc, sizeof oc), count);
        }
        (*count)++;
    }
    if (ok) {
        GHashTableIter it;
        gpointer k, v;
        g_hash_table_iter_init(&it, seen);
        while (g_hash_table_iter_next(&it, &k, &v))
            litmus_hist_add(out, t, k, *(uint64_t *)v);
    }
    g_hash_table_destroy(seen);
    if (td && litmus_stop_requested) {
        set_tracing(&L, false);
        sim->trace = NULL;
        trace_abort(td);                /* interrupted: no dump that looks complete */
    } else if (td) {
        /* the dump is kept on a failure too: it shows the first run, the best evidence there is */
        set_tracing(&L, false);
        sim->trace = NULL;
        GError *e = NULL;
        if (!trace_close(td, ok ? error : &e))
            ok = false;
        g_clear_error(&e);
    }
    g_free(L.tracks);
    g_free(L.setup);
    system_free(L.run);
    return ok;
}
