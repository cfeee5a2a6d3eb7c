/* cond.c: a litmus test's final condition and outcomes: evaluating the condition on an outcome,
 * printing outcomes and conditions the way herd7 does ("0:EAX=1; 1:EAX=0; x=2;",
 * "exists (0:EAX=0 /\ 1:EAX=0)"), the histogram of outcomes, and the arithmetic of the ops that
 * every runner shares (litmus_alu_eval, litmus_rmw_eval).
 */
#include "litmus.h"

#include <stdlib.h>
#include <string.h>

/* ---- arithmetic (64-bit, wrapping: no undefined behaviour on overflow) --------------------- */

int64_t litmus_alu_eval(LitAluKind k, int64_t a, int64_t b)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    switch (k) {
    case LALU_MOV:
        return b;
    case LALU_ADD:
        return (int64_t)(x + y);
    case LALU_SUB:
        return (int64_t)(x - y);
    case LALU_XOR:
        return (int64_t)(x ^ y);
    case LALU_AND:
        return (int64_t)(x & y);
    case LALU_OR:
        return (int64_t)(x | y);
    }
    g_assert_not_reached();
}

int64_t litmus_rmw_eval(const LitOp *op, int64_t old, int64_t src, int64_t cmp)
{
    switch (op->rmw) {
    case LRMW_XCHG:
        return src;
    case LRMW_ADD:
        return (int64_t)((uint64_t)old + (uint64_t)src);
    case LRMW_CMPXCHG:
        return old == cmp ? src : old;
    }
    g_assert_not_reached();
}

/* ---- the condition ------------------------------------------------------------------------- */

static int obs_index(const LitTest *t, bool is_loc, int thread, int idx)
{
    for (int k = 0; k < t->nobs; k++)
        if (t->obs[k].is_loc == is_loc && t->obs[k].idx == idx &&
            (is_loc || t->obs[k].thread == thread))
            return k;
    return -1;
}

static bool cond_eval(const LitTest *t, const LitCond *c, const LitOutcome *o)
{
    switch (c->kind) {
    case LC_TRUE:
        return true;
    case LC_FALSE:
        return false;
    case LC_REG:
    case LC_LOC: {
        int k = obs_index(t, c->kind == LC_LOC, c->thread, c->kind == LC_LOC ? c->loc : c->reg);
        g_assert(k >= 0 && k < o->n);     /* every atom is observed (parse.c) */
        return o->v[k] == c->value;
    }
    case LC_NOT:
        return !cond_eval(t, c->a, o);
    case LC_AND:
        return cond_eval(t, c->a, o) && cond_eval(t, c->b, o);
    case LC_OR:
        return cond_eval(t, c->a, o) || cond_eval(t, c->b, o);
    }
    g_assert_not_reached();
}

bool litmus_cond_holds(const LitTest *t, const LitOutcome *o)
{
    return t->cond == NULL || cond_eval(t, t->cond, o);
}

void litmus_cond_free(LitCond *c)
{
    if (c == NULL)
        return;
    litmus_cond_free(c->a);
    litmus_cond_free(c->b);
    g_free(c);
}

static int cond_prec(const LitCond *c)
{
    switch (c->kind) {
    case LC_OR:
        return 1;
    case LC_AND:
        return 2;
    case LC_NOT:
        return 3;
    default:
        return 4;
    }
}

static void cond_print(const LitTest *t, const LitCond *c, int min_prec, GString *out)
{
    bool paren = cond_prec(c) < min_prec;
    if (paren)
        g_string_append_c(out, '(');
    switch (c->kind) {
    case LC_TRUE:
        g_string_append(out, "true");
        break;
    case LC_FALSE:
        g_string_append(out, "false");
        break;
    case LC_REG:
        g_string_append_printf(out, "%d:%s=%" G_GINT64_FORMAT, c->thread,
                               t->t[c->thread].regs[c->reg], c->value);
        break;
    case LC_LOC:
        g_string_append_printf(out, "%s=%" G_GINT64_FORMAT, t->locs[c->loc], c->value);
        break;
    case LC_NOT:
        g_string_append_c(out, '~');
        cond_print(t, c->a, 3, out);
        break;
    case LC_AND:
    case LC_OR:
        cond_print(t, c->a, cond_prec(c), out);
        g_string_append(out, c->kind == LC_AND ? " /\\ " : " \\/ ");
        cond_print(t, c->b, cond_prec(c), out);
        break;
    }
    if (paren)
        g_string_append_c(out, ')');
}

char *litmus_cond_text(const LitTest *t, LitQuantifier q, const LitCond *c)
{
    GString *out = g_string_new(q == LQ_EXISTS ? "exists (" : q == LQ_NOT_EXISTS ? "~exists ("
                                                                                 : "forall (");
    if (c == NULL)
        g_string_append(out, "true");
    else
        cond_print(t, c, 0, out);
    g_string_append_c(out, ')');
    return g_string_free(out, FALSE);
}

/* ---- outcomes and their histogram ---------------------------------------------------------- */

char *litmus_outcome_text(const LitTest *t, const LitOutcome *o)
{
    GString *s = g_string_new(NULL);
    for (int k = 0; k < t->nobs && k < o->n; k++) {
        if (k > 0)
            g_string_append_c(s, ' ');
        if (t->obs[k].is_loc)
            g_string_append_printf(s, "%s=%" G_GINT64_FORMAT ";", t->locs[t->obs[k].idx],
                                   o->v[k]);
        else
            g_string_append_printf(s, "%d:%s=%" G_GINT64_FORMAT ";", t->obs[k].thread,
                                   t->t[t->obs[k].thread].regs[t->obs[k].idx], o->v[k]);
    }
    return g_string_free(s, FALSE);
}

void litmus_hist_init(LitHist *h)
{
    h->counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    h->holds = g_hash_table_new(g_str_hash, g_str_equal);     /* keys owned by counts */
    h->runs = 0;
}

void litmus_hist_add(LitHist *h, const LitTest *t, const LitOutcome *o, uint64_t n)
{
    char *text = litmus_outcome_text(t, o);
    uint64_t *count = g_hash_table_lookup(h->counts, text);
    if (count == NULL) {
        count = g_new0(uint64_t, 1);
        g_hash_table_insert(h->counts, text, count);
        if (litmus_cond_holds(t, o))
            g_hash_table_insert(h->holds, text, GINT_TO_POINTER(1));
    } else {
        g_free(text);
    }
    *count += n;
    h->runs += n;
}

void litmus_hist_clear(LitHist *h)
{
    if (h->holds != NULL)
        g_hash_table_destroy(h->holds);
    if (h->counts != NULL)
        g_hash_table_destroy(h->counts);
    h->holds = NULL;
    h->counts = NULL;
    h->runs = 0;
}

/* Outcome texts in order: character by character, but the values after '=' as numbers, so
 * that 0:EAX=2 comes before 0:EAX=10 and -1 before 0. */
static gint outcome_cmp(gconstpointer pa, gconstpointer pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    while (*a && *b) {
        if (*a == '=' && *b == '=') {
            char *ea, *eb;
            long long va = strtoll(a + 1, &ea, 10), vb = strtoll(b + 1, &eb, 10);
            if (va != vb)
                return va < vb ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

GPtrArray *litmus_hist_sorted(const LitHist *h)
{
    GPtrArray *keys = g_ptr_array_new();
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, h->counts);
    while (g_hash_table_iter_next(&it, &k, NULL))
        g_ptr_array_add(keys, k);
    g_ptr_array_sort(keys, outcome_cmp);
    return keys;
}

void litmus_hist_totals(const LitHist *h, uint64_t *pos, uint64_t *neg)
{
    *pos = *neg = 0;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, h->counts);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        if (g_hash_table_contains(h->holds, k))
            *pos += *(uint64_t *)v;
        else
            *neg += *(uint64_t *)v;
    }
}
