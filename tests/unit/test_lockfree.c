/* test_lockfree.c: kernel-core's memory models (models/cpu/kernel_core.c `model`: the store
 * buffer of tso, pso, weak) and the lock-free examples of configs/lockfree/ (docs/lockfree.md).
 *  - the store buffer: forwarding, FIFO drains under tso, reordered drains under pso and weak,
 *    `fence st` / full `fence`, atomics and markers draining it first, a full buffer stalling
 *  - litmus SB on kernel-core: r1 = r2 = 0 shows up under tso for some seed, never under sc
 *  - the Treiber stack's ABA failure (exit 3, exact message) and the tagged fix, every model
 *  - the SPSC ring: sc and tso pass, pso and weak fail without fences, pass with them */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../models/cpu/kernel.h"
#include "../../sim/error.h"
#include "../../models/mem/oracle.h"
#include "../../sim/system.h"
#include "kernutil.h"
#include "sysutil.h"

static const char *const models[] = { "sc", "tso", "pso", "weak" };

/* Builds and runs `yaml`; NULL with *e set if either fails. */
static SystemRun *run_yaml(const char *yaml, int64_t seed, GError **e)
{
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    if (!root)
        return NULL;
    SystemRun *r = system_build(root, seed, NULL, NULL, e);
    if (r && !system_run(r, e)) {
        system_free(r);
        return NULL;
    }
    return r;
}

/* `program` on `cores` cores of the MESI bus machine under `model`, plus more core keys. */
static SystemRun *run_program(const char *model, int cores, const char *program, const char *more,
                              int64_t seed, GError **e)
{
    GString *y = g_string_new(NULL);
    g_string_append_printf(y, "system:\n  type: smp\n  cores: %d\nl1d:\n  protocol: mesi\n"
                           "core:\n  type: kernel-core\n  model: %s\n%s  program: |\n", cores,
                           model, more ? more : "");
    char **lines = g_strsplit(program, "\n", -1);
    for (char **l = lines; *l; l++)
        if (**l)
            g_string_append_printf(y, "    %s\n", *l);
    g_strfreev(lines);
    SystemRun *r = run_yaml(y->str, seed, e);
    g_string_free(y, TRUE);
    return r;
}

/* One of configs/lockfree/ with overrides, as `archsim run FILE --seed S --set ...` would; the
 * run's error (NULL on success) in *e. */
static SystemRun *run_config(const char *file, const char *set1, const char *set2, int64_t seed,
                             GError **e)
{
    CfgNode *root = cfg_load_file(file, NULL, e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    if (set1)
        CU_ASSERT_TRUE(cfg_apply_set(root, set1, e));
    if (set2)
        CU_ASSERT_TRUE(cfg_apply_set(root, set2, e));
    SystemRun *r = system_build(root, seed, NULL, NULL, e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    if (!system_run(r, e)) {
        system_free(r);
        return NULL;
    }
    return r;
}

/* ---- the store buffer ----------------------------------------------------------------------- */

/* A load of a word with a buffered store takes its value without the L1; under sc the model's
 * statistics do not exist (sc's stats are those of before). */
static void test_forwarding(void)
{
    for (size_t m = 0; m < G_N_ELEMENTS(models); m++) {
        GError *e = NULL;
        SystemRun *r = run_program(models[m], 1, ".var x\n.expect x = 7\n  store x, 5\n"
                                   "  load r1, x\n  store x, 7\n  load r2, x\n  halt\n",
                                   NULL, 1, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 1), 5);
        CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 2), 7);
        if (m == 0) {
            CU_ASSERT_EQUAL(stat_u(r, "core0.forwarded_loads"), UINT64_MAX);
            CU_ASSERT_EQUAL(stat_u(r, "core0.loads"), 2);
        } else {
            CU_ASSERT_EQUAL(stat_u(r, "core0.forwarded_loads"), 2);
            CU_ASSERT_EQUAL(stat_u(r, "core0.loads"), 0);
            CU_ASSERT_EQUAL(stat_u(r, "core0.stores"), 2);
        }
        system_free(r);
    }
}

/* 16 stores to 16 lines in a row: tso drains them in program order, pso and weak out of it;
 * `fence st` between them restores the order; a 4-entry buffer makes the core wait. */
static void test_drain_order(void)
{
    static const char prog[] = ".array a[16]\n  mov r1, 0\nl:\n  add r2, r1, 1\n"
                               "  store a[r1], r2\n%s  mov r1, r2\n  blt r1, 16, l\n"
                               ".expect a[15] = 16\n.expect a[0] = 1\n  halt\n";
    for (int fenced = 0; fenced < 2; fenced++) {
        char *p = g_strdup_printf(prog, fenced ? "  fence st\n" : "");
        for (size_t m = 1; m < G_N_ELEMENTS(models); m++) {
            GError *e = NULL;
            SystemRun *r = run_program(models[m], 1, p, "  store_buffer: 16\n", 1, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            uint64_t reord = stat_u(r, "core0.drains_reordered");
            CU_ASSERT_TRUE(m == 1 || fenced ? reord == 0 : reord > 3);
            CU_ASSERT_EQUAL(stat_u(r, "core0.stores"), 16);
            CU_ASSERT_EQUAL(stat_u(r, "core0.store_buffer_full_cycles"), 0);
            system_free(r);
            r = run_program(models[m], 1, p, "  store_buffer: 4\n", 1, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_TRUE(stat_u(r, "core0.store_buffer_full_cycles") > 0);
            CU_ASSERT_EQUAL(stat_u(r, "core0.sb_occupancy::max"), 4);
            system_free(r);
        }
        g_free(p);
    }
}

/* A full fence, an atomic and the markers wait until the buffer is empty; every store before an
 * atomic is visible to a core that sees the atomic's write (message passing through xchg). */
static void test_fences_and_atomics_drain(void)
{
    for (size_t m = 1; m < G_N_ELEMENTS(models); m++) {
        GError *e = NULL;
        SystemRun *r = run_program(models[m], 1, ".var x\n.var y\n  store x, 1\n  fence\n"
                                   "  store y, 1\n  faa r1, x, 1\n.expect x = 2\n  halt\n", NULL,
                                   1, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(stat_u(r, "core0.fence_wait_cycles") > 0);
        CU_ASSERT_TRUE(stat_u(r, "core0.drain_wait_cycles") > 0);
        CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 1), 1);     /* x drained before faa */
        system_free(r);
        for (int seed = 1; seed <= 5; seed++) {
            r = run_program(models[m], 2,
                            ".array data[4]\n.var flag\n  beq id, 1, obs\n"
                            "  store data[0], 10\n  store data[1], 11\n  store data[2], 12\n"
                            "  store data[3], 13\n  xchg r1, flag, 1\n  halt\n"
                            "obs:\n  load r1, flag\n  beq r1, 0, obs\n  load r2, data[0]\n"
                            "  load r3, data[1]\n  load r4, data[2]\n  load r5, data[3]\n"
                            "  halt\n", "  drain: 200\n", seed, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            for (int i = 0; i < 4; i++)
                CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 1), 2 + i), 10 + i);
            system_free(r);
        }
    }
}

/* Dekker's store-buffering litmus test (SB): x = 1; r1 = y || y = 1; r1 = x. r1 = r1 = 0 is
 * forbidden under sc and allowed under tso (each load passes its own buffered store). */
static void test_litmus_sb(void)
{
    static const char sb[] = ".var x\n.var y\n  delay 0, 40\n  beq id, 1, t1\n  store x, 1\n"
                             "  load r1, y\n  halt\nt1:\n  store y, 1\n  load r1, x\n  halt\n";
    for (size_t m = 0; m < 2; m++) {
        int both_zero = 0;
        for (int seed = 1; seed <= 20; seed++) {
            GError *e = NULL;
            SystemRun *r = run_program(models[m], 2, sb, NULL, seed, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            both_zero += kernel_core_reg(core_of(r, 0), 1) == 0 &&
                         kernel_core_reg(core_of(r, 1), 1) == 0;
            CU_ASSERT_EQUAL(mem_word(r, "x", 0), 1);
            CU_ASSERT_EQUAL(mem_word(r, "y", 0), 1);
            system_free(r);
        }
        CU_ASSERT_TRUE(m == 0 ? both_zero == 0 : both_zero > 0);
    }
}

/* fence kinds parse; a bad one is named; model sc runs them as one cycle each. */
static void test_fence_kinds(void)
{
    static const int64_t env[KN_COUNT] = { [KN_N] = 1, [KN_ITERATIONS] = 1 };
    KernelSource s = { "p", "  fence\n  fence st\n  fence ld\n  fence full\n  halt\n" };
    GError *e = NULL;
    Kernel *k = kernel_parse(&s, 1, env, 0x1000, 64, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(k->ops[0].fence, KFENCE_FULL);
    CU_ASSERT_EQUAL(k->ops[1].fence, KFENCE_ST);
    CU_ASSERT_EQUAL(k->ops[2].fence, KFENCE_LD);
    CU_ASSERT_EQUAL(k->ops[3].fence, KFENCE_FULL);
    kernel_free(k);
    KernelSource bad = { "p", "  fence sync\n  halt\n" };
    k = kernel_parse(&bad, 1, env, 0x1000, 64, &e);
    CU_ASSERT_PTR_NULL(k);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "p:1:9: unknown fence kind 'sync': full, st or ld "
                                       "(fence [full|st|ld])");
    g_clear_error(&e);
    SystemRun *r = run_program("sc", 1, "  fence st\n  fence ld\n  fence\n  halt\n", NULL, 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(stat_u(r, "core0.cycles"), 3);
    system_free(r);
}

/* ---- the examples --------------------------------------------------------------------------- */

static void test_aba(void)
{
    for (size_t m = 0; m < G_N_ELEMENTS(models); m++) {
        char *set = g_strdup_printf("core.model=%s", models[m]);
        for (int seed = 1; seed <= 3; seed++) {
            GError *e = NULL;
            SystemRun *r = run_config("configs/lockfree/aba.yaml", set, NULL, seed, &e);
            CU_ASSERT_PTR_NULL(r);
            CU_ASSERT_PTR_NOT_NULL_FATAL(e);
            CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
            if (!strstr(e->message, "aba.k:20:21: check failed: top_index = 2, expected 3 (3)"))
                fprintf(stderr, "\n%s seed %d: %s\n", models[m], seed, e->message);
            CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "aba.k:20:21: check failed: top_index = "
                                                      "2, expected 3 (3)"));
            g_clear_error(&e);
            r = run_config("configs/lockfree/aba-tagged.yaml", set, NULL, seed, &e);
            if (!r)
                fprintf(stderr, "\ntagged %s seed %d: %s\n", models[m], seed, e->message);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_EQUAL(stat_u(r, "core0.cas_failures"), 1);   /* the delayed CAS */
            CU_ASSERT_EQUAL(mem_word(r, "top", 0), 3 | (4 << 16));  /* C, after 4 CAS */
            system_free(r);
        }
        g_free(set);
    }
}

static void test_spsc_matrix(void)
{
    for (size_t m = 0; m < G_N_ELEMENTS(models); m++) {
        char *set = g_strdup_printf("core.model=%s", models[m]);
        for (int seed = 1; seed <= 6; seed++) {
            GError *e = NULL;
            SystemRun *r = run_config("configs/lockfree/spsc.yaml", set, NULL, seed, &e);
            if (m < 2) {                            /* sc, tso: every value in order */
                if (!r)
                    fprintf(stderr, "\nspsc %s seed %d: %s\n", models[m], seed, e->message);
                CU_ASSERT_PTR_NOT_NULL_FATAL(r);
                CU_ASSERT_EQUAL(mem_word(r, "received", 0), 200);
                system_free(r);
            } else {                                /* pso, weak: st->st relaxed */
                CU_ASSERT_PTR_NULL(r);
                CU_ASSERT_PTR_NOT_NULL_FATAL(e);
                CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
                CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "spsc.k:17:26: check failed: "
                                                          "first_bad_item = "));
                g_clear_error(&e);
            }
            r = run_config("configs/lockfree/spsc-fenced.yaml", set, NULL, seed, &e);
            if (!r)
                fprintf(stderr, "\nspsc-fenced %s seed %d: %s\n", models[m], seed, e->message);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_EQUAL(mem_word(r, "received", 0), 200);
            CU_ASSERT_EQUAL(mem_word(r, "first_bad_item", 0), 0);
            system_free(r);
        }
        g_free(set);
    }
    /* the configs as shipped: spsc-weak fails, spsc-fenced (weak) passes */
    GError *e = NULL;
    SystemRun *r = run_config("configs/lockfree/spsc-weak.yaml", NULL, NULL, 1, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
    g_clear_error(&e);
    r = run_config("configs/lockfree/spsc-fenced.yaml", NULL, NULL, 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(stat_u(r, "core0.drains_reordered") > 0);   /* head/tail vs slots still do */
    system_free(r);
}

/* The lock kernels stay correct under every model: the markers drain the buffer, so the
 * protected counter's store is visible before the release. */
static void test_locks_every_model(void)
{
    static const char *const locks[] = { "tas", "ttas", "ticket", "anderson", "mcs", "clh",
                                         "llsc" };
    for (size_t m = 1; m < G_N_ELEMENTS(models); m++) {
        for (size_t i = 0; i < G_N_ELEMENTS(locks); i++) {
            GError *e = NULL;
            char *more = g_strdup_printf("  kernel: %s\n  iterations: 20\n", locks[i]);
            GString *y = g_string_new(NULL);
            g_string_append_printf(y, "system:\n  type: smp\n  cores: 8\nl1d:\n  protocol: mesi\n"
                                   "core:\n  type: kernel-core\n  model: %s\n%s", models[m], more);
            SystemRun *r = run_yaml(y->str, 1, &e);
            if (!r)
                fprintf(stderr, "\n%s %s: %s\n", models[m], locks[i], e->message);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_EQUAL(stat_u(r, "locks.acquisitions"), 160);
            system_free(r);
            g_string_free(y, TRUE);
            g_free(more);
        }
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("lockfree", NULL, NULL);
    CU_add_test(s, "store buffer: forwarding; sc unchanged", test_forwarding);
    CU_add_test(s, "store buffer: FIFO under tso, reordered under pso/weak, fence st, full",
                test_drain_order);
    CU_add_test(s, "full fences, atomics and markers drain the buffer", test_fences_and_atomics_drain);
    CU_add_test(s, "litmus SB: r1=r2=0 under tso, never under sc", test_litmus_sb);
    CU_add_test(s, "fence kinds: parse, errors, sc timing", test_fence_kinds);
    CU_add_test(s, "Treiber stack: ABA caught, tagged fix passes", test_aba);
    CU_add_test(s, "SPSC ring: sc/tso pass, pso/weak fail, fenced pass", test_spsc_matrix);
    CU_add_test(s, "every lock under every model", test_locks_every_model);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
