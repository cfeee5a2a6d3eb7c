/* ptx.c: the PTX parser (ptx.h). A hand-written scanner and recursive reader over the whole
 * file in memory (at most PTX_MAX_BYTES): module directives, entries with their parameters,
 * register and array declarations, labels and instructions with their modifiers and operands;
 * then, per entry, labels resolved and each branch's reconvergence point (its immediate
 * post-dominator) worked out for the SIMT stack. Grammar: NVIDIA, "Parallel Thread Execution ISA"
 * 9.0, chapters 4 (syntax), 5 (state spaces, types, variables), 9 (instructions), 10 (special
 * registers).
 */
#include "ptx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/input.h"

struct Ent;

typedef struct {
    const char *path;
    const char *s, *end, *p;
    uint32_t line;
    const char *line_start;
    PtxModule *m;
    GHashTable *sym_index;      /* name -> index + 1 */
    GHashTable *funcs;          /* name -> FuncDef: the file's .func definitions */
    struct Ent *en;             /* the entry being read (its scoped names), or NULL */
    uint32_t uniq;              /* numbers the inlined copies and scoped symbols */
    uint64_t copied;            /* bytes of function bodies read again at calls */
    GError **error;
    bool failed;
} P;

static G_GNUC_PRINTF(3, 4) bool perr(P *p, const char *at, const char *fmt, ...)
{
    if (p->failed)
        return false;
    /* line and column of at (at is at or after the current line's start, or earlier) */
    uint32_t line = 1;
    const char *ls = p->s;
    for (const char *q = p->s; q < at && q < p->end; q++)
        if (*q == '\n') {
            line++;
            ls = q + 1;
        }
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(p->error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%u:%u: %s", p->path,
                line, (uint32_t)(at - ls) + 1, msg);
    g_free(msg);
    p->failed = true;
    return false;
}

/* ---- scanning ---- */

static void skip_ws(P *p)
{
    for (;;) {
        while (p->p < p->end && (*p->p == ' ' || *p->p == '\t' || *p->p == '\r' || *p->p == '\n'))
            p->p++;
        if (p->p + 1 < p->end && p->p[0] == '/' && p->p[1] == '/') {
            while (p->p < p->end && *p->p != '\n')
                p->p++;
            continue;
        }
        if (p->p + 1 < p->end && p->p[0] == '/' && p->p[1] == '*') {
            const char *c = p->p;
            p->p += 2;
            while (p->p + 1 < p->end && !(p->p[0] == '*' && p->p[1] == '/'))
                p->p++;
            if (p->p + 1 >= p->end) {
                perr(p, c, "a comment that is never closed (no */)");
                p->p = p->end;
                return;
            }
            p->p += 2;
            continue;
        }
        return;
    }
}

static bool at_end(P *p)
{
    skip_ws(p);
    return p->p >= p->end;
}

static bool ident_start(char c)
{
    return g_ascii_isalpha(c) || c == '_' || c == '$' || c == '%' || c == '.';
}
static bool ident_char(char c) { return g_ascii_isalnum(c) || c == '_' || c == '$'; }

/* An identifier: [%.$_a-zA-Z][a-zA-Z0-9_$]* (a leading '.' or '%' is part of it). Returns its
 * length, 0 if none is here. */
static size_t peek_ident(P *p)
{
    skip_ws(p);
    const char *q = p->p;
    if (q >= p->end || !ident_start(*q))
        return 0;
    q++;
    while (q < p->end && ident_char(*q))
        q++;
    return (size_t)(q - p->p);
}

static bool accept(P *p, char c)
{
    skip_ws(p);
    if (p->p < p->end && *p->p == c) {
        p->p++;
        return true;
    }
    return false;
}

static bool expect(P *p, char c, const char *what)
{
    if (accept(p, c))
        return true;
    const char *at = p->p;
    if (at >= p->end)
        return perr(p, p->end, "the file ends where %s ('%c') should be", what, c);
    return perr(p, at, "expected %s ('%c'), got '%.*s'", what, c, (int)MIN((size_t)20,
                strcspn(at, " \t\r\n")), at);
}

static bool word_is(P *p, const char *w)
{
    size_t n = peek_ident(p);
    return n == strlen(w) && memcmp(p->p, w, n) == 0;
}

static bool accept_word(P *p, const char *w)
{
    if (!word_is(p, w))
        return false;
    p->p += strlen(w);
    return true;
}

/* A decimal, 0x hex, 0b binary or 0-led octal number (PTX ISA 4.5.1, as ptxas reads them: 010
 * is 8; with an optional '-'), as an unsigned 64-bit value. */
static bool parse_int(P *p, int64_t *v)
{
    skip_ws(p);
    const char *at = p->p;
    bool neg = false;
    if (p->p < p->end && (*p->p == '-' || *p->p == '+')) {
        neg = *p->p == '-';
        p->p++;
    }
    uint64_t x = 0;
    int digits = 0;
    if (p->p + 1 < p->end && p->p[0] == '0' && (p->p[1] == 'x' || p->p[1] == 'X')) {
        p->p += 2;
        while (p->p < p->end && g_ascii_isxdigit(*p->p)) {
            if (digits++ == 16)
                return perr(p, at, "a hex number of more than 16 digits");
            x = x << 4 | (uint64_t)g_ascii_xdigit_value(*p->p++);
        }
    } else if (p->p + 1 < p->end && p->p[0] == '0' && (p->p[1] == 'b' || p->p[1] == 'B')) {
        p->p += 2;
        while (p->p < p->end && (*p->p == '0' || *p->p == '1')) {
            if (digits++ == 64)
                return perr(p, at, "a binary number of more than 64 digits");
            x = x << 1 | (uint64_t)(*p->p++ - '0');
        }
    } else {
        unsigned radix = p->p + 1 < p->end && p->p[0] == '0' && g_ascii_isdigit(p->p[1]) ? 8 : 10;
        while (p->p < p->end && g_ascii_isdigit(*p->p)) {
            uint64_t d = (uint64_t)(*p->p - '0');
            if (d >= radix)
                return perr(p, p->p, "'%c' in an octal number (a number led by 0 is octal)",
                            *p->p);
            p->p++;
            if (x > (UINT64_MAX - d) / radix)
                return perr(p, at, "a number that does not fit in 64 bits");
            x = x * radix + d;
            digits++;
        }
    }
    if (digits == 0) {
        p->p = at;
        return perr(p, at, "expected a number");
    }
    if (p->p < p->end && *p->p == 'U')  /* 10U: an unsigned literal */
        p->p++;
    if (p->p < p->end && ident_char(*p->p))
        return perr(p, at, "'%.*s' is not a number", (int)MIN((size_t)20, strcspn(at, " \t\r\n,;]")),
                    at);
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

/* ---- types and symbols ---- */

static const char *const type_names[PTX_T_COUNT] = {
    [PTX_T_NONE] = "", [PTX_T_PRED] = "pred", [PTX_T_B8] = "b8", [PTX_T_B16] = "b16",
    [PTX_T_B32] = "b32", [PTX_T_B64] = "b64", [PTX_T_U8] = "u8", [PTX_T_U16] = "u16",
    [PTX_T_U32] = "u32", [PTX_T_U64] = "u64", [PTX_T_S8] = "s8", [PTX_T_S16] = "s16",
    [PTX_T_S32] = "s32", [PTX_T_S64] = "s64", [PTX_T_F16] = "f16", [PTX_T_F16X2] = "f16x2", [PTX_T_BF16] = "bf16",
    [PTX_T_BF16X2] = "bf16x2", [PTX_T_F32] = "f32",
    [PTX_T_F64] = "f64",
};

const char *ptx_type_name(PtxType t) { return t < PTX_T_COUNT ? type_names[t] : "?"; }

uint32_t ptx_type_bytes(PtxType t)
{
    switch (t) {
    case PTX_T_B8: case PTX_T_U8: case PTX_T_S8:
        return 1;
    case PTX_T_B16: case PTX_T_U16: case PTX_T_S16: case PTX_T_F16: case PTX_T_BF16:
        return 2;
    case PTX_T_B32: case PTX_T_U32: case PTX_T_S32: case PTX_T_F32: case PTX_T_F16X2:
    case PTX_T_BF16X2:
        return 4;
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64: case PTX_T_F64:
        return 8;
    default:
        return 0;
    }
}

/* Whether a register of type r may be an operand of an instruction of type i (PTX ISA 5.5.1,
 * "Operand type checking"): the same size, and a bit type on either side, or both integers
 * (signed or not), or both floats; predicates only where the instruction's type is .pred. */
static bool reg_fits(PtxType i, PtxType r)
{
    if (i == PTX_T_PRED || r == PTX_T_PRED)
        return i == r;
    if (ptx_type_bytes(i) != ptx_type_bytes(r))
        return false;
    bool ib = i == PTX_T_B8 || i == PTX_T_B16 || i == PTX_T_B32 || i == PTX_T_B64;
    bool rb = r == PTX_T_B8 || r == PTX_T_B16 || r == PTX_T_B32 || r == PTX_T_B64;
    bool fi = i == PTX_T_F16 || i == PTX_T_F32 || i == PTX_T_F64 || i == PTX_T_F16X2 ||
              i == PTX_T_BF16 || i == PTX_T_BF16X2;
    bool fr = r == PTX_T_F16 || r == PTX_T_F32 || r == PTX_T_F64 || r == PTX_T_F16X2 ||
              r == PTX_T_BF16 || r == PTX_T_BF16X2;
    return ib || rb || fi == fr;
}

static PtxType type_of(const char *w, size_t n)
{
    for (int t = PTX_T_PRED; t < PTX_T_COUNT; t++)
        if (strlen(type_names[t]) == n && memcmp(type_names[t], w, n) == 0)
            return (PtxType)t;
    return PTX_T_NONE;
}

static const char *const op_names[PTX_OP_COUNT] = {
    [PTX_OP_LD] = "ld", [PTX_OP_ST] = "st", [PTX_OP_MOV] = "mov", [PTX_OP_CVTA] = "cvta",
    [PTX_OP_CVT] = "cvt", [PTX_OP_ADD] = "add", [PTX_OP_SUB] = "sub", [PTX_OP_MUL] = "mul",
    [PTX_OP_MAD] = "mad", [PTX_OP_FMA] = "fma", [PTX_OP_DIV] = "div", [PTX_OP_REM] = "rem",
    [PTX_OP_ABS] = "abs", [PTX_OP_NEG] = "neg", [PTX_OP_MIN] = "min", [PTX_OP_MAX] = "max",
    [PTX_OP_AND] = "and", [PTX_OP_OR] = "or", [PTX_OP_XOR] = "xor", [PTX_OP_NOT] = "not",
    [PTX_OP_SHL] = "shl", [PTX_OP_SHR] = "shr", [PTX_OP_POPC] = "popc", [PTX_OP_CLZ] = "clz",
    [PTX_OP_BREV] = "brev", [PTX_OP_BFE] = "bfe", [PTX_OP_SETP] = "setp", [PTX_OP_SELP] = "selp",
    [PTX_OP_EX2] = "ex2", [PTX_OP_LG2] = "lg2", [PTX_OP_RCP] = "rcp", [PTX_OP_SQRT] = "sqrt",
    [PTX_OP_RSQRT] = "rsqrt", [PTX_OP_SIN] = "sin", [PTX_OP_COS] = "cos", [PTX_OP_BRA] = "bra",
    [PTX_OP_RET] = "ret", [PTX_OP_EXIT] = "exit", [PTX_OP_BAR] = "bar",
    [PTX_OP_BAR_WARP] = "bar.warp", [PTX_OP_MEMBAR] = "membar", [PTX_OP_ATOM] = "atom",
    [PTX_OP_RED] = "red", [PTX_OP_SHFL] = "shfl", [PTX_OP_VOTE] = "vote",
    [PTX_OP_ACTIVEMASK] = "activemask", [PTX_OP_BFI] = "bfi", [PTX_OP_PRMT] = "prmt",
    [PTX_OP_LOP3] = "lop3", [PTX_OP_SHF] = "shf", [PTX_OP_COPYSIGN] = "copysign", [PTX_OP_SET] = "set", [PTX_OP_BFIND] = "bfind",
    [PTX_OP_REDUX] = "redux", [PTX_OP_SAD] = "sad", [PTX_OP_DP4A] = "dp4a",
    [PTX_OP_WMMA_LD] = "wmma.load", [PTX_OP_WMMA_ST] = "wmma.store", [PTX_OP_WMMA_MMA] = "wmma.mma",
    [PTX_OP_CP_ASYNC] = "cp.async", [PTX_OP_CP_COMMIT] = "cp.async.commit_group",
    [PTX_OP_CP_WAIT] = "cp.async.wait_group", [PTX_OP_TRAP] = "trap", [PTX_OP_MMA] = "mma",
    [PTX_OP_LDMATRIX] = "ldmatrix", [PTX_OP_HOSTCALL] = "call", [PTX_OP_MATCH] = "match",
    [PTX_OP_NANOSLEEP] = "nanosleep", [PTX_OP_DP2A] = "dp2a", [PTX_OP_VABSDIFF] = "vabsdiff",
};

const char *ptx_op_name(PtxOp op) { return op < PTX_OP_COUNT ? op_names[op] : "?"; }

static GHashTable *ent_alias(const struct Ent *en);

static int sym_find(P *p, const char *name, size_t n)
{
    char *k = g_strndup(name, n);
    gpointer v = p->en ? g_hash_table_lookup(ent_alias(p->en), k) : NULL;
    if (!v)
        v = g_hash_table_lookup(p->sym_index, k);
    g_free(k);
    return v ? (int)GPOINTER_TO_UINT(v) - 1 : -1;
}

static int sym_add(P *p, const char *at, const char *name, size_t n, PtxSym sym)
{
    if (sym_find(p, name, n) >= 0) {
        perr(p, at, "'%.*s' is declared twice", (int)n, name);
        g_free(sym.init);
        return -1;
    }
    sym.name = g_strndup(name, n);
    g_array_append_val(p->m->syms, sym);
    int i = (int)p->m->syms->len - 1;
    g_hash_table_insert(p->sym_index, g_strdup(sym.name), GUINT_TO_POINTER((guint)i + 1));
    return i;
}

static bool parse_imm(P *p, PtxArg *a);

/* `= v` or `= {v, v, ...}` of a .global/.const variable of `count` elements of type t (count 0:
 * an array declared `[]`, sized by its list): integers, or 0f/0d bits for 4- and 8-byte
 * elements; fewer values than elements leave the rest zero (PTX ISA 5.4.4). *bytes gets the
 * variable's bytes, *count the element count. */
static bool parse_init(P *p, PtxType t, bool is_array, uint64_t *count, uint8_t **bytes)
{
    size_t eb = ptx_type_bytes(t);
    GByteArray *v = g_byte_array_new();
    skip_ws(p);
    const char *list = p->p;
    bool braces = accept(p, '{'), ok = false;
    for (;;) {
        skip_ws(p);
        const char *at = p->p;
        if (p->p < p->end && *p->p == '{') {
            perr(p, at, "nested { } initialisers (arrays of arrays) are not in archsim's PTX subset");
            goto out;
        }
        if (p->p < p->end && !g_ascii_isdigit(*p->p) && *p->p != '-' && *p->p != '+') {
            perr(p, at, "an initialiser that is not a number (a variable's address, generic(...)) "
                 "is not in archsim's PTX subset");
            goto out;
        }
        bool fbits = p->p + 1 < p->end && p->p[0] == '0' && (p->p[1] == 'f' || p->p[1] == 'F'),
             dbits = p->p + 1 < p->end && p->p[0] == '0' && (p->p[1] == 'd' || p->p[1] == 'D');
        PtxArg a;
        if (!parse_imm(p, &a))
            goto out;
        /* as ptxas takes them: .f32 and .f64 a 0f or 0d value (converted to the element's
         * precision), .b32 0f bits, .b64 0d bits, the integer types integers */
        bool fl = t == PTX_T_F32 || t == PTX_T_F64;
        bool bit = t == PTX_T_B16 || t == PTX_T_B32 || t == PTX_T_B64;
        if (((fbits || dbits) && !(fl || bit)) || (dbits && eb < 4) || (fl && !fbits && !dbits) ||
            t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2) {
            perr(p, at, "an initial value of the wrong type for a .%s element (ptxas: 0f or 0d for "
                 ".f32, .f64 and the bit types, integers for the integer types; none for 16-bit "
                 "floats)", type_names[t]);
            goto out;
        }
        /* as ptxas stores them: 0f's bits cut or zero-extended to the element, 0d's bits in 8
         * bytes and its value rounded to a float in 4 */
        if (fbits) {
            a.imm = (int64_t)(uint32_t)a.imm;
        } else if (dbits && eb == 4) {      /* a double's value rounded to a float */
            double d;
            memcpy(&d, &a.imm, 8);
            float f = (float)d;
            uint32_t u;
            memcpy(&u, &f, 4);
            a.imm = u;
        }
        if ((*count && v->len / eb == *count) || v->len + eb > PTX_MAX_ARRAY) {
            perr(p, at, "more values than the %" G_GUINT64_FORMAT " elements of the array",
                 *count ? *count : PTX_MAX_ARRAY / eb);
            goto out;
        }
        uint64_t x = (uint64_t)a.imm;
        uint8_t le[8];
        for (size_t i = 0; i < eb; i++)
            le[i] = (uint8_t)(x >> (8 * i));
        g_byte_array_append(v, le, (guint)eb);
        if (!braces || !accept(p, ','))
            break;
    }
    if (braces && !expect(p, '}', "the '}' that closes the initialiser"))
        goto out;
    if (braces && *count == 1 && !is_array) {
        perr(p, list, "a scalar's initialiser is a value, not a list in braces");
        goto out;
    }
    if (*count == 0)
        *count = v->len / eb;
    if (!braces && *count != 1) {
        perr(p, p->p, "an array's initialiser is a list in braces: {v, v, ...}");
        goto out;
    }
    *bytes = g_malloc0(*count * eb);
    memcpy(*bytes, v->data, v->len);
    ok = true;
out:
    g_byte_array_free(v, TRUE);
    return ok;
}

/* `[.align N] .TYPE name[N] [= {...}]` after a state space; *sym gets the declaration. */
static bool parse_array_decl(P *p, PtxSpace space, bool is_extern, PtxSym *sym, const char **name,
                             size_t *nlen)
{
    uint64_t align = 0;
    PtxType t = PTX_T_NONE;
    for (;;) {
        size_t n = peek_ident(p);
        if (n == 0 || p->p[0] != '.')
            break;
        if (n == 6 && memcmp(p->p, ".align", 6) == 0) {
            p->p += 6;
            int64_t a;
            if (!parse_int(p, &a))
                return false;
            if (a < 1 || a > 4096 || (a & (a - 1)))
                return perr(p, p->p, ".align %" G_GINT64_FORMAT ": expected a power of two up to "
                            "4096", a);
            align = (uint64_t)a;
            continue;
        }
        PtxType tt = type_of(p->p + 1, n - 1);
        if (tt == PTX_T_NONE || tt == PTX_T_PRED)
            return perr(p, p->p, "'%.*s' is not a type archsim's PTX subset declares arrays of",
                        (int)n, p->p);
        t = tt;
        p->p += n;
    }
    if (t == PTX_T_NONE)
        return perr(p, p->p, "expected the element type (.b8, .u32, .f32, ...)");
    size_t n = peek_ident(p);
    if (n == 0 || p->p[0] == '.' || p->p[0] == '%')
        return perr(p, p->p, "expected the variable's name");
    *name = p->p;
    *nlen = n;
    p->p += n;
    uint64_t count = 1;
    bool dynamic = false, is_array = false;
    if (accept(p, '[')) {
        is_array = true;
        if (accept(p, ']')) {
            skip_ws(p);
            bool sized_by_init = p->p < p->end && *p->p == '=' && !is_extern &&
                                 (space == PTX_SPACE_GLOBAL || space == PTX_SPACE_CONST);
            if (!(is_extern && space == PTX_SPACE_SHARED) && !sized_by_init)
                return perr(p, p->p, "an array without a size (only `.extern .shared` may have "
                            "one: the launch's dynamic shared memory)");
            dynamic = !sized_by_init;
            count = 0;
        } else {
            const char *at = p->p;
            int64_t c;
            if (!parse_int(p, &c) || !expect(p, ']', "the array's closing bracket"))
                return false;
            if (c < 1 || (uint64_t)c * ptx_type_bytes(t) > PTX_MAX_ARRAY)
                return perr(p, at, "array of %" G_GINT64_FORMAT " elements: expected 1 to %"
                            G_GUINT64_FORMAT " bytes", c, PTX_MAX_ARRAY);
            count = (uint64_t)c;
        }
    }
    skip_ws(p);
    uint8_t *init = NULL;
    if (p->p < p->end && *p->p == '=') {
        if (is_extern || (space != PTX_SPACE_GLOBAL && space != PTX_SPACE_CONST))
            return perr(p, p->p, "only .global and .const variables take an initialiser");
        p->p++;
        if (!parse_init(p, t, is_array, &count, &init))
            return false;
    }
    *sym = (PtxSym){ .space = space, .size = count * ptx_type_bytes(t),
                     .align = align ? align : ptx_type_bytes(t), .dynamic = dynamic,
                     .type = (uint8_t)t, .init = init };
    return true;
}

/* ---- registers ---- */

/* A .func being inlined at a call (calls are expanded in place: archsim's SIMT stack has no
 * call frames, and nvcc's functions do not recurse) */
typedef struct Inl Inl;
struct Inl {
    const char *fname;
    char suffix[16];            /* "\x01N": appended to its labels, one set per copy */
    char *ret_label;            /* where its ret goes */
    Inl *up;                    /* the copy it was called from */
    uint32_t depth;
};

typedef struct Ent {
    PtxEntry *e;
    GHashTable *reg_index;      /* name -> index + 1, as seen in the current { } scope */
    /* per open { } scope, the names it declared and what each hid: RegShadow (nvcc declares a
     * temporary such as %tmp in several blocks of one kernel; a call's .param arguments and an
     * inlined function's formals and arrays are scoped the same way) */
    GPtrArray *scopes;
    GHashTable *labels;         /* name -> instruction index + 1 */
    GArray *fixups;             /* Fixup: labels used before their definition */
    GHashTable *sym_alias;      /* scoped symbol name -> module symbol index + 1 */
    Inl *inl;                   /* the function being inlined, NULL in the entry's own body */
} Ent;

typedef struct {
    uint32_t inst, arg;
    char *name;
    const char *at;
} Fixup;

static GHashTable *ent_alias(const struct Ent *en) { return en->sym_alias; }

/* A label's name as this copy of the code knows it: inside an inlined function, with the copy's
 * suffix (each copy has its own labels). */
static char *label_name(const Ent *en, const char *name, size_t n)
{
    return en->inl ? g_strdup_printf("%.*s%s", (int)n, name, en->inl->suffix) : g_strndup(name, n);
}

typedef struct {
    char *name;
    gpointer hidden;            /* the outer declaration's value, NULL none */
    bool sym;                   /* a symbol alias (sym_alias), else a register (reg_index) */
} RegShadow;

static void scope_push(Ent *en)
{
    g_ptr_array_add(en->scopes, g_array_new(FALSE, FALSE, sizeof(RegShadow)));
}

/* The scope's names go out of sight; what they hid comes back. */
static void scope_pop(Ent *en)
{
    GArray *sc = g_ptr_array_steal_index(en->scopes, en->scopes->len - 1);
    for (guint i = sc->len; i-- > 0;) {
        RegShadow *r = &g_array_index(sc, RegShadow, i);
        GHashTable *h = r->sym ? en->sym_alias : en->reg_index;
        if (r->hidden)
            g_hash_table_replace(h, g_strdup(r->name), r->hidden);
        else
            g_hash_table_remove(h, r->name);
        g_free(r->name);
    }
    g_array_free(sc, TRUE);
}

/* Whether name was declared in the innermost open scope (a register, or a symbol alias). */
static bool scope_has_kind(const Ent *en, const char *name, bool sym)
{
    if (en->scopes->len == 0)
        return false;
    const GArray *sc = g_ptr_array_index(en->scopes, en->scopes->len - 1);
    for (guint i = 0; i < sc->len; i++)
        if (g_array_index(sc, RegShadow, i).sym == sym &&
            strcmp(g_array_index(sc, RegShadow, i).name, name) == 0)
            return true;
    return false;
}
static bool scope_has(const Ent *en, const char *name) { return scope_has_kind(en, name, false); }

/* name stands for module symbol idx until the innermost scope closes. */
static void alias_add(Ent *en, const char *name, size_t n, int idx)
{
    char *k = g_strndup(name, n);
    gpointer old = g_hash_table_lookup(en->sym_alias, k);
    RegShadow r = { .name = g_strdup(k), .hidden = old, .sym = true };
    g_array_append_val(g_ptr_array_index(en->scopes, en->scopes->len - 1), r);
    g_hash_table_replace(en->sym_alias, k, GUINT_TO_POINTER((guint)idx + 1));
}

static bool reg_decl(P *p, Ent *en)
{
    /* .reg .TYPE %a, %b<N>, ... ; (an optional .v2/.v4 is refused) */
    size_t n = peek_ident(p);
    if (n == 0 || p->p[0] != '.')
        return perr(p, p->p, "expected the registers' type after .reg");
    PtxType t = type_of(p->p + 1, n - 1);
    if (t == PTX_T_NONE)
        return perr(p, p->p, "'%.*s' is not a register type", (int)n, p->p);
    p->p += n;
    do {
        size_t k = peek_ident(p);
        if (k == 0 || p->p[0] == '.')       /* %name, or a plain identifier (__$temp3) */
            return perr(p, p->p, "expected a register name (%%name)");
        const char *name = p->p, *at = p->p;
        p->p += k;
        int64_t count = -1;
        if (accept(p, '<')) {
            if (!parse_int(p, &count) || !expect(p, '>', "the register count's '>'"))
                return false;
            if (count < 1 || count > PTX_MAX_REGS)
                return perr(p, at, "%%%.*s<%" G_GINT64_FORMAT ">: expected 1 to %d registers",
                            (int)k - 1, name + 1, count, PTX_MAX_REGS);
        }
        if (en->e->regs->len + (uint64_t)(count < 0 ? 1 : count) > PTX_MAX_REGS)
            return perr(p, at, "more than %d registers in one kernel", PTX_MAX_REGS);
        for (int64_t i = 0; i < (count < 0 ? 1 : count); i++) {
            char *full = count < 0 ? g_strndup(name, k)
                                   : g_strdup_printf("%.*s%" G_GINT64_FORMAT, (int)k, name, i);
            if (scope_has(en, full)) {
                perr(p, at, "register %s is declared twice", full);
                g_free(full);
                return false;
            }
            /* a name of an outer scope is hidden until this scope closes (scope_pop) */
            gpointer hidden = g_hash_table_lookup(en->reg_index, full);
            RegShadow sh = { g_strdup(full), hidden, false };
            g_array_append_val(g_ptr_array_index(en->scopes, en->scopes->len - 1), sh);
            PtxReg r = { .name = full, .type = (uint8_t)t };
            g_array_append_val(en->e->regs, r);
            g_hash_table_replace(en->reg_index, g_strdup(full), GUINT_TO_POINTER(en->e->regs->len));
        }
    } while (accept(p, ','));
    return expect(p, ';', "the ';' after the declaration");
}

/* ---- operands ---- */

static const struct { const char *name; PtxSreg sr; } sregs[] = {
    { "%tid.x", PTX_SR_TID_X }, { "%tid.y", PTX_SR_TID_Y }, { "%tid.z", PTX_SR_TID_Z },
    { "%ntid.x", PTX_SR_NTID_X }, { "%ntid.y", PTX_SR_NTID_Y }, { "%ntid.z", PTX_SR_NTID_Z },
    { "%ctaid.x", PTX_SR_CTAID_X }, { "%ctaid.y", PTX_SR_CTAID_Y },
    { "%ctaid.z", PTX_SR_CTAID_Z }, { "%nctaid.x", PTX_SR_NCTAID_X },
    { "%nctaid.y", PTX_SR_NCTAID_Y }, { "%nctaid.z", PTX_SR_NCTAID_Z },
    { "%laneid", PTX_SR_LANEID }, { "%warpid", PTX_SR_WARPID }, { "%nwarpid", PTX_SR_NWARPID },
    { "%smid", PTX_SR_SMID }, { "%lanemask_eq", PTX_SR_LANEMASK_EQ },
    { "%lanemask_lt", PTX_SR_LANEMASK_LT }, { "%lanemask_le", PTX_SR_LANEMASK_LE },
    { "%lanemask_gt", PTX_SR_LANEMASK_GT }, { "%lanemask_ge", PTX_SR_LANEMASK_GE },
    { "%clock", PTX_SR_CLOCK }, { "%clock64", PTX_SR_CLOCK64 },
    { "%globaltimer", PTX_SR_GLOBALTIMER }, { "%globaltimer_lo", PTX_SR_GLOBALTIMER_LO },
    { "%globaltimer_hi", PTX_SR_GLOBALTIMER_HI },
};

/* A register by name (at p->p, length n): its index, or -1 with the error set. */
/* Whether the n characters at s name a register in sight (nvcc names some without '%'). */
static bool reg_named(const Ent *en, const char *s, size_t n)
{
    char *k = g_strndup(s, n);
    bool yes = g_hash_table_contains(en->reg_index, k);
    g_free(k);
    return yes;
}

static int reg_ref(P *p, Ent *en, size_t n)
{
    char *k = g_strndup(p->p, n);
    gpointer v = g_hash_table_lookup(en->reg_index, k);
    g_free(k);
    if (!v) {
        perr(p, p->p, "register %.*s is not declared (a .reg line declares it)", (int)n, p->p);
        return -1;
    }
    p->p += n;
    return (int)GPOINTER_TO_UINT(v) - 1;
}

/* %name, or a special register %tid.x ...; *sreg >= 0 for the latter */
static bool reg_or_sreg(P *p, Ent *en, PtxArg *a)
{
    size_t n = peek_ident(p);
    const char *q = p->p;
    /* special registers carry a .x/.y/.z suffix the identifier scan stops before */
    size_t full = n;
    if (q + n < p->end && q[n] == '.' && q + n + 1 < p->end && g_ascii_isalpha(q[n + 1]))
        full = n + 2;
    for (size_t i = 0; i < G_N_ELEMENTS(sregs); i++) {
        size_t l = strlen(sregs[i].name);
        if ((l == full || l == n) && memcmp(sregs[i].name, q, l) == 0 &&
            (q + l >= p->end || !ident_char(q[l]))) {
            a->kind = PTX_A_SREG;
            a->reg = sregs[i].sr;
            p->p += l;
            return true;
        }
    }
    int r = reg_ref(p, en, n);
    if (r < 0)
        return false;
    a->kind = PTX_A_REG;
    a->reg = r;
    return true;
}

/* 0fXXXXXXXX (f32 bits), 0dXXXXXXXXXXXXXXXX (f64 bits), or an integer */
static bool parse_imm(P *p, PtxArg *a)
{
    skip_ws(p);
    const char *q = p->p;
    if (q + 2 <= p->end && q[0] == '0' && (q[1] == 'f' || q[1] == 'F' || q[1] == 'd' || q[1] == 'D')) {
        int want = (q[1] == 'f' || q[1] == 'F') ? 8 : 16;
        uint64_t x = 0;
        int i = 0;
        for (; i < want && q + 2 + i < p->end && g_ascii_isxdigit(q[2 + i]); i++)
            x = x << 4 | (uint64_t)g_ascii_xdigit_value(q[2 + i]);
        if (i != want || (q + 2 + i < p->end && ident_char(q[2 + i])))
            return perr(p, q, "a %s literal needs exactly %d hex digits after 0%c",
                        want == 8 ? "float" : "double", want, q[1]);
        p->p = q + 2 + want;
        a->kind = PTX_A_IMM;
        a->lit = want == 8 ? PTX_LIT_F : PTX_LIT_D;
        a->imm = (int64_t)x;
        return true;
    }
    if (q < p->end && (g_ascii_isdigit(*q) || *q == '-' || *q == '+')) {
        /* a decimal float such as 1.0 is not what nvcc writes, and not read */
        const char *r = q + (*q == '-' || *q == '+');
        while (r < p->end && g_ascii_isdigit(*r))
            r++;
        if (r < p->end && (*r == '.' || *r == 'e' || *r == 'E') && !(r[0] == '.' && r == q))
            return perr(p, q, "a decimal floating-point literal: write it as 0f (f32) or 0d "
                        "(f64) and its hex bits, as nvcc does");
        a->kind = PTX_A_IMM;
        return parse_int(p, &a->imm);
    }
    return perr(p, q, "expected an operand");
}

static bool parse_operand(P *p, Ent *en, uint32_t inst, uint32_t argi, PtxArg *a)
{
    memset(a, 0, sizeof *a);
    a->reg = a->sym = -1;
    skip_ws(p);
    if (p->p >= p->end)
        return perr(p, p->end, "the file ends inside an instruction");
    char c = *p->p;
    if (c == '[') {
        p->p++;
        a->kind = PTX_A_ADDR;
        skip_ws(p);
        size_t n = peek_ident(p);
        if (n > 0 && (p->p[0] == '%' || reg_named(en, p->p, n))) {
            int r = reg_ref(p, en, n);
            if (r < 0)
                return false;
            a->reg = r;
        } else if (n > 0) {
            int s = sym_find(p, p->p, n);
            if (s < 0)
                return perr(p, p->p, "'%.*s' is not a declared variable or parameter", (int)n, p->p);
            a->sym = s;
            p->p += n;
        } else {
            if (!parse_int(p, &a->imm))
                return false;
            return expect(p, ']', "the address's ']'");
        }
        skip_ws(p);
        if (p->p < p->end && (*p->p == '+' || *p->p == '-')) {
            bool neg = *p->p == '-';
            p->p++;
            int64_t off;
            if (!parse_int(p, &off))
                return false;
            a->imm = neg ? -off : off;
        }
        return expect(p, ']', "the address's ']'");
    }
    if (c == '{') {
        p->p++;
        a->kind = PTX_A_VEC;
        do {
            if (a->n == PTX_MAX_VEC)
                return perr(p, p->p, "a vector of more than %d elements", PTX_MAX_VEC);
            skip_ws(p);
            if (p->p < p->end && *p->p == '_' && (p->p + 1 >= p->end || !ident_char(p->p[1]))) {
                p->p++;
                a->vec[a->n++] = -1;
                continue;
            }
            if (p->p < p->end && g_ascii_isdigit(*p->p)) {
                /* a zero packed into a register (cuda_bf16: mov.b32 %f1, {0, %rs2}): the same
                 * as '_', which a packed source reads as zero */
                const char *at = p->p;
                int64_t z;
                if (!parse_int(p, &z))
                    return false;
                if (z != 0)
                    return perr(p, at, "a vector element is a register, '_' or 0");
                a->zero = true;
                a->vec[a->n++] = -1;
                continue;
            }
            size_t n = peek_ident(p);
            if (n == 0 || (p->p[0] != '%' && !reg_named(en, p->p, n)))
                return perr(p, p->p, "expected a register in the vector");
            int r = reg_ref(p, en, n);
            if (r < 0)
                return false;
            a->vec[a->n++] = r;
        } while (accept(p, ','));
        return expect(p, '}', "the vector's '}'");
    }
    if (c == '!') {
        p->p++;
        a->neg = true;
        size_t n = peek_ident(p);
        if (n == 0 || (p->p[0] != '%' && !reg_named(en, p->p, n)))
            return perr(p, p->p, "expected a predicate register after '!'");
        a->kind = PTX_A_REG;
        a->reg = reg_ref(p, en, n);
        return a->reg >= 0;
    }
    if (c == '%')
        return reg_or_sreg(p, en, a);
    size_t n = peek_ident(p);
    if (n > 0 && c != '.' && reg_named(en, p->p, n)) {     /* a register named without '%' */
        a->kind = PTX_A_REG;
        a->reg = reg_ref(p, en, n);
        return a->reg >= 0;
    }
    if (n > 0 && c != '.') {
        /* a label (branches) or a variable's address */
        int s = sym_find(p, p->p, n);
        if (s >= 0) {
            a->kind = PTX_A_SYM;
            a->reg = s;
            p->p += n;
            return true;
        }
        a->kind = PTX_A_LABEL;
        char *name = label_name(en, p->p, n);
        gpointer v = g_hash_table_lookup(en->labels, name);
        if (v) {
            a->imm = (int64_t)GPOINTER_TO_UINT(v) - 1;
            g_free(name);
        } else {
            Fixup f = { .inst = inst, .arg = argi, .name = name, .at = p->p };
            g_array_append_val(en->fixups, f);
        }
        p->p += n;
        return true;
    }
    return parse_imm(p, a);
}

/* ---- instructions ---- */

/* The index of opcode text t (added when new), or -1 past PTX_MAX_TEXTS. */
static int intern_text(PtxModule *m, const char *t, size_t n)
{
    char *k = g_strndup(t, n);
    gpointer v = g_hash_table_lookup(m->text_index, k);
    if (v) {
        g_free(k);
        return (int)GPOINTER_TO_UINT(v) - 1;
    }
    if (m->texts->len >= PTX_MAX_TEXTS) {
        g_free(k);
        return -1;
    }
    g_ptr_array_add(m->texts, k);
    g_hash_table_insert(m->text_index, k, GUINT_TO_POINTER(m->texts->len));
    return (int)m->texts->len - 1;
}

static const struct { const char *name; PtxOp op; } base_ops[] = {
    { "ld", PTX_OP_LD }, { "ldu", PTX_OP_LD }, { "st", PTX_OP_ST }, { "mov", PTX_OP_MOV },
    { "cvta", PTX_OP_CVTA }, { "cvt", PTX_OP_CVT }, { "add", PTX_OP_ADD }, { "sub", PTX_OP_SUB },
    { "mul", PTX_OP_MUL }, { "mad", PTX_OP_MAD }, { "fma", PTX_OP_FMA }, { "div", PTX_OP_DIV },
    { "rem", PTX_OP_REM }, { "abs", PTX_OP_ABS }, { "neg", PTX_OP_NEG }, { "min", PTX_OP_MIN },
    { "max", PTX_OP_MAX }, { "and", PTX_OP_AND }, { "or", PTX_OP_OR }, { "xor", PTX_OP_XOR },
    { "not", PTX_OP_NOT }, { "shl", PTX_OP_SHL }, { "shr", PTX_OP_SHR }, { "popc", PTX_OP_POPC },
    { "clz", PTX_OP_CLZ }, { "brev", PTX_OP_BREV }, { "bfe", PTX_OP_BFE },
    { "setp", PTX_OP_SETP }, { "selp", PTX_OP_SELP }, { "ex2", PTX_OP_EX2 },
    { "lg2", PTX_OP_LG2 }, { "rcp", PTX_OP_RCP }, { "sqrt", PTX_OP_SQRT },
    { "rsqrt", PTX_OP_RSQRT }, { "sin", PTX_OP_SIN }, { "cos", PTX_OP_COS },
    { "bra", PTX_OP_BRA }, { "ret", PTX_OP_RET }, { "exit", PTX_OP_EXIT }, { "bar", PTX_OP_BAR },
    { "barrier", PTX_OP_BAR }, { "membar", PTX_OP_MEMBAR }, { "fence", PTX_OP_MEMBAR },
    { "atom", PTX_OP_ATOM }, { "red", PTX_OP_RED }, { "shfl", PTX_OP_SHFL },
    { "vote", PTX_OP_VOTE }, { "activemask", PTX_OP_ACTIVEMASK }, { "bfi", PTX_OP_BFI },
    { "prmt", PTX_OP_PRMT }, { "lop3", PTX_OP_LOP3 }, { "shf", PTX_OP_SHF },
    { "copysign", PTX_OP_COPYSIGN }, { "addc", PTX_OP_ADD }, { "subc", PTX_OP_SUB },
    { "madc", PTX_OP_MAD }, { "set", PTX_OP_SET }, { "bfind", PTX_OP_BFIND },
    { "redux", PTX_OP_REDUX }, { "sad", PTX_OP_SAD }, { "dp4a", PTX_OP_DP4A },
    { "wmma", PTX_OP_WMMA_LD },         /* wmma.load, .store or .mma: parse_wmma decides */
    { "cp", PTX_OP_CP_ASYNC },          /* cp.async and its groups: parse_cp decides */
    { "trap", PTX_OP_TRAP }, { "mma", PTX_OP_MMA }, { "ldmatrix", PTX_OP_LDMATRIX },
    { "match", PTX_OP_MATCH }, { "nanosleep", PTX_OP_NANOSLEEP }, { "dp2a", PTX_OP_DP2A },
    { "vabsdiff2", PTX_OP_VABSDIFF }, { "vabsdiff4", PTX_OP_VABSDIFF },
};

static const char *const cmp_names[] = {
    "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
    "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};
static const char *const atom_names[] = {
    "add", "min", "max", "inc", "dec", "cas", "exch", "and", "or", "xor",
};

static int name_in(const char *const *names, size_t count, const char *w, size_t n)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) == n && memcmp(names[i], w, n) == 0)
            return (int)i;
    return -1;
}

/* Modifiers an instruction may carry without changing what archsim computes: rounding of
 * float arithmetic (.rn, IEEE round to nearest, is what C does), cache and memory-order
 * qualifiers, .sync/.aligned, .full. */
static bool ignorable(const char *w, size_t n)
{
    static const char *const ok[] = {
        "rn", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile",
        "relaxed", "acquire", "release", "acq_rel", "sc", "weak", "cta", "gpu", "sys",
        "sync", "aligned", "full", "noftz", "gl", "L1::no_allocate", "L2::128B", "L2::64B",
        "L2::256B", "L1::evict_last", "L1::evict_first", "L1::evict_normal",
    };
    return name_in(ok, G_N_ELEMENTS(ok), w, n) >= 0;
}

/* The next modifier of an opcode that ends at q, from *m (at its '.'): *w and *n, *m past it;
 * false, with the error set, at a character that is not a '.'. */
static bool opcode_word(P *p, const char **m, const char *q, const char *op_at, size_t oplen,
                        const char **w, size_t *n)
{
    if (**m != '.')
        return perr(p, *m, "'%.*s': unexpected '%c' in the opcode", (int)oplen, op_at, **m);
    *w = ++*m;
    while (*m < q && **m != '.')
        ++*m;
    *n = (size_t)(*m - *w);
    return true;
}

/* For an instruction with a parser of its own (wmma, cp.async): its opcode text interned, then
 * at most max operands and the ';'. */
static bool own_operands(P *p, Ent *en, PtxInst *in, const char *op_at, size_t oplen,
                         const char *q, uint32_t max)
{
    p->p = q;
    int text = intern_text(p->m, op_at, oplen);
    if (text < 0)
        return perr(p, op_at, "more than %d distinct opcodes in one file", PTX_MAX_TEXTS);
    in->text = (uint16_t)text;
    uint32_t idx = en->e->insts->len;
    skip_ws(p);
    if (!(p->p < p->end && *p->p == ';')) {
        do {
            if (in->nargs == max)
                return perr(p, p->p, "'%.*s' takes at most %u operands", (int)oplen, op_at, max);
            if (!parse_operand(p, en, idx, in->nargs, &in->a[in->nargs]))
                return false;
            in->nargs++;
        } while (accept(p, ','));
    }
    return expect(p, ';', "the ';' that ends the instruction");
}

/* The registers of a matrix fragment (wmma, mma) operand d + 1 of in: each one .b32 or of type
 * alt (.f32 for f32 elements, .f16x2 for half pairs), as ptxas takes them; '_' (a sink) only in a
 * fragment the instruction writes. `are` names them in the message. */
static bool frag_check(P *p, const Ent *en, const PtxArg *a, uint32_t d, bool written, PtxType alt,
                       const char *are, const char *op_at, size_t oplen)
{
    for (uint32_t j = 0; j < a->n; j++) {
        if (a->vec[j] < 0 && !(written && !a->zero))
            return perr(p, op_at, "'%.*s': operand %u: every element of a fragment read is a "
                        "register", (int)oplen, op_at, d + 1);
        if (a->vec[j] < 0)
            continue;
        const PtxReg *rg = &g_array_index(en->e->regs, PtxReg, a->vec[j]);
        if (rg->type != PTX_T_B32 && rg->type != alt)
            return perr(p, op_at, "'%.*s': operand %u: %s is a .%s register; %s .b32%s%s",
                        (int)oplen, op_at, d + 1, rg->name, type_names[rg->type], are,
                        alt == PTX_T_B32 ? "" : " or .", alt == PTX_T_B32 ? "" : type_names[alt]);
    }
    return true;
}

/* wmma (PTX ISA 9.7.14.4): the warp's matrix multiply-accumulate on the tensor cores, as CUDA's
 * nvcuda::wmma writes it: wmma.load.{a,b,c}, wmma.store.d and wmma.mma on .f16 (sm_70) and
 * .bf16 (sm_80) inputs, .f16 or .f32 accumulators, shapes m16n16k16, m32n8k16 and m8n32k16.
 * q: the end of the opcode. The instruction is appended (true) or an error set. */
static bool parse_wmma(P *p, Ent *en, PtxInst *in, const char *op_at, size_t oplen, const char *q)
{
    static const char *const shapes[] = { "m16n16k16", "m32n8k16", "m8n32k16" };
    const char *m = op_at + 4;          /* past "wmma" */
    PtxType types[4];
    int ntypes = 0, nlayouts = 0, k;
    bool have_sync = false, have_aligned = false, have_shape = false, have_kind = false;
    uint8_t layouts[2] = { 0, 0 };
    while (m < q) {
        const char *w = m;
        size_t n = 0;
        if (!opcode_word(p, &m, q, op_at, oplen, &w, &n))
            return false;
        PtxType t = type_of(w, n);
        if (!have_kind) {
            if (n == 4 && !memcmp(w, "load", 4))
                in->op = PTX_OP_WMMA_LD;
            else if (n == 5 && !memcmp(w, "store", 5))
                in->op = PTX_OP_WMMA_ST;
            else if (n == 3 && !memcmp(w, "mma", 3))
                in->op = PTX_OP_WMMA_MMA;
            else
                return perr(p, w, "'%.*s': wmma is wmma.load, wmma.store or wmma.mma", (int)oplen,
                            op_at);
            have_kind = true;
            if (in->op != PTX_OP_WMMA_MMA) {        /* the matrix: load a, b, c; store d */
                if (m >= q || m + 2 > q || m[0] != '.' || (m + 2 < q && m[2] != '.') ||
                    !(in->op == PTX_OP_WMMA_LD ? (m[1] == 'a' || m[1] == 'b' || m[1] == 'c')
                                               : m[1] == 'd'))
                    return perr(p, m, "'%.*s': %s", (int)oplen, op_at,
                                in->op == PTX_OP_WMMA_LD ? "wmma.load names its matrix: .a, .b or .c"
                                                         : "wmma.store stores .d");
                in->sub = (uint8_t)(m[1] - 'a');
                m += 2;
            }
        } else if (n == 4 && !memcmp(w, "sync", 4)) {
            have_sync = true;
        } else if (n == 7 && !memcmp(w, "aligned", 7)) {
            have_aligned = true;
        } else if (n == 3 && (!memcmp(w, "row", 3) || !memcmp(w, "col", 3))) {
            if (nlayouts == (in->op == PTX_OP_WMMA_MMA ? 2 : 1))
                return perr(p, w - 1, "'%.*s': too many layouts (.row, .col)", (int)oplen, op_at);
            layouts[nlayouts++] = w[0] == 'c';
        } else if ((k = name_in(shapes, G_N_ELEMENTS(shapes), w, n)) >= 0) {
            if (have_shape)
                return perr(p, w - 1, "'%.*s': two shapes", (int)oplen, op_at);
            in->wshape = (uint8_t)k;
            have_shape = true;
        } else if (in->op != PTX_OP_WMMA_MMA &&
                   ((n == 6 && !memcmp(w, "global", 6)) || (n == 6 && !memcmp(w, "shared", 6)) ||
                    (n == 11 && !memcmp(w, "shared::cta", 11)))) {
            if (in->space != PTX_SPACE_GENERIC)
                return perr(p, w - 1, "'%.*s': two state spaces", (int)oplen, op_at);
            in->space = w[0] == 'g' ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
        } else if (t != PTX_T_NONE) {
            if (ntypes == 4)
                return perr(p, w - 1, "'%.*s': more than four types", (int)oplen, op_at);
            types[ntypes++] = t;
        } else if (n == 9 && !memcmp(w, "satfinite", 9)) {
            return perr(p, w - 1, "'%.*s': .satfinite is not in archsim's PTX subset", (int)oplen,
                        op_at);
        } else {
            return perr(p, w - 1, "'%.*s': .%.*s is not in archsim's PTX subset (wmma takes the "
                        "shapes m16n16k16, m32n8k16 and m8n32k16 on .f16 and .bf16 inputs)",
                        (int)oplen, op_at, (int)n, w);
        }
    }
    if (!have_kind)
        return perr(p, op_at, "'%.*s': wmma is wmma.load, wmma.store or wmma.mma", (int)oplen,
                    op_at);
    if (!have_sync || !have_aligned)
        return perr(p, op_at, "'%.*s': wmma needs .sync and .aligned", (int)oplen, op_at);
    if (!have_shape)
        return perr(p, op_at, "'%.*s' needs its shape (.m16n16k16, .m32n8k16 or .m8n32k16)",
                    (int)oplen, op_at);
    if (nlayouts != (in->op == PTX_OP_WMMA_MMA ? 2 : 1))
        return perr(p, op_at, "'%.*s' needs %s", (int)oplen, op_at,
                    in->op == PTX_OP_WMMA_MMA ? "the layouts of A and B (.row or .col, twice)"
                                              : "its layout (.row or .col)");
    in->wlayout = (uint8_t)(layouts[0] | layouts[1] << 1);
    /* the types: a load or store one (a, b: .f16 or .bf16; c, d: .f16 or .f32); mma D and C
     * (.f16 inputs), or .f32.bf16.bf16.f32 */
    bool ok;
    if (in->op == PTX_OP_WMMA_MMA) {
        bool f = ntypes == 2 && (types[0] == PTX_T_F16 || types[0] == PTX_T_F32) &&
                 (types[1] == PTX_T_F16 || types[1] == PTX_T_F32);
        bool b = ntypes == 4 && types[0] == PTX_T_F32 && types[1] == PTX_T_BF16 &&
                 types[2] == PTX_T_BF16 && types[3] == PTX_T_F32;
        ok = f || b;
        if (ok) {                       /* (no type at all: nothing to read) */
            in->type = (uint8_t)types[0];
            in->type2 = (uint8_t)types[ntypes - 1];
            in->wtype = b ? PTX_T_BF16 : PTX_T_F16;
        }
    } else {
        ok = ntypes == 1 && (in->sub <= PTX_WMMA_B ? types[0] == PTX_T_F16 || types[0] == PTX_T_BF16
                                                   : types[0] == PTX_T_F16 || types[0] == PTX_T_F32);
        in->type = ntypes == 1 ? (uint8_t)types[0] : PTX_T_NONE;
        in->wtype = in->type;
    }
    if (!ok)
        return perr(p, op_at, "'%.*s': %s", (int)oplen, op_at,
                    in->op == PTX_OP_WMMA_MMA
                        ? "wmma.mma takes .DTYPE.CTYPE (each .f16 or .f32) on .f16 inputs, or "
                          ".f32.bf16.bf16.f32"
                        : in->sub <= PTX_WMMA_B ? "the type of A and B is .f16 or .bf16"
                                                : "the type of C and D is .f16 or .f32");
    uint32_t need = in->wtype == PTX_T_BF16 ? 80 : 70;
    if (p->m->target < need)
        return perr(p, op_at, "'%.*s' needs .target sm_%u or higher", (int)oplen, op_at, need);
    /* operands: load d-fragment, [addr][, stride]; store [addr], fragment[, stride]; mma d, a,
     * b, c (fragments) */
    if (!own_operands(p, en, in, op_at, oplen, q, in->op == PTX_OP_WMMA_MMA ? 4 : 3))
        return false;
    uint32_t lo = in->op == PTX_OP_WMMA_MMA ? 4 : 2, hi = in->op == PTX_OP_WMMA_MMA ? 4 : 3;
    if (in->nargs < lo || in->nargs > hi)
        return perr(p, op_at, "'%.*s' takes %u%s operands, got %u", (int)oplen, op_at, lo,
                    hi > lo ? " or 3" : "", in->nargs);
    for (uint32_t d = 0; d < in->nargs; d++) {
        const PtxArg *a = &in->a[d];
        uint8_t mat;            /* the fragment operand d is, or 0xff */
        if (in->op == PTX_OP_WMMA_MMA)
            mat = d == 0 ? PTX_WMMA_D : d == 1 ? PTX_WMMA_A : d == 2 ? PTX_WMMA_B : PTX_WMMA_C;
        else
            mat = d == (in->op == PTX_OP_WMMA_LD ? 0u : 1u) ? in->sub : 0xff;
        if (mat != 0xff) {
            PtxType et = in->op != PTX_OP_WMMA_MMA ? (PtxType)in->type
                       : mat == PTX_WMMA_D ? (PtxType)in->type
                       : mat == PTX_WMMA_C ? (PtxType)in->type2 : (PtxType)in->wtype;
            uint32_t want = ptx_wmma_regs(mat, in->wshape, (uint8_t)et);
            if (a->kind != PTX_A_VEC || a->n != want)
                return perr(p, op_at, "'%.*s': operand %u is the %c fragment: a vector of %u "
                            "registers", (int)oplen, op_at, d + 1, "abcd"[mat], want);
            /* the registers ptxas takes: .f32 or .b32 for .f32 elements, .b32 or .f16x2 for
             * .f16 pairs, .b32 for .bf16 pairs; '_' (a sink) only in a fragment written */
            PtxType alt = et == PTX_T_F32 ? PTX_T_F32 : et == PTX_T_F16 ? PTX_T_F16X2 : PTX_T_B32;
            bool written = (in->op == PTX_OP_WMMA_LD && d == 0) ||
                           (in->op == PTX_OP_WMMA_MMA && d == 0);
            if (!frag_check(p, en, a, d, written, alt, "the fragment's are", op_at, oplen))
                return false;
        } else if (d == (in->op == PTX_OP_WMMA_LD ? 1u : 0u)) {
            if (a->kind != PTX_A_ADDR)
                return perr(p, op_at, "'%.*s' needs an address in brackets ([%%rd1])", (int)oplen,
                            op_at);
        } else {                /* the stride, in elements */
            bool reg = a->kind == PTX_A_REG && !a->neg;
            if (reg) {
                const PtxReg *rg = &g_array_index(en->e->regs, PtxReg, a->reg);
                reg = reg_fits(PTX_T_U32, (PtxType)rg->type);
            }
            if (!reg && !(a->kind == PTX_A_IMM && a->imm >= 0 && a->imm <= UINT32_MAX))
                return perr(p, op_at, "'%.*s': the stride (operand 3) is a 32-bit integer "
                            "register or a constant", (int)oplen, op_at);
        }
    }
    if (en->e->insts->len >= PTX_MAX_INSTS)
        return perr(p, op_at, "more than %d instructions in one kernel", PTX_MAX_INSTS);
    g_array_append_val(en->e->insts, *in);
    return true;
}

/* cp.async (PTX ISA 9.7.9.25, sm_80), as nvcc writes it for __pipeline_memcpy_async and
 * cuda::memcpy_async: a copy of 4, 8 or 16 bytes from global to shared memory that the thread
 * does not wait for (.ca, or .cg for 16 bytes; an optional src-size below the copy's size fills
 * the rest with zeros, an optional ignore-src predicate the whole; .L2:: hints and a cache
 * policy accepted and ignored); cp.async.commit_group closes the thread's open group of copies,
 * cp.async.wait_group N waits until at most the N most recent groups are pending, wait_all for
 * every copy. Not: the mbarrier and bulk (TMA) forms. q: the end of the opcode. */
static bool parse_cp(P *p, Ent *en, PtxInst *in, const char *op_at, size_t oplen, const char *q)
{
    const char *m = op_at + 2;          /* past "cp" */
    int nw = 0;
    bool hint = false, prefetch = false, have_dst = false, have_src = false, have_cache = false;
    while (m < q) {
        const char *w = m;
        size_t n = 0;
        if (!opcode_word(p, &m, q, op_at, oplen, &w, &n))
            return false;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(w, lit, n))
        if (nw == 0 && !IS("async"))
            return perr(p, w - 1, "'%.*s': cp.async is in archsim's PTX subset; .%.*s is not",
                        (int)oplen, op_at, (int)n, w);
        if (nw == 1) {
            if (IS("commit_group"))
                in->op = PTX_OP_CP_COMMIT;
            else if (IS("wait_group") || IS("wait_all")) {
                in->op = PTX_OP_CP_WAIT;
                in->sub = w[5] == 'a';          /* wait_all: the open group too */
            } else if (IS("ca") || IS("cg")) {
                in->op = PTX_OP_CP_ASYNC;
                in->mods |= w[1] == 'g' ? PTX_M_CG : 0;
                have_cache = true;
            } else {
                return perr(p, w - 1, "'%.*s': .%.*s is not in archsim's PTX subset (cp.async.ca, "
                            ".cg, .commit_group, .wait_group and .wait_all are)", (int)oplen,
                            op_at, (int)n, w);
            }
        } else if (nw >= 2 && in->op == PTX_OP_CP_ASYNC) {
            if (IS("shared") || IS("shared::cta")) {
                if (have_dst)
                    return perr(p, w - 1, "'%.*s': two destination spaces", (int)oplen, op_at);
                have_dst = true;
            } else if (IS("global") && have_dst && !have_src) {
                have_src = true;
            } else if (IS("L2::cache_hint") && !hint) {
                hint = true;
            } else if ((IS("L2::64B") || IS("L2::128B") || IS("L2::256B")) && !prefetch) {
                prefetch = true;
            } else if (IS("L2::cache_hint") || IS("L2::64B") || IS("L2::128B") || IS("L2::256B")) {
                return perr(p, w - 1, "'%.*s': a second .%.*s (one prefetch size and one cache "
                            "hint at most)", (int)oplen, op_at, (int)n, w);
            } else {
                return perr(p, w - 1, "'%.*s': modifier .%.*s is not in archsim's PTX subset",
                            (int)oplen, op_at, (int)n, w);
            }
        } else if (nw >= 2) {
            return perr(p, w - 1, "'%.*s': modifier .%.*s is not in archsim's PTX subset",
                        (int)oplen, op_at, (int)n, w);
        }
#undef IS
        nw++;
    }
    if (nw < 2)
        return perr(p, op_at, "'%.*s': cp.async.ca, .cg, .commit_group, .wait_group or .wait_all",
                    (int)oplen, op_at);
    if (in->op == PTX_OP_CP_ASYNC && (!have_cache || !have_dst || !have_src))
        return perr(p, op_at, "'%.*s': cp.async copies .shared.global (cp.async.ca.shared.global)",
                    (int)oplen, op_at);
    if (p->m->target < 80)
        return perr(p, op_at, "'%.*s' needs .target sm_80 or higher", (int)oplen, op_at);
    in->space = PTX_SPACE_SHARED;
    if (!own_operands(p, en, in, op_at, oplen, q, 5))
        return false;
    const PtxArg *a = in->a;
    if (in->op == PTX_OP_CP_COMMIT || (in->op == PTX_OP_CP_WAIT && in->sub)) {
        if (in->nargs != 0)
            return perr(p, op_at, "'%.*s' takes no operands", (int)oplen, op_at);
    } else if (in->op == PTX_OP_CP_WAIT) {
        if (in->nargs != 1 || a[0].kind != PTX_A_IMM || a[0].imm < 0 || a[0].imm > 1000000)
            return perr(p, op_at, "'%.*s' takes one operand: the number of groups that may stay "
                        "pending, a constant (cp.async.wait_group 0)", (int)oplen, op_at);
    } else {
        /* [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy} */
        uint32_t want = 3 + (hint ? 1u : 0u);
        if (in->nargs < want || in->nargs > want + 1)
            return perr(p, op_at, "'%.*s' takes [dst], [src], cp-size, an optional src-size or "
                        "ignore-src%s", (int)oplen, op_at, hint ? " and the cache policy" : "");
        if (a[0].kind != PTX_A_ADDR || a[1].kind != PTX_A_ADDR)
            return perr(p, op_at, "'%.*s': the destination and the source are addresses in "
                        "brackets", (int)oplen, op_at);
        if (a[2].kind != PTX_A_IMM || !(a[2].imm == 4 || a[2].imm == 8 || a[2].imm == 16) ||
            ((in->mods & PTX_M_CG) && a[2].imm != 16))
            return perr(p, op_at, "'%.*s': cp-size is 4, 8 or 16 (.cg: 16)", (int)oplen, op_at);
        in->sub = (uint8_t)a[2].imm;
        if (in->nargs > 3 && !(hint && in->nargs == 4)) {
            const PtxArg *x = &a[3];
            bool ok = (x->kind == PTX_A_IMM && x->imm >= 0 && x->imm <= a[2].imm);
            if (x->kind == PTX_A_REG) {
                PtxType rt = (PtxType)g_array_index(en->e->regs, PtxReg, x->reg).type;
                ok = rt == PTX_T_PRED || (!x->neg && reg_fits(PTX_T_U32, rt));
            }
            if (!ok)
                return perr(p, op_at, "'%.*s': operand 4 is the bytes to read (a constant up to "
                            "cp-size or a 32-bit register) or a predicate (ignore-src)",
                            (int)oplen, op_at);
        }
        if (hint) {
            const PtxArg *x = &a[in->nargs - 1];
            if (x->kind != PTX_A_REG ||
                ptx_type_bytes((PtxType)g_array_index(en->e->regs, PtxReg, x->reg).type) != 8)
                return perr(p, op_at, "'%.*s': the cache policy is a 64-bit register", (int)oplen,
                            op_at);
        }
    }
    if (en->e->insts->len >= PTX_MAX_INSTS)
        return perr(p, op_at, "more than %d instructions in one kernel", PTX_MAX_INSTS);
    g_array_append_val(en->e->insts, *in);
    return true;
}

/* mma.sync (PTX ISA 9.7.14.5) on the shapes m16n8k16 and m16n8k8, .row.col, .f16 inputs with
 * .f16 or .f32 accumulators or .bf16 with .f32 (what CUTLASS and Triton write for sm_80), and
 * ldmatrix (9.7.14.5.15): eight rows of eight 16-bit elements a matrix, one, two or four
 * matrices, .trans. q: the end of the opcode. */
static bool parse_mma(P *p, Ent *en, PtxInst *in, const char *op_at, size_t oplen, const char *q)
{
    bool ldm = in->op == PTX_OP_LDMATRIX;
    const char *m = op_at + (ldm ? 8 : 3);
    PtxType types[4];
    int ntypes = 0, order = 0;          /* mma: .row then .col */
    bool have_sync = false, have_aligned = false, have_shape = false;
    while (m < q) {
        const char *w = m;
        size_t n = 0;
        if (!opcode_word(p, &m, q, op_at, oplen, &w, &n))
            return false;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(w, lit, n))
        PtxType t = type_of(w, n);
        if (IS("sync") && !have_sync) {
            have_sync = true;
        } else if (IS("aligned") && !have_aligned) {
            have_aligned = true;
        } else if (!have_shape && !ldm && (IS("m16n8k16") || IS("m16n8k8"))) {
            in->wshape = IS("m16n8k8") ? PTX_MMA_M16N8K8 : PTX_MMA_M16N8K16;
            have_shape = true;
        } else if (!have_shape && ldm && IS("m8n8")) {
            have_shape = true;
        } else if (!ldm && order == 0 && IS("row")) {
            order = 1;
        } else if (!ldm && order == 1 && IS("col")) {
            order = 2;
        } else if (ldm && in->sub == 0 && (IS("x1") || IS("x2") || IS("x4"))) {
            in->sub = (uint8_t)(w[1] - '0');
        } else if (ldm && IS("trans") && !(in->mods & PTX_M_TRANS)) {
            in->mods |= PTX_M_TRANS;
        } else if (ldm && (IS("shared") || IS("shared::cta")) && in->space == PTX_SPACE_GENERIC) {
            in->space = PTX_SPACE_SHARED;
        } else if (t != PTX_T_NONE && ntypes < 4) {
            types[ntypes++] = t;
        } else {
            return perr(p, w - 1, "'%.*s': .%.*s %s (%s)", (int)oplen, op_at, (int)n, w,
                        IS("sync") || IS("aligned") || IS("trans") || IS("shared") ||
                        IS("shared::cta") ? "twice" : "is not in archsim's PTX subset",
                        ldm ? "ldmatrix.sync.aligned.m8n8.x1/.x2/.x4{.trans}{.shared}.b16"
                            : "mma.sync.aligned.m16n8k16 or .m16n8k8, .row.col, on .f16 or "
                              ".bf16 inputs");
        }
#undef IS
    }
    if (!have_sync || !have_aligned)
        return perr(p, op_at, "'%.*s' needs .sync and .aligned", (int)oplen, op_at);
    if (ldm) {
        if (!have_shape || in->sub == 0 || ntypes != 1 || types[0] != PTX_T_B16)
            return perr(p, op_at, "'%.*s': ldmatrix is ldmatrix.sync.aligned.m8n8.x1/.x2/.x4"
                        "{.trans}{.shared}.b16", (int)oplen, op_at);
        in->type = PTX_T_B16;
    } else {
        if (!have_shape || order != 2)
            return perr(p, op_at, "'%.*s' needs its shape (.m16n8k16 or .m16n8k8) and .row.col",
                        (int)oplen, op_at);
        /* ptxas: D's type is C's on these shapes */
        bool f = ntypes == 4 && (types[0] == PTX_T_F16 || types[0] == PTX_T_F32) &&
                 types[1] == PTX_T_F16 && types[2] == PTX_T_F16 && types[3] == types[0];
        bool b = ntypes == 4 && types[0] == PTX_T_F32 && types[1] == PTX_T_BF16 &&
                 types[2] == PTX_T_BF16 && types[3] == PTX_T_F32;
        if (!f && !b)
            return perr(p, op_at, "'%.*s': mma takes .f16.f16.f16.f16, .f32.f16.f16.f32 or "
                        ".f32.bf16.bf16.f32", (int)oplen, op_at);
        in->type = (uint8_t)types[0];
        in->type2 = (uint8_t)types[3];
        in->wtype = (uint8_t)types[1];
    }
    uint32_t need = ldm || (in->wshape == PTX_MMA_M16N8K8 && in->wtype == PTX_T_F16) ? 75 : 80;
    if (p->m->target < need)
        return perr(p, op_at, "'%.*s' needs .target sm_%u or higher", (int)oplen, op_at, need);
    if (!own_operands(p, en, in, op_at, oplen, q, ldm ? 2 : 4))
        return false;
    if (ldm) {
        const PtxArg *d = &in->a[0];
        if (in->nargs != 2 || d->kind != PTX_A_VEC || d->n != in->sub || d->zero ||
            in->a[1].kind != PTX_A_ADDR)
            return perr(p, op_at, "'%.*s' takes a vector of %u register%s ({...}) and an address "
                        "in brackets", (int)oplen, op_at, in->sub, in->sub > 1 ? "s" : "");
        for (uint32_t j = 0; j < in->sub; j++) {
            int32_t reg = d->vec[j];                    /* ('_': a sink) */
            if (reg >= 0 && g_array_index(en->e->regs, PtxReg, reg).type != PTX_T_B32)
                return perr(p, op_at, "'%.*s': its destinations are .b32 registers", (int)oplen,
                            op_at);
        }
    } else {
        bool k16 = in->wshape == PTX_MMA_M16N8K16;
        uint32_t want[4] = { in->type == PTX_T_F32 ? 4u : 2u, k16 ? 4u : 2u, k16 ? 2u : 1u,
                             in->type2 == PTX_T_F32 ? 4u : 2u };
        if (in->nargs != 4)
            return perr(p, op_at, "'%.*s' takes 4 operands: d, a, b, c", (int)oplen, op_at);
        for (uint32_t i = 0; i < 4; i++) {
            const PtxArg *a = &in->a[i];
            bool f32 = (i == 0 && in->type == PTX_T_F32) || (i == 3 && in->type2 == PTX_T_F32);
            /* what ptxas takes: .f32 (or .b32) for f32 elements, .b32 (or .f16x2 for halves)
             * for pairs; '_' only in D */
            PtxType alt = f32 ? PTX_T_F32 : in->wtype == PTX_T_F16 || i == 0 || i == 3
                                                ? PTX_T_F16X2 : PTX_T_B32;
            if (a->kind != PTX_A_VEC || a->n != want[i] || a->zero)
                return perr(p, op_at, "'%.*s': operand %u (%c) is a vector of %u registers",
                            (int)oplen, op_at, i + 1, "dabc"[i], want[i]);
            if (!frag_check(p, en, a, i, i == 0, alt, "these are", op_at, oplen))
                return false;
        }
    }
    if (en->e->insts->len >= PTX_MAX_INSTS)
        return perr(p, op_at, "more than %d instructions in one kernel", PTX_MAX_INSTS);
    g_array_append_val(en->e->insts, *in);
    return true;
}

static bool parse_inst(P *p, Ent *en, const char *start)
{
    PtxInst in;
    memset(&in, 0, sizeof in);
    in.guard = -1;
    in.vec = 1;
    in.line = p->line;
    /* guard */
    skip_ws(p);
    const char *at = p->p;
    if (accept(p, '@')) {
        if (accept(p, '!'))
            in.guard_neg = true;
        size_t n = peek_ident(p);
        if (n == 0 || (p->p[0] != '%' && !reg_named(en, p->p, n)))
            return perr(p, p->p, "expected a predicate register after '@'");
        in.guard = reg_ref(p, en, n);
        if (in.guard < 0)
            return false;
        if (g_array_index(en->e->regs, PtxReg, in.guard).type != PTX_T_PRED)
            return perr(p, at, "the guard %s is not a .pred register",
                        g_array_index(en->e->regs, PtxReg, in.guard).name);
        skip_ws(p);
    }
    const char *op_at = p->p;
    /* the opcode: words separated by '.' (with :: inside cache hints) */
    const char *q = p->p;
    while (q < p->end && (ident_char(*q) || *q == '.' || *q == ':'))
        q++;
    size_t oplen = (size_t)(q - op_at);
    if (oplen == 0)
        return perr(p, op_at, "expected an instruction");
    size_t baselen = 0;             /* up to the first '.' or ':' within the opcode (a scan past
                                       it would cross every line to the next '.': quadratic) */
    while (baselen < oplen && op_at[baselen] != '.' && op_at[baselen] != ':')
        baselen++;
    int base = -1;
    for (size_t i = 0; i < G_N_ELEMENTS(base_ops); i++)
        if (strlen(base_ops[i].name) == baselen && memcmp(base_ops[i].name, op_at, baselen) == 0)
            base = (int)i;
    if (base < 0 && baselen == 4 && memcmp(op_at, "call", 4) == 0)
        return perr(p, op_at, "a call under a guard (@p call) is not in archsim's PTX subset "
                    "(branch around it)");
    if (base < 0)
        return perr(p, op_at, "instruction '%.*s' is not in archsim's PTX subset (docs/gpu-ptx.md "
                    "lists it and says how to add one)", (int)oplen, op_at);
    in.op = (uint8_t)base_ops[base].op;
    in.col = (uint32_t)(op_at - start) + 1;
    if (in.op == PTX_OP_WMMA_LD)
        return parse_wmma(p, en, &in, op_at, oplen, q);
    if (in.op == PTX_OP_CP_ASYNC)
        return parse_cp(p, en, &in, op_at, oplen, q);
    if (in.op == PTX_OP_MMA || in.op == PTX_OP_LDMATRIX)
        return parse_mma(p, en, &in, op_at, oplen, q);
    if (in.op == PTX_OP_VABSDIFF)
        in.sub = (uint8_t)(op_at[baselen - 1] - '0');    /* vabsdiff2, vabsdiff4: the lanes */
    if (baselen == 4 && (memcmp(op_at, "addc", 4) == 0 || memcmp(op_at, "subc", 4) == 0 ||
                         memcmp(op_at, "madc", 4) == 0))
        in.mods |= PTX_M_CIN;
    PtxType types[3] = { PTX_T_NONE, PTX_T_NONE, PTX_T_NONE };
    int ntypes = 0;
    bool have_cmp = false, have_sub = false, have_dir = false, have_clamp = false, have_rn = false;
    const char *m = op_at + baselen;
    while (m < q) {
        if (*m != '.')              /* a ':' outside a modifier such as L2::128B */
            return perr(p, m, "'%.*s': unexpected '%c' in the opcode", (int)oplen, op_at, *m);
        m++;
        const char *w = m;
        while (m < q && *m != '.')
            m++;
        /* cache hints L1::evict_last contain '::' but no '.' */
        size_t n = (size_t)(m - w);
        PtxType t = type_of(w, n);
        int k;
        if (t != PTX_T_NONE) {
            if (ntypes == (in.op == PTX_OP_VABSDIFF ? 3 : 2))
                return perr(p, w - 1, "'%.*s': more than %s types", (int)oplen, op_at,
                            in.op == PTX_OP_VABSDIFF ? "three" : "two");
            types[ntypes++] = t;
        } else if (n == 6 && !memcmp(w, "global", 6)) {
            in.space = PTX_SPACE_GLOBAL;
        } else if (n == 6 && !memcmp(w, "shared", 6)) {
            in.space = PTX_SPACE_SHARED;
        } else if (n == 5 && !memcmp(w, "local", 5)) {
            in.space = PTX_SPACE_LOCAL;
        } else if (n == 5 && !memcmp(w, "param", 5)) {
            in.space = PTX_SPACE_PARAM;
        } else if (n == 5 && !memcmp(w, "const", 5)) {
            in.space = PTX_SPACE_CONST;
        } else if (n == 2 && (!memcmp(w, "v2", 2) || !memcmp(w, "v4", 2))) {
            in.vec = (uint8_t)(w[1] - '0');
        } else if (n == 2 && !memcmp(w, "lo", 2) && in.op != PTX_OP_SETP && in.op != PTX_OP_SET) {
            in.mods |= PTX_M_LO;
        } else if (n == 2 && !memcmp(w, "hi", 2) && in.op != PTX_OP_SETP && in.op != PTX_OP_SET) {
            in.mods |= PTX_M_HI;
        } else if (n == 4 && !memcmp(w, "wide", 4)) {
            in.mods |= PTX_M_WIDE;
        } else if (n == 2 && !memcmp(w, "to", 2)) {
            in.mods |= PTX_M_TO;
        } else if (n == 2 && !memcmp(w, "rz", 2)) {
            in.mods |= PTX_M_RZ;
        } else if (n == 2 && !memcmp(w, "rm", 2)) {
            in.mods |= PTX_M_RM;
        } else if (n == 2 && !memcmp(w, "rp", 2)) {
            in.mods |= PTX_M_RP;
        } else if (n == 3 && !memcmp(w, "sat", 3)) {
            in.mods |= PTX_M_SAT;
        } else if (n == 3 && !memcmp(w, "ftz", 3)) {
            in.mods |= PTX_M_FTZ;
        } else if (n == 6 && !memcmp(w, "approx", 6)) {
            in.mods |= PTX_M_APPROX;
        } else if (n == 3 && !memcmp(w, "rni", 3)) {
            in.mods |= PTX_M_RNI;
        } else if (n == 3 && !memcmp(w, "rzi", 3)) {
            in.mods |= PTX_M_RZI;
        } else if (n == 3 && !memcmp(w, "rmi", 3)) {
            in.mods |= PTX_M_RMI;
        } else if (n == 3 && !memcmp(w, "rpi", 3)) {
            in.mods |= PTX_M_RPI;
        } else if (n == 3 && !memcmp(w, "uni", 3)) {
            in.mods |= PTX_M_UNI;
        } else if (n == 4 && !memcmp(w, "warp", 4) && in.op == PTX_OP_BAR) {
            in.op = PTX_OP_BAR_WARP;
        } else if ((in.op == PTX_OP_BAR) && ((n == 6 && !memcmp(w, "arrive", 6)) ||
                                             (n == 3 && !memcmp(w, "red", 3)))) {
            return perr(p, w, "bar.%.*s is not in the subset (bar.sync is)", (int)n, w);
        } else if ((in.op == PTX_OP_SETP || in.op == PTX_OP_SET) && !have_cmp &&
                   (k = name_in(cmp_names, G_N_ELEMENTS(cmp_names), w, n)) >= 0) {
            in.cmp = (uint8_t)k;
            have_cmp = true;
        } else if ((in.op == PTX_OP_SETP || in.op == PTX_OP_SET) && have_cmp &&
                   ((n == 3 && !memcmp(w, "and", 3)) || (n == 2 && !memcmp(w, "or", 2)) ||
                    (n == 3 && !memcmp(w, "xor", 3)))) {
            in.boolop = w[0] == 'a' ? PTX_BOOL_AND : w[0] == 'o' ? PTX_BOOL_OR : PTX_BOOL_XOR;
        } else if (n == 2 && !memcmp(w, "rn", 2)) {
            have_rn = true;
        } else if (in.op == PTX_OP_FMA && n == 4 && !memcmp(w, "relu", 4)) {
            in.mods |= PTX_M_RELU;
        } else if ((in.op == PTX_OP_MIN || in.op == PTX_OP_MAX) && n == 3 && !memcmp(w, "NaN", 3)) {
            in.mods |= PTX_M_NAN;
        } else if (in.op == PTX_OP_BFIND && n == 8 && !memcmp(w, "shiftamt", 8)) {
            in.mods |= PTX_M_SHIFTAMT;
        } else if ((in.op == PTX_OP_ATOM || in.op == PTX_OP_RED || in.op == PTX_OP_REDUX) && !have_sub &&
                   (k = name_in(atom_names, G_N_ELEMENTS(atom_names), w, n)) >= 0) {
            in.sub = (uint8_t)k;
            have_sub = true;
        } else if (in.op == PTX_OP_SHFL && !have_sub &&
                   (k = name_in((const char *const[]){ "up", "down", "bfly", "idx" }, 4, w, n)) >= 0) {
            in.sub = (uint8_t)k;
            have_sub = true;
        } else if (in.op == PTX_OP_VOTE && !have_sub &&
                   (k = name_in((const char *const[]){ "all", "any", "uni", "ballot" }, 4, w, n)) >= 0) {
            in.sub = (uint8_t)k;
            have_sub = true;
        } else if (in.op == PTX_OP_MATCH && !have_sub &&
                   (k = name_in((const char *const[]){ "any", "all" }, 2, w, n)) >= 0) {
            in.sub = (uint8_t)k;
            have_sub = true;
        } else if (in.op == PTX_OP_PRMT && !have_sub &&
                   (k = name_in((const char *const[]){ "f4e", "b4e", "rc8", "ecl", "ecr", "rc16" },
                                6, w, n)) >= 0) {
            in.sub = (uint8_t)(PTX_PRMT_F4E + k);
            have_sub = true;
        } else if (in.op == PTX_OP_SHF && !have_dir && n == 1 && (w[0] == 'l' || w[0] == 'r')) {
            in.sub |= w[0] == 'r' ? PTX_SHF_R : 0;
            have_dir = true;
        } else if (in.op == PTX_OP_SHF && !have_clamp &&
                   ((n == 4 && !memcmp(w, "wrap", 4)) || (n == 5 && !memcmp(w, "clamp", 5)))) {
            in.sub |= w[0] == 'c' ? PTX_SHF_CLAMP : 0;
            have_clamp = true;
        } else if (in.op == PTX_OP_VABSDIFF && n == 3 && !memcmp(w, "add", 3) &&
                   !(in.mods & PTX_M_VACC)) {
            in.mods |= PTX_M_VACC;
        } else if (n == 2 && !memcmp(w, "cc", 2)) {
            in.mods |= PTX_M_CC;
        } else if (!ignorable(w, n)) {
            return perr(p, w - 1, "'%.*s': modifier .%.*s is not in archsim's PTX subset",
                        (int)oplen, op_at, (int)n, w);
        }
    }
    in.type = (uint8_t)types[0];
    in.type2 = (uint8_t)types[1];
    if (in.op == PTX_OP_VABSDIFF)
        in.wtype = (uint8_t)types[2];
    p->p = q;
    int text = intern_text(p->m, op_at, oplen);
    if (text < 0)
        return perr(p, op_at, "more than %d distinct opcodes in one file", PTX_MAX_TEXTS);
    in.text = (uint16_t)text;
    /* what each instruction needs */
    switch ((PtxOp)in.op) {
    case PTX_OP_SETP:
        if (!have_cmp)
            return perr(p, op_at, "setp needs a comparison (.lt, .eq, ...)");
        break;
    case PTX_OP_SET:
        if (!have_cmp)
            return perr(p, op_at, "set needs a comparison (.lt, .eq, ...)");
        /* DTYPE .u32, .s32, .f32 (and .u16, .s16, .f16); from .f16x2 or .bf16x2, .u32, .s32 or
         * the same pair type, one result per half */
        if (ntypes != 2 ||
            ((types[1] == PTX_T_F16X2 || types[1] == PTX_T_BF16X2)
                 ? !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32 || types[0] == types[1])
                 : types[1] == PTX_T_F16 || types[1] == PTX_T_BF16
                 ? !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32 || types[0] == PTX_T_U16 ||
                     types[0] == PTX_T_S16 || types[0] == types[1])
                 : !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32 || types[0] == PTX_T_F32 ||
                     types[0] == PTX_T_F16)))
            return perr(p, op_at, "'%.*s': set takes set.CMP.DTYPE.STYPE, DTYPE .u32, .s32, .f32 "
                        "or .f16 (from .f16 or .bf16: .u32, .s32, .u16, .s16 or the same; from "
                        ".f16x2 or .bf16x2: .u32, .s32 or the same)", (int)oplen, op_at);
        break;
    case PTX_OP_REDUX:
        /* redux.sync.OP.TYPE d, a, membermask: add, min, max on .u32/.s32, and, or, xor on .b32 */
        if (!have_sub || ntypes != 1 ||
            ((in.sub == PTX_ATOM_ADD || in.sub == PTX_ATOM_MIN || in.sub == PTX_ATOM_MAX)
                 ? !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32)
                 : !((in.sub == PTX_ATOM_AND || in.sub == PTX_ATOM_OR || in.sub == PTX_ATOM_XOR) &&
                     types[0] == PTX_T_B32)))
            return perr(p, op_at, "'%.*s': redux.sync takes .add, .min, .max with .u32 or .s32, "
                        "and .and, .or, .xor with .b32", (int)oplen, op_at);
        break;
    case PTX_OP_SAD:
        if (ntypes != 1 || !(types[0] == PTX_T_U16 || types[0] == PTX_T_S16 || types[0] == PTX_T_U32 ||
                             types[0] == PTX_T_S32 || types[0] == PTX_T_U64 || types[0] == PTX_T_S64))
            return perr(p, op_at, "'%.*s': sad takes a 16-, 32- or 64-bit integer type", (int)oplen,
                        op_at);
        break;
    case PTX_OP_DP4A:
    case PTX_OP_DP2A:
        /* dp4a.ATYPE.BTYPE d, a, b, c (and dp2a.lo/.hi): d and c are .s32 when either is
         * signed, else .u32 */
        if (ntypes != 2 || !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32) ||
            !(types[1] == PTX_T_U32 || types[1] == PTX_T_S32) ||
            (in.op == PTX_OP_DP2A) != ((in.mods & (PTX_M_LO | PTX_M_HI)) != 0) ||
            (in.mods & PTX_M_LO && in.mods & PTX_M_HI))
            return perr(p, op_at, "'%.*s': %s", (int)oplen, op_at, in.op == PTX_OP_DP4A
                        ? "dp4a takes dp4a.ATYPE.BTYPE, each .u32 or .s32"
                        : "dp2a takes dp2a.lo or .hi, then .ATYPE.BTYPE, each .u32 or .s32");
        break;
    case PTX_OP_VABSDIFF:
        /* vabsdiff2/4.DTYPE.ATYPE.BTYPE{.sat} d, a, b, c or .add (PTX ISA, "SIMD video
         * instructions"), each type .u32 or .s32; the default masks and lane selectors only */
        for (int i = 0; i < 3; i++)
            if (ntypes != 3 || !(types[i] == PTX_T_U32 || types[i] == PTX_T_S32))
                return perr(p, op_at, "'%.*s': vabsdiff%u takes .DTYPE.ATYPE.BTYPE, each .u32 "
                            "or .s32", (int)oplen, op_at, in.sub);
        if ((in.mods & PTX_M_SAT) && (in.mods & PTX_M_VACC))
            return perr(p, op_at, "'%.*s': .sat cannot go with .add (the PTX ISA)", (int)oplen,
                        op_at);
        break;
    case PTX_OP_BFIND:
        if (ntypes != 1 || !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32 ||
                             types[0] == PTX_T_U64 || types[0] == PTX_T_S64))
            return perr(p, op_at, "'%.*s': bfind takes .u32, .s32, .u64 or .s64", (int)oplen, op_at);
        break;
    case PTX_OP_MATCH:
        /* match.any.sync.b32/.b64 d, a, membermask; match.all.sync d[|p], a, membermask */
        if (!have_sub || ntypes != 1 || !(types[0] == PTX_T_B32 || types[0] == PTX_T_B64) ||
            !g_strstr_len(op_at, (gssize)oplen, ".sync") ||
            g_strstr_len(op_at, (gssize)oplen, ".aligned"))
            return perr(p, op_at, "'%.*s': match takes match.any.sync or match.all.sync, then "
                        ".b32 or .b64", (int)oplen, op_at);
        break;
    case PTX_OP_NANOSLEEP:
        if (ntypes != 1 || types[0] != PTX_T_U32)
            return perr(p, op_at, "'%.*s': nanosleep takes .u32", (int)oplen, op_at);
        break;
    case PTX_OP_ATOM:
    case PTX_OP_RED:
    case PTX_OP_SHFL:
    case PTX_OP_VOTE:
        if (!have_sub)
            return perr(p, op_at, "'%.*s' needs its operation (%s)", (int)oplen, op_at,
                        in.op == PTX_OP_SHFL ? ".up, .down, .bfly or .idx"
                        : in.op == PTX_OP_VOTE ? ".all, .any, .uni or .ballot"
                                               : ".add, .min, .max, .cas, .exch, ...");
        break;
    case PTX_OP_CVT:
        if (ntypes != 2)
            return perr(p, op_at, "cvt needs two types (cvt.DEST.SOURCE)");
        break;
    case PTX_OP_SHF:
        if (!have_dir || !have_clamp)
            return perr(p, op_at, "'%.*s' needs a direction and a mode: shf.l or shf.r, then .wrap "
                        "or .clamp", (int)oplen, op_at);
        break;
    default:
        break;
    }
    /* the bit-manipulation instructions take only the types the ISA gives them */
    if ((in.op == PTX_OP_PRMT || in.op == PTX_OP_LOP3 || in.op == PTX_OP_SHF) && ntypes > 0 &&
        (ntypes != 1 || types[0] != PTX_T_B32))
        return perr(p, op_at, "'%.*s': the type must be .b32", (int)oplen, op_at);
    /* carry arithmetic (PTX ISA 9.7.2): add.cc, addc, sub.cc, subc, mad.lo/.hi.cc, madc on 32-
     * and 64-bit integers; the flag is one per thread */
    if ((in.mods & (PTX_M_CC | PTX_M_CIN)) &&
        (!(in.op == PTX_OP_ADD || in.op == PTX_OP_SUB || in.op == PTX_OP_MAD) || ntypes != 1 || !(types[0] == PTX_T_U32 || types[0] == PTX_T_S32 || types[0] == PTX_T_U64 ||
                          types[0] == PTX_T_S64 || types[0] == PTX_T_B32 || types[0] == PTX_T_B64) ||
         (in.op == PTX_OP_MAD && !(in.mods & (PTX_M_LO | PTX_M_HI))) ||
         (in.mods & (PTX_M_SAT | PTX_M_WIDE))))
        return perr(p, op_at, "'%.*s': carry arithmetic is add.cc, addc, sub.cc, subc, mad.lo.cc, "
                    "mad.hi.cc and madc on 32- and 64-bit integers", (int)oplen, op_at);
    if (in.op == PTX_OP_COPYSIGN && ntypes > 0 &&
        (ntypes != 1 || (types[0] != PTX_T_F32 && types[0] != PTX_T_F64)))
        return perr(p, op_at, "'%.*s': the type must be .f32 or .f64", (int)oplen, op_at);
    if (in.op == PTX_OP_BFI && ntypes > 0 &&
        (ntypes != 1 || (types[0] != PTX_T_B32 && types[0] != PTX_T_B64)))
        return perr(p, op_at, "'%.*s': the type must be .b32 or .b64", (int)oplen, op_at);
    bool needs_type = !(in.op == PTX_OP_BRA || in.op == PTX_OP_RET || in.op == PTX_OP_EXIT ||
                        in.op == PTX_OP_TRAP ||
                        in.op == PTX_OP_BAR || in.op == PTX_OP_BAR_WARP || in.op == PTX_OP_MEMBAR ||
                        in.op == PTX_OP_ACTIVEMASK);
    if (needs_type && ntypes == 0)
        return perr(p, op_at, "'%.*s' needs a type (.u32, .f32, ...)", (int)oplen, op_at);
    if (in.op == PTX_OP_ACTIVEMASK && ntypes == 0)
        in.type = PTX_T_B32;
    /* what is parsed but not computed is refused, never approximated */
    /* rounding toward zero or an infinity: on the IEEE operations of f32 and f64 (add, sub,
     * mul, fma, mad, div, rcp, sqrt) and conversions to them, which the host computes in that
     * rounding mode (math library code such as expf and fmodf writes fma.rm, fma.rz) */
    if (in.mods & (PTX_M_RZ | PTX_M_RM | PTX_M_RP)) {
        bool f3264 = in.type == PTX_T_F32 || in.type == PTX_T_F64 ||
                     (in.op == PTX_OP_CVT && (in.type == PTX_T_F16 || in.type == PTX_T_BF16) &&
                      (in.type2 == PTX_T_F32 || in.type2 == PTX_T_F64));
        bool ieee = in.op == PTX_OP_ADD || in.op == PTX_OP_SUB || in.op == PTX_OP_MUL ||
                    in.op == PTX_OP_FMA || in.op == PTX_OP_MAD || in.op == PTX_OP_DIV ||
                    in.op == PTX_OP_RCP || in.op == PTX_OP_SQRT || in.op == PTX_OP_CVT;
        if (!f3264 || !ieee || (in.mods & PTX_M_APPROX) ||
            ((in.mods & PTX_M_RZ) != 0) + ((in.mods & PTX_M_RM) != 0) + ((in.mods & PTX_M_RP) != 0) > 1 ||
            (in.op == PTX_OP_CVT && in.type2 == PTX_T_F16))
            return perr(p, op_at, "'%.*s': rounding toward zero or an infinity (.rz, .rm, .rp) is "
                        "in archsim's PTX subset only on f32 and f64 add, sub, mul, fma, mad, div, "
                        "rcp, sqrt and cvt to them, and cvt from them to f16 and bf16",
                        (int)oplen, op_at);
    }
    bool int_t = !(in.type == PTX_T_F16 || in.type == PTX_T_F32 || in.type == PTX_T_F64 ||
                   in.type == PTX_T_F16X2 || in.type == PTX_T_BF16 || in.type == PTX_T_BF16X2);
    /* bfloat16 (sm_80's fma.rn.bf16/.bf16x2, sm_90's add, sub, mul, min, max, neg, abs): what
     * cuda_bf16 writes, including cvt between it and f32 */
    bool bf = (ntypes >= 1 && (types[0] == PTX_T_BF16 || types[0] == PTX_T_BF16X2)) ||
              (ntypes == 2 && (types[1] == PTX_T_BF16 || types[1] == PTX_T_BF16X2));
    /* atomic adds of 16-bit floats and pairs (atom/red.add.noftz: atomicAdd on __half, __half2,
     * and on sm_90 __nv_bfloat16, __nv_bfloat162) */
    bool half_atom = (in.op == PTX_OP_ATOM || in.op == PTX_OP_RED) && in.sub == PTX_ATOM_ADD;
    bool f16_types = ntypes >= 1 && (types[0] == PTX_T_F16 || types[0] == PTX_T_F16X2 || bf);
    bool noftz = g_strstr_len(op_at, (gssize)oplen, ".noftz") != NULL;
    if ((in.op == PTX_OP_ATOM || in.op == PTX_OP_RED) && f16_types && half_atom && !noftz)
        return perr(p, op_at, "'%.*s': an atomic add of 16-bit floats is .noftz "
                    "(atom.add.noftz.f16)", (int)oplen, op_at);
    if (noftz && !((in.op == PTX_OP_ATOM || in.op == PTX_OP_RED) && f16_types))
        return perr(p, op_at, "'%.*s': .noftz is on atomic adds of 16-bit floats only", (int)oplen,
                    op_at);
    if ((in.op == PTX_OP_ATOM || in.op == PTX_OP_RED) && !half_atom && ntypes >= 1 &&
        (types[0] == PTX_T_F16 || types[0] == PTX_T_F16X2 || bf))
        return perr(p, op_at, "'%.*s': an atomic on 16-bit floats is an add (atom.add.noftz) in "
                    "archsim's PTX subset", (int)oplen, op_at);
    if (bf && half_atom && p->m->target < 90)
        return perr(p, op_at, "'%.*s' needs .target sm_90 or higher", (int)oplen, op_at);
    if (bf && !half_atom && !(in.op == PTX_OP_ADD || in.op == PTX_OP_SUB || in.op == PTX_OP_MUL ||
                in.op == PTX_OP_FMA || in.op == PTX_OP_MIN || in.op == PTX_OP_MAX ||
                in.op == PTX_OP_NEG || in.op == PTX_OP_ABS || in.op == PTX_OP_SET ||
                in.op == PTX_OP_SETP ||
                (in.op == PTX_OP_CVT && ((types[0] == PTX_T_BF16 && types[1] == PTX_T_F32) ||
                                         (types[0] == PTX_T_F32 && types[1] == PTX_T_BF16) ||
                                         (types[0] == PTX_T_BF16X2 && types[1] == PTX_T_F32)))))
        return perr(p, op_at, "'%.*s': .bf16/.bf16x2 is in archsim's PTX subset on fma, add, sub, "
                    "mul, min, max, neg, abs, set, setp and cvt to or from f32 (move and load them "
                    "as .b16/.b32)", (int)oplen, op_at);
    bool pair_or_bf = bf || (ntypes >= 1 && (types[0] == PTX_T_F16X2 || types[0] == PTX_T_F16)) ||
                      (ntypes == 2 && (types[1] == PTX_T_F16X2 || types[1] == PTX_T_F16));
    if (bf && p->m->target < 90 &&
        (in.op == PTX_OP_ADD || in.op == PTX_OP_SUB || in.op == PTX_OP_MUL ||
         in.op == PTX_OP_SET || in.op == PTX_OP_SETP))
        return perr(p, op_at, "'%.*s' needs .target sm_90 or higher (sm_80 has fma, min, max, neg, "
                    "abs and cvt on bfloat16)", (int)oplen, op_at);
    if ((in.mods & PTX_M_RELU) && (in.mods & PTX_M_SAT))
        return perr(p, op_at, "'%.*s': .relu and .sat do not go together", (int)oplen, op_at);
    if (pair_or_bf && (in.op == PTX_OP_LD || in.op == PTX_OP_ST || in.op == PTX_OP_MOV))
        return perr(p, op_at, "'%.*s': move and load 16-bit floats and pairs of them as .b16 or "
                    ".b32", (int)oplen, op_at);
    if (bf && (in.mods & (PTX_M_SAT | PTX_M_FTZ)))
        return perr(p, op_at, "'%.*s': bfloat16 arithmetic has no .sat or .ftz", (int)oplen, op_at);
    if ((in.mods & PTX_M_RELU) && !(types[0] == PTX_T_F16 || types[0] == PTX_T_F16X2 ||
                                    types[0] == PTX_T_BF16 || types[0] == PTX_T_BF16X2))
        return perr(p, op_at, "'%.*s': .relu is on 16-bit float fma only", (int)oplen, op_at);
    if ((in.mods & PTX_M_NAN) && !(types[0] == PTX_T_F16 || types[0] == PTX_T_F16X2 ||
                                   types[0] == PTX_T_BF16 || types[0] == PTX_T_BF16X2 ||
                                   types[0] == PTX_T_F32))
        return perr(p, op_at, "'%.*s': .NaN is on float min and max only", (int)oplen, op_at);
    if (in.op == PTX_OP_CVT && (types[0] == PTX_T_F16X2 || types[0] == PTX_T_BF16 ||
                                types[0] == PTX_T_BF16X2) &&
        (in.mods & (PTX_M_SAT | PTX_M_FTZ | PTX_M_RNI | PTX_M_RZI | PTX_M_RMI | PTX_M_RPI)))
        return perr(p, op_at, "'%.*s': a conversion to two halves or a bfloat16 takes only its "
                    "rounding (.rn, .rz, .rm, .rp)", (int)oplen, op_at);
    /* the 16-bit float fma and the conversions to the new formats name their rounding (.rn) */
    if (pair_or_bf && ((in.op == PTX_OP_FMA) || (in.op == PTX_OP_CVT && types[1] == PTX_T_F32)) &&
        !(in.mods & (PTX_M_RZ | PTX_M_RM | PTX_M_RP)) && !have_rn)
        return perr(p, op_at, "'%.*s' needs its rounding, .rn", (int)oplen, op_at);
    /* two halves in one register: the arithmetic nvcc's cuda_fp16 writes for __half2 */
    if (((ntypes >= 1 && types[0] == PTX_T_F16X2) || (ntypes == 2 && types[1] == PTX_T_F16X2)) &&
        !half_atom && !(in.op == PTX_OP_ADD || in.op == PTX_OP_SUB || in.op == PTX_OP_MUL ||
          in.op == PTX_OP_FMA || in.op == PTX_OP_MIN || in.op == PTX_OP_MAX ||
          in.op == PTX_OP_NEG || in.op == PTX_OP_ABS || in.op == PTX_OP_SETP ||
          in.op == PTX_OP_SET || in.op == PTX_OP_LD || in.op == PTX_OP_ST ||
          in.op == PTX_OP_MOV || (in.op == PTX_OP_CVT && types[0] == PTX_T_F16X2 &&
                                  types[1] == PTX_T_F32)))
        return perr(p, op_at, "'%.*s': .f16x2 is in archsim's PTX subset on add, sub, mul, fma, "
                    "min, max, neg, abs, setp, set, mov, ld, st and cvt.f16x2.f32", (int)oplen, op_at);
    if ((in.mods & PTX_M_SAT) && int_t && in.op != PTX_OP_CVT && in.op != PTX_OP_VABSDIFF &&
        !(in.type == PTX_T_S32 && (in.op == PTX_OP_ADD || in.op == PTX_OP_SUB ||
                                   (in.op == PTX_OP_MAD && (in.mods & PTX_M_HI)))))
        return perr(p, op_at, "'%.*s': .sat on this integer instruction is not in archsim's PTX "
                    "subset (add.sat.s32, sub.sat.s32, mad.hi.sat.s32, cvt.sat and vabsdiff's "
                    "are)",
                    (int)oplen, op_at);
    /* operands */
    uint32_t idx = en->e->insts->len;
    skip_ws(p);
    if (!(p->p < p->end && *p->p == ';')) {
        do {
            if (in.nargs == PTX_MAX_OPERANDS)
                return perr(p, p->p, "more than %d operands", PTX_MAX_OPERANDS);
            if (!parse_operand(p, en, idx, in.nargs, &in.a[in.nargs]))
                return false;
            in.nargs++;
            /* d|p: shfl's second destination */
            if (accept(p, '|')) {
                if (in.nargs == PTX_MAX_OPERANDS)
                    return perr(p, p->p, "more than %d operands", PTX_MAX_OPERANDS);
                if (!parse_operand(p, en, idx, in.nargs, &in.a[in.nargs]))
                    return false;
                in.a[in.nargs].pair = true;
                in.nargs++;
            }
        } while (accept(p, ','));
    }
    if (!expect(p, ';', "the ';' that ends the instruction"))
        return false;
    for (uint32_t d = 0; d < in.nargs; d++)
        if (in.a[d].kind == PTX_A_VEC && in.a[d].n > 4)
            return perr(p, op_at, "'%.*s': operand %u: a vector of more than 4 elements (only "
                        "wmma's fragments have more)", (int)oplen, op_at, d + 1);
    /* operand counts */
    int want_min = 0, want_max = 0;
    switch ((PtxOp)in.op) {
    case PTX_OP_CVT:                    /* cvt.rn.f16x2.f32 d, a, b (and .bf16x2) */
        want_min = want_max = in.type == PTX_T_F16X2 || in.type == PTX_T_BF16X2 ? 3 : 2;
        break;
    case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_MOV: case PTX_OP_CVTA:
    case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_NOT: case PTX_OP_POPC: case PTX_OP_CLZ:
    case PTX_OP_BREV: case PTX_OP_EX2: case PTX_OP_LG2: case PTX_OP_RCP: case PTX_OP_SQRT:
    case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS:
        want_min = want_max = 2;
        break;
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_DIV: case PTX_OP_REM:
    case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR:
    case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_COPYSIGN:
        want_min = want_max = 3;
        break;
    case PTX_OP_MAD: case PTX_OP_FMA: case PTX_OP_SELP: case PTX_OP_BFE: case PTX_OP_PRMT:
    case PTX_OP_SHF: case PTX_OP_SAD: case PTX_OP_DP4A: case PTX_OP_DP2A: case PTX_OP_VABSDIFF:
        want_min = want_max = 4;
        break;
    case PTX_OP_BFI: case PTX_OP_LOP3:
        want_min = want_max = 5;
        break;
    case PTX_OP_SETP:
        want_min = 3, want_max = 5;     /* p[|q], a, b[, c] */
        break;
    case PTX_OP_SET:
        want_min = 3, want_max = 4;     /* d, a, b[, c] */
        break;
    case PTX_OP_BRA:
        want_min = want_max = 1;
        break;
    case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_MEMBAR: case PTX_OP_TRAP:
        want_min = want_max = 0;
        break;
    case PTX_OP_BAR:
        want_min = 1, want_max = 2;
        break;
    case PTX_OP_BAR_WARP: case PTX_OP_ACTIVEMASK:
        want_min = want_max = 1;
        break;
    case PTX_OP_ATOM:
        want_min = 3, want_max = 4;
        break;
    case PTX_OP_RED:
        want_min = want_max = 2;
        break;
    case PTX_OP_SHFL:
        want_min = 5, want_max = 6;     /* d[|p], a, b, c, membermask */
        break;
    case PTX_OP_VOTE: case PTX_OP_REDUX:
        want_min = want_max = 3;
        break;
    case PTX_OP_MATCH:
        want_min = 3, want_max = 4;     /* d[|p], a, membermask (p: .all only) */
        break;
    case PTX_OP_NANOSLEEP:
        want_min = want_max = 1;
        break;
    case PTX_OP_BFIND:
        want_min = want_max = 2;
        break;
    default:
        break;
    }
    if (in.nargs < want_min || in.nargs > want_max)
        return perr(p, op_at, "'%.*s' takes %d%s operands, got %u", (int)oplen, op_at, want_min,
                    want_max > want_min ? " or more" : "", in.nargs);
    if ((in.op == PTX_OP_LD || in.op == PTX_OP_ST || in.op == PTX_OP_ATOM || in.op == PTX_OP_RED)) {
        const PtxArg *addr = &in.a[in.op == PTX_OP_LD || in.op == PTX_OP_ATOM ? 1 : 0];
        if (addr->kind != PTX_A_ADDR)
            return perr(p, op_at, "'%.*s' needs an address in brackets ([%%rd1], [name+8])",
                        (int)oplen, op_at);
        if (in.vec > 1 && in.a[in.op == PTX_OP_LD ? 0 : 1].kind != PTX_A_VEC)
            return perr(p, op_at, "'%.*s' needs a vector operand {a, b, ...}", (int)oplen, op_at);
        PtxArg *v = &in.a[in.op == PTX_OP_LD ? 0 : 1];
        if (in.vec == 1 && v->kind == PTX_A_VEC && v->n == 1 && v->vec[0] >= 0) {
            int32_t reg = v->vec[0];                    /* {%r1}: the register, as ptxas reads it */
            memset(v, 0, sizeof *v);
            v->kind = PTX_A_REG;
            v->reg = reg;
            v->sym = -1;
        }
        if (in.vec == 1 && v->kind == PTX_A_VEC)
            return perr(p, op_at, "'%.*s': a vector operand needs .v2 or .v4", (int)oplen, op_at);
        if (in.vec > 1 && in.a[in.op == PTX_OP_LD ? 0 : 1].n != in.vec)
            return perr(p, op_at, "'%.*s': the vector has %u elements", (int)oplen, op_at,
                        in.a[in.op == PTX_OP_LD ? 0 : 1].n);
    }
    /* a call's arguments and results (.param declared in a body, and an inlined function's
     * formals) are per-thread local storage; the kernel's own parameters are read-only */
    for (uint32_t d = 0; d < in.nargs; d++) {
        const PtxArg *a = &in.a[d];
        int si = a->kind == PTX_A_SYM ? a->reg : a->kind == PTX_A_ADDR ? a->sym : -1;
        if (si < 0 || !g_array_index(p->m->syms, PtxSym, si).callparam)
            continue;
        if (a->kind == PTX_A_SYM || !(in.op == PTX_OP_LD || in.op == PTX_OP_ST) ||
            in.space != PTX_SPACE_PARAM)
            return perr(p, op_at, "'%.*s': a call's parameter is read with ld.param and written "
                        "with st.param only", (int)oplen, op_at);
        in.space = PTX_SPACE_LOCAL;
    }
    if ((in.op == PTX_OP_ST || in.op == PTX_OP_ATOM || in.op == PTX_OP_RED) &&
        (in.space == PTX_SPACE_PARAM || in.space == PTX_SPACE_CONST))
        return perr(p, op_at, "'%.*s': writing the %s space is not allowed", (int)oplen, op_at,
                    in.space == PTX_SPACE_PARAM ? "parameter" : "constant");
    if (in.op == PTX_OP_BRA && in.a[0].kind != PTX_A_LABEL)
        return perr(p, op_at, "bra needs a label");
    if (in.op == PTX_OP_LOP3 && (in.a[4].kind != PTX_A_IMM || in.a[4].imm < 0 || in.a[4].imm > 255))
        return perr(p, op_at, "'%.*s': the lookup table (operand 5) must be a constant from 0 to "
                    "255", (int)oplen, op_at);
    if (pair_or_bf && in.op != PTX_OP_CVT)
        for (uint32_t d = 0; d < in.nargs; d++)
            if (in.a[d].kind == PTX_A_IMM &&          /* setp's combining predicate may be one */
                !(in.op == PTX_OP_SETP && in.boolop != PTX_BOOL_NONE && d + 1 == in.nargs))
                return perr(p, op_at, "'%.*s': operand %u: a 16-bit float or pair comes in a "
                            "register, not as a constant", (int)oplen, op_at, d + 1);
    /* the registers of a plain arithmetic or logic instruction are of its type (ptxas refuses
     * add.u32 %rd1, ... and add.f32 on .s32 registers; they were computed on the bits) */
    bool checked = in.op == PTX_OP_ADD || in.op == PTX_OP_SUB || in.op == PTX_OP_MUL ||
                   in.op == PTX_OP_MAD || in.op == PTX_OP_FMA || in.op == PTX_OP_DIV ||
                   in.op == PTX_OP_REM || in.op == PTX_OP_MIN || in.op == PTX_OP_MAX ||
                   in.op == PTX_OP_ABS || in.op == PTX_OP_NEG || in.op == PTX_OP_AND ||
                   in.op == PTX_OP_OR || in.op == PTX_OP_XOR || in.op == PTX_OP_NOT ||
                   in.op == PTX_OP_SELP || in.op == PTX_OP_COPYSIGN || in.op == PTX_OP_PRMT ||
                   in.op == PTX_OP_LOP3 || in.op == PTX_OP_BFI || in.op == PTX_OP_BREV ||
                   in.op == PTX_OP_SAD || in.op == PTX_OP_DP4A || in.op == PTX_OP_DP2A ||
                   in.op == PTX_OP_VABSDIFF;
    for (uint32_t d = 0; checked && !(in.mods & PTX_M_WIDE) && d < in.nargs; d++) {
        const PtxArg *a = &in.a[d];
        if (a->kind != PTX_A_REG || (in.op == PTX_OP_SELP && d == 3) ||
            (in.op == PTX_OP_BFI && d >= 3))    /* selp's predicate, bfi's position, length */
            continue;
        const PtxReg *rg = &g_array_index(en->e->regs, PtxReg, a->reg);
        if (!reg_fits((PtxType)in.type, (PtxType)rg->type))
            return perr(p, op_at, "'%.*s': operand %u, %s, is a .%s register; the instruction "
                        "takes .%s values", (int)oplen, op_at, d + 1, rg->name,
                        type_names[rg->type], type_names[in.type]);
    }
    /* a constant as the operand's type takes it (ptxas: "Arguments mismatch"; checked against
     * ptxas operand by operand): a float type a 0f/0d literal, a signed or unsigned type and a
     * predicate an integer, a .b type an integer or the float literal of its width (0f for .b32,
     * 0d for .b64); no constant as cvt's 16-bit float source. These were read as the other
     * kind's bits (add.f32 %f1, %f2, 1 added 1.4e-45) */
    bool typed = checked || in.op == PTX_OP_SETP || in.op == PTX_OP_MOV || in.op == PTX_OP_ST ||
                 in.op == PTX_OP_CVT;
    for (uint32_t d = 0; typed && d < in.nargs; d++) {
        const PtxArg *a = &in.a[d];
        if (a->kind != PTX_A_IMM || (in.op == PTX_OP_LOP3 && d == 4))
            continue;
        PtxType t = (PtxType)in.type;
        if (in.op == PTX_OP_CVT)
            t = (PtxType)in.type2;                  /* cvt's source type */
        else if (in.op == PTX_OP_BFI && d >= 3)
            t = PTX_T_U32;                          /* bfi's position and length */
        else if ((in.op == PTX_OP_SELP && d == 3) ||
                 (in.op == PTX_OP_SETP && in.boolop != PTX_BOOL_NONE && d + 1 == in.nargs))
            t = PTX_T_PRED;                         /* selp's and setp's combining predicate */
        if (in.op == PTX_OP_CVT && (t == PTX_T_F16 || t == PTX_T_BF16))
            return perr(p, op_at, "'%.*s': operand %u: a constant as a .%s source (ptxas takes "
                        "none: move it into a register)", (int)oplen, op_at, d + 1, type_names[t]);
        bool fl = t == PTX_T_F16 || t == PTX_T_F32 || t == PTX_T_F64 || t == PTX_T_BF16 ||
                  t == PTX_T_F16X2 || t == PTX_T_BF16X2;
        bool bits = t >= PTX_T_B8 && t <= PTX_T_B64;
        bool ok = fl ? a->lit != PTX_LIT_INT
                : bits ? (a->lit == PTX_LIT_INT || (a->lit == PTX_LIT_F && t == PTX_T_B32) ||
                          (a->lit == PTX_LIT_D && t == PTX_T_B64))
                : a->lit == PTX_LIT_INT;
        if (!ok)
            return perr(p, op_at, "'%.*s': operand %u: %s where the instruction takes .%s values "
                        "(%s)", (int)oplen, op_at, d + 1,
                        a->lit == PTX_LIT_INT ? "an integer constant" : "a float constant",
                        type_names[t], fl ? "write it as 0f (f32) or 0d (f64) and its hex bits"
                                       : bits ? "an integer, 0f for .b32, 0d for .b64"
                                              : "write it as an integer, or use a .b type");
    }
    if (in.op == PTX_OP_VABSDIFF)
        for (uint32_t d = 1; d < in.nargs; d++)
            if (in.a[d].kind != PTX_A_REG)
                return perr(p, op_at, "'%.*s': operand %u: vabsdiff's sources are registers "
                            "(ptxas takes no constant there)", (int)oplen, op_at, d + 1);
    /* destinations are registers (a vector of them for ld and mov), never negated */
    bool writes = !(in.op == PTX_OP_ST || in.op == PTX_OP_RED || in.op == PTX_OP_BRA ||
                    in.op == PTX_OP_RET || in.op == PTX_OP_EXIT || in.op == PTX_OP_TRAP ||
                    in.op == PTX_OP_BAR || in.op == PTX_OP_NANOSLEEP ||
                    in.op == PTX_OP_BAR_WARP || in.op == PTX_OP_MEMBAR);
    if (in.op == PTX_OP_MATCH && in.sub == PTX_MATCH_ANY && in.nargs > 1 && in.a[1].pair)
        return perr(p, op_at, "'%.*s': only match.all has a predicate (d|p)", (int)oplen, op_at);
    if (in.op == PTX_OP_MATCH) {
        /* d (and p), a of the type's size, a 32-bit member mask */
        uint32_t o = in.a[1].pair ? 2 : 1;
        const PtxArg *d = &in.a[0], *a = &in.a[o], *mk = &in.a[o + 1];
        if (in.nargs != o + 2)
            return perr(p, op_at, "'%.*s' takes d%s, a, membermask", (int)oplen, op_at,
                        o == 2 ? "|p" : "");
        bool ok = d->kind == PTX_A_REG &&
                  reg_fits(PTX_T_B32, g_array_index(en->e->regs, PtxReg, d->reg).type) &&
                  (a->kind == PTX_A_IMM ||
                   (a->kind == PTX_A_REG &&
                    reg_fits((PtxType)in.type, g_array_index(en->e->regs, PtxReg, a->reg).type))) &&
                  (mk->kind == PTX_A_IMM ||
                   (mk->kind == PTX_A_REG &&
                    reg_fits(PTX_T_B32, g_array_index(en->e->regs, PtxReg, mk->reg).type)));
        if (!ok)
            return perr(p, op_at, "'%.*s': d and membermask are 32-bit registers (the mask or a "
                        "constant), a one of the type's size", (int)oplen, op_at);
    }
    if (in.op == PTX_OP_NANOSLEEP &&
        !(in.a[0].kind == PTX_A_IMM ||
          (in.a[0].kind == PTX_A_REG &&
           reg_fits(PTX_T_U32, g_array_index(en->e->regs, PtxReg, in.a[0].reg).type))))
        return perr(p, op_at, "'%.*s': the time is a 32-bit integer register or a constant",
                    (int)oplen, op_at);
    for (uint32_t d = 0; writes && d < (in.nargs > 1 && in.a[1].pair ? 2u : 1u); d++) {
        const PtxArg *a = &in.a[d];
        bool vec_ok = d == 0 && a->kind == PTX_A_VEC && !a->zero &&
                      (in.op == PTX_OP_LD || in.op == PTX_OP_MOV);
        if ((a->kind != PTX_A_REG && !vec_ok) || a->neg)
            return perr(p, op_at, "'%.*s': its destination must be a register", (int)oplen, op_at);
    }
    for (uint32_t d = 1; d < in.nargs; d++)
        if (in.a[d].pair && d != 1)
            return perr(p, op_at, "'%.*s': only the destination may be a pair (d|p)", (int)oplen,
                        op_at);
    /* sources: a label only as bra's target, a vector only as st's data or mov's packed source
     * (ptxas refuses the others; they were read as 0) */
    uint32_t first_src = writes ? (in.nargs > 1 && in.a[1].pair ? 2u : 1u) : 0u;
    for (uint32_t d = first_src; d < in.nargs; d++) {
        const PtxArg *a = &in.a[d];
        if (a->kind == PTX_A_LABEL && in.op != PTX_OP_BRA)
            return perr(p, op_at, "'%.*s': operand %u is a label, not a value", (int)oplen, op_at,
                        d + 1);
        if (a->kind == PTX_A_VEC && !(in.op == PTX_OP_ST && d == 1) && in.op != PTX_OP_MOV)
            return perr(p, op_at, "'%.*s': operand %u is a vector {...}, which only ld, st and "
                        "mov take", (int)oplen, op_at, d + 1);
        if (a->kind == PTX_A_VEC && a->zero && in.op != PTX_OP_MOV)
            return perr(p, op_at, "'%.*s': a 0 in a vector is for mov's packed source only",
                        (int)oplen, op_at);
    }
    if (in.op == PTX_OP_SETP && in.nargs - first_src < 2)
        return perr(p, op_at, "'%.*s' compares two values: setp.CMP.TYPE p[|q], a, b[, c]",
                    (int)oplen, op_at);
    if (en->e->insts->len >= PTX_MAX_INSTS)
        return perr(p, op_at, "more than %d instructions in one kernel", PTX_MAX_INSTS);
    g_array_append_val(en->e->insts, in);
    return true;
}

/* ---- reconvergence: immediate post-dominators ---- */

/* Basic blocks from the leaders (the first instruction, branch targets, the instruction after
 * a branch or an exit); immediate dominators of the reversed CFG (a virtual exit after every
 * ret/exit and the end) by Lengauer and Tarjan, "A Fast Algorithm for Finding Dominators in a
 * Flowgraph" (TOPLAS 1979), the simple version with path compression: O(E log V) on every
 * graph. (An iterative algorithm, Cooper, Harvey and Kennedy 2001, is quadratic on a ladder of
 * back edges: 490,000 of them took minutes.) Each branch reconverges at its block's immediate
 * post-dominator's first instruction, or at the exit (ninsts). Every walk is a loop over
 * arrays: a kernel of 10^6 instructions needs no deep recursion. */
/* Lengauer-Tarjan's eval(v): the path from v up to its forest root compressed (a loop over
 * `stack`, no recursion), then the node of least semidominator on it. NONE: no ancestor. */
static uint32_t lt_eval(uint32_t v, uint32_t *anc, uint32_t *label, const uint32_t *semi,
                        uint32_t *stack)
{
    if (anc[v] == UINT32_MAX)
        return v;
    uint32_t sp = 0;
    for (uint32_t x = v; anc[anc[x]] != UINT32_MAX; x = anc[x])
        stack[sp++] = x;
    while (sp > 0) {
        uint32_t x = stack[--sp], a = anc[x];
        if (semi[label[a]] < semi[label[x]])
            label[x] = label[a];
        anc[x] = anc[a];
    }
    return label[v];
}

static void compute_ipdom(PtxEntry *e)
{
    uint32_t n = e->insts->len;
    e->ipdom = g_new(uint32_t, n ? n : 1);
    if (n == 0)
        return;
    const PtxInst *in = (const PtxInst *)(void *)e->insts->data;
    uint8_t *leader = g_new0(uint8_t, n + 1);
    leader[0] = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (in[i].op == PTX_OP_BRA) {
            leader[in[i].a[0].imm] = 1;
            leader[i + 1] = 1;
        } else if (in[i].op == PTX_OP_RET || in[i].op == PTX_OP_EXIT) {
            leader[i + 1] = 1;
        }
    }
    uint32_t *block_of = g_new(uint32_t, n);
    GArray *first = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        if (leader[i])
            g_array_append_val(first, i);
        block_of[i] = first->len - 1;
    }
    uint32_t nb = first->len, exit_b = nb, nv = nb + 1;    /* node nb: the virtual exit */
    /* successors of each block (the reversed graph's predecessors) */
    uint32_t (*succ)[2] = g_malloc_n(nb ? nb : 1, sizeof *succ);
    uint8_t *nsucc = g_new0(uint8_t, nb);
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t last = (b + 1 < nb ? g_array_index(first, uint32_t, b + 1) : n) - 1;
        const PtxInst *l = &in[last];
        if (l->op == PTX_OP_BRA) {
            succ[b][nsucc[b]++] = block_of[l->a[0].imm];
            if (l->guard >= 0)
                succ[b][nsucc[b]++] = last + 1 < n ? block_of[last + 1] : exit_b;
        } else if ((l->op == PTX_OP_RET || l->op == PTX_OP_EXIT) && l->guard < 0) {
            succ[b][nsucc[b]++] = exit_b;
        } else {
            if (l->op == PTX_OP_RET || l->op == PTX_OP_EXIT)
                succ[b][nsucc[b]++] = exit_b;
            succ[b][nsucc[b]++] = last + 1 < n ? block_of[last + 1] : exit_b;
        }
    }
    /* the reversed graph's successors (each block's predecessors), compressed rows */
    uint32_t *pstart = g_new0(uint32_t, nv + 1), *plist = g_new(uint32_t, 2 * (size_t)nb + 1);
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t k = 0; k < nsucc[b]; k++)
            pstart[succ[b][k] + 1]++;
    for (uint32_t v = 0; v < nv; v++)
        pstart[v + 1] += pstart[v];
    uint32_t *fill = g_memdup2(pstart, nv * sizeof *pstart);
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t k = 0; k < nsucc[b]; k++)
            plist[fill[succ[b][k]]++] = b;
    g_free(fill);
    /* depth-first numbering of the reversed graph from the exit (preorder); dfn 0: unreached */
    const uint32_t NONE = UINT32_MAX;
    uint32_t *dfn = g_new0(uint32_t, nv), *vert = g_new(uint32_t, nv + 1);
    uint32_t *parent = g_new(uint32_t, nv), *iter = g_new(uint32_t, nv);
    uint32_t *stack = g_new(uint32_t, nv), sp = 0, cnt = 0;
    dfn[exit_b] = ++cnt;
    vert[cnt] = exit_b;
    parent[exit_b] = NONE;
    iter[exit_b] = pstart[exit_b];
    stack[sp++] = exit_b;
    while (sp > 0) {
        uint32_t v = stack[sp - 1];
        if (iter[v] < pstart[v + 1]) {
            uint32_t w = plist[iter[v]++];
            if (dfn[w] == 0) {
                dfn[w] = ++cnt;
                vert[cnt] = w;
                parent[w] = v;
                iter[w] = pstart[w];
                stack[sp++] = w;
            }
        } else {
            sp--;
        }
    }
    /* semidominators in reverse preorder, a forest with path compression (eval), buckets as
     * singly linked lists (each node waits in one bucket) */
    uint32_t *semi = g_new(uint32_t, nv), *label = g_new(uint32_t, nv), *anc = g_new(uint32_t, nv);
    uint32_t *idom = g_new(uint32_t, nv), *bhead = g_new(uint32_t, nv), *bnext = g_new(uint32_t, nv);
    for (uint32_t v = 0; v < nv; v++) {
        semi[v] = dfn[v];
        label[v] = v;
        anc[v] = NONE;
        idom[v] = NONE;
        bhead[v] = NONE;
    }
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t w = vert[i];
        for (uint32_t k = 0; k < nsucc[w]; k++) {   /* reversed predecessors: w's successors */
            uint32_t v = succ[w][k];
            if (dfn[v] == 0)
                continue;                           /* never reaches the exit */
            /* eval(v): compress the path from v to its forest root, then v's label */
            uint32_t u = lt_eval(v, anc, label, semi, stack);
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        uint32_t sw = vert[semi[w]], p = parent[w];
        bnext[w] = bhead[sw];
        bhead[sw] = w;
        anc[w] = p;                                 /* link(parent, w) */
        for (uint32_t v = bhead[p]; v != NONE; v = bnext[v]) {
            uint32_t u = lt_eval(v, anc, label, semi, stack);
            idom[v] = semi[u] < semi[v] ? u : p;
        }
        bhead[p] = NONE;
    }
    for (uint32_t i = 2; i <= cnt; i++) {
        uint32_t w = vert[i];
        if (idom[w] != vert[semi[w]])
            idom[w] = idom[idom[w]];
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = block_of[i], d = idom[b];
        /* a block that never reaches an exit (an endless loop) reconverges nowhere: exit */
        e->ipdom[i] = d == NONE || d == exit_b ? n : g_array_index(first, uint32_t, d);
    }
    g_free(pstart);
    g_free(plist);
    g_free(dfn);
    g_free(vert);
    g_free(parent);
    g_free(iter);
    g_free(stack);
    g_free(semi);
    g_free(label);
    g_free(anc);
    g_free(idom);
    g_free(bhead);
    g_free(bnext);
    g_free(succ);
    g_free(nsucc);
    g_free(block_of);
    g_free(leader);
    g_array_free(first, TRUE);
}

/* ---- entries ---- */

static void entry_free(PtxEntry *e)
{
    if (!e)
        return;
    g_free(e->name);
    if (e->insts)
        g_array_free(e->insts, TRUE);
    if (e->regs) {
        for (guint i = 0; i < e->regs->len; i++)
            g_free(g_array_index(e->regs, PtxReg, i).name);
        g_array_free(e->regs, TRUE);
    }
    if (e->params)
        g_array_free(e->params, TRUE);
    g_free(e->ipdom);
    g_free(e->sym_offset);
    g_free(e);
}

/* ---- device functions (.func): read once, copied into each caller at its call ---- */

typedef struct {
    char *name;
    const char *at;             /* its .func */
    const char *body;           /* just after its '{', NULL: declared only */
    uint64_t body_len;          /* bytes to its '}' */
    uint32_t line;              /* the line of body */
    const char *line_start;
    GPtrArray *rets, *args;     /* the formal names (char *) */
    GArray *ret_syms, *arg_syms;        /* their declarations (PtxSym: size, align) */
} FuncDef;

static void func_free(gpointer d)
{
    FuncDef *f = d;
    g_free(f->name);
    g_ptr_array_free(f->rets, TRUE);
    g_ptr_array_free(f->args, TRUE);
    g_array_free(f->ret_syms, TRUE);
    g_array_free(f->arg_syms, TRUE);
    g_free(f);
}

/* `(.param .T name[, ...])`: the formal list of a .func's results or arguments */
static bool func_formals(P *p, GPtrArray *names, GArray *syms)
{
    if (accept(p, ')'))
        return true;
    do {
        if (word_is(p, ".reg"))
            return perr(p, p->p, "a .reg parameter (an old calling convention) is not in "
                        "archsim's PTX subset: .param ones are");
        if (!accept_word(p, ".param"))
            return perr(p, p->p, "expected .param");
        PtxSym s;
        const char *name;
        size_t nl;
        if (!parse_array_decl(p, PTX_SPACE_PARAM, false, &s, &name, &nl))
            return false;
        if (s.size == 0)
            return perr(p, name, "a parameter without a size");
        g_ptr_array_add(names, g_strndup(name, nl));
        g_array_append_val(syms, s);
    } while (accept(p, ','));
    return expect(p, ')', "the parameter list's ')'");
}

/* After `.func`: `[(results)] name[(arguments)] [.noreturn ...]` then `;` or a body. *body_at
 * gets the body's '{' (NULL for a declaration). */
static FuncDef *func_header(P *p, const char *at, const char **body_at)
{
    FuncDef *f = g_new0(FuncDef, 1);
    f->at = at;
    f->rets = g_ptr_array_new_with_free_func(g_free);
    f->args = g_ptr_array_new_with_free_func(g_free);
    f->ret_syms = g_array_new(FALSE, FALSE, sizeof(PtxSym));
    f->arg_syms = g_array_new(FALSE, FALSE, sizeof(PtxSym));
    *body_at = NULL;
    while (accept_word(p, ".attribute")) {                   /* .attribute(.unified(...)) */
        int depth = 0;
        skip_ws(p);
        do {
            if (p->p < p->end && *p->p == '(')
                depth++;
            else if (p->p < p->end && *p->p == ')')
                depth--;
            p->p++;
        } while (p->p < p->end && depth > 0);
    }
    if (accept(p, '(') && !func_formals(p, f->rets, f->ret_syms))
        goto fail;
    size_t n = peek_ident(p);
    if (n == 0 || p->p[0] == '.' || p->p[0] == '%') {
        perr(p, p->p, "expected the function's name after .func");
        goto fail;
    }
    f->name = g_strndup(p->p, n);
    p->p += n;
    if (accept(p, '(') && !func_formals(p, f->args, f->arg_syms))
        goto fail;
    while (accept_word(p, ".noreturn") || accept_word(p, ".pragma")) {
        if (p->p[-1] == 'a') {          /* .pragma "...";: its string and ';' */
            while (p->p < p->end && *p->p != ';' && *p->p != '{')
                p->p++;
            accept(p, ';');
        }
    }
    skip_ws(p);
    if (p->p < p->end && *p->p == '{') {
        *body_at = p->p;
    } else if (!expect(p, ';', "a function's body or the ';' of its declaration")) {
        goto fail;
    }
    return f;
fail:
    g_free(f->name);
    f->name = g_strdup("");
    func_free(f);
    return NULL;
}

/* p->p at a '{': past its matching '}' (comments and strings skipped); false at the end of the
 * file without it (the caller says what was left open). */
static bool skip_block(P *p)
{
    int depth = 0;
    while (p->p < p->end) {
        skip_ws(p);
        if (p->p >= p->end)
            break;
        char c = *p->p++;
        if (c == '{') {
            depth++;
        } else if (c == '}') {
            if (--depth == 0)
                return true;
        } else if (c == '"') {
            while (p->p < p->end && *p->p != '"' && *p->p != '\n')
                p->p++;
            if (p->p < p->end && *p->p == '"')
                p->p++;
        }
    }
    return false;
}

/* Every .func of the file, before any entry is read (an entry may call a function defined
 * after it): its header, and where its body starts. */
static bool scan_funcs(P *p)
{
    P q = *p;
    q.p = q.s;
    while (!q.failed) {
        skip_ws(&q);
        if (q.p >= q.end)
            break;
        const char *at = q.p;
        if (*q.p == '{') {
            if (!skip_block(&q))
                break;                      /* an entry left open: reported when it is read */
            continue;
        }
        if (accept_word(&q, ".func")) {
            const char *body;
            FuncDef *f = func_header(&q, at, &body);
            if (!f)
                break;
            FuncDef *old = g_hash_table_lookup(p->funcs, f->name);
            if (old && old->body && body) {
                perr(&q, at, "function %s is defined twice", f->name);
                func_free(f);
                break;
            }
            if (body) {
                f->body = body + 1;
                f->line = 1;
                f->line_start = q.s;
                for (const char *c = q.s; c < f->body; c++)
                    if (*c == '\n') {
                        f->line++;
                        f->line_start = c + 1;
                    }
                q.p = body;
                if (!skip_block(&q)) {
                    perr(&q, q.end, "the file ends inside function %s (no closing '}')", f->name);
                    func_free(f);
                    break;
                }
                f->body_len = (uint64_t)(q.p - f->body);
            }
            if (old && !body)
                func_free(f);               /* a declaration after the definition */
            else
                g_hash_table_replace(p->funcs, g_strdup(f->name), f);
            continue;
        }
        /* anything else: to the next ';', '{' or line */
        size_t k = peek_ident(&q);
        q.p += k ? k : 1;
    }
    if (q.failed) {
        p->failed = true;
        return false;
    }
    return true;
}

/* `call[.uni] [(r)], f[, (a, b, ...)];` in a body: f's body copied here, its formals standing
 * for the caller's .param variables, its ret a branch to the copy's end, its labels and arrays
 * its own (PTX ISA 9.7.12.7 "call"; no recursion, no indirect calls). */
static bool parse_body(P *p, Ent *en);

static bool call_list(P *p, Ent *en, GArray *out, const char *what)
{
    (void)en;
    if (accept(p, ')'))
        return true;
    do {
        size_t n = peek_ident(p);
        if (n == 0)
            return perr(p, p->p, "expected a .param variable in the call's %s", what);
        int si = sym_find(p, p->p, n);
        if (si < 0 || !g_array_index(p->m->syms, PtxSym, si).callparam)
            return perr(p, p->p, "'%.*s': a call's %s are .param variables declared before it "
                        "(immediates and registers are not in archsim's PTX subset)", (int)n,
                        p->p, what);
        g_array_append_val(out, si);
        p->p += n;
    } while (accept(p, ','));
    return expect(p, ')', "the list's ')'");
}

/* A call of one of the CUDA device runtime's functions that archsim provides: vprintf (what
 * printf compiles to: the format and a pointer to the packed arguments; it returns a count) and
 * __assertfail (a failed assert: message, file, line, function, the character size). One
 * instruction; its operands the arguments' .param symbols, then the result's. */
static bool host_call(P *p, Ent *en, const FuncDef *f, GArray *rets, GArray *args, uint32_t line,
                      uint32_t col, const char *fat)
{
    bool pf = strcmp(f->name, "vprintf") == 0;
    uint32_t nargs = pf ? 2 : 5, nrets = pf ? 1 : 0;
    if (args->len != nargs || rets->len > nrets)
        return perr(p, fat, "call of %s with %u arguments and %u results: CUDA's takes %u and "
                    "returns %u", f->name, args->len, rets->len, nargs, nrets);
    PtxInst in;
    memset(&in, 0, sizeof in);
    in.op = PTX_OP_HOSTCALL;
    in.sub = pf ? PTX_HOST_VPRINTF : PTX_HOST_ASSERTFAIL;
    in.guard = -1;
    in.vec = 1;
    in.line = line;
    in.col = col;
    for (guint i = 0; i < args->len + rets->len; i++) {
        PtxArg *a = &in.a[in.nargs++];
        a->kind = PTX_A_SYM;
        a->reg = g_array_index(i < args->len ? args : rets, int, i < args->len ? i : i - args->len);
        a->sym = -1;
        const PtxSym *sym = &g_array_index(p->m->syms, PtxSym, a->reg);
        uint64_t want = i >= args->len || (!pf && i == 2) ? 4 : 8;  /* the int result, the line */
        if (!sym->callparam || sym->size < want)
            return perr(p, fat, "call of %s: %s %u is not a .param of %" G_GUINT64_FORMAT
                        " bytes or more", f->name, i < args->len ? "argument" : "result",
                        i < args->len ? i + 1 : 1, want);
    }
    const char *t = pf ? "call vprintf" : "call __assertfail";
    int text = intern_text(p->m, t, strlen(t));
    if (text < 0)
        return perr(p, fat, "more than %d distinct opcodes in one file", PTX_MAX_TEXTS);
    in.text = (uint16_t)text;
    if (en->e->insts->len >= PTX_MAX_INSTS)
        return perr(p, fat, "more than %d instructions in one kernel", PTX_MAX_INSTS);
    g_array_append_val(en->e->insts, in);
    return true;
}

static bool inline_call(P *p, Ent *en, const char *stmt)
{
    uint32_t line = p->line, col = (uint32_t)(stmt - p->line_start) + 1;
    p->p += 4;                                  /* call */
    while (p->p < p->end && *p->p == '.') {
        size_t n = peek_ident(p);
        if (n == 4 && memcmp(p->p, ".uni", 4) == 0) {
            p->p += n;
            continue;
        }
        return perr(p, p->p, "call%.*s is not in archsim's PTX subset (call and call.uni are)",
                    (int)n, p->p);
    }
    GArray *rets = g_array_new(FALSE, FALSE, sizeof(int)), *args = g_array_new(FALSE, FALSE, sizeof(int));
    bool ok = false;
    FuncDef *f = NULL;
    const char *fat;
    size_t n;
    if (accept(p, '(') && (!call_list(p, en, rets, "results") || !expect(p, ',', "',' after the results")))
        goto out;
    fat = (skip_ws(p), p->p);
    n = peek_ident(p);
    if (n == 0 || p->p[0] == '.') {
        perr(p, p->p, "expected the called function's name");
        goto out;
    }
    if (p->p[0] == '%' || reg_named(en, p->p, n)) {
        perr(p, p->p, "an indirect call (through a register) is not in archsim's PTX subset");
        goto out;
    }
    {
        char *name = g_strndup(p->p, n);
        f = g_hash_table_lookup(p->funcs, name);
        g_free(name);
    }
    p->p += n;
    if (accept(p, ',')) {
        if (!expect(p, '(', "the arguments' '('") || !call_list(p, en, args, "arguments"))
            goto out;
        if (accept(p, ',')) {
            perr(p, p->p, "a call with a prototype (an indirect call) is not in archsim's PTX subset");
            goto out;
        }
    }
    if (!expect(p, ';', "the ';' that ends the call"))
        goto out;
    if (!f) {
        perr(p, fat, "function %.*s is not declared in this file", (int)n, fat);
        goto out;
    }
    if (!f->body && (strcmp(f->name, "vprintf") == 0 || strcmp(f->name, "__assertfail") == 0)) {
        ok = host_call(p, en, f, rets, args, line, col, fat);
        goto out;
    }
    if (!f->body) {
        perr(p, fat, "function %s is declared but not defined in this file (external functions "
             "other than vprintf and __assertfail are not in archsim's PTX subset)", f->name);
        goto out;
    }
    for (Inl *u = en->inl; u; u = u->up)
        if (strcmp(u->fname, f->name) == 0) {
            perr(p, fat, "function %s calls itself (recursion is not in archsim's PTX subset)",
                 f->name);
            goto out;
        }
    if (en->inl && en->inl->depth >= 64) {
        perr(p, fat, "calls nested more than 64 deep");
        goto out;
    }
    /* every call reads its function's body again: a bound on all of it (calls that double at
     * each level would otherwise read without end) */
    p->copied += f->body_len;
    if (p->copied > PTX_MAX_BYTES) {
        perr(p, fat, "the calls copy more than %" G_GUINT64_FORMAT " MiB of function bodies "
             "(archsim expands each call in place)", PTX_MAX_BYTES >> 20);
        goto out;
    }
    if (rets->len != f->rets->len || args->len != f->args->len) {
        perr(p, stmt, "call of %s with %u argument%s and %u result%s: it takes %u and returns %u",
             f->name, args->len, args->len == 1 ? "" : "s", rets->len, rets->len == 1 ? "" : "s",
             f->args->len, f->rets->len);
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        GArray *act = k ? args : rets, *frm = k ? f->arg_syms : f->ret_syms;
        for (guint i = 0; i < act->len; i++) {
            const PtxSym *a = &g_array_index(p->m->syms, PtxSym, g_array_index(act, int, i));
            const PtxSym *b = &g_array_index(frm, PtxSym, i);
            if (a->size < b->size) {
                perr(p, stmt, "call of %s: %s %u has %" G_GUINT64_FORMAT " bytes, the function's "
                     "%" G_GUINT64_FORMAT, f->name, k ? "argument" : "result", i + 1, a->size,
                     b->size);
                goto out;
            }
        }
    }
    {
        Inl inl = { .fname = f->name, .up = en->inl, .depth = en->inl ? en->inl->depth + 1 : 1 };
        uint32_t id = ++p->uniq;
        snprintf(inl.suffix, sizeof inl.suffix, "\x01%u", id);
        inl.ret_label = g_strdup_printf("\x01ret%u", id);
        const char *save_p = p->p, *save_ls = p->line_start;
        uint32_t save_line = p->line;
        p->p = f->body;
        p->line = f->line;
        p->line_start = f->line_start;
        scope_push(en);
        for (guint i = 0; i < f->rets->len; i++) {
            const char *fn = g_ptr_array_index(f->rets, i);
            alias_add(en, fn, strlen(fn), g_array_index(rets, int, i));
        }
        for (guint i = 0; i < f->args->len; i++) {
            const char *fn = g_ptr_array_index(f->args, i);
            alias_add(en, fn, strlen(fn), g_array_index(args, int, i));
        }
        en->inl = &inl;
        bool body_ok = parse_body(p, en);
        en->inl = inl.up;
        p->p = save_p;
        p->line = save_line;
        p->line_start = save_ls;
        if (body_ok)        /* the copy's end: where its ret goes */
            g_hash_table_insert(en->labels, inl.ret_label, GUINT_TO_POINTER(en->e->insts->len + 1));
        else
            g_free(inl.ret_label);
        ok = body_ok;
    }
out:
    g_array_free(rets, TRUE);
    g_array_free(args, TRUE);
    return ok;
}

/* The statements of a body after its '{' (whose scope the caller opened), to its '}': an
 * entry's, or a function's copy at a call. */
static bool inline_call(P *p, Ent *en, const char *stmt);

static bool parse_body(P *p, Ent *en)
{
    int depth = 1;
    while (depth > 0) {
        skip_ws(p);
        if (p->p >= p->end) {
            if (en->inl)
                perr(p, p->end, "the file ends inside function %s (no closing '}')", en->inl->fname);
            else
                perr(p, p->end, "the file ends inside entry %s (no closing '}')", en->e->name);
            return false;
        }
        /* the line of what comes next */
        for (const char *c = p->line_start; c < p->p; c++)
            if (*c == '\n') {
                p->line++;
                p->line_start = c + 1;
            }
        const char *stmt = p->p;
        if (accept(p, '{')) {
            depth++;
            scope_push(en);
            continue;
        }
        if (accept(p, '}')) {
            depth--;
            scope_pop(en);
            continue;
        }
        if (accept_word(p, ".reg")) {
            if (!reg_decl(p, en))
                return false;
            continue;
        }
        if (word_is(p, ".shared") || word_is(p, ".local") || word_is(p, ".global") ||
            word_is(p, ".const") || word_is(p, ".param")) {
            PtxSpace sp = p->p[1] == 's' ? PTX_SPACE_SHARED : p->p[1] == 'l' ? PTX_SPACE_LOCAL
                        : p->p[1] == 'g' ? PTX_SPACE_GLOBAL : p->p[1] == 'p' ? PTX_SPACE_PARAM
                        : PTX_SPACE_CONST;
            p->p += peek_ident(p);
            PtxSym s;
            const char *name;
            size_t nl;
            if (!parse_array_decl(p, sp, false, &s, &name, &nl))
                return false;
            if (!expect(p, ';', "the ';' after the declaration")) {
                g_free(s.init);
                return false;
            }
            if (sp == PTX_SPACE_PARAM) {        /* a call's argument or result */
                if (s.size == 0)
                    return perr(p, stmt, "a parameter without a size");
                s.space = PTX_SPACE_LOCAL;
                s.callparam = true;
            }
            if (sp == PTX_SPACE_PARAM || en->inl) {
                /* scoped: each callseq { } declares its param0, each copy of a function its
                 * .local arrays, under a name of their own; a function's .shared, .global and
                 * .const variables are one object however many copies name them */
                char *plain = g_strndup(name, nl);
                if (scope_has_kind(en, plain, true)) {
                    perr(p, stmt, "'%s' is declared twice", plain);
                    g_free(plain);
                    g_free(s.init);
                    return false;
                }
                bool one = sp != PTX_SPACE_PARAM && sp != PTX_SPACE_LOCAL;
                char *inner = one ? g_strdup_printf("%s\x01%s", plain, en->inl->fname)
                                  : g_strdup_printf("%s\x01%u", plain, ++p->uniq);
                int si = one ? sym_find(p, inner, strlen(inner)) : -1;
                if (si >= 0)
                    g_free(s.init);             /* an earlier copy declared it */
                else
                    si = sym_add(p, stmt, inner, strlen(inner), s);
                g_free(inner);
                if (si < 0) {
                    g_free(plain);
                    return false;
                }
                alias_add(en, plain, strlen(plain), si);
                g_free(plain);
                continue;
            }
            if (sym_add(p, stmt, name, nl, s) < 0)
                return false;
            continue;
        }
        if (accept_word(p, ".pragma")) {
            while (p->p < p->end && *p->p != ';')
                p->p++;
            if (!expect(p, ';', "the ';' after .pragma"))
                return false;
            continue;
        }
        if (word_is(p, ".loc") || word_is(p, ".file")) {
            while (p->p < p->end && *p->p != '\n')
                p->p++;
            continue;
        }
        /* a label? */
        size_t k = peek_ident(p);
        if (k > 0 && p->p[0] != '.' && p->p[0] != '%') {
            const char *after = p->p + k;
            while (after < p->end && (*after == ' ' || *after == '\t'))
                after++;
            if (after < p->end && *after == ':') {
                char *name = label_name(en, p->p, k);
                if (g_hash_table_contains(en->labels, name)) {
                    perr(p, p->p, "label %.*s is defined twice", (int)k, p->p);
                    g_free(name);
                    return false;
                }
                g_hash_table_insert(en->labels, name, GUINT_TO_POINTER(en->e->insts->len + 1));
                p->p = after + 1;
                continue;
            }
        }
        if (k > 0 && p->p[0] == '.') {
            perr(p, p->p, "directive %.*s is not in archsim's PTX subset inside an entry",
                 (int)k, p->p);
            return false;
        }
        if (k == 4 && memcmp(p->p, "call", 4) == 0) {
            if (!inline_call(p, en, stmt))
                return false;
            continue;
        }
        if (!parse_inst(p, en, p->line_start))
            return false;
        PtxInst *last = &g_array_index(en->e->insts, PtxInst, en->e->insts->len - 1);
        if (en->inl && last->op == PTX_OP_RET) {
            /* a function's ret: a branch to the end of this copy (under the ret's guard) */
            last->op = PTX_OP_BRA;
            last->nargs = 1;
            memset(&last->a[0], 0, sizeof last->a[0]);
            last->a[0].kind = PTX_A_LABEL;
            last->a[0].reg = last->a[0].sym = -1;
            Fixup f = { .inst = en->e->insts->len - 1, .arg = 0,
                        .name = g_strdup(en->inl->ret_label), .at = stmt };
            g_array_append_val(en->fixups, f);
        }
    }
    return true;
}

static bool parse_entry(P *p, const char *kw)
{
    PtxEntry *e = g_new0(PtxEntry, 1);
    e->insts = g_array_new(FALSE, FALSE, sizeof(PtxInst));
    e->regs = g_array_new(FALSE, FALSE, sizeof(PtxReg));
    e->params = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_ptr_array_add(p->m->entries, e);
    Ent en = { .e = e, .reg_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
               .labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
               .fixups = g_array_new(FALSE, FALSE, sizeof(Fixup)),
               .scopes = g_ptr_array_new(),
               .sym_alias = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
    p->en = &en;
    bool ok = false;
    size_t n = peek_ident(p);
    if (n == 0 || p->p[0] == '.' || p->p[0] == '%') {
        perr(p, p->p, "expected the entry's name after %s", kw);
        goto out;
    }
    e->name = g_strndup(p->p, n);
    e->line = p->line;
    p->p += n;
    /* parameters */
    if (accept(p, '(')) {
        if (!accept(p, ')')) {
            do {
                const char *at = p->p;
                if (!accept_word(p, ".param")) {
                    perr(p, p->p, "expected .param");
                    goto out;
                }
                PtxSym s;
                const char *name;
                size_t nl;
                if (!parse_array_decl(p, PTX_SPACE_PARAM, false, &s, &name, &nl))
                    goto out;
                if (s.size == 0) {
                    perr(p, at, "a parameter without a size");
                    goto out;
                }
                s.offset = (e->param_bytes + s.align - 1) / s.align * s.align;
                e->param_bytes = s.offset + s.size;
                int si = sym_add(p, name, name, nl, s);
                if (si < 0)
                    goto out;
                uint32_t u = (uint32_t)si;
                g_array_append_val(e->params, u);
            } while (accept(p, ','));
            if (!expect(p, ')', "the parameter list's ')'"))
                goto out;
        }
    }
    /* performance directives before the body: read and ignored */
    for (;;) {
        static const char *const perf[] = { ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg",
                                            ".maxnctapersm", ".noreturn", ".pragma",
                                            ".explicitcluster", ".reqnctapercluster",
                                            ".maxclusterrank" };
        bool any = false;
        for (size_t i = 0; i < G_N_ELEMENTS(perf); i++)
            if (accept_word(p, perf[i])) {
                any = true;
                skip_ws(p);
                while (p->p < p->end && *p->p != '{' && *p->p != '.' && *p->p != ';') {
                    if (*p->p == '"') {
                        p->p++;
                        while (p->p < p->end && *p->p != '"' && *p->p != '\n')
                            p->p++;
                    }
                    p->p++;
                    skip_ws(p);
                }
                accept(p, ';');
            }
        if (!any)
            break;
    }
    if (!expect(p, '{', "the entry's body"))
        goto out;
    scope_push(&en);
    if (!parse_body(p, &en))
        goto out;
    for (guint i = 0; i < en.fixups->len; i++) {
        Fixup *f = &g_array_index(en.fixups, Fixup, i);
        gpointer v = g_hash_table_lookup(en.labels, f->name);
        if (!v) {
            perr(p, f->at, "label %.*s is not defined in %s", (int)strcspn(f->name, "\x01"),
                 f->name, e->name);
            goto out;
        }
        g_array_index(e->insts, PtxInst, f->inst).a[f->arg].imm = (int64_t)GPOINTER_TO_UINT(v) - 1;
    }
    /* a label at the very end targets ninsts: an implicit ret there */
    for (guint i = 0; i < e->insts->len; i++) {
        const PtxInst *in = &g_array_index(e->insts, PtxInst, i);
        if (in->op == PTX_OP_BRA && (uint64_t)in->a[0].imm >= e->insts->len) {
            int t = intern_text(p->m, "ret", 3);
            if (t < 0) {
                perr(p, p->p, "more than %d distinct opcodes in one file", PTX_MAX_TEXTS);
                goto out;
            }
            PtxInst r = { .op = PTX_OP_RET, .guard = -1, .vec = 1, .text = (uint16_t)t,
                          .line = in->line, .col = 1 };
            g_array_append_val(e->insts, r);
            break;
        }
    }
    if (e->insts->len == 0 || (g_array_index(e->insts, PtxInst, e->insts->len - 1).op != PTX_OP_RET &&
                               g_array_index(e->insts, PtxInst, e->insts->len - 1).op != PTX_OP_EXIT)) {
        int t = intern_text(p->m, "ret", 3);
        if (t < 0) {
            perr(p, p->p, "more than %d distinct opcodes in one file", PTX_MAX_TEXTS);
            goto out;
        }
        PtxInst r = { .op = PTX_OP_RET, .guard = -1, .vec = 1, .text = (uint16_t)t,
                      .line = p->line, .col = 1 };
        g_array_append_val(e->insts, r);
    }
    compute_ipdom(e);
    ok = true;
out:
    for (guint i = 0; i < en.fixups->len; i++)
        g_free(g_array_index(en.fixups, Fixup, i).name);
    g_array_free(en.fixups, TRUE);
    while (en.scopes->len > 0)      /* left open by an error */
        scope_pop(&en);
    g_ptr_array_free(en.scopes, TRUE);
    g_hash_table_destroy(en.reg_index);
    g_hash_table_destroy(en.labels);
    g_hash_table_destroy(en.sym_alias);
    p->en = NULL;
    return ok;
}

/* ---- the module ---- */

void ptx_module_free(PtxModule *m)
{
    if (!m)
        return;
    if (m->vars)
        g_ptr_array_unref(m->vars);
    g_free(m->path);
    if (m->syms) {
        for (guint i = 0; i < m->syms->len; i++) {
            g_free(g_array_index(m->syms, PtxSym, i).name);
            g_free(g_array_index(m->syms, PtxSym, i).init);
        }
        g_array_free(m->syms, TRUE);
    }
    if (m->entries) {
        for (guint i = 0; i < m->entries->len; i++)
            entry_free(g_ptr_array_index(m->entries, i));
        g_ptr_array_free(m->entries, TRUE);
    }
    if (m->text_index)
        g_hash_table_destroy(m->text_index);
    if (m->texts)
        g_ptr_array_free(m->texts, TRUE);
    g_free(m);
}

PtxModule *ptx_parse(const char *path, const char *text, size_t len, GError **error)
{
    PtxModule *m = g_new0(PtxModule, 1);
    m->path = g_strdup(path);
    m->syms = g_array_new(FALSE, FALSE, sizeof(PtxSym));
    m->entries = g_ptr_array_new();
    m->texts = g_ptr_array_new_with_free_func(g_free);
    m->text_index = g_hash_table_new(g_str_hash, g_str_equal);
    P p = { .path = path, .s = text, .end = text + len, .p = text, .line = 1, .line_start = text,
            .m = m, .sym_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
            .funcs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, func_free),
            .error = error };
    bool have_version = false, have_target = false;
    if (memchr(text, '\0', len)) {
        const char *z = memchr(text, '\0', len);
        perr(&p, z, "a NUL byte in a PTX file");
    }
    if (!p.failed)
        scan_funcs(&p);
    while (!p.failed && !at_end(&p)) {
        const char *at = p.p;
        if (accept_word(&p, ".version")) {
            skip_ws(&p);
            unsigned long maj = 0, min = 0;
            char *endp;
            maj = strtoul(p.p, &endp, 10);
            if (endp == p.p || *endp != '.') {
                perr(&p, p.p, "expected .version MAJOR.MINOR");
                break;
            }
            min = strtoul(endp + 1, &endp, 10);
            p.p = endp;
            if (maj < 6 || maj > 9) {
                perr(&p, at, ".version %lu.%lu: archsim reads PTX ISA 6.x to 9.x (nvcc 10 to "
                     "13)", maj, min);
                break;
            }
            m->version_major = (uint32_t)maj;
            m->version_minor = (uint32_t)min;
            have_version = true;
            continue;
        }
        if (accept_word(&p, ".target")) {
            skip_ws(&p);
            if (strncmp(p.p, "sm_", 3) != 0) {
                perr(&p, p.p, "expected .target sm_XX");
                break;
            }
            char *endp;
            unsigned long t = strtoul(p.p + 3, &endp, 10);
            if (endp == p.p + 3 || t < 50 || t > 120) {
                perr(&p, p.p, "target %.*s: expected sm_50 to sm_120", (int)strcspn(p.p, " \t\r\n,"),
                     p.p);
                break;
            }
            p.p = endp;
            while (p.p < p.end && (ident_char(*p.p)))   /* sm_90a */
                p.p++;
            while (accept(&p, ',')) {                    /* , texmode_independent ... */
                size_t k = peek_ident(&p);
                p.p += k;
            }
            m->target = (uint32_t)t;
            have_target = true;
            continue;
        }
        if (accept_word(&p, ".address_size")) {
            int64_t a;
            if (!parse_int(&p, &a))
                break;
            if (a != 64) {
                perr(&p, at, ".address_size %" G_GINT64_FORMAT ": archsim runs 64-bit PTX only", a);
                break;
            }
            continue;
        }
        bool is_extern = false;
        for (;;) {
            if (accept_word(&p, ".visible") || accept_word(&p, ".weak"))
                continue;
            if (accept_word(&p, ".extern")) {
                is_extern = true;
                continue;
            }
            break;
        }
        if (accept_word(&p, ".entry")) {
            if (!have_version || !have_target) {
                perr(&p, at, "an entry before the .version and .target lines");
                break;
            }
            if (!parse_entry(&p, ".entry"))
                break;
            continue;
        }
        if (accept_word(&p, ".func")) {     /* read by scan_funcs; copied at each call */
            const char *body;
            FuncDef *f = func_header(&p, at, &body);
            if (!f)
                break;
            func_free(f);
            if (body) {
                p.p = body;
                if (!skip_block(&p)) {
                    perr(&p, p.end, "the file ends inside a function (no closing '}')");
                    break;
                }
            }
            continue;
        }
        if (word_is(&p, ".shared") || word_is(&p, ".global") || word_is(&p, ".const")) {
            PtxSpace sp = p.p[1] == 's' ? PTX_SPACE_SHARED : p.p[1] == 'g' ? PTX_SPACE_GLOBAL
                                                                           : PTX_SPACE_CONST;
            p.p += peek_ident(&p);
            PtxSym s;
            const char *name;
            size_t nl;
            if (!parse_array_decl(&p, sp, is_extern, &s, &name, &nl))
                break;
            if (!expect(&p, ';', "the ';' after the declaration")) {
                g_free(s.init);
                break;
            }
            if (sym_add(&p, at, name, nl, s) < 0)
                break;
            continue;
        }
        size_t k = peek_ident(&p);
        perr(&p, at, "'%.*s' is not in archsim's PTX subset at module level (expected .version, "
             ".target, .address_size, .entry or a .shared/.global/.const variable)",
             (int)(k ? k : MIN((size_t)20, strcspn(at, " \t\r\n"))), at);
        break;
    }
    if (!p.failed && m->entries->len == 0)
        perr(&p, p.end, "no .entry in the file");
    g_hash_table_destroy(p.sym_index);
    g_hash_table_destroy(p.funcs);
    if (p.failed) {
        ptx_module_free(m);
        return NULL;
    }
    /* module globals laid out in declaration order */
    uint64_t goff = 0;
    for (guint i = 0; i < m->syms->len; i++) {
        PtxSym *s = &g_array_index(m->syms, PtxSym, i);
        if (s->space == PTX_SPACE_GLOBAL || s->space == PTX_SPACE_CONST) {
            s->offset = (goff + s->align - 1) / s->align * s->align;
            goff = s->offset + s->size;
            if (goff > PTX_MAX_VARIABLES) {
                g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: the .global "
                            "and .const variables hold more than %" G_GUINT64_FORMAT " GiB "
                            "(at %s), archsim's limit", path, PTX_MAX_VARIABLES >> 30, s->name);
                ptx_module_free(m);
                return NULL;
            }
        }
    }
    /* per entry: the shared and local arrays its instructions name, in declaration order (as
     * ptxas allocates only what a kernel uses), the dynamic shared array after the static ones */
    for (guint k = 0; k < m->entries->len; k++) {
        PtxEntry *e = g_ptr_array_index(m->entries, k);
        uint8_t *used = g_new0(uint8_t, MAX(m->syms->len, 1u));
        for (guint i = 0; i < e->insts->len; i++) {
            const PtxInst *in = &g_array_index(e->insts, PtxInst, i);
            for (uint32_t a = 0; a < in->nargs; a++) {
                if (in->a[a].kind == PTX_A_SYM)
                    used[in->a[a].reg] = 1;
                else if (in->a[a].kind == PTX_A_ADDR && in->a[a].sym >= 0)
                    used[in->a[a].sym] = 1;
            }
        }
        e->sym_offset = g_new0(uint64_t, MAX(m->syms->len, 1u));
        uint64_t off = 0, loff = 0, dyn_align = 16;
        for (guint i = 0; i < m->syms->len; i++) {
            const PtxSym *s = &g_array_index(m->syms, PtxSym, i);
            if (!used[i])
                continue;
            if (s->space == PTX_SPACE_SHARED && !s->dynamic) {
                e->sym_offset[i] = (off + s->align - 1) / s->align * s->align;
                off = e->sym_offset[i] + s->size;
            } else if (s->space == PTX_SPACE_SHARED) {
                dyn_align = MAX(dyn_align, s->align);
                e->uses_dynamic = true;
            } else if (s->space == PTX_SPACE_LOCAL) {
                e->sym_offset[i] = (loff + s->align - 1) / s->align * s->align;
                loff = e->sym_offset[i] + s->size;
            }
        }
        e->shared_bytes = off;
        e->dyn_offset = (off + dyn_align - 1) / dyn_align * dyn_align;
        for (guint i = 0; i < m->syms->len; i++) {
            const PtxSym *s = &g_array_index(m->syms, PtxSym, i);
            if (used[i] && s->space == PTX_SPACE_SHARED && s->dynamic)
                e->sym_offset[i] = e->dyn_offset;
            if (s->space == PTX_SPACE_PARAM || s->space == PTX_SPACE_GLOBAL ||
                s->space == PTX_SPACE_CONST)
                e->sym_offset[i] = s->offset;
        }
        e->local_bytes = loff;
        g_free(used);
    }
    return m;
}

PtxModule *ptx_parse_file(const char *path, GError **error)
{
    GString *text = g_string_new(NULL);
    if (!sim_read_regular(path, PTX_MAX_BYTES, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, text,
                          error)) {
        g_string_free(text, TRUE);
        return NULL;
    }
    PtxModule *m = ptx_parse(path, text->str, text->len, error);
    g_string_free(text, TRUE);
    return m;
}

PtxEntry *ptx_entry(const PtxModule *m, const char *name, GError **error)
{
    if (!name) {
        if (m->entries->len == 1)
            return g_ptr_array_index(m->entries, 0);
        GString *names = g_string_new(NULL);
        for (guint i = 0; i < m->entries->len; i++)
            g_string_append_printf(names, "%s%s", i ? ", " : "",
                                   ((PtxEntry *)g_ptr_array_index(m->entries, i))->name);
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: %u entries (%s): name "
                    "one with `entry:`", m->path, m->entries->len, names->str);
        g_string_free(names, TRUE);
        return NULL;
    }
    for (guint i = 0; i < m->entries->len; i++) {
        PtxEntry *e = g_ptr_array_index(m->entries, i);
        if (strcmp(e->name, name) == 0)
            return e;
    }
    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: no entry named %s",
                m->path, name);
    return NULL;
}
