/* kernel_lang.c: the kernel language of kernel.h: the op table, a two-pass parser with exact
 * FILE:LINE:COL messages, and the data layout (each symbol on its own coherence lines unless
 * packed, array elements one per line: the layout the lock papers assume, Mellor-Crummey &
 * Scott, ACM TOCS 1991, sec. 2).
 *   pass 1: labels (op indices), .var/.array declarations; then the layout
 *   pass 2: ops with their operands, .init and .expect; then labels resolve, spin loops are marked
 */
#include "kernel.h"

#include <string.h>

#include "../../sim/error.h"
#include "../../sim/param.h"

const char *const kernel_name_text[KN_COUNT] = {
    [KN_ID] = "id", [KN_N] = "n", [KN_ITERATIONS] = "iterations", [KN_CS] = "cs",
    [KN_OUTSIDE] = "outside", [KN_JITTER] = "jitter", [KN_BACKOFF_MIN] = "backoff_min",
    [KN_BACKOFF_MAX] = "backoff_max", [KN_SIZE] = "size",
};

const KernelOpInfo kernel_ops[KOP_COUNT] = {
    [KOP_LOAD] = { "load", "da", "load rD, ADDR", "rD = the word at ADDR" },
    [KOP_STORE] = { "store", "av", "store ADDR, V", "the word at ADDR = V" },
    [KOP_TAS] = { "tas", "da", "tas rD, ADDR",
                  "test-and-set: rD = the old word, the word = 1 (atomic; obtains the line in M)" },
    [KOP_XCHG] = { "xchg", "dav", "xchg rD, ADDR, V", "exchange: rD = the old word, the word = V" },
    [KOP_CAS] = { "cas", "davv", "cas rD, ADDR, EXPECTED, NEW",
                  "compare-and-swap: rD = the old word; the word = NEW if it was EXPECTED" },
    [KOP_FAA] = { "faa", "dav", "faa rD, ADDR, V", "fetch-and-add: rD = the old word, word += V" },
    [KOP_LL] = { "ll", "da", "ll rD, ADDR", "load-linked: a load that reserves the line" },
    [KOP_SC] = { "sc", "dav", "sc rD, ADDR, V",
                 "store-conditional: writes V if the reservation held; rD = 1 if so, else 0" },
    [KOP_BEQ] = { "beq", "vvl", "beq A, B, LABEL", "jump to LABEL if A == B" },
    [KOP_BNE] = { "bne", "vvl", "bne A, B, LABEL", "jump to LABEL if A != B" },
    [KOP_BLT] = { "blt", "vvl", "blt A, B, LABEL", "jump to LABEL if A < B (signed)" },
    [KOP_BGE] = { "bge", "vvl", "bge A, B, LABEL", "jump to LABEL if A >= B (signed)" },
    [KOP_JMP] = { "jmp", "l", "jmp LABEL", "jump to LABEL" },
    [KOP_CALL] = { "call", "l", "call LABEL", "call the code at LABEL (up to 8 deep)" },
    [KOP_RET] = { "ret", "", "ret", "return to the op after the last call" },
    [KOP_LOOP] = { "loop", "l", "loop LABEL",
                   "one iteration done: jump to LABEL while iterations remain (the core's "
                   "iterations and duration)" },
    [KOP_MOV] = { "mov", "dv", "mov rD, V", "rD = V" },
    [KOP_ADD] = { "add", "dvv", "add rD, A, B", "rD = A + B" },
    [KOP_SUB] = { "sub", "dvv", "sub rD, A, B", "rD = A - B" },
    [KOP_MUL] = { "mul", "dvv", "mul rD, A, B", "rD = A * B" },
    [KOP_REM] = { "rem", "dvv", "rem rD, A, B", "rD = A mod B (unsigned; B != 0)" },
    [KOP_AND] = { "and", "dvv", "and rD, A, B", "rD = A & B" },
    [KOP_OR] = { "or", "dvv", "or rD, A, B", "rD = A | B" },
    [KOP_XOR] = { "xor", "dvv", "xor rD, A, B", "rD = A ^ B" },
    [KOP_SHL] = { "shl", "dvv", "shl rD, A, B", "rD = A << B (B mod 64)" },
    [KOP_SHR] = { "shr", "dvv", "shr rD, A, B", "rD = A >> B (logical, B mod 64)" },
    [KOP_MIN] = { "min", "dvv", "min rD, A, B", "rD = the smaller of A and B (signed)" },
    [KOP_MAX] = { "max", "dvv", "max rD, A, B", "rD = the larger of A and B (signed)" },
    [KOP_RAND] = { "rand", "dv", "rand rD, V",
                   "rD = a random number in 0 .. V (the core's seeded generator)" },
    [KOP_DELAY] = { "delay", "v?v", "delay V[, J]",
                    "compute for V cycles, plus 0 .. J more at random" },
    [KOP_FENCE] = { "fence", "?f", "fence [full|st|ld]",
                    "order memory accesses: full (the default) waits until the store buffer "
                    "is empty, st keeps earlier stores draining before later ones, ld orders "
                    "earlier loads (model sc, or loads, already in order: one cycle)" },
    [KOP_ACQUIRED] = { "acquired", "", "acquired",
                       "marker: this core now holds the lock (checked: at most one core)" },
    [KOP_RELEASED] = { "released", "", "released", "marker: this core gives the lock up" },
    [KOP_HALT] = { "halt", "", "halt", "this core is done" },
    [KOP_NOP] = { "nop", "", "nop", "one cycle, nothing else" },
    [KOP_XBEGIN] = { "xbegin", "dl", "xbegin rD, LABEL",
                     "start a hardware transaction: rD = -1; on an abort every register is "
                     "restored, rD = the abort status and the core jumps to LABEL" },
    [KOP_XEND] = { "xend", "", "xend", "commit the transaction (its writes appear at once)" },
    [KOP_XABORT] = { "xabort", "v", "xabort V",
                     "abort the transaction: status = explicit, code V (0-255)" },
    [KOP_XTEST] = { "xtest", "d", "xtest rD", "rD = 1 inside a transaction, else 0" },
};

const char *const kernel_fence_names[KFENCE_COUNT] = {
    [KFENCE_FULL] = "full", [KFENCE_ST] = "st", [KFENCE_LD] = "ld",
};

/* ---- the parser's state ------------------------------------------------------------------- */
typedef struct {
    int op;
    uint16_t src;
    uint32_t line, col;
} KpLabel;

typedef struct {
    int op;                      /* the op whose target this is */
    char *name;
    uint16_t src;
    uint32_t line, col;
} KpRef;

typedef struct {
    Kernel *k;
    const int64_t *env;
    uint64_t line_size;
    GError **error;
    uint16_t src;
    uint32_t lineno;
    const char *text;            /* the current line, comment removed */
    const char *p;               /* cursor in it */
    GHashTable *labels;          /* name -> KpLabel* */
    GHashTable *syms;            /* name -> index + 1 */
    GArray *ops, *symv;
    GPtrArray *refs;             /* KpRef* */
    int nops_seen;               /* ops counted by pass 1 */
    bool allow_acq;              /* `acquisitions` may appear (.expect) */
    uint64_t acq;
    int nest;                    /* parentheses open around the cursor (KP_MAX_NEST) */
} Kp;

/* Bounds on what a program's text may ask for: the expression parser recurses once per '(' (a
 * line of a million of them overflowed the stack); the data is laid out from `base` and must
 * end in the address space; every word a declaration's `= VALUE` sets becomes a store run
 * before the program starts (a huge initialized array exhausted memory). */
#define KP_MAX_NEST 64
#define KP_MAX_DATA_END (UINT64_C(1) << 60)
#define KP_MAX_INIT_WORDS (UINT64_C(1) << 20)

static const char *kp_file(const Kp *P, uint16_t src)
{
    return g_ptr_array_index(P->k->files, src);
}

static bool kp_fail_pos(Kp *P, uint16_t src, uint32_t line, uint32_t col, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
static bool kp_fail_pos(Kp *P, uint16_t src, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (P->error && !*P->error)
        g_set_error(P->error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s:%u:%u: %s",
                    kp_file(P, src), line, col, why);
    g_free(why);
    return false;
}

#define KP_COL(P, at) ((uint32_t)((at) - (P)->text) + 1)
#define kp_fail(P, at, ...) kp_fail_pos((P), (P)->src, (P)->lineno, KP_COL(P, at), __VA_ARGS__)

static void kp_ws(Kp *P)
{
    while (*P->p == ' ' || *P->p == '\t' || *P->p == '\r')
        P->p++;
}

static bool kp_end(Kp *P)
{
    kp_ws(P);
    return *P->p == '\0';
}

static bool kp_ident_start(char c) { return g_ascii_isalpha(c) || c == '_'; }
static bool kp_ident_char(char c) { return g_ascii_isalnum(c) || c == '_'; }

/* An identifier at the cursor (after blanks), newly allocated; NULL if none (cursor unmoved). */
static char *kp_ident(Kp *P)
{
    kp_ws(P);
    if (!kp_ident_start(*P->p))
        return NULL;
    const char *s = P->p;
    while (kp_ident_char(*P->p))
        P->p++;
    return g_strndup(s, (size_t)(P->p - s));
}

/* The rest of the line as a short quote for messages. */
static char *kp_token_text(const char *at)
{
    if (!*at)
        return g_strdup("end of line");
    size_t n = 1;
    while (at[n] && at[n] != ' ' && at[n] != '\t' && at[n] != ',' && n < 24)
        n++;
    return g_strndup(at, n);
}

static bool kp_char(Kp *P, char c, const char *what)
{
    kp_ws(P);
    if (*P->p == c) {
        P->p++;
        return true;
    }
    char *t = kp_token_text(P->p);
    kp_fail(P, P->p, "expected '%c' %s, found '%s'", c, what, t);
    g_free(t);
    return false;
}

/* A decimal or 0x hexadecimal integer, optionally negative. */
static bool kp_int(Kp *P, int64_t *out)
{
    kp_ws(P);
    const char *s = P->p;
    bool neg = *P->p == '-';
    if (neg)
        P->p++;
    unsigned base = 10;
    if (P->p[0] == '0' && (P->p[1] == 'x' || P->p[1] == 'X')) {
        base = 16;
        P->p += 2;
    }
    if (!g_ascii_isxdigit(*P->p) || (base == 10 && !g_ascii_isdigit(*P->p)))
        return kp_fail(P, s, "expected a number");
    uint64_t v = 0;
    while (g_ascii_isxdigit(*P->p) && (base == 16 || g_ascii_isdigit(*P->p))) {
        unsigned d = (unsigned)g_ascii_xdigit_value(*P->p);
        if (v > (UINT64_MAX - d) / base)
            return kp_fail(P, s, "number too large");
        v = v * base + d;
        P->p++;
    }
    if (kp_ident_char(*P->p))
        return kp_fail(P, s, "'%.*s' is not a number", (int)(P->p - s + 1), s);
    if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return kp_fail(P, s, "number out of the 64-bit signed range");
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static int kp_name_index(const char *name)
{
    for (int i = 0; i < KN_COUNT; i++)
        if (strcmp(name, kernel_name_text[i]) == 0)
            return i;
    return -1;
}

/* r0..r15: the register number; -1 not a register name; -2 r16 and up (error given). */
static int kp_reg_number(Kp *P, const char *name, const char *at)
{
    if (name[0] != 'r' || !g_ascii_isdigit(name[1]))
        return -1;
    for (const char *q = name + 1; *q; q++)
        if (!g_ascii_isdigit(*q))
            return -1;
    long r = strtol(name + 1, NULL, 10);
    if (r >= KERNEL_NREGS || (name[1] == '0' && name[2])) {
        kp_fail(P, at, "there is no register %s: registers are r0..r%d", name, KERNEL_NREGS - 1);
        return -2;
    }
    return (int)r;
}

/* ---- constant expressions (directives): INT | NAME | (E), * before + and - ---------------- */
static bool kp_expr(Kp *P, int64_t *out);

static bool kp_factor(Kp *P, int64_t *out)
{
    kp_ws(P);
    const char *at = P->p;
    if (*P->p == '(') {
        if (P->nest >= KP_MAX_NEST)
            return kp_fail(P, at, "parentheses nest deeper than %d", KP_MAX_NEST);
        P->p++;
        P->nest++;
        bool ok = kp_expr(P, out) && kp_char(P, ')', "to close '('");
        P->nest--;
        return ok;
    }
    if (kp_ident_start(*P->p)) {
        char *name = kp_ident(P);
        int ix = kp_name_index(name);
        bool ok = true;
        if (ix == KN_ID)
            ok = kp_fail(P, at, "'id' differs from core to core: a declaration cannot use it");
        else if (ix >= 0)
            *out = P->env[ix];
        else if (strcmp(name, "acquisitions") == 0 && P->allow_acq)
            *out = (int64_t)P->acq;
        else {
            const char *cands[KN_COUNT + 1];
            for (int i = 0; i < KN_COUNT; i++)
                cands[i] = kernel_name_text[i];
            cands[KN_COUNT] = P->allow_acq ? "acquisitions" : NULL;
            const char *hint = param_suggest(name, cands, KN_COUNT + 1);
            ok = kp_fail(P, at, "'%s' is not a number or a known value (n, iterations, cs, "
                         "outside, jitter, backoff_min, backoff_max%s)%s%s%s", name,
                         P->allow_acq ? ", acquisitions" : "", hint ? "; did you mean '" : "",
                         hint ? hint : "", hint ? "'?" : "");
        }
        g_free(name);
        return ok;
    }
    return kp_int(P, out);
}

static bool kp_term(Kp *P, int64_t *out)
{
    if (!kp_factor(P, out))
        return false;
    for (;;) {
        kp_ws(P);
        if (*P->p != '*')
            return true;
        const char *op = P->p++;
        int64_t r;
        if (!kp_factor(P, &r))
            return false;
        if (__builtin_mul_overflow(*out, r, out))
            return kp_fail(P, op, "the product is out of the 64-bit signed range");
    }
}

static bool kp_expr(Kp *P, int64_t *out)
{
    if (!kp_term(P, out))
        return false;
    for (;;) {
        kp_ws(P);
        char c = *P->p;
        if (c != '+' && c != '-')
            return true;
        const char *op = P->p++;
        int64_t r;
        if (!kp_term(P, &r))
            return false;
        if (c == '+' ? __builtin_add_overflow(*out, r, out) : __builtin_sub_overflow(*out, r, out))
            return kp_fail(P, op, "the %s is out of the 64-bit signed range",
                           c == '+' ? "sum" : "difference");
    }
}

/* ---- pass 1: labels and declarations ------------------------------------------------------ */

/* Leading `name:` labels of the current line; with `define`, records them at op nops_seen. */
static bool kp_labels(Kp *P, bool define)
{
    for (;;) {
        const char *save = P->p;
        kp_ws(P);
        const char *at = P->p;
        char *name = kp_ident(P);
        if (!name)
            return true;
        kp_ws(P);
        if (*P->p != ':') {
            g_free(name);
            P->p = save;
            return true;
        }
        P->p++;
        if (define) {
            KpLabel *old = g_hash_table_lookup(P->labels, name);
            if (old) {
                bool ok = kp_fail(P, at, "label '%s' is defined twice (first at %s:%u:%u)", name,
                                  kp_file(P, old->src), old->line, old->col);
                g_free(name);
                return ok;
            }
            KpLabel *l = g_new(KpLabel, 1);
            *l = (KpLabel){ .op = P->nops_seen, .src = P->src, .line = P->lineno,
                            .col = KP_COL(P, at) };
            g_hash_table_insert(P->labels, name, l);
        } else {
            g_free(name);
        }
    }
}

static const char *const kp_directives[] = { "var", "array", "init", "expect", NULL };

/* `.var NAME opts` / `.array NAME[COUNT] opts`, opts: `bytes N`, `= VALUE`, `packed`. */
static bool kp_declare(Kp *P, bool array)
{
    kp_ws(P);
    const char *at = P->p;
    char *name = kp_ident(P);
    if (!name)
        return kp_fail(P, at, "expected a symbol name after .%s", array ? "array" : "var");
    KernelSym s = { .name = name, .count = 1, .elem = 8, .src = P->src, .line = P->lineno,
                    .col = KP_COL(P, at) };
    bool ok = true;
    int64_t init = 0;
    bool has_init = false;
    gpointer prev = g_hash_table_lookup(P->syms, name);
    if (prev) {
        const KernelSym *o = &g_array_index(P->symv, KernelSym, GPOINTER_TO_INT(prev) - 1);
        ok = kp_fail(P, at, "symbol '%s' is declared twice (first at %s:%u:%u)", name,
                     kp_file(P, o->src), o->line, o->col);
    } else if (kp_name_index(name) >= 0 || kp_reg_number(P, name, at) != -1) {
        ok = *P->error ? false : kp_fail(P, at, "'%s' is a register or a read-only value: a "
                                         "symbol needs another name", name);
    }
    if (ok && array) {
        int64_t n = 0;
        kp_ws(P);
        const char *cat = P->p;
        ok = kp_char(P, '[', "and the element count after the array's name") &&
             kp_expr(P, &n) && kp_char(P, ']', "after the element count");
        if (ok && n < 1)
            ok = kp_fail(P, cat + 1, "an array needs at least one element (the count is %"
                         G_GINT64_FORMAT ")", n);
        s.count = (uint64_t)n;
    }
    while (ok && !kp_end(P)) {
        const char *oat = P->p;
        if (*P->p == '=') {
            P->p++;
            ok = kp_expr(P, &init);
            has_init = true;
            continue;
        }
        char *opt = kp_ident(P);
        if (opt && strcmp(opt, "packed") == 0) {
            s.packed = true;
        } else if (opt && strcmp(opt, "bytes") == 0) {
            int64_t b;
            kp_ws(P);
            const char *bat = P->p;
            ok = kp_expr(P, &b);
            if (ok && (b < 8 || b % 8 || (uint64_t)b > P->line_size))
                ok = kp_fail(P, bat, "an element is a whole number of 8-byte words up to a line "
                             "(%" G_GUINT64_FORMAT " B): %" G_GINT64_FORMAT " is not",
                             P->line_size, b);
            s.elem = (uint64_t)b;
        } else {
            char *t = kp_token_text(oat);
            ok = kp_fail(P, oat, "unexpected '%s': a declaration takes 'bytes N', '= VALUE' or "
                         "'packed'", t);
            g_free(t);
        }
        g_free(opt);
    }
    if (!ok) {
        g_free(name);
        return false;
    }
    g_array_append_val(P->symv, s);
    g_hash_table_insert(P->syms, name, GINT_TO_POINTER((int)P->symv->len));
    if (has_init && init != 0) {
        /* the layout is not known yet: remember by symbol, element -1 = all, expanded later */
        KernelInit in = { .addr = (uint64_t)(P->symv->len - 1), .value = init };
        g_array_append_val(P->k->inits, in);
    }
    return true;
}

/* Splits the text into lines and calls fn on each with P->text/p/lineno set. */
typedef bool (*KpLineFn)(Kp *P);

static bool kp_each_line(Kp *P, const char *text, KpLineFn fn)
{
    bool ok = true;
    P->lineno = 0;
    const char *s = text ? text : "";
    while (ok && *s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char *line = g_strndup(s, n);
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        P->lineno++;
        P->text = P->p = line;
        ok = fn(P);
        g_free(line);
        s = e ? e + 1 : s + n;
    }
    return ok;
}

static bool kp_directive_name(Kp *P, char **out, const char **at)
{
    *at = P->p;
    P->p++;                                         /* the '.' */
    char *d = kp_ident(P);
    if (!d || !g_strv_contains(kp_directives, d)) {
        const char *hint = d ? param_suggest(d, kp_directives, 4) : NULL;
        bool r = kp_fail(P, *at, "unknown directive '.%s'%s%s%s (directives: .var, .array, "
                         ".init, .expect)", d ? d : "", hint ? "; did you mean '." : "",
                         hint ? hint : "", hint ? "'?" : "");
        g_free(d);
        return r;
    }
    *out = d;
    return true;
}

static bool kp_pass1_line(Kp *P)
{
    if (!kp_labels(P, true))
        return false;
    if (kp_end(P))
        return true;
    if (*P->p == '.') {
        char *d = NULL;
        const char *at;
        if (!kp_directive_name(P, &d, &at))
            return false;
        bool ok = true;
        if (strcmp(d, "var") == 0 || strcmp(d, "array") == 0)
            ok = kp_declare(P, d[0] == 'a');
        g_free(d);
        return ok;
    }
    P->nops_seen++;
    return true;
}

/* ---- pass 2: ops and the directives that use symbols -------------------------------------- */

static int kp_sym(Kp *P, const char *name, const char *at)
{
    gpointer v = g_hash_table_lookup(P->syms, name);
    if (v)
        return GPOINTER_TO_INT(v) - 1;
    const char **cands = g_new0(const char *, P->symv->len + 1);
    for (guint i = 0; i < P->symv->len; i++)
        cands[i] = g_array_index(P->symv, KernelSym, i).name;
    const char *hint = param_suggest(name, cands, P->symv->len);
    kp_fail(P, at, "symbol '%s' is not declared (.var NAME or .array NAME[COUNT])%s%s%s", name,
            hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    g_free(cands);
    return -1;
}

/* A value operand: register, read-only value or number. */
static bool kp_value(Kp *P, KernelVal *v, const KernelOpInfo *info)
{
    kp_ws(P);
    const char *at = P->p;
    if (kp_ident_start(*P->p)) {
        char *name = kp_ident(P);
        int r = kp_reg_number(P, name, at);
        int ix = r == -1 ? kp_name_index(name) : -1;
        bool ok = true;
        if (r >= 0)
            *v = (KernelVal){ .is_slot = true, .slot = (uint8_t)r };
        else if (ix >= 0)
            *v = (KernelVal){ .is_slot = true, .slot = (uint8_t)(KERNEL_NREGS + ix) };
        else if (r == -1) {
            const char *hint = param_suggest(name, kernel_name_text, KN_COUNT);
            ok = kp_fail(P, at, "'%s' is not a register (r0..r15), a number or a read-only value "
                         "(id, n, iterations, cs, outside, jitter, backoff_min, backoff_max)%s%s%s"
                         " in %s", name, hint ? "; did you mean '" : "", hint ? hint : "",
                         hint ? "'?" : "", info->usage);
        } else {
            ok = false;
        }
        g_free(name);
        return ok;
    }
    if (*P->p == '\0' || *P->p == ',')
        return kp_fail(P, at, "missing operand: %s", info->usage);
    v->is_slot = false;
    return kp_int(P, &v->imm);
}

static bool kp_dest(Kp *P, int8_t *rd, const KernelOpInfo *info)
{
    kp_ws(P);
    const char *at = P->p;
    char *name = kp_ident(P);
    int r = name ? kp_reg_number(P, name, at) : -1;
    bool ok = r >= 0;
    if (r == -1) {
        if (name && kp_name_index(name) >= 0)
            kp_fail(P, at, "'%s' is read-only: the destination must be a register r0..r15 (%s)",
                    name, info->usage);
        else if (!name && (*P->p == '\0' || *P->p == ','))
            kp_fail(P, at, "missing operand: %s", info->usage);
        else {
            char *t = kp_token_text(at);
            kp_fail(P, at, "'%s' is not a register: the destination must be r0..r15 (%s)", t,
                    info->usage);
            g_free(t);
        }
    }
    *rd = (int8_t)r;
    g_free(name);
    return ok;
}

/* ADDR: SYMBOL ['[' INDEX ']'] ['+' OFFSET], INDEX and OFFSET values; immediates checked now. */
static bool kp_addr(Kp *P, KernelAddr *a, const KernelOpInfo *info)
{
    kp_ws(P);
    const char *at = P->p;
    char *name = kp_ident(P);
    if (!name) {
        if (*P->p == '\0' || *P->p == ',')
            return kp_fail(P, at, "missing operand: %s", info->usage);
        char *t = kp_token_text(at);
        bool r = kp_fail(P, at, "'%s' is not an address: write SYMBOL, SYMBOL[INDEX] or "
                         "SYMBOL[INDEX]+OFFSET (%s)", t, info->usage);
        g_free(t);
        return r;
    }
    int s = kp_sym(P, name, at);
    g_free(name);
    if (s < 0)
        return false;
    const KernelSym *sym = &g_array_index(P->symv, KernelSym, s);
    a->sym = (int32_t)s;
    a->index = (KernelVal){ .is_slot = false, .imm = 0 };
    a->offset = (KernelVal){ .is_slot = false, .imm = 0 };
    kp_ws(P);
    if (*P->p == '[') {
        P->p++;
        kp_ws(P);
        const char *iat = P->p;
        if (!kp_value(P, &a->index, info) || !kp_char(P, ']', "after the index"))
            return false;
        if (!a->index.is_slot && (a->index.imm < 0 || (uint64_t)a->index.imm >= sym->count))
            return kp_fail(P, iat, "index %" G_GINT64_FORMAT " is out of range: %s has %"
                           G_GUINT64_FORMAT " element%s", a->index.imm, sym->name, sym->count,
                           sym->count == 1 ? "" : "s");
    }
    kp_ws(P);
    if (*P->p == '+') {
        P->p++;
        kp_ws(P);
        const char *oat = P->p;
        if (!kp_value(P, &a->offset, info))
            return false;
        if (!a->offset.is_slot && (a->offset.imm < 0 || a->offset.imm % 8 ||
                                   (uint64_t)a->offset.imm + 8 > sym->elem))
            return kp_fail(P, oat, "offset %" G_GINT64_FORMAT " is not a word of %s's %"
                           G_GUINT64_FORMAT "-byte element%s (a multiple of 8 below %"
                           G_GUINT64_FORMAT ")", a->offset.imm, sym->name, sym->elem,
                           sym->count > 1 ? "s" : "", sym->elem);
    }
    return true;
}

/* A constant address for .init / .expect: SYMBOL ['[' EXPR ']'] ['+' EXPR]. */
static bool kp_const_addr(Kp *P, uint64_t *addr, char **what)
{
    kp_ws(P);
    const char *at = P->p;
    char *name = kp_ident(P);
    if (!name)
        return kp_fail(P, at, "expected a symbol");
    int s = kp_sym(P, name, at);
    if (s < 0) {
        g_free(name);
        return false;
    }
    const KernelSym *sym = &g_array_index(P->symv, KernelSym, s);
    int64_t ix = 0, off = 0;
    kp_ws(P);
    bool indexed = *P->p == '[';
    if (indexed) {
        P->p++;
        kp_ws(P);
        const char *iat = P->p;
        if (!kp_expr(P, &ix) || !kp_char(P, ']', "after the index")) {
            g_free(name);
            return false;
        }
        if (ix < 0 || (uint64_t)ix >= sym->count) {
            g_free(name);
            return kp_fail(P, iat, "index %" G_GINT64_FORMAT " is out of range: %s has %"
                           G_GUINT64_FORMAT " element%s", ix, sym->name, sym->count,
                           sym->count == 1 ? "" : "s");
        }
    }
    kp_ws(P);
    if (*P->p == '+') {
        P->p++;
        kp_ws(P);
        const char *oat = P->p;
        if (!kp_expr(P, &off)) {
            g_free(name);
            return false;
        }
        if (off < 0 || off % 8 || (uint64_t)off + 8 > sym->elem) {
            g_free(name);
            return kp_fail(P, oat, "offset %" G_GINT64_FORMAT " is not a word of %s's %"
                           G_GUINT64_FORMAT "-byte element", off, sym->name, sym->elem);
        }
    }
    *addr = sym->addr + (uint64_t)ix * sym->stride + (uint64_t)off;
    if (off)
        *what = g_strdup_printf("%s[%" G_GINT64_FORMAT "]+%" G_GINT64_FORMAT, name, ix, off);
    else if (indexed)
        *what = g_strdup_printf("%s[%" G_GINT64_FORMAT "]", name, ix);
    else
        *what = g_strdup(name);
    g_free(name);
    return true;
}

static bool kp_directive2(Kp *P)
{
    char *d = NULL;
    const char *at;
    if (!kp_directive_name(P, &d, &at))
        return false;
    bool ok = true;
    if (strcmp(d, "init") == 0 || strcmp(d, "expect") == 0) {
        bool expect = d[0] == 'e';
        uint64_t addr = 0;
        char *what = NULL;
        ok = kp_const_addr(P, &addr, &what) && kp_char(P, '=', "before the value");
        if (ok) {
            kp_ws(P);
            const char *eat = P->p;
            int64_t v = 0;
            P->allow_acq = expect;
            P->acq = 0;
            ok = kp_expr(P, &v);
            P->allow_acq = false;
            if (ok && !kp_end(P)) {
                char *t = kp_token_text(P->p);
                ok = kp_fail(P, P->p, "unexpected '%s' after the value", t);
                g_free(t);
            }
            if (ok && expect) {
                KernelExpect e = { .addr = addr, .what = what, .expr = g_strstrip(g_strdup(eat)),
                                   .src = P->src, .line = P->lineno, .col = KP_COL(P, eat) };
                what = NULL;
                g_array_append_val(P->k->expects, e);
            } else if (ok) {
                KernelInit in = { .addr = addr, .value = v };
                g_array_append_val(P->k->inits, in);
            }
        }
        g_free(what);
    }
    g_free(d);
    return ok;
}

static bool kp_op(Kp *P)
{
    const char *at = P->p;
    char *name = kp_ident(P);
    if (!name) {
        char *t = kp_token_text(at);
        bool r = kp_fail(P, at, "expected an operation, a label (name:) or a directive, found "
                         "'%s'", t);
        g_free(t);
        return r;
    }
    int kind = -1;
    for (int i = 0; i < KOP_COUNT && kind < 0; i++)
        if (strcmp(name, kernel_ops[i].name) == 0)
            kind = i;
    if (kind < 0) {
        const char *cands[KOP_COUNT];
        for (int i = 0; i < KOP_COUNT; i++)
            cands[i] = kernel_ops[i].name;
        const char *hint = param_suggest(name, cands, KOP_COUNT);
        bool r = kp_fail(P, at, "unknown operation '%s'%s%s%s", name,
                         hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
        g_free(name);
        return r;
    }
    g_free(name);
    const KernelOpInfo *info = &kernel_ops[kind];
    KernelOp op = { .kind = (uint8_t)kind, .rd = -1, .addr.sym = -1, .target = -1,
                    .src = P->src, .line = P->lineno, .col = KP_COL(P, at) };
    bool ok = true, optional = false;
    int n = 0;
    for (const char *s = info->sig; ok && *s; s++) {
        if (*s == '?') {
            optional = true;
            continue;
        }
        if (optional && kp_end(P))
            break;
        if (n > 0 && !kp_char(P, ',', "between operands"))
            return false;
        n++;
        switch (*s) {
        case 'd':
            ok = kp_dest(P, &op.rd, info);
            break;
        case 'v': {
            g_assert(op.nvals < 2);
            kp_ws(P);
            const char *vat = P->p;
            ok = kp_value(P, &op.v[op.nvals++], info);
            /* RTM's XABORT takes an 8-bit code (the status word's bits 31:24) */
            if (ok && op.kind == KOP_XABORT && !op.v[0].is_slot &&
                (op.v[0].imm < 0 || op.v[0].imm > 255))
                ok = kp_fail(P, vat, "xabort code %" G_GINT64_FORMAT ": expected 0 to 255 (%s)",
                             op.v[0].imm, info->usage);
            break;
        }
        case 'a':
            ok = kp_addr(P, &op.addr, info);
            break;
        case 'l': {
            kp_ws(P);
            const char *lat = P->p;
            char *l = kp_ident(P);
            if (!l)
                return *P->p ? kp_fail(P, lat, "expected a label name (%s)", info->usage)
                             : kp_fail(P, lat, "missing operand: %s", info->usage);
            KpRef *r = g_new(KpRef, 1);
            *r = (KpRef){ .op = (int)P->ops->len, .name = l, .src = P->src, .line = P->lineno,
                          .col = KP_COL(P, lat) };
            g_ptr_array_add(P->refs, r);
            break;
        }
        case 'f': {
            kp_ws(P);
            const char *fat = P->p;
            char *f = kp_ident(P);
            int fk = -1;
            for (int i = 0; f && i < KFENCE_COUNT && fk < 0; i++)
                if (strcmp(f, kernel_fence_names[i]) == 0)
                    fk = i;
            if (fk < 0) {
                char *t = f ? f : kp_token_text(fat);
                ok = kp_fail(P, fat, "unknown fence kind '%s': full, st or ld (%s)", t,
                             info->usage);
                g_free(t);
                break;
            }
            g_free(f);
            op.fence = (uint8_t)fk;
            break;
        }
        default:
            g_assert_not_reached();
        }
    }
    if (ok && !kp_end(P)) {
        char *t = kp_token_text(P->p);
        ok = kp_fail(P, P->p, "unexpected '%s' after the operands (%s)", t, info->usage);
        g_free(t);
    }
    if (ok)
        g_array_append_val(P->ops, op);
    return ok;
}

static bool kp_pass2_line(Kp *P)
{
    if (!kp_labels(P, false))
        return false;
    if (kp_end(P))
        return true;
    if (*P->p == '.') {
        /* declarations were taken by pass 1 */
        const char *save = P->p;
        P->p++;
        char *d = kp_ident(P);
        bool decl = d && (strcmp(d, "var") == 0 || strcmp(d, "array") == 0);
        g_free(d);
        if (decl)
            return true;
        P->p = save;
        return kp_directive2(P);
    }
    return kp_op(P);
}

/* ---- the whole program ---------------------------------------------------------------------- */

/* Lays the symbols out from base; false (at the declaration) when the data would end past
 * KP_MAX_DATA_END or the declarations' `= VALUE` would set more than KP_MAX_INIT_WORDS words. */
static bool kp_layout(Kp *P, uint64_t base)
{
    g_assert(base <= KP_MAX_DATA_END);
    uint64_t at = base, line = P->line_size;
    for (guint i = 0; i < P->symv->len; i++) {
        KernelSym *s = &g_array_index(P->symv, KernelSym, i);
        if (s->packed) {
            at = (at + 7) & ~7ull;
            s->stride = s->elem;
        } else {
            at = (at + line - 1) & ~(line - 1);
            s->stride = (s->elem + line - 1) & ~(line - 1);
        }
        s->addr = at;
        /* at <= KP_MAX_DATA_END here, so the room left cannot wrap */
        if (s->count > (KP_MAX_DATA_END - at) / s->stride)
            return kp_fail_pos(P, s->src, s->line, s->col, "'%s': %" G_GUINT64_FORMAT " elements "
                               "of %" G_GUINT64_FORMAT " B from 0x%" G_GINT64_MODIFIER "x end past "
                               "the simulated address space (2^60 B)", s->name, s->count,
                               s->stride, at);
        at += s->count * s->stride;
    }
    P->k->bytes = at - base;
    /* `= VALUE` in declarations: every word of every element */
    GArray *decl = P->k->inits;
    uint64_t words = 0;
    for (guint i = 0; i < decl->len; i++) {
        const KernelInit *in = &g_array_index(decl, KernelInit, i);
        const KernelSym *s = &g_array_index(P->symv, KernelSym, in->addr);
        words += s->count * (s->elem / 8);      /* each term below 2^57: the sum cannot wrap */
        if (words > KP_MAX_INIT_WORDS)
            return kp_fail_pos(P, s->src, s->line, s->col, "'%s': '= VALUE' would set %"
                               G_GUINT64_FORMAT " words, and a program's declarations may set "
                               "at most %" G_GUINT64_FORMAT " (memory starts at 0: an array "
                               "read before it is written needs no '= 0')", s->name,
                               s->count * (s->elem / 8), KP_MAX_INIT_WORDS);
    }
    P->k->inits = g_array_sized_new(FALSE, FALSE, sizeof(KernelInit), (guint)words);
    for (guint i = 0; i < decl->len; i++) {
        KernelInit in = g_array_index(decl, KernelInit, i);
        const KernelSym *s = &g_array_index(P->symv, KernelSym, in.addr);
        for (uint64_t e = 0; e < s->count; e++)
            for (uint64_t w = 0; w < s->elem; w += 8) {
                KernelInit x = { .addr = s->addr + e * s->stride + w, .value = in.value };
                g_array_append_val(P->k->inits, x);
            }
    }
    g_array_free(decl, TRUE);
    return true;
}

static bool kp_is_branch(int kind)
{
    return kind == KOP_BEQ || kind == KOP_BNE || kind == KOP_BLT || kind == KOP_BGE;
}

static bool kp_uses(const KernelVal *v, int slot) { return v->is_slot && v->slot == slot; }

/* load rX, ADDR ; bCC .. rX .., back to the load: the only register the loop writes is rX and
 * nothing else happens, so until the line changes every iteration reads the same value. */
static void kp_mark_spins(Kernel *k)
{
    for (int i = 0; i + 1 < k->nops; i++) {
        KernelOp *l = &k->ops[i], *b = &k->ops[i + 1];
        if (l->kind != KOP_LOAD || !kp_is_branch(b->kind) || b->target != i)
            continue;
        int x = l->rd;
        if (kp_uses(&l->addr.index, x) || kp_uses(&l->addr.offset, x))
            continue;
        if (kp_uses(&b->v[0], x) || kp_uses(&b->v[1], x))
            l->spin = true;
    }
}

static void kp_label_free(gpointer p) { g_free(p); }
static void kp_ref_free(gpointer p)
{
    KpRef *r = p;
    g_free(r->name);
    g_free(r);
}

static bool kp_resolve(Kp *P)
{
    Kernel *k = P->k;
    for (guint i = 0; i < P->refs->len; i++) {
        KpRef *r = g_ptr_array_index(P->refs, i);
        KpLabel *l = g_hash_table_lookup(P->labels, r->name);
        if (!l) {
            GPtrArray *names = g_ptr_array_new();
            GHashTableIter it;
            gpointer key;
            g_hash_table_iter_init(&it, P->labels);
            while (g_hash_table_iter_next(&it, &key, NULL))
                g_ptr_array_add(names, key);
            g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);   /* deterministic hints */
            const char *hint = param_suggest(r->name, (const char *const *)names->pdata,
                                             names->len);
            bool res = kp_fail_pos(P, r->src, r->line, r->col, "label '%s' is not defined%s%s%s",
                                   r->name, hint ? "; did you mean '" : "", hint ? hint : "",
                                   hint ? "'?" : "");
            g_ptr_array_free(names, TRUE);
            return res;
        }
        if (l->op >= k->nops)
            return kp_fail_pos(P, r->src, r->line, r->col, "label '%s' marks the end of the "
                               "program: no operation follows it", r->name);
        k->ops[r->op].target = l->op;
    }
    return true;
}

Kernel *kernel_parse(const KernelSource *srcs, int nsrcs, const int64_t env[KN_COUNT],
                     uint64_t base, uint64_t line, GError **error)
{
    g_assert(line >= 8 && (line & (line - 1)) == 0 && nsrcs >= 1);
    Kernel *k = g_new0(Kernel, 1);
    k->files = g_ptr_array_new_with_free_func(g_free);
    k->inits = g_array_new(FALSE, FALSE, sizeof(KernelInit));
    k->expects = g_array_new(FALSE, FALSE, sizeof(KernelExpect));
    memcpy(k->env, env, sizeof k->env);
    k->env[KN_ID] = 0;
    Kp P = { .k = k, .env = k->env, .line_size = line, .error = error };
    P.labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, kp_label_free);
    P.syms = g_hash_table_new(g_str_hash, g_str_equal);
    P.ops = g_array_new(FALSE, TRUE, sizeof(KernelOp));
    P.symv = g_array_new(FALSE, TRUE, sizeof(KernelSym));
    P.refs = g_ptr_array_new_with_free_func(kp_ref_free);
    GError *local = NULL;
    if (!error)
        P.error = &local;
    bool ok = true;
    int nall = nsrcs;
    const char *harness = NULL;
    for (int s = 0; ok && s < nall; s++) {
        const char *file = s < nsrcs ? srcs[s].file : "<harness>";
        const char *text = s < nsrcs ? srcs[s].text : harness;
        g_ptr_array_add(k->files, g_strdup(file));
        P.src = (uint16_t)s;
        ok = kp_each_line(&P, text, kp_pass1_line);
        if (ok && s == nsrcs - 1 && !g_hash_table_contains(P.labels, "main")) {
            KpLabel *acq = g_hash_table_lookup(P.labels, "acquire");
            KpLabel *rel = g_hash_table_lookup(P.labels, "release");
            if (acq && rel) {
                harness = kernel_harness_text(g_hash_table_contains(P.labels, "init"));
                k->harness = true;
                nall++;
            } else if (acq || rel) {
                KpLabel *l = acq ? acq : rel;
                ok = kp_fail_pos(&P, l->src, l->line, l->col, "a lock kernel defines both "
                                 "'acquire' and 'release' (it has only '%s'); a program of "
                                 "your own starts at 'main' or its first op",
                                 acq ? "acquire" : "release");
            }
        }
    }
    if (ok && P.nops_seen == 0)
        ok = kp_fail_pos(&P, 0, 1, 1, "the program has no operations");
    if (ok) {
        ok = kp_layout(&P, base);
        for (int s = 0; ok && s < nall; s++) {
            P.src = (uint16_t)s;
            ok = kp_each_line(&P, s < nsrcs ? srcs[s].text : harness, kp_pass2_line);
        }
    }
    if (ok) {
        g_assert((int)P.ops->len == P.nops_seen);
        k->nops = (int)P.ops->len;
        k->ops = (KernelOp *)g_array_free(P.ops, FALSE);
        P.ops = NULL;
        ok = kp_resolve(&P);
    }
    if (ok) {
        KpLabel *m = g_hash_table_lookup(P.labels, "main");
        k->entry = m ? m->op : 0;
        if (k->entry >= k->nops)
            ok = kp_fail_pos(&P, m->src, m->line, m->col, "label 'main' marks the end of the "
                             "program: no operation follows it");
        kp_mark_spins(k);
        for (int i = 0; i < k->nops; i++)
            k->markers |= k->ops[i].kind == KOP_ACQUIRED || k->ops[i].kind == KOP_RELEASED;
    }
    k->nsyms = (int)P.symv->len;
    k->syms = (KernelSym *)g_array_free(P.symv, FALSE);
    if (P.ops)
        g_array_free(P.ops, TRUE);
    g_hash_table_destroy(P.labels);
    g_hash_table_destroy(P.syms);
    g_ptr_array_free(P.refs, TRUE);
    g_clear_error(&local);
    if (!ok) {
        kernel_free(k);
        return NULL;
    }
    return k;
}

void kernel_free(Kernel *k)
{
    if (!k)
        return;
    for (int i = 0; i < k->nsyms; i++)
        g_free(k->syms[i].name);
    g_free(k->syms);
    g_free(k->ops);
    for (guint i = 0; k->expects && i < k->expects->len; i++) {
        KernelExpect *e = &g_array_index(k->expects, KernelExpect, i);
        g_free(e->what);
        g_free(e->expr);
    }
    if (k->expects)
        g_array_free(k->expects, TRUE);
    if (k->inits)
        g_array_free(k->inits, TRUE);
    g_ptr_array_free(k->files, TRUE);
    g_free(k);
}

bool kernel_eval_expect(const Kernel *k, const KernelExpect *e, uint64_t acquisitions,
                        int64_t *out, char **problem)
{
    GError *err = NULL;
    Kp P = { .k = (Kernel *)k, .env = k->env, .error = &err, .src = e->src, .lineno = e->line,
             .allow_acq = true, .acq = acquisitions };
    /* columns count from the expression's own column */
    char *pad = g_strdup_printf("%*s%s", (int)(e->col - 1), "", e->expr);
    P.text = pad;
    P.p = pad + e->col - 1;
    bool ok = kp_expr(&P, out);
    g_free(pad);
    if (!ok) {
        *problem = g_strdup(err->message);
        g_error_free(err);
    }
    return ok;
}

int kernel_find_sym(const Kernel *k, const char *name)
{
    for (int i = 0; i < k->nsyms; i++)
        if (strcmp(k->syms[i].name, name) == 0)
            return i;
    return -1;
}

char *kernel_op_where(const Kernel *k, int op)
{
    const KernelOp *o = &k->ops[op];
    return g_strdup_printf("%s:%u:%u", (const char *)g_ptr_array_index(k->files, o->src),
                           o->line, o->col);
}
