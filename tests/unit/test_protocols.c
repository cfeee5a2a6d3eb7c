/* test_protocols.c: the snooping tables (protocols/) and their checker: MSI, MESI and MOESI pass
 * with 2 and 3 caches with every row firing; each broken table of broken_protocols.h is caught with
 * the right verdict and a counterexample; the row index rejects duplicates; the Markdown and the
 * command line (exit codes 0, 3, 64).
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../protocols/checker.h"
#include "../../protocols/protocol.h"
#include "../../sim/error.h"
#include "broken_protocols.h"

/* Reachable states of the shipped tables, as docs/protocols/README.md lists them: a change here
 * is a change of the protocol or of the checker's model, so update both together. */
static const struct { const char *name; size_t states2, states3; } golden[] = {
    { "msi", 177, 2240 },
    { "mesi", 163, 2207 },
    { "moesi", 235, 3725 },
};

static void test_event_names(void)
{
    CU_ASSERT_STRING_EQUAL(proto_event_names[EV_LOAD], "Load");
    CU_ASSERT_STRING_EQUAL(proto_event_names[EV_OWN_GETS], "Own_GETS");
    CU_ASSERT_STRING_EQUAL(proto_event_names[EV_DATA_EXCL], "Data_Exclusive");
    CU_ASSERT_STRING_EQUAL(proto_event_names[EV_OTHER_PUTM], "Other_PUTM");
    for (int e = 0; e < EV_COUNT; e++)
        CU_ASSERT_PTR_NOT_NULL(proto_event_names[e]);
}

static void test_find_and_state_index(void)
{
    CU_ASSERT_PTR_EQUAL(proto_find("msi"), &proto_msi);
    CU_ASSERT_PTR_EQUAL(proto_find("MESI"), &proto_mesi);
    CU_ASSERT_PTR_EQUAL(proto_find("moesi"), &proto_moesi);
    CU_ASSERT_PTR_NULL(proto_find("mosi"));
    int n = 0;
    for (const ProtoTable *const *t = proto_tables; *t != NULL; t++, n++) {
        CU_ASSERT_EQUAL(proto_state_index(*t, "I"), (*t)->initial);
        CU_ASSERT_EQUAL(proto_state_index(*t, "IS_AD") >= 0, true);
        CU_ASSERT_EQUAL(proto_state_index(*t, "nope"), -1);
    }
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(proto_state_index(&proto_msi, "E"), -1);
    CU_ASSERT(proto_state_index(&proto_mesi, "E") >= 0);
    CU_ASSERT(proto_state_index(&proto_moesi, "O") >= 0);
}

static void test_index_rejects_duplicates(void)
{
    static const ProtoState st[] = {
        { "I", PERM_NONE, false, false, true }, { "S", PERM_READ, true, false, true },
    };
    static const ProtoRow dup[] = {
        { 0, EV_LOAD, 1, ACT_HIT }, { 1, EV_LOAD, 1, ACT_HIT }, { 0, EV_LOAD, 0, ACT_STALL },
    };
    ProtoTable t = { "dup", "two rows for I + Load", st, 2, 0, dup, 3 };
    ProtoIndex ix;
    char *problem = NULL;
    CU_ASSERT_FALSE(proto_index_build(&t, &ix, &problem));
    CU_ASSERT_PTR_NOT_NULL_FATAL(problem);
    CU_ASSERT_PTR_NOT_NULL(strstr(problem, "I + Load"));
    g_free(problem);
    problem = NULL;

    static const ProtoRow out_of_range[] = { { 0, EV_LOAD, 7, ACT_HIT } };
    ProtoTable t2 = { "oor", "next state out of range", st, 2, 0, out_of_range, 1 };
    CU_ASSERT_FALSE(proto_index_build(&t2, &ix, &problem));
    CU_ASSERT_PTR_NOT_NULL(problem);
    g_free(problem);

    /* the checker reports such a table as malformed, with no counterexample */
    CheckerResult res;
    GString *rep = g_string_new(NULL);
    CU_ASSERT_FALSE(checker_run(&t, 2, &res, rep));
    CU_ASSERT_EQUAL(res.verdict, CHECK_MALFORMED);
    CU_ASSERT_EQUAL(res.trace_steps, 0);
    g_string_free(rep, TRUE);

    /* and every shipped table indexes, with lookups matching its rows */
    for (const ProtoTable *const *p = proto_tables; *p != NULL; p++) {
        problem = NULL;
        CU_ASSERT_TRUE_FATAL(proto_index_build(*p, &ix, &problem));
        for (int r = 0; r < (*p)->nrows; r++)
            CU_ASSERT_EQUAL(proto_lookup(&ix, (*p)->rows[r].state, (*p)->rows[r].event), r);
        proto_index_free(&ix);
        CU_ASSERT_PTR_NULL(ix.cell);
    }
}

static void test_shipped_pass(void)
{
    for (size_t g = 0; g < G_N_ELEMENTS(golden); g++) {
        const ProtoTable *t = proto_find(golden[g].name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (int n = 2; n <= 3; n++) {
            CheckerResult res;
            GString *rep = g_string_new(NULL);
            bool ok = checker_run(t, n, &res, rep);
            printf("%s", rep->str);
            CU_ASSERT_TRUE(ok);
            CU_ASSERT_EQUAL(res.verdict, CHECK_PASS);
            CU_ASSERT_EQUAL(res.ncaches, n);
            CU_ASSERT_EQUAL(res.trace_steps, 0);
            CU_ASSERT_EQUAL(res.rows, t->nrows);
            CU_ASSERT_EQUAL(res.states, n == 2 ? golden[g].states2 : golden[g].states3);
            CU_ASSERT(res.transitions > res.states);
            /* with 3 caches every row fires: the tables hold no impossible row */
            if (n == 3)
                CU_ASSERT_EQUAL(res.dead_rows, 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(rep->str, "pass"));
            g_string_free(rep, TRUE);
        }
    }
}

/* Stable states have every processor event; transient ones stall or hit, never vanish. */
static void test_shipped_shape(void)
{
    for (const ProtoTable *const *p = proto_tables; *p != NULL; p++) {
        const ProtoTable *t = *p;
        ProtoIndex ix;
        char *problem = NULL;
        CU_ASSERT_TRUE_FATAL(proto_index_build(t, &ix, &problem));
        for (int s = 0; s < t->nstates; s++) {
            CU_ASSERT(proto_lookup(&ix, s, EV_LOAD) >= 0);
            CU_ASSERT(proto_lookup(&ix, s, EV_STORE) >= 0);
            if (s != t->initial)
                CU_ASSERT(proto_lookup(&ix, s, EV_REPLACEMENT) >= 0);
        }
        /* the cells the brief names */
        int is_d = proto_state_index(t, "IS_D"), ii_a = proto_state_index(t, "II_A");
        int r = proto_lookup(&ix, is_d, EV_DATA);
        CU_ASSERT_FATAL(r >= 0);
        CU_ASSERT_EQUAL(t->rows[r].next, proto_state_index(t, "S"));
        CU_ASSERT_EQUAL(t->rows[r].actions, ACT_HIT);
        r = proto_lookup(&ix, ii_a, EV_OWN_PUTM);
        CU_ASSERT_FATAL(r >= 0);
        CU_ASSERT_EQUAL(t->rows[r].next, t->initial);
        CU_ASSERT_EQUAL(t->rows[r].actions & ACT_WRITEBACK, 0);
        proto_index_free(&ix);
    }
}

static void test_broken_caught(void)
{
    for (size_t k = 0; k < G_N_ELEMENTS(broken_specs); k++) {
        const BrokenSpec *spec = &broken_specs[k];
        BrokenTable *b = broken_table_new(spec);
        for (int n = 2; n <= 3; n++) {
            CheckerResult res;
            GString *rep = g_string_new(NULL);
            bool ok = checker_run(&b->t, n, &res, rep);
            printf("--- %s (%s)\n%s", spec->name, spec->bug, rep->str);
            CU_ASSERT_FALSE(ok);
            if (res.verdict != spec->expect)
                printf("!!! %s with %d caches: expected '%s', got '%s'\n", spec->name, n,
                       checker_verdict_names[spec->expect], checker_verdict_names[res.verdict]);
            CU_ASSERT_EQUAL(res.verdict, spec->expect);
            if (spec->expect == CHECK_MALFORMED) {
                CU_ASSERT_EQUAL(res.trace_steps, 0);
            } else {
                CU_ASSERT(res.trace_steps > 0);
                CU_ASSERT_PTR_NOT_NULL(strstr(rep->str, "counterexample ("));
                CU_ASSERT_PTR_NOT_NULL(strstr(rep->str, "   1. "));
                CU_ASSERT_PTR_NOT_NULL(strstr(rep->str, "!! "));
            }
            CU_ASSERT_PTR_NOT_NULL(strstr(rep->str, checker_verdict_names[spec->expect]));
            g_string_free(rep, TRUE);
        }
        broken_table_free(b);
    }
}

/* A missing row reports the state and event, and the shortest trace: for the SM_AD + Other_GETM
 * race, C1 asks for M while C0 loads (4 steps), then upgrades, and C1's GetM is ordered. */
static void test_missing_row_trace(void)
{
    BrokenTable *b = broken_table_new(&broken_specs[3]);
    CU_ASSERT_STRING_EQUAL(b->t.name, "msi_no_sm_ad_getm");
    CheckerResult res;
    GString *rep = g_string_new(NULL);
    CU_ASSERT_FALSE(checker_run(&b->t, 2, &res, rep));
    CU_ASSERT_EQUAL(res.verdict, CHECK_MISSING_ROW);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep->str, "no row for SM_AD + Other_GETM"));
    CU_ASSERT_EQUAL(res.trace_steps, 6);
    g_string_free(rep, TRUE);
    broken_table_free(b);
}

static void test_markdown(void)
{
    for (const ProtoTable *const *p = proto_tables; *p != NULL; p++) {
        const ProtoTable *t = *p;
        GString *md = g_string_new(NULL);
        checker_markdown(t, md);
        char **lines = g_strsplit(md->str, "\n", -1);
        int table_lines = 0;
        for (char **l = lines; *l != NULL; l++)
            if (g_str_has_prefix(*l, "| "))
                table_lines++;
        CU_ASSERT_EQUAL(table_lines, t->nstates + 1);     /* the header and a row per state */
        for (int s = 0; s < t->nstates; s++) {
            const ProtoState *ps = &t->states[s];
            char *want = g_strdup_printf(ps->stable ? "| **%s** |" : "| %s |", ps->name);
            int found = 0;
            for (char **l = lines; *l != NULL; l++)
                found += g_str_has_prefix(*l, want);
            CU_ASSERT_EQUAL(found, 1);
            g_free(want);
        }
        for (int e = 0; e < EV_COUNT; e++)
            CU_ASSERT_PTR_NOT_NULL(strstr(md->str, proto_event_names[e]));
        g_strfreev(lines);
        g_string_free(md, TRUE);
    }
    GString *md = g_string_new(NULL);
    checker_markdown(&proto_msi, md);
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "| issue GetS / IS_AD |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "| send data, write back, shared / S |"));
    g_string_free(md, TRUE);
}

static int run_cli(const char *a1, const char *a2, const char *a3)
{
    char *argv[] = { (char *)"check-protocol", (char *)a1, (char *)a2, (char *)a3, NULL };
    int argc = 1 + (a1 != NULL) + (a2 != NULL) + (a3 != NULL);
    return checker_cli_main(argc, argv);
}

static void test_cli(void)
{
    CU_ASSERT_EQUAL(run_cli("msi", NULL, NULL), ARCHSIM_EXIT_OK);
    CU_ASSERT_EQUAL(run_cli("--caches", "2", "moesi"), ARCHSIM_EXIT_OK);
    CU_ASSERT_EQUAL(run_cli("--caches", "4", "msi"), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("mesii", NULL, NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli(NULL, NULL, NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("msi", "mesi", NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("--bogus", "msi", NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("--markdown", "mesi", NULL), ARCHSIM_EXIT_OK);
    CU_ASSERT_EQUAL(run_cli("--help", NULL, NULL), ARCHSIM_EXIT_OK);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("protocols", NULL, NULL);
    CU_add_test(s, "event names", test_event_names);
    CU_add_test(s, "proto_find and proto_state_index", test_find_and_state_index);
    CU_add_test(s, "index rejects duplicate and out-of-range rows", test_index_rejects_duplicates);
    CU_add_test(s, "msi, mesi, moesi pass with 2 and 3 caches", test_shipped_pass);
    CU_add_test(s, "shipped tables: processor events, IS_D and II_A cells", test_shipped_shape);
    CU_add_test(s, "every broken table is caught", test_broken_caught);
    CU_add_test(s, "missing row: message and shortest trace", test_missing_row_trace);
    CU_add_test(s, "markdown has a row per state", test_markdown);
    CU_add_test(s, "check-protocol command line", test_cli);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f != 0;
}
