/* parse.c: herd7's X86 litmus files (32-bit Intel syntax) -> LitTest.
 *
 * Follows herdtools7's own grammar (lib/X86Lexer.mll, X86Parser.mly, stateLexer.mll,
 * stateParser.mly): header `X86 NAME`, info lines, the `{ }` initial state, the thread table
 * (`P0 | P1 ;` then rows of `|`-separated cells ending in `;`), then `locations [..]` and the
 * final condition. Every problem is a LITMUS_ERROR with code ARCHSIM_EXIT_DATAERR and the message
 * `file:line:col: problem`; nothing here may crash on bad input (tests/unit/test_litmus.c mutates
 * the herd files; `make fuzz FUZZ=litmus` fuzzes it with tools/fuzz/fuzz_litmus.c).
 *
 * Instructions that are not one micro-op are split with a hidden per-thread register "%t"
 * (never observable): `INC [x]` without LOCK is LOAD %t,[x]; ALU %t+=1; STORE [x],%t (not
 * atomic, as on x86); `ADD EAX,[x]` is LOAD %t,[x]; ALU EAX+=%t; `XCHG EAX,EBX` is three moves.
 */
#include "litmus.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/input.h"

G_DEFINE_QUARK(archsim-litmus-error-quark, litmus_error)

#define LIT_MAX_FILE (1 << 20)

/* herd7's X86 registers usable in tests, in herd's order (X86Base.ml), which is also the order
 * in which herd prints a thread's registers. */
static const char *const lit_x86_regs[] = { "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP",
                                            "ESP", NULL };
#define LIT_TEMP_REG "%t"

static const char lit_supported[] =
    "supported: MOV, XCHG, MFENCE, LFENCE, SFENCE, ADD, SUB, AND, OR, XOR, INC, DEC, "
    "LOCK ADD/SUB/INC/DEC/XADD/XCHG/CMPXCHG";

/* ---- the reader: a position in the text, the first error ---------------------------------- */

typedef struct {
    int thread;
    char reg[8];
    int64_t value;
    int line, col;
} LitRegInit;

typedef struct {
    const char *file;
    const char *s;
    size_t n, i;
    int line, col;          /* of s[i], 1-based */
    GError *err;
    LitTest *t;
    GArray *reg_inits;      /* LitRegInit: resolved once the thread count is known */
    int cond_atoms;         /* atoms of the condition so far (LIT_MAX_COND_ATOMS) */
} Lx;

typedef struct {
    size_t i;
    int line, col;
} LxMark;

static LxMark lx_mark(const Lx *lx)
{
    return (LxMark){ lx->i, lx->line, lx->col };
}

static void lx_reset(Lx *lx, LxMark m)
{
    lx->i = m.i;
    lx->line = m.line;
    lx->col = m.col;
}

static bool lx_fail(Lx *lx, int line, int col, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static bool lx_fail(Lx *lx, int line, int col, const char *fmt, ...)
{
    if (lx->err != NULL)
        return false;
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    lx->err = g_error_new(LITMUS_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%d:%d: %s", lx->file, line, col,
                          msg);
    g_free(msg);
    return false;
}

static int lx_peekc(const Lx *lx, size_t ahead)
{
    return lx->i + ahead < lx->n ? (unsigned char)lx->s[lx->i + ahead] : -1;
}

static void lx_adv(Lx *lx)
{
    if (lx->i >= lx->n)
        return;
    if (lx->s[lx->i] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->i++;
}

/* A character for a message: 'x', or \xNN for bytes that do not print. */
static char *lx_char_text(int c)
{
    if (c < 0)
        return g_strdup("end of file");
    if (c >= 0x21 && c < 0x7f)
        return g_strdup_printf("'%c'", c);
    if (c == '\n')
        return g_strdup("end of line");
    return g_strdup_printf("byte \\x%02x", (unsigned)c);
}

/* Skips an OCaml-style comment (* ... *) (they nest, as in herd's lexers); at "(*". */
static bool lx_skip_comment(Lx *lx)
{
    int line = lx->line, col = lx->col, depth = 0;
    do {
        if (lx_peekc(lx, 0) < 0)
            return lx_fail(lx, line, col, "unterminated comment '(*'");
        if (lx_peekc(lx, 0) == '(' && lx_peekc(lx, 1) == '*') {
            depth++;
            lx_adv(lx);
        } else if (lx_peekc(lx, 0) == '*' && lx_peekc(lx, 1) == ')') {
            depth--;
            lx_adv(lx);
        }
        lx_adv(lx);
    } while (depth > 0);
    return true;
}

/* Skips blanks and comments; newlines too when `newlines`. */
static bool lx_skip(Lx *lx, bool newlines)
{
    for (;;) {
        int c = lx_peekc(lx, 0);
        if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
            lx_adv(lx);
        } else if (c == '(' && lx_peekc(lx, 1) == '*') {
            if (!lx_skip_comment(lx))
                return false;
        } else {
            return true;
        }
    }
}

static bool is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Parses -?[0-9]+ or 0x[0-9a-f]+ at p (len bytes available); returns the bytes used, 0 if none,
 * -1 on overflow. */
static int lit_parse_num(const char *p, size_t len, int64_t *out)
{
    size_t k = 0;
    bool neg = false;
    if (k < len && p[k] == '-') {
        neg = true;
        k++;
    }
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool over = false;
    if (!neg && k + 1 < len && p[k] == '0' && (p[k + 1] == 'x' || p[k + 1] == 'X') &&
        k + 2 < len && g_ascii_isxdigit(p[k + 2])) {
        k += 2;
        while (k < len && g_ascii_isxdigit(p[k])) {
            int d = g_ascii_xdigit_value(p[k]);
            if (v > (lim - (uint64_t)d) / 16)
                over = true;
            else
                v = v * 16 + (uint64_t)d;
            k++;
        }
    } else {
        if (k >= len || !is_digit((unsigned char)p[k]))
            return 0;
        while (k < len && is_digit((unsigned char)p[k])) {
            uint64_t d = (uint64_t)(p[k] - '0');
            if (v > (lim - d) / 10)
                over = true;
            else
                v = v * 10 + d;
            k++;
        }
    }
    if (over)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return (int)k;
}

static int lit_x86_reg_index(const char *name, size_t len)
{
    for (int r = 0; lit_x86_regs[r]; r++)
        if (strlen(lit_x86_regs[r]) == len && memcmp(lit_x86_regs[r], name, len) == 0)
            return r;
    return -1;
}

static int lit_x86_reg_index_ci(const char *name, size_t len)
{
    for (int r = 0; lit_x86_regs[r]; r++)
        if (strlen(lit_x86_regs[r]) == len && g_ascii_strncasecmp(lit_x86_regs[r], name, len) == 0)
            return r;
    return -1;
}

/* ---- tokens of the initial state and the condition (herd's stateLexer) --------------------- */

typedef enum { TK_EOF, TK_NAME, TK_NUM, TK_PUNCT } TokKind;

typedef struct {
    TokKind k;
    const char *p;
    int len;
    int line, col;
    int64_t v;
} Tok;

static bool tok_is(const Tok *t, const char *text)
{
    return (t->k == TK_NAME || t->k == TK_PUNCT) && (int)strlen(text) == t->len &&
           memcmp(t->p, text, (size_t)t->len) == 0;
}

static char *tok_text(const Tok *t)
{
    if (t->k == TK_EOF)
        return g_strdup("end of file");
    return g_strdup_printf("'%.*s'", t->len, t->p);
}

/* Reads the next token; false (with the error set) on a character no token starts with. */
static bool lx_tok(Lx *lx, Tok *t)
{
    if (!lx_skip(lx, true))
        return false;
    t->line = lx->line;
    t->col = lx->col;
    t->p = lx->s + lx->i;
    t->len = 0;
    t->v = 0;
    int c = lx_peekc(lx, 0);
    if (c < 0) {
        t->k = TK_EOF;
        return true;
    }
    if (is_digit(c) || (c == '-' && is_digit(lx_peekc(lx, 1)))) {
        int used = lit_parse_num(t->p, lx->n - lx->i, &t->v);
        if (used < 0)
            return lx_fail(lx, t->line, t->col, "number out of range (64-bit values)");
        t->k = TK_NUM;
        t->len = used;
        for (int k = 0; k < used; k++)
            lx_adv(lx);
        if (is_name_char(lx_peekc(lx, 0)))
            return lx_fail(lx, t->line, t->col, "malformed number '%.*s'",
                           (int)(used + 1), t->p);
        return true;
    }
    if (is_name_start(c)) {
        t->k = TK_NAME;
        while (is_name_char(lx_peekc(lx, 0))) {
            lx_adv(lx);
            t->len++;
        }
        return true;
    }
    static const char *const two[] = { "/\\", "\\/", "=>", "!=", "<>", "==", NULL };
    for (int k = 0; two[k]; k++)
        if (c == two[k][0] && lx_peekc(lx, 1) == two[k][1]) {
            t->k = TK_PUNCT;
            t->len = 2;
            lx_adv(lx);
            lx_adv(lx);
            return true;
        }
    if (strchr(";:=[](){},~*&|", c) != NULL) {
        t->k = TK_PUNCT;
        t->len = 1;
        lx_adv(lx);
        return true;
    }
    char *ch = lx_char_text(c);
    lx_fail(lx, t->line, t->col, "unexpected character %s", ch);
    g_free(ch);
    return false;
}

static bool lx_peek(Lx *lx, Tok *t)
{
    LxMark m = lx_mark(lx);
    bool ok = lx_tok(lx, t);
    lx_reset(lx, m);
    return ok;
}

static bool lx_expect(Lx *lx, const char *punct, const char *what)
{
    Tok t;
    if (!lx_tok(lx, &t))
        return false;
    if (tok_is(&t, punct))
        return true;
    char *got = tok_text(&t);
    lx_fail(lx, t.line, t.col, "expected %s, found %s", what, got);
    g_free(got);
    return false;
}

/* ---- names: locations and registers -------------------------------------------------------- */

static int lit_loc_find(const LitTest *t, const char *name, size_t len)
{
    for (int l = 0; l < t->nlocs; l++)
        if (strlen(t->locs[l]) == len && memcmp(t->locs[l], name, len) == 0)
            return l;
    return -1;
}

static int lit_loc_get(Lx *lx, const char *name, size_t len, int line, int col)
{
    int l = lit_loc_find(lx->t, name, len);
    if (l >= 0)
        return l;
    if (lx->t->nlocs >= LIT_MAX_LOCS) {
        lx_fail(lx, line, col, "too many locations (at most %d)", LIT_MAX_LOCS);
        return -1;
    }
    l = lx->t->nlocs++;
    lx->t->locs[l] = g_strndup(name, len);
    lx->t->loc_init[l] = 0;
    return l;
}

static int lit_reg_find(const LitThread *th, const char *name)
{
    for (int r = 0; r < th->nregs; r++)
        if (strcmp(th->regs[r], name) == 0)
            return r;
    return -1;
}

static int lit_reg_get(Lx *lx, int thread, const char *name, int line, int col)
{
    LitThread *th = &lx->t->t[thread];
    int r = lit_reg_find(th, name);
    if (r >= 0)
        return r;
    if (th->nregs >= LIT_MAX_REGS) {
        lx_fail(lx, line, col, "too many registers in P%d (at most %d)", thread, LIT_MAX_REGS);
        return -1;
    }
    r = th->nregs++;
    th->regs[r] = g_strdup(name);
    th->reg_init[r] = 0;
    return r;
}

/* ---- header and info lines ------------------------------------------------------------------ */

static bool parse_quoted(Lx *lx)
{
    int line = lx->line, col = lx->col;
    lx_adv(lx);
    while (lx_peekc(lx, 0) != '"') {
        if (lx_peekc(lx, 0) < 0)
            return lx_fail(lx, line, col, "unterminated quoted description");
        lx_adv(lx);
    }
    lx_adv(lx);
    return true;
}

static bool parse_header(Lx *lx)
{
    if (!lx_skip(lx, true))
        return false;
    int line = lx->line, col = lx->col;
    size_t a = lx->i;
    while (lx_peekc(lx, 0) > ' ')
        lx_adv(lx);
    size_t alen = lx->i - a;
    if (alen == 0)
        return lx_fail(lx, line, col, "expected the header line 'X86 NAME'%s",
                       lx_peekc(lx, 0) < 0 ? " (the file is empty)" : "");
    if (!(alen == 3 && memcmp(lx->s + a, "X86", 3) == 0)) {
        char *arch = g_strndup(lx->s + a, MIN(alen, 40));
        for (char *p = arch; *p; p++)
            if ((unsigned char)*p >= 0x7f)
                *p = '?';
        lx_fail(lx, line, col, "architecture '%s' is not supported: archsim reads herd7's X86 "
                "tests (32-bit x86, Intel syntax: the header is 'X86 NAME')", arch);
        g_free(arch);
        return false;
    }
    while (lx_peekc(lx, 0) == ' ' || lx_peekc(lx, 0) == '\t')
        lx_adv(lx);
    line = lx->line;
    col = lx->col;
    size_t b = lx->i;
    while (lx_peekc(lx, 0) > ' ' && lx_peekc(lx, 0) != '"' && lx_peekc(lx, 0) < 0x7f)
        lx_adv(lx);
    if (lx->i == b)
        return lx_fail(lx, line, col, "missing the test name after 'X86'");
    lx->t->name = g_strndup(lx->s + b, lx->i - b);
    if (!lx_skip(lx, false))
        return false;
    if (lx_peekc(lx, 0) == '"' && !parse_quoted(lx))
        return false;
    if (!lx_skip(lx, false))
        return false;
    int c = lx_peekc(lx, 0);
    if (c >= 0 && c != '\n') {
        char *ch = lx_char_text(c);
        lx_fail(lx, lx->line, lx->col, "unexpected %s after the test name", ch);
        g_free(ch);
        return false;
    }
    return true;
}

/* The quoted description and Key=Value lines (Generator=, Prefetch=, Com=, Orig=, Cycle= ...)
 * up to the '{' of the initial state. They describe the test; none changes its meaning. */
static bool parse_info(Lx *lx)
{
    for (;;) {
        if (!lx_skip(lx, true))
            return false;
        int c = lx_peekc(lx, 0);
        if (c == '{')
            return true;
        if (c < 0)
            return lx_fail(lx, lx->line, lx->col, "missing the initial state '{ ... }' (it comes "
                           "before the thread table; '{ }' when empty)");
        if (c == '"') {
            if (!parse_quoted(lx))
                return false;
            continue;
        }
        int line = lx->line, col = lx->col;
        if (is_name_start(c)) {
            while (is_name_char(lx_peekc(lx, 0)) || lx_peekc(lx, 0) == '-')
                lx_adv(lx);
            while (lx_peekc(lx, 0) == ' ' || lx_peekc(lx, 0) == '\t')
                lx_adv(lx);
            if (lx_peekc(lx, 0) == '=') {
                while (lx_peekc(lx, 0) >= 0 && lx_peekc(lx, 0) != '\n')
                    lx_adv(lx);
                continue;
            }
        }
        return lx_fail(lx, line, col, "expected 'Key=Value', a quoted description or '{' "
                       "opening the initial state");
    }
}

/* ---- the initial state --------------------------------------------------------------------- */

/* A left-hand side of the initial state or an atom of the condition: `x`, `[x]`, `0:EAX` or
 * `P0:EAX`. */
typedef struct {
    bool is_reg;
    int thread;
    char reg[8];
    const char *name;
    int len;
    int line, col;
} LitLhs;

static bool is_proc_name(const Tok *t, int *thread)
{
    if (t->k != TK_NAME || t->len < 2 || t->p[0] != 'P')
        return false;
    int v = 0;
    for (int k = 1; k < t->len; k++) {
        if (!is_digit((unsigned char)t->p[k]) || v > 1000)
            return false;
        v = v * 10 + (t->p[k] - '0');
    }
    *thread = v;
    return true;
}

/* After NUM or P<n> and ':', a register name. */
static bool parse_reg_after_colon(Lx *lx, LitLhs *l, int64_t thread, int line, int col)
{
    Tok r;
    if (!lx_tok(lx, &r))
        return false;
    if (r.k != TK_NAME) {
        char *got = tok_text(&r);
        lx_fail(lx, r.line, r.col, "expected a register after '%" G_GINT64_FORMAT ":', found %s",
                thread, got);
        g_free(got);
        return false;
    }
    int idx = lit_x86_reg_index(r.p, (size_t)r.len);
    if (idx < 0) {
        int ci = lit_x86_reg_index_ci(r.p, (size_t)r.len);
        if (ci >= 0)
            return lx_fail(lx, r.line, r.col, "registers are written in upper case: %s",
                           lit_x86_regs[ci]);
        return lx_fail(lx, r.line, r.col, "'%.*s' is not an X86 register (EAX, EBX, ECX, EDX, "
                       "ESI, EDI, EBP, ESP)", r.len, r.p);
    }
    if (thread < 0 || thread >= LIT_MAX_THREADS)
        return lx_fail(lx, line, col, "thread %" G_GINT64_FORMAT " does not exist", thread);
    l->is_reg = true;
    l->thread = (int)thread;
    g_strlcpy(l->reg, lit_x86_regs[idx], sizeof l->reg);
    return true;
}

static bool parse_lhs(Lx *lx, LitLhs *l, const char *context)
{
    memset(l, 0, sizeof *l);
    Tok t;
    if (!lx_tok(lx, &t))
        return false;
    l->line = t.line;
    l->col = t.col;
    int thread;
    if (t.k == TK_NUM || is_proc_name(&t, &thread)) {
        int64_t th = t.k == TK_NUM ? t.v : thread;
        Tok c;
        if (!lx_peek(lx, &c))
            return false;
        if (tok_is(&c, ":")) {
            lx_tok(lx, &c);
            return parse_reg_after_colon(lx, l, th, t.line, t.col);
        }
        if (t.k == TK_NUM)
            return lx_fail(lx, t.line, t.col, "expected a location or THREAD:REGISTER %s, "
                           "found a number", context);
    }
    if (tok_is(&t, "[")) {
        Tok n;
        if (!lx_tok(lx, &n))
            return false;
        if (n.k != TK_NAME) {
            char *got = tok_text(&n);
            lx_fail(lx, n.line, n.col, "expected a location name after '[', found %s", got);
            g_free(got);
            return false;
        }
        l->name = n.p;
        l->len = n.len;
        if (!lx_expect(lx, "]", "']'"))
            return false;
    } else if (t.k == TK_NAME) {
        l->name = t.p;
        l->len = t.len;
    } else {
        char *got = tok_text(&t);
        lx_fail(lx, t.line, t.col, "expected a location or THREAD:REGISTER %s, found %s", context,
                got);
        g_free(got);
        return false;
    }
    int ri = lit_x86_reg_index(l->name, (size_t)l->len);
    if (ri >= 0)
        return lx_fail(lx, l->line, l->col, "register %s needs a thread: write 0:%s",
                       lit_x86_regs[ri], lit_x86_regs[ri]);
    return true;
}

static bool parse_value(Lx *lx, int64_t *v, const char *what)
{
    Tok t;
    if (!lx_tok(lx, &t))
        return false;
    if (t.k == TK_NUM) {
        *v = t.v;
        return true;
    }
    if (t.k == TK_NAME)
        return lx_fail(lx, t.line, t.col, "%s: the value '%.*s' is a location's address; "
                       "archsim supports integer values only (no indirect addressing)", what,
                       t.len, t.p);
    char *got = tok_text(&t);
    lx_fail(lx, t.line, t.col, "%s: expected an integer value, found %s", what, got);
    g_free(got);
    return false;
}

/* { x=1; 0:EAX=2; int y; } */
static bool parse_init(Lx *lx)
{
    lx_adv(lx);     /* '{' */
    for (;;) {
        Tok t, t2;
        if (!lx_peek(lx, &t))
            return false;
        if (tok_is(&t, "}")) {
            lx_tok(lx, &t);
            return true;
        }
        if (tok_is(&t, ";")) {
            lx_tok(lx, &t);
            continue;
        }
        if (t.k == TK_EOF)
            return lx_fail(lx, t.line, t.col, "missing '}' closing the initial state");
        /* an optional C type: `int x = 1`, `uint64_t y;` */
        if (t.k == TK_NAME) {
            LxMark m = lx_mark(lx);
            lx_tok(lx, &t);
            if (!lx_peek(lx, &t2))
                return false;
            if (tok_is(&t2, "*"))
                return lx_fail(lx, t2.line, t2.col, "pointers are not supported in the initial "
                               "state (no indirect addressing)");
            if (!(t2.k == TK_NAME || tok_is(&t2, "[")))
                lx_reset(lx, m);
        }
        LitLhs l;
        if (!parse_lhs(lx, &l, "in the initial state"))
            return false;
        int64_t v = 0;
        Tok eq;
        if (!lx_peek(lx, &eq))
            return false;
        if (tok_is(&eq, "=")) {
            lx_tok(lx, &eq);
            if (!parse_value(lx, &v, "initial state"))
                return false;
        }
        if (l.is_reg) {
            for (guint k = 0; k < lx->reg_inits->len; k++) {
                LitRegInit *ri = &g_array_index(lx->reg_inits, LitRegInit, k);
                if (ri->thread == l.thread && strcmp(ri->reg, l.reg) == 0)
                    return lx_fail(lx, l.line, l.col, "%d:%s is initialised twice", l.thread,
                                   l.reg);
            }
            LitRegInit ri = { .thread = l.thread, .value = v, .line = l.line, .col = l.col };
            g_strlcpy(ri.reg, l.reg, sizeof ri.reg);
            g_array_append_val(lx->reg_inits, ri);
        } else {
            if (lit_loc_find(lx->t, l.name, (size_t)l.len) >= 0)
                return lx_fail(lx, l.line, l.col, "%.*s is initialised twice", l.len, l.name);
            int loc = lit_loc_get(lx, l.name, (size_t)l.len, l.line, l.col);
            if (loc < 0)
                return false;
            lx->t->loc_init[loc] = v;
        }
        Tok sep;
        if (!lx_peek(lx, &sep))
            return false;
        if (!tok_is(&sep, ";") && !tok_is(&sep, "}")) {
            char *got = tok_text(&sep);
            lx_fail(lx, sep.line, sep.col, "expected ';' or '}' in the initial state, found %s",
                    got);
            g_free(got);
            return false;
        }
    }
}

/* ---- instructions -------------------------------------------------------------------------- */

/* A cell of the thread table: one instruction on one line; columns are col0 + offset. */
typedef struct {
    const char *s;      /* the cell's text (comments blanked) */
    int n, i;
    int line, col0;
} Cx;

typedef enum { CT_END, CT_WORD, CT_NUM, CT_PUNCT } CxKind;

typedef struct {
    CxKind k;
    int at, len;
    int64_t v;
} CxTok;

static bool cx_tok(Lx *lx, Cx *cx, CxTok *t)
{
    while (cx->i < cx->n && (cx->s[cx->i] == ' ' || cx->s[cx->i] == '\t' || cx->s[cx->i] == '\r'))
        cx->i++;
    t->at = cx->i;
    t->len = 0;
    if (cx->i >= cx->n) {
        t->k = CT_END;
        return true;
    }
    int c = (unsigned char)cx->s[cx->i];
    bool minus_digit = c == '-' && cx->i + 1 < cx->n && is_digit((unsigned char)cx->s[cx->i + 1]);
    if (is_digit(c) || minus_digit) {
        int used = lit_parse_num(cx->s + cx->i, (size_t)(cx->n - cx->i), &t->v);
        if (used < 0)
            return lx_fail(lx, cx->line, cx->col0 + cx->i, "number out of range (64-bit values)");
        cx->i += used;
        t->k = CT_NUM;
        t->len = used;
        if (cx->i < cx->n && is_name_char((unsigned char)cx->s[cx->i]))
            return lx_fail(lx, cx->line, cx->col0 + t->at, "malformed number '%.*s'", used + 1,
                           cx->s + t->at);
        return true;
    }
    if (is_name_start(c)) {
        while (cx->i < cx->n && is_name_char((unsigned char)cx->s[cx->i]))
            cx->i++;
        t->k = CT_WORD;
        t->len = cx->i - t->at;
        return true;
    }
    if (strchr("$[],:", c) != NULL) {
        cx->i++;
        t->k = CT_PUNCT;
        t->len = 1;
        return true;
    }
    char *ch = lx_char_text(c);
    lx_fail(lx, cx->line, cx->col0 + cx->i, "unexpected character %s in an instruction", ch);
    g_free(ch);
    return false;
}

static bool cx_is(const Cx *cx, const CxTok *t, char c)
{
    return t->k == CT_PUNCT && cx->s[t->at] == c;
}

typedef enum { OPD_REG, OPD_MEM, OPD_IMM } OpdKind;

typedef struct {
    OpdKind k;
    char reg[8];        /* OPD_REG */
    int loc;            /* OPD_MEM */
    int64_t imm;        /* OPD_IMM */
    int col;
} Opd;

static bool parse_operand(Lx *lx, Cx *cx, Opd *o)
{
    CxTok t;
    if (!cx_tok(lx, cx, &t))
        return false;
    o->col = cx->col0 + t.at;
    if (t.k == CT_END)
        return lx_fail(lx, cx->line, o->col, "missing operand");
    if (cx_is(cx, &t, '$')) {
        CxTok n;
        if (!cx_tok(lx, cx, &n))
            return false;
        if (n.k != CT_NUM || n.at != t.at + 1)
            return lx_fail(lx, cx->line, o->col, "expected a number after '$'");
        o->k = OPD_IMM;
        o->imm = n.v;
        return true;
    }
    if (t.k == CT_NUM) {
        o->k = OPD_IMM;
        o->imm = t.v;
        return true;
    }
    if (cx_is(cx, &t, '[')) {
        CxTok n, close;
        if (!cx_tok(lx, cx, &n))
            return false;
        if (n.k != CT_WORD)
            return lx_fail(lx, cx->line, cx->col0 + n.at, "expected a location name inside "
                           "'[ ]'");
        if (lit_x86_reg_index_ci(cx->s + n.at, (size_t)n.len) >= 0)
            return lx_fail(lx, cx->line, cx->col0 + n.at, "indirect addressing [%.*s] is not "
                           "supported; name the location: [x]", n.len, cx->s + n.at);
        if (!cx_tok(lx, cx, &close))
            return false;
        if (!cx_is(cx, &close, ']'))
            return lx_fail(lx, cx->line, cx->col0 + close.at, "expected ']' after '[%.*s'",
                           n.len, cx->s + n.at);
        o->k = OPD_MEM;
        o->loc = lit_loc_get(lx, cx->s + n.at, (size_t)n.len, cx->line, cx->col0 + n.at);
        return o->loc >= 0;
    }
    if (t.k == CT_WORD) {
        int r = lit_x86_reg_index(cx->s + t.at, (size_t)t.len);
        if (r >= 0) {
            o->k = OPD_REG;
            g_strlcpy(o->reg, lit_x86_regs[r], sizeof o->reg);
            return true;
        }
        int ci = lit_x86_reg_index_ci(cx->s + t.at, (size_t)t.len);
        if (ci >= 0)
            return lx_fail(lx, cx->line, o->col, "registers are written in upper case: %s",
                           lit_x86_regs[ci]);
        return lx_fail(lx, cx->line, o->col, "'%.*s' is not a register (EAX, EBX, ECX, EDX, "
                       "ESI, EDI, EBP, ESP); a memory location is written [%.*s]", t.len,
                       cx->s + t.at, t.len, cx->s + t.at);
    }
    return lx_fail(lx, cx->line, o->col, "expected an operand (a register, [location] or "
                   "$value), found '%c'", cx->s[t.at]);
}

/* The op being built for one instruction (line, col, text filled by the caller). */
typedef struct {
    Lx *lx;
    int thread;
    int line, col;
    const char *text;
} Emit;

static LitOp *emit(Emit *e, LitOpKind kind)
{
    LitThread *th = &e->lx->t->t[e->thread];
    if (th->nops >= LIT_MAX_OPS) {
        lx_fail(e->lx, e->line, e->col, "too many instructions in P%d (at most %d micro-ops)",
                e->thread, LIT_MAX_OPS);
        return NULL;
    }
    LitOp *op = &th->ops[th->nops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->loc = -1;
    op->reg = -1;
    op->cmp = -1;
    op->line = e->line;
    op->col = e->col;
    op->text = g_strdup(e->text);
    return op;
}

static int emit_reg(Emit *e, const char *name)
{
    return lit_reg_get(e->lx, e->thread, name, e->line, e->col);
}

static bool emit_src(Emit *e, const Opd *o, LitSrc *src)
{
    memset(src, 0, sizeof *src);
    if (o->k == OPD_IMM) {
        src->imm = o->imm;
        return true;
    }
    g_assert(o->k == OPD_REG);
    src->is_reg = true;
    src->reg = emit_reg(e, o->reg);
    return src->reg >= 0;
}

static bool emit_load(Emit *e, int reg, int loc)
{
    LitOp *op = emit(e, LOP_LOAD);
    if (op == NULL)
        return false;
    op->reg = reg;
    op->loc = loc;
    return true;
}

static bool emit_alu(Emit *e, LitAluKind k, int reg, LitSrc src)
{
    LitOp *op = emit(e, LOP_ALU);
    if (op == NULL)
        return false;
    op->alu = k;
    op->reg = reg;
    op->src = src;
    return true;
}

static bool emit_store(Emit *e, int loc, LitSrc src)
{
    LitOp *op = emit(e, LOP_STORE);
    if (op == NULL)
        return false;
    op->loc = loc;
    op->src = src;
    return true;
}

static bool emit_rmw(Emit *e, LitRmwKind k, int loc, int reg, LitSrc src, int cmp)
{
    LitOp *op = emit(e, LOP_RMW);
    if (op == NULL)
        return false;
    op->rmw = k;
    op->loc = loc;
    op->reg = reg;
    op->src = src;
    op->cmp = cmp;
    return true;
}

static LitSrc src_reg(int reg)
{
    return (LitSrc){ .is_reg = true, .reg = reg };
}

static LitSrc src_imm(int64_t v)
{
    return (LitSrc){ .is_reg = false, .imm = v };
}

static bool shape_fail(Lx *lx, int line, int col, const char *mn, const char *forms)
{
    return lx_fail(lx, line, col, "%s: unsupported operands; expected %s", mn, forms);
}

/* One non-empty cell: [LOCK] MNEMONIC operands. */
static bool parse_instruction(Lx *lx, int thread, Cx *cx)
{
    CxTok t;
    if (!cx_tok(lx, cx, &t))
        return false;
    int col = cx->col0 + t.at;
    if (t.k != CT_WORD)
        return lx_fail(lx, cx->line, col, "expected an instruction; %s", lit_supported);
    char *text = g_strstrip(g_strndup(cx->s + t.at, (size_t)(cx->n - t.at)));
    Emit e = { .lx = lx, .thread = thread, .line = cx->line, .col = col, .text = text };
    bool ok = false;
    bool lock = false;
    char mn[16];
    CxTok w = t;
    if (t.len == 4 && g_ascii_strncasecmp(cx->s + t.at, "LOCK", 4) == 0) {
        lock = true;
        if (!cx_tok(lx, cx, &w))
            goto out;
        if (w.k != CT_WORD) {
            lx_fail(lx, cx->line, cx->col0 + w.at, "expected an instruction after LOCK");
            goto out;
        }
    }
    {
        CxTok nx;
        Cx save = *cx;
        if (!cx_tok(lx, cx, &nx))
            goto out;
        if (cx_is(cx, &nx, ':') && !lock) {
            lx_fail(lx, cx->line, col, "labels are not supported: archsim runs straight-line "
                    "litmus programs (no jumps)");
            goto out;
        }
        *cx = save;
    }
    g_strlcpy(mn, "?", sizeof mn);
    if (w.len < (int)sizeof mn) {
        memcpy(mn, cx->s + w.at, (size_t)w.len);
        mn[w.len] = '\0';
    }
    for (char *p = mn; *p; p++)
        *p = g_ascii_toupper(*p);
    int mcol = cx->col0 + w.at;
    static const char *const known[] = { "MOV", "MOVL", "MOVQ", "MFENCE", "LFENCE", "SFENCE",
                                         "XCHG", "ADD", "SUB", "XOR", "AND", "OR", "INC", "DEC",
                                         "XADD", "CMPXCHG", NULL };
    static const char *const unsupported[] = { "JMP", "JE", "JNE", "CMP", "CMOVC", "SETNB",
                                               "MOVSD", "MOVB", "MOVW", "MOVT", "READ", NULL };
    bool is_known = false;
    for (int k = 0; known[k]; k++)
        is_known = is_known || strcmp(mn, known[k]) == 0;
    for (int k = 0; !is_known && unsupported[k]; k++)
        if (strcmp(mn, unsupported[k]) == 0) {
            lx_fail(lx, cx->line, mcol, "%s is not supported: archsim runs straight-line litmus "
                    "programs (no flags, branches or partial-width moves); %s", mn,
                    lit_supported);
            goto out;
        }
    if (!is_known) {
        lx_fail(lx, cx->line, mcol, "unknown instruction '%.*s'; %s", w.len, cx->s + w.at,
                lit_supported);
        goto out;
    }

    Opd o[3];
    int nopd = 0;
    for (;;) {
        CxTok nx;
        Cx save = *cx;
        if (!cx_tok(lx, cx, &nx))
            goto out;
        if (nx.k == CT_END)
            break;
        if (nopd > 0) {
            if (!cx_is(cx, &nx, ',')) {
                lx_fail(lx, cx->line, cx->col0 + nx.at, "expected ',' or the end of the "
                        "instruction, found '%.*s'", MAX(nx.len, 1), cx->s + nx.at);
                goto out;
            }
        } else {
            *cx = save;
        }
        if (nopd == 3) {
            lx_fail(lx, cx->line, cx->col0 + nx.at, "%s: too many operands", mn);
            goto out;
        }
        if (!parse_operand(lx, cx, &o[nopd]))
            goto out;
        nopd++;
    }

    static const struct {
        const char *mn;
        LitAluKind alu;
    } alus[] = { { "ADD", LALU_ADD }, { "SUB", LALU_SUB }, { "XOR", LALU_XOR },
                 { "AND", LALU_AND }, { "OR", LALU_OR }, { "INC", LALU_ADD },
                 { "DEC", LALU_SUB }, { NULL, 0 } };
    int alu = -1;
    for (int k = 0; alus[k].mn; k++)
        if (strcmp(mn, alus[k].mn) == 0)
            alu = k;
    bool unary = alu >= 0 && (strcmp(mn, "INC") == 0 || strcmp(mn, "DEC") == 0);

    if (lock) {
        /* locked read-modify-writes of memory: atomic, ordered like MFENCE */
        if ((nopd == 0 || o[0].k != OPD_MEM) && strcmp(mn, "MOV") != 0) {
            lx_fail(lx, cx->line, mcol, "LOCK %s needs a memory destination: LOCK %s [x]%s", mn,
                    mn, unary ? "" : ",...");
            goto out;
        }
        int loc = o[0].loc;
        if (unary) {
            if (nopd != 1) {
                shape_fail(lx, cx->line, mcol, mn, "LOCK INC [x] or LOCK DEC [x]");
                goto out;
            }
            ok = emit_rmw(&e, LRMW_ADD, loc, -1, src_imm(strcmp(mn, "INC") == 0 ? 1 : -1), -1);
        } else if (strcmp(mn, "ADD") == 0 || strcmp(mn, "SUB") == 0) {
            if (nopd != 2 || o[1].k == OPD_MEM ||
                (strcmp(mn, "SUB") == 0 && o[1].k != OPD_IMM)) {
                shape_fail(lx, cx->line, mcol, mn, "LOCK ADD [x],$1, LOCK ADD [x],EAX or "
                           "LOCK SUB [x],$1");
                goto out;
            }
            LitSrc s;
            if (!emit_src(&e, &o[1], &s))
                goto out;
            if (strcmp(mn, "SUB") == 0)
                s.imm = (int64_t)(0 - (uint64_t)s.imm);
            ok = emit_rmw(&e, LRMW_ADD, loc, -1, s, -1);
        } else if (strcmp(mn, "XADD") == 0 || strcmp(mn, "XCHG") == 0 ||
                   strcmp(mn, "CMPXCHG") == 0) {
            if (nopd != 2 || o[1].k != OPD_REG) {
                char *forms = g_strdup_printf("LOCK %s [x],EAX", mn);
                shape_fail(lx, cx->line, mcol, mn, forms);
                g_free(forms);
                goto out;
            }
            int r = emit_reg(&e, o[1].reg);
            if (r < 0)
                goto out;
            if (strcmp(mn, "XADD") == 0) {
                ok = emit_rmw(&e, LRMW_ADD, loc, r, src_reg(r), -1);
            } else if (strcmp(mn, "XCHG") == 0) {
                ok = emit_rmw(&e, LRMW_XCHG, loc, r, src_reg(r), -1);
            } else {
                int eax = emit_reg(&e, "EAX");
                ok = eax >= 0 && emit_rmw(&e, LRMW_CMPXCHG, loc, eax, src_reg(r), eax);
            }
        } else if (alu >= 0) {
            lx_fail(lx, cx->line, mcol, "LOCK %s is not supported; locked instructions: LOCK "
                    "ADD/SUB/INC/DEC/XADD/XCHG/CMPXCHG", mn);
        } else {
            lx_fail(lx, cx->line, mcol, "LOCK cannot prefix %s; locked instructions: LOCK "
                    "ADD/SUB/INC/DEC/XADD/XCHG/CMPXCHG", mn);
        }
        goto out;
    }

    if (strcmp(mn, "MOV") == 0 || strcmp(mn, "MOVL") == 0 || strcmp(mn, "MOVQ") == 0) {
        const char *forms = "MOV [x],$1, MOV [x],EAX, MOV EAX,[x], MOV EAX,$1 or MOV EAX,EBX";
        if (nopd != 2 || (o[0].k == OPD_MEM && o[1].k == OPD_MEM) || o[0].k == OPD_IMM) {
            shape_fail(lx, cx->line, mcol, mn, forms);
            goto out;
        }
        if (o[0].k == OPD_MEM) {
            LitSrc s;
            ok = emit_src(&e, &o[1], &s) && emit_store(&e, o[0].loc, s);
        } else if (o[1].k == OPD_MEM) {
            int r = emit_reg(&e, o[0].reg);
            ok = r >= 0 && emit_load(&e, r, o[1].loc);
        } else {
            int r = emit_reg(&e, o[0].reg);
            LitSrc s;
            ok = r >= 0 && emit_src(&e, &o[1], &s) && emit_alu(&e, LALU_MOV, r, s);
        }
    } else if (strcmp(mn, "MFENCE") == 0 || strcmp(mn, "LFENCE") == 0 ||
               strcmp(mn, "SFENCE") == 0) {
        if (nopd != 0) {
            lx_fail(lx, cx->line, o[0].col, "%s takes no operands", mn);
            goto out;
        }
        LitOp *op = emit(&e, LOP_MFENCE);
        if (op != NULL)
            op->fence = mn[0] == 'M' ? LFEN_FULL : mn[0] == 'L' ? LFEN_LOAD : LFEN_STORE;
        ok = op != NULL;
    } else if (strcmp(mn, "XCHG") == 0) {
        if (nopd != 2 || o[0].k == OPD_IMM || o[1].k == OPD_IMM ||
            (o[0].k == OPD_MEM && o[1].k == OPD_MEM)) {
            shape_fail(lx, cx->line, mcol, mn, "XCHG [x],EAX, XCHG EAX,[x] or XCHG EAX,EBX");
            goto out;
        }
        if (o[0].k == OPD_MEM || o[1].k == OPD_MEM) {
            /* XCHG with memory is always locked on x86 */
            const Opd *m = o[0].k == OPD_MEM ? &o[0] : &o[1];
            const Opd *r = o[0].k == OPD_MEM ? &o[1] : &o[0];
            int ri = emit_reg(&e, r->reg);
            ok = ri >= 0 && emit_rmw(&e, LRMW_XCHG, m->loc, ri, src_reg(ri), -1);
        } else {
            int a = emit_reg(&e, o[0].reg), b = emit_reg(&e, o[1].reg), tmp = emit_reg(&e,
                                                                                      LIT_TEMP_REG);
            ok = a >= 0 && b >= 0 && tmp >= 0 && emit_alu(&e, LALU_MOV, tmp, src_reg(a)) &&
                 emit_alu(&e, LALU_MOV, a, src_reg(b)) && emit_alu(&e, LALU_MOV, b, src_reg(tmp));
        }
    } else if (alu >= 0) {
        LitAluKind k = alus[alu].alu;
        if (unary ? nopd != 1 : (nopd != 2 || o[0].k == OPD_IMM ||
                                  (o[0].k == OPD_MEM && o[1].k == OPD_MEM))) {
            char *forms = unary
                ? g_strdup_printf("%s EAX or %s [x] (LOCK %s [x] is atomic)", mn, mn, mn)
                : g_strdup_printf("%s EAX,$1, %s EAX,EBX, %s EAX,[x] or %s [x],$1 (LOCK %s "
                                  "[x],... is atomic)", mn, mn, mn, mn, mn);
            shape_fail(lx, cx->line, mcol, mn, forms);
            g_free(forms);
            goto out;
        }
        LitSrc s = src_imm(1);
        if (!unary && o[1].k != OPD_MEM && !emit_src(&e, &o[1], &s))
            goto out;
        if (o[0].k == OPD_REG) {
            int r = emit_reg(&e, o[0].reg);
            if (r < 0)
                goto out;
            if (!unary && o[1].k == OPD_MEM) {
                int tmp = emit_reg(&e, LIT_TEMP_REG);
                ok = tmp >= 0 && emit_load(&e, tmp, o[1].loc) && emit_alu(&e, k, r, src_reg(tmp));
            } else {
                ok = emit_alu(&e, k, r, s);
            }
        } else {
            /* not LOCKed: a load, the operation and a store, not atomic (x86 semantics) */
            int tmp = emit_reg(&e, LIT_TEMP_REG);
            ok = tmp >= 0 && emit_load(&e, tmp, o[0].loc) && emit_alu(&e, k, tmp, s) &&
                 emit_store(&e, o[0].loc, src_reg(tmp));
        }
    } else {
        lx_fail(lx, cx->line, mcol, "%s without LOCK is not atomic and is not supported; write "
                "LOCK %s [x],EBX", mn, mn);
    }
out:
    g_free(text);
    return ok && lx->err == NULL;
}

/* ---- the thread table ---------------------------------------------------------------------- */

static bool at_condition(Lx *lx)
{
    int c = lx_peekc(lx, 0);
    if (c < 0 || c == '~' || c == '(')
        return true;
    static const char *const kw[] = { "exists", "forall", "final", "locations", "filter",
                                      "observed", "with", NULL };
    for (int k = 0; kw[k]; k++) {
        size_t len = strlen(kw[k]);
        if (lx->i + len <= lx->n && memcmp(lx->s + lx->i, kw[k], len) == 0 &&
            !is_name_char(lx_peekc(lx, len)))
            return true;
    }
    return false;
}

/* Reads one row up to its ';' into `row` (comments blanked, so columns stay right). */
static bool read_row(Lx *lx, GString *row, int *line, int *col)
{
    g_string_truncate(row, 0);
    *line = lx->line;
    *col = lx->col;
    for (;;) {
        int c = lx_peekc(lx, 0);
        if (c == ';') {
            lx_adv(lx);
            return true;
        }
        if (c < 0 || c == '\n')
            return lx_fail(lx, lx->line, lx->col, "expected ';' at the end of the row of the "
                           "thread table");
        if (c == '(' && lx_peekc(lx, 1) == '*') {
            int l0 = lx->line;
            size_t i0 = lx->i;
            if (!lx_skip_comment(lx))
                return false;
            if (lx->line != l0)
                return lx_fail(lx, l0, *col, "a comment inside a row of the thread table must "
                               "end on the same line");
            for (size_t k = i0; k < lx->i; k++)
                g_string_append_c(row, ' ');
            continue;
        }
        g_string_append_c(row, (char)c);
        lx_adv(lx);
    }
}

/* Splits a row at '|': cell k is [starts[k], starts[k+1]-1). Returns the number of cells. */
static int split_row(const GString *row, int *starts, int max)
{
    int n = 0;
    starts[n++] = 0;
    for (int k = 0; k < (int)row->len; k++)
        if (row->str[k] == '|') {
            if (n > max)
                return n;
            starts[n++] = k + 1;
        }
    starts[n] = (int)row->len + 1;
    return n;
}

static bool parse_table(Lx *lx)
{
    GString *row = g_string_new(NULL);
    int starts[LIT_MAX_THREADS + 3];
    int line, col;
    bool ok = false;
    if (!lx_skip(lx, true))
        goto out;
    if (at_condition(lx) || lx_peekc(lx, 0) < 0) {
        lx_fail(lx, lx->line, lx->col, "missing the thread table (a header row ' P0 | P1 ;' "
                "then one row of instructions per line)");
        goto out;
    }
    if (!read_row(lx, row, &line, &col))
        goto out;
    int n = split_row(row, starts, LIT_MAX_THREADS + 1);
    if (n > LIT_MAX_THREADS) {
        lx_fail(lx, line, col, "too many threads (at most %d)", LIT_MAX_THREADS);
        goto out;
    }
    for (int k = 0; k < n; k++) {
        int a = starts[k], b = starts[k + 1] - 1;
        while (a < b && g_ascii_isspace(row->str[a]))
            a++;
        while (b > a && g_ascii_isspace(row->str[b - 1]))
            b--;
        char want[8];
        g_snprintf(want, sizeof want, "P%d", k);
        if ((size_t)(b - a) != strlen(want) || memcmp(row->str + a, want, (size_t)(b - a)) != 0) {
            if (b == a)
                lx_fail(lx, line, col + a, "expected '%s' in the header row of the thread table",
                        want);
            else
                lx_fail(lx, line, col + a, "expected '%s' in the header row of the thread table, "
                        "found '%.*s'", want, MIN(b - a, 40), row->str + a);
            goto out;
        }
    }
    lx->t->nthreads = n;
    for (;;) {
        if (!lx_skip(lx, true))
            goto out;
        if (at_condition(lx))
            break;
        if (!read_row(lx, row, &line, &col))
            goto out;
        int m = split_row(row, starts, n);
        if (m != n) {
            lx_fail(lx, line, col, "this row has %s%d column%s; the header has %d",
                    m > n ? "at least " : "", m, m == 1 ? "" : "s", n);
            goto out;
        }
        for (int k = 0; k < n; k++) {
            int a = starts[k], b = starts[k + 1] - 1;
            while (a < b && g_ascii_isspace(row->str[a]))
                a++;
            if (a == b)
                continue;
            Cx cx = { .s = row->str + a, .n = b - a, .i = 0, .line = line, .col0 = col + a };
            if (!parse_instruction(lx, k, &cx))
                goto out;
        }
    }
    ok = true;
out:
    g_string_free(row, TRUE);
    return ok;
}

/* ---- the final condition -------------------------------------------------------------------- */

static LitCond *cond_new(LitCondKind k)
{
    LitCond *c = g_new0(LitCond, 1);
    c->kind = k;
    return c;
}

static LitCond *parse_or(Lx *lx, int depth);

/* An atom: `0:EAX=1`, `x=2`, `[x]=2`, with = == != <>. */
static LitCond *parse_atom(Lx *lx)
{
    LitLhs l;
    if (!parse_lhs(lx, &l, "in the condition"))
        return NULL;
    Tok op;
    if (!lx_tok(lx, &op))
        return NULL;
    bool neg = tok_is(&op, "!=") || tok_is(&op, "<>");
    if (!neg && !tok_is(&op, "=") && !tok_is(&op, "==")) {
        char *got = tok_text(&op);
        lx_fail(lx, op.line, op.col, "expected '=' in the condition, found %s", got);
        g_free(got);
        return NULL;
    }
    int64_t v;
    if (!parse_value(lx, &v, "condition"))
        return NULL;
    LitCond *c;
    if (l.is_reg) {
        if (l.thread >= lx->t->nthreads) {
            lx_fail(lx, l.line, l.col, "thread %d does not exist (the test has %d thread%s)",
                    l.thread, lx->t->nthreads, lx->t->nthreads == 1 ? "" : "s");
            return NULL;
        }
        int r = lit_reg_get(lx, l.thread, l.reg, l.line, l.col);
        if (r < 0)
            return NULL;
        c = cond_new(LC_REG);
        c->thread = l.thread;
        c->reg = r;
    } else {
        int loc = lit_loc_get(lx, l.name, (size_t)l.len, l.line, l.col);
        if (loc < 0)
            return NULL;
        c = cond_new(LC_LOC);
        c->loc = loc;
    }
    c->value = v;
    if (neg) {
        LitCond *n = cond_new(LC_NOT);
        n->a = c;
        c = n;
    }
    return c;
}

#define LIT_MAX_COND_DEPTH 200
/* A chain of /\ or \/ is a tree as deep as it is long, and evaluating, printing and freeing it
 * recurse that deep: 150,000 atoms overflowed the stack. herd7's catalogue's longest condition
 * has a few dozen. */
#define LIT_MAX_COND_ATOMS 4096

static LitCond *parse_primary(Lx *lx, int depth)
{
    Tok t;
    if (!lx_peek(lx, &t))
        return NULL;
    if (depth > LIT_MAX_COND_DEPTH) {
        lx_fail(lx, t.line, t.col, "condition nested too deeply");
        return NULL;
    }
    if (++lx->cond_atoms > LIT_MAX_COND_ATOMS) {
        lx_fail(lx, t.line, t.col, "condition too long (at most %d atoms)", LIT_MAX_COND_ATOMS);
        return NULL;
    }
    if (tok_is(&t, "~") || tok_is(&t, "not")) {
        lx_tok(lx, &t);
        LitCond *a = parse_primary(lx, depth + 1);
        if (a == NULL)
            return NULL;
        LitCond *c = cond_new(LC_NOT);
        c->a = a;
        return c;
    }
    if (tok_is(&t, "true") || tok_is(&t, "false")) {
        lx_tok(lx, &t);
        return cond_new(tok_is(&t, "true") ? LC_TRUE : LC_FALSE);
    }
    if (tok_is(&t, "(")) {
        lx_tok(lx, &t);
        LitCond *c = parse_or(lx, depth + 1);
        if (c == NULL)
            return NULL;
        if (!lx_expect(lx, ")", "')'")) {
            litmus_cond_free(c);
            return NULL;
        }
        return c;
    }
    if (t.k == TK_EOF) {
        lx_fail(lx, t.line, t.col, "the condition ends too early");
        return NULL;
    }
    return parse_atom(lx);
}

/* herd's precedences: ~ binds tightest, then =>, then /\, then \/ */
static LitCond *parse_implies(Lx *lx, int depth)
{
    LitCond *a = parse_primary(lx, depth);
    if (a == NULL)
        return NULL;
    Tok t;
    if (!lx_peek(lx, &t)) {
        litmus_cond_free(a);
        return NULL;
    }
    if (!tok_is(&t, "=>"))
        return a;
    lx_tok(lx, &t);
    if (depth > LIT_MAX_COND_DEPTH) {
        lx_fail(lx, t.line, t.col, "condition nested too deeply");
        litmus_cond_free(a);
        return NULL;
    }
    LitCond *b = parse_implies(lx, depth + 1);
    if (b == NULL) {
        litmus_cond_free(a);
        return NULL;
    }
    LitCond *n = cond_new(LC_NOT), *c = cond_new(LC_OR);   /* a => b  is  ~a \/ b */
    n->a = a;
    c->a = n;
    c->b = b;
    return c;
}

static LitCond *parse_binary(Lx *lx, int depth, bool is_or)
{
    LitCond *a = is_or ? parse_binary(lx, depth, false) : parse_implies(lx, depth);
    if (a == NULL)
        return NULL;
    for (;;) {
        Tok t;
        if (!lx_peek(lx, &t)) {
            litmus_cond_free(a);
            return NULL;
        }
        if (!tok_is(&t, is_or ? "\\/" : "/\\"))
            return a;
        lx_tok(lx, &t);
        LitCond *b = is_or ? parse_binary(lx, depth, false) : parse_implies(lx, depth);
        if (b == NULL) {
            litmus_cond_free(a);
            return NULL;
        }
        LitCond *c = cond_new(is_or ? LC_OR : LC_AND);
        c->a = a;
        c->b = b;
        a = c;
    }
}

static LitCond *parse_or(Lx *lx, int depth)
{
    return parse_binary(lx, depth, true);
}

typedef struct {
    bool is_loc;
    int thread, idx;
} LitObs;

static bool obs_add(GArray *obs, bool is_loc, int thread, int idx)
{
    for (guint k = 0; k < obs->len; k++) {
        LitObs *o = &g_array_index(obs, LitObs, k);
        if (o->is_loc == is_loc && o->idx == idx && (is_loc || o->thread == thread))
            return true;
    }
    LitObs o = { is_loc, is_loc ? -1 : thread, idx };
    g_array_append_val(obs, o);
    return true;
}

static void obs_from_cond(GArray *obs, const LitCond *c)
{
    if (c == NULL)
        return;
    if (c->kind == LC_REG)
        obs_add(obs, false, c->thread, c->reg);
    else if (c->kind == LC_LOC)
        obs_add(obs, true, -1, c->loc);
    obs_from_cond(obs, c->a);
    obs_from_cond(obs, c->b);
}

static const LitTest *obs_sort_test;

static int reg_rank(const char *name)
{
    int r = lit_x86_reg_index(name, strlen(name));
    return r >= 0 ? r : 100;
}

/* herd's order: registers (by thread, then register) before locations (by name) */
static gint obs_cmp(gconstpointer pa, gconstpointer pb)
{
    const LitObs *a = pa, *b = pb;
    const LitTest *t = obs_sort_test;
    if (a->is_loc != b->is_loc)
        return a->is_loc ? 1 : -1;
    if (a->is_loc)
        return strcmp(t->locs[a->idx], t->locs[b->idx]);
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    const char *ra = t->t[a->thread].regs[a->idx], *rb = t->t[b->thread].regs[b->idx];
    int ka = reg_rank(ra), kb = reg_rank(rb);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return strcmp(ra, rb);
}

/* `locations [x; 0:EAX;]`, filter (unsupported), then the quantified condition. */
static bool parse_condition(Lx *lx, GArray *obs)
{
    LitTest *t = lx->t;
    Tok k;
    if (!lx_peek(lx, &k))
        return false;
    if (tok_is(&k, "locations")) {
        lx_tok(lx, &k);
        if (!lx_expect(lx, "[", "'[' after 'locations'"))
            return false;
        for (;;) {
            Tok n;
            if (!lx_peek(lx, &n))
                return false;
            if (tok_is(&n, "]")) {
                lx_tok(lx, &n);
                break;
            }
            if (tok_is(&n, ";")) {
                lx_tok(lx, &n);
                continue;
            }
            if (n.k == TK_EOF)
                return lx_fail(lx, n.line, n.col, "missing ']' closing 'locations ['");
            LitLhs l;
            if (!parse_lhs(lx, &l, "in 'locations'"))
                return false;
            if (l.is_reg) {
                if (l.thread >= t->nthreads)
                    return lx_fail(lx, l.line, l.col, "thread %d does not exist (the test has %d "
                                   "thread%s)", l.thread, t->nthreads, t->nthreads == 1 ? "" : "s");
                int r = lit_reg_get(lx, l.thread, l.reg, l.line, l.col);
                if (r < 0)
                    return false;
                obs_add(obs, false, l.thread, r);
            } else {
                int loc = lit_loc_get(lx, l.name, (size_t)l.len, l.line, l.col);
                if (loc < 0)
                    return false;
                obs_add(obs, true, -1, loc);
            }
        }
        if (!lx_peek(lx, &k))
            return false;
    }
    if (tok_is(&k, "filter") || tok_is(&k, "observed") || tok_is(&k, "with"))
        return lx_fail(lx, k.line, k.col, "'%.*s' is not supported; the condition is 'exists', "
                       "'~exists' or 'forall' followed by a proposition", k.len, k.p);
    lx_tok(lx, &k);
    if (k.k == TK_EOF) {
        t->quant = LQ_FORALL;          /* herd: no condition is `forall true` */
        t->cond = cond_new(LC_TRUE);
        return true;
    }
    if (tok_is(&k, "exists") || tok_is(&k, "final")) {
        t->quant = LQ_EXISTS;
    } else if (tok_is(&k, "forall")) {
        t->quant = LQ_FORALL;
    } else if (tok_is(&k, "~") || tok_is(&k, "not")) {
        Tok e;
        if (!lx_tok(lx, &e))
            return false;
        if (!tok_is(&e, "exists"))
            return lx_fail(lx, e.line, e.col, "expected 'exists' after '%.*s'", k.len, k.p);
        t->quant = LQ_NOT_EXISTS;
    } else if (tok_is(&k, "(")) {
        t->quant = LQ_EXISTS;          /* herd: a bare (prop) means exists (prop) */
        LxMark m = { (size_t)(k.p - lx->s), k.line, k.col };
        lx_reset(lx, m);
    } else {
        char *got = tok_text(&k);
        lx_fail(lx, k.line, k.col, "expected the condition ('exists', '~exists' or 'forall'), "
                "found %s", got);
        g_free(got);
        return false;
    }
    t->cond = parse_or(lx, 0);
    if (t->cond == NULL)
        return false;
    Tok end;
    if (!lx_tok(lx, &end))
        return false;
    if (tok_is(&end, ";") && !lx_tok(lx, &end))
        return false;
    if (end.k != TK_EOF) {
        char *got = tok_text(&end);
        lx_fail(lx, end.line, end.col, "unexpected %s after the condition%s", got,
                tok_is(&end, "with") ? " ('with' is not supported)" : "");
        g_free(got);
        return false;
    }
    obs_from_cond(obs, t->cond);
    return true;
}

/* ---- the whole file ------------------------------------------------------------------------ */

static bool finish(Lx *lx, GArray *obs)
{
    LitTest *t = lx->t;
    for (guint k = 0; k < lx->reg_inits->len; k++) {
        LitRegInit *ri = &g_array_index(lx->reg_inits, LitRegInit, k);
        if (ri->thread >= t->nthreads)
            return lx_fail(lx, ri->line, ri->col, "thread %d does not exist (the test has %d "
                           "thread%s)", ri->thread, t->nthreads, t->nthreads == 1 ? "" : "s");
        int r = lit_reg_get(lx, ri->thread, ri->reg, ri->line, ri->col);
        if (r < 0)
            return false;
        t->t[ri->thread].reg_init[r] = ri->value;
    }
    if (obs->len == 0) {
        /* nothing named: observe every register loaded into and every location */
        for (int th = 0; th < t->nthreads; th++)
            for (int o = 0; o < t->t[th].nops; o++) {
                const LitOp *op = &t->t[th].ops[o];
                if (op->reg >= 0 && op->kind != LOP_ALU &&
                    strcmp(t->t[th].regs[op->reg], LIT_TEMP_REG) != 0)
                    obs_add(obs, false, th, op->reg);
            }
        for (int l = 0; l < t->nlocs; l++)
            obs_add(obs, true, -1, l);
    }
    obs_sort_test = t;
    g_array_sort(obs, obs_cmp);
    obs_sort_test = NULL;
    g_assert(obs->len <= G_N_ELEMENTS(t->obs));
    t->nobs = (int)obs->len;
    for (guint k = 0; k < obs->len; k++) {
        LitObs *o = &g_array_index(obs, LitObs, k);
        t->obs[k].is_loc = o->is_loc;
        t->obs[k].thread = o->thread;
        t->obs[k].idx = o->idx;
    }
    t->cond_text = litmus_cond_text(t, t->quant, t->cond);
    return true;
}

LitTest *litmus_parse_string(const char *name, const char *text, GError **error)
{
    LitTest *t = g_new0(LitTest, 1);
    t->file = g_strdup(name);
    Lx lx = { .file = name, .s = text, .n = strlen(text), .line = 1, .col = 1, .t = t,
              .reg_inits = g_array_new(FALSE, FALSE, sizeof(LitRegInit)) };
    GArray *obs = g_array_new(FALSE, FALSE, sizeof(LitObs));
    bool ok = parse_header(&lx) && parse_info(&lx) && parse_init(&lx) && parse_table(&lx) &&
              parse_condition(&lx, obs) && finish(&lx, obs);
    g_array_free(obs, TRUE);
    g_array_free(lx.reg_inits, TRUE);
    if (!ok) {
        g_assert(lx.err != NULL);
        g_propagate_error(error, lx.err);
        litmus_free(t);
        return NULL;
    }
    g_assert(lx.err == NULL);
    return t;
}

LitTest *litmus_parse_file(const char *path, GError **error)
{
    FILE *f = sim_fopen_regular(path, LITMUS_ERROR, error);  /* no FIFO, device or directory */
    if (f == NULL)
        return NULL;
    GString *s = g_string_new(NULL);
    char buf[8192];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        g_string_append_len(s, buf, (gssize)got);
        if (s->len > LIT_MAX_FILE)
            break;
    }
    int e = ferror(f) ? errno : 0;
    fclose(f);
    if (e != 0) {
        g_set_error(error, LITMUS_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s", path,
                    g_strerror(e));
        g_string_free(s, TRUE);
        return NULL;
    }
    if (s->len > LIT_MAX_FILE) {
        g_set_error(error, LITMUS_ERROR, ARCHSIM_EXIT_DATAERR, "%s: too large for a litmus test "
                    "(more than %d bytes)", path, LIT_MAX_FILE);
        g_string_free(s, TRUE);
        return NULL;
    }
    const char *nul = memchr(s->str, '\0', s->len);
    if (nul != NULL) {
        int line = 1, col = 1;
        for (const char *p = s->str; p < nul; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        g_set_error(error, LITMUS_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%d:%d: NUL byte: not a text "
                    "file", path, line, col);
        g_string_free(s, TRUE);
        return NULL;
    }
    LitTest *t = litmus_parse_string(path, s->str, error);
    g_string_free(s, TRUE);
    return t;
}

void litmus_free(LitTest *t)
{
    if (t == NULL)
        return;
    g_free(t->name);
    g_free(t->file);
    for (int th = 0; th < LIT_MAX_THREADS; th++) {
        for (int o = 0; o < t->t[th].nops; o++)
            g_free(t->t[th].ops[o].text);
        for (int r = 0; r < t->t[th].nregs; r++)
            g_free(t->t[th].regs[r]);
    }
    for (int l = 0; l < t->nlocs; l++)
        g_free(t->locs[l]);
    litmus_cond_free(t->cond);
    g_free(t->cond_text);
    g_free(t);
}

char *litmus_cond_normalise(const LitTest *t, const char *name, const char *text, GError **error)
{
    /* parsed against a scratch copy of t: names the condition adds are freed with it */
    LitTest *copy = g_memdup2(t, sizeof *t);
    copy->cond = NULL;
    Lx lx = { .file = name, .s = text, .n = strlen(text), .line = 1, .col = 1, .t = copy };
    GArray *obs = g_array_new(FALSE, FALSE, sizeof(LitObs));
    char *out = NULL;
    if (parse_condition(&lx, obs))
        out = litmus_cond_text(copy, copy->quant, copy->cond);
    else
        g_propagate_error(error, lx.err);
    g_array_free(obs, TRUE);
    litmus_cond_free(copy->cond);
    for (int th = 0; th < LIT_MAX_THREADS; th++)
        for (int r = t->t[th].nregs; r < copy->t[th].nregs; r++)
            g_free(copy->t[th].regs[r]);
    for (int l = t->nlocs; l < copy->nlocs; l++)
        g_free(copy->locs[l]);
    g_free(copy);
    return out;
}
