/* test_htm.c: hardware transactional memory (models/cache/htm.h, coherent.c; kernel-core's
 * xbegin / xend / xabort / xtest).
 *  - crafted interleavings with exact outcomes: a conflict aborts the reader (requester wins) or
 *    refuses the writer until the commit (responder wins); capacity and explicit aborts with
 *    RTM's status bits; registers restored; lazy vs eager abort cost; flat nesting; xtest
 *  - the random transactional tester: seeded random programs (transactions of random loads,
 *    stores and fetch-and-adds over a small array, explicit aborts, a fallback lock that the
 *    transactions subscribe to, plain accesses in between) on 2-8 cores, MSI/MESI/MOESI, lazy
 *    and eager, requester and responder wins, tiny L1s; every committed transaction is checked
 *    serializable at its commit point against the reference memory, every load is checked, and
 *    the per-core counters must be exact. With conflict detection off the checks catch it.
 *  - determinism, and the directory L1's refusal. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/cache/htm.h"
#include "../../models/cpu/kernel.h"
#include "../../sim/error.h"
#include "../../models/mem/oracle.h"
#include "../../sim/system.h"
#include "kernutil.h"
#include "sysutil.h"

static bool quiet;

static SystemRun *run_yaml(const char *yaml, int64_t seed, GError **e)
{
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    if (!root)
        return NULL;
    SystemRun *r = system_build(root, seed, NULL, NULL, e);
    if (r && !system_run(r, e)) {
        system_free(r);
        r = NULL;
    }
    if (!r && !quiet)
        fprintf(stderr, "\n%s\n---\n%s\n", (*e)->message, yaml);
    return r;
}

/* A bus machine of `cores` kernel-cores running `program`; `core` and `l1` add keys. */
static SystemRun *run_prog(int cores, const char *program, const char *core, const char *l1,
                           int64_t seed, GError **e)
{
    GString *y = g_string_new(NULL);
    g_string_append_printf(y, "system:\n  type: smp\n  cores: %d\ncore:\n  type: kernel-core\n"
                           "  jitter: 0\n%s  program: |\n", cores, core ? core : "");
    char **lines = g_strsplit(program, "\n", -1);
    for (char **l = lines; *l; l++)
        if (**l)
            g_string_append_printf(y, "    %s\n", *l);
    g_strfreev(lines);
    if (l1)
        g_string_append_printf(y, "l1d:\n%s", l1);
    SystemRun *r = run_yaml(y->str, seed, e);
    g_string_free(y, TRUE);
    return r;
}

/* ---- crafted interleavings ---------------------------------------------------------------- */

/* Core 0 reads x in a transaction, waits, then writes y; core 1 writes x meanwhile. */
static const char *const conflict_prog =
    ".var x\n.var y\n.var tries\n"
    "  beq id, 1, writer\n"
    "again:\n"
    "  faa r7, tries, 1\n"
    "  xbegin r9, aborted\n"
    "  load r1, x\n"
    "  delay 400\n"
    "  add r2, r1, 10\n"
    "  store y, r2\n"
    "  xend\n"
    "  halt\n"
    "aborted:\n"
    "  mov r8, r9\n"
    "  jmp again\n"
    "writer:\n"
    "  delay 150\n"
    "  store x, 5\n"
    "  halt\n";

static void test_requester_wins(void)
{
    const char *modes[] = { "lazy", "eager" };
    for (int v = 0; v < 2; v++) {
        char *l1 = g_strdup_printf("  htm_versioning: %s\n", modes[v]);
        GError *e = NULL;
        SystemRun *r = run_prog(2, conflict_prog, NULL, l1, 1, &e);
        g_free(l1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        /* the writer's GetM aborted the reader; the retry read 5 */
        CU_ASSERT_EQUAL(mem_word(r, "y", 0), 15);
        CU_ASSERT_EQUAL(mem_word(r, "tries", 0), 2);
        CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 8), (int64_t)(HTM_CONFLICT | HTM_RETRY));
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.aborts.conflict"), 1);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.commits"), 1);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.begins"), 2);
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_aborts"), 1);
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_retries"), 1);
        CU_ASSERT_TRUE(stat_u(r, "core0.tx_wasted_cycles") > 0);
        system_free(r);
    }
}

static void test_responder_wins(void)
{
    GError *e = NULL;
    SystemRun *r = run_prog(2, conflict_prog, NULL, "  htm_conflict: responder\n", 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* the writer waits (refused, retried) until the reader commits: y = 0 + 10 */
    CU_ASSERT_EQUAL(mem_word(r, "y", 0), 10);
    CU_ASSERT_EQUAL(mem_word(r, "x", 0), 5);
    CU_ASSERT_EQUAL(mem_word(r, "tries", 0), 1);
    CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.aborts.conflict"), 0);
    CU_ASSERT_TRUE(stat_u(r, "l1d0.htm.nacks_sent") > 0);
    CU_ASSERT_EQUAL(stat_u(r, "l1d1.htm.nacks_received"), stat_u(r, "l1d0.htm.nacks_sent"));
    CU_ASSERT_TRUE(stat_u(r, "bus.nacks") > 0);
    /* the writer finished after the commit */
    CU_ASSERT_TRUE(stat_u(r, "core1.cycles") > 400);
    system_free(r);
}

/* Two transactions that write what the other reads, on both policies: each ends committed once,
 * the values say they ran one after the other. */
static void test_two_writers(void)
{
    const char *pol[] = { "requester", "responder" };
    for (int p = 0; p < 2; p++) {
        char *l1 = g_strdup_printf("  htm_conflict: %s\n", pol[p]);
        GError *e = NULL;
        SystemRun *r = run_prog(2,
                                ".var a\n.var b\n"
                                "again:\n"
                                "  xbegin r9, again\n"
                                "  beq id, 1, one\n"
                                "  load r1, a\n  delay 50\n  add r1, r1, 1\n  store b, r1\n"
                                "  xend\n  halt\n"
                                "one:\n"
                                "  load r1, b\n  delay 50\n  add r1, r1, 100\n  store a, r1\n"
                                "  xend\n  halt\n",
                                NULL, l1, 1, &e);
        g_free(l1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        int64_t a = mem_word(r, "a", 0), b = mem_word(r, "b", 0);
        /* 0 then 1: b = 1, a = 101; 1 then 0: a = 100, b = 101 */
        CU_ASSERT_TRUE((a == 101 && b == 1) || (a == 100 && b == 101));
        system_free(r);
    }
}

/* Nine lines written in a transaction of a 4-line L1: a capacity abort, status bit 3 and not
 * retry; the fallback path writes them plainly. */
static void test_capacity_abort(void)
{
    GError *e = NULL;
    SystemRun *r = run_prog(1,
                            ".array a[9]\n"
                            "  xbegin r9, fallback\n"
                            "  mov r1, 0\n"
                            "fill:\n  store a[r1], 7\n  add r1, r1, 1\n  blt r1, 9, fill\n"
                            "  xend\n  halt\n"
                            "fallback:\n"
                            "  mov r8, r9\n  mov r2, r1\n  mov r1, 0\n"
                            "plain:\n  store a[r1], 3\n  add r1, r1, 1\n  blt r1, 9, plain\n"
                            "  halt\n",
                            NULL, "  size: 256B\n  assoc: 4\n", 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 8), HTM_CAPACITY);
    CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 2), 0);   /* r1 restored at the abort */
    CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.aborts.capacity"), 1);
    for (int i = 0; i < 9; i++)
        CU_ASSERT_EQUAL(mem_word(r, "a", (uint64_t)i), 3);
    system_free(r);
}

/* xabort 42 after a write: the write is undone; status = explicit | 42 << 24. Nested xbegin /
 * xend are flat; xtest. Lazy aborts cost abort_latency; eager adds undo_latency per line. */
static void test_explicit_nested_and_costs(void)
{
    const char *prog = ".array a[4]\n"
                       "  store a[0], 1\n"
                       "  xbegin r9, out\n"
                       "  xtest r5\n"
                       "  xbegin r10, out\n"
                       "  store a[0], 2\n  store a[1], 2\n  store a[2], 2\n  store a[3], 2\n"
                       "  xend\n"
                       "  xabort 42\n"
                       "  halt\n"
                       "out:\n"
                       "  xtest r6\n"
                       "  halt\n";
    uint64_t cyc[2];
    const char *modes[] = { "lazy", "eager" };
    for (int v = 0; v < 2; v++) {
        char *l1 = g_strdup_printf("  htm_versioning: %s\n  htm_abort_latency: 20\n"
                                   "  htm_undo_latency: 100\n", modes[v]);
        GError *e = NULL;
        SystemRun *r = run_prog(1, prog, NULL, l1, 1, &e);
        g_free(l1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        Component *c = core_of(r, 0);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 9), (int64_t)(HTM_EXPLICIT | (42u << 24)));
        CU_ASSERT_EQUAL(kernel_core_reg(c, 5), 0);   /* restored: xtest ran inside */
        CU_ASSERT_EQUAL(kernel_core_reg(c, 6), 0);
        for (int i = 0; i < 4; i++)
            CU_ASSERT_EQUAL(mem_word(r, "a", (uint64_t)i), i == 0 ? 1 : 0);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.aborts.explicit"), 1);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.logged_lines"), 4);
        cyc[v] = stat_u(r, "core0.cycles");
        system_free(r);
    }
    /* the eager abort walks 4 undo records of 100 cycles; eager also pays 4 log writes */
    CU_ASSERT_TRUE(cyc[1] >= cyc[0] + 400);
}

/* Run-time errors: xend outside a transaction. */
static void test_errors(void)
{
    GError *e = NULL;
    quiet = true;
    SystemRun *r = run_prog(1, "  xend\n  halt\n", NULL, NULL, 1, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "xend outside a transaction"));
    g_clear_error(&e);
    /* the directory machine has no R/W bits */
    CfgNode *root = cfg_load_string("t.yaml",
                                    "system:\n  type: dirsmp\n  cores: 2\ncore:\n"
                                    "  type: kernel-core\n  program: |\n    .var x\n"
                                    "    xbegin r1, out\n    store x, 1\n    xend\n"
                                    "    out: halt\n", NULL, &e);
    quiet = false;
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    /* refused when the machine is built (validate says it too), at the program's xbegin */
    r = system_build(root, 1, NULL, NULL, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "core.program:2:1: xbegin is a hardware "
                                              "transaction, and l1d0 (dir-cache) keeps no "
                                              "transactional state"));
    g_clear_error(&e);
    system_free(r);
}

/* ---- the random transactional tester ----------------------------------------------------- */

typedef struct {
    uint64_t s;
} Rng;
static uint64_t rnd(Rng *g, uint64_t n)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (g->s >> 33) % n;
}

/* A random body: `len` accesses over data[0..words), delays; in a transaction also an explicit
 * abort now and then. */
static void gen_body(GString *p, Rng *g, int words, bool tx, int tag)
{
    int len = 1 + (int)rnd(g, 6);
    for (int i = 0; i < len; i++) {
        switch (rnd(g, 5)) {
        case 0:
        case 1:
            g_string_append_printf(p, "  rand r3, %d\n  load r4, data[r3]\n", words - 1);
            break;
        case 2:
            g_string_append_printf(p, "  rand r3, %d\n  add r5, r5, 1\n  store data[r3], r5\n",
                                   words - 1);
            break;
        case 3:
            g_string_append_printf(p, "  rand r3, %d\n  faa r4, data[r3], 3\n", words - 1);
            break;
        default:
            g_string_append_printf(p, "  delay %d, 8\n", 1 + (int)rnd(g, 40));
            break;
        }
        if (tx && rnd(g, 12) == 0)
            g_string_append_printf(p, "  rand r6, 9\n  beq r6, 0, explicit%d\n", tag);
    }
}

typedef struct {
    int cores;
    char *yaml;
} RandomCase;

static RandomCase random_case(uint64_t seed, const char *force_conflict)
{
    static const char *const protos[] = { "msi", "mesi", "moesi" };
    Rng g = { seed * 0x9E3779B97F4A7C15ull + 1 };
    int cores = 2 + (int)rnd(&g, 7);                /* 2..8 */
    int words = 2 + (int)rnd(&g, 14);
    bool packed = rnd(&g, 3) == 0;
    int maxtries = 1 + (int)rnd(&g, 5);
    GString *p = g_string_new(NULL);
    g_string_append_printf(p, ".var lock\n.array data[%d]%s\n.array done[n]\n", words,
                           packed ? " packed" : "");
    for (int i = 0; i < cores; i++)
        g_string_append_printf(p, ".expect done[%d] = iterations\n", i);
    g_string_append(p, "main:\n  mov r10, 0\nretry:\n  xbegin r9, aborted\n"
                       "  load r1, lock\n  bne r1, 0, busy\n");
    gen_body(p, &g, words, true, 0);
    g_string_append(p, "  faa r2, done[id], 1\n  xend\n  jmp next\n"
                       "busy:\n  xabort 1\nexplicit0:\n  xabort 2\n"
                       "aborted:\n  add r10, r10, 1\n");
    g_string_append_printf(p, "  blt r10, %d, wait\n", maxtries);
    g_string_append(p, "take:\n  load r1, lock\n  bne r1, 0, take\n  tas r1, lock\n"
                       "  bne r1, 0, take\n");
    gen_body(p, &g, words, false, 1);
    g_string_append(p, "  faa r2, done[id], 1\n  store lock, 0\n  jmp next\n"
                       "wait:\n  load r1, lock\n  bne r1, 0, wait\n  jmp retry\n"
                       "next:\n  mov r10, 0\n");
    gen_body(p, &g, words, false, 2);
    g_string_append(p, "  loop main\n  halt\n");
    const char *ver = rnd(&g, 2) ? "lazy" : "eager";
    const char *con = force_conflict ? force_conflict : rnd(&g, 3) == 0 ? "responder" : "requester";
    uint64_t size = 256u << rnd(&g, 3);                       /* 4 .. 16 lines */
    GString *y = g_string_new(NULL);
    g_string_append_printf(y, "system:\n  type: smp\n  cores: %d\ncore:\n  type: kernel-core\n"
                           "  iterations: %d\n  jitter: %d\n  program: |\n", cores,
                           10 + (int)rnd(&g, 20), (int)rnd(&g, 30));
    char **lines = g_strsplit(p->str, "\n", -1);
    for (char **l = lines; *l; l++)
        if (**l)
            g_string_append_printf(y, "    %s\n", *l);
    g_strfreev(lines);
    g_string_append_printf(y, "l1d:\n  protocol: %s\n  size: %" G_GUINT64_FORMAT "B\n"
                           "  assoc: %d\n  htm_versioning: %s\n  htm_conflict: %s\n",
                           protos[rnd(&g, 3)], size, 1 + (int)rnd(&g, 2), ver, con);
    g_string_free(p, TRUE);
    return (RandomCase){ cores, g_string_free(y, FALSE) };
}

static uint64_t sum_l1(SystemRun *r, int cores, const char *stat)
{
    uint64_t t = 0;
    for (int i = 0; i < cores; i++) {
        char *n = g_strdup_printf("l1d%d.htm.%s", i, stat);
        uint64_t v = stat_u(r, n);
        t += v == UINT64_MAX ? 0 : v;
        g_free(n);
    }
    return t;
}

static void test_random_tester(void)
{
    uint64_t commits = 0, conflicts = 0, capacity = 0, explicit_ = 0, nacks = 0, failed = 0;
    const char *env = g_getenv("HTM_SEEDS");   /* more for a soak run */
    const int seeds = env ? atoi(env) : 1000;
    for (uint64_t s = 0; s < (uint64_t)seeds; s++) {
        RandomCase c = random_case(s, NULL);
        GError *e = NULL;
        SystemRun *r = run_yaml(c.yaml, (int64_t)s + 1, &e);
        if (!r) {
            fprintf(stderr, "seed %" G_GUINT64_FORMAT " failed\n", s);
            failed++;
            g_clear_error(&e);
            g_free(c.yaml);
            continue;
        }
        commits += sum_l1(r, c.cores, "commits");
        conflicts += sum_l1(r, c.cores, "aborts.conflict");
        capacity += sum_l1(r, c.cores, "aborts.capacity");
        explicit_ += sum_l1(r, c.cores, "aborts.explicit");
        nacks += sum_l1(r, c.cores, "nacks_sent");
        system_free(r);
        g_free(c.yaml);
    }
    CU_ASSERT_EQUAL(failed, 0);
    /* the campaign reaches every kind of abort and refusal */
    CU_ASSERT_TRUE(commits > 1000);
    CU_ASSERT_TRUE(conflicts > 100);
    CU_ASSERT_TRUE(capacity > 10);
    CU_ASSERT_TRUE(explicit_ > 10);
    CU_ASSERT_TRUE(nacks > 10);
}

/* Conflict detection off: the serializability / value checks fail the run. */
static void test_random_tester_catches(void)
{
    int caught = 0;
    quiet = true;
    for (uint64_t s = 0; s < 40 && !caught; s++) {
        RandomCase c = random_case(s, "none");
        GError *e = NULL;
        SystemRun *r = run_yaml(c.yaml, (int64_t)s + 1, &e);
        if (r)
            system_free(r);
        else {
            CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
            caught++;
            g_clear_error(&e);
        }
        g_free(c.yaml);
    }
    quiet = false;
    CU_ASSERT_TRUE(caught > 0);
}

static void test_determinism(void)
{
    RandomCase c = random_case(7, NULL);
    GError *e = NULL;
    SystemRun *a = run_yaml(c.yaml, 3, &e), *b = run_yaml(c.yaml, 3, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    StatSet sa, sb;
    stats_init(&sa);
    stats_init(&sb);
    system_collect_stats(a, &sa);
    system_collect_stats(b, &sb);
    GString *ta = g_string_new(NULL), *tb = g_string_new(NULL);
    stats_format_txt(&sa, ta);
    stats_format_txt(&sb, tb);
    CU_ASSERT_STRING_EQUAL(ta->str, tb->str);
    CU_ASSERT_PTR_NOT_NULL(strstr(ta->str, "htm.commits"));
    g_string_free(ta, TRUE);
    g_string_free(tb, TRUE);
    stats_clear(&sa);
    stats_clear(&sb);
    system_free(a);
    system_free(b);
    g_free(c.yaml);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("htm", NULL, NULL);
    CU_add_test(s, "a conflict aborts the transaction (requester wins)", test_requester_wins);
    CU_add_test(s, "responder wins refuses the request until the commit", test_responder_wins);
    CU_add_test(s, "two conflicting writers serialize", test_two_writers);
    CU_add_test(s, "capacity abort", test_capacity_abort);
    CU_add_test(s, "explicit abort, nesting, xtest, lazy vs eager cost",
                test_explicit_nested_and_costs);
    CU_add_test(s, "run-time errors", test_errors);
    CU_add_test(s, "random transactional tester", test_random_tester);
    CU_add_test(s, "the tester catches missing conflict detection", test_random_tester_catches);
    CU_add_test(s, "determinism", test_determinism);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
