/* sweep.c: `archsim sweep`, parameter sweeps (docs/sweeps.md). Each point runs as a child
 * `archsim run` process (fork/exec of this binary), so a crashing point cannot take the sweep
 * down, and -j N runs N of them at once. Results are collected per point and written in point
 * order, so sweep.csv does not depend on -j. */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "cli.h"
#include "../error.h"
#include "../input.h"
#include "../json.h"
#include "../outfile.h"
#include "../system.h"
#include "sweep_mpi.h"
#include "../version.h"

/* ---- axes -------------------------------------------------------------------------------- */

Sweep *sweep_new(void)
{
    Sweep *s = g_new0(Sweep, 1);
    s->axes = g_ptr_array_new_with_free_func((GDestroyNotify)sweep_axis_free);
    s->sets = g_ptr_array_new_with_free_func(g_free);
    s->base_seed = 1;
    return s;
}

void sweep_free(Sweep *s)
{
    if (!s)
        return;
    g_free(s->config);
    g_free(s->run_config);
    g_free(s->dir);
    g_free(s->exe);
    g_ptr_array_free(s->axes, TRUE);
    g_ptr_array_free(s->sets, TRUE);
    g_strfreev(s->stats);
    g_free(s->binary_id);
    g_free(s->binary_sha256);
    g_free(s->config_sha256);
    if (s->point_sha256)
        g_ptr_array_free(s->point_sha256, TRUE);
    g_free(s);
}

void sweep_axis_free(SweepAxis *a)
{
    if (!a)
        return;
    g_free(a->key);
    g_ptr_array_free(a->values, TRUE);
    g_ptr_array_free(a->args, TRUE);
    g_free(a);
}

static SweepAxis *axis_new(const char *key, bool zip)
{
    SweepAxis *a = g_new0(SweepAxis, 1);
    a->key = g_strdup(key);
    a->values = g_ptr_array_new_with_free_func(g_free);
    a->args = g_ptr_array_new_with_free_func(g_free);
    a->zip = zip;
    return a;
}

const char *sweep_seeds_name(SweepSeeds m)
{
    return m == SWEEP_SEEDS_PER_POINT ? "per-point" : "common";
}

bool sweep_seeds_parse(const char *text, SweepSeeds *out)
{
    if (!strcmp(text, "common"))
        *out = SWEEP_SEEDS_COMMON;
    else if (!strcmp(text, "per-point"))
        *out = SWEEP_SEEDS_PER_POINT;
    else
        return false;
    return true;
}

static bool is_seed_key(const char *key)
{
    return !strcmp(key, "seed") || !strcmp(key, "sim.seed");
}

static bool parse_seed(const char *text, uint64_t *out)
{
    return sim_parse_seed(text, out);         /* as sim.seed reads it */
}

static bool check_seed_values(const char *what, const SweepAxis *a, GError **error)
{
    if (!is_seed_key(a->key))
        return true;
    for (guint i = 0; i < a->values->len; i++) {
        uint64_t v;
        const char *t = g_ptr_array_index(a->values, i);
        if (!parse_seed(t, &v)) {
            g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                        "%s: %s: '%s' is not a non-negative integer", what, a->key, t);
            return false;
        }
    }
    return true;
}

SweepAxis *sweep_axis_parse(const char *opt, const char *text, GError **error)
{
    const char *eq = strchr(text, '=');
    if (!eq) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim sweep: %s %s: expected KEY=V1,V2,...", opt, text);
        return NULL;
    }
    char *key = g_strstrip(g_strndup(text, (gsize)(eq - text)));
    if (!*key) {
        g_free(key);
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE, "archsim sweep: %s %s: empty KEY",
                    opt, text);
        return NULL;
    }
    SweepAxis *a = axis_new(key, !strcmp(opt, "--zip"));
    g_free(key);
    /* split on commas outside brackets and quotes */
    const char *p = eq + 1, *start = p;
    int depth = 0;
    char quote = 0;
    bool bad = false;
    for (;; p++) {
        char c = *p;
        if (quote) {
            if (c == '\0') {
                bad = true;
                break;
            }
            if (c == '\\' && quote == '"' && p[1])
                p++;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (--depth < 0) {
                bad = true;
                break;
            }
        } else if ((c == ',' && depth == 0) || c == '\0') {
            if (c == '\0' && depth != 0) {
                bad = true;
                break;
            }
            char *item = g_strstrip(g_strndup(start, (gsize)(p - start)));
            if (!*item) {
                g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                            "archsim sweep: %s %s: empty value (item %u)", opt, text,
                            a->values->len + 1);
                g_free(item);
                sweep_axis_free(a);
                return NULL;
            }
            g_ptr_array_add(a->args, g_strdup(item));
            g_ptr_array_add(a->values, item);
            if (c == '\0')
                break;
            start = p + 1;
        }
    }
    if (bad) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim sweep: %s %s: unbalanced brackets or quotes", opt, text);
        sweep_axis_free(a);
        return NULL;
    }
    char *what = g_strdup_printf("archsim sweep: %s %s", opt, text);
    bool ok = check_seed_values(what, a, error);
    g_free(what);
    if (!ok) {
        sweep_axis_free(a);
        return NULL;
    }
    return a;
}

static bool same_key(const char *a, const char *b)
{
    return !strcmp(a, b) || (is_seed_key(a) && is_seed_key(b));
}

bool sweep_add_axis(Sweep *s, SweepAxis *a, bool from_cli, GError **error)
{
    a->from_yaml = !from_cli;
    for (guint i = 0; i < s->axes->len; i++) {
        SweepAxis *old = g_ptr_array_index(s->axes, i);
        if (!same_key(old->key, a->key))
            continue;
        if (from_cli && old->from_yaml) {
            /* a command-line list replaces the sweep: block's list of that key, in place */
            g_ptr_array_index(s->axes, i) = a;
            sweep_axis_free(old);
            return true;
        }
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE, "archsim sweep: %s is swept twice",
                    a->key);
        sweep_axis_free(a);
        return false;
    }
    g_ptr_array_add(s->axes, a);
    return true;
}

/* ---- the sweep: block --------------------------------------------------------------------- */

static void yaml_error(GError **error, const CfgNode *at, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void yaml_error(GError **error, const CfgNode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_set_error_va(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, at, fmt, ap);
    va_end(ap);
}

/* a value as --set takes it: quoted YAML scalars stay quoted, so they stay strings, and every
 * character in them is escaped as YAML needs (a raw line break in a double-quoted scalar would
 * fold to a space: the point would run another value than its row shows) */
static char *set_arg(const CfgNode *n)
{
    if (!n->quoted)
        return g_strdup(n->scalar);
    GString *o = g_string_new(NULL);
    cfg_emit_quoted(o, n->scalar);
    return g_string_free(o, FALSE);
}

static bool yaml_lists(Sweep *s, const CfgNode *map, const char *name, GError **error)
{
    if (map->kind != CFG_MAP) {
        yaml_error(error, map, "sweep.%s: expected a map of KEY: [V1, V2, ...]", name);
        return false;
    }
    for (guint i = 0; i < map->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(map->keys, i);
        const CfgNode *v = g_ptr_array_index(map->items, i);
        if (strchr(k->scalar, '=')) {
            /* the point's --set KEY=VALUE would split at it and set another key */
            yaml_error(error, k, "sweep.%s: '%s': a key to sweep cannot hold '='", name,
                       k->scalar);
            return false;
        }
        SweepAxis *a = axis_new(k->scalar, !strcmp(name, "zip"));
        GPtrArray *items = v->items;
        if (v->kind == CFG_SCALAR) {
            items = NULL;
            g_ptr_array_add(a->values, g_strdup(v->scalar));
            g_ptr_array_add(a->args, set_arg(v));
        }
        for (guint j = 0; items && j < items->len; j++) {
            const CfgNode *it = g_ptr_array_index(items, j);
            if (it->kind != CFG_SCALAR || v->kind != CFG_SEQ) {
                yaml_error(error, it, "sweep.%s.%s: expected a list of values", name, k->scalar);
                sweep_axis_free(a);
                return false;
            }
            g_ptr_array_add(a->values, g_strdup(it->scalar));
            g_ptr_array_add(a->args, set_arg(it));
        }
        if (a->values->len == 0) {
            yaml_error(error, v, "sweep.%s.%s: empty list", name, k->scalar);
            sweep_axis_free(a);
            return false;
        }
        char *what = cfg_node_where(v);
        GError *e = NULL;
        bool ok = check_seed_values(what, a, &e);
        g_free(what);
        if (!ok) {
            g_set_error_literal(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, e->message);
            g_error_free(e);
            sweep_axis_free(a);
            return false;
        }
        if (!sweep_add_axis(s, a, false, &e)) {
            yaml_error(error, k, "sweep.%s.%s: swept twice", name, k->scalar);
            g_error_free(e);
            return false;
        }
    }
    return true;
}

bool sweep_add_yaml(Sweep *s, const CfgNode *block, GError **error)
{
    if (block->kind != CFG_MAP) {
        yaml_error(error, block, "sweep: expected a map with grid, zip, stats and seeds");
        return false;
    }
    for (guint i = 0; i < block->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(block->keys, i);
        const CfgNode *v = g_ptr_array_index(block->items, i);
        if (!strcmp(k->scalar, "grid") || !strcmp(k->scalar, "zip")) {
            if (!yaml_lists(s, v, k->scalar, error))
                return false;
        } else if (!strcmp(k->scalar, "stats")) {
            GPtrArray *g = g_ptr_array_new_with_free_func(g_free);   /* the globs, on error too */
            if (v->kind == CFG_SCALAR) {
                char **parts = g_strsplit(v->scalar, ",", -1);
                for (char **p = parts; *p; p++)
                    g_ptr_array_add(g, g_strdup(g_strstrip(*p)));
                g_strfreev(parts);
            } else {
                for (guint j = 0; v->kind == CFG_SEQ && j < v->items->len; j++) {
                    const CfgNode *it = g_ptr_array_index(v->items, j);
                    if (it->kind != CFG_SCALAR) {
                        yaml_error(error, it, "sweep.stats: expected a list of globs");
                        g_ptr_array_free(g, TRUE);
                        return false;
                    }
                    g_ptr_array_add(g, g_strdup(it->scalar));
                }
                if (v->kind != CFG_SEQ) {
                    yaml_error(error, v, "sweep.stats: expected a list of globs");
                    g_ptr_array_free(g, TRUE);
                    return false;
                }
            }
            g_ptr_array_add(g, NULL);
            g_strfreev(s->stats);
            s->stats = (char **)g_ptr_array_free(g, FALSE);
        } else if (!strcmp(k->scalar, "seeds")) {
            if (v->kind != CFG_SCALAR || !sweep_seeds_parse(v->scalar, &s->seeds)) {
                yaml_error(error, v, "sweep.seeds: expected common (every point gets the base "
                           "seed) or per-point (point i gets base + i)");
                return false;
            }
        } else {
            yaml_error(error, k, "sweep.%s: unknown key; expected grid, zip, stats or seeds",
                       k->scalar);
            return false;
        }
    }
    return true;
}

bool sweep_check(Sweep *s, const CfgNode *root, GError **error)
{
    if (s->axes->len == 0) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim sweep: nothing to sweep; give --grid, --zip or a sweep: block");
        return false;
    }
    /* zip lists last, each group keeping its order */
    GPtrArray *grid = g_ptr_array_new(), *zip = g_ptr_array_new();
    for (guint i = 0; i < s->axes->len; i++) {
        SweepAxis *a = g_ptr_array_index(s->axes, i);
        g_ptr_array_add(a->zip ? zip : grid, a);
    }
    for (guint i = 0; i < grid->len; i++)
        s->axes->pdata[i] = grid->pdata[i];
    for (guint i = 0; i < zip->len; i++)
        s->axes->pdata[grid->len + i] = zip->pdata[i];
    bool ok = true;
    for (guint i = 1; i < zip->len && ok; i++) {
        const SweepAxis *a = g_ptr_array_index(zip, 0), *b = g_ptr_array_index(zip, i);
        if (a->values->len != b->values->len) {
            g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                        "archsim sweep: --zip lists differ in length: %s has %u values, %s has %u",
                        a->key, a->values->len, b->key, b->values->len);
            ok = false;
        }
    }
    /* the points are the product of the grid axes' lengths and the zip group's: bounded before
     * anything is sized from it (the product could wrap a 32-bit count: 2048 x 2048 x 1024 made
     * a sweep of 0 points) */
    uint64_t points = 1;
    GString *product = g_string_new(NULL);
    for (guint i = 0; i < grid->len && ok; i++) {
        const SweepAxis *a = g_ptr_array_index(grid, i);
        points = points > SWEEP_MAX_POINTS ? points : points * a->values->len;
        g_string_append_printf(product, "%s%u", product->len ? " x " : "", a->values->len);
    }
    if (ok && zip->len > 0) {
        const SweepAxis *a = g_ptr_array_index(zip, 0);
        points = points > SWEEP_MAX_POINTS ? points : points * a->values->len;
        g_string_append_printf(product, "%s%u (--zip)", product->len ? " x " : "", a->values->len);
    }
    if (ok && points > SWEEP_MAX_POINTS) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim sweep: %s points, more than a sweep may have (at most %u); "
                    "split it into several sweeps", product->str, SWEEP_MAX_POINTS);
        ok = false;
    }
    /* per-point seeds base + i must stay seeds `archsim run --seed` takes (at most 2^63 - 1),
     * unless a swept seed gives each point its own */
    bool seed_swept = false;
    for (guint i = 0; i < s->axes->len; i++)
        seed_swept |= is_seed_key(((const SweepAxis *)g_ptr_array_index(s->axes, i))->key);
    if (ok && s->seeds == SWEEP_SEEDS_PER_POINT && !seed_swept &&
        s->base_seed > (uint64_t)G_MAXINT64 - (points - 1)) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim sweep: per-point seeds: the last of %" G_GUINT64_FORMAT " points "
                    "would run with seed %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT ", past the "
                    "largest seed (%" G_GINT64_FORMAT ")", points, s->base_seed, points - 1,
                    G_MAXINT64);
        ok = false;
    }
    g_string_free(product, TRUE);
    g_ptr_array_free(grid, TRUE);
    g_ptr_array_free(zip, TRUE);
    if (!ok || root == NULL)
        return ok;
    /* every key must be a path --set accepts (whether the key exists is the run's check) */
    CfgNode *copy = cfg_node_copy(root);
    for (guint i = 0; i < s->axes->len && ok; i++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, i);
        if (is_seed_key(a->key))
            continue;
        char *assign = g_strdup_printf("%s=0", a->key);
        GError *e = NULL;
        if (!cfg_apply_set(copy, assign, &e)) {
            g_set_error(error, ARCHSIM_CLI_ERROR, e->code, "archsim sweep: %s: %s", a->key,
                        e->message);
            g_error_free(e);
            ok = false;
        }
        g_free(assign);
    }
    cfg_node_free(copy);
    return ok;
}

GError *sweep_block_error(const CfgNode *block, const char *text)
{
    if (g_str_has_prefix(text, "archsim sweep: "))
        text += strlen("archsim sweep: ");
    if (g_str_has_prefix(text, "--zip lists"))
        text += strlen("--");           /* the block's zip:, not the option */
    char *where = cfg_node_where(block);
    GError *e = g_error_new(ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: sweep: %s", where,
                            text);
    g_free(where);
    return e;
}

/* ---- points ------------------------------------------------------------------------------- */

static guint zip_len(const Sweep *s)
{
    for (guint i = 0; i < s->axes->len; i++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, i);
        if (a->zip)
            return a->values->len;
    }
    return 0;
}

guint sweep_n_points(const Sweep *s)
{
    guint n = 1;
    for (guint i = 0; i < s->axes->len; i++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, i);
        if (!a->zip)
            n *= a->values->len;
    }
    guint z = zip_len(s);
    return z ? n * z : n;
}

void sweep_point_index(const Sweep *s, guint i, guint *idx)
{
    guint z = zip_len(s);
    if (z) {
        for (guint k = 0; k < s->axes->len; k++)
            if (((const SweepAxis *)g_ptr_array_index(s->axes, k))->zip)
                idx[k] = i % z;
        i /= z;
    }
    for (guint k = s->axes->len; k-- > 0;) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (a->zip)
            continue;
        idx[k] = i % a->values->len;
        i /= a->values->len;
    }
}

static const char *point_text(const Sweep *s, guint i, guint axis, bool arg)
{
    guint *idx = g_newa(guint, s->axes->len);
    sweep_point_index(s, i, idx);
    const SweepAxis *a = g_ptr_array_index(s->axes, axis);
    return g_ptr_array_index(arg ? a->args : a->values, idx[axis]);
}

const char *sweep_point_value(const Sweep *s, guint i, guint axis)
{
    return point_text(s, i, axis, false);
}

uint64_t sweep_point_seed(const Sweep *s, guint i)
{
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        uint64_t v;
        if (is_seed_key(a->key) && parse_seed(sweep_point_value(s, i, k), &v))
            return v;
    }
    return s->seeds == SWEEP_SEEDS_PER_POINT ? s->base_seed + i : s->base_seed;
}

char *sweep_point_dir(const Sweep *s, guint i)
{
    char name[32];
    g_snprintf(name, sizeof name, "point-%04u", i);
    return g_build_filename(s->dir, name, NULL);
}

/* ---- what defines a point (checked by --resume) ----------------------------------------------- */

static char *file_sha256(const char *path)
{
    GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        g_checksum_update(c, (const guchar *)buf, n);
    char *hex = g_strdup(f ? g_checksum_get_string(c) : "unreadable");
    if (f)
        fclose(f);
    g_checksum_free(c);
    return hex;
}

void sweep_digest_points(Sweep *s, const CfgNode *base)
{
    g_free(s->binary_id);
    g_free(s->binary_sha256);
    g_free(s->config_sha256);
    if (s->point_sha256)
        g_ptr_array_free(s->point_sha256, TRUE);
    s->binary_id = g_strdup_printf("archsim %s (git %s)", ARCHSIM_VERSION, ARCHSIM_GIT);
    s->binary_sha256 = file_sha256(s->exe ? s->exe : "/proc/self/exe");
    CfgNode *fixed = cfg_node_copy(base);
    GString *text = g_string_new(NULL);
    for (guint k = 0; k < s->sets->len; k++) {
        const char *set = g_ptr_array_index(s->sets, k);
        if (!cfg_apply_set(fixed, set, NULL))
            g_string_append_printf(text, "# --set %s\n", set);   /* the point will refuse it */
    }
    cfg_node_emit_yaml(fixed, text, 0);
    s->config_sha256 = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text->str,
                                                     (gssize)text->len);
    guint n = sweep_n_points(s);
    s->point_sha256 = g_ptr_array_new_full(n, g_free);
    for (guint i = 0; i < n; i++) {
        CfgNode *pt = cfg_node_copy(fixed);
        g_string_assign(text, s->binary_id);
        g_string_append_printf(text, "\nbinary sha256 %s\n", s->binary_sha256);
        for (guint k = 0; k < s->axes->len; k++) {
            const SweepAxis *a = g_ptr_array_index(s->axes, k);
            if (is_seed_key(a->key))
                continue;
            char *set = g_strdup_printf("%s=%s", a->key, point_text(s, i, k, true));
            if (!cfg_apply_set(pt, set, NULL))
                g_string_append_printf(text, "# --set %s\n", set);
            g_free(set);
        }
        g_string_append_printf(text, "seed %" G_GUINT64_FORMAT "\n", sweep_point_seed(s, i));
        cfg_node_emit_yaml(pt, text, 0);
        cfg_node_free(pt);
        g_ptr_array_add(s->point_sha256,
                        g_compute_checksum_for_string(G_CHECKSUM_SHA256, text->str,
                                                      (gssize)text->len));
    }
    g_string_free(text, TRUE);
    cfg_node_free(fixed);
}

char **sweep_point_argv(const Sweep *s, guint i)
{
    GPtrArray *v = g_ptr_array_new();
    g_ptr_array_add(v, g_strdup(s->exe ? s->exe : "archsim"));
    g_ptr_array_add(v, g_strdup("run"));
    g_ptr_array_add(v, g_strdup(s->run_config ? s->run_config : s->config));
    g_ptr_array_add(v, g_strdup("-q"));
    g_ptr_array_add(v, g_strdup("-o"));
    g_ptr_array_add(v, sweep_point_dir(s, i));
    g_ptr_array_add(v, g_strdup("--seed"));
    g_ptr_array_add(v, g_strdup_printf("%" G_GUINT64_FORMAT, sweep_point_seed(s, i)));
    for (guint k = 0; k < s->sets->len; k++) {
        g_ptr_array_add(v, g_strdup("--set"));
        g_ptr_array_add(v, g_strdup(g_ptr_array_index(s->sets, k)));
    }
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (is_seed_key(a->key))
            continue;
        g_ptr_array_add(v, g_strdup("--set"));
        g_ptr_array_add(v, g_strdup_printf("%s=%s", a->key, point_text(s, i, k, true)));
    }
    g_ptr_array_add(v, NULL);
    return (char **)g_ptr_array_free(v, FALSE);
}


static char *stderr_path(const Sweep *s, guint i)
{
    char *d = sweep_point_dir(s, i);
    char *p = g_strconcat(d, ".stderr", NULL);
    g_free(d);
    return p;
}

/* what an interrupted or failed earlier attempt left: an incomplete point directory (a run
 * directory without run.json: the name a killed run reserved) and staging directories */
static void remove_leftovers(const Sweep *s, guint i)
{
    char *dir = sweep_point_dir(s, i);
    char *marker = g_build_filename(dir, "run.json", NULL);
    if (g_file_test(dir, G_FILE_TEST_EXISTS) && !g_file_test(marker, G_FILE_TEST_EXISTS))
        outfile_remove_tree(dir);
    char *base = g_path_get_basename(dir);
    char *prefix = g_strconcat(base, ".part-", NULL);
    GDir *d = g_dir_open(s->dir, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
        if (g_str_has_prefix(n, prefix)) {
            char *p = g_build_filename(s->dir, n, NULL);
            outfile_remove_tree(p);
            g_free(p);
        }
    }
    if (d)
        g_dir_close(d);
    g_free(prefix);
    g_free(base);
    g_free(marker);
    g_free(dir);
}

int sweep_point_start(const Sweep *s, guint i)
{
    remove_leftovers(s, i);
    char **argv = sweep_point_argv(s, i);
    char *errp = stderr_path(s, i);
    fflush(stdout);
    fflush(stderr);
    g_unlink(errp);              /* a fresh file: never written through a link left there */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* The point dies with the sweep: SIGTERM when the driver is gone, however it ended
         * (even SIGKILL); the check after prctl catches a driver that died before it. Its own
         * process group lets the driver stop it and anything it started with one kill(). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(128 + SIGTERM);
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR);
        int err = open(errp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
        }
        if (err >= 0)
            dup2(err, STDERR_FILENO);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        execv(argv[0], argv);
        fprintf(stderr, "archsim sweep: cannot run %s: %s\n", argv[0], g_strerror(errno));
        _exit(127);
    }
    int saved = errno;
    if (pid > 0)
        setpgid(pid, pid);       /* also here, so that a kill(-pid) right after fork reaches it */
    g_strfreev(argv);
    g_free(errp);
    errno = saved;
    return (int)pid;
}

static void result_init(SweepResult *r)
{
    memset(r, 0, sizeof *r);
    r->names = g_ptr_array_new_with_free_func(g_free);
    r->values = g_ptr_array_new_with_free_func(g_free);
    r->message = g_strdup("");
}

bool sweep_parse_stats_json(const char *text, GPtrArray *names, GPtrArray *values)
{
    const char *p = text;
#define SKIPWS() while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++
    SKIPWS();
    if (*p++ != '{')
        return false;
    SKIPWS();
    if (*p == '}')
        return true;
    for (;;) {
        SKIPWS();
        if (*p++ != '"')
            return false;
        GString *name = g_string_new(NULL);
        while (*p && *p != '"') {
            if (*p == '\\' && p[1])
                p++;
            g_string_append_c(name, *p++);
        }
        if (*p++ != '"') {
            g_string_free(name, TRUE);
            return false;
        }
        SKIPWS();
        if (*p++ != ':') {
            g_string_free(name, TRUE);
            return false;
        }
        SKIPWS();
        const char *start = p;
        while (*p && *p != ',' && *p != '}' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
            p++;
        if (p == start) {
            g_string_free(name, TRUE);
            return false;
        }
        g_ptr_array_add(names, g_string_free(name, FALSE));
        g_ptr_array_add(values, g_strndup(start, (gsize)(p - start)));
        SKIPWS();
        if (*p == ',') {
            p++;
            continue;
        }
        return *p == '}';
    }
#undef SKIPWS
}

static bool read_stats(const Sweep *s, guint i, SweepResult *r)
{
    char *dir = sweep_point_dir(s, i);
    char *path = g_build_filename(dir, "stats.json", NULL);
    char *text = NULL;
    bool ok = g_file_get_contents(path, &text, NULL, NULL) &&
              sweep_parse_stats_json(text, r->names, r->values);
    if (!ok) {
        g_ptr_array_set_size(r->names, 0);
        g_ptr_array_set_size(r->values, 0);
        g_free(r->message);
        r->message = g_strdup_printf("%s: cannot read or parse", path);
    }
    g_free(text);
    g_free(path);
    g_free(dir);
    return ok;
}

bool sweep_point_done(const Sweep *s, guint i, SweepResult *r)
{
    char *dir = sweep_point_dir(s, i);
    char *marker = g_build_filename(dir, "run.json", NULL);
    bool done = g_file_test(marker, G_FILE_TEST_IS_REGULAR);
    g_free(marker);
    g_free(dir);
    if (!done)
        return false;
    result_init(r);
    if (!read_stats(s, i, r)) {
        sweep_result_clear(r);
        return false;
    }
    r->resumed = true;
    return true;
}

void sweep_point_finish(const Sweep *s, guint i, int wait_status, SweepResult *r)
{
    result_init(r);
    if (WIFSIGNALED(wait_status)) {
        r->exit_code = -1;
        r->signal = WTERMSIG(wait_status);
    } else {
        r->exit_code = WEXITSTATUS(wait_status);
    }
    char *errp = stderr_path(s, i);
    char *text = NULL;
    gsize len = 0;
    if (g_file_get_contents(errp, &text, &len, NULL)) {
        char *nl = strpbrk(text, "\r\n");
        if (nl)
            *nl = '\0';
        g_free(r->message);
        r->message = g_strdup(text);
    }
    if (r->exit_code == 0 && r->signal == 0) {
        if (len == 0)
            g_unlink(errp);      /* keep a successful point's stderr only when it said something */
        g_free(r->message);
        r->message = g_strdup("");
        if (!read_stats(s, i, r))
            r->exit_code = ARCHSIM_EXIT_IOERR;
    } else if (r->signal && !*r->message) {
        g_free(r->message);
        r->message = g_strdup_printf("killed by signal %d (%s)", r->signal, g_strsignal(r->signal));
    }
    g_free(text);
    g_free(errp);
}

void sweep_run_point(const Sweep *s, guint i, SweepResult *r)
{
    int pid = sweep_point_start(s, i);
    int st = 0;
    if (pid < 0) {
        result_init(r);
        r->exit_code = ARCHSIM_EXIT_SOFTWARE;
        g_free(r->message);
        r->message = g_strdup_printf("archsim sweep: fork: %s", g_strerror(errno));
        return;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    sweep_point_finish(s, i, st, r);
}

/* ---- sweep.csv, sweep.json ------------------------------------------------------------------ */

char *sweep_status_text(const SweepResult *r)
{
    if (r->signal)
        return g_strdup_printf("signal %d", r->signal);
    if (r->exit_code == 0)
        return g_strdup("ok");
    return g_strdup_printf("exit %d", r->exit_code);
}

static bool result_ok(const SweepResult *r)
{
    return r->signal == 0 && r->exit_code == 0;
}

/* every stat name of every point in one order: each point's names keep their file order, a name
 * new to the list goes right after the name before it in its point (4-core points add core2.*
 * after core1.*, not at the end) */
static GPtrArray *merged_names(const SweepResult *results, guint n)
{
    GPtrArray *all = g_ptr_array_new();
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < n; i++) {
        const GPtrArray *names = results[i].names;
        guint at = 0;   /* where the next new name goes */
        for (guint k = 0; names && k < names->len; k++) {
            char *name = g_ptr_array_index(names, k);
            if (!g_hash_table_contains(seen, name)) {
                g_hash_table_add(seen, name);
                g_ptr_array_insert(all, (gint)at++, name);
                continue;
            }
            guint j = at;
            while (j < all->len && strcmp(g_ptr_array_index(all, j), name))
                j++;
            if (j == all->len)
                for (j = 0; j < at && strcmp(g_ptr_array_index(all, j), name); j++)
                    ;
            if (j >= at)
                at = j + 1;
        }
    }
    g_hash_table_destroy(seen);
    return all;
}

GPtrArray *sweep_csv_columns(const Sweep *s, const SweepResult *results)
{
    GPtrArray *cols = g_ptr_array_new_with_free_func(g_free);
    GHashTable *taken = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *all = merged_names(results, sweep_n_points(s));
    for (char **g = s->stats; g && *g; g++) {
        GPatternSpec *pat = g_pattern_spec_new(*g);
        for (guint k = 0; k < all->len; k++) {
            const char *name = g_ptr_array_index(all, k);
            if (!g_hash_table_contains(taken, name) && g_pattern_spec_match_string(pat, name)) {
                char *c = g_strdup(name);
                g_ptr_array_add(cols, c);
                g_hash_table_add(taken, c);
            }
        }
        g_pattern_spec_free(pat);
    }
    g_ptr_array_free(all, TRUE);
    g_hash_table_destroy(taken);
    return cols;
}

void sweep_csv_field(GString *out, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        g_string_append(out, text);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

void sweep_csv_header(const Sweep *s, const GPtrArray *columns, GString *out)
{
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (is_seed_key(a->key))
            continue;            /* the seed column says it */
        sweep_csv_field(out, a->key);
        g_string_append_c(out, ',');
    }
    g_string_append(out, "seed,status,message");
    for (guint k = 0; k < columns->len; k++) {
        g_string_append_c(out, ',');
        sweep_csv_field(out, g_ptr_array_index(columns, k));
    }
    g_string_append_c(out, '\n');
}

void sweep_csv_row(const Sweep *s, guint i, const SweepResult *r, const GPtrArray *columns,
                   GString *out)
{
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (is_seed_key(a->key))
            continue;
        sweep_csv_field(out, sweep_point_value(s, i, k));
        g_string_append_c(out, ',');
    }
    char *status = sweep_status_text(r);
    g_string_append_printf(out, "%" G_GUINT64_FORMAT ",%s,", sweep_point_seed(s, i), status);
    g_free(status);
    sweep_csv_field(out, r->message ? r->message : "");
    for (guint k = 0; k < columns->len; k++) {
        g_string_append_c(out, ',');
        const char *want = g_ptr_array_index(columns, k);
        for (guint j = 0; result_ok(r) && r->names && j < r->names->len; j++)
            if (!strcmp(g_ptr_array_index(r->names, j), want)) {
                g_string_append(out, g_ptr_array_index(r->values, j));
                break;
            }
    }
    g_string_append_c(out, '\n');
}

/* the part of sweep.json that identifies the sweep (compared by --resume) */
static void json_points(const Sweep *s, GString *o)
{
    g_string_append(o, "  \"points\": [\n");
    guint n = sweep_n_points(s);
    for (guint i = 0; i < n; i++) {
        g_string_append_printf(o, "    {\"index\": %u, \"dir\": \"point-%04u\", \"seed\": %"
                               G_GUINT64_FORMAT ", \"values\": {", i, i, sweep_point_seed(s, i));
        for (guint k = 0; k < s->axes->len; k++) {
            const SweepAxis *a = g_ptr_array_index(s->axes, k);
            if (k)
                g_string_append(o, ", ");
            json_append_string(o, a->key);
            g_string_append(o, ": ");
            json_append_string(o, sweep_point_value(s, i, k));
        }
        g_string_append_printf(o, "}}%s\n", i + 1 < n ? "," : "");
    }
    g_string_append(o, "  ]");
}

static void json_sweep(const Sweep *s, const SweepResult *results, GString *o)
{
    g_string_append(o, "{\n  \"archsim\": ");
    json_append_string(o, ARCHSIM_VERSION);
    g_string_append(o, ",\n  \"config\": ");
    json_append_string(o, s->config);
    g_string_append(o, ",\n  \"run_config\": ");
    json_append_string(o, s->run_config);
    g_string_append(o, ",\n  \"set\": [");
    for (guint k = 0; k < s->sets->len; k++) {
        if (k)
            g_string_append(o, ", ");
        json_append_string(o, g_ptr_array_index(s->sets, k));
    }
    g_string_append_printf(o, "],\n  \"base_seed\": %" G_GUINT64_FORMAT ",\n  \"seeds\": \"%s\",\n"
                           "  \"axes\": [", s->base_seed, sweep_seeds_name(s->seeds));
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        g_string_append(o, k ? ",\n    {\"key\": " : "\n    {\"key\": ");
        json_append_string(o, a->key);
        g_string_append_printf(o, ", \"kind\": \"%s\", \"values\": [", a->zip ? "zip" : "grid");
        for (guint j = 0; j < a->values->len; j++) {
            if (j)
                g_string_append(o, ", ");
            json_append_string(o, g_ptr_array_index(a->values, j));
        }
        g_string_append(o, "]}");
    }
    g_string_append(o, "\n  ],\n  \"order\": \"axes in order, the last varying fastest; the zip "
                       "lists form one axis, the last\",\n  \"stats\": [");
    for (char **g = s->stats; g && *g; g++) {
        if (g != s->stats)
            g_string_append(o, ", ");
        json_append_string(o, *g);
    }
    g_string_append(o, "],\n  \"definition\": {\"binary\": ");
    json_append_string(o, s->binary_id ? s->binary_id : "");
    g_string_append(o, ", \"binary_sha256\": ");
    json_append_string(o, s->binary_sha256 ? s->binary_sha256 : "");
    g_string_append(o, ", \"config_sha256\": ");
    json_append_string(o, s->config_sha256 ? s->config_sha256 : "");
    g_string_append(o, ",\n    \"point_sha256\": [");
    for (guint i = 0; s->point_sha256 && i < s->point_sha256->len; i++) {
        g_string_append(o, i ? ",\n      " : "\n      ");
        json_append_string(o, g_ptr_array_index(s->point_sha256, i));
    }
    g_string_append(o, "]},\n");
    json_points(s, o);
    g_string_append(o, ",\n  \"results\": ");
    if (!results) {
        g_string_append(o, "null\n}\n");
        return;
    }
    g_string_append(o, "[\n");
    guint n = sweep_n_points(s);
    for (guint i = 0; i < n; i++) {
        const SweepResult *r = &results[i];
        char *st = sweep_status_text(r);
        g_string_append_printf(o, "    {\"index\": %u, \"status\": \"%s\", \"exit\": %d, "
                               "\"signal\": %d, \"resumed\": %s, \"message\": ", i, st,
                               r->exit_code, r->signal, r->resumed ? "true" : "false");
        g_free(st);
        json_append_string(o, r->message ? r->message : "");
        g_string_append_printf(o, "}%s\n", i + 1 < n ? "," : "");
    }
    g_string_append(o, "  ]\n}\n");
}

/* writes DIR/name through a temporary file renamed into place (sim/outfile.h); the files of a
 * sweep directory are its own, so they are replaced */
static bool write_atomic(const char *dir, const char *name, const GString *text, GError **error)
{
    char *path = g_build_filename(dir, name, NULL);
    bool ok = outfile_write(path, text->str, text->len, true, &outfile_sweep_file, error);
    g_free(path);
    return ok;
}

/* ---- archsim sweep ------------------------------------------------------------------------- */

static volatile sig_atomic_t sweep_interrupted;

static void on_sweep_signal(int sig)
{
    sweep_interrupted = sig;
}

static int sweep_fail(GError *e)
{
    int code = archsim_exit_code(e);
    fprintf(stderr, "%s\n", e->message);
    g_error_free(e);
    return code;
}

static int sweep_usage(const char *msg)
{
    return cli_usage_error("sweep", "%s", msg);
}

static const CliHelp sweep_help = {
    .cmd = "sweep",
    .usage = "archsim sweep CONFIG --grid KEY=V1,V2,... [--zip KEY=V1,...]... [OPTIONS]",
    .summary = "Run CONFIG at every point of a sweep; one row per point in DIR/sweep.csv.",
    .details =
        "Each point runs `archsim run` into DIR/point-NNNN/; DIR/sweep.csv gets one row per point\n"
        "(swept values, seed, status, message, selected stats) and DIR/sweep.json describes the\n"
        "points. Point order: axes in order, the last varying fastest. A `sweep:` block in CONFIG\n"
        "may give the axes instead of --grid and --zip. Points die with the sweep (SIGINT,\n"
        "SIGTERM, SIGHUP, even SIGKILL of the driver); an interrupted sweep keeps its complete\n"
        "points and writes no sweep.csv: finish it with --resume. See docs/sweeps.md.\n"
        "\n"
        "Examples:\n"
        "  archsim sweep configs/coherence/false-sharing.yaml --grid core.spacing=8B,64B \\\n"
        "                --grid system.cores=1,2,4,8 -j 4 -o runs/fs-sweep\n"
        "  archsim sweep configs/default.yaml --grid l1d.size=16KiB,32KiB,64KiB --dry-run\n"
        "\n"
        "Exit status: 0 every point succeeded, 3 a point failed (its row says how), 64 bad\n"
        "command line, 65 --resume refused, 70 --mpi: archsim-mpi (the MPI side of an\n"
        "OpenMPI build, beside archsim) missing, 73 DIR exists or cannot be made, 78 bad\n"
        "configuration, 130 interrupted; see archsim --help.\n",
};

/* Relative PARAM_PATH values resolve against the directory of the file that set them; the base
 * config written into the sweep directory would move them, so values naming an existing file
 * relative to their own file become absolute paths. */
/* The places of the values that the components of point 0 read as file paths (PARAM_PATH: a
 * trace file or directory, a kernel, a graph, a topology), found by building it once; an empty
 * set when it does not build (its points then fail with its error). */
static GHashTable *point0_path_places(const Sweep *s, const CfgNode *base)
{
    CfgNode *root = cfg_node_copy(base);
    guint *idx = g_new0(guint, s->axes->len ? s->axes->len : 1);
    sweep_point_index(s, 0, idx);
    bool ok = true;
    GError *e = NULL;
    for (guint k = 0; ok && k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (is_seed_key(a->key))
            continue;
        char *assign = g_strdup_printf("%s=%s", a->key,
                                       (const char *)g_ptr_array_index(a->args, idx[k]));
        ok = cfg_apply_set(root, assign, &e);
        g_free(assign);
    }
    g_free(idx);
    SystemRun *run = ok ? system_build(root, -1, NULL, NULL, &e) : NULL;
    if (!ok)
        cfg_node_free(root);
    GHashTable *places = run ? system_path_places(run)
                             : g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    system_free(run);
    g_clear_error(&e);
    return places;
}

bool sweep_config_seed(const CfgNode *root, uint64_t *seed, GError **error)
{
    const CfgNode *sim = cfg_map_get(root, "sim");
    const CfgNode *v = sim ? cfg_map_get(sim, "seed") : NULL;
    if (!v)
        return true;
    if (v->kind != CFG_SCALAR || !parse_seed(v->scalar, seed)) {
        char *where = cfg_node_where(v);
        /* a value from --set is the command line's error (64), as every --set error is */
        g_set_error(error, ARCHSIM_CONFIG_ERROR,
                    v->set_text != NULL ? ARCHSIM_EXIT_USAGE : ARCHSIM_EXIT_CONFIG,
                    "%s: sim.seed: expected a non-negative integer", where);
        g_free(where);
        return false;
    }
    return true;
}

static char *default_sweep_dir(const char *config)
{
    char *base = g_path_get_basename(config);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    char *dir = NULL;
    for (int i = 1;; i++) {
        dir = g_strdup_printf("runs/%s-sweep-%d", base, i);
        if (!g_file_test(dir, G_FILE_TEST_EXISTS))
            break;
        g_free(dir);
    }
    g_free(base);
    return dir;
}

static char *point_label(const Sweep *s, guint i)
{
    GString *o = g_string_new(NULL);
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (is_seed_key(a->key))
            continue;            /* the seed is shown on its own */
        const char *v = sweep_point_value(s, i, k);
        g_string_append_printf(o, "%s%s=", o->len ? " " : "", a->key);
        /* one line per point, unambiguous: a value that holds a quote, a backslash or a
         * character YAML would escape (line breaks, controls) is shown double-quoted */
        gsize at = o->len;
        cfg_emit_quoted(o, v);
        if (o->len - at == strlen(v) + 2) {
            g_string_truncate(o, at);
            g_string_append(o, v);
        }
    }
    return g_string_free(o, FALSE);
}

void sweep_report_point(const Sweep *s, guint i, const SweepResult *r, guint finished, guint n)
{
    char *label = point_label(s, i);
    char *status = sweep_status_text(r);
    if (!result_ok(r))
        fprintf(stderr, "archsim sweep: point-%04u (%s) failed: %s: %s\n", i, label, status,
                r->message);
    else if (!s->quiet)
        fprintf(stderr, "archsim sweep: [%u/%u] point-%04u ok  seed=%" G_GUINT64_FORMAT " %s\n",
                finished, n, i, sweep_point_seed(s, i), label);
    g_free(status);
    g_free(label);
}

/* The string value of "KEY": "..." in TEXT (from START), or NULL. Values archsim writes there
 * hold no escapes (hex digests, version texts). */
static char *json_find_string(const char *text, const char *key, const char **end)
{
    char *pat = g_strdup_printf("\"%s\": \"", key);
    const char *p = strstr(text, pat);
    char *v = NULL;
    if (p) {
        p += strlen(pat);
        const char *q = strchr(p, '"');
        if (q) {
            v = g_strndup(p, (gsize)(q - p));
            if (end)
                *end = q + 1;
        }
    }
    g_free(pat);
    return v;
}

/* --resume: every complete point must have been run by this binary from this config. OLD is
 * the sweep.json found in the directory. Returns 0, or 65 after saying what changed. */
static int check_definition(const Sweep *s, const char *old)
{
    char *old_bin = json_find_string(old, "binary", NULL);
    char *old_bsha = json_find_string(old, "binary_sha256", NULL);
    char *old_csha = json_find_string(old, "config_sha256", NULL);
    const char *arr = strstr(old, "\"point_sha256\": [");
    guint n = sweep_n_points(s), differ = 0;
    /* the old list's quoted digests, read once (reading the i-th from the start for every point
     * was cubic: 48 s before the first of 6,000 points ran) */
    GPtrArray *olds = g_ptr_array_new_with_free_func(g_free);
    const char *end = arr ? strchr(arr, ']') : NULL;
    for (const char *p = arr ? arr + strlen("\"point_sha256\": [") : NULL; p && end;) {
        const char *q = strchr(p, '"');
        const char *r = q && q < end ? strchr(q + 1, '"') : NULL;
        if (!r || r > end)
            break;
        g_ptr_array_add(olds, g_strndup(q + 1, (gsize)(r - q - 1)));
        p = r + 1;
    }
    GString *which = g_string_new(NULL);
    for (guint i = 0; i < n; i++) {
        char *dir = sweep_point_dir(s, i);
        char *marker = g_build_filename(dir, "run.json", NULL);
        bool done = g_file_test(marker, G_FILE_TEST_IS_REGULAR);
        g_free(marker);
        g_free(dir);
        const char *was = i < olds->len ? g_ptr_array_index(olds, i) : NULL;
        if (done && (!was || strcmp(was, g_ptr_array_index(s->point_sha256, i)) != 0)) {
            if (++differ <= 5)
                g_string_append_printf(which, " point-%04u", i);
        }
    }
    g_ptr_array_free(olds, TRUE);
    int rc = 0;
    if (differ) {
        const char *what;
        char *detail = NULL;
        if (!old_bin || !old_bsha || !old_csha || !arr) {
            what = "was made by an archsim that recorded no definition digests";
        } else if (strcmp(old_bsha, s->binary_sha256) != 0) {
            what = "was run by another archsim binary";
            detail = g_strdup_printf(" (then %s, sha256 %.12s; now %s, sha256 %.12s)", old_bin,
                                     old_bsha, s->binary_id, s->binary_sha256);
        } else if (strcmp(old_csha, s->config_sha256) != 0) {
            what = "was run from a different config: CONFIG, a file it includes, or a --set "
                   "changed since";
        } else {
            what = "holds points whose definition (config text, seed) differs";
        }
        fprintf(stderr, "%s: %s%s; its %u complete point%s (%s%s) would mix with new ones; use "
                "--force to start the sweep over, or -o another directory\n",
                s->dir, what, detail ? detail : "", differ, differ == 1 ? "" : "s",
                which->str + 1, differ > 5 ? " ..." : "");
        g_free(detail);
        rc = ARCHSIM_EXIT_DATAERR;
    }
    g_string_free(which, TRUE);
    g_free(old_bin);
    g_free(old_bsha);
    g_free(old_csha);
    return rc;
}

/* Prepares the sweep directory: new, replaced (--force) or continued (--resume). */
static int prepare_dir(const Sweep *s, bool force, bool resume)
{
    char *marker = g_build_filename(s->dir, "sweep.json", NULL);
    int rc = 0;
    if (g_file_test(s->dir, G_FILE_TEST_IS_SYMLINK)) {
        fprintf(stderr, "%s: is a symbolic link; give the sweep directory itself\n", s->dir);
        rc = ARCHSIM_EXIT_CANTCREAT;
    } else if (outfile_names_dot(s->dir)) {
        fprintf(stderr, "%s: name the sweep directory itself, not '.' or '..'\n", s->dir);
        rc = ARCHSIM_EXIT_CANTCREAT;
    } else if (g_file_test(s->dir, G_FILE_TEST_EXISTS)) {
        /* archsim's own sweep.json, by its content: a file of that name is not enough */
        bool is_sweep = outfile_is_sweep_dir(s->dir);
        if (!force && !resume) {
            fprintf(stderr, "%s: sweep directory exists; use --resume to finish it, --force to "
                    "replace it, or -o another\n", s->dir);
            rc = ARCHSIM_EXIT_CANTCREAT;
        } else if (!is_sweep) {
            fprintf(stderr, "%s: exists and is not an archsim sweep directory; not %s it\n", s->dir,
                    force ? "replacing" : "resuming");
            rc = ARCHSIM_EXIT_CANTCREAT;
        } else if (force) {
            outfile_remove_tree(s->dir);
        } else {
            char *old = NULL;
            GString *pts = g_string_new(NULL);
            json_points(s, pts);
            char *old_seeds = NULL;
            bool read = g_file_get_contents(marker, &old, NULL, NULL);
            if (read) {
                /* a sweep.json without "seeds" predates the choice: it used base + i */
                old_seeds = json_find_string(old, "seeds", NULL);
                if (!old_seeds)
                    old_seeds = g_strdup(sweep_seeds_name(SWEEP_SEEDS_PER_POINT));
            }
            if (read && !strstr(old, pts->str) &&
                strcmp(old_seeds, sweep_seeds_name(s->seeds)) != 0) {
                /* the same points but for their seeds would be resumed with mixed seeds */
                fprintf(stderr, "%s: its points were seeded with --seeds %s, this sweep asks for "
                        "--seeds %s; resuming would mix seeds; add --seeds %s to resume it, or "
                        "--force to start it over\n", s->dir, old_seeds,
                        sweep_seeds_name(s->seeds), old_seeds);
                rc = ARCHSIM_EXIT_DATAERR;
            } else if (!read || !strstr(old, pts->str)) {
                fprintf(stderr, "%s: holds a different sweep (its points differ); use --force "
                        "to replace it, or -o another\n", s->dir);
                rc = ARCHSIM_EXIT_CANTCREAT;
            } else {
                rc = check_definition(s, old);
                if (rc == 0) {
                    /* the results of the sweep as it was: rewritten when this one completes,
                     * and absent if it is interrupted or fails (they looked complete) */
                    char *csv = g_build_filename(s->dir, "sweep.csv", NULL);
                    g_unlink(csv);
                    g_free(csv);
                }
            }
            g_free(old_seeds);
            g_free(old);
            g_string_free(pts, TRUE);
        }
    }
    if (rc == 0 && g_mkdir_with_parents(s->dir, 0777) != 0) {
        fprintf(stderr, "%s: cannot create: %s\n", s->dir, g_strerror(errno));
        rc = ARCHSIM_EXIT_CANTCREAT;
    }
    g_free(marker);
    return rc;
}

/* The points as sweep_mpi.c sees them (sweep_exec.h) */
static void points_run(void *ctx, unsigned i, SweepResult *r)
{
    sweep_run_point(ctx, i, r);
}

static bool points_done(void *ctx, unsigned i, SweepResult *r)
{
    return sweep_point_done(ctx, i, r);
}

static void points_report(void *ctx, unsigned i, const SweepResult *r, unsigned finished,
                          unsigned n)
{
    sweep_report_point(ctx, i, r, finished, n);
}

int sweep_main(int argc, char **argv)
{
    char *out = NULL, *seed_text = NULL, *stats = NULL, *seeds_text = NULL;
    char **grids = NULL, **zips = NULL, **sets = NULL;
    gint jobs = 1;
    gboolean force = FALSE, resume = FALSE, quiet = FALSE, dry = FALSE, mpi = FALSE;
    bool mpi_on = false;          /* MPI_Init done: every rank reaches two sweep_mpi_agree() */
    int mpi_syncs = 0, rank = 0, nranks = 1;
    GOptionEntry entries[] = {
        { "grid", 'g', 0, G_OPTION_ARG_STRING_ARRAY, &grids,
          "sweep KEY over these values; several --grid make a cartesian product", "KEY=V1,V2,..." },
        { "zip", 'z', 0, G_OPTION_ARG_STRING_ARRAY, &zips,
          "lists of one length advanced together (one axis, after the grids)", "KEY=V1,V2,..." },
        { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "run N points at once (default 1)", "N" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
          "sweep directory (default runs/CONFIGNAME-sweep-N)", "DIR" },
        { "stats", 0, 0, G_OPTION_ARG_STRING, &stats,
          "stats.json names (globs) that become sweep.csv columns (default "
          SWEEP_DEFAULT_STATS ")", "GLOB,..." },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "override a config value in every point (repeatable)", "KEY=VALUE" },
        { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text,
          "base seed (default sim.seed): every point's, or point i gets N+i with --seeds "
          "per-point", "N" },
        { "seeds", 0, 0, G_OPTION_ARG_STRING, &seeds_text,
          "common: every point runs with the base seed (common random numbers; the default), "
          "per-point: point i gets base + i; a swept seed overrides both", "common|per-point" },
        { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "replace an existing sweep directory", NULL },
        { "resume", 'r', 0, G_OPTION_ARG_NONE, &resume,
          "finish an existing sweep directory: keep complete points, rerun the others; refused "
          "(exit 65) when the config or the binary changed since", NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no line per finished point", NULL },
        { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry,
          "print the points (directory, seed, values) and exit", NULL },
        { "mpi", 0, 0, G_OPTION_ARG_NONE, &mpi,
          "under mpirun -np N: rank 0 hands the points out to ranks 1..N-1 (-np 1: rank 0 runs "
          "them as without --mpi); needs a build with OpenMPI", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GError *e = NULL;
    int rc = 0;
    Sweep *s = sweep_new();
    CfgNode *root = NULL;
    GHashTable *path_places = NULL;      /* sweep-base.yaml's file paths */
    SweepResult *results = NULL;
    guint n = 0, resumed = 0, failed = 0;
    rc = cli_parse(&sweep_help, entries, &argc, &argv);
    if (rc >= 0)
        goto out;
    rc = 0;
    if (argc != 2) {
        rc = sweep_usage(argc < 2 ? "missing CONFIG" : "exactly one CONFIG expected");
        goto out;
    }
    if (!*argv[1]) {
        rc = sweep_usage("empty CONFIG");
        goto out;
    }
    if (jobs < 1) {
        rc = sweep_usage("-j: expected a positive integer");
        goto out;
    }
    if (force && resume) {
        rc = sweep_usage("--force and --resume exclude each other");
        goto out;
    }
    if (seed_text && !parse_seed(seed_text, &s->base_seed)) {
        rc = sweep_usage("--seed: expected a non-negative integer");
        goto out;
    }
    SweepSeeds seeds_opt = SWEEP_SEEDS_COMMON;
    if (seeds_text && !sweep_seeds_parse(seeds_text, &seeds_opt)) {
        char *msg = g_strdup_printf("--seeds: '%s': expected common or per-point", seeds_text);
        rc = sweep_usage(msg);
        g_free(msg);
        goto out;
    }
    if (mpi) {
        rc = sweep_mpi_init(&rank, &nranks);
        if (rc)
            goto out;
        mpi_on = true;
        mpi_syncs = 2;
    }
    s->config = sim_input_find(argv[1]);      /* the cwd first, then the data directory */
    s->quiet = quiet;
    root = cfg_load_file(s->config, NULL, &e);
    if (!root) {
        rc = sweep_fail(e);
        goto out;
    }
    CfgNode *block = cfg_node_copy(cfg_map_get(root, "sweep"));   /* NULL if none */
    bool has_block = block != NULL;
    if (block) {
        if (!sweep_add_yaml(s, block, &e)) {
            cfg_node_free(block);
            rc = sweep_fail(e);
            goto out;
        }
        cfg_map_remove(root, "sweep");
    }
    for (int pass = 0; pass < 2; pass++) {
        for (char **g = pass ? zips : grids; g && *g; g++) {
            SweepAxis *a = sweep_axis_parse(pass ? "--zip" : "--grid", *g, &e);
            if (!a || !sweep_add_axis(s, a, true, &e)) {
                cfg_node_free(block);
                rc = sweep_fail(e);
                goto out;
            }
        }
    }
    if (seeds_text)
        s->seeds = seeds_opt;     /* the command line wins over the sweep: block */
    if (stats) {
        g_strfreev(s->stats);
        s->stats = g_strsplit(stats, ",", -1);
        for (char **g = s->stats; *g; g++)
            g_strstrip(*g);
    } else if (!s->stats) {
        s->stats = g_strsplit(SWEEP_DEFAULT_STATS, ",", -1);
    }
    /* fixed overrides: checked here, applied by every point */
    CfgNode *with_sets = cfg_node_copy(root);
    bool ok = true;
    for (char **p = sets; p && *p && ok; p++) {
        ok = cfg_apply_set(with_sets, *p, &e);
        if (ok)
            g_ptr_array_add(s->sets, g_strdup(*p));
    }
    if (ok && !seed_text)
        ok = sweep_config_seed(with_sets, &s->base_seed, &e);
    if (ok && !sweep_check(s, with_sets, &e)) {
        ok = false;
        /* a sweep the block alone made (axes of its own; no --grid, --zip, --set, --seed or
         * --seeds): its error is the block's, at its place, as `archsim validate` reports it */
        if (block && s->axes->len > 0 && !grids && !zips && !sets && !seed_text &&
            !seeds_text) {
            GError *at = sweep_block_error(block, e->message);
            g_error_free(e);
            e = at;
        }
    }
    cfg_node_free(with_sets);
    cfg_node_free(block);
    if (!ok) {
        rc = sweep_fail(e);
        goto out;
    }
    if (mpi_on) {                 /* every rank got this far (else all stop at out:) */
        mpi_syncs--;
        rc = sweep_mpi_agree(0);
        if (rc)
            goto out;
    }
    n = sweep_n_points(s);
    out = out ? out : default_sweep_dir(s->config);
    if (mpi_on)
        sweep_mpi_bcast_string(&out);   /* rank 0's choice of the first free default */
    for (size_t len = strlen(out); len > 1 && out[len - 1] == '/';)
        out[--len] = '\0';
    s->dir = g_strdup(out);
    s->run_config = has_block ? g_build_filename(s->dir, "sweep-base.yaml", NULL)
                              : g_strdup(s->config);
    if (dry) {
        for (guint i = 0; i < n && rank == 0; i++) {
            char *label = point_label(s, i);
            printf("point-%04u seed=%" G_GUINT64_FORMAT " %s\n", i, sweep_point_seed(s, i), label);
            g_free(label);
        }
        goto out;
    }
    /* archsim-mpi runs its points with the archsim that handed the sweep over (sweep_mpi.c) */
    const char *plain = sweep_mpi_plain_exe();
    s->exe = plain != NULL ? g_strdup(plain) : g_file_read_link("/proc/self/exe", NULL);
    if (!s->exe)
        s->exe = g_strdup("/proc/self/exe");
    if (rank == 0) {
        /* what every point runs: with a sweep: block, sweep-base.yaml, which runs from the sweep
         * directory: the values read as file paths, and only they, made absolute (a value that
         * merely named a file beside the config, `repl: lru` beside a file `lru`, was rewritten,
         * and a trace directory was not) */
        CfgNode *base = cfg_node_copy(root);
        if (has_block) {
            path_places = point0_path_places(s, root);
            system_absolute_paths(base, path_places);
        }
        sweep_digest_points(s, base);
        cfg_node_free(base);
        rc = prepare_dir(s, force, resume);
    }
    if (rc)
        goto out;
    GString *buf = g_string_new(NULL);
    if (has_block && rank == 0) {
        system_absolute_paths(root, path_places);
        g_string_append_printf(buf, "# archsim sweep: %s without its sweep: block (includes "
                               "resolved, relative file paths made absolute); every point runs "
                               "this file\n", s->config);
        cfg_node_emit_yaml(root, buf, 0);
        ok = write_atomic(s->dir, "sweep-base.yaml", buf, &e);
        g_string_truncate(buf, 0);
    }
    if (ok && rank == 0) {
        json_sweep(s, NULL, buf);
        ok = write_atomic(s->dir, "sweep.json", buf, &e);
    }
    g_string_free(buf, TRUE);
    if (!ok) {
        rc = sweep_fail(e);
        goto out;
    }
    if (mpi_on) {                 /* rank 0 has the directory ready */
        mpi_syncs--;
        rc = sweep_mpi_agree(0);
        if (rc)
            goto out;
    }
    if (nranks > 1) {             /* --mpi: rank 0 hands out points, the others run them */
        results = g_new0(SweepResult, n);
        SweepPoints points = { s, n, points_run, points_done, points_report };
        rc = sweep_mpi_run(&points, resume, results, &resumed, &failed);
        if (rc || rank != 0)
            goto out;
        goto write_results;
    }

    /* run the points, at most `jobs` at once */
    struct sigaction sa = { .sa_handler = on_sweep_signal }, old_int, old_term, old_hup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    results = g_new0(SweepResult, n);
    int *pids = g_new0(int, n);
    guint next = 0, running = 0, finished = 0;
    bool forwarded = false;
    while ((next < n && !sweep_interrupted) || running > 0) {
        while (next < n && running < (guint)jobs && !sweep_interrupted) {
            guint i = next++;
            if (resume && sweep_point_done(s, i, &results[i])) {
                resumed++;
                finished++;
                continue;
            }
            pids[i] = sweep_point_start(s, i);
            if (pids[i] < 0) {
                result_init(&results[i]);
                results[i].exit_code = ARCHSIM_EXIT_SOFTWARE;
                g_free(results[i].message);
                results[i].message = g_strdup_printf("fork: %s", g_strerror(errno));
                pids[i] = 0;
                finished++;
                failed++;
                continue;
            }
            running++;
        }
        if (running == 0)
            continue;
        if (sweep_interrupted && !forwarded) {
            /* a signal sent to archsim sweep alone stops its points too: each point is the
             * leader of its own process group */
            forwarded = true;
            for (guint i = 0; i < n; i++)
                if (pids[i] > 0 && kill(-pids[i], SIGTERM) != 0)
                    kill(pids[i], SIGTERM);
        }
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;   /* ECHILD: nothing left to wait for */
        }
        for (guint i = 0; i < n; i++) {
            if (pids[i] != pid)
                continue;
            pids[i] = 0;
            running--;
            finished++;
            sweep_point_finish(s, i, st, &results[i]);
            if (sweep_interrupted && results[i].exit_code == ARCHSIM_EXIT_INTERRUPTED)
                break;
            if (!result_ok(&results[i]))
                failed++;
            sweep_report_point(s, i, &results[i], finished, n);
            break;
        }
    }
    g_free(pids);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (sweep_interrupted) {
        fprintf(stderr, "archsim sweep: interrupted by signal %d; sweep.csv not written; complete "
                "points are kept: finish with --resume -o %s\n", (int)sweep_interrupted, s->dir);
        rc = ARCHSIM_EXIT_INTERRUPTED;
        goto out;
    }
write_results:;
    GPtrArray *cols = sweep_csv_columns(s, results);
    GString *csv = g_string_new(NULL);
    sweep_csv_header(s, cols, csv);
    for (guint i = 0; i < n; i++)
        sweep_csv_row(s, i, &results[i], cols, csv);
    ok = write_atomic(s->dir, "sweep.csv", csv, &e);
    g_string_truncate(csv, 0);
    if (ok) {
        json_sweep(s, results, csv);
        ok = write_atomic(s->dir, "sweep.json", csv, &e);
    }
    g_string_free(csv, TRUE);
    g_ptr_array_free(cols, TRUE);
    if (!ok) {
        rc = sweep_fail(e);
        goto out;
    }
    printf("archsim sweep: %s: %u points (%u resumed, %u failed); results: %s/sweep.csv\n",
           s->config, n, resumed, failed, s->dir);
    if (failed) {
        fprintf(stderr, "archsim sweep: %u of %u points failed:", failed, n);
        for (guint i = 0; i < n; i++) {
            if (result_ok(&results[i]))
                continue;
            char *status = sweep_status_text(&results[i]);
            fprintf(stderr, " point-%04u (%s)", i, status);
            g_free(status);
        }
        fprintf(stderr, "; their rows in %s/sweep.csv say why\n", s->dir);
        rc = ARCHSIM_EXIT_CHECK;
    }
out:
    if (mpi_on) {
        while (mpi_syncs-- > 0)   /* a rank that failed early meets the others' agree() */
            sweep_mpi_agree(rc);
        sweep_mpi_finalize();
    }
    for (guint i = 0; results && i < n; i++)
        sweep_result_clear(&results[i]);
    g_free(results);
    if (path_places)
        g_hash_table_destroy(path_places);
    if (root)
        cfg_node_free(root);
    sweep_free(s);
    g_free(out);
    g_free(seed_text);
    g_free(seeds_text);
    g_free(stats);
    g_strfreev(grids);
    g_strfreev(zips);
    g_strfreev(sets);
    return rc;
}
