/* test_input.c: CUnit tests for finding user-named inputs (sim/input.c, sim_input_find): the
 * current directory first, then the data directory ($ARCHSIM_DATA here), globs the shell left
 * alone, and the missing-file message that says where it looked (issue 16 item 1).
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/error.h"
#include "../../sim/input.h"

static char *ti_root;       /* scratch: ti_root/data is the data directory, ti_root/cwd the cwd */
static char *ti_data;
static char *ti_old_cwd;

static void ti_write(const char *dir, const char *rel)
{
    char *p = g_build_filename(dir, rel, NULL);
    char *d = g_path_get_dirname(p);
    g_mkdir_with_parents(d, 0777);
    g_file_set_contents(p, "x: 1\n", -1, NULL);
    g_free(d);
    g_free(p);
}

static int ti_init(void)
{
    ti_root = g_dir_make_tmp("test_input.XXXXXX", NULL);
    if (ti_root == NULL)
        return 1;
    char *raw = g_build_filename(ti_root, "data", NULL);
    ti_write(raw, "configs/default.yaml");
    ti_write(raw, "configs/b.yaml");
    ti_write(raw, "configs/a.yaml");
    ti_write(raw, "both.yaml");
    char *cwd = g_build_filename(ti_root, "cwd", NULL);
    ti_write(cwd, "local.yaml");
    ti_write(cwd, "both.yaml");
    ti_data = g_canonicalize_filename(raw, NULL);
    g_free(raw);
    /* before the first sim_data_dir(), which reads it once */
    g_setenv("ARCHSIM_DATA", ti_data, TRUE);
    ti_old_cwd = g_get_current_dir();
    int rc = chdir(cwd);
    g_free(cwd);
    return rc != 0;
}

static int ti_clean(void)
{
    if (ti_old_cwd != NULL && chdir(ti_old_cwd) != 0)
        return 1;
    char *argv[] = { "rm", "-rf", ti_root, NULL };
    g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    g_free(ti_root);
    g_free(ti_data);
    g_free(ti_old_cwd);
    return 0;
}

static void ti_expect(const char *path, const char *want)
{
    char *got = sim_input_find(path);
    CU_ASSERT_STRING_EQUAL(got, want);
    g_free(got);
}

static void test_data_dir(void)
{
    CU_ASSERT_STRING_EQUAL(sim_data_dir(), ti_data);
}

static void test_cwd_first(void)
{
    ti_expect("local.yaml", "local.yaml");
    ti_expect("both.yaml", "both.yaml");         /* in both: the current directory wins */
    ti_expect("./local.yaml", "./local.yaml");
}

static void test_data_second(void)
{
    char *want = g_build_filename(ti_data, "configs", "default.yaml", NULL);
    ti_expect("configs/default.yaml", want);
    g_free(want);
    want = g_build_filename(ti_data, "configs", NULL);     /* a directory too (trace dirs) */
    ti_expect("configs", want);
    g_free(want);
}

static void test_unchanged(void)
{
    ti_expect("/nonexistent/configs/default.yaml", "/nonexistent/configs/default.yaml");
    ti_expect("-", "-");
    ti_expect("", "");
    ti_expect("nope.yaml", "nope.yaml");
}

static void test_missing_says_where(void)
{
    char *named = sim_input_find("configs/nope.yaml");
    GError *e = NULL;
    CU_ASSERT_EQUAL(sim_open_regular(named, ARCHSIM_CONFIG_ERROR, NULL, &e), -1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_NOINPUT);
    char *want = g_strdup_printf("configs/nope.yaml: cannot open: No such file or directory "
                                 "(looked in the current directory, then in %s; ARCHSIM_DATA "
                                 "sets that directory)", ti_data);
    CU_ASSERT_STRING_EQUAL(e->message, want);
    g_free(want);
    g_clear_error(&e);
    /* a file inside it (a trace directory's T0.trace) */
    g_free(named);
    named = sim_input_find("traces/mine");
    CU_ASSERT_EQUAL(sim_open_regular("traces/mine/T0.trace", ARCHSIM_CONFIG_ERROR, NULL, &e), -1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "(looked in the current directory, then in "));
    g_clear_error(&e);
    g_free(named);
    /* a path never looked up (inside a config, say) keeps the plain message */
    CU_ASSERT_EQUAL(sim_open_regular("other.yaml", ARCHSIM_CONFIG_ERROR, NULL, &e), -1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "other.yaml: cannot open: No such file or directory");
    g_clear_error(&e);
    CU_ASSERT_EQUAL(sim_open_regular("traces/minefield", ARCHSIM_CONFIG_ERROR, NULL, &e), -1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NULL(strstr(e->message, "looked in"));
    g_clear_error(&e);
}

static void test_globs(void)
{
    char *in[] = { "configs/*.yaml", "local.yaml", "zz*.yaml", NULL };
    char **out = sim_input_find_all(in);
    CU_ASSERT_EQUAL_FATAL(g_strv_length(out), 5);
    const char *names[] = { "a.yaml", "b.yaml", "default.yaml" };   /* sorted */
    for (int i = 0; i < 3; i++) {
        char *want = g_build_filename(ti_data, "configs", names[i], NULL);
        CU_ASSERT_STRING_EQUAL(out[i], want);
        g_free(want);
    }
    CU_ASSERT_STRING_EQUAL(out[3], "local.yaml");
    CU_ASSERT_STRING_EQUAL(out[4], "zz*.yaml");     /* matches nothing anywhere: as given */
    g_strfreev(out);
    /* a glob that matches in the cwd is the shell's business: a literal name that exists */
    ti_write(".", "configs/*.yaml");
    char *lit[] = { "configs/*.yaml", NULL };
    out = sim_input_find_all(lit);
    CU_ASSERT_EQUAL_FATAL(g_strv_length(out), 1);
    CU_ASSERT_STRING_EQUAL(out[0], "configs/*.yaml");
    g_strfreev(out);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("input", ti_init, ti_clean);
    if (s == NULL || !CU_add_test(s, "data directory from ARCHSIM_DATA", test_data_dir) ||
        !CU_add_test(s, "the current directory first", test_cwd_first) ||
        !CU_add_test(s, "then the data directory", test_data_second) ||
        !CU_add_test(s, "absolute, -, empty and missing unchanged", test_unchanged) ||
        !CU_add_test(s, "a missing input says where it looked", test_missing_says_where) ||
        !CU_add_test(s, "globs the shell left alone", test_globs)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failures != 0 || errors != 0;
}
