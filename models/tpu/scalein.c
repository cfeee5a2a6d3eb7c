/* scalein.c: SCALE-Sim v2's inputs, the architecture .cfg and the topology CSVs (conv and GEMM).
 *
 * The .cfg is read the way Python's configparser reads it (scale-sim-v2 scalesim/scale_config.py:
 * sections, `key = value` or `key: value`, keys case-insensitive, whole-line # and ; comments,
 * indented continuation lines, %-interpolation); the CSVs the way scalesim/topology_utils.py reads
 * the well-formed ones, plus the evident meaning of the shipped files it chokes on (missing trailing
 * comma, tab separated, extra empty columns; docs/references.md §9). Every problem is one
 * "FILE:LINE:COL: problem" GError, never a crash: this is the only code that sees the raw bytes.
 */
#include "tpu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../sim/component.h"
#include "../../sim/error.h"
#include "../../sim/input.h"
#include "../../sim/param.h"

/* TPU_MAX_LAYERS (tpu.h, 65,536): a DP (depthwise) row becomes one layer per channel; a typo in
 * its channel count must not ask for millions of layers. ResNet-50 has 54 layers; the most a
 * shipped topology expands to is 891. */
/* configparser's MAX_INTERPOLATION_DEPTH */
#define TPU_CFG_MAX_INTERP_DEPTH 10
#define TPU_CFG_MAX_VALUE (1u << 20)     /* a value, its %(...)s references expanded */

/* ------------------------------------------------------------------------------------------ */
/* The limits (tpu.h) */

const TpuLimit tpu_limits[TPU_LIM_N] = {
    [TPU_LIM_ROWS] = {"ArrayHeight", "rows", 1, TPU_MAX_ARRAY_DIM, 8,
                      "8 bytes per port of the array's edge"},
    [TPU_LIM_COLS] = {"ArrayWidth", "cols", 1, TPU_MAX_ARRAY_DIM, 8,
                      "8 bytes per port of the array's edge"},
    [TPU_LIM_IFMAP_SRAM] = {"IfmapSramSzkB", "ifmap_sram", 1, TPU_MAX_SRAM_KB, 4096,
                            "4 bytes per SRAM word for the index of the words it holds"},
    [TPU_LIM_FILTER_SRAM] = {"FilterSramSzkB", "filter_sram", 1, TPU_MAX_SRAM_KB, 4096,
                             "4 bytes per SRAM word for the index of the words it holds"},
    [TPU_LIM_OFMAP_SRAM] = {"OfmapSramSzkB", "ofmap_sram", 1, TPU_MAX_SRAM_KB, 4096,
                            "4 bytes per SRAM word for the lines it buffers"},
    [TPU_LIM_IFMAP_OFFSET] = {"IfmapOffset", "ifmap_offset", 0, TPU_MAX_OFFSET, 0, NULL},
    [TPU_LIM_FILTER_OFFSET] = {"FilterOffset", "filter_offset", 0, TPU_MAX_OFFSET, 0, NULL},
    [TPU_LIM_OFMAP_OFFSET] = {"OfmapOffset", "ofmap_offset", 0, TPU_MAX_OFFSET, 0, NULL},
    [TPU_LIM_BANDWIDTH] = {"Bandwidth", "bandwidth", 1, TPU_MAX_BANDWIDTH, 8,
                           "8 bytes per word of a DRAM line"},
};

char *tpu_limit_check(TpuLimitId id, uint64_t v)
{
    g_assert(id < TPU_LIM_N);
    const TpuLimit *l = &tpu_limits[id];
    if (v >= l->min && v <= l->max)
        return NULL;
    if (v < l->min)
        return g_strdup_printf("%" PRIu64 ": must be at least %" PRIu64, v, l->min);
    if (l->bytes_per == 0)
        return g_strdup_printf("%" PRIu64 " is above archsim's limit of %" PRIu64
                               " (every address must stay below 2^61)", v, l->max);
    /* what it would take, in bytes: v x bytes_per, saturated */
    uint64_t bytes;
    char *size = sim_mem_format(__builtin_mul_overflow(v, l->bytes_per, &bytes) ? UINT64_MAX
                                                                                  : bytes);
    char *lim = sim_mem_format(l->max * l->bytes_per);
    char *m = g_strdup_printf("%" PRIu64 " is above archsim's limit of %" PRIu64
                              " (it would take %s of memory, %s; the limit takes %s)",
                              v, l->max, size, l->what, lim);
    g_free(size);
    g_free(lim);
    return m;
}

/* ------------------------------------------------------------------------------------------ */
/* Text: reading, checking and walking lines (shared by both loaders) */

typedef struct {
    const char *file;   /* as named in messages */
    GQuark domain;
    int code;           /* for problems in the text: EXIT_CONFIG or EXIT_DATAERR */
    char *text;         /* the whole file, NUL-terminated, BOM removed */
    const char *start;  /* text, after a UTF-8 BOM */
} ScaleinText;

/* One line: [p, end) without its line break; `no` counts from 1. */
typedef struct {
    const char *p, *end;
    uint32_t no;
} ScaleinLine;

/* The 1-based column of q inside line l, counted in characters (the text is valid UTF-8). */
static uint32_t scalein_col(const ScaleinLine *l, const char *q)
{
    return (uint32_t)g_utf8_strlen(l->p, q - l->p) + 1;
}

G_GNUC_PRINTF(5, 6)
static void scalein_err(const ScaleinText *t, GError **error, uint32_t line, uint32_t col,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, t->domain, t->code, "%s:%" PRIu32 ":%" PRIu32 ": %s", t->file, line, col,
                msg);
    g_free(msg);
}

/* Adds "FILE:LINE:COL: warning: ..." to *list (made on first use): what the reader took in a way
 * the user may not expect; the CLI prints them. */
G_GNUC_PRINTF(5, 6)
static void scalein_warn(const ScaleinText *t, GPtrArray **list, uint32_t line, uint32_t col,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (*list == NULL)
        *list = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(*list, g_strdup_printf("%s:%" PRIu32 ":%" PRIu32 ": warning: %s", t->file,
                                           line, col, msg));
    g_free(msg);
}

/* Reads path whole; refuses NUL bytes and invalid UTF-8 (Python would not decode them either). */
static bool scalein_read(ScaleinText *t, const char *path, GError **error)
{
    FILE *f = sim_fopen_regular(path, t->domain, error);  /* no FIFO, device or directory */
    if (f == NULL)
        return false;
    GString *s = g_string_new(NULL);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (s->len + n > TPU_MAX_INPUT_BYTES) {
            g_set_error(error, t->domain, t->code,
                        "%s: larger than archsim's limit of %u MiB for a SCALE-Sim input", path,
                        TPU_MAX_INPUT_BYTES >> 20);
            g_string_free(s, TRUE);
            fclose(f);
            return false;
        }
        g_string_append_len(s, buf, (gssize)n);
    }
    bool ok = !ferror(f);
    int e = errno;
    fclose(f);
    if (!ok) {
        g_set_error(error, t->domain, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s", path,
                    g_strerror(e));
        g_string_free(s, TRUE);
        return false;
    }
    size_t len = s->len;
    t->text = g_string_free(s, FALSE);
    t->start = t->text;
    if (len >= 3 && memcmp(t->text, "\xEF\xBB\xBF", 3) == 0)
        t->start += 3;
    /* the first bad byte, for the message: a NUL (strlen stops short of what was read) or a byte
     * that is not UTF-8 */
    const char *bad = NULL;
    const char *what = NULL;
    if (strlen(t->text) != len) {
        bad = t->text + strlen(t->text);
        what = "NUL byte; a .cfg or .csv file is text";
    } else if (!g_utf8_validate(t->start, -1, &bad)) {
        what = "not valid UTF-8";
    } else {
        bad = NULL;
    }
    if (bad != NULL) {
        ScaleinLine l = {t->start, bad, 1};
        for (const char *q = t->start; q < bad; q++)
            if (*q == '\n' || (*q == '\r' && q[1] != '\n')) {
                l.no++;
                l.p = q + 1;
            }
        scalein_err(t, error, l.no, (uint32_t)(bad - l.p) + 1, "%s", what);
        return false;
    }
    return true;
}

/* The next line at *pos (universal newlines: \n, \r\n, \r); false at the end of the text. */
static bool scalein_next_line(const char **pos, ScaleinLine *l)
{
    const char *p = *pos;
    if (*p == '\0')
        return false;
    const char *e = p;
    while (*e != '\0' && *e != '\n' && *e != '\r')
        e++;
    l->p = p;
    l->end = e;
    l->no++;
    if (*e == '\r' && e[1] == '\n')
        *pos = e + 2;
    else if (*e != '\0')
        *pos = e + 1;
    else
        *pos = e;
    return true;
}

/* Python's str.strip() whitespace, ASCII part (the text is UTF-8; non-ASCII spaces are kept). */
static bool scalein_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

static void scalein_strip(const char **p, const char **e)
{
    while (*p < *e && scalein_space(**p))
        (*p)++;
    while (*e > *p && scalein_space((*e)[-1]))
        (*e)--;
}

/* Python int() of an already stripped text: [+-] digits with single '_' between digits. */
typedef enum { SCALEIN_INT_OK, SCALEIN_INT_BAD, SCALEIN_INT_RANGE } ScaleinIntStatus;

static ScaleinIntStatus scalein_int(const char *p, const char *e, bool *neg, uint64_t *mag)
{
    *neg = false;
    *mag = 0;
    if (p < e && (*p == '+' || *p == '-')) {
        *neg = *p == '-';
        p++;
    }
    if (p == e || !g_ascii_isdigit(*p))
        return SCALEIN_INT_BAD;
    bool range = false;
    for (; p < e; p++) {
        if (*p == '_' && p + 1 < e && g_ascii_isdigit(p[1]) && g_ascii_isdigit(p[-1]))
            continue;
        if (!g_ascii_isdigit(*p))
            return SCALEIN_INT_BAD;
        unsigned d = (unsigned)(*p - '0');
        if (*mag > (UINT64_MAX - d) / 10)
            range = true;
        else
            *mag = *mag * 10 + d;
    }
    return range ? SCALEIN_INT_RANGE : SCALEIN_INT_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* .cfg: configparser's reading */

typedef struct {
    char *key;         /* as written */
    char *lkey;        /* lower-cased: configparser's optionxform */
    char *value;       /* stripped; continuation lines joined with '\n' */
    uint32_t line, key_col, val_col;
    uint32_t cont_line;  /* first continuation line, 0 if none */
} CfgOpt;

typedef struct {
    char *name;
    uint32_t line;
    GPtrArray *opts;  /* CfgOpt* */
} CfgSect;

static void cfg_opt_free(gpointer p)
{
    CfgOpt *o = p;
    g_free(o->key);
    g_free(o->lkey);
    g_free(o->value);
    g_free(o);
}

static void cfg_sect_free(gpointer p)
{
    CfgSect *s = p;
    g_free(s->name);
    g_ptr_array_free(s->opts, TRUE);
    g_free(s);
}

static CfgSect *cfg_sect_find(GPtrArray *sects, const char *name)
{
    for (guint i = 0; i < sects->len; i++) {
        CfgSect *s = g_ptr_array_index(sects, i);
        if (strcmp(s->name, name) == 0)
            return s;
    }
    return NULL;
}

static CfgOpt *cfg_opt_find(const CfgSect *s, const char *lkey)
{
    if (s == NULL)
        return NULL;
    for (guint i = 0; i < s->opts->len; i++) {
        CfgOpt *o = g_ptr_array_index(s->opts, i);
        if (strcmp(o->lkey, lkey) == 0)
            return o;
    }
    return NULL;
}

/* ---- SCALE-Sim v3's keys (issue 15 item 11) -------------------------------------------------
 * v3 (scalesim-project/scale-sim-v3 scalesim/scale_config.py) adds [layout] (SRAM banks and
 * custom data layouts), [sparsity] (N:M structured sparsity of the filter operand),
 * ReadRequestBuffer / WriteRequestBuffer and UseRamulatorTrace (a Ramulator DRAM pass). archsim
 * models the dense v2 array: every v3 key is either inert at the value given (accepted), or it
 * would change the result (refused at its position, never ignored); docs/tpu.md gives each
 * key's rule and why. A key neither version knows is ignored as configparser ignores it, with
 * a warning. */
typedef enum {
    V3_READ,        /* read by cfg_fill */
    V3_INERT,       /* in shipped files, read by neither v2 nor v3 */
    V3_POS_INT,     /* an integer >= 1 that only a refused feature uses */
    V3_RAMULATOR,   /* UseRamulatorTrace: v3 turns it on for exactly 'True' */
    V3_LAYOUT,      /* IfmapCustomLayout, FilterCustomLayout: configparser booleans */
    V3_BANK_BW,     /* the SRAM bank bandwidth: v3's ifmap / filter DRAM bandwidth in USER mode */
    V3_SPARSITY,    /* SparsitySupport: v3 turns it on for 'true' in any case */
    V3_SPARSE_SUB,  /* read by v3 only with SparsitySupport on */
    V3_TOPOLOGY,    /* TopologyCsvLoc: the topology is -t's */
} CfgKeyRule;

typedef struct {
    const char *section, *key;
    CfgKeyRule rule;
} CfgKeyInfo;

static const CfgKeyInfo cfg_keys[] = {
    {"general", "run_name", V3_READ},
    {"architecture_presets", "ArrayHeight", V3_READ},
    {"architecture_presets", "ArrayWidth", V3_READ},
    {"architecture_presets", "IfmapSramSzkB", V3_READ},
    {"architecture_presets", "FilterSramSzkB", V3_READ},
    {"architecture_presets", "OfmapSramSzkB", V3_READ},
    {"architecture_presets", "IfmapOffset", V3_READ},
    {"architecture_presets", "FilterOffset", V3_READ},
    {"architecture_presets", "OfmapOffset", V3_READ},
    {"architecture_presets", "Dataflow", V3_READ},
    {"architecture_presets", "Bandwidth", V3_READ},
    {"architecture_presets", "MemoryBanks", V3_INERT},
    {"architecture_presets", "OnChipMemoryBanks", V3_INERT},
    {"architecture_presets", "OnChipMemoryBankPorts", V3_INERT},
    {"architecture_presets", "ReadRequestBuffer", V3_POS_INT},
    {"architecture_presets", "WriteRequestBuffer", V3_POS_INT},
    {"architecture_presets", "TopologyCsvLoc", V3_TOPOLOGY},
    {"network_presets", "TopologyCsvLoc", V3_TOPOLOGY},
    {"run_presets", "InterfaceBandwidth", V3_READ},
    {"run_presets", "UseRamulatorTrace", V3_RAMULATOR},
    {"layout", "IfmapCustomLayout", V3_LAYOUT},
    {"layout", "FilterCustomLayout", V3_LAYOUT},
    {"layout", "IfmapSRAMBankBandwidth", V3_BANK_BW},
    {"layout", "FilterSRAMBankBandwidth", V3_BANK_BW},
    {"layout", "IfmapSRAMBankNum", V3_POS_INT},
    {"layout", "IfmapSRAMBankPort", V3_POS_INT},
    {"layout", "FilterSRAMBankNum", V3_POS_INT},
    {"layout", "FilterSRAMBankPort", V3_POS_INT},
    {"sparsity", "SparsitySupport", V3_SPARSITY},
    {"sparsity", "SparseRep", V3_SPARSE_SUB},
    {"sparsity", "OptimizedMapping", V3_SPARSE_SUB},
    {"sparsity", "BlockSize", V3_SPARSE_SUB},
    {"sparsity", "RandomNumberGeneratorSeed", V3_SPARSE_SUB},
};

/* The row of a key, by name alone (for hints: "ArrayHeight belongs in [architecture_presets]"). */
static const CfgKeyInfo *cfg_known_key(const char *lkey)
{
    for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++)
        if (g_ascii_strcasecmp(cfg_keys[i].key, lkey) == 0)
            return &cfg_keys[i];
    return NULL;
}

/* Splits the text into sections and options as configparser._read does, stopping at the first
 * problem (configparser collects them and raises at the end; the first is enough to fix). */
static bool cfg_parse(const ScaleinText *t, GPtrArray *sects, GError **error)
{
    const char *pos = t->start;
    ScaleinLine l = {NULL, NULL, 0};
    CfgSect *cur = NULL;
    CfgOpt *opt = NULL;       /* the option a continuation line would extend */
    size_t indent_level = 0;  /* indentation of the last key or section line */
    while (scalein_next_line(&pos, &l)) {
        const char *p = l.p, *e = l.end;
        scalein_strip(&p, &e);
        if (p == e || *p == '#' || *p == ';')
            continue;  /* blank lines and whole-line comments; inline comments are not comments */
        size_t indent = (size_t)(p - l.p);
        if (cur != NULL && opt != NULL && indent > indent_level) {
            /* an indented line continues the value above it (a configparser multi-line value) */
            char *v = g_strdup_printf("%s\n%.*s", opt->value, (int)(e - p), p);
            g_free(opt->value);
            opt->value = v;
            if (opt->cont_line == 0)
                opt->cont_line = l.no;
            continue;
        }
        indent_level = indent;
        if (*p == '[') {
            const char *close = e - 1;
            while (close > p && *close != ']')
                close--;
            if (close == p) {
                scalein_err(t, error, l.no, scalein_col(&l, p),
                            "'%.*s': unterminated section header; expected [name]", (int)(e - p),
                            p);
                return false;
            }
            if (close == p + 1) {
                scalein_err(t, error, l.no, scalein_col(&l, p), "empty section name '[]'");
                return false;
            }
            if (close + 1 != e) {
                scalein_err(t, error, l.no, scalein_col(&l, close + 1),
                            "'%.*s': text after the section header", (int)(e - close - 1),
                            close + 1);
                return false;
            }
            char *name = g_strndup(p + 1, (gsize)(close - p - 1));
            CfgSect *dup = cfg_sect_find(sects, name);
            if (dup != NULL) {
                scalein_err(t, error, l.no, scalein_col(&l, p),
                            "duplicate section [%s]; first on line %" PRIu32, name, dup->line);
                g_free(name);
                return false;
            }
            cur = g_new0(CfgSect, 1);
            cur->name = name;
            cur->line = l.no;
            cur->opts = g_ptr_array_new_with_free_func(cfg_opt_free);
            g_ptr_array_add(sects, cur);
            opt = NULL;
            continue;
        }
        const char *sep = p;
        while (sep < e && *sep != '=' && *sep != ':')
            sep++;
        if (cur == NULL) {
            const char *k = p, *ke = sep;
            scalein_strip(&k, &ke);
            char *key = g_strndup(k, (gsize)(ke - k));
            const CfgKeyInfo *kn = sep < e ? cfg_known_key(key) : NULL;
            char *hint = kn != NULL ? g_strdup_printf("; %s belongs in [%s]", kn->key, kn->section)
                                    : g_strdup("");
            scalein_err(t, error, l.no, scalein_col(&l, p),
                        "'%.*s' is outside any section; a .cfg file starts with a [section] line%s",
                        (int)(e - p), p, hint);
            g_free(hint);
            g_free(key);
            return false;
        }
        if (sep == e) {
            scalein_err(t, error, l.no, scalein_col(&l, p),
                        "'%.*s' has no '=' or ':'; expected KEY = VALUE or KEY: VALUE",
                        (int)(e - p), p);
            return false;
        }
        const char *k = p, *ke = sep;
        scalein_strip(&k, &ke);
        if (k == ke) {
            scalein_err(t, error, l.no, scalein_col(&l, sep), "no key before '%c'", *sep);
            return false;
        }
        const char *v = sep + 1, *ve = e;
        scalein_strip(&v, &ve);
        CfgOpt *o = g_new0(CfgOpt, 1);
        o->key = g_strndup(k, (gsize)(ke - k));
        o->lkey = g_utf8_strdown(o->key, -1);
        o->value = g_strndup(v, (gsize)(ve - v));
        o->line = l.no;
        o->key_col = scalein_col(&l, k);
        o->val_col = scalein_col(&l, v);
        CfgOpt *dup = cfg_opt_find(cur, o->lkey);
        if (dup != NULL) {
            scalein_err(t, error, l.no, o->key_col,
                        "duplicate key '%s' in [%s]; first on line %" PRIu32, o->key, cur->name,
                        dup->line);
            cfg_opt_free(o);
            return false;
        }
        g_ptr_array_add(cur->opts, o);
        opt = o;
    }
    return true;
}

typedef struct {
    const ScaleinText *t;
    GPtrArray *sects;
} CfgFile;

/* "FILE: [section] Key is missing" with the most useful hint: the key in another section, a near
 * miss among the section's unknown keys, or a near miss among the section names. */
static void cfg_missing(const CfgFile *c, const char *section, const char *key, GError **error)
{
    const ScaleinText *t = c->t;
    CfgSect *s = cfg_sect_find(c->sects, section);
    char *lkey = g_ascii_strdown(key, -1);
    char *hint = NULL;
    if (s == NULL) {
        /* near misses among the section names that are not ours */
        GPtrArray *names = g_ptr_array_new();
        for (guint i = 0; i < c->sects->len; i++) {
            CfgSect *o = g_ptr_array_index(c->sects, i);
            if (strcmp(o->name, "general") != 0 && strcmp(o->name, "architecture_presets") != 0 &&
                strcmp(o->name, "run_presets") != 0)
                g_ptr_array_add(names, o->name);
        }
        const char *near = param_suggest(section, (const char *const *)names->pdata, names->len);
        if (near != NULL)
            hint = g_strdup_printf(": there is no [%s] section; did you mean [%s] (line %" PRIu32
                                   ")?",
                                   section, near, cfg_sect_find(c->sects, near)->line);
        else
            hint = g_strdup_printf(": there is no [%s] section", section);
        g_ptr_array_free(names, TRUE);
    }
    for (guint i = 0; hint == NULL && i < c->sects->len; i++) {
        CfgSect *o = g_ptr_array_index(c->sects, i);
        CfgOpt *there = o != s ? cfg_opt_find(o, lkey) : NULL;
        if (there != NULL)
            hint = g_strdup_printf(" (it is in [%s] on line %" PRIu32 ")", o->name, there->line);
    }
    if (hint == NULL) {
        GPtrArray *keys = g_ptr_array_new();
        for (guint i = 0; i < s->opts->len; i++) {
            CfgOpt *o = g_ptr_array_index(s->opts, i);
            if (cfg_known_key(o->lkey) == NULL)
                g_ptr_array_add(keys, o->key);
        }
        const char *near = param_suggest(key, (const char *const *)keys->pdata, keys->len);
        if (near != NULL) {
            char *lnear = g_utf8_strdown(near, -1);
            hint = g_strdup_printf("; line %" PRIu32 " has '%s': did you mean '%s'?",
                                   cfg_opt_find(s, lnear)->line, near, key);
            g_free(lnear);
        }
        g_ptr_array_free(keys, TRUE);
    }
    g_set_error(error, t->domain, t->code, "%s: [%s] %s is missing%s", t->file, section, key,
                hint != NULL ? hint : "");
    g_free(hint);
    g_free(lkey);
}

/* configparser's BasicInterpolation of one value: %% -> %, %(name)s -> that option's value (same
 * section, then [DEFAULT]), anything else after % is an error. */
static bool cfg_interpolate(const CfgFile *c, const CfgSect *s, const CfgOpt *o, const char *key,
                            const char *raw, int depth, GString *out, GError **error)
{
    const ScaleinText *t = c->t;
    if (depth > TPU_CFG_MAX_INTERP_DEPTH) {
        scalein_err(t, error, o->line, o->val_col,
                    "%s: %%(...)s references nest deeper than %d (a cycle?)", key,
                    TPU_CFG_MAX_INTERP_DEPTH);
        return false;
    }
    for (const char *p = raw; *p != '\0'; p++) {
        if (*p != '%') {
            g_string_append_c(out, *p);
            continue;
        }
        if (p[1] == '%') {
            g_string_append_c(out, '%');
            p++;
            continue;
        }
        const char *close = p[1] == '(' ? strchr(p + 2, ')') : NULL;
        if (close == NULL || close[1] != 's') {
            scalein_err(t, error, o->line, o->val_col,
                        "%s: '%s': '%%' must be followed by '%%' or '(name)s' (write %%%% for a "
                        "percent sign)",
                        key, raw);
            return false;
        }
        char *name = g_strndup(p + 2, (gsize)(close - p - 2));
        char *lname = g_utf8_strdown(name, -1);
        const CfgOpt *ref = cfg_opt_find(s, lname);
        const CfgSect *defs = cfg_sect_find(c->sects, "DEFAULT");
        if (ref == NULL)
            ref = cfg_opt_find(defs, lname);
        if (ref == NULL) {
            scalein_err(t, error, o->line, o->val_col, "%s: '%s': %%(%s)s names no key of [%s]",
                        key, raw, name, s->name);
            g_free(name);
            g_free(lname);
            return false;
        }
        g_free(name);
        g_free(lname);
        if (!cfg_interpolate(c, s, o, key, ref->value, depth + 1, out, error))
            return false;
        if (out->len > TPU_CFG_MAX_VALUE) {
            /* ten levels of 16 references each are 16^8 copies: a value is 1 MiB at most */
            scalein_err(t, error, o->line, o->val_col, "%s: its %%(...)s references expand to "
                        "more than 1 MiB", key);
            return false;
        }
        p = close + 1;
    }
    return true;
}

/* The value of a key SCALE-Sim reads with config.get(): interpolated, one line. NULL (and no
 * error) when the key is absent and optional. */
static char *cfg_get(const CfgFile *c, const char *section, const char *key, bool required,
                     const CfgOpt **where, GError **error)
{
    CfgSect *s = cfg_sect_find(c->sects, section);
    char *lkey = g_ascii_strdown(key, -1);
    const CfgOpt *o = cfg_opt_find(s, lkey);
    if (o == NULL && s != NULL)
        o = cfg_opt_find(cfg_sect_find(c->sects, "DEFAULT"), lkey);
    g_free(lkey);
    *where = o;
    if (o == NULL) {
        if (required)
            cfg_missing(c, section, key, error);
        return NULL;
    }
    if (o->cont_line != 0) {
        scalein_err(c->t, error, o->cont_line, 1,
                    "%s: an indented line continues the value of %s (line %" PRIu32
                    "); remove the indentation",
                    key, key, o->line);
        return NULL;
    }
    GString *v = g_string_new(NULL);
    if (!cfg_interpolate(c, s, o, key, o->value, 1, v, error)) {
        g_string_free(v, TRUE);
        return NULL;
    }
    return g_string_free(v, FALSE);
}

/* configparser keeps "os  # weight stationary" whole: only whole lines are comments. */
static const char *cfg_comment_hint(const char *v)
{
    for (const char *p = v; *p != '\0'; p++)
        if ((*p == '#' || *p == ';') && p > v && scalein_space(p[-1]))
            return " (a comment must be on a line of its own)";
    return "";
}

/* An integer key. min: the smallest allowed value (0 or 1); is_signed: int64 (offsets); lim: its
 * row of tpu_limits, checked once the value is read. */
static bool cfg_get_int(const CfgFile *c, const char *section, const char *key, bool is_signed,
                        uint64_t min, const char *why_min, TpuLimitId lim, void *dst,
                        GError **error)
{
    const CfgOpt *o;
    char *v = cfg_get(c, section, key, true, &o, error);
    if (v == NULL)
        return false;
    bool neg;
    uint64_t mag;
    ScaleinIntStatus st = scalein_int(v, v + strlen(v), &neg, &mag);
    bool ok = false;
    if (st == SCALEIN_INT_BAD)
        scalein_err(c->t, error, o->line, o->val_col, "%s: '%s': expected %s integer%s", key, v,
                    is_signed ? "an" : "an unsigned", cfg_comment_hint(v));
    else if (is_signed && (st == SCALEIN_INT_RANGE || mag > (uint64_t)INT64_MAX + neg))
        scalein_err(c->t, error, o->line, o->val_col,
                    "%s: '%s' is out of range [%" PRId64 ", %" PRId64 "]", key, v, INT64_MIN,
                    INT64_MAX);
    else if (!is_signed && neg && mag != 0)
        scalein_err(c->t, error, o->line, o->val_col, "%s: '%s': must not be negative", key, v);
    else if (!is_signed && st == SCALEIN_INT_RANGE)
        scalein_err(c->t, error, o->line, o->val_col, "%s: '%s' is too large (at most %" PRIu64
                    ")", key, v, UINT64_MAX);
    else if (!is_signed && mag < min)
        scalein_err(c->t, error, o->line, o->val_col, "%s: %" PRIu64 ": must be at least %" PRIu64
                    " (%s)", key, mag, min, why_min);
    else if (is_signed && neg && mag != 0)
        scalein_err(c->t, error, o->line, o->val_col,
                    "%s: '%s': must not be negative (an address below 0 would read as -1, the "
                    "mark of an idle port)", key, v);
    else {
        char *over = tpu_limit_check(lim, mag);
        if (over != NULL) {
            scalein_err(c->t, error, o->line, o->val_col, "%s: %s", key, over);
            g_free(over);
        } else {
            ok = true;
            if (is_signed)
                *(int64_t *)dst = (int64_t)mag;
            else
                *(uint64_t *)dst = mag;
        }
    }
    g_free(v);
    return ok;
}

/* A key with a fixed set of spellings (SCALE-Sim compares them exactly). */
static bool cfg_get_choice(const CfgFile *c, const char *section, const char *key,
                           const char *const *choices, const char *expected, int *dst,
                           GError **error)
{
    const CfgOpt *o;
    char *v = cfg_get(c, section, key, true, &o, error);
    if (v == NULL)
        return false;
    size_t n = 0;
    while (choices[n] != NULL)
        n++;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v, choices[i]) == 0) {
            *dst = (int)i;
            g_free(v);
            return true;
        }
    const char *near = param_suggest(v, choices, n);
    char *hint = near != NULL ? g_strdup_printf("; did you mean '%s'?", near) : g_strdup("");
    scalein_err(c->t, error, o->line, o->val_col, "%s: unknown value '%s'; expected %s%s%s", key,
                v, expected, hint, cfg_comment_hint(v));
    g_free(hint);
    g_free(v);
    return false;
}

static const CfgKeyInfo *cfg_key_info(const char *section, const char *lkey)
{
    for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++)
        if (strcmp(cfg_keys[i].section, section) == 0 &&
            g_ascii_strcasecmp(cfg_keys[i].key, lkey) == 0)
            return &cfg_keys[i];
    return NULL;
}

/* configparser's getboolean spellings: 1 if true, 0 if false, -1 if neither. */
static int cfg_boolean(const char *v)
{
    static const char *const yes[] = {"1", "yes", "true", "on"}, *const no[] = {"0", "no", "false",
                                                                                "off"};
    for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
        if (g_ascii_strcasecmp(v, yes[i]) == 0)
            return 1;
        if (g_ascii_strcasecmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

G_GNUC_PRINTF(4, 5)
static void cfg_refuse(const CfgFile *c, const CfgOpt *o, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    scalein_err(c->t, error, o->line, o->key_col,
                "SCALE-Sim v3 option '%s = %s' is not supported by archsim; %s (docs/tpu.md, "
                "\"SCALE-Sim v3 options\")",
                o->key, o->value, why);
    g_free(why);
}

/* Every option of every section, by cfg_keys' rules. */
static bool cfg_check_keys(const CfgFile *c, TpuArch *a, GError **error)
{
    for (guint si = 0; si < c->sects->len; si++) {
        const CfgSect *s = g_ptr_array_index(c->sects, si);
        for (guint oi = 0; oi < s->opts->len; oi++) {
            const CfgOpt *o = g_ptr_array_index(s->opts, oi);
            const CfgKeyInfo *k = cfg_key_info(s->name, o->lkey);
            if (k == NULL) {
                if (strcmp(s->name, "DEFAULT") != 0)
                    scalein_warn(c->t, &a->warnings, o->line, o->key_col,
                                 "[%s] %s is not a key of SCALE-Sim v2 or v3; ignored", s->name,
                                 o->key);
                continue;
            }
            const char *v = o->value;
            bool neg;
            uint64_t mag;
            switch (k->rule) {
            case V3_READ:
            case V3_INERT:
            case V3_SPARSE_SUB:
                break;
            case V3_POS_INT:
            case V3_BANK_BW:
                if (scalein_int(v, v + strlen(v), &neg, &mag) != SCALEIN_INT_OK || neg ||
                    mag == 0) {
                    scalein_err(c->t, error, o->line, o->val_col,
                                "%s: '%s': expected an integer >= 1 (SCALE-Sim v3 reads it with "
                                "int())",
                                o->key, v);
                    return false;
                }
                if (k->rule == V3_BANK_BW && a->bw_mode == TPU_BW_USER && mag != a->bandwidth) {
                    cfg_refuse(c, o, error,
                               "in USER mode v3 takes it as the %s operand's DRAM bandwidth, and "
                               "archsim uses Bandwidth (%" PRIu64 ") for all three operands; set "
                               "it to %" PRIu64,
                               g_ascii_strncasecmp(o->key, "Ifmap", 5) == 0 ? "ifmap" : "filter",
                               a->bandwidth, a->bandwidth);
                    return false;
                }
                break;
            case V3_RAMULATOR:
            case V3_LAYOUT:
            case V3_SPARSITY: {
                /* a switch: 1 on (refused), 0 off, -1 neither (with what it expects) */
                int b;
                const char *expected, *why;
                if (k->rule == V3_RAMULATOR) {
                    b = strcmp(v, "True") == 0 ? 1 : strcmp(v, "False") == 0 ? 0 : -1;
                    expected = "True or False (SCALE-Sim v3 turns it on for exactly 'True')";
                    why = "archsim has no Ramulator pass (its USER interface is a fixed "
                          "bandwidth); set it to False";
                } else if (k->rule == V3_LAYOUT) {
                    b = cfg_boolean(v);
                    expected = "a boolean (true/false, yes/no, on/off, 1/0)";
                    why = "archsim does not model custom SRAM data layouts (a layout file and "
                          "bank conflicts); set it to False";
                } else {
                    b = g_ascii_strcasecmp(v, "true") == 0    ? 1
                        : g_ascii_strcasecmp(v, "false") == 0 ? 0
                                                              : -1;
                    expected = "true or false";
                    why = "archsim models dense layers only (no N:M sparse filter, no compressed "
                          "representation or its reports); set it to false";
                }
                if (b < 0) {
                    scalein_err(c->t, error, o->line, o->val_col, "%s: '%s': expected %s", o->key,
                                v, expected);
                    return false;
                }
                if (b == 1) {
                    cfg_refuse(c, o, error, "%s", why);
                    return false;
                }
                break;
            }
            case V3_TOPOLOGY:
                scalein_warn(c->t, &a->warnings, o->line, o->key_col,
                             "%s is ignored: the topology is the file -t names", o->key);
                break;
            }
        }
    }
    return true;
}

static const char *const cfg_dataflows[] = {"os", "ws", "is", NULL};
static const char *const cfg_bw_modes[] = {"CALC", "USER", NULL};

static bool cfg_get_bandwidth(const CfgFile *c, TpuArch *a, GError **error);

static bool cfg_fill(const CfgFile *c, TpuArch *a, GError **error)
{
    const char *ap = "architecture_presets";
    const CfgOpt *o;
    a->run_name = cfg_get(c, "general", "run_name", true, &o, error);
    if (a->run_name == NULL)
        return false;
    if (a->run_name[0] == '\0') {
        scalein_err(c->t, error, o->line, o->val_col,
                    "run_name: empty; it names the output directory");
        return false;
    }
    int df = 0, mode = 0;
    if (!cfg_get_int(c, ap, "ArrayHeight", false, 1, "the array needs a row of PEs",
                     TPU_LIM_ROWS, &a->rows, error) ||
        !cfg_get_int(c, ap, "ArrayWidth", false, 1, "the array needs a column of PEs",
                     TPU_LIM_COLS, &a->cols, error) ||
        !cfg_get_int(c, ap, "IfmapSramSzkB", false, 1, "an SRAM must hold something",
                     TPU_LIM_IFMAP_SRAM, &a->ifmap_kb, error) ||
        !cfg_get_int(c, ap, "FilterSramSzkB", false, 1, "an SRAM must hold something",
                     TPU_LIM_FILTER_SRAM, &a->filter_kb, error) ||
        !cfg_get_int(c, ap, "OfmapSramSzkB", false, 1, "an SRAM must hold something",
                     TPU_LIM_OFMAP_SRAM, &a->ofmap_kb, error) ||
        !cfg_get_int(c, ap, "IfmapOffset", true, 0, NULL, TPU_LIM_IFMAP_OFFSET,
                     &a->ifmap_offset, error) ||
        !cfg_get_int(c, ap, "FilterOffset", true, 0, NULL, TPU_LIM_FILTER_OFFSET,
                     &a->filter_offset, error) ||
        !cfg_get_int(c, ap, "OfmapOffset", true, 0, NULL, TPU_LIM_OFMAP_OFFSET,
                     &a->ofmap_offset, error) ||
        !cfg_get_choice(c, ap, "Dataflow", cfg_dataflows, "os, ws or is", &df, error) ||
        !cfg_get_choice(c, "run_presets", "InterfaceBandwidth", cfg_bw_modes, "CALC or USER",
                        &mode, error))
        return false;
    a->dataflow = (TpuDataflow)df;
    a->bw_mode = (TpuBwMode)mode;
    if (a->bw_mode == TPU_BW_USER && !cfg_get_bandwidth(c, a, error))
        return false;  /* SCALE-Sim reads Bandwidth only in USER mode */
    return cfg_check_keys(c, a, error);
}

/* Bandwidth (USER mode): a comma list (one per memory bank in SCALE-Sim); the first is used. */
static bool cfg_get_bandwidth(const CfgFile *c, TpuArch *a, GError **error)
{
    const char *ap = "architecture_presets";
    const CfgOpt *o;
    char *v = cfg_get(c, ap, "Bandwidth", true, &o, error);
    if (v == NULL)
        return false;
    bool ok = true;
    const char *item = v;
    for (int i = 0; ok; i++) {
        const char *ie = strchr(item, ',');
        if (ie == NULL)
            ie = item + strlen(item);
        const char *ip = item, *iq = ie;
        scalein_strip(&ip, &iq);
        uint32_t col = o->val_col + (uint32_t)g_utf8_strlen(v, ip - v);
        bool neg;
        uint64_t mag;
        ScaleinIntStatus st = scalein_int(ip, iq, &neg, &mag);
        if (st == SCALEIN_INT_BAD) {
            scalein_err(c->t, error, o->line, col,
                        "Bandwidth: '%.*s': expected an unsigned integer (words per cycle; a "
                        "comma list is allowed)",
                        (int)(iq - ip), ip);
            ok = false;
        } else if (st == SCALEIN_INT_RANGE) {
            scalein_err(c->t, error, o->line, col, "Bandwidth: '%.*s' is too large",
                        (int)(iq - ip), ip);
            ok = false;
        } else if (neg || mag == 0) {
            scalein_err(c->t, error, o->line, col,
                        "Bandwidth: %.*s: must be at least 1 (words per cycle)", (int)(iq - ip),
                        ip);
            ok = false;
        } else if (i == 0) {
            char *over = tpu_limit_check(TPU_LIM_BANDWIDTH, mag);
            if (over != NULL) {
                scalein_err(c->t, error, o->line, col, "Bandwidth: %s", over);
                g_free(over);
                ok = false;
            }
            a->bandwidth = mag;
        }
        if (*ie == '\0')
            break;
        item = ie + 1;
    }
    g_free(v);
    return ok;
}

bool tpu_arch_load(const char *path, TpuArch *out, GError **error)
{
    g_return_val_if_fail(path != NULL && out != NULL, false);
    memset(out, 0, sizeof *out);
    ScaleinText t = {path, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, NULL, NULL};
    if (!scalein_read(&t, path, error)) {
        g_free(t.text);
        return false;
    }
    CfgFile c = {&t, g_ptr_array_new_with_free_func(cfg_sect_free)};
    bool ok = cfg_parse(&t, c.sects, error) && cfg_fill(&c, out, error);
    g_ptr_array_free(c.sects, TRUE);
    g_free(t.text);
    if (!ok) {
        tpu_arch_clear(out);
        return false;
    }
    out->file = g_strdup(path);
    return true;
}

void tpu_arch_clear(TpuArch *a)
{
    if (a == NULL)
        return;
    g_free(a->run_name);
    g_free(a->file);
    if (a->warnings != NULL)
        g_ptr_array_free(a->warnings, TRUE);
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------------------------------ */
/* Topology CSVs */

typedef struct {
    const char *p, *e;  /* stripped text */
    uint32_t col;       /* where it starts (its stripped text, or the separator if empty) */
} CsvField;

/* Splits one line. '#' starts a comment (mobilnet_4k.csv ends rows with ",#dw", which SCALE-Sim
 * drops only because it is the last field). Comma separated, or tab separated when the line has
 * no comma (UNet_maestro.csv). The empty field after a trailing separator is dropped, which is
 * SCALE-Sim's `split(',')[:-1]` for every row that has one, and keeps the last value of a row
 * that lacks it instead of losing it. */
static GArray *csv_split(const ScaleinLine *l)
{
    GArray *f = g_array_new(FALSE, FALSE, sizeof(CsvField));
    const char *end = memchr(l->p, '#', (size_t)(l->end - l->p));
    if (end == NULL)
        end = l->end;
    char sep = memchr(l->p, ',', (size_t)(end - l->p)) != NULL ? ',' : '\t';
    const char *p = l->p;
    for (;;) {
        const char *q = p;
        while (q < end && *q != sep)
            q++;
        CsvField x = {p, q, 0};
        scalein_strip(&x.p, &x.e);
        x.col = scalein_col(l, x.p);
        g_array_append_val(f, x);
        if (q == end)
            break;
        p = q + 1;
    }
    if (f->len > 1 && g_array_index(f, CsvField, f->len - 1).p ==
                          g_array_index(f, CsvField, f->len - 1).e)
        g_array_set_size(f, f->len - 1);
    return f;
}

static bool csv_all_empty(const GArray *f)
{
    for (guint i = 0; i < f->len; i++)
        if (g_array_index(f, CsvField, i).p != g_array_index(f, CsvField, i).e)
            return false;
    return true;
}

static const char *const csv_conv_names[] = {
    "Layer name", "IFMAP Height", "IFMAP Width", "Filter Height", "Filter Width",
    "Channels",   "Num Filter",   "Strides",     "Stride Width",
};
static const char *const csv_gemm_names[] = {"Layer", "M", "N", "K"};

/* One numeric field: a positive integer (every dimension and stride must be at least 1). */
static bool csv_uint(const ScaleinText *t, const ScaleinLine *l, const CsvField *x,
                     const char *what, uint64_t *dst, GError **error)
{
    int len = (int)(x->e - x->p);
    if (len == 0) {
        scalein_err(t, error, l->no, x->col, "%s: empty field; expected a positive integer",
                    what);
        return false;
    }
    bool neg;
    uint64_t mag;
    switch (scalein_int(x->p, x->e, &neg, &mag)) {
    case SCALEIN_INT_BAD:
        scalein_err(t, error, l->no, x->col, "%s: '%.*s': expected a positive integer", what,
                    len, x->p);
        return false;
    case SCALEIN_INT_RANGE:
        scalein_err(t, error, l->no, x->col, "%s: '%.*s' is too large (at most %" PRIu64 ")",
                    what, len, x->p, UINT64_MAX);
        return false;
    case SCALEIN_INT_OK:
        break;
    }
    if (neg && mag != 0) {
        scalein_err(t, error, l->no, x->col, "%s: '%.*s': must not be negative", what, len, x->p);
        return false;
    }
    if (mag == 0) {
        scalein_err(t, error, l->no, x->col, "%s: 0: must be at least 1", what);
        return false;
    }
    *dst = mag;
    return true;
}

typedef struct {
    const ScaleinText *t;
    bool gemm;
    GArray *layers;       /* TpuLayer */
    char *header_hint;    /* said after "too few fields" when the header suggests the other form */
    char *col9_name;      /* the header's name for column 9, if it is not a stride */
    GPtrArray *warnings;  /* TpuTopology.warnings */
    bool noted_unread;    /* a warning about unread columns was given */
} CsvState;

static bool csv_add(CsvState *s, const ScaleinLine *l, const CsvField *name_field,
                    const TpuLayer *base, GError **error)
{
    if (s->layers->len >= TPU_MAX_LAYERS) {
        scalein_err(s->t, error, l->no, name_field->col, "more than %u layers", TPU_MAX_LAYERS);
        return false;
    }
    g_array_append_val(s->layers, *base);
    return true;
}

/* SCALE-Sim v3's per-layer sparsity, "N:M" (conv column 9, GEMM column 5): 1 when x is one, and
 * a dense ratio (N = M, v3's default 1:1) is fine; 0 when x is not of that form; -1 (error set)
 * for a sparse ratio, which archsim does not model (issue 15 item 11). */
static int csv_sparsity(const ScaleinText *t, const ScaleinLine *l, const CsvField *x,
                        GError **error)
{
    const char *colon = memchr(x->p, ':', (size_t)(x->e - x->p));
    if (colon == NULL)
        return 0;
    const char *np = x->p, *ne = colon, *mp = colon + 1, *me = x->e;
    scalein_strip(&np, &ne);
    scalein_strip(&mp, &me);
    bool neg1, neg2;
    uint64_t n, m;
    if (scalein_int(np, ne, &neg1, &n) != SCALEIN_INT_OK ||
        scalein_int(mp, me, &neg2, &m) != SCALEIN_INT_OK || neg1 || neg2 || n == 0 || m == 0 ||
        n > m) {
        scalein_err(t, error, l->no, x->col,
                    "Sparsity '%.*s': expected N:M with 1 <= N <= M (SCALE-Sim v3's N:M "
                    "structured sparsity)",
                    (int)(x->e - x->p), x->p);
        return -1;
    }
    if (n == m)
        return 1;
    scalein_err(t, error, l->no, x->col,
                "SCALE-Sim v3 sparsity '%.*s' is not supported by archsim; archsim runs every layer "
                "dense (docs/tpu.md, \"SCALE-Sim v3 options\"); write %" PRIu64 ":%" PRIu64
                " or remove the column",
                (int)(x->e - x->p), x->p, m, m);
    return -1;
}

/* The first non-empty field at or after column `from` + 1 in the file: a warning (once per file)
 * that such columns are not read, as SCALE-Sim does not read them. */
static void csv_note_unread(CsvState *s, const ScaleinLine *l, const GArray *f, guint from,
                            const char *last)
{
    for (guint i = from; !s->noted_unread && i < f->len; i++) {
        const CsvField *x = &g_array_index(f, CsvField, i);
        if (x->p == x->e)
            continue;
        scalein_warn(s->t, &s->warnings, l->no, x->col,
                     "'%.*s': the columns after %s are not read (SCALE-Sim ignores them too); "
                     "said for the first such value only",
                     (int)(x->e - x->p), x->p, last);
        s->noted_unread = true;
    }
}

static bool csv_row(CsvState *s, const ScaleinLine *l, GArray *f, GError **error)
{
    const ScaleinText *t = s->t;
    const CsvField *x = (const CsvField *)f->data;
    guint need = s->gemm ? 4 : 8;
    const char *const *names = s->gemm ? csv_gemm_names : csv_conv_names;
    /* a name and nothing else ("AlphaGoZero,") titles the rows that follow (SCALE-Sim's
     * mlperf/MLPERF.csv and others group several networks so): not a layer, and said so. A row
     * without a separator whose words include a number ("Conv1 224 224 3 3 3 64 1") is a layer
     * written with spaces: refused, never skipped (issue 15 item 9). */
    if (f->len == 1 && s->header_hint == NULL) {
        const char *p = x[0].p;
        while (p < x[0].e && !scalein_space(*p))
            p++;
        for (const char *q = p; q < x[0].e; q++)
            if (g_ascii_isdigit(*q) && scalein_space(q[-1])) {
                scalein_err(t, error, l->no, scalein_col(l, p),
                            "no comma between the fields: '%.*s' reads as one name; separate "
                            "the fields with commas (name, %s, ...)",
                            (int)(x[0].e - x[0].p), x[0].p, names[1]);
                return false;
            }
        scalein_warn(t, &s->warnings, l->no, x[0].col,
                     "'%.*s' holds only a name: read as a title row, not a layer",
                     (int)(x[0].e - x[0].p), x[0].p);
        return true;
    }
    if (f->len < need) {
        GString *list = g_string_new(NULL);
        for (guint i = 0; i < need; i++)
            g_string_append_printf(list, "%s%s", i ? ", " : "", names[i]);
        const char *hint = s->header_hint != NULL ? s->header_hint : "";
        scalein_err(t, error, l->no, scalein_col(l, l->end),
                    "too few fields: %u of %u (%s); %s is missing%s", f->len, need, list->str,
                    names[f->len], hint);
        g_string_free(list, TRUE);
        return false;
    }
    TpuLayer y = {0};
    y.line = l->no;
    if (s->gemm) {
        uint64_t m, n, k;
        if (!csv_uint(t, l, &x[1], "M", &m, error) || !csv_uint(t, l, &x[2], "N", &n, error) ||
            !csv_uint(t, l, &x[3], "K", &k, error))
            return false;
        /* SCALE-Sim's entries [m, k, 1, k, 1, n, 1, 1]; v3's fifth column is the layer's
         * sparsity; other columns after K are ignored as v2 does */
        int sp = f->len > 4 ? csv_sparsity(t, l, &x[4], error) : 0;
        if (sp < 0)
            return false;
        csv_note_unread(s, l, f, sp > 0 ? 5 : 4, "K");
        y.ifmap_h = m;
        y.ifmap_w = k;
        y.filter_h = 1;
        y.filter_w = k;
        y.channels = 1;
        y.filters = n;
        y.stride_h = y.stride_w = 1;
        y.name = g_strndup(x[0].p, (gsize)(x[0].e - x[0].p));
        if (!csv_add(s, l, &x[0], &y, error)) {
            g_free(y.name);
            return false;
        }
        return true;
    }
    uint64_t v[9];
    for (guint i = 1; i <= 7; i++)
        if (!csv_uint(t, l, &x[i], csv_conv_names[i], &v[i], error))
            return false;
    v[8] = v[7];
    int sparse = f->len > 8 ? csv_sparsity(t, l, &x[8], error) : 0;
    if (sparse < 0)
        return false;
    if (f->len > 8 && x[8].p != x[8].e && sparse == 0) {
        /* a ninth value is the column stride (SCALE-Sim); an empty one defaults to Strides */
        if (!csv_uint(t, l, &x[8], csv_conv_names[8], &v[8], error)) {
            if (s->col9_name != NULL && error != NULL && *error != NULL) {
                char *m = g_strdup_printf("%s (column 9 is read as the column stride; the header "
                                          "calls it '%s', which this reader does not support)",
                                          (*error)->message, s->col9_name);
                g_free((*error)->message);
                (*error)->message = m;
            }
            return false;
        }
    }
    /* columns after the ninth are ignored (Resnet50.csv annotates rows there), said once */
    csv_note_unread(s, l, f, 9, "Stride Width");
    for (int d = 0; d < 2; d++) {
        uint64_t fi = v[3 + d], im = v[1 + d];
        if (fi > im) {
            scalein_err(t, error, l->no, x[3 + d].col,
                        "%s %" PRIu64 " is larger than the %s %" PRIu64 " (no padding is modelled)",
                        csv_conv_names[3 + d], fi, csv_conv_names[1 + d], im);
            return false;
        }
    }
    y.ifmap_h = v[1];
    y.ifmap_w = v[2];
    y.filter_h = v[3];
    y.filter_w = v[4];
    y.channels = v[5];
    y.filters = v[6];
    y.stride_h = v[7];
    y.stride_w = v[8];
    char *name = g_strndup(x[0].p, (gsize)(x[0].e - x[0].p));
    if (strstr(name, "DP") == NULL) {
        y.name = name;
        if (!csv_add(s, l, &x[0], &y, error)) {
            g_free(name);
            return false;
        }
        return true;
    }
    /* depthwise: one single-channel layer per channel, NAME"Channel_"i (SCALE-Sim's naming) */
    if (v[5] > TPU_MAX_LAYERS - s->layers->len) {
        scalein_err(t, error, l->no, x[5].col,
                    "Channels: %" PRIu64 ": a DP (depthwise) layer becomes one layer per channel, "
                    "and the topology may have at most %u layers",
                    v[5], TPU_MAX_LAYERS);
        g_free(name);
        return false;
    }
    y.channels = 1;
    for (uint64_t i = 0; i < v[5]; i++) {
        y.name = g_strdup_printf("%sChannel_%" PRIu64, name, i);
        g_array_append_val(s->layers, y);
    }
    g_free(name);
    return true;
}

bool tpu_topology_load(const char *path, bool gemm, TpuTopology *out, GError **error)
{
    g_return_val_if_fail(path != NULL && out != NULL, false);
    memset(out, 0, sizeof *out);
    ScaleinText t = {path, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, NULL, NULL};
    if (!scalein_read(&t, path, error)) {
        g_free(t.text);
        return false;
    }
    CsvState s = {&t, gemm, g_array_new(FALSE, FALSE, sizeof(TpuLayer)), NULL, NULL, NULL, false};
    const char *pos = t.start;
    ScaleinLine l = {NULL, NULL, 0};
    bool ok = true;
    if (!scalein_next_line(&pos, &l)) {
        scalein_err(&t, error, 1, 1,
                    "empty file; expected a header line, then one layer per line");
        ok = false;
    } else {
        /* the header: skipped as SCALE-Sim does, but it explains some mistakes */
        GArray *h = csv_split(&l);
        const CsvField *hx = (const CsvField *)h->data;
        bool says_gemm = h->len >= 2 && hx[1].e - hx[1].p == 1 && g_ascii_toupper(*hx[1].p) == 'M';
        if (says_gemm && !gemm)
            s.header_hint = g_strdup("; the header reads like a GEMM topology (Layer, M, N, K): "
                                     "load it as gemm (-i gemm)");
        if (h->len >= 9 && !gemm) {
            char *n9 = g_ascii_strdown(hx[8].p, hx[8].e - hx[8].p);
            if (hx[8].p != hx[8].e && strstr(n9, "stride") == NULL)
                s.col9_name = g_strndup(hx[8].p, (gsize)(hx[8].e - hx[8].p));
            g_free(n9);
        }
        g_array_free(h, TRUE);
    }
    while (ok && scalein_next_line(&pos, &l)) {
        GArray *f = csv_split(&l);
        if (!csv_all_empty(f))  /* blank lines, comments, rows of bare commas (",,,,,,,,") */
            ok = csv_row(&s, &l, f, error);
        g_array_free(f, TRUE);
    }
    if (ok && s.layers->len == 0 && l.no > 0) {
        scalein_err(&t, error, l.no, 1, "no layers: nothing but a header line, blank lines and title rows");
        ok = false;
    }
    g_free(s.header_hint);
    g_free(s.col9_name);
    g_free(t.text);
    out->nlayers = (int)s.layers->len;
    out->layers = (TpuLayer *)(void *)g_array_free(s.layers, FALSE);
    out->warnings = s.warnings;
    if (!ok) {
        tpu_topology_clear(out);
        return false;
    }
    out->file = g_strdup(path);
    return true;
}

void tpu_topology_clear(TpuTopology *t)
{
    if (t == NULL)
        return;
    for (int i = 0; i < t->nlayers; i++)
        g_free(t->layers[i].name);
    g_free(t->layers);
    g_free(t->file);
    if (t->warnings != NULL)
        g_ptr_array_free(t->warnings, TRUE);
    memset(t, 0, sizeof *t);
}
