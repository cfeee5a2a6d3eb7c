/* fuzz_sweep.c: fuzz harness for parameter sweeps (sim/cli/sweep.c, docs/sweeps.md): a
 * config's `sweep:` block, the command line's --grid and --zip lists, and what the points make of
 * them.
 *
 * Input (tests/fuzz/sweep/README.md): YAML text, then optionally NUL-separated items, each a
 * command-line option of `archsim sweep`: "g" + TEXT is --grid TEXT, "z" + TEXT is --zip TEXT, "s"
 * + TEXT is --set TEXT, "p" asks for --seeds per-point, "b" + N is --seed N. The harness does what
 * sweep_main does up to the first point (load, read the block, add the command line's axes, apply
 * the fixed --sets, sweep_check) without running anything; abort() when an oracle fails:
 *  - a refused block has ARCHSIM_CONFIG_ERROR, 78 and "fuzz.yaml:LINE:COL: " inside the text; a
 *    refused --grid/--zip/check has ARCHSIM_CLI_ERROR (or --set's config error), 64, and starts
 *    with "archsim sweep: " (or "--set"); a refusal for no axes, zip lists of two lengths, too
 *    many points or per-point seeds past 2^63 - 1 is so, counted here (the base seed is the
 *    config's sim.seed unless a --seed item gives one, as sweep_main takes it);
 *  - an accepted sweep has at most SWEEP_MAX_POINTS points, exactly the product of its grid
 *    lists' lengths and the zip group's (counted here in 128 bits);
 *  - point i's value indices are its mixed-radix digits, the last axis fastest (the zip lists
 *    sharing one digit), for the first, the last and sampled points; sweep_point_value is the
 *    list's value at that index; the seed follows the --seeds rule or the swept seed and is one
 *    `archsim run --seed` takes (at most 2^63 - 1);
 *  - every value of every axis, given to --set as the point's argv gives it, reaches the config
 *    as the sweep says it is (the text the CSV row shows; a quoted YAML value stays a string);
 *  - the sweep.csv header and rows of sampled points read back (RFC 4180) as the fields written;
 *  - the point digests (what --resume compares) are the same twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/cli/sweep.h"
#include "../../sim/config.h"
#include "../../sim/error.h"

#define FUZZ_NAME "fuzz_sweep"
#include "fuzz.h"

/* The node at a dotted key (as --set splits it), or NULL. */
static const CfgNode *node_at(const CfgNode *root, const char *key)
{
    char **parts = g_strsplit(key, ".", -1);
    const CfgNode *n = root;
    for (char **p = parts; n && *p; p++)
        n = n->kind == CFG_MAP ? cfg_map_get(n, *p) : NULL;
    g_strfreev(parts);
    return n;
}

/* Splits one CSV record (RFC 4180) at *pp into fields; false if it is malformed. */
static bool csv_record(const char **pp, GPtrArray *fields)
{
    const char *p = *pp;
    for (;;) {
        GString *f = g_string_new(NULL);
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    g_string_free(f, TRUE);
                    return false;
                }
                if (*p == '"') {
                    if (p[1] != '"')
                        break;
                    p++;
                }
                g_string_append_c(f, *p++);
            }
            p++;
            if (*p != ',' && *p != '\n') {
                g_string_free(f, TRUE);
                return false;
            }
        } else {
            while (*p && *p != ',' && *p != '\n') {
                if (*p == '"' || *p == '\r') {
                    g_string_free(f, TRUE);
                    return false;
                }
                g_string_append_c(f, *p++);
            }
        }
        g_ptr_array_add(fields, g_string_free(f, FALSE));
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != '\n')
            return false;
        *pp = p + 1;
        return true;
    }
}

static void check_error(const GError *e, const char *input, const char *label, long lines)
{
    fuzz_check(e != NULL, input, "refused without an error");
    if (e->domain == ARCHSIM_CONFIG_ERROR && e->code == ARCHSIM_EXIT_CONFIG &&
        !g_str_has_prefix(e->message, "--set")) {
        if (!fuzz_has_position(e->message, "fuzz.yaml", lines))
            fprintf(stderr, FUZZ_NAME ": %s: %s\n", input, e->message);
        fuzz_check(fuzz_has_position(e->message, "fuzz.yaml", lines), input,
                   "a config error without FILE:LINE:COL inside the text");
        return;
    }
    if (e->code != ARCHSIM_EXIT_USAGE ||
        !(g_str_has_prefix(e->message, "archsim sweep: ") || g_str_has_prefix(e->message, "--set")))
        fprintf(stderr, FUZZ_NAME ": %s: %s: %s (domain %s, code %d)\n", input, label, e->message,
                g_quark_to_string(e->domain), e->code);
    fuzz_check(e->code == ARCHSIM_EXIT_USAGE, input, "a command-line error whose code is not 64");
    fuzz_check(g_str_has_prefix(e->message, "archsim sweep: ") ||
               g_str_has_prefix(e->message, "--set"), input,
               "a command-line error that does not say where it comes from");
}

/* Point i: its digits (last axis fastest, the zip group one digit), checked against the sweep. */
static void check_point(const Sweep *s, guint i, const char *input)
{
    guint na = s->axes->len;
    guint *idx = g_new0(guint, na ? na : 1);
    sweep_point_index(s, i, idx);
    guint rest = i, zip_len = 0;
    for (guint k = 0; k < na; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (a->zip)
            zip_len = a->values->len;
    }
    guint zdigit = 0;
    if (zip_len) {
        zdigit = rest % zip_len;
        rest /= zip_len;
    }
    for (guint k = na; k-- > 0;) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        fuzz_check(idx[k] < a->values->len, input, "a value index past its list");
        guint digit = zdigit;
        if (!a->zip) {
            digit = rest % a->values->len;
            rest /= a->values->len;
        }
        fuzz_check(idx[k] == digit, input, a->zip ? "zip lists not advanced together"
                                                   : "a point's digit is not its index's");
        fuzz_check(!strcmp(sweep_point_value(s, i, k), g_ptr_array_index(a->values, digit)),
                   input, "a point's value is not its list's at its digit");
    }
    fuzz_check(rest == 0, input, "a point index past the sweep");
    /* the seed: a swept seed, else the rule */
    uint64_t want = s->seeds == SWEEP_SEEDS_PER_POINT ? s->base_seed + i : s->base_seed;
    for (guint k = 0; k < na; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (!strcmp(a->key, "seed") || !strcmp(a->key, "sim.seed")) {
            want = g_ascii_strtoull(g_ptr_array_index(a->values, idx[k]), NULL, 10);
            break;
        }
    }
    fuzz_check(sweep_point_seed(s, i) == want, input, "a point's seed breaks the rule");
    fuzz_check(want <= (uint64_t)G_MAXINT64, input, "a point's seed that `archsim run` refuses");
    /* the child's argv: --seed S, then each fixed --set, then each swept KEY=VALUE */
    char **argv = sweep_point_argv(s, i);
    guint argc = g_strv_length(argv), sets = 0;
    fuzz_check(argc >= 8 && !strcmp(argv[6], "--seed"), input, "argv without --seed");
    char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, want);
    fuzz_check(!strcmp(argv[7], seed), input, "argv's seed is not the point's");
    g_free(seed);
    for (guint k = 8; k + 1 < argc; k += 2) {
        fuzz_check(!strcmp(argv[k], "--set"), input, "argv: an assignment without --set");
        sets++;
    }
    guint swept = 0;
    for (guint k = 0; k < na; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        swept += strcmp(a->key, "seed") && strcmp(a->key, "sim.seed");
    }
    fuzz_check((argc - 8) % 2 == 0 && sets == s->sets->len + swept, input,
               "argv does not hold one --set per fixed assignment and swept key");
    g_strfreev(argv);
    g_free(idx);
}

/* Every value of every axis, as --set gets it, arrives as the sweep means it. */
static void check_values(const Sweep *s, const CfgNode *root, const char *input)
{
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (!strcmp(a->key, "seed") || !strcmp(a->key, "sim.seed"))
            continue;
        for (guint v = 0; v < a->values->len && v < 64; v++) {
            const char *val = g_ptr_array_index(a->values, v);
            const char *arg = g_ptr_array_index(a->args, v);
            char *set = g_strdup_printf("%s=%s", a->key, arg);
            CfgNode *copy = cfg_node_copy(root);
            GError *e = NULL;
            bool ok = cfg_apply_set(copy, set, &e);
            if (a->from_yaml) {
                /* a value of the sweep: block is one YAML scalar: --set must take it whole */
                if (!ok)
                    fprintf(stderr, FUZZ_NAME ": %s: --set %s: %s\n", input, set, e->message);
                fuzz_check(ok, input, "a value of the sweep: block that --set refuses");
                const CfgNode *n = node_at(copy, a->key);
                bool same = n && n->kind == CFG_SCALAR && !strcmp(n->scalar, val);
                if (!same)
                    fprintf(stderr, FUZZ_NAME ": %s: --set %s gives '%s', the sweep says '%s'\n",
                            input, set, n && n->kind == CFG_SCALAR ? n->scalar : "(not a scalar)",
                            val);
                fuzz_check(same, input, "a point runs another value than its CSV row shows");
                /* set_arg quotes exactly the values written quoted */
                fuzz_check(n->quoted == (strcmp(arg, val) != 0), input,
                           "a value's quotes lost or gained on its way to --set");
            } else if (ok) {
                const CfgNode *n = node_at(copy, a->key);
                fuzz_check(n != NULL, input, "--set of a swept key left no node at the key");
            }
            if (e)
                g_error_free(e);
            cfg_node_free(copy);
            g_free(set);
        }
    }
}

static void check_csv(const Sweep *s, guint n, const char *input)
{
    SweepResult r;
    memset(&r, 0, sizeof r);
    r.names = g_ptr_array_new_with_free_func(g_free);
    r.values = g_ptr_array_new_with_free_func(g_free);
    r.message = g_strdup("a \"message\", with\nlines");
    r.exit_code = 3;
    GPtrArray *cols = g_ptr_array_new();
    g_ptr_array_add(cols, (char *)"sim.cycles");
    g_ptr_array_add(cols, (char *)"a,\"b\"");
    GString *csv = g_string_new(NULL);
    sweep_csv_header(s, cols, csv);
    guint pick[3] = { 0, n / 2, n - 1 };
    for (guint j = 0; j < 3; j++)
        sweep_csv_row(s, pick[j], &r, cols, csv);
    const char *p = csv->str;
    GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
    guint swept = 0;
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        swept += strcmp(a->key, "seed") && strcmp(a->key, "sim.seed");
    }
    for (guint row = 0; row < 4; row++) {
        g_ptr_array_set_size(f, 0);
        fuzz_check(csv_record(&p, f), input, "sweep.csv does not read back as RFC 4180");
        fuzz_check(f->len == swept + 3 + cols->len, input, "a sweep.csv record of the wrong width");
        guint c = 0;
        for (guint k = 0; k < s->axes->len; k++) {
            const SweepAxis *a = g_ptr_array_index(s->axes, k);
            if (!strcmp(a->key, "seed") || !strcmp(a->key, "sim.seed"))
                continue;
            const char *want = row == 0 ? a->key : sweep_point_value(s, pick[row - 1], k);
            fuzz_check(!strcmp(g_ptr_array_index(f, c), want), input,
                       "a sweep.csv field that reads back as another text");
            c++;
        }
        if (row > 0)
            fuzz_check(!strcmp(g_ptr_array_index(f, c + 2), r.message), input,
                       "the message field reads back as another text");
        else
            fuzz_check(!strcmp(g_ptr_array_index(f, c + 4), "a,\"b\""), input,
                       "a stat name reads back as another text");
    }
    fuzz_check(*p == '\0', input, "sweep.csv has more than its records");
    g_ptr_array_free(f, TRUE);
    g_string_free(csv, TRUE);
    g_ptr_array_free(cols, TRUE);
    g_ptr_array_free(r.names, TRUE);
    g_ptr_array_free(r.values, TRUE);
    g_free(r.message);
}

/* The points the axes make (128 bits, no bound), whatever their order; 0 when zip lists differ. */
static unsigned __int128 points_of(const Sweep *s)
{
    unsigned __int128 n = 1;
    guint zip = 0;
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        if (!a->zip)
            n *= a->values->len;
        else if (zip && zip != a->values->len)
            return 0;
        else
            zip = a->values->len;
    }
    return zip ? n * zip : n;
}

/* A refusal by sweep_check is justified: what its message says holds of the sweep. */
static void check_refusal(const Sweep *s, const char *msg, const char *input)
{
    bool seed_swept = false;
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        seed_swept |= !strcmp(a->key, "seed") || !strcmp(a->key, "sim.seed");
    }
    unsigned __int128 n = points_of(s);
    /* each message by its own start (a key quoted in another message may hold any text) */
    const char *pre = "archsim sweep: ";
    if (!g_str_has_prefix(msg, pre))
        return;
    const char *m = msg + strlen(pre);
    for (guint k = 0; k < s->axes->len; k++) {
        /* "archsim sweep: KEY: ..." is a key --set refuses, whatever the key says */
        const char *key = ((const SweepAxis *)g_ptr_array_index(s->axes, k))->key;
        if (g_str_has_prefix(m, key) && m[strlen(key)] == ':')
            return;
    }
    const char *after_product = m + strspn(m, "0123456789 x(-zip)");
    if (g_str_has_prefix(m, "nothing to sweep"))
        fuzz_check(s->axes->len == 0, input, "refused as empty with axes to sweep");
    else if (g_str_has_prefix(m, "--zip lists differ in length"))
        fuzz_check(n == 0, input, "refused for zip lists of one length");
    else if (after_product > m && g_str_has_prefix(after_product, "points, more than a sweep"))
        fuzz_check(n > SWEEP_MAX_POINTS, input, "refused as too large at most 1,000,000 points");
    else if (g_str_has_prefix(m, "per-point seeds:"))
        fuzz_check(s->seeds == SWEEP_SEEDS_PER_POINT && !seed_swept && n >= 1 &&
                   (unsigned __int128)s->base_seed + n - 1 > (unsigned __int128)G_MAXINT64, input,
                   "refused for per-point seeds that all fit");
}

static void fuzz_one(const char *input)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &text, &len, NULL)) {
        fprintf(stderr, FUZZ_NAME ": cannot read %s\n", input);
        exit(2);
    }
    size_t ylen = strlen(text);
    long lines = fuzz_yaml_lines(text, ylen);
    GError *e = NULL;
    CfgNode *root = cfg_load_string("fuzz.yaml", text, NULL, &e);
    if (!root) {
        g_error_free(e);     /* the config layer's own harness checks these */
        g_free(text);
        return;
    }
    if (root->kind != CFG_MAP) {
        cfg_node_free(root);
        g_free(text);
        return;
    }
    Sweep *s = sweep_new();
    s->dir = g_strdup("/nonexistent/sweep");
    s->config = g_strdup("fuzz.yaml");
    s->base_seed = 1;
    bool ok = true;
    const CfgNode *block = cfg_map_get(root, "sweep");
    if (block) {
        ok = sweep_add_yaml(s, block, &e);
        if (!ok)
            check_error(e, input, "sweep: block", lines);
        cfg_map_remove(root, "sweep");
    }
    CfgNode *with_sets = cfg_node_copy(root);
    bool per_point = false, seed_given = false;
    /* the command line: grids before zips, as sweep_main reads them */
    for (int pass = 0; pass < 3 && ok; pass++) {
        for (size_t at = ylen + 1; at < len && ok; at += strlen(text + at) + 1) {
            const char *item = text + at;
            char kind = item[0];
            if (kind == 'p') {
                per_point = true;
                continue;
            }
            if (kind == 'b') {      /* --seed N, as sweep_main reads it */
                guint64 v;
                if (pass == 0 && g_ascii_string_to_unsigned(item + 1, 10, 0, G_MAXINT64, &v, NULL)) {
                    s->base_seed = v;
                    seed_given = true;
                }
                continue;
            }
            if ((pass == 0 && kind != 'g') || (pass == 1 && kind != 'z') ||
                (pass == 2 && kind != 's') || !kind)
                continue;
            if (kind == 's') {
                ok = cfg_apply_set(with_sets, item + 1, &e);
                if (ok)
                    g_ptr_array_add(s->sets, g_strdup(item + 1));
                else
                    check_error(e, input, "--set", lines);
                continue;
            }
            SweepAxis *a = sweep_axis_parse(kind == 'g' ? "--grid" : "--zip", item + 1, &e);
            ok = a && sweep_add_axis(s, a, true, &e);
            if (!ok)
                check_error(e, input, kind == 'g' ? "--grid" : "--zip", lines);
        }
    }
    if (per_point)
        s->seeds = SWEEP_SEEDS_PER_POINT;
    if (ok && !seed_given) {        /* the base seed from sim.seed, as sweep_main takes it */
        ok = sweep_config_seed(with_sets, &s->base_seed, &e);
        if (!ok)
            check_error(e, input, "sim.seed", lines);
    }
    if (ok) {
        ok = sweep_check(s, with_sets, &e);
        if (!ok) {
            check_error(e, input, "sweep_check", lines);
            check_refusal(s, e->message, input);
        }
    }
    if (ok) {
        /* the product, counted here without a bound on the way */
        unsigned __int128 product = 1;
        guint zip = 0;
        bool zipped = false;
        for (guint k = 0; k < s->axes->len; k++) {
            const SweepAxis *a = g_ptr_array_index(s->axes, k);
            if (a->zip) {
                fuzz_check(!zipped || zip == a->values->len, input, "zip lists of two lengths");
                zip = a->values->len;
                zipped = true;
            } else {
                fuzz_check(!zipped, input, "a grid axis after the zip group");
                product *= a->values->len;
            }
        }
        if (zipped)
            product *= zip;
        guint n = sweep_n_points(s);
        fuzz_check(product <= SWEEP_MAX_POINTS && product == n && n >= 1, input,
                   "the point count is not the product of the lists' lengths");
        check_point(s, 0, input);
        check_point(s, n - 1, input);
        for (guint j = 1; j < 16 && j < n; j++)
            check_point(s, (guint)(((uint64_t)j * 2654435761u) % n), input);
        check_values(s, with_sets, input);
        check_csv(s, n, input);
        if (n <= 256) {
            s->exe = g_strdup("/dev/null");     /* the binary's digest: not what is fuzzed */
            sweep_digest_points(s, root);
            GPtrArray *first = s->point_sha256;
            s->point_sha256 = NULL;
            sweep_digest_points(s, root);
            fuzz_check(first->len == n && s->point_sha256->len == n, input,
                       "not one digest per point");
            for (guint i = 0; i < n; i++)
                fuzz_check(!strcmp(g_ptr_array_index(first, i),
                                   g_ptr_array_index(s->point_sha256, i)),
                           input, "a point's digest changed between two computations");
            g_ptr_array_free(first, TRUE);
        }
    }
    if (e)
        g_error_free(e);
    cfg_node_free(with_sets);
    cfg_node_free(root);
    sweep_free(s);
    g_free(text);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
