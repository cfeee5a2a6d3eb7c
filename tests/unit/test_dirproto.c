/* test_dirproto.c: directory protocol tables (protocols/dirproto.h) and their checker
 * (protocols/dirchecker.c): dir-msi and dir-mesi pass with 2 and 3 caches, a full bit vector and
 * one pointer with broadcast, on unordered request/response networks and a point-to-point ordered
 * forward network; deliberately broken tables, each one row edited, are caught with a
 * counterexample; the Primer's IS_D + Inv stall deadlocks once the directory broadcasts. */
#include <CUnit/Basic.h>
#include <stdarg.h>
#include <string.h>

#include "../../protocols/dirchecker.h"
#include "../../sim/error.h"

static void test_find(void)
{
    CU_ASSERT_PTR_EQUAL(dir_proto_find("dir-msi"), &dir_proto_msi);
    CU_ASSERT_PTR_EQUAL(dir_proto_find("DIR-MSI"), &dir_proto_msi);
    CU_ASSERT_PTR_EQUAL(dir_proto_find("dir-mesi"), &dir_proto_mesi);
    CU_ASSERT_PTR_NULL(dir_proto_find("msi"));
    int n = 0;
    for (const DirProtocol *const *p = dir_protocols; *p != NULL; p++)
        n++;
    CU_ASSERT_EQUAL(n, 2);
    for (int i = 0; i < DM_COUNT; i++)
        CU_ASSERT_PTR_NOT_NULL(dir_msg_names[i]);
    for (int i = 0; i < DCE_COUNT; i++)
        CU_ASSERT_PTR_NOT_NULL(dir_cache_event_names[i]);
    for (int i = 0; i < DDE_COUNT; i++)
        CU_ASSERT_PTR_NOT_NULL(dir_dir_event_names[i]);
    CU_ASSERT_EQUAL(dir_msg_vnet[DM_PUTE], DVN_REQUEST);
}

/* The sharer-set helpers the checker and the simulated directory share. */
static void test_sharers(void)
{
    DirSharers s;
    dir_sharers_clear(&s);
    dir_sharers_add(&s, 2, 1);
    CU_ASSERT_EQUAL(s.bits, 1u << 2);
    CU_ASSERT_TRUE(dir_sharers_last(&s, 2));
    CU_ASSERT_FALSE(dir_sharers_last(&s, 0));
    CU_ASSERT_EQUAL(dir_sharers_inv_targets(&s, 0, 4), 1u << 2);
    dir_sharers_add(&s, 0, 1);                     /* a second sharer: overflow */
    CU_ASSERT_TRUE(s.overflow);
    CU_ASSERT_FALSE(dir_sharers_last(&s, 2));      /* PutS is always NotLast */
    dir_sharers_remove(&s, 2);                     /* removes nothing */
    CU_ASSERT_TRUE(s.overflow);
    CU_ASSERT_EQUAL(dir_sharers_inv_targets(&s, 1, 4), 0xdu);   /* all but the requester */
    dir_sharers_clear(&s);
    CU_ASSERT_FALSE(s.overflow);
    for (int c = 0; c < 64; c++)
        dir_sharers_add(&s, c, 0);                 /* full bit vector: never overflows */
    CU_ASSERT_FALSE(s.overflow);
    CU_ASSERT_EQUAL(dir_sharers_inv_targets(&s, 63, 64), ~0ull >> 1);
}

static bool run(const DirProtocol *p, int n, int pointers, CheckerResult *res, GString *rep)
{
    bool ok = dirchecker_run(p, n, pointers, res, rep);
    if (!ok)
        fprintf(stderr, "\n%s\n", rep->str);
    return ok;
}

/* State counts and dead rows: a change here is a change of the protocol or of the checker's
 * model; docs/protocols/README.md quotes the same numbers. */
static void test_shipped_pass(void)
{
    static const struct {
        const DirProtocol *p;
        int n, pointers;
        size_t states;
        int dead;
    } cases[] = {
        { &dir_proto_msi, 2, 0, 668, 6 },    { &dir_proto_msi, 3, 0, 28710, 4 },
        { &dir_proto_msi, 2, 1, 894, 4 },    { &dir_proto_msi, 3, 1, 59622, 1 },
        { &dir_proto_mesi, 2, 0, 971, 7 },   { &dir_proto_mesi, 3, 0, 46345, 5 },
        { &dir_proto_mesi, 2, 1, 1120, 5 },  { &dir_proto_mesi, 3, 1, 75477, 2 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CheckerResult res;
        GString *rep = g_string_new(NULL);
        CU_ASSERT_TRUE(run(cases[i].p, cases[i].n, cases[i].pointers, &res, rep));
        CU_ASSERT_EQUAL(res.verdict, CHECK_PASS);
        CU_ASSERT_EQUAL(res.states, cases[i].states);
        CU_ASSERT_EQUAL(res.dead_rows, cases[i].dead);
        if (res.states != cases[i].states || res.dead_rows != cases[i].dead)
            fprintf(stderr, "\n%s: %zu states, %d dead rows\n", rep->str, res.states,
                    res.dead_rows);
        g_string_free(rep, TRUE);
    }
}

/* Every non-stall row fires with 3 caches under a full bit vector or one pointer: the rows dead
 * under one are alive under the other (broadcast-only rows; PutS-Last once the set overflows). */
static void test_no_row_dead_in_both(void)
{
    const DirProtocol *protos[] = { &dir_proto_msi, &dir_proto_mesi };
    for (size_t i = 0; i < G_N_ELEMENTS(protos); i++) {
        GString *full = g_string_new(NULL), *ptr = g_string_new(NULL);
        CU_ASSERT_TRUE(run(protos[i], 3, 0, NULL, full));
        CU_ASSERT_TRUE(run(protos[i], 3, 1, NULL, ptr));
        char **lines = g_strsplit(ptr->str, "\n", -1);
        for (char **l = lines; *l != NULL; l++)
            if (g_str_has_prefix(*l, "  cache ") || g_str_has_prefix(*l, "  directory ")) {
                bool both = strstr(full->str, *l) != NULL;
                if (both)
                    fprintf(stderr, "\n%s: dead under both: %s\n", protos[i]->name, *l);
                CU_ASSERT_FALSE(both);
            }
        g_strfreev(lines);
        g_string_free(full, TRUE);
        g_string_free(ptr, TRUE);
    }
}

/* A copy of base with the row (state, event) of the cache table (dir false) or the directory
 * table replaced by (next, actions), or deleted when next is NULL. */
typedef struct {
    DirProtocol p;
    DirRow *rows;
    ProtoState *states;     /* edited cache states, or NULL */
} Broken;

static void broken_free(Broken *b)
{
    g_free(b->states);
    g_free(b->rows);
    g_free(b);
}

static Broken *broken(const DirProtocol *base, bool dir, const char *state, int event,
                      const char *next, uint32_t actions)
{
    Broken *b = g_new0(Broken, 1);
    b->p = *base;
    b->p.name = "broken";
    int nstates = dir ? base->ndstates : base->ncstates, nrows = dir ? base->ndrows : base->ncrows;
    const DirRow *rows = dir ? base->drows : base->crows;
    int si = -1, ni = -1;
    for (int i = 0; i < nstates; i++) {
        const char *name = dir ? base->dstates[i].name : base->cstates[i].name;
        if (strcmp(name, state) == 0)
            si = i;
        if (next != NULL && strcmp(name, next) == 0)
            ni = i;
    }
    g_assert(si >= 0 && (next == NULL || ni >= 0));
    b->rows = g_new(DirRow, nrows);
    int n = 0;
    bool found = false;
    for (int i = 0; i < nrows; i++) {
        DirRow r = rows[i];
        if (r.state == si && r.event == event) {
            found = true;
            if (next == NULL)
                continue;
            r.next = (uint8_t)ni;
            r.actions = actions;
        }
        b->rows[n++] = r;
    }
    g_assert(found);
    if (dir) {
        b->p.drows = b->rows;
        b->p.ndrows = n;
    } else {
        b->p.crows = b->rows;
        b->p.ncrows = n;
    }
    return b;
}

/* b fails with 3 caches and `pointers`, with a counterexample; verdict CHECK_KINDS: any. */
static void expect_caught(Broken *b, int pointers, CheckerVerdict verdict, const char *what)
{
    CheckerResult res;
    GString *rep = g_string_new(NULL);
    bool ok = dirchecker_run(&b->p, 3, pointers, &res, rep);
    if (ok || (verdict != CHECK_KINDS && res.verdict != verdict))
        fprintf(stderr, "\nnot caught as expected: %s\n%s\n", what, rep->str);
    CU_ASSERT_FALSE(ok);
    if (verdict != CHECK_KINDS)
        CU_ASSERT_EQUAL(res.verdict, verdict);
    CU_ASSERT(res.trace_steps > 0);
    CU_ASSERT(strstr(rep->str, "counterexample") != NULL);
    g_string_free(rep, TRUE);
    broken_free(b);
}

static void test_broken_msi_caught(void)
{
    const DirProtocol *p = &dir_proto_msi;
    /* S ignores an Inv (acknowledges it but keeps its copy): stale once the writer stores */
    expect_caught(broken(p, false, "S", DCE_INV, "S", CA_INV_ACK), 0, CHECK_DATA_VALUE,
                  "S keeps its copy on Inv");
    /* counting off by one: the first of several Inv-Acks completes the store */
    expect_caught(broken(p, false, "IM_A", DCE_INV_ACK, "M", CA_COUNT_ACKS | CA_HIT), 0,
                  CHECK_KINDS, "IM_A completes on the first Inv-Ack");
    /* the owner drops a forwarded GetS instead of sending the data: stuck or stale */
    expect_caught(broken(p, false, "M", DCE_FWD_GETS, "S", 0), 0, CHECK_KINDS,
                  "M ignores Fwd-GetS");
    /* a missing row */
    expect_caught(broken(p, false, "SM_AD", DCE_INV, NULL, 0), 0, CHECK_MISSING_ROW,
                  "no SM_AD + Inv");
    /* IS_D_I uses the data it was told may be old: a load returns a value older than a store
     * that has performed */
    expect_caught(broken(p, false, "IS_D_I", DCE_DATA_DIR_ACK0, "S", CA_HIT), 0,
                  CHECK_DATA_VALUE, "IS_D_I uses Data-from-Dir");
    /* a stale Inv dropped without its ack: the GetM requester waits forever (broadcast only) */
    expect_caught(broken(p, false, "I", DCE_INV, "I", 0), 1, CHECK_STUCK, "I drops a stale Inv");
    /* the limited-pointer rule itself: without its row, the stale Inv in I is a missing row */
    expect_caught(broken(p, false, "I", DCE_INV, NULL, 0), 1, CHECK_MISSING_ROW, "no I + Inv");
}

static void test_broken_mesi_caught(void)
{
    const DirProtocol *p = &dir_proto_mesi;
    /* E + Store performs without upgrading to M: a write in a read-only state */
    expect_caught(broken(p, false, "E", DCE_STORE, "E", CA_HIT), 0, CHECK_PERM,
                  "E + Store stays E");
    /* a dirty line leaves with PutE (no data): the directory cannot take it in M */
    expect_caught(broken(p, false, "M", DCE_REPLACEMENT, "MI_A", CA_SEND_PUTE), 0,
                  CHECK_MISSING_ROW, "M replaced with PutE");
    /* E writable and a store keeping E: E must stay clean (memory current), so the checker's
     * clean-copy invariant fails at once, before any PutE could lose the value */
    Broken *b = broken(p, false, "E", DCE_STORE, "E", CA_HIT);
    b->states = g_memdup2(p->cstates, sizeof(ProtoState) * (size_t)p->ncstates);
    for (int i = 0; i < p->ncstates; i++)
        if (strcmp(b->states[i].name, "E") == 0)
            b->states[i].perm = PERM_WRITE;
    b->p.cstates = b->states;
    expect_caught(b, 0, CHECK_DATA_VALUE, "E writable, a store keeps E");
    /* PutE from the owner leaves the directory in E, still naming the departed owner */
    expect_caught(broken(p, true, "E", DDE_PUTE_OWNER, "E", DA_PUT_ACK), 0, CHECK_KINDS,
                  "PutE leaves directory E");
    /* I + GetS grants E without recording the owner: the next request has nowhere to go */
    expect_caught(broken(p, true, "I", DDE_GETS, "E", DA_DATA_TO_REQ | DA_EXCL), 0, CHECK_BUS,
                  "E granted with no owner");
    /* PutM from an owner in E (it upgraded silently) taken without its data */
    expect_caught(broken(p, true, "E", DDE_PUTM_OWNER, "I", DA_CLEAR_OWNER | DA_PUT_ACK), 0,
                  CHECK_DATA_VALUE, "PutM in E without copying the data");
    /* Exclusive-Data granted although sharers hold copies: SWMR once the E cache upgrades */
    expect_caught(broken(p, true, "S", DDE_GETS, "E",
                         DA_DATA_TO_REQ | DA_EXCL | DA_CLEAR_SHARERS | DA_SET_OWNER), 0,
                  CHECK_KINDS, "S + GetS grants E");
    /* a stale Inv in IM_AD dropped without its ack: deadlock (broadcast only) */
    expect_caught(broken(p, false, "IM_AD", DCE_INV, "IM_AD", 0), 1, CHECK_STUCK,
                  "IM_AD drops a stale Inv");
    /* IS_D_I uses Data-from-Owner as a hit: a stale load */
    expect_caught(broken(p, false, "IS_D_I", DCE_DATA_OWNER, "S", CA_HIT), 0, CHECK_DATA_VALUE,
                  "IS_D_I uses Data-from-Owner");
    /* IS_D_I discards Exclusive-Data too (the literal rule): it is the owner, so its new GetS
     * is forwarded to itself. Why dir_mesi.c makes this one row an exception. */
    expect_caught(broken(p, false, "IS_D_I", DCE_DATA_DIR_EXCL, "IS_D", CA_SEND_GETS), 1,
                  CHECK_KINDS, "IS_D_I discards Exclusive-Data");
    /* M answers Fwd-GetS without data for the directory: memory stays stale in S */
    expect_caught(broken(p, false, "M", DCE_FWD_GETS, "S", CA_DATA_TO_REQ), 0, CHECK_KINDS,
                  "M + Fwd-GetS without data to the directory");
}

/* The reason for IS_D_I: the Primer's IS_D + Inv stall is correct with a full bit vector and
 * deadlocks once the directory broadcasts (the GetM requester waits for the IS_D cache's
 * Inv-Ack; the IS_D cache's GetS is forwarded to that requester). */
static void test_is_d_stall_deadlocks_with_broadcast(void)
{
    const DirProtocol *protos[] = { &dir_proto_msi, &dir_proto_mesi };
    for (size_t i = 0; i < G_N_ELEMENTS(protos); i++) {
        Broken *b = broken(protos[i], false, "IS_D", DCE_INV, "IS_D", CA_STALL);
        CheckerResult res;
        GString *rep = g_string_new(NULL);
        CU_ASSERT_TRUE(run(&b->p, 3, 0, &res, rep));       /* full map: the Primer's way works */
        g_string_truncate(rep, 0);
        CU_ASSERT_FALSE(dirchecker_run(&b->p, 3, 1, &res, rep));
        CU_ASSERT_EQUAL(res.verdict, CHECK_STUCK);
        CU_ASSERT(strstr(rep->str, "counterexample") != NULL);
        CU_ASSERT(strstr(rep->str, "all(overflow)") != NULL);
        g_string_free(rep, TRUE);
        broken_free(b);
    }
}

static void test_malformed(void)
{
    /* a stall that moves */
    Broken *b = broken(&dir_proto_mesi, false, "IS_D", DCE_LOAD, "I", CA_STALL);
    CheckerResult res;
    CU_ASSERT_FALSE(dirchecker_run(&b->p, 2, 0, &res, NULL));
    CU_ASSERT_EQUAL(res.verdict, CHECK_MALFORMED);
    broken_free(b);
    /* DA_EXCL without data */
    b = broken(&dir_proto_mesi, true, "I", DDE_GETS, "E", DA_EXCL | DA_SET_OWNER);
    CU_ASSERT_FALSE(dirchecker_run(&b->p, 2, 0, &res, NULL));
    CU_ASSERT_EQUAL(res.verdict, CHECK_MALFORMED);
    broken_free(b);
}

static void test_markdown(void)
{
    GString *md = g_string_new(NULL);
    dirchecker_markdown(&dir_proto_mesi, md);
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "# DIR-MESI"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "`protocols/dir_mesi.c`"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "| **E** | R | yes |  | hit | hit / M | send PutE / EI_A |"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "Exclusive-Data to req, owner = req / E"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "| IS_D_I |"));
    g_string_truncate(md, 0);
    dirchecker_markdown(&dir_proto_msi, md);
    CU_ASSERT_PTR_NULL(strstr(md->str, "PutE"));         /* unused events are left out */
    CU_ASSERT_PTR_NULL(strstr(md->str, "Exclusive-Data"));
    CU_ASSERT_PTR_NOT_NULL(strstr(md->str, "| **M** | RW | yes | yes | hit | hit |"));
    g_string_free(md, TRUE);
}

/* check-protocol with up to five arguments (NULL-terminated). */
static int run_cli(const char *a1, ...)
{
    char *argv[7] = { (char *)"check-protocol", (char *)a1 };
    int argc = a1 != NULL ? 2 : 1;
    va_list ap;
    va_start(ap, a1);
    for (const char *a; a1 != NULL && argc < 6 && (a = va_arg(ap, const char *)) != NULL;)
        argv[argc++] = (char *)a;
    va_end(ap);
    return checker_cli_main(argc, argv);
}

static void test_cli(void)
{
    CU_ASSERT_EQUAL(run_cli("--caches", "2", "dir-mesi", NULL), ARCHSIM_EXIT_OK);
    CU_ASSERT_EQUAL(run_cli("--caches", "3", "--pointers", "1", "dir-msi", NULL), ARCHSIM_EXIT_OK);
    CU_ASSERT_EQUAL(run_cli("--markdown", "dir-mesi", NULL), ARCHSIM_EXIT_OK);
    CU_ASSERT_EQUAL(run_cli("--pointers", "1", "msi", NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("--pointers", "-1", "dir-msi", NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("--pointers", "65", "dir-msi", NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("dir-mes", NULL), ARCHSIM_EXIT_USAGE);
    CU_ASSERT_EQUAL(run_cli("--caches", "4", "dir-msi", NULL), ARCHSIM_EXIT_USAGE);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("dirproto", NULL, NULL);
    CU_add_test(s, "find and names", test_find);
    CU_add_test(s, "sharer sets: bit vector, limited pointers, broadcast", test_sharers);
    CU_add_test(s, "dir-msi, dir-mesi pass: 2/3 caches, pointers 0/1", test_shipped_pass);
    CU_add_test(s, "every row fires under full map or broadcast", test_no_row_dead_in_both);
    CU_add_test(s, "broken dir-msi tables are caught", test_broken_msi_caught);
    CU_add_test(s, "broken dir-mesi tables are caught", test_broken_mesi_caught);
    CU_add_test(s, "IS_D + Inv stall deadlocks with broadcast",
                test_is_d_stall_deadlocks_with_broadcast);
    CU_add_test(s, "malformed tables", test_malformed);
    CU_add_test(s, "markdown", test_markdown);
    CU_add_test(s, "check-protocol dir-* command line", test_cli);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return fails == 0 ? 0 : 1;
}
