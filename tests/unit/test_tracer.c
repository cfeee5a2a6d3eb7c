/* test_tracer.c: CUnit tests for the recording runtime (tools/tracer/), tools/archsim-cc and
 * `archsim trace record` (traces/atrace_record.c).
 *
 * Builds tests/unit/data/tracer/probe.c with tools/archsim-cc (gcc; clang too when installed),
 * runs it with and without ARCHSIM_TRACE_OUT, and reads every stream back with at_reader_*:
 * exact record sequences for a loop, the atomics, locks, barriers, condition variables, thread
 * create/join, ROI markers and memcpy ranges. Run from the repo root. gcc's -fsanitize=thread
 * is required: without it the build test fails (with the compiler's message), it never skips.
 * The suite "workload directory" checks what a replay accepts as a recording (issue 15 item 9):
 * synthetic directories with a missing, misnamed or orphan thread file, a bad create or join,
 * or a manifest.yaml that does not match its files, each refused with its position.
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../traces/atrace.h"
#include "../../traces/atrace_record.h"

#define PROBE_SRC "tests/unit/data/tracer/probe.c"
#define PROBE_N 1000            /* PR_N in probe.c */
#define PROBE_THREADS 4

/* One compiler's build and runs of the probe. */
typedef struct {
    const char *cc;             /* "gcc", "clang" */
    char *bin;
    bool built;
    char *plain_out;            /* stdout without recording */
    bool traced;                /* the recorded run exited 0 */
    char *traced_out;
    char *trace_dir;
    GHashTable *addr;           /* "pr_a" -> address (guint64 *) from the probe's stderr */
    GArray *rec[PROBE_THREADS]; /* AtRecord per thread */
    AtHeader hdr[PROBE_THREADS];
} TtCase;

static char *tt_dir;
static TtCase tt_cases[2] = { { .cc = "gcc" }, { .cc = "clang" } };
static TtCase *tt;              /* the case the running suite tests */

/* Runs argv (in dir if not NULL) with extra "NAME=VALUE" settings (value NULL: unset); returns
 * the exit status, or -1 if it could not start; stdout/stderr returned if asked. */
static int tt_spawn(char **argv, const char *dir, const char *const *env, char **out, char **err)
{
    char **envp = g_get_environ();
    for (int i = 0; env != NULL && env[i] != NULL; i += 2)
        envp = env[i + 1] ? g_environ_setenv(envp, env[i], env[i + 1], TRUE)
                          : g_environ_unsetenv(envp, env[i]);
    int status = 0;
    GError *e = NULL;
    char *o = NULL, *r = NULL;
    bool ok = g_spawn_sync(dir, argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &o, &r, &status, &e);
    g_strfreev(envp);
    if (!ok) {
        fprintf(stderr, "test_tracer: cannot run %s: %s\n", argv[0], e->message);
        g_error_free(e);
        return -1;
    }
    if (out != NULL)
        *out = o;
    else
        g_free(o);
    if (err != NULL)
        *err = r;
    else {
        if (r != NULL && *r != '\0')
            fprintf(stderr, "%s", r);
        g_free(r);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool tt_have(const char *prog)
{
    char *p = g_find_program_in_path(prog);
    g_free(p);
    return p != NULL;
}

static uint64_t tt_addr(const char *name)
{
    const guint64 *v = tt->addr != NULL ? g_hash_table_lookup(tt->addr, name) : NULL;
    if (v == NULL)
        g_error("probe did not print the address of %s", name);
    return *v;
}

/* "addr name=0x... name=0x..." from the probe's stderr. */
static GHashTable *tt_parse_addrs(const char *err)
{
    GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    const char *line = strstr(err, "addr ");
    if (line == NULL)
        return h;
    char *copy = g_strndup(line + 5, strcspn(line + 5, "\n"));
    char **words = g_strsplit(copy, " ", -1);
    for (int i = 0; words[i] != NULL; i++) {
        char *eq = strchr(words[i], '=');
        if (eq == NULL)
            continue;
        guint64 *v = g_new(guint64, 1);
        *v = g_ascii_strtoull(eq + 1, NULL, 16);
        g_hash_table_insert(h, g_strndup(words[i], (gsize)(eq - words[i])), v);
    }
    g_strfreev(words);
    g_free(copy);
    return h;
}

static GArray *tt_read(const char *path, AtHeader *hdr)
{
    GError *e = NULL;
    AtReader *r = at_reader_open(path, &e);
    if (r == NULL) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        return NULL;
    }
    *hdr = *at_reader_header(r);
    GArray *a = g_array_new(FALSE, FALSE, sizeof(AtRecord));
    AtRecord buf[1024];
    size_t n;
    while ((n = at_reader_read(r, buf, G_N_ELEMENTS(buf), &e)) > 0)
        g_array_append_vals(a, buf, (guint)n);
    at_reader_close(r);
    if (e != NULL) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        g_array_free(a, TRUE);
        return NULL;
    }
    return a;
}

static const AtRecord *tt_rec(int tid, guint i)
{
    return &g_array_index(tt->rec[tid], AtRecord, i);
}

/* Builds the probe and runs it twice; the tests below check what came out. */
static void tt_prepare(TtCase *c)
{
    c->bin = g_strdup_printf("%s/probe-%s", tt_dir, c->cc);
    char *argv[] = { "tools/archsim-cc", "-O1", "-g", "-pthread", PROBE_SRC, "-o", c->bin, NULL };
    const char *env[] = { "ARCHSIM_CC", c->cc, NULL };
    char *err = NULL;
    int rc = tt_spawn(argv, NULL, env, NULL, &err);
    c->built = rc == 0;
    if (!c->built)
        fprintf(stderr, "test_tracer: tools/archsim-cc with %s failed (status %d):\n%s\n", c->cc,
                rc, err ? err : "");
    g_free(err);
    if (!c->built)
        return;

    /* without ARCHSIM_TRACE_OUT, in an empty directory */
    char *quiet_dir = g_strdup_printf("%s/quiet-%s", tt_dir, c->cc);
    g_mkdir(quiet_dir, 0755);
    char *run[] = { c->bin, NULL };
    const char *unset[] = { "ARCHSIM_TRACE_OUT", NULL, NULL };
    if (tt_spawn(run, quiet_dir, unset, &c->plain_out, &err) != 0) {
        g_free(c->plain_out);
        c->plain_out = NULL;
    }
    g_free(err);
    g_free(quiet_dir);

    c->trace_dir = g_strdup_printf("%s/trace-%s", tt_dir, c->cc);
    const char *set[] = { "ARCHSIM_TRACE_OUT", c->trace_dir, NULL };
    c->traced = tt_spawn(run, NULL, set, &c->traced_out, &err) == 0;
    c->addr = tt_parse_addrs(err ? err : "");
    g_free(err);
    for (int t = 0; t < PROBE_THREADS && c->traced; t++) {
        char *p = g_strdup_printf("%s/T%d.trace", c->trace_dir, t);
        c->rec[t] = tt_read(p, &c->hdr[t]);
        g_free(p);
    }
}

static int tt_suite_init_gcc(void)
{
    tt = &tt_cases[0];
    tt_prepare(tt);
    return 0;
}

static int tt_suite_init_clang(void)
{
    tt = &tt_cases[1];
    tt_prepare(tt);
    return 0;
}

/* The data every test needs; a failed build fails each test, loudly, rather than skipping. */
static bool tt_ready(void)
{
    CU_ASSERT_TRUE(tt->built);
    CU_ASSERT_TRUE(tt->traced);
    for (int t = 0; t < PROBE_THREADS; t++)
        CU_ASSERT_PTR_NOT_NULL(tt->rec[t]);
    if (!tt->built || !tt->traced)
        return false;
    for (int t = 0; t < PROBE_THREADS; t++)
        if (tt->rec[t] == NULL)
            return false;
    return true;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_build(void)
{
    CU_ASSERT_TRUE_FATAL(tt->built);
    /* the link must not pull libtsan: only the runtime's own hooks */
    char *argv[] = { "ldd", tt->bin, NULL };
    char *out = NULL;
    CU_ASSERT_EQUAL(tt_spawn(argv, NULL, NULL, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NULL(strstr(out, "tsan"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "libz"));
    g_free(out);
}

static void test_output_unchanged(void)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(tt->plain_out);
    CU_ASSERT_TRUE_FATAL(tt->traced);
    CU_ASSERT_STRING_EQUAL(tt->plain_out, tt->traced_out);
    CU_ASSERT_PTR_NOT_NULL(strstr(tt->plain_out, "probe sum=499500 shared=5 leaf=42"));
    /* and without ARCHSIM_TRACE_OUT nothing was written */
    char *quiet_dir = g_strdup_printf("%s/quiet-%s", tt_dir, tt->cc);
    GDir *d = g_dir_open(quiet_dir, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NULL(g_dir_read_name(d));
    g_dir_close(d);
    g_free(quiet_dir);
}

static void test_threads_and_headers(void)
{
    if (!tt_ready())
        return;
    static const int parent[PROBE_THREADS] = { -1, 0, 0, 1 };
    char *frontend = g_strdup_printf("tsan-%s", tt->cc);
    for (int t = 0; t < PROBE_THREADS; t++) {
        const AtHeader *h = &tt->hdr[t];
        CU_ASSERT_EQUAL(h->tid, (uint32_t)t);
        CU_ASSERT_EQUAL(h->parent, parent[t]);
        CU_ASSERT_STRING_EQUAL(h->frontend, frontend);
        CU_ASSERT_TRUE(g_str_has_prefix(h->compiler, tt->cc));
        CU_ASSERT_PTR_NOT_NULL(strstr(h->cflags, "-O1 -g -pthread"));
        CU_ASSERT_EQUAL(h->flags & (AT_H_GAPS_EXACT | AT_H_HAS_GAPS), 0u);
        CU_ASSERT_EQUAL(h->load_base, tt->hdr[0].load_base);
        CU_ASSERT_NOT_EQUAL(h->load_base, 0);        /* PIE */
        for (guint i = 0; i < tt->rec[t]->len; i++) {
            CU_ASSERT_TRUE(tt_rec(t, i)->pc > h->load_base);
            CU_ASSERT_EQUAL(tt_rec(t, i)->gap, 0);
        }
    }
    g_free(frontend);
    /* exactly four streams, and the manifest agrees with them record for record */
    char *t4 = g_strdup_printf("%s/T4.trace", tt->trace_dir);
    CU_ASSERT_FALSE(g_file_test(t4, G_FILE_TEST_EXISTS));
    g_free(t4);
    AtRecordSummary s;
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(atrace_record_check(tt->trace_dir, true, &s, &e));
    CU_ASSERT_EQUAL(s.threads, PROBE_THREADS);
    uint64_t total = 0;
    for (int t = 0; t < PROBE_THREADS; t++)
        total += tt->rec[t]->len;
    CU_ASSERT_EQUAL(s.records, total);
    CU_ASSERT_EQUAL(s.exit_status, 0);
    CU_ASSERT_TRUE(g_str_has_prefix(s.compiler, tt->cc));
    atrace_record_summary_clear(&s);
}

/* tid 1: the loop pr_a[i] = pr_a[i] * 3 + i is exactly PROBE_N 8-byte loads and stores. */
static void test_loop_counts(void)
{
    if (!tt_ready())
        return;
    uint64_t a = tt_addr("pr_a"), end = a + 8 * PROBE_N;
    unsigned loads = 0, stores = 0;
    uint64_t next_load = a, next_store = a;
    for (guint i = 0; i < tt->rec[1]->len; i++) {
        const AtRecord *r = tt_rec(1, i);
        if (r->addr < a || r->addr >= end || (r->kind != AT_LOAD && r->kind != AT_STORE))
            continue;
        CU_ASSERT_EQUAL(r->size, 8);
        if (r->kind == AT_LOAD) {
            CU_ASSERT_EQUAL(r->addr, next_load);
            CU_ASSERT_EQUAL(next_load, next_store);      /* load i before store i */
            next_load += 8;
            loads++;
        } else {
            CU_ASSERT_EQUAL(r->addr, next_store);
            next_store += 8;
            stores++;
        }
    }
    CU_ASSERT_EQUAL(loads, PROBE_N);
    CU_ASSERT_EQUAL(stores, PROBE_N);
    /* no other thread touches pr_a, except main summing it after the joins */
    for (int t = 2; t < PROBE_THREADS; t++)
        for (guint i = 0; i < tt->rec[t]->len; i++)
            CU_ASSERT_FALSE(tt_rec(t, i)->addr >= a && tt_rec(t, i)->addr < end);
}

/* tid 2: the atomics of pr_atomics(), in order, with their orders and outcomes. */
static void test_atomics(void)
{
    if (!tt_ready())
        return;
    uint64_t x = tt_addr("pr_x");
    const AtRecord want[] = {
        { .kind = AT_RMW, .op = AT_OP_ADD, .mo = AT_MO_RELAXED, .size = 8, .addr = x },
        { .kind = AT_RMW, .op = AT_OP_SUB, .mo = AT_MO_RELEASE, .size = 8, .addr = x },
        { .kind = AT_RMW, .op = AT_OP_OR, .mo = AT_MO_ACQUIRE, .size = 8, .addr = x },
        { .kind = AT_RMW, .op = AT_OP_AND, .mo = AT_MO_ACQ_REL, .size = 8, .addr = x },
        { .kind = AT_RMW, .op = AT_OP_XOR, .mo = AT_MO_SEQ_CST, .size = 8, .addr = x },
        { .kind = AT_RMW, .op = AT_OP_XCHG, .mo = AT_MO_ACQUIRE, .size = 8, .addr = x },
        { .kind = AT_RMW, .op = AT_OP_XCHG, .mo = AT_MO_ACQUIRE, .size = 8, .addr = x,
          .flags = AT_F_UNCHANGED },
        { .kind = AT_CAS_OK, .mo = AT_MO_ACQ_REL, .mo_fail = AT_MO_ACQUIRE, .size = 8, .addr = x },
        { .kind = AT_CAS_FAIL, .mo = AT_MO_SEQ_CST, .mo_fail = AT_MO_RELAXED, .size = 8,
          .addr = x },
        { .kind = AT_CAS_OK, .mo = AT_MO_RELEASE, .mo_fail = AT_MO_RELAXED, .size = 8, .addr = x },
        { .kind = AT_ALOAD, .mo = AT_MO_ACQUIRE, .size = 8, .addr = x },
        { .kind = AT_ASTORE, .mo = AT_MO_RELEASE, .size = 8, .addr = x },
        { .kind = AT_FENCE, .mo = AT_MO_SEQ_CST },
        { .kind = AT_RMW, .op = AT_OP_ADD, .mo = AT_MO_RELAXED, .size = 1,
          .addr = tt_addr("pr_x8") },
        { .kind = AT_FENCE, .mo = AT_MO_ACQUIRE },
        { .kind = AT_RMW, .op = AT_OP_ADD, .mo = AT_MO_RELAXED, .size = 2,
          .addr = tt_addr("pr_x16") },
        { .kind = AT_FENCE, .mo = AT_MO_RELEASE },
        { .kind = AT_RMW, .op = AT_OP_NAND, .mo = AT_MO_RELAXED, .size = 8,
          .addr = tt_addr("pr_nand") },
    };
    guint k = 0;
    for (guint i = 0; i < tt->rec[2]->len; i++) {
        const AtRecord *r = tt_rec(2, i);
        if (r->kind < AT_ALOAD || r->kind > AT_FENCE)
            continue;
        CU_ASSERT_TRUE_FATAL(k < G_N_ELEMENTS(want));
        const AtRecord *w = &want[k++];
        CU_ASSERT_EQUAL(r->kind, w->kind);
        CU_ASSERT_EQUAL(r->op, w->op);
        CU_ASSERT_EQUAL(r->mo, w->mo);
        CU_ASSERT_EQUAL(r->mo_fail, w->mo_fail);
        CU_ASSERT_EQUAL(r->flags, w->flags);
        CU_ASSERT_EQUAL(r->size, w->size);
        CU_ASSERT_EQUAL(r->addr, w->addr);
        if (r->kind != w->kind || r->mo != w->mo)
            fprintf(stderr, "atomic %u: got %s mo %d, want %s mo %d\n", k - 1,
                    at_kind_name(r->kind), r->mo, at_kind_name(w->kind), w->mo);
    }
    CU_ASSERT_EQUAL(k, G_N_ELEMENTS(want));
}

/* The marker records of one thread (no plain accesses or atomics), as "KIND:arg" words. */
static char *tt_markers(int tid)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < tt->rec[tid]->len; i++) {
        const AtRecord *r = tt_rec(tid, i);
        if (r->kind < AT_LOCK_ACQ && r->kind != AT_RANGE_R && r->kind != AT_RANGE_W)
            continue;
        g_string_append_printf(s, "%s%s", s->len ? " " : "", at_kind_name(r->kind));
        if (r->kind == AT_LOCK_ACQ || r->kind == AT_LOCK_REL || r->kind == AT_COND_WAIT ||
            r->kind == AT_COND_SIGNAL || r->kind == AT_BARRIER || r->kind == AT_RANGE_R ||
            r->kind == AT_RANGE_W) {
            const char *names[] = { "pr_mu", "pr_m2", "pr_cv", "pr_bar", "pr_src", "pr_dst",
                                    "pr_buf" };
            const char *n = "?";
            for (size_t k = 0; k < G_N_ELEMENTS(names); k++)
                if (tt_addr(names[k]) == r->addr)
                    n = names[k];
            g_string_append_printf(s, "@%s", n);
        }
        if (r->kind == AT_BARRIER || r->kind == AT_CREATE || r->kind == AT_JOIN ||
            r->kind == AT_RANGE_R || r->kind == AT_RANGE_W)
            g_string_append_printf(s, ":%" G_GUINT64_FORMAT, r->arg);
    }
    return g_string_free(s, FALSE);
}

/* Create/join with child ids, barrier with its count, locks in pairs, the condition variable,
 * ROI markers, memcpy/memset ranges: each thread's marker sequence, exactly. */
static void test_sync_markers(void)
{
    if (!tt_ready())
        return;
    char *m0 = tt_markers(0), *m1 = tt_markers(1), *m2 = tt_markers(2), *m3 = tt_markers(3);
    /* main waits on the condition variable once or more (a spurious wake-up waits again) */
    const char *wait = " LOCK_REL@pr_m2 COND_WAIT@pr_cv LOCK_ACQ@pr_m2";
    const char *head0 = "ROI_BEGIN CREATE:1 CREATE:2 LOCK_ACQ@pr_m2 BARRIER@pr_bar:3";
    const char *tail0 = " LOCK_REL@pr_m2 JOIN:1 JOIN:2 ROI_END";
    CU_ASSERT_TRUE(g_str_has_prefix(m0, head0));
    CU_ASSERT_TRUE(g_str_has_suffix(m0, tail0));
    size_t middle = strlen(m0) - strlen(head0) - strlen(tail0);
    CU_ASSERT_TRUE(middle >= strlen(wait) && middle % strlen(wait) == 0);
    for (size_t at = strlen(head0); at + strlen(wait) <= strlen(m0) - strlen(tail0);
         at += strlen(wait))
        CU_ASSERT_EQUAL(strncmp(m0 + at, wait, strlen(wait)), 0);
    CU_ASSERT_STRING_EQUAL(m1, "BARRIER@pr_bar:3 CREATE:3 JOIN:3 "
                               "LOCK_ACQ@pr_mu LOCK_REL@pr_mu LOCK_ACQ@pr_mu LOCK_REL@pr_mu "
                               "LOCK_ACQ@pr_mu LOCK_REL@pr_mu LOCK_ACQ@pr_mu LOCK_REL@pr_mu "
                               "LOCK_ACQ@pr_mu LOCK_REL@pr_mu "
                               "RANGE_R@pr_src:100 RANGE_W@pr_dst:100 RANGE_W@pr_buf:64");
    CU_ASSERT_STRING_EQUAL(m2, "BARRIER@pr_bar:3 LOCK_ACQ@pr_m2 COND_SIGNAL@pr_cv "
                               "LOCK_REL@pr_m2");
    CU_ASSERT_STRING_EQUAL(m3, "");
    if (!g_str_has_prefix(m0, head0) || strcmp(m2, "BARRIER@pr_bar:3 LOCK_ACQ@pr_m2 "
                                                   "COND_SIGNAL@pr_cv LOCK_REL@pr_m2") != 0)
        fprintf(stderr, "markers:\n  T0 %s\n  T1 %s\n  T2 %s\n  T3 %s\n", m0, m1, m2, m3);
    g_free(m0);
    g_free(m1);
    g_free(m2);
    g_free(m3);
    /* tid 3 left through pthread_exit from a nested call: its one store was still flushed */
    CU_ASSERT_EQUAL(tt->rec[3]->len, 1);
    if (tt->rec[3]->len == 1) {
        CU_ASSERT_EQUAL(tt_rec(3, 0)->kind, AT_STORE);
        CU_ASSERT_EQUAL(tt_rec(3, 0)->addr, tt_addr("pr_leaf"));
    }
}

/* `archsim trace record`: refuses a non-empty directory, replaces it with --force, reports a
 * program that cannot run and one that writes no manifest. */
/* The runtime writes over its own traces only: a file of the user's named T1.trace in
 * ARCHSIM_TRACE_OUT stays as it was (it was overwritten), and when the main thread's trace
 * cannot be made (a link there) nothing is recorded (the other threads were recorded as
 * orphans, parent -1, under a manifest). */
static void test_runtime_own_files(void)
{
    CU_ASSERT_TRUE_FATAL(tt->built);
    char *dir = g_strdup_printf("%s/own-%s", tt_dir, tt->cc);
    g_mkdir(dir, 0755);
    char *user = g_build_filename(dir, "T1.trace", NULL);
    g_file_set_contents(user, "USERDATA\n", -1, NULL);
    char *run[] = { tt->bin, NULL };
    const char *set[] = { "ARCHSIM_TRACE_OUT", dir, NULL };
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tt_spawn(run, NULL, set, &out, &err), 0);
    char *text = NULL;
    CU_ASSERT(g_file_get_contents(user, &text, NULL, NULL) && strcmp(text, "USERDATA\n") == 0);
    CU_ASSERT(err != NULL && strstr(err, "is not an archsim trace; not writing over it") != NULL);
    g_free(text);
    g_free(out);
    g_free(err);
    char *dir2 = g_strdup_printf("%s/link-%s", tt_dir, tt->cc);
    g_mkdir(dir2, 0755);
    char *lnk = g_build_filename(dir2, "T0.trace", NULL);
    char *target = g_build_filename(dir2, "elsewhere", NULL);
    CU_ASSERT_FATAL(symlink(target, lnk) == 0);
    const char *set2[] = { "ARCHSIM_TRACE_OUT", dir2, NULL };
    out = err = NULL;
    CU_ASSERT_EQUAL(tt_spawn(run, NULL, set2, &out, &err), 0);
    char *manifest = g_build_filename(dir2, "manifest.yaml", NULL), *t1 = g_build_filename(dir2, "T1.trace", NULL);
    CU_ASSERT_FALSE(g_file_test(manifest, G_FILE_TEST_EXISTS));
    CU_ASSERT_FALSE(g_file_test(t1, G_FILE_TEST_EXISTS));
    CU_ASSERT_FALSE(g_file_test(target, G_FILE_TEST_EXISTS));
    CU_ASSERT(err != NULL && strstr(err, "not recording") != NULL);
    g_free(out);
    g_free(err);
    g_free(manifest);
    g_free(t1);
    g_free(lnk);
    g_free(target);
    g_free(dir2);
    /* a hard link to another recording's trace: replaced by a new file, the other keeps its
     * bytes (it was truncated through the link) */
    char *dir3 = g_strdup_printf("%s/hardlink-%s", tt_dir, tt->cc);
    g_mkdir(dir3, 0755);
    char *theirs = g_strdup_printf("%s/T1.trace", tt->trace_dir);
    char *mine = g_build_filename(dir3, "T1.trace", NULL);
    char *before = NULL, *after = NULL;
    gsize nb = 0, na = 0;
    CU_ASSERT_FATAL(g_file_get_contents(theirs, &before, &nb, NULL) && link(theirs, mine) == 0);
    const char *set3[] = { "ARCHSIM_TRACE_OUT", dir3, NULL };
    out = err = NULL;
    CU_ASSERT_EQUAL(tt_spawn(run, NULL, set3, &out, &err), 0);
    CU_ASSERT(g_file_get_contents(theirs, &after, &na, NULL) && na == nb &&
              memcmp(after, before, nb) == 0);
    g_free(out);
    g_free(err);
    g_free(before);
    g_free(after);
    g_free(theirs);
    g_free(mine);
    g_free(dir3);
    g_free(user);
    g_free(dir);
}

static void test_record_command(void)
{
    CU_ASSERT_TRUE_FATAL(tt->built);
    char *dir = g_strdup_printf("%s/record-%s", tt_dir, tt->cc);
    g_mkdir(dir, 0755);
    char *stray = g_build_filename(dir, "T0.trace", NULL);
    g_file_set_contents(stray, "old", 3, NULL);
    char *argv1[] = { "record", "-o", dir, "--", tt->bin, NULL };
    CU_ASSERT_EQUAL(atrace_record_main(5, argv1), ARCHSIM_EXIT_CANTCREAT);
    /* --force replaces archsim's traces, not another file of that name (it removed it) */
    char *argv2[] = { "record", "-o", dir, "--force", "--verify", "--", tt->bin, NULL };
    CU_ASSERT_EQUAL(atrace_record_main(7, argv2), ARCHSIM_EXIT_CANTCREAT);
    char *old = NULL;
    CU_ASSERT(g_file_get_contents(stray, &old, NULL, NULL) && strcmp(old, "old") == 0);
    g_free(old);
    g_unlink(stray);
    CU_ASSERT_EQUAL(atrace_record_main(7, argv2), 0);
    CU_ASSERT_EQUAL(atrace_record_main(7, argv2), 0);     /* and again, over its own traces */
    /* a foreign file among its traces: refused before any trace is removed (it removed those
     * that came before it in the directory's order) */
    char *foreign = g_build_filename(dir, "T9.trace", NULL);
    g_file_set_contents(foreign, "foreign", -1, NULL);
    CU_ASSERT_EQUAL(atrace_record_main(7, argv2), ARCHSIM_EXIT_CANTCREAT);
    for (int t = 0; t < PROBE_THREADS; t++) {
        char *p = g_strdup_printf("%s/T%d.trace", dir, t);
        CU_ASSERT_TRUE(g_file_test(p, G_FILE_TEST_EXISTS));
        g_free(p);
    }
    char *mf = g_build_filename(dir, "manifest.yaml", NULL);
    CU_ASSERT_TRUE(g_file_test(mf, G_FILE_TEST_EXISTS));
    g_free(mf);
    g_unlink(foreign);
    g_free(foreign);
    AtRecordSummary s;
    GError *e = NULL;
    CU_ASSERT_TRUE(atrace_record_check(dir, false, &s, &e));
    CU_ASSERT_EQUAL(s.threads, PROBE_THREADS);
    atrace_record_summary_clear(&s);
    char *missing = g_strdup_printf("%s/no-such-program", tt_dir);
    char *argv3[] = { "record", "-o", dir, "--force", "--", missing, NULL };
    CU_ASSERT_EQUAL(atrace_record_main(6, argv3), ARCHSIM_EXIT_NOINPUT);
    char *argv4[] = { "record", "-o", dir, "--force", "--", "true", NULL };   /* not traced */
    CU_ASSERT_EQUAL(atrace_record_main(6, argv4), ARCHSIM_EXIT_NOINPUT);
    char *argv5[] = { "record", "--", tt->bin, NULL };
    CU_ASSERT_EQUAL(atrace_record_main(3, argv5), ARCHSIM_EXIT_USAGE);
    g_free(missing);
    g_free(stray);
    g_free(dir);
}

static int tt_init(void)
{
    GError *e = NULL;
    tt_dir = g_dir_make_tmp("test_tracer-XXXXXX", &e);
    if (tt_dir == NULL) {
        fprintf(stderr, "test_tracer: %s\n", e->message);
        return -1;
    }
    return 0;
}

static void tt_rmtree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d != NULL) {
        const char *n;
        while ((n = g_dir_read_name(d)) != NULL) {
            char *p = g_build_filename(path, n, NULL);
            tt_rmtree(p);
            g_free(p);
        }
        g_dir_close(d);
        g_rmdir(path);
    } else {
        g_unlink(path);
    }
}

static void tt_cleanup(void)
{
    for (size_t c = 0; c < G_N_ELEMENTS(tt_cases); c++) {
        TtCase *k = &tt_cases[c];
        g_free(k->bin);
        g_free(k->plain_out);
        g_free(k->traced_out);
        g_free(k->trace_dir);
        if (k->addr != NULL)
            g_hash_table_destroy(k->addr);
        for (int t = 0; t < PROBE_THREADS; t++)
            if (k->rec[t] != NULL)
                g_array_free(k->rec[t], TRUE);
    }
    if (tt_dir != NULL)
        tt_rmtree(tt_dir);
    g_free(tt_dir);
}

/* ---- workload directories (issue 15 item 9) ------------------------------------------------ */

/* One synthetic thread: tid, parent (header), the thread ids it creates and then joins, and
 * whether the file's header lies about the tid. */
typedef struct {
    int tid, parent, header_tid;
    int creates[4], ncreates;
    int joins[4], njoins;
    uint64_t load_base;
} TwThread;

/* Writes DIR/T<tid>.trace for each thread: a store and a load of its own line, then the
 * creates, then the joins. With manifest, a manifest.yaml as the runtime writes it. */
static char *tw_make(const char *name, const TwThread *t, int n, bool manifest)
{
    char *dir = g_build_filename(tt_dir, name, NULL);
    tt_rmtree(dir);
    g_mkdir_with_parents(dir, 0755);
    GString *m = g_string_new("format: atrace\nversion: 1\nfrontend: \"synthetic\"\n");
    g_string_append_printf(m, "thread_count: %d\nthreads:\n", n);
    uint64_t total_r = 0, total_b = 0;
    for (int i = 0; i < n; i++) {
        AtHeader h = { .version = ATRACE_VERSION, .tid = (uint32_t)t[i].header_tid,
                       .parent = t[i].parent, .load_base = t[i].load_base };
        g_strlcpy(h.frontend, "synthetic", sizeof h.frontend);
        char *path = g_strdup_printf("%s/T%d.trace", dir, t[i].tid);
        AtWriter *w = at_writer_open(path, &h, 1);
        g_assert(w != NULL);
        uint64_t line = 0x10000 + 64 * (uint64_t)t[i].tid;
        AtRecord st = { .kind = AT_STORE, .size = 8, .addr = line, .pc = 0x400 };
        AtRecord ld = { .kind = AT_LOAD, .size = 8, .addr = line, .pc = 0x404 };
        g_assert(at_writer_put(w, &st) == 0 && at_writer_put(w, &ld) == 0);
        for (int c = 0; c < t[i].ncreates; c++) {
            AtRecord r = { .kind = AT_CREATE, .arg = (uint64_t)t[i].creates[c], .pc = 0x408 };
            g_assert(at_writer_put(w, &r) == 0);
        }
        for (int c = 0; c < t[i].njoins; c++) {
            AtRecord r = { .kind = AT_JOIN, .arg = (uint64_t)t[i].joins[c], .pc = 0x40c };
            g_assert(at_writer_put(w, &r) == 0);
        }
        uint64_t recs = at_writer_records(w);
        g_assert(at_writer_close(w) == 0);
        GStatBuf sb;
        g_assert(g_stat(path, &sb) == 0);
        g_string_append_printf(m, "  - tid: %d\n    parent: %d\n    file: T%d.trace\n"
                               "    complete: true\n    records: %" G_GUINT64_FORMAT "\n"
                               "    bytes: %" G_GUINT64_FORMAT "\n    kinds: {LOAD: 1, STORE: 1",
                               t[i].tid, t[i].parent, t[i].tid, recs, (uint64_t)sb.st_size);
        if (t[i].ncreates)
            g_string_append_printf(m, ", CREATE: %d", t[i].ncreates);
        if (t[i].njoins)
            g_string_append_printf(m, ", JOIN: %d", t[i].njoins);
        g_string_append(m, "}\n");
        total_r += recs;
        total_b += (uint64_t)sb.st_size;
        g_free(path);
    }
    g_string_append_printf(m, "records: %" G_GUINT64_FORMAT "\nbytes: %" G_GUINT64_FORMAT "\n",
                           total_r, total_b);
    if (manifest) {
        char *mp = g_build_filename(dir, "manifest.yaml", NULL);
        g_assert(g_file_set_contents(mp, m->str, -1, NULL));
        g_free(mp);
    }
    g_string_free(m, TRUE);
    return dir;
}

/* Replaces the first `from` with `to` in DIR/manifest.yaml. */
static void tw_edit_manifest(const char *dir, const char *from, const char *to)
{
    char *mp = g_build_filename(dir, "manifest.yaml", NULL), *text = NULL;
    g_assert(g_file_get_contents(mp, &text, NULL, NULL));
    char *at = strstr(text, from);
    g_assert(at != NULL);
    *at = '\0';
    char *out = g_strconcat(text, to, at + strlen(from), NULL);
    g_assert(g_file_set_contents(mp, out, -1, NULL));
    g_free(out);
    g_free(text);
    g_free(mp);
}

/* Builds and runs the snooping replay machine on dir with `cores` cores. Returns the exit code
 * (0 when it ran) and the message in *msg. */
static int tw_run(const char *dir, int cores, char **msg)
{
    GError *e = NULL;
    *msg = NULL;
    CfgNode *root = cfg_load_file("configs/false_sharing/replay.yaml", NULL, &e);
    g_assert(root != NULL);
    char *s1 = g_strdup_printf("workload.trace=%s", dir);
    char *s2 = g_strdup_printf("system.cores=%d", cores);
    g_assert(cfg_apply_set(root, s1, &e) && cfg_apply_set(root, s2, &e));
    g_free(s1);
    g_free(s2);
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    bool ok = r != NULL && system_run(r, &e);
    int code = ok ? 0 : e->code;
    if (e) {
        *msg = g_strdup(e->message);
        g_error_free(e);
    }
    if (r)
        system_free(r);
    return code;
}

/* Asserts the run of dir fails with code and a message holding each of parts (NULL-ended;
 * "@D@" stands for dir). */
static void tw_expect(const char *dir, int cores, int code, const char *const *parts)
{
    char *msg = NULL;
    int got = tw_run(dir, cores, &msg);
    if (got != code)
        fprintf(stderr, "\n  %s: exit %d (%s), expected %d\n", dir, got, msg ? msg : "", code);
    CU_ASSERT_EQUAL(got, code);
    for (int i = 0; parts[i] != NULL; i++) {
        char **bits = g_strsplit(parts[i], "@D@", -1);
        char *want = g_strjoinv(dir, bits);
        g_strfreev(bits);
        if (msg == NULL || strstr(msg, want) == NULL)
            fprintf(stderr, "\n  message lacks: %s\n  message: %s\n", want, msg ? msg : "(none)");
        CU_ASSERT(msg != NULL && strstr(msg, want) != NULL);
        g_free(want);
    }
    g_free(msg);
}

/* Three threads: T0 creates 1 and 2 and joins both. */
static const TwThread tw_good[] = {
    { 0, -1, 0, { 1, 2 }, 2, { 1, 2 }, 2, 0 },
    { 1, 0, 1, { 0 }, 0, { 0 }, 0, 0 },
    { 2, 0, 2, { 0 }, 0, { 0 }, 0, 0 },
};

static void issue15_item9_workload_good_dir_runs(void)
{
    char *dir = tw_make("good", tw_good, 3, true);
    char *msg = NULL;
    int code = tw_run(dir, 3, &msg);
    if (code != 0)
        fprintf(stderr, "\n  %s\n", msg);
    CU_ASSERT_EQUAL(code, 0);
    g_free(msg);
    g_free(dir);
}

/* T0 creates thread 2, whose file is missing: 66 naming the file and the CREATE record (was a
 * GLib CRITICAL and a false deadlock). */
static void issue15_item9_workload_missing_created_thread(void)
{
    char *dir = tw_make("missing", tw_good, 3, false);
    char *t2 = g_build_filename(dir, "T2.trace", NULL);
    g_unlink(t2);
    const char *const parts[] = { "@D@/T2.trace: cannot open: No such file or directory "
                                  "(@D@/T0.trace record 3 creates thread 2)", NULL };
    tw_expect(dir, 3, ARCHSIM_EXIT_NOINPUT, parts);
    tw_expect(dir, 2, ARCHSIM_EXIT_NOINPUT, parts);     /* fewer cores: the same file */
    g_free(t2);
    g_free(dir);
}

/* One change to tw_good: thread t's field set to value (fields by name, two changes at most). */
typedef enum { TW_NONE, TW_HTID, TW_PARENT, TW_BASE, TW_CREATE0, TW_CREATE1, TW_NCREATES,
               TW_JOIN0, TW_JOIN1, TW_NJOINS } TwField;

typedef struct {
    const char *name;
    struct { int t; TwField f; int64_t v; } change[2];
    const char *message;
} TwCase;

static void tw_apply(TwThread *t, int i, TwField f, int64_t v)
{
    switch (f) {
    case TW_NONE: break;
    case TW_HTID: t[i].header_tid = (int)v; break;
    case TW_PARENT: t[i].parent = (int)v; break;
    case TW_BASE: t[i].load_base = (uint64_t)v; break;
    case TW_CREATE0: t[i].creates[0] = (int)v; break;
    case TW_CREATE1: t[i].creates[1] = (int)v; break;
    case TW_NCREATES: t[i].ncreates = (int)v; break;
    case TW_JOIN0: t[i].joins[0] = (int)v; break;
    case TW_JOIN1: t[i].joins[1] = (int)v; break;
    case TW_NJOINS: t[i].njoins = (int)v; break;
    }
}

/* Headers that disagree with the file names, each other and the CREATE records (65 at the
 * header byte), and CREATE and JOIN records that name threads the directory does not hold, or
 * twice (65 at the record). */
static void issue15_item9_workload_bad_headers_and_sync(void)
{
    static const TwCase cases[] = {
        { "tid", { { 2, TW_HTID, 1 } },
          "@D@/T2.trace: byte 28: header says tid 1, but the file name says thread 2" },
        { "parent", { { 2, TW_PARENT, 1 } },
          "@D@/T2.trace: byte 32: header says parent 1, but @D@/T0.trace record 3 creates it" },
        { "parent0", { { 0, TW_PARENT, 5 } },
          "@D@/T0.trace: byte 32: header says parent 5, but thread 0 is the main thread "
          "(parent -1)" },
        /* a file of another run of the program */
        { "base", { { 2, TW_BASE, 0x555555554000 } },
          "@D@/T2.trace: byte 16: header load base 0x555555554000 differs from @D@/T0.trace's "
          "0x0 (not one recording)" },
        { "orphan", { { 0, TW_NCREATES, 1 } },
          "@D@/T2.trace: no thread creates thread 2" },
        { "twice", { { 1, TW_CREATE0, 2 }, { 1, TW_NCREATES, 1 } },
          "@D@/T1.trace: record 2 creates thread 2 again (@D@/T0.trace record 3 created it)" },
        { "join", { { 0, TW_JOIN1, 7 } },
          "@D@/T0.trace: record 5 joins thread 7, which @D@ does not hold (no T7.trace)" },
        { "self", { { 1, TW_JOIN0, 1 }, { 1, TW_NJOINS, 1 } },
          "@D@/T1.trace: record 2: thread 1 joins itself" },
        { "create0", { { 0, TW_CREATE1, 0 } }, "@D@/T0.trace: record 3: CREATE of thread 0" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        TwThread t[3];
        memcpy(t, tw_good, sizeof t);
        for (int c = 0; c < 2; c++)
            tw_apply(t, cases[i].change[c].t, cases[i].change[c].f, cases[i].change[c].v);
        char *dir = tw_make(cases[i].name, t, 3, false);
        const char *const parts[] = { cases[i].message, NULL };
        tw_expect(dir, 3, ARCHSIM_EXIT_DATAERR, parts);
        g_free(dir);
    }
}

/* A manifest.yaml that does not describe its files: 65 at the manifest's line and column. */
static void issue15_item9_workload_manifest_mismatch(void)
{
    static const struct {
        const char *from, *to, *message;
    } cases[] = {
        { "thread_count: 3", "thread_count: 2",
          "@D@/manifest.yaml:4:15: thread_count is 2, but @D@ holds 3 thread files" },
        { "file: T1.trace", "file: T9.trace",
          "@D@/manifest.yaml:15:11: threads[1].file is 'T9.trace', but thread 1's file is "
          "T1.trace" },
        { "records: 2\n", "records: 3\n",
          "@D@/manifest.yaml:17:14: threads[1].records is 3, but @D@/T1.trace holds 2 records" },
        { "{LOAD: 1, STORE: 1, CREATE: 2", "{LOAD: 2, STORE: 1, CREATE: 2",
          "@D@/manifest.yaml:12:19: threads[0].kinds: LOAD 2, but @D@/T0.trace holds 1" },
        { "parent: 0", "parent: 2",
          "@D@/manifest.yaml:14:13: threads[1].parent is 2, but @D@/T1.trace's header says 0" },
        { "frontend: \"synthetic\"", "frontend: \"qemu\"",
          "@D@/manifest.yaml:3:11: frontend is 'qemu', but @D@/T0.trace's header says "
          "'synthetic'" },
        { "  - tid: 2", "  - tid: 5",
          "@D@/manifest.yaml:20:10: threads[2].tid is 5, expected 2" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *dir = tw_make("manifest", tw_good, 3, true);
        tw_edit_manifest(dir, cases[i].from, cases[i].to);
        const char *const parts[] = { cases[i].message, NULL };
        tw_expect(dir, 3, ARCHSIM_EXIT_DATAERR, parts);
        g_free(dir);
    }
    /* a thread more than the files, T0..T2 without a gap: the missing file, 66 (as archsim
     * cachegrind says it, and as a CREATE record naming it does) */
    char *dir = tw_make("manifest", tw_good, 3, true);
    tw_edit_manifest(dir, "thread_count: 3", "thread_count: 4");
    const char *const missing[] = { "@D@/manifest.yaml:4:15: thread_count is 4, but @D@ has no "
                                    "T3.trace (a thread's trace is missing)", NULL };
    tw_expect(dir, 3, ARCHSIM_EXIT_NOINPUT, missing);
    g_free(dir);
    /* bytes: a thread file that is not the one recorded */
    dir = tw_make("bytes", tw_good, 3, true);
    char *t1 = g_build_filename(dir, "T1.trace", NULL);
    GStatBuf sb;
    g_assert(g_stat(t1, &sb) == 0);
    char *from = g_strdup_printf("bytes: %" G_GUINT64_FORMAT "\n", (uint64_t)sb.st_size);
    char *to = g_strdup_printf("bytes: %" G_GUINT64_FORMAT "\n", (uint64_t)sb.st_size + 1);
    tw_edit_manifest(dir, from, to);
    char *want = g_strdup_printf("@D@/manifest.yaml:18:12: threads[1].bytes is %" G_GUINT64_FORMAT
                                 ", but @D@/T1.trace has %" G_GUINT64_FORMAT " bytes",
                                 (uint64_t)sb.st_size + 1, (uint64_t)sb.st_size);
    const char *const parts[] = { want, NULL };
    tw_expect(dir, 3, ARCHSIM_EXIT_DATAERR, parts);
    g_free(want);
    g_free(from);
    g_free(to);
    g_free(t1);
    g_free(dir);
}

static bool tt_add_suite(const char *name, int (*init)(void))
{
    CU_pSuite s = CU_add_suite(name, init, NULL);
    return s != NULL && CU_add_test(s, "build: archsim-cc, no libtsan", test_build) &&
           CU_add_test(s, "output unchanged; nothing written when off", test_output_unchanged) &&
           CU_add_test(s, "threads, parents, headers, manifest", test_threads_and_headers) &&
           CU_add_test(s, "loop: exact loads and stores", test_loop_counts) &&
           CU_add_test(s, "atomics: kinds, orders, CAS outcome, fences", test_atomics) &&
           CU_add_test(s, "create/join, barrier, locks, cond, ROI, ranges", test_sync_markers) &&
           CU_add_test(s, "trace record command", test_record_command) &&
           CU_add_test(s, "the runtime writes over its own files only", test_runtime_own_files);
}

int main(void)
{
    if (tt_init() != 0 || CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    bool ok = tt_add_suite("tracer-gcc", tt_suite_init_gcc);
    CU_pSuite ws = CU_add_suite("workload directory", NULL, NULL);
    ok = ok && ws != NULL &&
         CU_add_test(ws, "issue15_item9: a consistent directory runs",
                     issue15_item9_workload_good_dir_runs) &&
         CU_add_test(ws, "issue15_item9: missing created thread is 66",
                     issue15_item9_workload_missing_created_thread) &&
         CU_add_test(ws, "issue15_item9: bad headers, creates and joins are 65",
                     issue15_item9_workload_bad_headers_and_sync) &&
         CU_add_test(ws, "issue15_item9: manifest mismatch is 65",
                     issue15_item9_workload_manifest_mismatch);
    /* clang is not one of archsim's required packages: its suite runs where it is installed */
    if (tt_have("clang"))
        ok = ok && tt_add_suite("tracer-clang", tt_suite_init_clang);
    else
        fprintf(stderr, "test_tracer: clang not installed: the tsan-clang front end is NOT "
                        "tested here\n");
    if (!ok) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    tt_cleanup();
    return failures || errors ? 1 : 0;
}
