/* test_gaps.c: CUnit tests for `archsim trace gaps` (traces/atrace_gaps.c), the estimator of
 * compute gaps for TSan-front-end traces (docs/references.md §6, docs/tracing.md "Gaps").
 *
 * Builds a tiny kernel (one loop: b[i] = 3 * a[i] + b[i], three hook records per iteration) with
 * tools/archsim-cc, records it (ARCHSIM_TRACE_OUT), runs atrace_gaps_run, and checks: every
 * record has a gap; the header says has-gaps and not gaps-exact; every other field is unchanged;
 * a second run without force is refused (65) and one with force is accepted; a failure (a
 * later thread's file cut short, another program as --binary) leaves every file as it was; the
 * estimated instructions per loop iteration are within GAPS_TOLERANCE of the real count, the
 * instructions of the same loop in an uninstrumented build (gcc, same flags), counted in its
 * objdump.
 * Run from the repo root; needs gcc with -fsanitize=thread and objdump (binutils).
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "../../sim/error.h"
#include "../../traces/atrace.h"
#include "../../traces/atrace_cli.h"
#include "../../traces/atrace_gaps.h"

#define GAPS_N 20000            /* loop iterations */
#define GAPS_PER_ITER 3         /* records per iteration: LOAD a[i], LOAD b[i], STORE b[i] */
/* |estimated - real| / real instructions per iteration. The estimate counts the instrumented
 * code, which keeps some TSan-only address arithmetic (tracing.md §6 measured -29 % to +49 % on
 * real kernels); for this loop it is within 50 %. */
#define GAPS_TOLERANCE 0.50
#define GAPS_CFLAGS "-O2", "-g", "-fno-tree-vectorize", "-fno-unroll-loops"

static const char gaps_src[] =
    "#include <stdio.h>\n"
    "#define N 20000\n"
    "long a[N], b[N];\n"
    "__attribute__((noinline)) void gaps_kernel(long n)\n"
    "{\n"
    "    for (long i = 0; i < n; i++)\n"
    "        b[i] = 3 * a[i] + b[i];\n"
    "}\n"
    "int main(void)\n"
    "{\n"
    "    gaps_kernel(N);\n"
    "    printf(\"%ld\\n\", b[N - 1]);\n"
    "    return 0;\n"
    "}\n";

static char *gd_dir, *gd_bin, *gd_native, *gd_trace, *gd_t0;
static GArray *gd_before;       /* T0's records before the estimate */

static int gd_spawn(char **argv, const char *const *env, char **out)
{
    char **envp = g_get_environ();
    for (int i = 0; env != NULL && env[i] != NULL; i += 2)
        envp = g_environ_setenv(envp, env[i], env[i + 1], TRUE);
    int status = 0;
    char *err = NULL;
    GError *e = NULL;
    bool ok = g_spawn_sync(NULL, argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, out, &err, &status,
                           &e);
    g_strfreev(envp);
    if (!ok) {
        fprintf(stderr, "test_gaps: cannot run %s: %s\n", argv[0], e->message);
        g_error_free(e);
        return -1;
    }
    if (err != NULL && *err != '\0')
        fprintf(stderr, "%s", err);
    g_free(err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static GArray *gd_read(const char *path, AtHeader *h)
{
    GError *e = NULL;
    AtReader *r = at_reader_open(path, &e);
    if (r == NULL) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        return NULL;
    }
    if (h != NULL)
        *h = *at_reader_header(r);
    GArray *v = g_array_new(FALSE, FALSE, sizeof(AtRecord));
    AtRecord buf[1024];
    size_t got;
    while ((got = at_reader_read(r, buf, G_N_ELEMENTS(buf), &e)) > 0)
        g_array_append_vals(v, buf, (guint)got);
    at_reader_close(r);
    if (e != NULL) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        g_array_free(v, TRUE);
        return NULL;
    }
    return v;
}

static void gd_rmtree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d != NULL) {
        const char *n;
        while ((n = g_dir_read_name(d)) != NULL) {
            char *p = g_build_filename(path, n, NULL);
            gd_rmtree(p);
            g_free(p);
        }
        g_dir_close(d);
        g_rmdir(path);
    } else {
        g_unlink(path);
    }
}

static int gd_init(void)
{
    gd_dir = g_dir_make_tmp("archsim-gaps-XXXXXX", NULL);
    if (gd_dir == NULL)
        return 1;
    char *src = g_build_filename(gd_dir, "loop.c", NULL);
    if (!g_file_set_contents(src, gaps_src, -1, NULL))
        return 1;
    gd_bin = g_build_filename(gd_dir, "loop", NULL);
    gd_native = g_build_filename(gd_dir, "loop-native", NULL);
    gd_trace = g_build_filename(gd_dir, "trace", NULL);
    gd_t0 = g_build_filename(gd_trace, "T0.trace", NULL);
    char *cc[] = { "tools/archsim-cc", GAPS_CFLAGS, src, "-o", gd_bin, NULL };
    const char *gcc[] = { "ARCHSIM_CC", "gcc", NULL };
    char *native[] = { "gcc", GAPS_CFLAGS, src, "-o", gd_native, NULL };
    int rc = 0;
    if (gd_spawn(cc, gcc, NULL) != 0 || gd_spawn(native, NULL, NULL) != 0)
        rc = 1;
    char *run[] = { gd_bin, NULL };
    const char *env[] = { "ARCHSIM_TRACE_OUT", gd_trace, NULL };
    char *out = NULL;
    if (rc == 0 && gd_spawn(run, env, &out) != 0)
        rc = 1;
    g_free(out);
    if (rc == 0)
        gd_before = gd_read(gd_t0, NULL);
    g_free(src);
    return rc == 0 && gd_before != NULL ? 0 : 1;
}

static int gd_clean(void)
{
    if (gd_dir != NULL)
        gd_rmtree(gd_dir);
    g_free(gd_dir);
    g_free(gd_bin);
    g_free(gd_native);
    g_free(gd_trace);
    g_free(gd_t0);
    if (gd_before != NULL)
        g_array_free(gd_before, TRUE);
    return 0;
}

/* Instructions of the loop of gaps_kernel in the native build: from the target of the
 * backward jump to the jump, in objdump -d. 0 if not found. */
static unsigned gd_native_loop(void)
{
    char *argv[] = { "objdump", "-d", "--no-show-raw-insn", gd_native, NULL };
    char *out = NULL;
    if (gd_spawn(argv, NULL, &out) != 0 || out == NULL)
        return 0;
    char *f = strstr(out, "<gaps_kernel>:\n");
    unsigned n = 0;
    if (f != NULL) {
        char *end = strstr(f, "\n\n");
        if (end != NULL)
            *end = '\0';
        char **lines = g_strsplit(f, "\n", -1);
        for (int i = 1; lines[i] != NULL && n == 0; i++) {
            unsigned long at = 0, target = 0;
            char mnem[16];
            if (sscanf(lines[i], " %lx:\t%15s %lx", &at, mnem, &target) == 3 &&
                mnem[0] == 'j' && target < at) {
                for (int j = 1; j <= i; j++) {
                    unsigned long a2 = 0;
                    if (sscanf(lines[j], " %lx:", &a2) == 1 && a2 >= target &&
                        strstr(lines[j], "nop") == NULL)
                        n++;
                }
            }
        }
        g_strfreev(lines);
    }
    g_free(out);
    return n;
}

static void test_estimate(void)
{
    CU_ASSERT_FATAL(gd_before != NULL);
    AtHeader h0;
    GArray *v = gd_read(gd_t0, &h0);
    CU_ASSERT_FATAL(v != NULL);
    CU_ASSERT_EQUAL(h0.flags & (AT_H_HAS_GAPS | AT_H_GAPS_EXACT), 0);
    CU_ASSERT(v->len >= GAPS_N * GAPS_PER_ITER);
    g_array_free(v, TRUE);

    AtGapsSummary s;
    GError *e = NULL;
    bool ok = atrace_gaps_run(gd_trace, gd_bin, false, &s, &e);
    if (!ok)
        fprintf(stderr, "test_gaps: %s\n", e->message);
    CU_ASSERT_FATAL(ok);
    CU_ASSERT_EQUAL(s.unknown, 0);
    CU_ASSERT(s.threads >= 1);
    CU_ASSERT(s.sites >= GAPS_PER_ITER);

    AtHeader h;
    GArray *after = gd_read(gd_t0, &h);
    CU_ASSERT_FATAL(after != NULL);
    CU_ASSERT(h.flags & AT_H_HAS_GAPS);
    CU_ASSERT_FALSE(h.flags & AT_H_GAPS_EXACT);
    CU_ASSERT_EQUAL(h.tid, h0.tid);
    CU_ASSERT_EQUAL(h.parent, h0.parent);
    CU_ASSERT_EQUAL(h.load_base, h0.load_base);
    CU_ASSERT_STRING_EQUAL(h.frontend, h0.frontend);
    CU_ASSERT_STRING_EQUAL(h.compiler, h0.compiler);
    CU_ASSERT_STRING_EQUAL(h.cflags, h0.cflags);
    CU_ASSERT_FATAL(after->len == gd_before->len);
    unsigned changed = 0, no_gap = 0;
    for (guint i = 0; i < after->len; i++) {
        AtRecord a = g_array_index(gd_before, AtRecord, i);
        AtRecord b = g_array_index(after, AtRecord, i);
        if (!(b.flags & AT_F_GAP) || b.gap < 1)
            no_gap++;
        b.flags &= (uint8_t)~AT_F_GAP;
        b.gap = 0;
        changed += a.kind != b.kind || a.mo != b.mo || a.mo_fail != b.mo_fail || a.op != b.op ||
                   a.flags != b.flags || a.size != b.size || a.addr != b.addr ||
                   a.arg != b.arg || a.pc != b.pc || a.gap != 0;
    }
    CU_ASSERT_EQUAL(no_gap, 0);
    CU_ASSERT_EQUAL(changed, 0);

    /* per loop iteration: the steady state in the middle of the loop (the kernel's records
     * come first: main has no instrumented access before it) */
    uint64_t sum = 0;
    guint from = 30 * GAPS_PER_ITER, iters = GAPS_N - 60;
    for (guint i = from; i < from + iters * GAPS_PER_ITER; i++)
        sum += g_array_index(after, AtRecord, i).gap;
    double est = (double)sum / iters;
    unsigned real = gd_native_loop();
    CU_ASSERT_FATAL(real > 0);
    double err = (est - real) / real;
    printf("\n  loop: estimated %.2f instructions/iteration, real %u (native objdump), "
           "error %+.1f %% (tolerance %.0f %%)\n", est, real, 100.0 * err,
           100.0 * GAPS_TOLERANCE);
    CU_ASSERT(err <= GAPS_TOLERANCE && err >= -GAPS_TOLERANCE);
    g_array_free(after, TRUE);

    char *m = NULL;
    char *mpath = g_build_filename(gd_trace, "manifest.yaml", NULL);
    CU_ASSERT(g_file_get_contents(mpath, &m, NULL, NULL));
    CU_ASSERT(m != NULL && strstr(m, "\ngaps: estimated") != NULL);
    g_free(m);
    g_free(mpath);
}

static void test_refuse_and_force(void)
{
    AtGapsSummary s;
    GError *e = NULL;
    CU_ASSERT_FALSE(atrace_gaps_run(gd_trace, gd_bin, false, &s, &e));
    CU_ASSERT(e != NULL && e->code == ARCHSIM_EXIT_DATAERR);
    CU_ASSERT(e != NULL && strstr(e->message, "already has estimated gaps") != NULL);
    g_clear_error(&e);
    CU_ASSERT(atrace_gaps_run(gd_trace, gd_bin, true, &s, &e));
    g_clear_error(&e);
    /* the command line: refused again (65), missing --binary (64), missing program (66) */
    char *a1[] = { "trace", "gaps", gd_trace, "--binary", gd_bin, "--quiet", NULL };
    CU_ASSERT_EQUAL(atrace_cli_main(6, a1), ARCHSIM_EXIT_DATAERR);
    char *a2[] = { "trace", "gaps", gd_trace, NULL };
    CU_ASSERT_EQUAL(atrace_cli_main(3, a2), ARCHSIM_EXIT_USAGE);
    char *a3[] = { "trace", "gaps", gd_trace, "--binary", "/nonexistent/prog", "--force", NULL };
    CU_ASSERT_EQUAL(atrace_cli_main(6, a3), ARCHSIM_EXIT_NOINPUT);
    char *a4[] = { "trace", "gaps", "--force", gd_trace, "--binary", gd_bin, "--quiet", NULL };
    CU_ASSERT_EQUAL(atrace_cli_main(6, a4), ARCHSIM_EXIT_OK);
}

/* Copies the regular files of directory from into a new directory to. */
static void gd_copy_dir(const char *from, const char *to)
{
    g_mkdir(to, 0700);
    GDir *d = g_dir_open(from, 0, NULL);
    for (const char *n; d != NULL && (n = g_dir_read_name(d)) != NULL;) {
        char *a = g_build_filename(from, n, NULL), *b = g_build_filename(to, n, NULL);
        char *text = NULL;
        gsize len = 0;
        if (g_file_get_contents(a, &text, &len, NULL))
            g_file_set_contents(b, text, (gssize)len, NULL);
        g_free(text);
        g_free(a);
        g_free(b);
    }
    if (d != NULL)
        g_dir_close(d);
}

static char *gd_contents(const char *dir, const char *name, gsize *len)
{
    char *p = g_build_filename(dir, name, NULL), *text = NULL;
    if (!g_file_get_contents(p, &text, len, NULL))
        text = NULL;
    g_free(p);
    return text;
}

/* A failure leaves the recording as it was: a later thread's file that cannot be read, or a
 * binary none of whose hook calls a record is at (it rewrote the files before the bad one, and
 * took any other archsim-cc program, giving every record gap 1). */
static void test_all_or_nothing(void)
{
    char *copy = g_build_filename(gd_dir, "copy", NULL);
    gd_copy_dir(gd_trace, copy);
    gsize len0 = 0, len1 = 0;
    char *t0 = gd_contents(copy, "T0.trace", &len0);
    CU_ASSERT_FATAL(t0 != NULL && len0 > 200);
    /* T1.trace: T0 without its last 50 bytes, a stream cut short after its header */
    char *t1 = g_build_filename(copy, "T1.trace", NULL);
    CU_ASSERT_FATAL(g_file_set_contents(t1, t0, (gssize)len0 - 50, NULL));
    AtGapsSummary s;
    GError *e = NULL;
    /* T0 already has this binary's gaps, so a rewrite gives the same bytes: its inode tells a
     * file renamed into place from the one that was left alone */
    char *t0path = g_build_filename(copy, "T0.trace", NULL);
    GStatBuf st0, st1;
    CU_ASSERT_FATAL(g_stat(t0path, &st0) == 0);
    CU_ASSERT_FALSE(atrace_gaps_run(copy, gd_bin, true, &s, &e));
    CU_ASSERT(e != NULL && e->code == ARCHSIM_EXIT_DATAERR && strstr(e->message, "T1.trace"));
    g_clear_error(&e);
    char *after = gd_contents(copy, "T0.trace", &len1);
    CU_ASSERT(after != NULL && len1 == len0 && memcmp(after, t0, len0) == 0);
    CU_ASSERT(g_stat(t0path, &st1) == 0 && st1.st_ino == st0.st_ino);
    g_free(after);
    g_free(t0path);
    gsize lm0 = 0, lm1 = 0;
    char *m0 = gd_contents(gd_trace, "manifest.yaml", &lm0), *m1 = gd_contents(copy, "manifest.yaml", &lm1);
    CU_ASSERT(m0 != NULL && m1 != NULL && lm0 == lm1 && memcmp(m0, m1, lm0) == 0);
    g_free(m0);
    g_free(m1);
    GDir *d = g_dir_open(copy, 0, NULL);
    guint files = 0;
    for (const char *n; d != NULL && (n = g_dir_read_name(d)) != NULL;)
        files++;
    if (d != NULL)
        g_dir_close(d);
    CU_ASSERT_EQUAL(files, 3);          /* T0.trace, T1.trace, manifest.yaml: no temporary left */
    g_unlink(t1);
    /* another archsim-cc program */
    char *src = g_build_filename(gd_dir, "other.c", NULL), *bin = g_build_filename(gd_dir, "other", NULL);
    CU_ASSERT_FATAL(g_file_set_contents(src, "long x[64];\nint main(void)\n{\n    for (int i = 0; "
                                        "i < 64; i++)\n        x[i] += i;\n    return (int)x[3] "
                                        "!= 3;\n}\n", -1, NULL));
    char *cc[] = { "tools/archsim-cc", "-O2", "-g", src, "-o", bin, NULL };
    const char *gcc[] = { "ARCHSIM_CC", "gcc", NULL };
    CU_ASSERT_FATAL(gd_spawn(cc, gcc, NULL) == 0);
    CU_ASSERT_FALSE(atrace_gaps_run(copy, bin, true, &s, &e));
    CU_ASSERT(e != NULL && e->code == ARCHSIM_EXIT_DATAERR &&
              strstr(e->message, "not the program that was recorded") != NULL);
    g_clear_error(&e);
    after = gd_contents(copy, "T0.trace", &len1);
    CU_ASSERT(after != NULL && len1 == len0 && memcmp(after, t0, len0) == 0);
    g_free(after);
    g_free(src);
    g_free(bin);
    g_free(t1);
    g_free(t0);
    g_free(copy);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("gaps", gd_init, gd_clean);
    if (s == NULL || !CU_add_test(s, "estimate: gaps, flags, fields, accuracy", test_estimate) ||
        !CU_add_test(s, "refused without --force; command line", test_refuse_and_force) ||
        !CU_add_test(s, "a failure leaves the recording as it was", test_all_or_nothing)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failures || errors ? 1 : 0;
}
