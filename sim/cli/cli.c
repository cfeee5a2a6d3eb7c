/* cli.c: one layout for every subcommand's --help and one form for its usage errors (cli.h).
 * The layout is the GNU one (`Usage:` line, summary, an aligned option list, free text; GNU
 * Coding Standards, "--help"), which GLib's own help only approximates: its lines are not
 * wrapped and its usage line names g_get_prgname(), not `archsim CMD`. */
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "../error.h"

#define CLI_HELP_WIDTH 96     /* wrap option descriptions here */
#define CLI_HELP_MAX_LEFT 30  /* a longer "-x, --name=ARG" puts its description on the next line */

static const GOptionEntry cli_help_entry[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, NULL, "Show this help and exit", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static bool cli_has_help(const GOptionEntry *entries)
{
    for (const GOptionEntry *e = entries; e && e->long_name; e++)
        if (strcmp(e->long_name, "help") == 0)
            return true;
    return false;
}

/* "-o, --output=DIR" or "    --seed=N" */
static char *cli_entry_left(const GOptionEntry *e)
{
    GString *s = g_string_new(NULL);
    if (e->short_name)
        g_string_append_printf(s, "-%c, ", e->short_name);
    else
        g_string_append(s, "    ");
    g_string_append_printf(s, "--%s", e->long_name);
    if (e->arg != G_OPTION_ARG_NONE && e->arg_description)
        g_string_append_printf(s, "=%s", e->arg_description);
    return g_string_free(s, FALSE);
}

/* Appends text word-wrapped to CLI_HELP_WIDTH, continuation lines indented by indent; the
 * first line starts at column col. */
static void cli_wrap(GString *o, const char *text, size_t col, size_t indent)
{
    char **words = g_strsplit(text, " ", -1);
    bool first = true;
    for (char **w = words; *w; w++) {
        size_t len = strlen(*w);
        if (!first && col + 1 + len > CLI_HELP_WIDTH) {
            g_string_append_c(o, '\n');
            for (size_t i = 0; i < indent; i++)
                g_string_append_c(o, ' ');
            col = indent;
        } else if (!first) {
            g_string_append_c(o, ' ');
            col++;
        }
        g_string_append(o, *w);
        col += len;
        first = false;
    }
    g_strfreev(words);
}

static void cli_format_entries(GString *o, const GOptionEntry *const *sets, size_t nsets)
{
    size_t width = 0;
    for (size_t k = 0; k < nsets; k++)
        for (const GOptionEntry *e = sets[k]; e && e->long_name; e++) {
            if ((e->flags & G_OPTION_FLAG_HIDDEN) || !*e->long_name)
                continue;
            char *left = cli_entry_left(e);
            size_t n = strlen(left);
            if (n <= CLI_HELP_MAX_LEFT && n > width)
                width = n;
            g_free(left);
        }
    size_t col = 2 + width + 2;
    for (size_t k = 0; k < nsets; k++)
        for (const GOptionEntry *e = sets[k]; e && e->long_name; e++) {
            if ((e->flags & G_OPTION_FLAG_HIDDEN) || !*e->long_name)
                continue;
            char *left = cli_entry_left(e);
            size_t n = strlen(left);
            g_string_append_printf(o, "  %s", left);
            if (n > width) {
                g_string_append_c(o, '\n');
                n = 0;
                for (size_t i = 0; i < col; i++)
                    g_string_append_c(o, ' ');
            } else {
                for (size_t i = 2 + n; i < col; i++)
                    g_string_append_c(o, ' ');
            }
            cli_wrap(o, e->description ? e->description : "", col, col);
            g_string_append_c(o, '\n');
            g_free(left);
        }
}

void cli_help_print(FILE *f, const CliHelp *h, const GOptionEntry *entries)
{
    GString *o = g_string_new(NULL);
    char **forms = g_strsplit(h->usage, "\n", -1);
    for (char **p = forms; *p; p++)
        g_string_append_printf(o, "%s%s\n", p == forms ? "Usage: " : **p == ' ' ? "" : "       ",
                               *p);
    g_strfreev(forms);
    g_string_append_printf(o, "\n%s\n\nOptions:\n", h->summary);
    const GOptionEntry *sets[2] = { entries, cli_help_entry };
    cli_format_entries(o, sets, cli_has_help(entries) ? 1 : 2);
    if (h->details && *h->details) {
        g_string_append_printf(o, "\n%s", h->details);
        if (!g_str_has_suffix(h->details, "\n"))
            g_string_append_c(o, '\n');
    }
    fputs(o->str, f);
    g_string_free(o, TRUE);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "archsim %s: %s\nTry 'archsim %s --help'.\n", cmd, msg, cmd);
    g_free(msg);
    return ARCHSIM_EXIT_USAGE;
}

static bool cli_empty_option(const char *cmd, const GOptionEntry *e)
{
    if (!*e->long_name)      /* G_OPTION_REMAINING: the operands */
        cli_usage_error(cmd, "an empty argument where a file name is expected");
    else
        cli_usage_error(cmd, "--%s: empty %s", e->long_name,
                        e->arg_description ? e->arg_description : "value");
    return false;
}

bool cli_check_empty(const char *cmd, const GOptionEntry *entries)
{
    for (const GOptionEntry *e = entries; e && e->long_name; e++) {
        if (e->arg_data == NULL)
            continue;
        switch (e->arg) {
        case G_OPTION_ARG_STRING:
        case G_OPTION_ARG_FILENAME: {
            const char *v = *(char **)e->arg_data;
            if (v && !*v)
                return cli_empty_option(cmd, e);
            break;
        }
        case G_OPTION_ARG_STRING_ARRAY:
        case G_OPTION_ARG_FILENAME_ARRAY: {
            char **v = *(char ***)e->arg_data;
            for (; v && *v; v++)
                if (!**v)
                    return cli_empty_option(cmd, e);
            break;
        }
        default:
            break;
        }
    }
    return true;
}

int cli_parse(const CliHelp *h, GOptionEntry *entries, int *argc, char ***argv)
{
    gboolean help = FALSE;
    GOptionEntry help_entry[2];
    memcpy(help_entry, cli_help_entry, sizeof help_entry);
    help_entry[0].arg_data = &help;
    GOptionContext *ctx = g_option_context_new(NULL);
    /* GLib's --help prints its own layout and calls exit(); ours prints h and returns */
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!cli_has_help(entries))
        g_option_context_add_main_entries(ctx, help_entry, NULL);
    GError *e = NULL;
    int rc = -1;
    if (!g_option_context_parse(ctx, argc, argv, &e)) {
        rc = cli_usage_error(h->cmd, "%s", e->message);
        g_error_free(e);
    } else if (help) {
        cli_help_print(stdout, h, entries);
        rc = fflush(stdout) == 0 && !ferror(stdout) ? ARCHSIM_EXIT_OK : ARCHSIM_EXIT_IOERR;
    } else if (!cli_check_empty(h->cmd, entries)) {
        rc = ARCHSIM_EXIT_USAGE;
    }
    g_option_context_free(ctx);
    return rc;
}
