/* diff.c: `archsim diff RUN_A RUN_B`: every stat that differs between two runs (or two stats.json
 * files, or two sweep directories point by point), with the absolute and relative change, sorted
 * by the size of the relative change. The exit status follows diff(1) and cmp(1) (POSIX): 0 when
 * the compared stats are identical, 1 when some differ, above 1 for trouble.
 */
#include "diff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../error.h"
#include "../input.h"
#include "../json.h"
#include "../jsonread.h"
#include "../param.h"
#include "sweep.h"

static const CliHelp diff_help = {
    .cmd = "diff",
    .usage = "archsim diff A B [--stats GLOB,...] [--threshold PCT] [--all] "
             "[--format text|csv|json]",
    .summary = "Compare two runs' statistics: every stat that differs, largest relative change "
               "first.",
    .details =
        "A and B are run directories (their stats.json), two stats.json files, or two sweep\n"
        "directories (compared point by point, names prefixed point-NNNN/). Prints every stat\n"
        "whose value differs, with both values, the change B-A and the relative change\n"
        "(B-A)/|A| (+inf or -inf when A is 0), largest relative change first (ties: larger\n"
        "|B-A| first, then by name), then the stats that only one side has.\n"
        "\n"
        "stats.json holds only simulated quantities (the same config and seed give the same\n"
        "file); the host-time figures (host_seconds, sim_cycles_per_host_second, ...) are in\n"
        "run.json and are compared only with --all, as run.json:NAME.\n"
        "\n"
        "Examples:\n"
        "  archsim run configs/default.yaml -q -o runs/base\n"
        "  archsim run configs/default.yaml -q -o runs/l1d64k --set l1d.size=64KiB\n"
        "  archsim diff runs/base runs/l1d64k                  # exit 1: they differ\n"
        "  archsim diff runs/base runs/l1d64k --stats 'l1d.*,sim.cycles' --threshold 1  # exit 1\n"
        "\n"
        "Exit status: 0 identical (for the compared stats), 1 some differ or exist on one side\n"
        "only, 64 bad command line, 65 a stats.json or run.json that does not parse\n"
        "(FILE:LINE:COL) or is over 256 MiB, 66 a run directory or file that is missing or\n"
        "unreadable.\n",
};

typedef struct {
    char *name;           /* as compared and printed: [point-NNNN/]NAME or [...]run.json:NAME */
    const char *base;     /* name without the point prefix: what --stats globs match */
    const JsonNumber *n;
} DiffStat;

typedef struct {
    const char *arg;
    bool sweep;
    GPtrArray *stats;     /* DiffStat*, in file order */
    GPtrArray *files;     /* GPtrArray* of JsonNumber* (the owners) */
    GHashTable *index;    /* name -> DiffStat* */
} DiffSide;

typedef struct {
    const DiffStat *a, *b;
    double absd, rel;     /* B - A; (B - A) / |A| unless rel_inf */
    bool rel_inf;
    bool int_abs;         /* both integers: the change is exact in abs_neg/abs_mag */
    bool abs_neg;
    uint64_t abs_mag;
} DiffRow;

static void diff_stat_free(gpointer p)
{
    DiffStat *s = p;
    g_free(s->name);
    g_free(s);
}

static void diff_side_init(DiffSide *s, const char *arg)
{
    s->arg = arg;
    s->sweep = false;
    s->stats = g_ptr_array_new_with_free_func(diff_stat_free);
    s->files = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    s->index = g_hash_table_new(g_str_hash, g_str_equal);
}

static void diff_side_clear(DiffSide *s)
{
    g_hash_table_destroy(s->index);
    g_ptr_array_free(s->stats, TRUE);
    g_ptr_array_free(s->files, TRUE);
}

/* stats.json and run.json are archsim's own files, a few MiB at most; a larger one is refused (65)
 * before it is read */
#define DIFF_MAX_BYTES ((uint64_t)256 << 20)

/* Reads one JSON file into the side: its numbers become PREFIX + NAME. */
static bool diff_load_json(DiffSide *s, const char *path, const char *prefix, size_t base_at,
                           bool numbers_only, GError **error)
{
    /* a regular file (no FIFO or device), read whole only below the limit */
    GString *text = g_string_new(NULL);
    if (!sim_read_regular(path, DIFF_MAX_BYTES, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_DATAERR, text,
                          error)) {
        g_string_free(text, TRUE);
        return false;
    }
    GPtrArray *nums = json_read_numbers(path, text->str, text->len, numbers_only, error);
    g_string_free(text, TRUE);
    if (!nums)
        return false;
    g_ptr_array_add(s->files, nums);
    for (guint i = 0; i < nums->len; i++) {
        const JsonNumber *n = g_ptr_array_index(nums, i);
        DiffStat *d = g_new0(DiffStat, 1);
        d->name = g_strconcat(prefix, n->name, NULL);
        d->base = d->name + base_at;
        d->n = n;
        if (g_hash_table_contains(s->index, d->name)) {
            /* only possible when a stat of stats.json is itself named run.json:NAME */
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s:%d:%d: \"%s\" is also the name of another stat of %s", path, n->line,
                        n->col, n->name, s->arg);
            diff_stat_free(d);
            return false;
        }
        g_ptr_array_add(s->stats, d);
        g_hash_table_insert(s->index, d->name, d);
    }
    return true;
}

/* A run: DIR/stats.json (or the file itself), plus run.json beside it with --all. */
static bool diff_load_run(DiffSide *s, const char *stats_path, const char *prefix, bool all,
                          GError **error)
{
    size_t base_at = strlen(prefix);
    if (!diff_load_json(s, stats_path, prefix, base_at, true, error))
        return false;
    if (!all)
        return true;
    char *dir = g_path_get_dirname(stats_path);
    char *run_json = g_build_filename(dir, "run.json", NULL);
    bool ok = true;
    if (g_file_test(run_json, G_FILE_TEST_EXISTS)) {
        char *p = g_strconcat(prefix, "run.json:", NULL);
        ok = diff_load_json(s, run_json, p, base_at, false, error);
        g_free(p);
    } else {
        fprintf(stderr, "archsim diff: warning: no %s; --all compares only stats.json there\n",
                run_json);
    }
    g_free(run_json);
    g_free(dir);
    return ok;
}

static bool diff_is_point_name(const char *n)
{
    if (!g_str_has_prefix(n, "point-") || !n[6])
        return false;
    for (const char *p = n + 6; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static gint diff_strcmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool diff_load_side(DiffSide *s, bool all, GError **error)
{
    const char *arg = s->arg;
    if (!g_file_test(arg, G_FILE_TEST_EXISTS)) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: no such run directory or stats.json file", arg);
        return false;
    }
    if (!g_file_test(arg, G_FILE_TEST_IS_DIR)) {
        if (!g_file_test(arg, G_FILE_TEST_IS_REGULAR)) {
            /* a FIFO or a device could block the read forever */
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_NOINPUT,
                        "%s: not a regular file nor a directory (expected a run directory or a "
                        "stats.json file)", arg);
            return false;
        }
        return diff_load_run(s, arg, "", all, error);
    }
    char *stats = g_build_filename(arg, "stats.json", NULL);
    if (g_file_test(stats, G_FILE_TEST_EXISTS)) {
        bool ok = diff_load_run(s, stats, "", all, error);
        g_free(stats);
        return ok;
    }
    g_free(stats);
    /* a sweep directory: point-NNNN/ subdirectories, in name order (zero-padded: point order) */
    GError *e = NULL;
    GDir *d = g_dir_open(arg, 0, &e);
    if (!d) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s", arg,
                    e->message);
        g_error_free(e);
        return false;
    }
    GPtrArray *points = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(d));) {
        char *p = g_build_filename(arg, n, NULL);
        if (diff_is_point_name(n) && g_file_test(p, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(points, g_strdup(n));
        g_free(p);
    }
    g_dir_close(d);
    g_ptr_array_sort(points, diff_strcmp);
    bool ok = true;
    if (points->len == 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: not a run directory (no stats.json) nor a sweep directory (no "
                    "point-NNNN/)", arg);
        ok = false;
    }
    s->sweep = true;
    for (guint i = 0; ok && i < points->len; i++) {
        const char *pt = g_ptr_array_index(points, i);
        char *path = g_build_filename(arg, pt, "stats.json", NULL);
        char *prefix = g_strconcat(pt, "/", NULL);
        /* a point that failed has no stats.json: its stats are on the other side only */
        if (g_file_test(path, G_FILE_TEST_EXISTS))
            ok = diff_load_run(s, path, prefix, all, error);
        g_free(prefix);
        g_free(path);
    }
    g_ptr_array_free(points, TRUE);
    return ok;
}

static bool diff_is_zero(const JsonNumber *n)
{
    return n->is_int ? n->mag == 0 : n->d == 0;
}

static bool diff_equal(const JsonNumber *a, const JsonNumber *b)
{
    if (a->is_int && b->is_int)
        return a->neg == b->neg && a->mag == b->mag;
    return a->d == b->d;
}

/* B - A for two exact integers; false when the result does not fit 64 bits of magnitude. */
static bool diff_int_sub(const JsonNumber *a, const JsonNumber *b, bool *neg, uint64_t *mag)
{
    bool an = !a->neg;          /* -A */
    if (an == b->neg) {         /* same signs: magnitudes add */
        if (b->mag > UINT64_MAX - a->mag)
            return false;
        *mag = a->mag + b->mag;
        *neg = b->neg;
    } else if (b->mag >= a->mag) {
        *mag = b->mag - a->mag;
        *neg = b->neg;
    } else {
        *mag = a->mag - b->mag;
        *neg = an;
    }
    if (*mag == 0)
        *neg = false;
    return true;
}

static DiffRow diff_row(const DiffStat *a, const DiffStat *b)
{
    DiffRow r = { .a = a, .b = b };
    if (a->n->is_int && b->n->is_int && diff_int_sub(a->n, b->n, &r.abs_neg, &r.abs_mag)) {
        r.int_abs = true;
        r.absd = r.abs_neg ? -(double)r.abs_mag : (double)r.abs_mag;
    } else {
        r.absd = b->n->d - a->n->d;
    }
    if (diff_is_zero(a->n))
        r.rel_inf = true;
    else
        r.rel = r.absd / fabs(a->n->d);
    return r;
}

/* --threshold as a decimal N / 10^k, when it is one of at most 18 digits and 9 decimals */
typedef struct {
    bool ok;
    uint64_t n;
    unsigned k;
} DiffPct;

static DiffPct diff_pct_parse(const char *t)
{
    DiffPct p = { 0 };
    unsigned digits = 0;
    bool dot = false;
    for (; *t && *t != '%'; t++) {
        if (*t == '.' && !dot) {
            dot = true;
            continue;
        }
        if (!g_ascii_isdigit(*t) || ++digits > 18 || (dot && ++p.k > 9))
            return (DiffPct){ 0 };
        p.n = p.n * 10 + (uint64_t)(*t - '0');
    }
    p.ok = digits > 0;
    return p;
}

/* Whether |B-A| / |A| is below pct percent. Integers against a decimal threshold exactly, in
 * 128 bits (|B-A| x 100 x 10^k < N x |A|: 1000 -> 1290 is not below 29, 3000 -> 3033 not below
 * 1.1, 10^18 + 100 -> 1.29 x 10^18 + 129 not below 29); otherwise in doubles, by products while
 * they are finite (no rounded division), else by the ratio. */
static bool diff_below(const DiffRow *r, const DiffStat *a, double pct, const DiffPct *exact)
{
    if (r->int_abs && a->n->is_int && exact->ok) {
        unsigned __int128 scale = 100;
        for (unsigned i = 0; i < exact->k; i++)
            scale *= 10;
        return (unsigned __int128)r->abs_mag * scale < (unsigned __int128)exact->n * a->n->mag;
    }
    double lhs = fabs(r->absd) * 100, rhs = pct * fabs(a->n->d);
    if (isfinite(lhs) && isfinite(rhs))
        return lhs < rhs;
    return fabs(r->rel) * 100 < pct;
}

/* Largest |relative change| first (a change from 0 counts as infinite), then larger |B-A|,
 * then name (bytewise): a total order, so the output never depends on the file order. */
static gint diff_row_cmp(gconstpointer pa, gconstpointer pb)
{
    const DiffRow *a = pa, *b = pb;
    if (a->rel_inf != b->rel_inf)
        return a->rel_inf ? -1 : 1;
    if (!a->rel_inf && fabs(a->rel) != fabs(b->rel))
        return fabs(a->rel) > fabs(b->rel) ? -1 : 1;
    if (fabs(a->absd) != fabs(b->absd))
        return fabs(a->absd) > fabs(b->absd) ? -1 : 1;
    return strcmp(a->a->name, b->a->name);
}

/* The change B-A: exact for integers; doubles in %.17g (json, csv) or %.6g (text). */
static void diff_abs_text(const DiffRow *r, bool text, char *buf, size_t n)
{
    if (r->int_abs)
        g_snprintf(buf, n, "%s%" G_GUINT64_FORMAT, r->abs_neg ? "-" : (text ? "+" : ""),
                   r->abs_mag);
    else if (text)
        g_snprintf(buf, n, "%+.6g", r->absd);
    else
        g_snprintf(buf, n, "%.17g", r->absd);
}

static void diff_rel_text(const DiffRow *r, bool text, char *buf, size_t n)
{
    if (r->rel_inf)
        g_strlcpy(buf, r->absd < 0 ? "-inf" : (text ? "+inf" : "inf"), n);
    else if (text)
        g_snprintf(buf, n, "%+.4g%%", r->rel * 100);
    else
        g_snprintf(buf, n, "%.17g", r->rel);
}

/* JSON string: UTF-8 passes through (names were validated by the reader), a byte that is not
 * UTF-8 (a path given on the command line) becomes U+FFFD. */
typedef enum { DIFF_TEXT, DIFF_CSV, DIFF_JSON } DiffFormat;

typedef struct {
    const DiffSide *a, *b;
    GArray *rows;            /* DiffRow, shown, sorted */
    GPtrArray *only_a, *only_b;  /* const DiffStat* */
    guint compared, hidden;
    const char *threshold;   /* as given, or NULL */
} DiffResult;

static void diff_print_text(const DiffResult *d, GString *out)
{
    bool same = d->rows->len == 0 && d->only_a->len == 0 && d->only_b->len == 0;
    char *hidden = g_strdup("");
    if (d->hidden) {
        /* the threshold as given, without a '%' it may end in (it said "29%%") */
        size_t n = strlen(d->threshold);
        int w = (int)(n > 0 && d->threshold[n - 1] == '%' ? n - 1 : n);   /* an argument */
        g_free(hidden);
        hidden = g_strdup_printf(" (%u %s below --threshold %.*s%% not shown)", d->hidden,
                                 d->hidden == 1 ? "change" : "changes", w, d->threshold);
    }
    if (same) {
        g_string_append_printf(out, "identical: %u stats compared%s\n", d->compared, hidden);
        g_free(hidden);
        return;
    }
    g_string_append_printf(out, "A: %s\nB: %s\n", d->a->arg, d->b->arg);
    if (d->rows->len) {
        int wn = 4, wa = 1, wb = 1, wd = 3, wr = 7;
        char buf[64];
        for (guint i = 0; i < d->rows->len; i++) {
            const DiffRow *r = &g_array_index(d->rows, DiffRow, i);
            wn = MAX(wn, (int)strlen(r->a->name));
            wa = MAX(wa, (int)strlen(r->a->n->text));
            wb = MAX(wb, (int)strlen(r->b->n->text));
            diff_abs_text(r, true, buf, sizeof buf);
            wd = MAX(wd, (int)strlen(buf));
            diff_rel_text(r, true, buf, sizeof buf);
            wr = MAX(wr, (int)strlen(buf));
        }
        g_string_append_printf(out, "%-*s  %*s  %*s  %*s  %*s\n", wn, "stat", wa, "A", wb, "B", wd,
                               "B-A", wr, "(B-A)/A");
        for (guint i = 0; i < d->rows->len; i++) {
            const DiffRow *r = &g_array_index(d->rows, DiffRow, i);
            char ab[64], rel[64];
            diff_abs_text(r, true, ab, sizeof ab);
            diff_rel_text(r, true, rel, sizeof rel);
            g_string_append_printf(out, "%-*s  %*s  %*s  %*s  %*s\n", wn, r->a->name, wa,
                                   r->a->n->text, wb, r->b->n->text, wd, ab, wr, rel);
        }
    }
    const GPtrArray *only[2] = { d->only_a, d->only_b };
    for (int k = 0; k < 2; k++) {
        if (only[k]->len == 0)
            continue;
        int wn = 1;
        for (guint i = 0; i < only[k]->len; i++)
            wn = MAX(wn, (int)strlen(((const DiffStat *)g_ptr_array_index(only[k], i))->name));
        g_string_append_printf(out, "only in %s (%u):\n", k ? "B" : "A", only[k]->len);
        for (guint i = 0; i < only[k]->len; i++) {
            const DiffStat *s = g_ptr_array_index(only[k], i);
            g_string_append_printf(out, "  %-*s  %s\n", wn, s->name, s->n->text);
        }
    }
    g_string_append_printf(out, "%u of %u compared stats differ%s; %u only in A, %u only in B\n",
                           d->rows->len, d->compared, hidden, d->only_a->len, d->only_b->len);
    g_free(hidden);
}

static void diff_print_csv(const DiffResult *d, GString *out)
{
    g_string_append(out, "name,status,a,b,abs_change,rel_change\n");
    char ab[64], rel[64];
    for (guint i = 0; i < d->rows->len; i++) {
        const DiffRow *r = &g_array_index(d->rows, DiffRow, i);
        diff_abs_text(r, false, ab, sizeof ab);
        diff_rel_text(r, false, rel, sizeof rel);
        sweep_csv_field(out, r->a->name);
        g_string_append_printf(out, ",changed,%s,%s,%s,%s\n", r->a->n->text, r->b->n->text, ab,
                               rel);
    }
    const GPtrArray *only[2] = { d->only_a, d->only_b };
    for (int k = 0; k < 2; k++)
        for (guint i = 0; i < only[k]->len; i++) {
            const DiffStat *s = g_ptr_array_index(only[k], i);
            sweep_csv_field(out, s->name);
            g_string_append_printf(out, k ? ",only_b,,%s,,\n" : ",only_a,%s,,,\n", s->n->text);
        }
}

static void diff_print_json(const DiffResult *d, GString *out)
{
    bool same = d->rows->len == 0 && d->only_a->len == 0 && d->only_b->len == 0;
    g_string_append(out, "{\n  \"a\": ");
    json_append_string(out, d->a->arg);
    g_string_append(out, ",\n  \"b\": ");
    json_append_string(out, d->b->arg);
    g_string_append_printf(out, ",\n  \"compared\": %u,\n  \"identical\": %s,\n  \"hidden\": %u,\n"
                           "  \"changed\": [", d->compared, same ? "true" : "false", d->hidden);
    char ab[64], rel[64];
    for (guint i = 0; i < d->rows->len; i++) {
        const DiffRow *r = &g_array_index(d->rows, DiffRow, i);
        diff_abs_text(r, false, ab, sizeof ab);
        diff_rel_text(r, false, rel, sizeof rel);
        g_string_append(out, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        json_append_string(out, r->a->name);
        g_string_append_printf(out, ", \"a\": %s, \"b\": %s, \"abs\": %s, \"rel\": %s}",
                               r->a->n->text, r->b->n->text, ab, r->rel_inf ? "null" : rel);
    }
    g_string_append(out, d->rows->len ? "\n  ]" : "]");
    const GPtrArray *only[2] = { d->only_a, d->only_b };
    for (int k = 0; k < 2; k++) {
        g_string_append_printf(out, ",\n  \"only_%s\": [", k ? "b" : "a");
        for (guint i = 0; i < only[k]->len; i++) {
            const DiffStat *s = g_ptr_array_index(only[k], i);
            g_string_append(out, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
            json_append_string(out, s->name);
            g_string_append_printf(out, ", \"value\": %s}", s->n->text);
        }
        g_string_append(out, only[k]->len ? "\n  ]" : "]");
    }
    g_string_append(out, "\n}\n");
}

static int diff_usage(const char *msg)
{
    fprintf(stderr, "archsim diff: %s\nTry 'archsim diff --help'.\n", msg);
    return ARCHSIM_EXIT_USAGE;
}

static bool diff_selected(const DiffStat *s, GPatternSpec **pats, guint npats, bool *hit)
{
    if (npats == 0)
        return true;
    bool any = false;
    for (guint i = 0; i < npats; i++)
        if (g_pattern_spec_match_string(pats[i], s->base)) {
            hit[i] = true;
            any = true;
        }
    return any;
}

/* A glob that selected nothing: the precise complaint, with the closest name of either side. */
static int diff_glob_unmatched(const char *glob, const DiffSide *a, const DiffSide *b)
{
    GPtrArray *names = g_ptr_array_new();
    const DiffSide *sides[2] = { a, b };
    for (int k = 0; k < 2; k++)
        for (guint i = 0; i < sides[k]->stats->len; i++)
            g_ptr_array_add(names, (gpointer)((const DiffStat *)
                                              g_ptr_array_index(sides[k]->stats, i))->base);
    const char *hint = param_suggest(glob, (const char *const *)names->pdata, names->len);
    char *msg = g_strdup_printf("--stats '%s' matches no stat of %s or %s%s%s%s", glob, a->arg,
                                b->arg, hint ? "; did you mean '" : " (`archsim diff A B` lists "
                                "what differs; stats.json has every name)", hint ? hint : "",
                                hint ? "'?" : "");
    int rc = diff_usage(msg);
    g_free(msg);
    g_ptr_array_free(names, TRUE);
    return rc;
}

int diff_main(int argc, char **argv)
{
    char *stats = NULL, *threshold = NULL, *format = NULL;
    gboolean all = FALSE;
    GOptionEntry entries[] = {
        { "stats", 0, 0, G_OPTION_ARG_STRING, &stats,
          "compare only the stats matching one of these globs (* and ?, as in sweep --stats); "
          "a glob that matches no stat of either side is an error", "GLOB,..." },
        { "threshold", 0, 0, G_OPTION_ARG_STRING, &threshold,
          "hide changes whose |relative change| is below PCT percent (a change from 0 is "
          "always shown); hidden changes count as identical", "PCT" },
        { "all", 0, 0, G_OPTION_ARG_NONE, &all,
          "also compare run.json's numbers (host time, events per second, ...)", NULL },
        { "format", 0, 0, G_OPTION_ARG_STRING, &format,
          "text (default), csv (name,status,a,b,abs_change,rel_change) or json", "FMT" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GError *e = NULL;
    int rc = 0;
    DiffFormat fmt = DIFF_TEXT;
    double pct = 0;
    DiffPct pct_exact = { 0 };
    GPatternSpec **pats = NULL;
    char **globs = NULL;
    guint npats = 0;
    bool loaded = false;
    DiffSide a, b;
    int prc = cli_parse(&diff_help, entries, &argc, &argv);
    if (prc >= 0) {
        rc = prc;
        goto out;
    }
    if (format && !strcmp(format, "csv")) {
        fmt = DIFF_CSV;
    } else if (format && !strcmp(format, "json")) {
        fmt = DIFF_JSON;
    } else if (format && strcmp(format, "text")) {
        char *m = g_strdup_printf("--format '%s': expected text, csv or json", format);
        rc = diff_usage(m);
        g_free(m);
        goto out;
    }
    if (threshold) {
        char *end = NULL;
        pct = g_ascii_strtod(threshold, &end);
        if (end && *end == '%')
            end++;
        if (end != threshold && end && !*end && pct >= 0 && !isinf(pct))
            pct_exact = diff_pct_parse(threshold);
        if (end == threshold || !end || *end || !(pct >= 0) || isinf(pct)) {
            char *m = g_strdup_printf("--threshold '%s': expected a percentage (a number >= 0, "
                                      "e.g. 1 or 0.5%%)", threshold);
            rc = diff_usage(m);
            g_free(m);
            goto out;
        }
    }
    if (stats) {
        globs = g_strsplit(stats, ",", -1);
        guint n = g_strv_length(globs);
        pats = g_new0(GPatternSpec *, n ? n : 1);
        for (; npats < n; npats++) {
            if (!globs[npats][0]) {
                rc = diff_usage("--stats: an empty glob (expected GLOB,GLOB,...)");
                goto out;
            }
            pats[npats] = g_pattern_spec_new(globs[npats]);
        }
        if (n == 0) {
            rc = diff_usage("--stats: an empty glob (expected GLOB,GLOB,...)");
            goto out;
        }
    }
    if (argc == 3 && (!argv[1][0] || !argv[2][0])) {
        rc = diff_usage("an empty path (expected a run directory or a stats.json file)");
        goto out;
    }
    if (argc != 3) {
        rc = diff_usage(argc < 3 ? "expected two runs: archsim diff A B" :
                        "expected exactly two runs A and B");
        goto out;
    }
    diff_side_init(&a, argv[1]);
    diff_side_init(&b, argv[2]);
    loaded = true;
    if (!diff_load_side(&a, all, &e) || !diff_load_side(&b, all, &e)) {
        rc = archsim_exit_code(e);
        fprintf(stderr, "%s\n", e->message);   /* FILE:LINE:COL first, as a compiler does */
        g_clear_error(&e);
        goto out;
    }
    if (a.sweep != b.sweep) {
        char *m = g_strdup_printf("%s is a %s but %s is a %s: compare two runs or two sweeps",
                                  a.arg, a.sweep ? "sweep directory" : "run",
                                  b.arg, b.sweep ? "sweep directory" : "run");
        rc = diff_usage(m);
        g_free(m);
        goto out;
    }
    bool *hit = g_new0(bool, npats ? npats : 1);
    DiffResult d = { &a, &b, g_array_new(FALSE, FALSE, sizeof(DiffRow)), g_ptr_array_new(),
                     g_ptr_array_new(), 0, 0, threshold };
    for (guint i = 0; i < a.stats->len; i++) {
        const DiffStat *sa = g_ptr_array_index(a.stats, i);
        if (!diff_selected(sa, pats, npats, hit))
            continue;
        const DiffStat *sb = g_hash_table_lookup(b.index, sa->name);
        if (!sb) {
            g_ptr_array_add(d.only_a, (gpointer)sa);
            continue;
        }
        d.compared++;
        if (diff_equal(sa->n, sb->n))
            continue;
        DiffRow r = diff_row(sa, sb);
        if (!r.rel_inf && diff_below(&r, sa, pct, &pct_exact))
            d.hidden++;
        else
            g_array_append_val(d.rows, r);
    }
    for (guint i = 0; i < b.stats->len; i++) {
        const DiffStat *sb = g_ptr_array_index(b.stats, i);
        if (diff_selected(sb, pats, npats, hit) && !g_hash_table_contains(a.index, sb->name))
            g_ptr_array_add(d.only_b, (gpointer)sb);
    }
    for (guint i = 0; i < npats && rc == 0; i++)
        if (!hit[i])
            rc = diff_glob_unmatched(globs[i], &a, &b);
    g_free(hit);
    if (rc == 0) {
        g_array_sort(d.rows, diff_row_cmp);
        GString *out = g_string_new(NULL);
        if (fmt == DIFF_TEXT)
            diff_print_text(&d, out);
        else if (fmt == DIFF_CSV)
            diff_print_csv(&d, out);
        else
            diff_print_json(&d, out);
        fputs(out->str, stdout);
        g_string_free(out, TRUE);
        rc = d.rows->len || d.only_a->len || d.only_b->len ? 1 : 0;
    }
    g_array_free(d.rows, TRUE);
    g_ptr_array_free(d.only_a, TRUE);
    g_ptr_array_free(d.only_b, TRUE);
out:
    if (loaded) {
        diff_side_clear(&a);
        diff_side_clear(&b);
    }
    for (guint i = 0; i < npats; i++)
        g_pattern_spec_free(pats[i]);
    g_free(pats);
    g_strfreev(globs);
    g_free(stats);
    g_free(threshold);
    g_free(format);
    return rc;
}
