/* stats.c: stat sets and their text (gem5 layout), JSON and CSV renderings. Doubles are printed
 * with a fixed format ("%.6f" in txt/csv, shortest round-trip "%.17g" in JSON) so identical runs
 * give identical bytes on one platform. */
#include "stats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "json.h"

void stats_init(StatSet *s)
{
    s->entries = g_array_new(FALSE, TRUE, sizeof(StatEntry));
    s->strings = g_string_chunk_new(64 << 10);
    s->index = NULL;
}

void stats_clear(StatSet *s)
{
    if (s->entries)
        g_array_free(s->entries, TRUE);
    if (s->strings)
        g_string_chunk_free(s->strings);
    if (s->index)
        g_hash_table_destroy(s->index);
    s->entries = NULL;
    s->strings = NULL;
    s->index = NULL;
}

/* Appends an entry; its name and description are copied into the set's chunk (a description
 * once for every entry that shares it). */
static void stats_push(StatSet *s, const char *name, bool is_int, uint64_t u, double d,
                       const char *unit, const char *desc, bool level)
{
    StatEntry e = { g_string_chunk_insert(s->strings, name), is_int, u, d, unit,
                    desc ? g_string_chunk_insert_const(s->strings, desc) : NULL, level };
    g_array_append_val(s->entries, e);
    if (s->index && !g_hash_table_contains(s->index, e.name))
        g_hash_table_insert(s->index, (gpointer)e.name, GUINT_TO_POINTER(s->entries->len));
}

void stats_add_u64(StatSet *s, const char *name, uint64_t v, const char *unit, const char *desc)
{
    stats_push(s, name, true, v, (double)v, unit, desc, false);
}

void stats_add_level(StatSet *s, const char *name, uint64_t v, const char *unit, const char *desc)
{
    stats_push(s, name, true, v, (double)v, unit, desc, true);
}

void stats_add_counters(StatSet *s, const char *prefix, const void *base, const StatCounterDef *d,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *name = g_strdup_printf("%s.%s", prefix, d[i].name);
        stats_add_u64(s, name, *(const uint64_t *)((const char *)base + d[i].off), d[i].unit,
                      d[i].desc);
        g_free(name);
    }
}

void stats_add_double(StatSet *s, const char *name, double v, const char *unit, const char *desc)
{
    stats_push(s, name, false, 0, v, unit, desc, true);
}

void stats_add_hist(StatSet *s, const char *name, const SimHist *h, const char *unit,
                    const char *desc)
{
    GString *n = g_string_new(name), *d = g_string_new(desc);
    gsize nl = n->len, dl = d->len;
    g_string_append(n, "::samples");
    g_string_append(d, ": number of samples");
    stats_add_u64(s, n->str, h->samples, "count", d->str);
    g_string_truncate(n, nl), g_string_truncate(d, dl);
    g_string_append(n, "::mean");
    g_string_append(d, ": mean");
    stats_add_double(s, n->str, stats_ratio((double)h->sum, (double)h->samples), unit, d->str);
    g_string_truncate(n, nl), g_string_truncate(d, dl);
    g_string_append(n, "::min");
    stats_add_level(s, n->str, h->min, unit, desc);
    g_string_truncate(n, nl);
    g_string_append(n, "::max");
    stats_add_level(s, n->str, h->max, unit, desc);
    g_string_append(d, ": samples in this bucket");
    for (unsigned b = 0; b < SIM_HIST_BUCKETS; b++) {
        if (h->bucket[b] == 0)
            continue;
        uint64_t lo = b == 0 ? 0 : 1ull << (b - 1);
        uint64_t hi = b == 0 ? 0 : (b == SIM_HIST_BUCKETS - 1 ? UINT64_MAX : (1ull << b) - 1);
        g_string_truncate(n, nl);
        if (b == SIM_HIST_BUCKETS - 1)
            g_string_append_printf(n, "::%" G_GUINT64_FORMAT "-inf", lo);
        else
            g_string_append_printf(n, "::%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, lo, hi);
        stats_add_u64(s, n->str, h->bucket[b], "count", d->str);
    }
    g_string_free(n, TRUE);
    g_string_free(d, TRUE);
}

const StatEntry *stats_find(const StatSet *s, const char *name)
{
    if (!s->index) {        /* the first search indexes the set (the first entry of a name) */
        StatSet *w = (StatSet *)s;
        w->index = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint i = 0; i < s->entries->len; i++) {
            const char *n = g_array_index(s->entries, StatEntry, i).name;
            if (!g_hash_table_contains(w->index, n))
                g_hash_table_insert(w->index, (gpointer)n, GUINT_TO_POINTER(i + 1));
        }
    }
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(s->index, name));
    return at ? &g_array_index(s->entries, StatEntry, at - 1) : NULL;
}

static void format_value(const StatEntry *e, char *buf, size_t n, bool json)
{
    if (e->is_int && n >= 21) {              /* decimal digits, without printf's parsing */
        char tmp[20];
        int k = 0;
        uint64_t v = e->u;
        do {
            tmp[k++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        for (int i = 0; i < k; i++)
            buf[i] = tmp[k - 1 - i];
        buf[k] = '\0';
    } else if (e->is_int)
        g_snprintf(buf, n, "%" G_GUINT64_FORMAT, e->u);
    else if (json)
        g_snprintf(buf, n, "%.17g", e->d);
    else
        g_snprintf(buf, n, "%.6f", e->d);
    /* g_snprintf uses the C locale for %f only if the process does; archsim never calls
     * setlocale(LC_NUMERIC), so '.' is the decimal point. */
}

/* ---- idle components in stats.txt --------------------------------------------------------
 * A component's stats are the entries named COMPONENT.STAT (the prefix before the first '.',
 * as sim_collect_stats names them). One whose every stat is 0 did nothing in this run: stats.txt
 * names all of them on one "# idle" line instead of listing their zeros (docs/outputs.md "Idle
 * components"); siblings (one stem, an index) whose every stat equals an earlier sibling's are
 * listed once and named on a "# same stats as" line. stats.json and stats.csv keep every line. */

typedef struct {
    guint n;            /* its stats */
    bool active;        /* one of them is not 0 */
    GString *sig;       /* every stat as "SUFFIX VALUE DESC UNIT" lines: equal sigs, equal stats */
    const char *same_as;    /* an earlier sibling (same stem, an index) with the same sig */
    GPtrArray *same;        /* for a sibling others are the same as: their names */
} StatGroup;

static void stat_group_free(gpointer p)
{
    StatGroup *g = p;
    g_string_free(g->sig, TRUE);
    if (g->same)
        g_ptr_array_free(g->same, TRUE);
    g_free(g);
}

static size_t stats_prefix_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : 0;
}

static bool stats_entry_zero(const StatEntry *e)
{
    return e->is_int ? e->u == 0 : e->d == 0;
}

/* name = STEM + decimal index (no leading zero): the index, else -1 */
static gint64 stats_name_index(const char *name, size_t len, size_t *stem)
{
    size_t i = len;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    *stem = i;
    if (i == len || i == 0 || len - i > 9 || (name[i] == '0' && len - i > 1))
        return -1;
    return g_ascii_strtoll(name + i, NULL, 10);
}

/* "core5..core16, l1d5..l1d16": idle names in order of appearance, runs of consecutive
 * indices of one stem as FIRST..LAST. */
static void stats_append_ranges(GString *out, GPtrArray *names)
{
    for (guint i = 0; i < names->len;) {
        const char *a = g_ptr_array_index(names, i);
        size_t stem;
        gint64 idx = stats_name_index(a, strlen(a), &stem);
        guint j = i + 1;
        while (idx >= 0 && j < names->len) {
            const char *b = g_ptr_array_index(names, j);
            size_t stem_b;
            gint64 idx_b = stats_name_index(b, strlen(b), &stem_b);
            if (idx_b != idx + (gint64)(j - i) || stem_b != stem || strncmp(a, b, stem))
                break;
            j++;
        }
        if (i)
            g_string_append(out, ", ");
        g_string_append(out, a);
        if (j - i > 1)
            g_string_append_printf(out, "..%s", (const char *)g_ptr_array_index(names, j - 1));
        i = j;
    }
}

/* After STEM: the index digits and the '.', or NULL when name is not STEMn.REST. */
static const char *stats_instance_rest(const char *name, const char *stem)
{
    size_t n = strlen(stem);
    if (strncmp(name, stem, n) != 0)
        return NULL;
    const char *p = name + n;
    bool bracket = *p == '[';       /* an array of a machine graph: stem[N].rest */
    if (bracket)
        p++;
    if (!g_ascii_isdigit(*p))
        return NULL;
    while (g_ascii_isdigit(*p))
        p++;
    if (bracket && *p++ != ']')
        return NULL;
    return *p == '.' ? p + 1 : NULL;
}

/* After the instance name (one of `instances`) that name starts with, and its '.'; NULL when it
 * starts with none (an instance name may hold dots: cluster0.core[2]). */
static const char *stats_named_rest(const char *name, GHashTable *instances)
{
    char buf[512];
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        size_t n = (size_t)(dot - name);
        if (n >= sizeof buf)
            return NULL;
        memcpy(buf, name, n);
        buf[n] = '\0';
        if (g_hash_table_contains(instances, buf))
            return dot + 1;
    }
    return NULL;
}

static guint stats_sum(StatSet *s, const char *stem, GHashTable *instances,
                       const char *const *top_prefixes, const char *desc_suffix,
                       bool counts_only);

guint stats_sum_instances(StatSet *s, const char *stem, const char *const *top_prefixes,
                          const char *desc_suffix)
{
    return stats_sum(s, stem, NULL, top_prefixes, desc_suffix, false);
}

guint stats_sum_counts(StatSet *s, const char *stem, const char *desc_suffix)
{
    return stats_sum(s, stem, NULL, NULL, desc_suffix, true);
}

guint stats_sum_named(StatSet *s, const char *stem, GHashTable *instances,
                      const char *desc_suffix)
{
    return stats_sum(s, stem, instances, NULL, desc_suffix, true);
}

static guint stats_sum(StatSet *s, const char *stem, GHashTable *instances,
                       const char *const *top_prefixes, const char *desc_suffix,
                       bool counts_only)
{
    GHashTable *sum = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *order = g_ptr_array_new_with_free_func(g_free);
    GArray *vals = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    GPtrArray *descs = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *units = g_ptr_array_new();
    for (guint i = 0; i < s->entries->len; i++) {
        const StatEntry *e = &g_array_index(s->entries, StatEntry, i);
        const char *rest = !e->is_int || (counts_only && e->level) ? NULL
                           : instances ? stats_named_rest(e->name, instances)
                                       : stats_instance_rest(e->name, stem);
        if (!rest || strstr(rest, "::"))
            continue;
        bool top = false;
        for (int t = 0; top_prefixes && top_prefixes[t] && !top; t++)
            top = g_str_has_prefix(rest, top_prefixes[t]);
        char *key = top ? g_strdup(rest) : g_strconcat(stem, ".", rest, NULL);
        gpointer idx;
        if (g_hash_table_lookup_extended(sum, key, NULL, &idx)) {
            g_array_index(vals, uint64_t, GPOINTER_TO_UINT(idx)) += e->u;
            g_free(key);
        } else {
            g_hash_table_insert(sum, key, GUINT_TO_POINTER(order->len));
            g_ptr_array_add(order, key);
            g_array_append_val(vals, e->u);
            /* copied: appending to the set below may move its entries */
            g_ptr_array_add(descs, g_strdup_printf("%s (%s)", e->desc, desc_suffix));
            g_ptr_array_add(units, (gpointer)e->unit);
        }
    }
    guint added = order->len;
    for (guint i = 0; i < order->len; i++)
        stats_add_u64(s, g_ptr_array_index(order, i), g_array_index(vals, uint64_t, i),
                      g_ptr_array_index(units, i), g_ptr_array_index(descs, i));
    g_hash_table_destroy(sum);
    g_ptr_array_free(order, TRUE);
    g_array_free(vals, TRUE);
    g_ptr_array_free(descs, TRUE);
    g_ptr_array_free(units, TRUE);
    return added;
}

guint stats_count_instances(const StatSet *s, const char *stem, const char *rest)
{
    guint n = 0;
    for (guint i = 0; i < s->entries->len; i++) {
        const char *r = stats_instance_rest(g_array_index(s->entries, StatEntry, i).name, stem);
        n += r && strcmp(r, rest) == 0;
    }
    return n;
}

double stats_instances_mean(const StatSet *s, const char *stem, const char *hist)
{
    double weighted = 0, samples = 0;
    char *want = g_strconcat(hist, "::samples", NULL);
    for (guint i = 0; i < s->entries->len; i++) {
        const StatEntry *e = &g_array_index(s->entries, StatEntry, i);
        const char *r = stats_instance_rest(e->name, stem);
        if (!r || strcmp(r, want) != 0)
            continue;
        char *mname = g_strndup(e->name, strlen(e->name) - strlen("samples"));
        char *full = g_strconcat(mname, "mean", NULL);
        const StatEntry *m = stats_find(s, full);
        if (m && !m->is_int) {
            weighted += m->d * (double)e->u;
            samples += (double)e->u;
        }
        g_free(mname);
        g_free(full);
    }
    g_free(want);
    return stats_ratio(weighted, samples);
}

/* One stats.txt line, "%-48s %20s # %s (%s)\n", without printf's parsing of that format. */
static void stats_append_line(GString *out, const char *name, const char *v, const char *desc,
                              const char *unit)
{
    size_t nl = strlen(name), vl = strlen(v);
    g_string_append_len(out, name, (gssize)nl);
    for (size_t i = nl; i < 48; i++)
        g_string_append_c(out, ' ');
    g_string_append_c(out, ' ');
    for (size_t i = vl; i < 20; i++)
        g_string_append_c(out, ' ');
    g_string_append_len(out, v, (gssize)vl);
    g_string_append(out, " # ");
    g_string_append(out, desc ? desc : "(null)");
    g_string_append(out, " (");
    g_string_append(out, unit ? unit : "(null)");
    g_string_append(out, ")\n");
}

void stats_format_txt(const StatSet *s, GString *out)
{
    g_string_append(out, "\n---------- Begin Simulation Statistics ----------\n");
    GHashTable *groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, stat_group_free);
    GPtrArray *order = g_ptr_array_new();      /* prefixes, first appearance */
    guint ne = s->entries->len;
    /* each entry's value, formatted once (the signature and the line both use it), and its
     * group, looked up once */
    typedef char StatVal[64];                  /* what format_value writes */
    StatVal *vals = g_new(StatVal, ne ? ne : 1);
    StatGroup **gof = g_new0(StatGroup *, ne ? ne : 1);
    StatGroup *last = NULL;
    const char *last_key = NULL;
    size_t last_n = 0;
    for (guint i = 0; i < ne; i++) {
        const StatEntry *e = &g_array_index(s->entries, StatEntry, i);
        format_value(e, vals[i], sizeof vals[i], false);
        size_t n = stats_prefix_len(e->name);
        if (n == 0)
            continue;
        StatGroup *g;
        if (last && n == last_n && memcmp(e->name, last_key, n) == 0) {
            g = last;                          /* a component's stats come one after another */
        } else {
            char *key = g_strndup(e->name, n);
            g = g_hash_table_lookup(groups, key);
            if (!g) {
                g = g_new0(StatGroup, 1);
                g->sig = g_string_new(NULL);
                g_hash_table_insert(groups, key, g);
                g_ptr_array_add(order, key);
            } else {
                g_free(key);
            }
            last = g;
            last_key = e->name;
            last_n = n;
        }
        gof[i] = g;
        g->n++;
        g->active |= !stats_entry_zero(e);
        g_string_append(g->sig, e->name + n);
        g_string_append_c(g->sig, ' ');
        g_string_append(g->sig, vals[i]);
        g_string_append_c(g->sig, ' ');
        g_string_append(g->sig, e->desc);
        g_string_append_c(g->sig, ' ');
        g_string_append(g->sig, e->unit);
        g_string_append_c(g->sig, '\n');
    }
    /* Siblings (l1d5, l1d6, ...: one stem, an index) whose every stat equals an earlier
     * sibling's are listed once: the first is printed, the rest are named on a "# same" line. */
    GHashTable *first_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < order->len; i++) {
        const char *name = g_ptr_array_index(order, i);
        StatGroup *g = g_hash_table_lookup(groups, name);
        size_t len = strlen(name), stem;
        if (!g->active || stats_name_index(name, len, &stem) < 0)
            continue;
        char *k = g_strdup_printf("%.*s\n%s", (int)stem, name, g->sig->str);
        const char *rep = g_hash_table_lookup(first_of, k);
        if (!rep) {
            g_hash_table_insert(first_of, k, (gpointer)name);
            continue;
        }
        g_free(k);
        StatGroup *r = g_hash_table_lookup(groups, rep);
        if (!r->same)
            r->same = g_ptr_array_new();
        g_ptr_array_add(r->same, (gpointer)name);
        g->same_as = rep;
    }
    g_hash_table_destroy(first_of);
    GPtrArray *idle = g_ptr_array_new();
    guint idle_stats = 0;
    for (guint i = 0; i < order->len; i++) {
        const StatGroup *g = g_hash_table_lookup(groups, g_ptr_array_index(order, i));
        if (!g->active) {
            g_ptr_array_add(idle, g_ptr_array_index(order, i));
            idle_stats += g->n;
        }
    }
    if (idle->len) {
        g_string_append(out, "# idle (no events: every stat 0, each still in stats.json and "
                        "stats.csv): ");
        stats_append_ranges(out, idle);
        g_string_append_printf(out, " (%u %s, %u %s)\n", idle->len,
                               idle->len == 1 ? "component" : "components", idle_stats,
                               idle_stats == 1 ? "stat" : "stats");
    }
    for (guint i = 0; i < order->len; i++) {
        const char *name = g_ptr_array_index(order, i);
        const StatGroup *g = g_hash_table_lookup(groups, name);
        if (!g->same)
            continue;
        guint stats = g->n * g->same->len;
        g_string_append_printf(out, "# same stats as %s (every stat equal, each still in "
                               "stats.json and stats.csv): ", name);
        stats_append_ranges(out, g->same);
        g_string_append_printf(out, " (%u %s, %u %s)\n", g->same->len,
                               g->same->len == 1 ? "component" : "components", stats,
                               stats == 1 ? "stat" : "stats");
    }
    for (guint i = 0; i < ne; i++) {
        const StatEntry *e = &g_array_index(s->entries, StatEntry, i);
        const StatGroup *g = gof[i];
        if (g && (!g->active || g->same_as))
            continue;
        stats_append_line(out, e->name, vals[i], e->desc, e->unit);
    }
    g_free(vals);
    g_free(gof);
    g_ptr_array_free(idle, TRUE);
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(groups);
    g_string_append(out, "\n---------- End Simulation Statistics   ----------\n");
}

void stats_format_json(const StatSet *s, GString *out)
{
    g_string_append(out, "{\n");
    for (guint i = 0; i < s->entries->len; i++) {
        const StatEntry *e = &g_array_index(s->entries, StatEntry, i);
        char v[64];
        format_value(e, v, sizeof v, true);
        if (!e->is_int && (e->d != e->d || e->d > 1e308 || e->d < -1e308))
            g_strlcpy(v, "0", sizeof v); /* JSON has no NaN/Inf; formulas avoid them anyway */
        g_string_append(out, "  ");
        json_append_string(out, e->name);
        g_string_append(out, ": ");
        g_string_append(out, v);
        g_string_append(out, i + 1 < s->entries->len ? ",\n" : "\n");
    }
    g_string_append(out, "}\n");
}

void stats_csv_field(GString *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        g_string_append(out, s);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

void stats_format_csv(const StatSet *s, GString *out)
{
    g_string_append(out, "name,value,unit,description\n");
    for (guint i = 0; i < s->entries->len; i++) {
        const StatEntry *e = &g_array_index(s->entries, StatEntry, i);
        char v[64];
        format_value(e, v, sizeof v, false);
        stats_csv_field(out, e->name);
        g_string_append_c(out, ',');
        g_string_append(out, v);
        g_string_append_c(out, ',');
        stats_csv_field(out, e->unit);
        g_string_append_c(out, ',');
        stats_csv_field(out, e->desc);
        g_string_append_c(out, '\n');
    }
}

bool stats_write_file(const char *path, const GString *content, GError **error)
{
    GError *e = NULL;
    if (!g_file_set_contents(path, content->str, (gssize)content->len, &e)) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s", path,
                    e->message);
        g_error_free(e);
        return false;
    }
    return true;
}
