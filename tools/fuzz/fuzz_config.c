/* fuzz_config.c: fuzz harness for the config layer (sim/config.c, sim/param.c).
 *
 * Input: YAML text, optionally followed by NUL-separated --set assignments. Each input is
 * loaded, --set applied, checked against small ParamSpec tables, and three oracles are checked:
 * errors carry the documented domain/code/position prefix, emit -> parse gives the same tree,
 * and every value that parses as a typed parameter formats back to the same value. See README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/param.h"
#include "../../sim/system.h"

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

typedef struct {
    char *name;
    uint64_t seed;
    uint64_t freq;
    double ratio;
    int mode;
    bool verbose;
    char *trace;
    int64_t offset;
} FuzzTop;

typedef struct {
    uint64_t size, assoc, line, latency, timeout;
} FuzzCache;

static const char *const fuzz_modes[] = {"fast", "detailed", "check", NULL};

static const ParamSpec fuzz_top_specs[] = {
    {"name", PARAM_STRING, "sys", 0, 0, 0, NULL, "name", offsetof(FuzzTop, name)},
    {"seed", PARAM_UINT, "1", 0, 0, 0, NULL, "seed", offsetof(FuzzTop, seed)},
    {"freq", PARAM_FREQ, "3GHz", PARAM_F_RANGE, 1, 1e12, NULL, "clock", offsetof(FuzzTop, freq)},
    {"ratio", PARAM_DOUBLE, "0.5", PARAM_F_RANGE, 0, 1, NULL, "ratio", offsetof(FuzzTop, ratio)},
    {"mode", PARAM_ENUM, "fast", 0, 0, 0, fuzz_modes, "mode", offsetof(FuzzTop, mode)},
    {"verbose", PARAM_BOOL, "no", 0, 0, 0, NULL, "verbose", offsetof(FuzzTop, verbose)},
    {"trace", PARAM_PATH, NULL, 0, 0, 0, NULL, "trace", offsetof(FuzzTop, trace)},
    {"offset", PARAM_INT, "-1", PARAM_F_RANGE, -1000, 1000, NULL, "offset",
     offsetof(FuzzTop, offset)},
    PARAM_END,
};

static const ParamSpec fuzz_cache_specs[] = {
    {"size", PARAM_SIZE, "32KiB", PARAM_F_RANGE | PARAM_F_POW2, 1024, 1e12, NULL, "size",
     offsetof(FuzzCache, size)},
    {"assoc", PARAM_UINT, "8", PARAM_F_RANGE, 1, 64, NULL, "ways", offsetof(FuzzCache, assoc)},
    {"line", PARAM_SIZE, "64B", PARAM_F_POW2, 0, 0, NULL, "line", offsetof(FuzzCache, line)},
    {"latency", PARAM_CYCLES, "4", 0, 0, 0, NULL, "latency", offsetof(FuzzCache, latency)},
    {"timeout", PARAM_TIME, NULL, PARAM_F_REQUIRED, 0, 0, NULL, "timeout",
     offsetof(FuzzCache, timeout)},
    PARAM_END,
};

/* One spec per type, offset 0, for the per-scalar format/parse oracle. */
static const ParamSpec fuzz_type_specs[] = {
    {"b", PARAM_BOOL, "no", 0, 0, 0, NULL, "", 0},
    {"i", PARAM_INT, "0", 0, 0, 0, NULL, "", 0},
    {"u", PARAM_UINT, "0", 0, 0, 0, NULL, "", 0},
    {"d", PARAM_DOUBLE, "0", 0, 0, 0, NULL, "", 0},
    {"s", PARAM_STRING, "", 0, 0, 0, NULL, "", 0},
    {"p", PARAM_PATH, "x", 0, 0, 0, NULL, "", 0},
    {"e", PARAM_ENUM, "fast", 0, 0, 0, fuzz_modes, "", 0},
    {"z", PARAM_SIZE, "0", 0, 0, 0, NULL, "", 0},
    {"f", PARAM_FREQ, "1Hz", 0, 0, 0, NULL, "", 0},
    {"c", PARAM_CYCLES, "0", 0, 0, 0, NULL, "", 0},
    {"t", PARAM_TIME, "0ps", 0, 0, 0, NULL, "", 0},
    PARAM_END,
};

/* Reports an oracle violation (stderr) and returns 1 so the caller can abort or count it. */
static int fuzz_violation(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_config: %s: %s\n", what, detail != NULL ? detail : "");
    return 1;
}

static bool fuzz_tree_equal(const CfgNode *a, const CfgNode *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == CFG_SCALAR)
        return strcmp(a->scalar, b->scalar) == 0 && (!a->quoted || b->quoted);
    if (a->items->len != b->items->len)
        return false;
    for (guint i = 0; i < a->items->len; i++) {
        if (a->kind == CFG_MAP && strcmp(((CfgNode *)g_ptr_array_index(a->keys, i))->scalar,
                                         ((CfgNode *)g_ptr_array_index(b->keys, i))->scalar) != 0)
            return false;
        if (!fuzz_tree_equal(g_ptr_array_index(a->items, i), g_ptr_array_index(b->items, i)))
            return false;
    }
    return true;
}

/* An error must be ours, with an exit code and a position prefix. */
static int fuzz_check_error(const GError *err, int code, const char *prefix)
{
    if (err == NULL)
        return fuzz_violation("failure without a GError", NULL);
    if (err->domain != ARCHSIM_CONFIG_ERROR || (code != 0 && err->code != code))
        return fuzz_violation("wrong error domain/code", err->message);
    if (prefix != NULL && strncmp(err->message, prefix, strlen(prefix)) != 0)
        return fuzz_violation("error without position prefix", err->message);
    return 0;
}

/* A STRING or PATH value must be what the text says (a PATH: resolved against base), and must
 * read back through param_emit_yaml as itself. Comparing the read-back value only with the parsed
 * one (as fuzz_check_scalar does) missed issue 15 item 9: parsing stripped a quoted path's
 * spaces, so both sides had lost them; and with the current directory as the only base, no path
 * ever held bytes that YAML cannot (a directory name that is not UTF-8). */
static int fuzz_check_text_value(const ParamSpec *s, const char *text, const char *base)
{
    char *v1 = NULL, *v2 = NULL, *problem = NULL;
    const ParamSpec one[] = {*s, PARAM_END};
    if (!param_parse_value(s, text, base, &v1, &problem)) {
        int bad = problem == NULL || problem[0] == '\0'
                      ? fuzz_violation("parse failure without a problem", text)
                      : 0;
        g_free(problem);
        return bad;
    }
    int bad = 0;
    char *want = s->type == PARAM_STRING ? g_strdup(text) : g_canonicalize_filename(text, base);
    if (strcmp(v1, want) != 0)
        bad = fuzz_violation("value is not what the text says", text);
    GString *out = g_string_new(NULL);
    param_emit_yaml(one, &v1, out, 0);
    GError *err = NULL;
    CfgNode *back = bad ? NULL : cfg_load_string("emit.yaml", out->str, NULL, &err);
    if (!bad && back == NULL)
        bad = fuzz_violation("param emit does not parse", out->str);
    else if (!bad && !param_apply(one, back, "", NULL, &v2, &err))
        bad = fuzz_violation("param emit does not read back", err->message);
    else if (!bad && strcmp(v1, v2) != 0)
        bad = fuzz_violation("value changed through emit", out->str);
    g_clear_error(&err);
    cfg_node_free(back);
    g_string_free(out, TRUE);
    g_free(want);
    g_free(v1);
    g_free(v2);
    return bad;
}

/* Every scalar that parses as some type must format back (param_emit_yaml) to the same value. */
static int fuzz_check_scalar(const char *text)
{
    int bad = 0;
    /* Paths under a base made of the text itself and under one that is not UTF-8. */
    char *odd_base = g_strconcat("/\xff/", text, NULL), *text_base = g_strconcat("/", text, NULL);
    const char *bases[] = {NULL, text_base, odd_base};
    g_assert(fuzz_type_specs[4].type == PARAM_STRING && fuzz_type_specs[5].type == PARAM_PATH);
    for (size_t i = 0; i < G_N_ELEMENTS(bases) && !bad; i++)
        bad = fuzz_check_text_value(&fuzz_type_specs[5], text, bases[i]);
    if (!bad)
        bad = fuzz_check_text_value(&fuzz_type_specs[4], text, NULL);
    g_free(odd_base);
    g_free(text_base);
    for (const ParamSpec *s = fuzz_type_specs; s->name != NULL && !bad; s++) {
        union {
            bool b;
            int64_t i;
            uint64_t u;
            double d;
            int e;
            char *p;
        } v1, v2;
        memset(&v1, 0, sizeof v1);
        memset(&v2, 0, sizeof v2);
        char *problem = NULL;
        const ParamSpec one[] = {*s, PARAM_END};
        if (!param_parse_value(s, text, NULL, &v1, &problem)) {
            if (problem == NULL || problem[0] == '\0')
                bad = fuzz_violation("parse failure without a problem", text);
            g_free(problem);
            continue;
        }
        GString *out = g_string_new(NULL);
        param_emit_yaml(one, &v1, out, 0);
        GError *err = NULL;
        CfgNode *back = cfg_load_string("emit.yaml", out->str, NULL, &err);
        if (back == NULL) {
            bad = fuzz_violation("param emit does not parse", out->str);
            g_clear_error(&err);
        } else if (!param_apply(one, back, "", NULL, &v2, &err)) {
            bad = fuzz_violation("param emit does not read back", err->message);
            g_clear_error(&err);
        } else {
            bool same = s->type == PARAM_STRING || s->type == PARAM_PATH
                            ? strcmp(v1.p, v2.p) == 0
                        : s->type == PARAM_BOOL   ? v1.b == v2.b
                        : s->type == PARAM_INT    ? v1.i == v2.i
                        : s->type == PARAM_DOUBLE ? v1.d == v2.d
                        : s->type == PARAM_ENUM   ? v1.e == v2.e
                                                  : v1.u == v2.u;
            if (!same)
                bad = fuzz_violation("param value changed through emit", out->str);
        }
        if (s->type == PARAM_STRING || s->type == PARAM_PATH) {
            g_free(v1.p);
            g_free(v2.p);
        }
        cfg_node_free(back);
        g_string_free(out, TRUE);
    }
    return bad;
}

static int fuzz_walk_scalars(const CfgNode *n, int *budget)
{
    if (*budget <= 0)
        return 0;
    if (n->kind == CFG_SCALAR) {
        (*budget)--;
        return fuzz_check_scalar(n->scalar);
    }
    for (guint i = 0; i < n->items->len; i++)
        if (fuzz_walk_scalars(g_ptr_array_index(n->items, i), budget))
            return 1;
    return 0;
}

/* Applies a table; on success emits, reads back and compares via a second emit. */
static int fuzz_check_params(const ParamSpec *specs, const CfgNode *section, const char *path,
                             const char *const *ignore, void *dst, void *dst2)
{
    GError *err = NULL;
    if (!param_apply(specs, section, path, ignore, dst, &err)) {
        int bad = fuzz_check_error(err, ARCHSIM_EXIT_CONFIG, NULL);
        g_clear_error(&err);
        return bad;
    }
    int bad = 0;
    GString *out = g_string_new(NULL), *out2 = g_string_new(NULL);
    param_emit_yaml(specs, dst, out, 0);
    param_describe(specs, out2, 2);
    g_string_truncate(out2, 0);
    CfgNode *back = cfg_load_string("emit.yaml", out->str, NULL, &err);
    if (back == NULL) {
        bad = fuzz_violation("params emit does not parse", err->message);
    } else if (!param_apply(specs, back, path, NULL, dst2, &err)) {
        bad = fuzz_violation("params emit does not apply", err->message);
    } else {
        param_emit_yaml(specs, dst2, out2, 0);
        if (strcmp(out->str, out2->str) != 0)
            bad = fuzz_violation("params changed through emit", out->str);
    }
    g_clear_error(&err);
    cfg_node_free(back);
    g_string_free(out, TRUE);
    g_string_free(out2, TRUE);
    param_free(specs, dst);
    param_free(specs, dst2);
    return bad;
}

/* Runs one input through the config layer. Returns 0 when everything behaved (loaded or cleanly
 * rejected), 1 when an oracle failed. Crashes and leaks are for the sanitizers to see. */
static int fuzz_config_one(const char *data, size_t len)
{
    int bad = 0;
    size_t ylen = strnlen(data, len);
    char *yaml = g_strndup(data, ylen);
    GError *err = NULL;
    CfgNode *root = cfg_load_string("fuzz.yaml", yaml, NULL, &err);
    g_free(yaml);
    if (root == NULL) {
        bad = fuzz_check_error(err, ARCHSIM_EXIT_CONFIG, "fuzz.yaml:");
        g_clear_error(&err);
        return bad;
    }
    /* The rest of the input: NUL-separated --set assignments (at most 8). */
    size_t pos = ylen + 1;
    for (int i = 0; i < 8 && pos < len && !bad; i++) {
        size_t alen = strnlen(data + pos, len - pos);
        char *a = g_strndup(data + pos, alen);
        if (!cfg_apply_set(root, a, &err))
            bad = fuzz_check_error(err, ARCHSIM_EXIT_USAGE, "--set");
        g_clear_error(&err);
        g_free(a);
        pos += alen + 1;
    }

    /* Oracle 1: emit -> parse gives the same tree. */
    GString *out = g_string_new(NULL);
    cfg_node_emit_yaml(root, out, 0);
    CfgNode *back = bad ? NULL : cfg_load_string("emit.yaml", out->str, NULL, &err);
    if (!bad && back == NULL)
        bad = fuzz_violation("emitted YAML does not parse", err->message);
    else if (!bad && !fuzz_tree_equal(root, back))
        bad = fuzz_violation("emitted YAML reads back different", out->str);
    g_clear_error(&err);
    cfg_node_free(back);
    g_string_free(out, TRUE);

    /* Copy and merge must not disturb anything. */
    CfgNode *copy = cfg_node_copy(root);
    cfg_merge(copy, cfg_node_copy(root));
    if (!bad && !fuzz_tree_equal(root, copy))
        bad = fuzz_violation("merge of a tree with itself changed it", NULL);
    cfg_node_free(copy);

    /* Oracle 2: typed parameters. */
    static const char *const top_ignore[] = {"l1d", "core", "include", "type", NULL};
    FuzzTop top = {0}, top2 = {0};
    FuzzCache cache = {0}, cache2 = {0};
    if (!bad)
        bad = fuzz_check_params(fuzz_top_specs, root, "", top_ignore, &top, &top2);
    if (!bad)
        bad = fuzz_check_params(fuzz_cache_specs, cfg_map_get(root, "l1d"), "l1d", NULL, &cache,
                                &cache2);
    /* Oracle 3: a tree that reads as an include-only part (issue 16 item 3) is checked on its
     * own, section by section: it passes, or fails with 78 at a position in the file. */
    if (!bad && system_is_part(root)) {
        GString *summary = g_string_new(NULL);
        /* a value a --set wrote is placed at that --set, not in the file */
        if (!system_check_part(root, summary, &err))
            bad = fuzz_check_error(err, ARCHSIM_EXIT_CONFIG,
                                   g_str_has_prefix(err ? err->message : "", "--set ") ? "--set "
                                                                                      : "fuzz.yaml:");
        else if (summary->len == 0)
            bad = fuzz_violation("a part that checks out says nothing of what it checked", NULL);
        g_clear_error(&err);
        g_string_free(summary, TRUE);
    }
    int budget = 64;
    if (!bad)
        bad = fuzz_walk_scalars(root, &budget);
    for (guint i = 0; !bad && i < root->keys->len && i < 64; i++)
        bad = fuzz_check_scalar(((CfgNode *)g_ptr_array_index(root->keys, i))->scalar);
    cfg_node_free(root);
    return bad;
}

#ifndef FUZZ_CONFIG_NO_MAIN
/* The harness convention of tools/fuzz/README.md: each file named in argv[1..] is one input;
 * abort() when an oracle fails; exit 0 when every file passed (rejected input is a pass). An
 * unreadable file is a usage error (exit 66), not a finding. */
static int fuzz_run_file(const char *path)
{
    gchar *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        fprintf(stderr, "fuzz_config: cannot read %s\n", path);
        return 66;
    }
    int bad = fuzz_config_one(data, len);
    g_free(data);
    if (bad) {
        fprintf(stderr, "fuzz_config: oracle failed on %s\n", path);
        abort();
    }
    return 0;
}

int main(int argc, char **argv)
{
#ifdef __AFL_FUZZ_TESTCASE_LEN
    /* AFL++ persistent mode (about 4x the executions of a fork per input): many inputs per
     * process, read from shared memory; make fuzz runs this build without @@. */
    if (argc < 2) {
        __AFL_INIT();
        const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
        while (__AFL_LOOP(10000)) {
            size_t len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
            char *copy = g_malloc(len + 1);  /* exact-size copy so ASan sees overreads */
            memcpy(copy, buf, len);
            copy[len] = '\0';
            if (fuzz_config_one(copy, len) != 0)
                abort();
            g_free(copy);
        }
        return 0;
    }
#endif
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 64;
    }
    int status = 0;
    for (int i = 1; i < argc; i++) {
        int r = fuzz_run_file(argv[i]);
        if (status == 0)
            status = r;
    }
    return status;
}
#endif
