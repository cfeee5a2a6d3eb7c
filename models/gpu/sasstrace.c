/* sasstrace.c: Accel-Sim SASS trace reader (sasstrace.h). Lines come from a ZSource through a
 * 1 MiB buffer; each is split into fields at spaces, and every field is checked, so that an
 * error can name its line and column. Instruction lines are stored compactly (SassInst, 64 B)
 * with their lane addresses expanded in a per-block array, the opcode text interned once.
 */
#include "sasstrace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../sim/error.h"
#include "../../sim/input.h"
#include "../../traces/zsource.h"

#define SASS_BUF ((size_t)1 << 20)
#define SASS_MAX_FIELDS 64

struct SassReader {
    ZSource *src;
    SassKernel k;
    char *buf;
    size_t len, pos;
    bool eof;
    uint64_t line;              /* number of the current line */
    char *cur;                  /* the current line (NUL-terminated in buf) */
    bool pushed;                /* the current line is to be read again */
    GHashTable *op_index;       /* opcode text -> index + 1 */
#define SASS_OP_CACHE 251
    uint16_t op_cache[SASS_OP_CACHE];   /* by a hash of the text: index + 1 of an opcode, or 0 */
    GPtrArray *ops;             /* index -> text */
    GArray *op_unit;            /* index -> GpuUnitClass */
    GArray *op_width;           /* index -> bytes per thread */
    GArray *op_space;           /* index -> SassSpace */
    GArray *op_line;            /* index -> line << 16 | column of its first use (messages) */
    bool ended;                 /* the last block was read */
    GHashTable *blocks;         /* blocks read so far, by linear index + 1 (a block given twice
                                   would run twice) */
    uint64_t most_insts, most_addrs;    /* the largest block read so far: a new block's arrays
                                           start that large (grown, they would be copied) */
};

/* ---- errors ---- */

static G_GNUC_PRINTF(4, 5) void sass_err(SassReader *r, GError **error, const char *at,
                                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    uint64_t col = at && r->cur ? (uint64_t)(at - r->cur) + 1 : 1;
    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%" G_GUINT64_FORMAT ":%"
                G_GUINT64_FORMAT ": %s", r->k.path, MAX(r->line, (uint64_t)1), col, msg);
    g_free(msg);
}

/* A field quoted for a message (at most 40 bytes of it). */
static char *sass_quote(const char *s)
{
    size_t n = strlen(s);
    GString *q = g_string_new("'");
    for (size_t i = 0; i < n && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            g_string_append_c(q, (char)c);
        else
            g_string_append_printf(q, "\\x%02x", c);
    }
    g_string_append(q, n > 40 ? "...'" : "'");
    return g_string_free(q, FALSE);
}

/* The same with the field at `at` quoted after the message: "MESSAGE, got 'FIELD'". */
static void sass_err_got(SassReader *r, GError **error, const char *at, const char *msg)
{
    char *q = sass_quote(at);
    sass_err(r, error, at, "%s, got %s", msg, q);
    g_free(q);
}

/* ---- lines ---- */

/* The next line (without its '\n' or '\r\n'), or NULL at the end; false on error. */
static bool sass_getline(SassReader *r, char **out, GError **error)
{
    if (r->pushed) {
        r->pushed = false;
        *out = r->cur;
        return true;
    }
    for (;;) {
        char *nl = r->pos < r->len ? memchr(r->buf + r->pos, '\n', r->len - r->pos) : NULL;
        if (nl || (r->eof && r->pos < r->len)) {
            char *s = r->buf + r->pos;
            size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
            if (n > SASS_MAX_LINE) {
                r->line++;
                r->cur = s;
                sass_err(r, error, NULL, "line longer than %d bytes", SASS_MAX_LINE);
                return false;
            }
            s[n] = '\0';
            size_t want = n;
            if (n > 0 && s[n - 1] == '\r')
                s[--want] = '\0';
            if (strlen(s) != want) {
                r->line++;
                r->cur = s;
                sass_err(r, error, s + strlen(s), "a NUL byte in a text trace");
                return false;
            }
            r->pos += n + (nl ? 1 : 0);
            r->line++;
            r->cur = s;
            *out = s;
            return true;
        }
        if (r->eof) {
            *out = NULL;
            return true;
        }
        /* refill: keep the partial line */
        if (r->pos > 0) {
            memmove(r->buf, r->buf + r->pos, r->len - r->pos);
            r->len -= r->pos;
            r->pos = 0;
        }
        if (r->len >= SASS_BUF) {
            r->line++;
            r->cur = r->buf;
            r->buf[SASS_MAX_LINE] = '\0';
            sass_err(r, error, NULL, "line longer than %d bytes", SASS_MAX_LINE);
            return false;
        }
        ptrdiff_t k = zsource_read(r->src, r->buf + r->len, SASS_BUF - r->len, error);
        if (k < 0)
            return false;
        if (k == 0)
            r->eof = true;
        r->len += (size_t)k;
    }
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return false;
    return true;
}

/* Splits s in place at runs of spaces and tabs; returns the field count (> max: too many). */
static int split(char *s, char **f, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            *s++ = '\0';
        if (!*s)
            return n;
        if (n == max)
            return max + 1;
        f[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
}

/* ---- numbers ---- */

static bool parse_udec(const char *s, uint64_t max, uint64_t *v)
{
    if (!*s)
        return false;
    uint64_t x = 0, lim = max / 10;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        /* x * 10 + d <= max, one division per number: x <= max / 10 first (no overflow) */
        if (x > lim || d > max || x * 10 > max - d)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

static bool parse_sdec(const char *s, int64_t *v)
{
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    uint64_t x;
    if (!parse_udec(s, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &x))
        return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

/* Hex with an optional 0x, at most 16 digits. */
/* hex digit values + 1 (0: not a hex digit) */
static const uint8_t hex_value1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static bool parse_hex(const char *s, uint64_t *v)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    uint64_t x = 0;
    int n = 0;
    for (; *s; s++, n++) {
        unsigned d = hex_value1[(unsigned char)*s];
        if (d == 0 || n == 16)
            return false;
        x = x << 4 | (d - 1);
    }
    if (n == 0)
        return false;
    *v = x;
    return true;
}

/* ---- header ---- */

/* "(x,y,z)" with each 1..2^31-1. */
static bool parse_dim3(const char *s, uint32_t d[3])
{
    uint64_t v[3];
    char tail;
    unsigned long long a, b, c;
    if (sscanf(s, " (%llu , %llu , %llu )%c", &a, &b, &c, &tail) != 3)
        return false;
    v[0] = a, v[1] = b, v[2] = c;
    for (int i = 0; i < 3; i++) {
        if (v[i] < 1 || v[i] > INT32_MAX)
            return false;
        d[i] = (uint32_t)v[i];
    }
    /* sscanf accepts signs and spaces; refuse a '-' that it would have wrapped */
    return strchr(s, '-') == NULL;
}

static bool header_line(SassReader *r, char *s, GError **error)
{
    char *eq = strstr(s, " = ");
    if (!eq) {
        sass_err(r, error, s, "expected '-KEY = VALUE' in the header");
        return false;
    }
    *eq = '\0';
    const char *key = s + 1;
    char *val = eq + 3;
    const char *at = val;
    SassKernel *k = &r->k;
    uint64_t v;
    uint64_t place = r->line << 16 | MIN((uint64_t)(at - r->cur) + 1, 0xffff);
    if (strcmp(key, "kernel name") == 0) {
        if (!*val) {
            sass_err(r, error, at, "kernel name: empty");
            return false;
        }
        g_free(k->name);
        k->name = g_strdup(val);
    } else if (strcmp(key, "kernel id") == 0) {
        if (!parse_udec(val, UINT32_MAX, &v)) {
            char *q = sass_quote(val);       /* a trailing space shown, not lost */
            sass_err(r, error, at, "kernel id: expected a decimal number, got %s", q);
            g_free(q);
            return false;
        }
        k->id = (uint32_t)v;
    } else if (strcmp(key, "grid dim") == 0 || strcmp(key, "block dim") == 0) {
        bool grid = key[0] == 'g';
        uint32_t *d = grid ? k->grid : k->block;
        if (!parse_dim3(val, d)) {
            sass_err(r, error, at, "%s: expected (x,y,z), each from 1 to 2147483647", key);
            return false;
        }
        uint64_t threads = (uint64_t)d[0] * d[1] * d[2];
        if (grid && (d[1] > 65535 || d[2] > 65535)) {
            /* CUDA's grid: x up to 2^31 - 1, y and z up to 65535 (the block count then fits
             * 64 bits; 2^31 - 1 cubed wrapped) */
            sass_err(r, error, at, "grid dim (%u,%u,%u): CUDA allows y and z up to 65535", d[0],
                     d[1], d[2]);
            return false;
        }
        if (!grid && threads > 1024) {
            sass_err(r, error, at, "block dim (%u,%u,%u) is %" G_GUINT64_FORMAT " threads; CUDA "
                     "allows at most 1024 per block", d[0], d[1], d[2], threads);
            return false;
        }
        if (!grid)
            k->at_block = place;
    } else if (strcmp(key, "shmem") == 0) {
        if (!parse_udec(val, (uint64_t)1 << 32, &v)) {
            sass_err(r, error, at, "shmem: expected bytes (0 to 4294967296)");
            return false;
        }
        k->shmem = v;
        k->at_shmem = place;
    } else if (strcmp(key, "nregs") == 0) {
        if (!parse_udec(val, 255, &v)) {
            sass_err(r, error, at, "nregs: expected registers per thread (0 to 255)");
            return false;
        }
        k->nregs = (uint32_t)v;
        k->at_regs = place;
    } else if (strcmp(key, "binary version") == 0) {
        if (!parse_udec(val, 1000, &v)) {
            sass_err(r, error, at, "binary version: expected a decimal number such as 80");
            return false;
        }
        k->binary_version = (uint32_t)v;
        if (!gpu_generation(k->binary_version)) {
            sass_err(r, error, at, "binary version %s: no SASS opcode table for it (archsim has "
                     "70, 72 Volta; 75 Turing; 80, 86, 87 Ampere; 89 Ada; 90 Hopper)", val);
            return false;
        }
    } else if (strcmp(key, "cuda stream id") == 0) {
        if (!parse_udec(val, UINT32_MAX, &v)) {
            sass_err(r, error, at, "cuda stream id: expected a decimal number");
            return false;
        }
        k->stream = (uint32_t)v;
    } else if (strcmp(key, "shmem base_addr") == 0 || strcmp(key, "local mem base_addr") == 0) {
        if (!parse_hex(val, &v)) {
            sass_err(r, error, at, "%s: expected a hex address", key);
            return false;
        }
        if (key[0] == 's')
            k->shmem_base = v;
        else
            k->local_base = v;
    } else if (strcmp(key, "nvbit version") == 0) {
        g_free(k->nvbit_version);
        k->nvbit_version = g_strdup(val);
    } else if (strcmp(key, "accelsim tracer version") == 0) {
        if (!parse_udec(val, 1000, &v)) {
            sass_err(r, error, at, "accelsim tracer version: expected a decimal number");
            return false;
        }
        if (v > 5) {
            sass_err(r, error, at, "accelsim tracer version %s: archsim reads versions up to 5",
                     val);
            return false;
        }
        k->tracer_version = (uint32_t)v;
    } else if (strcmp(key, "enable lineinfo") == 0) {
        if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0) {
            sass_err(r, error, at, "enable lineinfo: expected 0 or 1");
            return false;
        }
        k->lineinfo = val[0] == '1';
    }
    /* other keys (later tracers add some) are read and ignored, as Accel-Sim does */
    return true;
}

static bool read_header(SassReader *r, GError **error)
{
    char *s;
    bool any = false;
    for (;;) {
        if (!sass_getline(r, &s, error))
            return false;
        if (!s)
            break;
        if (blank(s))
            continue;
        if (s[0] == '-') {
            any = true;
            if (!header_line(r, s, error))
                return false;
            continue;
        }
        if (g_str_has_prefix(s, "#traces format"))
            continue;
        if (g_str_has_prefix(s, "#BEGIN_TB")) {
            r->pushed = true;
            break;
        }
        sass_err(r, error, s, any ? "expected a '-KEY = VALUE' header line or #BEGIN_TB"
                                  : "not an Accel-Sim .traceg file: it should start with "
                                    "'-kernel name = ...'");
        return false;
    }
    SassKernel *k = &r->k;
    const char *missing = !k->name ? "kernel name" : !k->grid[0] ? "grid dim"
                        : !k->block[0] ? "block dim" : !k->binary_version ? "binary version" : NULL;
    if (missing) {
        sass_err(r, error, NULL, "the header has no '-%s = ...' line", missing);
        return false;
    }
    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    k->warps_per_block = (uint32_t)((threads + 31) / 32);
    k->nblocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
    return true;
}

SassReader *sass_open(const char *path, GError **error)
{
    ZSource *z = zsource_open(path, ARCHSIM_TRACE_ERROR, error);
    if (!z)
        return NULL;
    SassReader *r = g_new0(SassReader, 1);
    r->src = z;
    r->k.path = g_strdup(path);
    r->buf = g_malloc(SASS_BUF + 1);
    r->op_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    r->blocks = g_hash_table_new(g_direct_hash, g_direct_equal);
    r->ops = g_ptr_array_new();
    r->op_unit = g_array_new(FALSE, FALSE, sizeof(uint8_t));
    r->op_width = g_array_new(FALSE, FALSE, sizeof(uint8_t));
    r->op_space = g_array_new(FALSE, FALSE, sizeof(uint8_t));
    r->op_line = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    if (!read_header(r, error)) {
        sass_close(r);
        return NULL;
    }
    return r;
}

const SassKernel *sass_kernel(const SassReader *r) { return &r->k; }
const char *sass_opcode(const SassReader *r, uint16_t op) { return g_ptr_array_index(r->ops, op); }
uint64_t sass_opcode_line(const SassReader *r, uint16_t op)
{
    return op < r->op_line->len ? g_array_index(r->op_line, uint64_t, op) : 0;
}
uint32_t sass_nopcodes(const SassReader *r) { return r->ops->len; }

double sass_progress(const SassReader *r)
{
    uint64_t size = zsource_file_size(r->src);
    return size ? (double)zsource_consumed(r->src) / (double)size : 1.0;
}

void sass_close(SassReader *r)
{
    if (!r)
        return;
    zsource_close(r->src);
    g_free(r->buf);
    g_free(r->k.path);
    g_free(r->k.name);
    g_free(r->k.nvbit_version);
    if (r->op_index)
        g_hash_table_destroy(r->op_index);
    if (r->blocks)
        g_hash_table_destroy(r->blocks);
    if (r->ops)
        g_ptr_array_free(r->ops, TRUE);
    if (r->op_unit)
        g_array_free(r->op_unit, TRUE);
    if (r->op_width)
        g_array_free(r->op_width, TRUE);
    if (r->op_space)
        g_array_free(r->op_space, TRUE);
    if (r->op_line)
        g_array_free(r->op_line, TRUE);
    g_free(r);
}

void sass_block_clear(SassBlock *b)
{
    if (b->store)
        g_ptr_array_free(b->store, TRUE);
    g_free(b->warps);
    g_free(b->insts);
    g_free(b->addrs);
    memset(b, 0, sizeof *b);
}

SassSpace sass_generic_space(const SassKernel *k, uint64_t addr)
{
    if (k->shmem_base == 0 || k->local_base == 0)
        return SASS_SPACE_SHARED;
    if (addr >= k->shmem_base && addr < k->local_base)
        return SASS_SPACE_SHARED;
    if (addr >= k->local_base && addr - k->local_base < SASS_LOCAL_MEM_SIZE_MAX)
        return SASS_SPACE_LOCAL;
    return SASS_SPACE_GLOBAL;
}

/* ---- instruction lines ---- */

static SassSpace space_of(const char *op)
{
    size_t n = strcspn(op, ".");
    static const struct { const char *m; SassSpace s; } tab[] = {
        { "LDG", SASS_SPACE_GLOBAL }, { "STG", SASS_SPACE_GLOBAL }, { "ATOMG", SASS_SPACE_GLOBAL },
        { "RED", SASS_SPACE_GLOBAL }, { "LDGSTS", SASS_SPACE_GLOBAL }, { "LDS", SASS_SPACE_SHARED },
        { "STS", SASS_SPACE_SHARED }, { "ATOMS", SASS_SPACE_SHARED }, { "LDSM", SASS_SPACE_SHARED },
        { "STSM", SASS_SPACE_SHARED }, { "LDL", SASS_SPACE_LOCAL }, { "STL", SASS_SPACE_LOCAL },
        { "LDC", SASS_SPACE_CONST }, { "ULDC", SASS_SPACE_CONST }, { "LD", SASS_SPACE_GENERIC },
        { "ST", SASS_SPACE_GENERIC }, { "ATOM", SASS_SPACE_GENERIC },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(tab); i++)
        if (strlen(tab[i].m) == n && memcmp(tab[i].m, op, n) == 0)
            return tab[i].s;
    return SASS_SPACE_GLOBAL;   /* other memory opcodes with addresses (TEX, SULD, ...) */
}

static inline uint32_t op_hash(const char *t, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)t[i]) * 16777619u;
    return h;
}

/* The index of opcode text (NUL-terminated, hash h = op_hash of it), added when new. */
static bool intern_op_h(SassReader *r, const char *text, const char *at, uint32_t h,
                        uint16_t *out, GError **error)
{
    /* a small direct-mapped cache in front of the table: a kernel has few distinct opcodes */
    uint32_t slot = (h ^ (h >> 15)) % SASS_OP_CACHE;
    if (r->op_cache[slot] && strcmp(g_ptr_array_index(r->ops, r->op_cache[slot] - 1), text) == 0) {
        *out = (uint16_t)(r->op_cache[slot] - 1);
        return true;
    }
    gpointer v = g_hash_table_lookup(r->op_index, text);
    if (v) {
        *out = (uint16_t)(GPOINTER_TO_UINT(v) - 1);
        r->op_cache[slot] = (uint16_t)GPOINTER_TO_UINT(v);
        return true;
    }
    if (r->ops->len >= SASS_MAX_OPCODES) {
        sass_err(r, error, text, "more than %d distinct opcodes in one kernel", SASS_MAX_OPCODES);
        return false;
    }
    char *copy = g_strdup(text);
    uint32_t idx = r->ops->len;
    g_ptr_array_add(r->ops, copy);
    g_hash_table_insert(r->op_index, copy, GUINT_TO_POINTER(idx + 1));
    /* the table's key is the same string as ops[idx]: freed once, by the hash table */
    uint8_t unit = (uint8_t)gpu_opcode_class(r->k.binary_version, text);
    uint8_t width = (uint8_t)MIN(gpu_opcode_width(text), 255u);
    uint8_t space = (uint8_t)space_of(text);
    g_array_append_val(r->op_unit, unit);
    g_array_append_val(r->op_width, width);
    g_array_append_val(r->op_space, space);
    /* where it was first read: line << 16 | column (lines are at most 64 KiB) */
    uint64_t col = at && r->cur && at >= r->cur && at - r->cur < 65535 ? (uint64_t)(at - r->cur) + 1
                                                                        : 1;
    uint64_t first = MAX(r->line, (uint64_t)1) << 16 | col;
    g_array_append_val(r->op_line, first);
    *out = (uint16_t)idx;
    return true;
}

static bool intern_op(SassReader *r, const char *text, uint16_t *out, GError **error)
{
    return intern_op_h(r, text, text, op_hash(text, strlen(text)), out, error);
}

static bool parse_reg(const char *s, uint16_t *out)
{
    uint32_t kind, max;
    const char *d;
    if (s[0] == 'R') {
        kind = SASS_REG_R, max = 255, d = s + 1;
    } else if (s[0] == 'U' && s[1] == 'R') {
        kind = SASS_REG_UR, max = 63, d = s + 2;
    } else if (s[0] == 'U' && s[1] == 'P') {
        kind = SASS_REG_UP, max = 7, d = s + 2;
    } else if (s[0] == 'P') {
        kind = SASS_REG_P, max = 7, d = s + 1;
    } else {
        return false;
    }
    uint64_t v;
    if (!parse_udec(d, max, &v))
        return false;
    *out = SASS_REG(kind, v);
    return true;
}

static bool opcode_text_ok(const char *s)
{
    if (!g_ascii_isupper(*s) || strlen(s) > 63)
        return false;
    for (; *s; s++)
        if (!g_ascii_isalnum(*s) && *s != '.' && *s != '_')
            return false;
    return true;
}

/* Room for lanes more addresses in the block's array: where they go. */
static uint64_t *addr_room(SassBlock *b, uint32_t lanes)
{
    if (b->naddrs + lanes > b->addrs_cap) {
        b->addrs_cap = MAX(b->addrs_cap * 2, b->naddrs + lanes + 64);
        b->addrs = g_renew(uint64_t, b->addrs, b->addrs_cap);
    }
    return b->addrs + b->naddrs;
}

/* Parses instruction line s (already split into f[0..n)) into *in, its addresses appended to
 * b->addrs. */
static bool parse_inst(SassReader *r, SassBlock *b, char **f, int n, SassInst *in, GError **error)
{
    int i = 0;
    const SassKernel *k = &r->k;
#define NEED(what)                                                                            \
    do {                                                                                      \
        if (i >= n) {                                                                         \
            sass_err(r, error, n ? f[n - 1] + strlen(f[n - 1]) : r->cur, "the line ends "   \
                     "before its " what);                                                  \
            return false;                                                                     \
        }                                                                                     \
    } while (0)
    uint64_t v;
    memset(in, 0, sizeof *in);
    if (k->tracer_version < 3) {
        for (int j = 0; j < 4; j++, i++) {
            NEED("block and warp numbers (tracer versions below 3)");
            if (!parse_udec(f[i], UINT32_MAX, &v)) {
                sass_err(r, error, f[i], "expected a decimal block or warp number (tracer "
                         "versions below 3 start each line with them)");
                return false;
            }
        }
    }
    if (k->lineinfo) {
        NEED("source line number (enable lineinfo = 1)");
        if (!parse_udec(f[i], UINT32_MAX, &v)) {
            sass_err(r, error, f[i], "expected the source line number (enable lineinfo = 1)");
            return false;
        }
        in->src_line = (uint32_t)v;
        i++;
    }
    NEED("PC");
    if (!parse_hex(f[i], &v) || v > UINT32_MAX) {
        sass_err_got(r, error, f[i], "expected the PC in hex (at most 8 digits)");
        return false;
    }
    in->pc = (uint32_t)v;
    i++;
    NEED("active mask");
    if (strlen(f[i]) > 8 || !parse_hex(f[i], &v)) {
        sass_err_got(r, error, f[i], "expected the active mask, 8 hex digits");
        return false;
    }
    in->mask = (uint32_t)v;
    i++;
    NEED("destination count");
    if (!parse_udec(f[i], SASS_MAX_DST, &v)) {
        sass_err(r, error, f[i], "expected the number of destination registers (0 to %d)",
                 SASS_MAX_DST);
        return false;
    }
    in->ndst = (uint8_t)v;
    i++;
    for (int j = 0; j < in->ndst; j++, i++) {
        NEED("destination registers");
        if (!parse_reg(f[i], &in->dst[j])) {
            sass_err_got(r, error, f[i], "expected a register (R0-R255, UR0-UR63, P0-P7, UP0-UP7)");
            return false;
        }
    }
    NEED("opcode");
    if (!opcode_text_ok(f[i])) {
        sass_err_got(r, error, f[i], "expected an opcode (capitals, digits, '.' and '_')");
        return false;
    }
    if (!intern_op(r, f[i], &in->op, error))
        return false;
    in->unit = g_array_index(r->op_unit, uint8_t, in->op);
    i++;
    NEED("source count");
    if (!parse_udec(f[i], SASS_MAX_SRC, &v)) {
        sass_err(r, error, f[i], "expected the number of source registers (0 to %d)", SASS_MAX_SRC);
        return false;
    }
    in->nsrc = (uint8_t)v;
    i++;
    for (int j = 0; j < in->nsrc; j++, i++) {
        NEED("source registers");
        if (!parse_reg(f[i], &in->src[j])) {
            sass_err_got(r, error, f[i], "expected a register (R0-R255, UR0-UR63, P0-P7, UP0-UP7)");
            return false;
        }
    }
    NEED("memory width");
    if (!parse_udec(f[i], 255, &v)) {
        sass_err(r, error, f[i], "expected the memory width in bytes (0: not a memory access)");
        return false;
    }
    i++;
    if (v == 0 && g_array_index(r->op_space, uint8_t, in->op) == SASS_SPACE_CONST)
        in->space = SASS_SPACE_CONST;   /* LDC: its width field is 0 (no addresses traced) */
    if (v > 0) {
        /* the width is the opcode's, as Accel-Sim recomputes it; the field only says "memory" */
        in->width = g_array_index(r->op_width, uint8_t, in->op);
        in->space = g_array_index(r->op_space, uint8_t, in->op);
        NEED("address mode");
        if (!parse_udec(f[i], 2, &v)) {
            sass_err(r, error, f[i], "expected the address mode: 0 (list), 1 (base stride) or 2 "
                     "(base deltas)");
            return false;
        }
        in->addr_mode = (uint8_t)v;
        i++;
        uint32_t lanes = (uint32_t)__builtin_popcount(in->mask);
        in->addr = (uint32_t)b->naddrs;
        uint64_t *a = addr_room(b, lanes);
        if (in->addr_mode == 0) {
            for (uint32_t j = 0; j < lanes; j++, i++) {
                NEED("addresses (mode 0: one per active lane)");
                if (!parse_hex(f[i], &a[j])) {
                    sass_err(r, error, f[i], "expected a hex address");
                    return false;
                }
            }
        } else {
            uint64_t base;
            NEED("base address");
            if (!parse_hex(f[i], &base)) {
                sass_err(r, error, f[i], "expected the base address in hex");
                return false;
            }
            i++;
            if (in->addr_mode == 1) {
                int64_t stride;
                NEED("stride (mode 1)");
                if (!parse_sdec(f[i], &stride)) {
                    sass_err(r, error, f[i], "expected the stride, a signed decimal");
                    return false;
                }
                i++;
                for (uint32_t j = 0; j < lanes; j++)
                    a[j] = base + (uint64_t)stride * j;
            } else {
                /* popcount - 1 deltas, each from the previous active lane (Accel-Sim's reader
                 * takes popcount, one too many, and so eats a v5 immediate) */
                if (lanes > 0)
                    a[0] = base;
                for (uint32_t j = 1; j < lanes; j++, i++) {
                    int64_t d;
                    NEED("address deltas (mode 2: one per active lane after the first)");
                    if (!parse_sdec(f[i], &d)) {
                        sass_err(r, error, f[i], "expected an address delta, a signed decimal");
                        return false;
                    }
                    a[j] = a[j - 1] + (uint64_t)d;
                }
            }
        }
        if (in->width == 0)
            in->width = 4;
        b->naddrs += lanes;
    }
    if (k->tracer_version >= 5) {
        NEED("immediate (tracer version 5)");
        if (!parse_sdec(f[i], &in->imm)) {
            sass_err(r, error, f[i], "expected the immediate, a signed decimal (tracer version 5)");
            return false;
        }
        in->has_imm = true;
        i++;
    }
    if (i < n) {
        char *q = sass_quote(f[i]);
        sass_err(r, error, f[i], "unexpected %s after the instruction%s", q,
                 k->tracer_version < 5 ? " (a tracer version below 5 has no immediate)" : "");
        g_free(q);
        return false;
    }
#undef NEED
    return true;
}

/* ---- the one-pass path ----
 *
 * An instruction line is read here in one pass, field by field, without splitting it: the same
 * grammar, bounds and results as parse_inst (the checks below are parse_inst's, in its order).
 * Anything it does not accept leaves the line untouched and returns false; the caller then
 * splits the line and parse_inst reads it again, to name the problem. test_gpu.c runs both on
 * random and mutated lines and compares them. */

static bool sass_one_pass = true;
static uint64_t refused;

void sass_set_one_pass(bool on) { sass_one_pass = on; }
uint64_t sass_one_pass_refused(void) { return refused; }

static inline bool fend(char c) { return c == ' ' || c == '\t' || c == '\0'; }

/* The field at *pp ends where fend; after it, *pp is at the next field (or the NUL). */
static inline const char *fnext(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* decimal digit values + 1 (0: not a digit) */
static const uint8_t dec_value1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10,
};

/* 1 to 19 digits (a longer field, leading zeros and all, goes to parse_inst) */
static inline bool fast_udec(const char **pp, uint64_t max, uint64_t *v)
{
    const char *p = *pp, *s = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = dec_value1[(unsigned char)*p]) != 0) {
        x = x * 10 + (d - 1);
        p++;
    }
    if (p == s || p - s > 19 || !fend(*p) || x > max)
        return false;
    *v = x;
    *pp = fnext(p);
    return true;
}

static inline bool fast_sdec(const char **pp, int64_t *v)
{
    const char *p = *pp;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t x;
    if (!fast_udec(&p, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &x))
        return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    *pp = p;
    return true;
}

/* hex with an optional 0x, 1 to 16 digits; *len gets the field's length */
static inline bool fast_hex(const char **pp, uint64_t *v, size_t *len)
{
    const char *p = *pp, *s = p;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    const char *digits = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = hex_value1[(unsigned char)*p]) != 0) {
        x = x << 4 | (d - 1);
        p++;
    }
    if (p == digits || p - digits > 16 || !fend(*p))
        return false;
    *v = x;
    if (len)
        *len = (size_t)(p - s);
    *pp = fnext(p);
    return true;
}

static inline bool fast_reg(const char **pp, uint16_t *out)
{
    const char *p = *pp;
    uint32_t kind, max;
    if (p[0] == 'R') {
        kind = SASS_REG_R, max = 255, p += 1;
    } else if (p[0] == 'U' && p[1] == 'R') {
        kind = SASS_REG_UR, max = 63, p += 2;
    } else if (p[0] == 'U' && p[1] == 'P') {
        kind = SASS_REG_UP, max = 7, p += 2;
    } else if (p[0] == 'P') {
        kind = SASS_REG_P, max = 7, p += 1;
    } else {
        return false;
    }
    uint64_t v;
    if (!fast_udec(&p, max, &v))
        return false;
    *out = SASS_REG(kind, v);
    *pp = p;
    return true;
}

/* Parses line s into *in as parse_inst would, or returns false having changed nothing but *in
 * and the spare room of b->addrs. */
static bool parse_inst_fast(SassReader *r, SassBlock *b, const char *s, SassInst *in)
{
    const SassKernel *k = &r->k;
    const char *p = fnext(s);
    uint64_t v;
    size_t len;
    int fields = 0;
    memset(in, 0, sizeof *in);
    if (k->tracer_version < 3) {
        for (int j = 0; j < 4; j++)
            if (!fast_udec(&p, UINT32_MAX, &v))
                return false;
        fields += 4;
    }
    if (k->lineinfo) {
        if (!fast_udec(&p, UINT32_MAX, &v))
            return false;
        in->src_line = (uint32_t)v;
        fields++;
    }
    if (!fast_hex(&p, &v, NULL) || v > UINT32_MAX)
        return false;
    in->pc = (uint32_t)v;
    if (!fast_hex(&p, &v, &len) || len > 8)
        return false;
    in->mask = (uint32_t)v;
    if (!fast_udec(&p, SASS_MAX_DST, &v))
        return false;
    in->ndst = (uint8_t)v;
    for (int j = 0; j < in->ndst; j++)
        if (!fast_reg(&p, &in->dst[j]))
            return false;
    /* the opcode: a capital first, then capitals, digits, '.' and '_', at most 63 bytes */
    const char *op = p;
    if (!g_ascii_isupper(*p))
        return false;
    for (; !fend(*p); p++)
        if (!g_ascii_isalnum(*p) && *p != '.' && *p != '_')
            return false;
    size_t oplen = (size_t)(p - op);
    if (oplen > 63)
        return false;
    char optext[64];
    memcpy(optext, op, oplen);
    optext[oplen] = '\0';
    if (!intern_op_h(r, optext, op, op_hash(optext, oplen), &in->op, NULL))
        return false;
    in->unit = g_array_index(r->op_unit, uint8_t, in->op);
    p = fnext(p);
    if (!fast_udec(&p, SASS_MAX_SRC, &v))
        return false;
    in->nsrc = (uint8_t)v;
    for (int j = 0; j < in->nsrc; j++)
        if (!fast_reg(&p, &in->src[j]))
            return false;
    if (!fast_udec(&p, 255, &v))
        return false;
    fields += 6 + in->ndst + in->nsrc;  /* PC, mask, count, opcode, count, width */
    uint32_t lanes = 0;
    if (v == 0 && g_array_index(r->op_space, uint8_t, in->op) == SASS_SPACE_CONST)
        in->space = SASS_SPACE_CONST;   /* LDC, as the slow path reads it */
    if (v > 0) {
        in->width = g_array_index(r->op_width, uint8_t, in->op);
        in->space = g_array_index(r->op_space, uint8_t, in->op);
        if (!fast_udec(&p, 2, &v))
            return false;
        in->addr_mode = (uint8_t)v;
        lanes = (uint32_t)__builtin_popcount(in->mask);
        in->addr = (uint32_t)b->naddrs;
        uint64_t *a = addr_room(b, lanes);
        if (in->addr_mode == 0) {
            for (uint32_t j = 0; j < lanes; j++)
                if (!fast_hex(&p, &a[j], NULL))
                    return false;
            fields += 1 + (int)lanes;
        } else {
            uint64_t base;
            if (!fast_hex(&p, &base, NULL))
                return false;
            if (in->addr_mode == 1) {
                int64_t stride;
                if (!fast_sdec(&p, &stride))
                    return false;
                for (uint32_t j = 0; j < lanes; j++)
                    a[j] = base + (uint64_t)stride * j;
                fields += 3;
            } else {
                if (lanes > 0)
                    a[0] = base;
                for (uint32_t j = 1; j < lanes; j++) {
                    int64_t d;
                    if (!fast_sdec(&p, &d))
                        return false;
                    a[j] = a[j - 1] + (uint64_t)d;
                }
                fields += 2 + (int)(lanes ? lanes - 1 : 0);
            }
        }
        if (in->width == 0)
            in->width = 4;
    }
    if (k->tracer_version >= 5) {
        if (!fast_sdec(&p, &in->imm))
            return false;
        in->has_imm = true;
        fields++;
    }
    if (*p != '\0' || fields > SASS_MAX_FIELDS)
        return false;
    b->naddrs += lanes;
    return true;
}

/* "thread block = x,y,z" and friends: three decimals after "KEY = " */
static bool parse_triple(SassReader *r, char *s, size_t keylen, uint32_t out[3], GError **error)
{
    char *p = s + keylen;
    for (int j = 0; j < 3; j++) {
        char *end = p + strcspn(p, ",");
        char save = *end;
        *end = '\0';
        uint64_t v;
        char *t = g_strstrip(p);
        if (!parse_udec(t, UINT32_MAX, &v)) {
            *end = save;
            sass_err(r, error, p, "expected x,y,z (three decimal numbers)");
            return false;
        }
        out[j] = (uint32_t)v;
        *end = save;
        if (j < 2 && save != ',') {
            sass_err(r, error, end, "expected x,y,z (three decimal numbers)");
            return false;
        }
        p = end + 1;
    }
    return true;
}

int sass_next_block(SassReader *r, SassBlock *b, GError **error)
{
    const SassKernel *k = &r->k;
    char *s;
    b->nwarps = 0;
    b->ninsts = 0;
    b->naddrs = 0;
    b->cluster = false;
    if (b->insts_cap < r->most_insts) {
        g_free(b->insts);
        b->insts = g_new(SassInst, r->most_insts);
        b->insts_cap = r->most_insts;
    }
    if (b->addrs_cap < r->most_addrs) {
        g_free(b->addrs);
        b->addrs = g_new(uint64_t, r->most_addrs);
        b->addrs_cap = r->most_addrs;
    }
    /* #BEGIN_TB, or the end */
    for (;;) {
        if (!sass_getline(r, &s, error))
            return -1;
        if (!s) {
            r->ended = true;
            return 0;
        }
        if (blank(s))
            continue;
        if (strcmp(g_strchomp(s), "#BEGIN_TB") == 0)
            break;
        sass_err(r, error, s, "expected #BEGIN_TB");
        return -1;
    }
    b->line = r->line;
    bool have_tb = false;
    uint64_t seen[1] = { 0 };   /* warps seen, a bit each (32 warps at most) */
    char *f[SASS_MAX_FIELDS + 1];
    for (;;) {
        if (!sass_getline(r, &s, error))
            return -1;
        if (!s) {
            sass_err(r, error, NULL, "the file ends inside the thread block that starts at line %"
                     G_GUINT64_FORMAT " (no #END_TB)", b->line);
            return -1;
        }
        if (blank(s))
            continue;
        if (g_str_has_prefix(s, "#END_TB")) {
            if (!have_tb) {
                sass_err(r, error, s, "a thread block without a 'thread block = x,y,z' line");
                return -1;
            }
            r->most_insts = MAX(r->most_insts, b->ninsts);
            r->most_addrs = MAX(r->most_addrs, b->naddrs);
            return 1;
        }
        if (g_str_has_prefix(s, "thread block = ")) {
            if (have_tb) {
                sass_err(r, error, s, "a second 'thread block' line in one block");
                return -1;
            }
            uint32_t t[3];
            if (!parse_triple(r, s, strlen("thread block = "), t, error))
                return -1;
            if (t[0] >= k->grid[0] || t[1] >= k->grid[1] || t[2] >= k->grid[2]) {
                sass_err(r, error, s + strlen("thread block = "), "thread block (%u,%u,%u) is "
                         "outside the grid (%u,%u,%u)", t[0], t[1], t[2], k->grid[0], k->grid[1],
                         k->grid[2]);
                return -1;
            }
            uint64_t lin = t[0] + (uint64_t)k->grid[0] * (t[1] + (uint64_t)k->grid[1] * t[2]);
            if (!g_hash_table_add(r->blocks, GSIZE_TO_POINTER((gsize)lin + 1))) {
                sass_err(r, error, s + strlen("thread block = "), "thread block (%u,%u,%u) "
                         "appears twice in this kernel", t[0], t[1], t[2]);
                return -1;
            }
            b->x = t[0], b->y = t[1], b->z = t[2];
            have_tb = true;
            continue;
        }
        if (g_str_has_prefix(s, "cluster id = ") || g_str_has_prefix(s, "cluster cta = ")) {
            bool id = s[8] == 'i';
            if (!parse_triple(r, s, strlen(id ? "cluster id = " : "cluster cta = "),
                              id ? b->cluster_id : b->cluster_cta, error))
                return -1;
            b->cluster = true;
            continue;
        }
        if (g_str_has_prefix(s, "cluster rank = ")) {
            uint64_t v;
            char *t = g_strstrip(s + strlen("cluster rank = "));
            if (!parse_udec(t, UINT32_MAX, &v)) {
                sass_err(r, error, t, "cluster rank: expected a decimal number");
                return -1;
            }
            b->cluster_rank = (uint32_t)v;
            b->cluster = true;
            continue;
        }
        if (!g_str_has_prefix(s, "warp = ")) {
            sass_err(r, error, s, "expected 'warp = N', 'thread block = x,y,z' or #END_TB");
            return -1;
        }
        if (!have_tb) {
            sass_err(r, error, s, "a warp before the block's 'thread block = x,y,z' line");
            return -1;
        }
        uint64_t w, ninsts;
        char *t = g_strstrip(s + strlen("warp = "));
        if (!parse_udec(t, UINT32_MAX, &w)) {
            sass_err(r, error, t, "warp: expected a decimal number");
            return -1;
        }
        if (w >= k->warps_per_block) {
            sass_err(r, error, t, "warp %" G_GUINT64_FORMAT " of a block of %u threads (%u warps)",
                     w, k->block[0] * k->block[1] * k->block[2], k->warps_per_block);
            return -1;
        }
        if (seen[0] >> w & 1) {
            sass_err(r, error, t, "warp %" G_GUINT64_FORMAT " appears twice in this thread block", w);
            return -1;
        }
        seen[0] |= 1ull << w;
        do {
            if (!sass_getline(r, &s, error))
                return -1;
        } while (s && blank(s));
        if (!s || !g_str_has_prefix(s, "insts = ")) {
            sass_err(r, error, s, "expected 'insts = N' after 'warp = %" G_GUINT64_FORMAT "'", w);
            return -1;
        }
        t = g_strstrip(s + strlen("insts = "));
        if (!parse_udec(t, UINT32_MAX, &ninsts)) {
            sass_err(r, error, t, "insts: expected a decimal number");
            return -1;
        }
        if (b->ninsts + ninsts > SASS_MAX_BLOCK_INSTS) {
            sass_err(r, error, t, "this thread block holds more than %" G_GUINT64_FORMAT
                     " warp instructions, archsim's limit for one block", SASS_MAX_BLOCK_INSTS);
            return -1;
        }
        if (b->nwarps == b->warps_cap) {
            b->warps_cap = b->warps_cap ? b->warps_cap * 2 : 32;
            b->warps = g_renew(SassWarp, b->warps, b->warps_cap);
        }
        /* room for the warp's instructions, as many as it says it has, but never more than
         * 4,096 ahead of the lines actually read (a bogus count costs no memory: past that the
         * array grows as lines arrive) */
        if (b->ninsts + ninsts > b->insts_cap) {
            uint64_t cap = MAX(b->ninsts + MIN(ninsts, (uint64_t)4096),
                               b->insts_cap + b->insts_cap / 2);
            cap = MIN(cap, SASS_MAX_BLOCK_INSTS);
            b->insts = g_renew(SassInst, b->insts, cap);
            b->insts_cap = cap;
        }
        SassWarp *sw = &b->warps[b->nwarps++];
        sw->insts = NULL;
        sw->addrs = NULL;
        sw->warp = (uint32_t)w;
        sw->first = (uint32_t)b->ninsts;
        sw->n = (uint32_t)ninsts;
        uint64_t insts_line = r->line;
        for (uint64_t j = 0; j < ninsts; j++) {
            do {
                if (!sass_getline(r, &s, error))
                    return -1;
            } while (s && blank(s));
            if (!s || s[0] == '#' || (s[0] == 'w' && g_str_has_prefix(s, "warp")) ||
                (s[0] == 'i' && g_str_has_prefix(s, "insts"))) {
                sass_err(r, error, s, "'insts = %" G_GUINT64_FORMAT "' at line %" G_GUINT64_FORMAT
                         " but only %" G_GUINT64_FORMAT " instruction lines follow", ninsts,
                         insts_line, j);
                return -1;
            }
            if (b->ninsts == b->insts_cap) {   /* a warp of more than 4,096 instructions */
                b->insts_cap = MIN(b->insts_cap ? b->insts_cap * 2 : 64, SASS_MAX_BLOCK_INSTS);
                b->insts = g_renew(SassInst, b->insts, b->insts_cap);
            }
            if (sass_one_pass) {
                if (parse_inst_fast(r, b, s, &b->insts[b->ninsts])) {
                    b->ninsts++;
                    continue;
                }
                refused++;
            }
            int nf = split(s, f, SASS_MAX_FIELDS);
            if (nf > SASS_MAX_FIELDS) {
                sass_err(r, error, f[SASS_MAX_FIELDS - 1], "more than %d fields in one line",
                         SASS_MAX_FIELDS);
                return -1;
            }
            if (!parse_inst(r, b, f, nf, &b->insts[b->ninsts], error))
                return -1;
            b->ninsts++;
        }
    }
}

/* ---- kernelslist.g ---- */

#define SASS_LIST_MAX ((uint64_t)64 << 20)

static bool list_err(GError **error, const char *path, uint64_t line, uint64_t col,
                     const char *msg, int code)
{
    g_set_error(error, ARCHSIM_TRACE_ERROR, code, "%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
                ": %s", path, line, col, msg);
    return false;
}

void sass_list_free(SassList *l)
{
    if (!l)
        return;
    for (uint32_t i = 0; i < l->n; i++)
        g_free(l->e[i].path);
    g_free(l->e);
    g_free(l->path);
    g_free(l);
}

SassList *sass_list_read(const char *path, GError **error)
{
    char *file;
    if (g_file_test(path, G_FILE_TEST_IS_DIR))
        file = g_build_filename(path, "kernelslist.g", NULL);
    else
        file = g_strdup(path);
    if (g_str_has_suffix(file, ".traceg") || g_str_has_suffix(file, ".traceg.xz") ||
        g_str_has_suffix(file, ".traceg.gz")) {
        /* one kernel's trace named alone: a list of that kernel */
        if (!g_file_test(file, G_FILE_TEST_EXISTS)) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                        "%s: cannot open: No such file or directory", file);
            g_free(file);
            return NULL;
        }
        SassList *one = g_new0(SassList, 1);
        one->path = file;
        one->e = g_new0(SassListEntry, 1);
        one->e[0] = (SassListEntry){ .kind = SASS_LIST_KERNEL, .path = g_strdup(file), .line = 0 };
        one->n = one->kernels = 1;
        return one;
    }
    GString *text = g_string_new(NULL);
    if (!sim_read_regular(file, SASS_LIST_MAX, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, text,
                          error)) {
        g_string_free(text, TRUE);
        g_free(file);
        return NULL;
    }
    SassList *l = g_new0(SassList, 1);
    l->path = file;
    char *dir = g_path_get_dirname(file);
    GArray *e = g_array_new(FALSE, TRUE, sizeof(SassListEntry));
    char *p = text->str;
    uint64_t line = 0;
    bool ok = true;
    while (ok && p < text->str + text->len) {
        char *nl = strchr(p, '\n');
        char *end = nl ? nl : text->str + text->len;
        *end = '\0';
        line++;
        if (end > p && end[-1] == '\r')
            end[-1] = '\0';
        char *s = g_strstrip(p);
        p = end + 1;
        if (!*s)
            continue;
        SassListEntry en = { .line = line };
        if (g_str_has_prefix(s, "MemcpyHtoD,")) {
            char **parts = g_strsplit(s, ",", -1);
            uint64_t a, n;
            if (g_strv_length(parts) != 3 || !parse_hex(g_strstrip(parts[1]), &a) ||
                !parse_udec(g_strstrip(parts[2]), UINT64_MAX, &n)) {
                ok = list_err(error, file, line, 1, "expected MemcpyHtoD,0xADDRESS,BYTES",
                              ARCHSIM_EXIT_DATAERR);
            }
            g_strfreev(parts);
            if (ok && n > 0 && n - 1 > UINT64_MAX - a) {     /* its last byte past 2^64 - 1 */
                char *m = g_strdup_printf("MemcpyHtoD: %" G_GUINT64_FORMAT " bytes at 0x%"
                                          G_GINT64_MODIFIER "x run past the 64-bit address space",
                                          n, a);
                ok = list_err(error, file, line, 1, m, ARCHSIM_EXIT_DATAERR);
                g_free(m);
            }
            if (!ok)
                break;
            en.kind = SASS_LIST_MEMCPY;
            en.addr = a;
            en.bytes = n;
        } else if (g_str_has_prefix(s, "kernel")) {
            en.kind = SASS_LIST_KERNEL;
            char *full = g_path_is_absolute(s) ? g_strdup(s) : g_build_filename(dir, s, NULL);
            if (!g_file_test(full, G_FILE_TEST_EXISTS)) {
                char *xz = g_strconcat(full, ".xz", NULL), *gz = g_strconcat(full, ".gz", NULL);
                if (g_file_test(xz, G_FILE_TEST_EXISTS)) {
                    g_free(full);
                    full = xz;
                    xz = NULL;
                } else if (g_file_test(gz, G_FILE_TEST_EXISTS)) {
                    g_free(full);
                    full = gz;
                    gz = NULL;
                }
                g_free(xz);
                g_free(gz);
            }
            if (!g_file_test(full, G_FILE_TEST_EXISTS)) {
                char *m = g_strdup_printf("%s: no such trace (nor with .xz or .gz added)", full);
                ok = list_err(error, file, line, 1, m, ARCHSIM_EXIT_NOINPUT);
                g_free(m);
                g_free(full);
                break;
            }
            en.path = full;
            l->kernels++;
        } else {
            continue;   /* other lines are ignored, as Accel-Sim does */
        }
        g_array_append_val(e, en);
    }
    g_free(dir);
    g_string_free(text, TRUE);
    l->n = e->len;
    l->e = (SassListEntry *)(void *)g_array_free(e, FALSE);
    if (!ok) {
        sass_list_free(l);
        return NULL;
    }
    if (l->kernels == 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: lists no kernel (lines 'kernel-N.traceg')", file);
        sass_list_free(l);
        return NULL;
    }
    return l;
}
