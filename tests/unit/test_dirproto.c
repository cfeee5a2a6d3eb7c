/* test_dirproto.c: directory protocol tables (protocols/dirproto.h) and their checker
 * (protocols/dirchecker.c): the Primer's directory MSI passes with 2 and 3 caches on unordered
 * request/response networks and a point-to-point ordered forward network; deliberately broken
 * tables, built from it by editing one row, are caught with a counterexample. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../protocols/dirchecker.h"

static void test_find(void)
{
    CU_ASSERT_PTR_EQUAL(dir_proto_find("dir-msi"), &dir_proto_msi);
    CU_ASSERT_PTR_EQUAL(dir_proto_find("DIR-MSI"), &dir_proto_msi);
    CU_ASSERT_PTR_NULL(dir_proto_find("msi"));
}

static void test_dir_msi_passes(void)
{
    static const uint64_t expect_states[4] = { 0, 0, 592, 18912 };
    for (int n = 2; n <= 3; n++) {
        CheckerResult res;
        GString *rep = g_string_new(NULL);
        bool ok = dirchecker_run(&dir_proto_msi, n, &res, rep);
        if (!ok)
            fprintf(stderr, "\n%s\n", rep->str);
        CU_ASSERT_TRUE(ok);
        CU_ASSERT_EQUAL(res.verdict, CHECK_PASS);
        CU_ASSERT_EQUAL(res.states, expect_states[n]);
        g_string_free(rep, TRUE);
    }
}

/* A copy of dir-msi with the cache row (state, event) replaced (next, actions), or deleted when
 * del is set. */
static DirProtocol *broken(const char *state, int event, const char *next, uint16_t actions,
                           bool del, DirRow **rows_out)
{
    const DirProtocol *p = &dir_proto_msi;
    DirProtocol *b = g_new(DirProtocol, 1);
    *b = *p;
    DirRow *rows = g_new(DirRow, p->ncrows);
    int n = 0, si = -1, ni = -1;
    for (int i = 0; i < p->ncstates; i++) {
        if (strcmp(p->cstates[i].name, state) == 0)
            si = i;
        if (next && strcmp(p->cstates[i].name, next) == 0)
            ni = i;
    }
    g_assert(si >= 0);
    bool found = false;
    for (int i = 0; i < p->ncrows; i++) {
        DirRow r = p->crows[i];
        if (r.state == si && r.event == event) {
            found = true;
            if (del)
                continue;
            r.next = (uint8_t)ni;
            r.actions = actions;
        }
        rows[n++] = r;
    }
    g_assert(found);
    b->crows = rows;
    b->ncrows = n;
    b->name = "broken";
    *rows_out = rows;
    return b;
}

static void expect_caught(DirProtocol *b, DirRow *rows, const char *what)
{
    CheckerResult res;
    GString *rep = g_string_new(NULL);
    bool ok = dirchecker_run(b, 3, &res, rep);
    if (ok)
        fprintf(stderr, "\nnot caught: %s\n", what);
    CU_ASSERT_FALSE(ok);
    CU_ASSERT_NOT_EQUAL(res.verdict, CHECK_PASS);
    CU_ASSERT(res.trace_steps > 0);
    CU_ASSERT(strstr(rep->str, "counterexample") != NULL);
    g_string_free(rep, TRUE);
    g_free(rows);
    g_free(b);
}

static void test_broken_tables_caught(void)
{
    DirRow *rows;
    DirProtocol *b;
    /* S ignores an Inv (acknowledges it but keeps reading): SWMR */
    b = broken("S", DCE_INV, "S", CA_INV_ACK, false, &rows);
    expect_caught(b, rows, "S keeps its copy on Inv");
    /* counting off by one: the first of several Inv-Acks completes the store */
    b = broken("IM_A", DCE_INV_ACK, "M", CA_COUNT_ACKS | CA_HIT, false, &rows);
    expect_caught(b, rows, "IM_A completes on the first Inv-Ack");
    /* the owner drops a forwarded GetS instead of sending the data: stuck or stale */
    b = broken("M", DCE_FWD_GETS, "S", 0, false, &rows);
    expect_caught(b, rows, "M ignores Fwd-GetS");
    /* a missing row */
    b = broken("SM_AD", DCE_INV, NULL, 0, true, &rows);
    expect_caught(b, rows, "no SM_AD + Inv");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("dirproto", NULL, NULL);
    CU_add_test(s, "find", test_find);
    CU_add_test(s, "dir-msi passes with 2 and 3 caches", test_dir_msi_passes);
    CU_add_test(s, "broken tables are caught", test_broken_tables_caught);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return fails == 0 ? 0 : 1;
}
