/* test_validate.c: `archsim validate` checks each file as what it is (issue 16 item 3): how a
 * config, a sweep file and an include-only part are told apart, what a part's check leaves to
 * its includer, `part: true` dropped on include and refused by a run, a failing sweep point
 * reported at its swept value, and realize errors placed once (issue 16 item 2). */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "tmpdir.h"
#include "../../sim/cli/validate.h"

static char *dir;

static char *put(const char *name, const char *text)
{
    char *p = g_build_filename(dir, name, NULL);
    CU_ASSERT_TRUE(g_file_set_contents(p, text, -1, NULL));
    return p;
}

/* Validates path; returns the summary (ok) or the first error's message, and the exit code. */
static char *check(const char *path, char *const *sets, int *code)
{
    GString *sum = g_string_new(NULL);
    GPtrArray *errs = g_ptr_array_new_with_free_func((GDestroyNotify)g_error_free);
    bool ok = validate_file(path, sets, sum, errs);
    CU_ASSERT_EQUAL(ok, errs->len == 0);
    char *out = ok ? g_strdup(sum->str) : g_strdup(((GError *)errs->pdata[0])->message);
    *code = ok ? 0 : archsim_exit_code(errs->pdata[0]);
    g_ptr_array_free(errs, TRUE);
    g_string_free(sum, TRUE);
    return out;
}

static bool has(const char *text, const char *needle)
{
    bool r = strstr(text, needle) != NULL;
    if (!r)
        fprintf(stderr, "\n  '%s' lacks '%s'\n", text, needle);
    return r;
}

#define MACHINE "part: true\nsystem: {type: smp, cores: 2}\ncore:\n  type: pattern-core\n" \
                "  ops: 20\n"

static void test_kinds(void)
{
    int code;
    char *part = put("m.yaml", MACHINE);
    char *caches = put("c.yaml", "l1d:\n  size: 64KiB\n");
    char *cfg = put("run.yaml", "include: m.yaml\ncore:\n  pattern: private\n");
    char *sw = put("sw.yaml", "include: run.yaml\nsweep:\n  grid:\n    system.cores: [1, 2, 4]\n");
    char *s = check(part, NULL, &code);
    CU_ASSERT_EQUAL(code, 0);
    CU_ASSERT_STRING_EQUAL(s, "ok (part of system smp: 1 section checked on its own (core))");
    g_free(s);
    s = check(caches, NULL, &code);
    CU_ASSERT_STRING_EQUAL(s, "ok (part: 1 section checked on its own (l1d))");
    g_free(s);
    /* the includer of a part is a config: part: is dropped on include */
    s = check(cfg, NULL, &code);
    CU_ASSERT_EQUAL(code, 0);
    CU_ASSERT_TRUE(g_str_has_prefix(s, "ok (config: system smp, "));
    g_free(s);
    s = check(sw, NULL, &code);
    CU_ASSERT_STRING_EQUAL(s, "ok (sweep: 3 points, each built as a config)");
    g_free(s);
    /* a section that is not one of any system's: a config of the default system */
    char *odd = put("odd.yaml", "l1d:\n  size: 64KiB\nfoo:\n  x: 1\n");
    s = check(odd, NULL, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "odd.yaml:3:1: foo: unknown section for system 'uniproc'"));
    g_free(s);
    g_free(odd);
    g_free(part);
    g_free(caches);
    g_free(cfg);
    g_free(sw);
}

/* A part's check: the keys it gives are checked, the keys it leaves out are not required. */
static void test_part_checks(void)
{
    int code;
    char *p = put("p1.yaml", "part: true\nsystem: {type: smp, cores: 65}\n");
    char *s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "p1.yaml:2:28: system.cores: 65 is out of range [1, 64]"));
    g_free(s);
    g_free(p);
    /* core.trace is required for uniproc's trace-core, but a part may leave it out */
    p = put("p2.yaml", "core:\n  cpi: 2\nl2:\n  line: 48B\n");
    s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "p2.yaml:4:9: l2.line: 48B is not a power of two"));
    g_free(s);
    g_free(p);
    p = put("p3.yaml", "core:\n  cpi: 2\n");
    s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 0);
    g_free(s);
    /* --set applies before the check */
    char *bad[] = { "core.cpi=x", NULL };
    s = check(p, bad, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "--set core.cpi=x: core.cpi: "));
    g_free(s);
    g_free(p);
    /* a section of the wrong class for the part's system, and a part: that is not true */
    p = put("p4.yaml", "part: true\nsystem: {type: smp}\nl2:\n  size: 1MiB\n");
    s = check(p, NULL, &code);
    CU_ASSERT_TRUE(has(s, "p4.yaml:3:1: l2: unknown section for system 'smp'"));
    g_free(s);
    g_free(p);
    p = put("p5.yaml", "part: 1\nl1d: {}\n");
    s = check(p, NULL, &code);
    CU_ASSERT_TRUE(has(s, "p5.yaml:1:7: part: expected true"));
    g_free(s);
    g_free(p);
    /* with no system:, a section good for one system's class is a good part section (protocol
     * is a key of smp's coherent-cache L1, not of uniproc's cache) */
    p = put("p6.yaml", "l1d:\n  protocol: mesi\n");
    s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 0);
    g_free(s);
    g_free(p);
}

static void test_run_refuses_part(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("m.yaml", MACHINE, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_PTR_NULL(system_build(root, -1, NULL, NULL, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(archsim_exit_code(e), 78);
    CU_ASSERT_TRUE(has(e->message, "m.yaml:1:1: part: this file is an include-only part"));
    g_error_free(e);
}

/* A failing point is reported at its value in the sweep: block, with the point's values; each
 * failing point once; a --set keeps its own position. */
static void test_sweep_points(void)
{
    int code;
    g_free(put("base.yaml", "system: {type: smp, cores: 2}\ncore:\n  type: pattern-core\n"
                            "  pattern: private\n  ops: 20\n"));
    char *p = put("bad.yaml", "include: base.yaml\nsweep:\n  grid:\n    core.ops: [1, 2]\n"
                              "    system.cores: [1, 99]\n");
    GString *sum = g_string_new(NULL);
    GPtrArray *errs = g_ptr_array_new_with_free_func((GDestroyNotify)g_error_free);
    CU_ASSERT_FALSE(validate_file(p, NULL, sum, errs));
    CU_ASSERT_EQUAL_FATAL(errs->len, 2);
    char *want = g_strdup_printf("%s:5:23: system.cores: 99 is out of range [1, 64] (sweep point "
                                 "1 of 4: core.ops=1, system.cores=99)", p);
    CU_ASSERT_STRING_EQUAL(((GError *)errs->pdata[0])->message, want);
    g_free(want);
    CU_ASSERT_TRUE(has(((GError *)errs->pdata[1])->message, "(sweep point 3 of 4: core.ops=2, "
                                                            "system.cores=99)"));
    CU_ASSERT_EQUAL(sum->len, 0);
    g_ptr_array_free(errs, TRUE);
    g_string_free(sum, TRUE);
    g_free(p);
    p = put("ok.yaml", "include: base.yaml\nsweep:\n  grid:\n    system.cores: [1, 2]\n");
    char *sets[] = { "core.ops=oops", NULL };
    char *s = check(p, sets, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "--set core.ops=oops: core.ops: 'oops'"));
    CU_ASSERT_TRUE(has(s, "(sweep point 0 of 2: system.cores=1)"));
    g_free(s);
    g_free(p);
    /* a block with only stats takes its axes from the command line: its base is built */
    p = put("stats.yaml", "include: base.yaml\nsweep: {stats: [sim.cycles]}\n");
    s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 0);
    CU_ASSERT_TRUE(has(s, "ok (sweep with no grid or zip: its base config built"));
    g_free(s);
    g_free(p);
    p = put("stats2.yaml", "include: base.yaml\nsweep: {stats: [sim.cycles]}\ncore: {ops: x}\n");
    s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "stats2.yaml:3:13: core.ops: 'x'"));
    g_free(s);
    g_free(p);
    /* zip lists of different lengths: at the block, exit 78 */
    p = put("zip.yaml", "include: base.yaml\nsweep:\n  zip:\n    core.ops: [1, 2]\n"
                        "    system.cores: [1]\n");
    s = check(p, NULL, &code);
    CU_ASSERT_EQUAL(code, 78);
    CU_ASSERT_TRUE(has(s, "zip.yaml:3:3: sweep: zip lists differ in length: core.ops has 2 "
                          "values, system.cores has 1"));
    g_free(s);
    g_free(p);
}

/* A model's realize error gets the section's place and the component's name, once. */
static void test_realize_placed_once(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("k.yaml", "system: {type: smp, cores: 2}\n"
                                    "core:\n  type: kernel-core\n  iterations: 5\n", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_PTR_NULL(system_build(root, -1, NULL, NULL, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_TRUE(has(e->message, "k.yaml:3:3: core.kernel: give exactly one of kernel"));
    CU_ASSERT_PTR_NULL(strstr(e->message, "core0"));
    g_error_free(e);
}

int main(void)
{
    dir = tmpdir_new("test_validate.XXXXXX");
    if (!dir || CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("validate", NULL, NULL);
    CU_add_test(s, "config, sweep and part told apart", test_kinds);
    CU_add_test(s, "a part: given keys checked, missing ones not required", test_part_checks);
    CU_add_test(s, "archsim run refuses a marked part", test_run_refuses_part);
    CU_add_test(s, "sweep points reported at their values", test_sweep_points);
    CU_add_test(s, "realize errors placed once", test_realize_placed_once);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    tmpdir_remove(&dir);
    return f ? 1 : 0;
}
