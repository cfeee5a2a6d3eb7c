/* test_cli.c: CUnit tests for the command-line pieces every subcommand shares (sim/cli/cli.c,
 * issue 16 item 4): the --help layout (usage forms and continuation lines, aligned options,
 * wrapping, hidden and G_OPTION_REMAINING entries left out, -h/--help added once), the usage
 * error's two lines, the empty-value check of each option kind, and cli_parse's three outcomes.
 */
#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../../sim/cli/cli.h"
#include "../../sim/error.h"

/* Runs fn(ctx) with stdout and stderr sent to files; returns both texts. */
typedef struct {
    char *out, *err;
} TcCaptured;

static TcCaptured tc_capture(void (*fn)(void *), void *ctx)
{
    char *po = NULL, *pe = NULL;
    int fo = g_file_open_tmp("test_cli_out.XXXXXX", &po, NULL);
    int fe = g_file_open_tmp("test_cli_err.XXXXXX", &pe, NULL);
    g_assert(fo >= 0 && fe >= 0);
    fflush(stdout);
    fflush(stderr);
    int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
    dup2(fo, STDOUT_FILENO);
    dup2(fe, STDERR_FILENO);
    fn(ctx);
    fflush(stdout);
    fflush(stderr);
    dup2(so, STDOUT_FILENO);
    dup2(se, STDERR_FILENO);
    close(so);
    close(se);
    close(fo);
    close(fe);
    TcCaptured c = { NULL, NULL };
    g_file_get_contents(po, &c.out, NULL, NULL);
    g_file_get_contents(pe, &c.err, NULL, NULL);
    g_unlink(po);
    g_unlink(pe);
    g_free(po);
    g_free(pe);
    return c;
}

static void tc_free(TcCaptured *c)
{
    g_free(c->out);
    g_free(c->err);
}

static char *tc_out, *tc_trace, **tc_sets, **tc_rest;
static gboolean tc_force;
static gint tc_jobs;

static GOptionEntry tc_entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &tc_out, "where it goes", "DIR" },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &tc_trace,
      "a long description that is wrapped at the help width: one two three four five six seven "
      "eight nine ten eleven twelve", "FILE" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &tc_sets, "override (repeatable)", "KEY=VALUE" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &tc_force, "replace it", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &tc_jobs, "in parallel", "N" },
    { "secret", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &tc_force, "not shown", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &tc_rest, NULL, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const CliHelp tc_help = {
    .cmd = "demo",
    .usage = "archsim demo FILE [OPTIONS]\n"
             "             [--more]\n"
             "archsim demo --other",
    .summary = "Do a demo.",
    .details = "Exit status: 0 success, 64 bad command line.",
};

static void tc_reset(void)
{
    g_clear_pointer(&tc_out, g_free);
    g_clear_pointer(&tc_trace, g_free);
    g_clear_pointer(&tc_sets, g_strfreev);
    g_clear_pointer(&tc_rest, g_strfreev);
    tc_force = FALSE;
    tc_jobs = 0;
}

static void tc_print_help(void *ctx)
{
    (void)ctx;
    cli_help_print(stdout, &tc_help, tc_entries);
}

static void test_help_layout(void)
{
    TcCaptured c = tc_capture(tc_print_help, NULL);
    CU_ASSERT_STRING_EQUAL(c.out,
        "Usage: archsim demo FILE [OPTIONS]\n"
        "             [--more]\n"
        "       archsim demo --other\n"
        "\n"
        "Do a demo.\n"
        "\n"
        "Options:\n"
        "  -o, --output=DIR     where it goes\n"
        "      --trace=FILE     a long description that is wrapped at the help width: one two "
        "three four\n"
        "                       five six seven eight nine ten eleven twelve\n"
        "  -s, --set=KEY=VALUE  override (repeatable)\n"
        "  -f, --force          replace it\n"
        "  -j, --jobs=N         in parallel\n"
        "  -h, --help           Show this help and exit\n"
        "\n"
        "Exit status: 0 success, 64 bad command line.\n");
    CU_ASSERT_STRING_EQUAL(c.err, "");
    char **lines = g_strsplit(c.out, "\n", -1);
    for (char **l = lines; *l; l++)
        CU_ASSERT(strlen(*l) <= 96);         /* CLI_HELP_WIDTH */
    g_strfreev(lines);
    tc_free(&c);
}

static void tc_usage(void *ctx)
{
    *(int *)ctx = cli_usage_error("trace dump", "--limit '%s': expected a number", "x");
}

static void test_usage_error(void)
{
    int rc = 0;
    TcCaptured c = tc_capture(tc_usage, &rc);
    CU_ASSERT_EQUAL(rc, ARCHSIM_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(c.err, "archsim trace dump: --limit 'x': expected a number\n"
                                  "Try 'archsim trace dump --help'.\n");
    CU_ASSERT_STRING_EQUAL(c.out, "");
    tc_free(&c);
}

typedef struct {
    const char *const *argv;
    int rc, argc_after;
} TcParse;

static void tc_parse(void *ctx)
{
    TcParse *p = ctx;
    int argc = (int)g_strv_length((char **)p->argv);
    char **argv = g_strdupv((char **)p->argv);
    /* parsing moves and drops pointers of argv, never frees the strings: free them by a copy */
    char **keep = g_memdup2(argv, sizeof(char *) * (size_t)(argc + 1));
    p->rc = cli_parse(&tc_help, tc_entries, &argc, &argv);
    p->argc_after = argc;
    g_strfreev(keep);
    g_free(argv);
}

/* cli_parse on ARGV: its return code, stdout and stderr */
static TcCaptured tc_run(const char *const *argv, int *rc)
{
    tc_reset();
    TcParse p = { .argv = argv };
    TcCaptured c = tc_capture(tc_parse, &p);
    *rc = p.rc;
    return c;
}

static void test_parse(void)
{
    int rc;
    TcCaptured c = tc_run((const char *const[]){ "demo", "-o", "d", "-f", "x.yaml", NULL }, &rc);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_STRING_EQUAL(tc_out, "d");
    CU_ASSERT(tc_force);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tc_rest);
    CU_ASSERT_STRING_EQUAL(tc_rest[0], "x.yaml");
    CU_ASSERT_STRING_EQUAL(c.out, "");
    CU_ASSERT_STRING_EQUAL(c.err, "");
    tc_free(&c);

    /* --help and -h: the help on stdout, 0, even with other options after */
    c = tc_run((const char *const[]){ "demo", "--help", "-o", "d", NULL }, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(g_str_has_prefix(c.out, "Usage: archsim demo FILE [OPTIONS]\n"));
    CU_ASSERT_STRING_EQUAL(c.err, "");
    tc_free(&c);
    c = tc_run((const char *const[]){ "demo", "-h", NULL }, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(g_str_has_prefix(c.out, "Usage: archsim demo"));
    tc_free(&c);

    /* an unknown option, a bad INT: GLib's message in our two lines */
    c = tc_run((const char *const[]){ "demo", "--bogus", NULL }, &rc);
    CU_ASSERT_EQUAL(rc, ARCHSIM_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(c.err, "archsim demo: Unknown option --bogus\n"
                                  "Try 'archsim demo --help'.\n");
    CU_ASSERT_STRING_EQUAL(c.out, "");
    tc_free(&c);
    c = tc_run((const char *const[]){ "demo", "-j", "x", NULL }, &rc);
    CU_ASSERT_EQUAL(rc, ARCHSIM_EXIT_USAGE);
    CU_ASSERT(g_str_has_prefix(c.err, "archsim demo: "));
    tc_free(&c);
}

static void test_empty_values(void)
{
    static const struct {
        const char *argv[5];
        const char *err;
    } cases[] = {
        { { "demo", "-o", "", NULL }, "archsim demo: --output: empty DIR\n" },
        { { "demo", "--output=", NULL }, "archsim demo: --output: empty DIR\n" },
        { { "demo", "--trace", "", NULL }, "archsim demo: --trace: empty FILE\n" },
        { { "demo", "-s", "a=1", "-s", "" }, "archsim demo: --set: empty KEY=VALUE\n" },
        { { "demo", "x", "", NULL },
          "archsim demo: an empty argument where a file name is expected\n" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        int rc;
        const char *argv[6] = { NULL };
        memcpy(argv, cases[i].argv, sizeof cases[i].argv);
        TcCaptured c = tc_run(argv, &rc);
        CU_ASSERT_EQUAL(rc, ARCHSIM_EXIT_USAGE);
        char *want = g_strconcat(cases[i].err, "Try 'archsim demo --help'.\n", NULL);
        if (strcmp(c.err, want) != 0)
            fprintf(stderr, "\n  case %zu: want '%s', got '%s'\n", i, want, c.err);
        CU_ASSERT_STRING_EQUAL(c.err, want);
        g_free(want);
        tc_free(&c);
    }
    /* -j 0 and --force take no string: nothing to be empty */
    int rc;
    TcCaptured c = tc_run((const char *const[]){ "demo", "-j", "0", "-f", NULL }, &rc);
    CU_ASSERT_EQUAL(rc, -1);
    tc_free(&c);
    tc_reset();
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("cli", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "help layout", test_help_layout) ||
        !CU_add_test(s, "usage error", test_usage_error) ||
        !CU_add_test(s, "cli_parse: go on, help, usage error", test_parse) ||
        !CU_add_test(s, "empty values are usage errors", test_empty_values)) {
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
