/* script.c: script-core, a core that plays an exact access sequence written in the config, so
 * that a teaching scenario ("c0 reads x, then c1 writes x, ...") happens as stated, like the
 * step buttons of the Vivio coherence animations (Jones, Trinity College Dublin).
 *
 *   core.script: "c0@0:L:0x40  c0@100:S:0x40  c1@200:L:0x40=..."
 *                 ^core ^cycle ^load/store ^address [=value]
 *
 * One `core:` section configures every core, so items may name their core (cN@); an item
 * without one is played by every core. Each core plays its items in order, one access at a
 * time: an access is issued at its cycle, or when the previous one completed if that is later.
 * A store writes VALUE, or else a token unique to the core and the store ((core+1)*100 + n for
 * the core's n-th store while n < 100), so every value read can be traced to its writer.
 */
#include "script.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/error.h"

typedef struct {
    char *script;
    uint64_t size;
} ScriptParams;

typedef struct {
    Component base;
    ScriptParams p;
    Port *dc;
    ScriptItem *ops;         /* this core's items, in order */
    size_t nops;
    uint64_t *values;        /* per item: the value loaded or stored, once completed */
    size_t next;             /* next item to issue; the one in flight while waiting */
    bool waiting, finished;
    uint64_t issued_at;      /* cycle the access in flight was issued */
    uint64_t loads, stores, completed, cycle_done;
    int ncores;              /* the machine's script cores (0: not counted yet) */
    GArray *parsed;          /* the whole script's items, parsed once for every core that has
                                the same script (a reference, dropped once realized) */
} ScriptCore;

static const ParamSpec script_params[] = {
    { .name = "script", .type = PARAM_STRING, .def = NULL, .flags = PARAM_F_REQUIRED,
      .doc = "accesses [cN@]CYCLE:L:ADDR or [cN@]CYCLE:S:ADDR[=VALUE], separated by commas or "
             "spaces; cN@ picks core N, no prefix = every core (docs/teaching.md)",
      .offset = offsetof(ScriptParams, script) },
    { .name = "size", .type = PARAM_SIZE, .def = "8B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 1, .max = 8, .doc = "bytes per access (addresses must be multiples of it)",
      .offset = offsetof(ScriptParams, size) },
    PARAM_END,
};

static const PortSpec script_ports[] = {
    { .name = "dcache", .role = PORT_REQUESTER, .required = true, .doc = "loads and stores" },
    PORT_END,
};

#define SC(x) ((const ScriptCore *)(x))
static double f_accesses(const Component *c) { return (double)SC(c)->completed; }

static const StatSpec script_stats[] = {
    { "accesses", STAT_FORMULA_U64, "count", "accesses completed", 0, f_accesses },
    { "loads", STAT_COUNTER, "count", "loads issued", offsetof(ScriptCore, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores issued", offsetof(ScriptCore, stores), NULL },
    { "cycles", STAT_STAMP, "cycle", "cycle of the last completion",
      offsetof(ScriptCore, cycle_done), NULL },
    STAT_END,
};

/* ---- the script language -------------------------------------------------------------- */

/* Decimal, or hex after 0x when hex_ok; '_' may separate digits. */
static bool script_number(const char *s, size_t n, bool hex_ok, uint64_t *out)
{
    unsigned base = 10;
    if (hex_ok && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    }
    if (n == 0 || s[0] == '_' || s[n - 1] == '_')
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_')
            continue;
        int d = g_ascii_xdigit_value(s[i]);
        if (d < 0 || (unsigned)d >= base || v > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        v = v * base + (uint64_t)d;
    }
    *out = v;
    return true;
}

static bool script_fail(GError **error, unsigned item, const char *tok, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static bool script_fail(GError **error, unsigned item, const char *tok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "script item %u '%s': %s", item,
                tok, why);
    g_free(why);
    return false;
}

/* One item; tok is its text (no separators). */
static bool script_item(const char *tok, unsigned item, uint64_t size, int ncores,
                        ScriptItem *it, GError **error)
{
    memset(it, 0, sizeof *it);
    it->item = item;
    it->core = -1;
    const char *body = tok, *at = strchr(tok, '@');
    if (at != NULL) {
        uint64_t n;
        if ((tok[0] != 'c' && tok[0] != 'C')
            || !script_number(tok + 1, (size_t)(at - tok - 1), false, &n))
            return script_fail(error, item, tok, "'%.*s' is not a core prefix such as c0@",
                               (int)(at - tok), tok);
        if (n >= (uint64_t)ncores)
            return script_fail(error, item, tok, "there is no core %" G_GUINT64_FORMAT
                               " (cores 0 to %d)", n, ncores - 1);
        it->core = (int)n;
        body = at + 1;
    }
    char **f = g_strsplit(body, ":", -1);
    bool ok = false;
    if (g_strv_length(f) != 3) {
        script_fail(error, item, tok, "expected CYCLE:L:ADDR or CYCLE:S:ADDR[=VALUE], optionally "
                    "after cN@");
        goto out;
    }
    if (!script_number(f[0], strlen(f[0]), false, &it->cycle)) {
        script_fail(error, item, tok, "cycle '%s' is not a decimal number", f[0]);
        goto out;
    }
    if (g_ascii_strcasecmp(f[1], "L") != 0 && g_ascii_strcasecmp(f[1], "S") != 0) {
        script_fail(error, item, tok, "'%s' is not L (load) or S (store)", f[1]);
        goto out;
    }
    it->store = g_ascii_strcasecmp(f[1], "S") == 0;
    const char *eq = strchr(f[2], '=');
    size_t alen = eq != NULL ? (size_t)(eq - f[2]) : strlen(f[2]);
    if (!script_number(f[2], alen, true, &it->addr)) {
        script_fail(error, item, tok, "address '%.*s' is not a number (0x... hex or decimal)",
                    (int)alen, f[2]);
        goto out;
    }
    if (it->addr % size != 0) {
        script_fail(error, item, tok, "address 0x%" G_GINT64_MODIFIER "x is not a multiple of "
                    "the access size (core.size = %" G_GUINT64_FORMAT " B)", it->addr, size);
        goto out;
    }
    if (eq != NULL) {
        if (!it->store) {
            script_fail(error, item, tok, "a load takes no =VALUE");
            goto out;
        }
        if (!script_number(eq + 1, strlen(eq + 1), true, &it->value)) {
            script_fail(error, item, tok, "value '%s' is not a number (0x... hex or decimal)",
                        eq + 1);
            goto out;
        }
        if (size < 8 && it->value >> (8 * size) != 0) {
            script_fail(error, item, tok, "value %" G_GUINT64_FORMAT " does not fit in %"
                        G_GUINT64_FORMAT " B (core.size)", it->value, size);
            goto out;
        }
        it->has_value = true;
    }
    ok = true;
out:
    g_strfreev(f);
    return ok;
}

bool script_parse(const char *text, uint64_t size, int ncores, GArray *items, GError **error)
{
    g_assert(ncores >= 1 && size >= 1 && size <= 8);
    uint64_t *last = g_new0(uint64_t, (size_t)ncores);
    unsigned *last_item = g_new0(unsigned, (size_t)ncores);
    char **toks = g_strsplit_set(text != NULL ? text : "", ", \t\n\r", -1);
    unsigned n = 0;
    bool ok = true;
    for (char **t = toks; ok && *t != NULL; t++) {
        if (**t == '\0')
            continue;
        ScriptItem it;
        ok = script_item(*t, ++n, size, ncores, &it, error);
        for (int c = 0; ok && c < ncores; c++) {
            if (it.core >= 0 && it.core != c)
                continue;
            if (last_item[c] != 0 && it.cycle < last[c])
                ok = script_fail(error, n, *t, "cycle %" G_GUINT64_FORMAT " comes before core "
                                 "%d's previous item (%u, cycle %" G_GUINT64_FORMAT "); list each "
                                 "core's items in time order", it.cycle, c, last_item[c], last[c]);
            last[c] = it.cycle;
            last_item[c] = n;
        }
        if (ok)
            g_array_append_val(items, it);
    }
    if (ok && n == 0) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "script: no items; write e.g. \"c0@0:L:0x40, c1@100:S:0x40=7\"");
        ok = false;
    }
    g_strfreev(toks);
    g_free(last);
    g_free(last_item);
    return ok;
}

/* ---- the core --------------------------------------------------------------------------- */

static uint64_t script_tick(Component *c)
{
    ScriptCore *k = (ScriptCore *)c;
    if (k->waiting || k->next == k->nops)
        return 0;
    const ScriptItem *op = &k->ops[k->next];
    uint64_t now = sim_component_cycle(c);
    if (now < op->cycle) {
        /* sleep until the item's cycle; the script is finite, so the watchdog may wait too */
        sim_quiet_until(c->eng, sim_tick_mul(op->cycle, c->clk->period));
        return op->cycle - now;
    }
    Msg *m = sim_msg_alloc(c->sim);
    m->cmd = op->store ? MSG_WRITE_REQ : MSG_READ_REQ;
    mem_msg(m)->addr = op->addr;
    m->size = (uint32_t)k->p.size;
    mem_msg(m)->value = op->store ? op->value : 0;
    mem_msg(m)->tag = k->next;
    m->issued = c->eng->now;
    if (op->store)
        k->stores++;
    else
        k->loads++;
    k->issued_at = now;
    k->waiting = true;
    SIM_TRACE_HOLD(c, now);             /* its "load"/"store" is reported at the response */
    sim_port_send(c, k->dc, m, 0);
    return 0;
}

static void script_recv(Component *c, Port *port, Msg *m)
{
    ScriptCore *k = (ScriptCore *)c;
    (void)port;
    g_assert(k->waiting && mem_msg(m)->tag == k->next);
    const ScriptItem *op = &k->ops[k->next];
    uint64_t now = sim_component_cycle(c);
    uint64_t v = op->store ? op->value : mem_msg(m)->value;
    k->values[k->next] = v;
    /* one slice per access, from issue to completion: what the teaching table reads */
    SIM_TRACE_AT(c, k->issued_at, op->store ? "store" : "load", now - k->issued_at,
                 TARG_X("addr", op->addr), TARG_U("value", v),
                 TARG_S("cache", k->dc->peer->owner->name));
    SIM_TRACE_HOLD(c, UINT64_MAX);
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    k->waiting = false;
    k->completed++;
    sim_count_refs(&k->base, 1);
    k->cycle_done = now + 1;
    if (++k->next == k->nops)
        k->finished = true;
    else
        sim_component_wake(c);
}

static bool script_realize(Component *c, GError **error)
{
    ScriptCore *k = (ScriptCore *)c;
    k->dc = sim_port(c, "dcache", 0);
    if (!k->dc) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "dcache is not connected");
        return false;
    }
    /* the script names cores 0 .. n-1: the script cores of this machine */
    if (k->ncores == 0) {
        /* counted once for all of them (each counting alone was N^2 for N cores) */
        int n = 0;
        for (guint i = 0; i < c->sim->components->len; i++)
            n += ((Component *)g_ptr_array_index(c->sim->components, i))->cls == c->cls;
        for (guint i = 0; i < c->sim->components->len; i++) {
            Component *o = g_ptr_array_index(c->sim->components, i);
            if (o->cls == c->cls)
                ((ScriptCore *)o)->ncores = n;
        }
    }
    int ncores = k->ncores;
    int me = c->index < 0 ? 0 : c->index;
    GArray *all = k->parsed;
    k->parsed = NULL;
    if (all == NULL) {
        all = g_array_new(FALSE, FALSE, sizeof(ScriptItem));
        GError *e = NULL;
        if (!script_parse(k->p.script, k->p.size, ncores, all, &e)) {
            g_array_unref(all);
            /* at the script: key (or the --set that gave it), not the section */
            bool r = sim_component_reject(c, "script", error, "%s", e->message);
            g_error_free(e);
            return r;
        }
        /* the other script cores of the same script take it as it is (each parsing the whole
         * script and keeping every item was N x the script: 64 cores of 650,000 items took
         * 2.3 GB and 22 s to validate) */
        for (guint i = 0; i < c->sim->components->len; i++) {
            ScriptCore *o = g_ptr_array_index(c->sim->components, i);
            if (&o->base != c && o->base.cls == c->cls && !o->parsed && o->ops == NULL &&
                o->p.size == k->p.size && strcmp(o->p.script, k->p.script) == 0)
                o->parsed = g_array_ref(all);
        }
    }
    for (guint i = 0; i < all->len; i++) {
        const ScriptItem *it = &g_array_index(all, ScriptItem, i);
        if (it->cycle >= TICK_MAX / c->clk->period - 1) {
            /* its wait could not be scheduled: refused here, not mid-run without a place */
            uint64_t cyc = it->cycle;
            unsigned no = it->item;
            g_array_unref(all);
            return sim_component_reject(c, "script", error, "script item %u: cycle %"
                                        G_GUINT64_FORMAT " is past the last tick the simulation "
                                        "can hold (2^64 ps, about 213 days)", no, cyc);
        }
    }
    size_t mine = 0;                 /* this core's items only */
    for (guint i = 0; i < all->len; i++) {
        int who = g_array_index(all, ScriptItem, i).core;
        mine += who < 0 || who == me;
    }
    k->ops = g_new0(ScriptItem, mine ? mine : 1);
    uint64_t nstores = 0;
    for (guint i = 0; i < all->len; i++) {
        ScriptItem it = g_array_index(all, ScriptItem, i);
        if (it.core >= 0 && it.core != me)
            continue;
        if (it.store && !it.has_value) {
            nstores++;
            it.value = nstores < 100 ? (uint64_t)(me + 1) * 100 + nstores
                                     : ((uint64_t)(me + 1) << 32) | nstores;
            if (k->p.size < 8)
                it.value &= (1ull << (8 * k->p.size)) - 1;   /* what the line will hold */
        }
        k->ops[k->nops++] = it;
    }
    g_array_unref(all);
    k->values = g_new0(uint64_t, k->nops ? k->nops : 1);
    k->finished = k->nops == 0;
    return true;
}

static void script_start(Component *c) { sim_component_wake(c); }
static bool script_busy(const Component *c) { return !SC(c)->finished; }
static double script_progress(const Component *c)
{
    return SC(c)->nops ? (double)SC(c)->completed / (double)SC(c)->nops : 1.0;
}

static void script_dump(Component *c, GString *out)
{
    ScriptCore *k = (ScriptCore *)c;
    g_string_append_printf(out, "  %" G_GUINT64_FORMAT "/%zu accesses done", k->completed, k->nops);
    if (k->waiting)
        g_string_append_printf(out, "; script item %u (%s 0x%" G_GINT64_MODIFIER "x) issued at "
                               "cycle %" G_GUINT64_FORMAT " waits for memory",
                               k->ops[k->next].item, k->ops[k->next].store ? "store" : "load",
                               k->ops[k->next].addr, k->issued_at);
    g_string_append_c(out, '\n');
}

static void script_finalize(Component *c)
{
    ScriptCore *k = (ScriptCore *)c;
    if (k->parsed)                   /* a machine that stopped before this core was realized */
        g_array_unref(k->parsed);
    g_free(k->ops);
    g_free(k->values);
}

size_t script_core_items(const Component *c)
{
    g_assert(c->cls == &script_core_class);
    return SC(c)->nops;
}

bool script_core_value(const Component *c, size_t i, uint64_t *value)
{
    g_assert(c->cls == &script_core_class);
    if (i >= SC(c)->completed)
        return false;
    *value = SC(c)->values[i];
    return true;
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent script_teach_events[] = {
    { "load", TEACH_LOAD }, { "store", TEACH_STORE },
    TEACH_EVENTS_END,
};

const ComponentClass script_core_class = {
    .name = "script-core",
    .doc = "core playing an exact access script, one access at a time (teaching scenarios)",
    .size = sizeof(ScriptCore),
    .params_offset = offsetof(ScriptCore, p),
    .params = script_params,
    .ports = script_ports,
    .stats = script_stats,
    .realize = script_realize,
    .start = script_start,
    .tick = script_tick,
    .recv = script_recv,
    .dump = script_dump,
    .busy = script_busy,
    .progress = script_progress,
    .finalize = script_finalize,
    .check_link = mem_link_line_down,
    .teach_events = script_teach_events,
};
