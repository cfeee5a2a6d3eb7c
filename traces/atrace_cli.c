/* atrace_cli.c: `archsim trace info|dump|record|gaps`: archsim's per-thread traces (FORMAT.md).
 *
 *   archsim trace info FILE...                              header, records per kind, sites, size
 *   archsim trace dump FILE [--limit N] [--addr2line BIN]   one line per record
 *   archsim trace record -o DIR -- PROGRAM ARGS...          atrace_record.c
 *   archsim trace gaps DIR --binary PROGRAM                 atrace_gaps.c (estimated gaps)
 *
 * atrace_cli_main dispatches on argv[1] through the table at_cli_commands; a new subcommand is
 * one more row there. Only this file prints; the reader reports GErrors.
 */
#include "atrace_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../sim/cli/cli.h"
#include "../sim/error.h"
#include "../sim/input.h"
#include "atrace.h"

#define AT_CLI_BATCH 4096       /* records per at_reader_read call */

typedef struct {
    const char *name;
    const char *args;           /* the usage after "archsim trace NAME" */
    const char *summary;
    int (*main)(int argc, char **argv);     /* argv[0] is the subcommand name */
} AtCliCommand;

#include "atrace_gaps.h"
#include "atrace_record.h"

static int at_cli_info(int argc, char **argv);
static int at_cli_dump(int argc, char **argv);

/* The subcommands of `archsim trace`, in the order of the help text. To add `trace record`,
 * declare its main (in its own file if it is big) and add its row here. */
static const AtCliCommand at_cli_commands[] = {
    { "info", "FILE...",
      "header fields, records per kind, sites, bytes per record, first/last gap flags",
      at_cli_info },
    { "dump", "FILE [--limit N] [--addr2line BINARY]",
      "one line per record: index, kind, size, address, order/op, arg, gap, site pc",
      at_cli_dump },
    { "record", "-o DIR [--force] [--zlevel N] [--verify] [--quiet] -- PROGRAM [ARGS...]",
      "run a program built with tools/archsim-cc; one trace per thread in DIR", atrace_record_main },
    { "gaps", "DIR --binary PROGRAM [--force] [--quiet]",
      "estimate compute gaps of a TSan-front-end recording from PROGRAM's objdump",
      atrace_gaps_main },
    { NULL, NULL, NULL, NULL },
};

static int at_cli_usage_error(const char *cmd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* Prints "archsim trace[ CMD]: MESSAGE" and the --help hint; returns 64. */
static int at_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    const char *sp = cmd != NULL ? " " : "";
    cmd = cmd != NULL ? cmd : "";
    fprintf(stderr, "archsim trace%s%s: %s\nTry 'archsim trace%s%s --help'.\n", sp, cmd, msg,
            sp, cmd);
    g_free(msg);
    return ARCHSIM_EXIT_USAGE;
}

/* Prints e's message; returns its exit code and frees it. */
static int at_cli_fail(GError *e)
{
    int code = archsim_exit_code(e);
    fprintf(stderr, "%s\n", e->message);
    g_error_free(e);
    return code;
}

static int at_cli_flush(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "archsim trace: cannot write output: %s\n", g_strerror(errno));
        return ARCHSIM_EXIT_IOERR;
    }
    return ARCHSIM_EXIT_OK;
}

static void at_cli_print_help(void)
{
    GString *usage = g_string_new(NULL), *details = g_string_new("Subcommands:\n");
    for (const AtCliCommand *c = at_cli_commands; c->name != NULL; c++) {
        g_string_append_printf(usage, "%sarchsim trace %s %s", c == at_cli_commands ? "" : "\n",
                               c->name, c->args);
        g_string_append_printf(details, "  %-6s %s\n", c->name, c->summary);
    }
    g_string_append(details, "\n`archsim trace SUBCOMMAND --help` shows a subcommand's options.\n"
                    "\nExit status: 0 success, 64 bad command line, 65 malformed or truncated "
                    "trace,\n66 trace missing or unreadable, 74 output could not be written.\n");
    const CliHelp h = {
        .cmd = "trace",
        .usage = usage->str,
        .summary = "Inspect and make archsim's per-thread traces (format: traces/FORMAT.md).",
        .details = details->str,
    };
    static const GOptionEntry none[] = { { NULL, 0, 0, 0, NULL, NULL, NULL } };
    cli_help_print(stdout, &h, none);
    g_string_free(usage, TRUE);
    g_string_free(details, TRUE);
}

int atrace_cli_main(int argc, char **argv)
{
    const char *sub = argc >= 2 ? argv[1] : NULL;
    if (sub != NULL && (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help"))) {
        at_cli_print_help();
        return at_cli_flush();
    }
    for (const AtCliCommand *c = at_cli_commands; sub != NULL && c->name != NULL; c++)
        if (!strcmp(sub, c->name))
            return c->main(argc - 1, argv + 1);
    /* "info or dump", from the table */
    GString *names = g_string_new(NULL);
    for (const AtCliCommand *c = at_cli_commands; c->name != NULL; c++)
        g_string_append_printf(names, "%s%s", c == at_cli_commands ? "" : c[1].name ? ", " : " or ",
                               c->name);
    int rc = sub == NULL ? at_cli_usage_error(NULL, "missing subcommand (%s)", names->str)
           : at_cli_usage_error(NULL, "unknown subcommand '%s' (expected %s)", sub, names->str);
    g_string_free(names, TRUE);
    return rc;
}

/* Parses the subcommand's options (GLib's --help is replaced by ours, so nothing exits).
 * On success *args holds the operands after argv[0]: the caller frees it with g_strfreev. */
static bool at_cli_parse(const char *cmd, GOptionEntry *entries, int argc, char **argv,
                         char ***args, int *rc)
{
    GOptionContext *ctx = g_option_context_new(NULL);
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    /* parse_strv owns and edits its vector: give it a copy of the caller's */
    char **v = g_new0(char *, (size_t)argc + 2);
    v[0] = g_strdup(cmd);
    for (int i = 1; i < argc; i++)
        v[i] = g_strdup(argv[i]);
    GError *err = NULL;
    bool ok = g_option_context_parse_strv(ctx, &v, &err);
    g_option_context_free(ctx);
    if (!ok) {
        *rc = at_cli_usage_error(cmd, "%s", err->message);
        g_error_free(err);
        g_strfreev(v);
        return false;
    }
    /* GLib keeps a "--" that precedes an operand starting with '-'; it only ends options */
    guint first = v[1] != NULL && !strcmp(v[1], "--") ? 2 : 1;
    guint n = g_strv_length(v) - first;
    /* an empty --addr2line or FILE names no file (it read as "": No such file) */
    char *full = g_strconcat("trace ", cmd, NULL);
    bool empty = !cli_check_empty(full, entries);
    for (guint i = 0; !empty && i < n; i++)
        if (!*v[first + i]) {
            cli_usage_error(full, "argument %u is empty (expected FILE)", i + 1);
            empty = true;
        }
    g_free(full);
    if (empty) {
        *rc = ARCHSIM_EXIT_USAGE;
        g_strfreev(v);
        return false;
    }
    /* operands are input traces: the cwd first, then the data directory (sim/input.h) */
    *args = sim_input_find_all(v + first);
    g_strfreev(v);
    return true;
}

/* ---- info ---------------------------------------------------------------------------------- */

/* The header flags as "0x3 (gaps-exact has-gaps)". */
static void at_cli_flags(GString *s, uint32_t flags)
{
    static const struct { uint32_t bit; const char *name; } names[] = {
        { AT_H_GAPS_EXACT, "gaps-exact" }, { AT_H_HAS_GAPS, "has-gaps" },
        { AT_H_PC_EXACT, "pc-exact" },
    };
    GString *words = g_string_new(NULL);
    uint32_t rest = flags;
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (flags & names[i].bit) {
            g_string_append_printf(words, "%s%s", words->len ? " " : "", names[i].name);
            rest &= ~names[i].bit;
        }
    if (rest != 0)
        g_string_append_printf(words, "%sunknown 0x%" PRIx32, words->len ? " " : "", rest);
    g_string_append_printf(s, "0x%" PRIx32, flags);
    if (words->len)
        g_string_append_printf(s, " (%s)", words->str);
    g_string_free(words, TRUE);
}

/* Reads the whole trace at path and prints its summary. */
static bool at_cli_info_one(const char *path, GError **error)
{
    AtReader *r = at_reader_open(path, error);
    if (r == NULL)
        return false;
    uint64_t per_kind[AT_KINDS] = { 0 };
    uint64_t with_gap = 0, gap_sum = 0, n = 0;
    int first_gap = -1, last_gap = -1;
    AtRecord *buf = g_new(AtRecord, AT_CLI_BATCH);
    size_t got;
    GError *err = NULL;
    while ((got = at_reader_read(r, buf, AT_CLI_BATCH, &err)) > 0) {
        for (size_t i = 0; i < got; i++) {
            per_kind[buf[i].kind]++;
            if (buf[i].flags & AT_F_GAP) {
                with_gap++;
                gap_sum += buf[i].gap;
            }
        }
        if (n == 0)
            first_gap = (buf[0].flags & AT_F_GAP) != 0;
        last_gap = (buf[got - 1].flags & AT_F_GAP) != 0;
        n += got;
    }
    g_free(buf);
    if (err != NULL) {
        g_propagate_error(error, err);
        at_reader_close(r);
        return false;
    }
    const AtHeader *h = at_reader_header(r);
    GString *flags = g_string_new(NULL);
    at_cli_flags(flags, h->flags);
    uint64_t stream = at_reader_offset(r);
    uint32_t hl = at_reader_header_size(r);
    GStatBuf st;
    uint64_t file_size = g_stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    printf("%s\n", path);
    printf("  version      %" PRIu32 " (header %" PRIu32 " bytes)\n", h->version, hl);
    printf("  flags        %s\n", flags->str);
    printf("  thread       tid %" PRIu32 ", parent %" PRId32 "\n", h->tid, h->parent);
    printf("  load base    0x%" PRIx64 "\n", h->load_base);
    printf("  frontend     %s\n", h->frontend);
    printf("  compiler     %s\n", h->compiler);
    printf("  cflags       %s\n", h->cflags);
    printf("  records      %" PRIu64 "\n", n);
    for (int k = 0; k < AT_KINDS; k++)
        if (per_kind[k] != 0)
            printf("    %-12s %" PRIu64 "\n", at_kind_name(k), per_kind[k]);
    printf("  sites        %zu\n", at_reader_sites(r));
    if (n > 0)
        printf("  bytes        %" PRIu64 " in the file, %.4f per record (%.2f before "
               "compression)\n", file_size, (double)(file_size - hl) / (double)n,
               (double)stream / (double)n);
    else
        printf("  bytes        %" PRIu64 " in the file\n", file_size);
    if (n > 0)
        printf("  gaps         %" PRIu64 " records with a gap, %" PRIu64 " instructions; "
               "first record: %s, last record: %s\n", with_gap, gap_sum,
               first_gap ? "gap" : "no gap", last_gap ? "gap" : "no gap");
    else
        printf("  gaps         none (no records)\n");
    g_string_free(flags, TRUE);
    at_reader_close(r);
    return true;
}

static int at_cli_info(int argc, char **argv)
{
    gboolean help = FALSE;
    GOptionEntry entries[] = {
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    char **files = NULL;
    int rc = ARCHSIM_EXIT_OK;
    if (!at_cli_parse("info", entries, argc, argv, &files, &rc))
        return rc;
    if (help) {
        static const CliHelp h = {
            .cmd = "trace info",
            .usage = "archsim trace info FILE...",
            .summary = "Print each trace's header, records per kind, sites and size per record.",
            .details =
                "Prints each trace's header, its records per kind, its sites, its size per\n"
                "record (compressed and not) and whether its first and last records carry gaps.\n"
                "A bad file is reported on stderr and the others are still read.\n"
                "\n"
                "Exit status: 0 success, 64 bad command line, then that of the first bad file:\n"
                "65 malformed or truncated, 66 missing or unreadable; 74 output could not be\n"
                "written.\n",
        };
        cli_help_print(stdout, &h, entries);
        g_strfreev(files);
        return at_cli_flush();
    }
    if (files[0] == NULL) {
        g_strfreev(files);
        return at_cli_usage_error("info", "missing FILE");
    }
    for (char **f = files; *f != NULL; f++) {
        GError *err = NULL;
        if (f != files)
            printf("\n");
        if (!at_cli_info_one(*f, &err)) {
            fflush(stdout);
            int code = at_cli_fail(err);
            if (rc == ARCHSIM_EXIT_OK)
                rc = code;
        }
    }
    g_strfreev(files);
    int frc = at_cli_flush();
    return rc != ARCHSIM_EXIT_OK ? rc : frc;
}

/* ---- dump ---------------------------------------------------------------------------------- */

/* The address addr2line needs for a site: the return address of a TSan hook points after the
 * call (so pc - 1, tracing.md §7), and a PIE is linked at 0 (so minus the load base). */
static uint64_t at_cli_lookup_addr(const AtHeader *h, uint64_t pc)
{
    if (!(h->flags & AT_H_PC_EXACT) && pc > 0)
        pc -= 1;
    if (h->load_base != 0 && pc >= h->load_base)
        pc -= h->load_base;
    return pc;
}

/* Runs `addr2line -f -s -e binary` once, with every site address on its stdin (a temporary
 * file, so no pipe can fill up), and fills map: pc -> "function file:line". */
static bool at_cli_addr2line(const char *binary, const AtHeader *h, GArray *pcs, GHashTable *map,
                             GError **error)
{
    if (!g_file_test(binary, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s",
                    binary, g_strerror(g_file_test(binary, G_FILE_TEST_EXISTS) ? EISDIR : ENOENT));
        return false;
    }
    GString *query = g_string_new(NULL);
    for (guint i = 0; i < pcs->len; i++)
        g_string_append_printf(query, "0x%" PRIx64 "\n",
                               at_cli_lookup_addr(h, g_array_index(pcs, uint64_t, i)));
    char *tmp = NULL;
    int in_fd = g_file_open_tmp("archsim-addr2line-XXXXXX", &tmp, error);
    if (in_fd < 0) {
        g_string_free(query, TRUE);
        return false;
    }
    bool ok = write(in_fd, query->str, query->len) == (ssize_t)query->len &&
              lseek(in_fd, 0, SEEK_SET) == 0;
    g_string_free(query, TRUE);
    g_unlink(tmp);
    g_free(tmp);
    if (!ok) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_IOERR,
                    "cannot write addr2line's input: %s", g_strerror(errno));
        close(in_fd);
        return false;
    }

    const char *argv[] = { "addr2line", "-f", "-s", "-e", binary, NULL };
    GPid pid;
    int out_fd = -1;
    GError *err = NULL;
    ok = g_spawn_async_with_pipes_and_fds(NULL, argv, NULL,
                                          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                          NULL, in_fd, -1, -1, NULL, NULL, 0, &pid, NULL,
                                          &out_fd, NULL, &err);
    close(in_fd);
    if (!ok) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_SOFTWARE, "cannot run addr2line: %s",
                    err->message);
        g_error_free(err);
        return false;
    }
    GString *out = g_string_new(NULL);
    char chunk[65536];
    ssize_t k;
    while ((k = read(out_fd, chunk, sizeof chunk)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        g_string_append_len(out, chunk, k);
    }
    close(out_fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    g_spawn_close_pid(pid);
    char **lines = g_strsplit(out->str, "\n", -1);
    guint nlines = g_strv_length(lines);
    g_string_free(out, TRUE);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || nlines < 2 * pcs->len) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: addr2line failed (%s %d, %u of %u lines)", binary,
                    WIFEXITED(status) ? "exit status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), nlines,
                    2 * pcs->len);
        g_strfreev(lines);
        return false;
    }
    for (guint i = 0; i < pcs->len; i++) {
        uint64_t *key = g_new(uint64_t, 1);
        *key = g_array_index(pcs, uint64_t, i);
        g_hash_table_insert(map, key, g_strdup_printf("%s %s", lines[2 * i], lines[2 * i + 1]));
    }
    g_strfreev(lines);
    return true;
}

/* First pass for --addr2line: the distinct site PCs of the first `limit` records, which are
 * the reader's site table after them. A broken trace yields the sites before the damage; the
 * second pass reports the error. */
static GArray *at_cli_collect_pcs(const char *path, uint64_t limit)
{
    GArray *pcs = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    AtReader *r = at_reader_open(path, NULL);
    if (r == NULL)
        return pcs;
    AtRecord *buf = g_new(AtRecord, AT_CLI_BATCH);
    uint64_t n = 0;
    size_t got;
    while (n < limit &&
           (got = at_reader_read(r, buf, (size_t)MIN(limit - n, AT_CLI_BATCH), NULL)) > 0)
        n += got;
    for (size_t i = 0; i < at_reader_sites(r); i++) {
        uint64_t pc = at_reader_site_pc(r, i);
        g_array_append_val(pcs, pc);
    }
    g_free(buf);
    at_reader_close(r);
    return pcs;
}

/* The order column: "seq_cst", "add/acq_rel[/unchanged]" (RMW), "acq_rel/acquire" (CAS: success
 * and failure orders), "-" for kinds without one. */
static const char *at_cli_order(const AtRecord *x, char *buf, size_t len)
{
    uint32_t bit = AT_KIND_BIT(x->kind);
    if (!(bit & AT_KINDS_ATOMIC))
        return "-";
    if (x->kind == AT_RMW)
        g_snprintf(buf, len, "%s/%s%s", at_op_name(x->op), at_order_name(x->mo),
                   (x->flags & AT_F_UNCHANGED) ? "/unchanged" : "");
    else if (bit & AT_KINDS_CAS)
        g_snprintf(buf, len, "%s/%s", at_order_name(x->mo), at_order_name(x->mo_fail));
    else
        g_snprintf(buf, len, "%s", at_order_name(x->mo));
    return buf;
}

static bool at_cli_dump_one(const char *path, uint64_t limit, GHashTable *lines, GError **error)
{
    AtReader *r = at_reader_open(path, error);
    if (r == NULL)
        return false;
    const AtHeader *h = at_reader_header(r);
    printf("# %s: tid %" PRIu32 ", parent %" PRId32 ", frontend %s, load base 0x%" PRIx64 "\n",
           path, h->tid, h->parent, h->frontend[0] ? h->frontend : "-", h->load_base);
    printf("# index kind size address order arg gap pc%s\n",
           lines != NULL ? " function file:line" : "");
    AtRecord *buf = g_new(AtRecord, AT_CLI_BATCH);
    uint64_t n = 0;
    size_t got = 0;
    GError *err = NULL;
    while (n < limit &&
           (got = at_reader_read(r, buf, (size_t)MIN(limit - n, AT_CLI_BATCH), &err)) > 0) {
        for (size_t i = 0; i < got; i++, n++) {
            const AtRecord *x = &buf[i];
            uint32_t bit = AT_KIND_BIT(x->kind);
            char addr[24] = "-", arg[24] = "-", gap[24] = "-", order[48];
            if (bit & AT_KINDS_ADDR)
                g_snprintf(addr, sizeof addr, "0x%" PRIx64, x->addr);
            if (bit & AT_KINDS_ARG)
                g_snprintf(arg, sizeof arg, "%" PRIu64, x->arg);
            if (x->flags & AT_F_GAP)
                g_snprintf(gap, sizeof gap, "%" PRIu64, x->gap);
            printf("%" PRIu64 " %s %" PRIu32 " %s %s %s %s 0x%" PRIx64, n, at_kind_name(x->kind),
                   x->size, addr, at_cli_order(x, order, sizeof order), arg, gap, x->pc);
            if (lines != NULL) {
                const char *where = g_hash_table_lookup(lines, &x->pc);
                printf(" %s", where != NULL ? where : "?? ??:0");
            }
            putchar('\n');
        }
    }
    g_free(buf);
    at_reader_close(r);
    if (err != NULL) {
        g_propagate_error(error, err);
        return false;
    }
    return true;
}

static int at_cli_dump(int argc, char **argv)
{
    gboolean help = FALSE;
    char *limit_text = NULL, *binary = NULL;
    GOptionEntry entries[] = {
        { "limit", 0, 0, G_OPTION_ARG_STRING, &limit_text, "Print the first N records only",
          "N" },
        { "addr2line", 0, 0, G_OPTION_ARG_FILENAME, &binary,
          "Map site PCs to function file:line with addr2line", "BINARY" },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    char **files = NULL;
    int rc = ARCHSIM_EXIT_OK;
    GHashTable *lines = NULL;
    GArray *pcs = NULL;
    if (!at_cli_parse("dump", entries, argc, argv, &files, &rc))
        goto out;
    if (help) {
        static const CliHelp h = {
            .cmd = "trace dump",
            .usage = "archsim trace dump FILE [--limit N] [--addr2line BINARY]",
            .summary = "Print one line per record of a trace.",
            .details =
                "Prints one line per record after two '#' lines (the header, the columns):\n"
                "  index kind size address order arg gap pc [function file:line]\n"
                "'-' marks a field the kind does not have; order is MO, OP/MO[/unchanged] for\n"
                "RMW, MO/FAILURE-MO for CAS. --addr2line runs addr2line once on BINARY (the\n"
                "traced executable) with every site's PC, less the load base, less 1 unless the\n"
                "header says the PCs are exact (return addresses of the TSan hooks).\n"
                "\n"
                "Exit status: 0 success, 64 bad command line, 65 malformed or truncated trace,\n"
                "66 trace missing or unreadable, 74 output could not be written.\n",
        };
        cli_help_print(stdout, &h, entries);
        rc = at_cli_flush();
        goto out;
    }
    uint64_t limit = UINT64_MAX;
    if (limit_text != NULL) {
        char *end = NULL;
        errno = 0;
        guint64 v = g_ascii_strtoull(limit_text, &end, 10);
        if (*limit_text == '\0' || *end != '\0' || errno != 0 || *limit_text == '-') {
            rc = at_cli_usage_error("dump", "--limit: '%s' is not a record count", limit_text);
            goto out;
        }
        limit = v;
    }
    if (files[0] == NULL) {
        rc = at_cli_usage_error("dump", "missing FILE");
        goto out;
    }
    if (files[1] != NULL) {
        rc = at_cli_usage_error("dump", "unexpected argument '%s' (one FILE only)", files[1]);
        goto out;
    }
    GError *err = NULL;
    if (binary != NULL) {
        AtReader *r = at_reader_open(files[0], &err);
        if (r == NULL) {
            rc = at_cli_fail(err);
            goto out;
        }
        AtHeader h = *at_reader_header(r);
        at_reader_close(r);
        pcs = at_cli_collect_pcs(files[0], limit);
        lines = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
        if (pcs->len > 0 && !at_cli_addr2line(binary, &h, pcs, lines, &err)) {
            rc = at_cli_fail(err);
            goto out;
        }
    }
    if (!at_cli_dump_one(files[0], limit, lines, &err)) {
        fflush(stdout);
        rc = at_cli_fail(err);
        goto out;
    }
    rc = at_cli_flush();
out:
    if (lines != NULL)
        g_hash_table_destroy(lines);
    if (pcs != NULL)
        g_array_free(pcs, TRUE);
    g_strfreev(files);
    g_free(limit_text);
    g_free(binary);
    return rc;
}
