/* component.c: component instances, wiring, clocked ticking with sleep/wake, the message pool
 * and stat collection. A component's tick event lives inside the component; a message's delivery
 * event lives inside the message; messages are recycled through a free list, so the steady state
 * allocates nothing.
 */
#include "component.h"

#include <stdarg.h>
#include <string.h>

#include "error.h"

#define MSG_BLOCK 1024

void sim_init(Sim *sim, uint64_t seed, uint64_t sys_freq_hz)
{
    memset(sim, 0, sizeof *sim);
    sim_engine_init(&sim->eng);
    sim->components = g_ptr_array_new();
    sim->msg_blocks = g_ptr_array_new_with_free_func(g_free);
    sim->seed = seed;
    sim->mem_limit = SIM_MEM_LIMIT_DEFAULT;
    clock_domain_init(&sim->sys_clk, "system", sys_freq_hz);
    sim->roi.warm_insts = sim->roi.warm_refs = UINT64_MAX;
    sim_event_init(&sim->roi.ev, NULL, sim);
    sim_event_init(&sim->roi.end_ev, NULL, sim);
}

void sim_ext_set(Sim *sim, unsigned key, void *state, void (*free_fn)(void *))
{
    g_assert(key < SIM_EXT_SLOTS && sim->ext[key] == NULL);
    sim->ext[key] = state;
    sim->ext_free[key] = free_fn;
}

/* Always built, so that any translation unit (a test) may turn the checks on for itself. */
void sim_msg_check_family(const Msg *m, unsigned fam_mask)
{
    unsigned fam = MSG_CMD_FAMILY(m->cmd);
    if (m->cmd != 0 && !(fam_mask & (1u << fam)))
        g_error("message cmd 0x%x (family %u) read through another family's payload (mask 0x%x)",
                m->cmd, fam, fam_mask);
}

void sim_fail(Sim *sim, GError *error)
{
    if (sim->error)
        g_error_free(error);
    else
        sim->error = error;
    sim_stop(&sim->eng);
}

void sim_destroy(Sim *sim)
{
    g_clear_error(&sim->error);
    /* the heap points into components and messages: empty it before they go */
    sim_engine_destroy(&sim->eng);
    if (sim->roi.base)
        g_array_free(sim->roi.base, TRUE);
    if (sim->roi.saved)
        g_array_free(sim->roi.saved, TRUE);
    if (sim->roi.extra_base)
        g_hash_table_destroy(sim->roi.extra_base);
    if (sim->clocks)
        g_ptr_array_free(sim->clocks, TRUE);
    for (int i = 0; i < SIM_EXT_SLOTS; i++)
        if (sim->ext[i] != NULL && sim->ext_free[i] != NULL)
            sim->ext_free[i](sim->ext[i]);
    for (guint i = sim->components->len; i-- > 0;) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (c->cls->finalize)
            c->cls->finalize(c);
        if (c->cls->params)
            param_free(c->cls->params, sim_component_params(c));
        cfg_node_free(c->section);
        g_ptr_array_free(c->ports, TRUE);
        if (c->port_slots)
            g_hash_table_destroy(c->port_slots);
        g_free(c->name);
        g_free(c);
    }
    g_ptr_array_free(sim->components, TRUE);
    /* buffers of messages still in flight when the run stopped (freed messages have none) */
    for (guint b = 0; b < sim->msg_blocks->len; b++) {
        Msg *block = g_ptr_array_index(sim->msg_blocks, b);
        for (int i = 0; i < MSG_BLOCK; i++)
            if ((block[i].flags & MSG_F_OWNS_DATA) && block[i].data)
                g_free(block[i].data);
    }
    g_ptr_array_free(sim->msg_blocks, TRUE);
}

static void component_tick_event(SimEvent *ev)
{
    Component *c = ev->ctx;
    uint64_t next = c->cls->tick(c);
    if (next > 0)
        sim_component_wake_in(c, next);
}

/* The positions of a section's keys' values (and its own), without the values: what messages
 * need, kept by the component whatever becomes of the config tree. */
static CfgNode *section_positions(const CfgNode *sec)
{
    if (!sec || sec->kind != CFG_MAP)
        return NULL;
    CfgNode *m = cfg_node_new_map(sec->file, sec->line, sec->col);
    m->set_text = sec->set_text;
    for (guint i = 0; i < sec->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(sec->keys, i), *v = g_ptr_array_index(sec->items, i);
        CfgNode *p = cfg_node_new_scalar("", v->file, v->line, v->col);
        p->set_text = v->set_text;
        cfg_map_set(m, k->scalar, p);
    }
    return m;
}

Component *sim_component_new(Sim *sim, const ComponentClass *cls, const char *name,
                             const ClockDomain *clk, const CfgNode *section, GError **error)
{
    g_assert(cls->size >= sizeof(Component));
    Component *c = g_malloc0(cls->size);
    c->cls = cls;
    c->name = g_strdup(name);
    c->sim = sim;
    c->eng = &sim->eng;
    c->clk = clk;
    c->ports = g_ptr_array_new_with_free_func(g_free);
    c->trace_track = -1;
    c->index = -1;
    sim_event_init(&c->tick_ev, component_tick_event, c);
    sim_rng_seed(&c->rng, sim->seed, name);
    c->section = section_positions(section);
    static const char *const ignore[] = { "type", "clock", NULL };
    /* The component's own clock converts latencies written as times ("4ns") to its cycles. */
    if (cls->params && !param_apply_clocked(cls->params, section, name, ignore,
                                            clk != NULL ? clk->freq_hz : 0,
                                            sim_component_params(c), error)) {
        param_free(cls->params, sim_component_params(c));
        cfg_node_free(c->section);
        g_ptr_array_free(c->ports, TRUE);
        g_free(c->name);
        g_free(c);
        return NULL;
    }
    g_ptr_array_add(sim->components, c);
    return c;
}

Component *sim_component_find(Sim *sim, const char *name)
{
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

bool sim_component_param_u64(Component *c, const char *name, uint64_t *out)
{
    for (const ParamSpec *s = c->cls->params; s && s->name; s++) {
        if (strcmp(s->name, name) != 0)
            continue;
        switch (s->type) {
        case PARAM_UINT:
        case PARAM_SIZE:
        case PARAM_FREQ:
        case PARAM_CYCLES:
        case PARAM_TIME:
        case PARAM_BANDWIDTH:
            *out = *(const uint64_t *)((const char *)sim_component_params(c) + s->offset);
            return true;
        default:
            return false;
        }
    }
    return false;
}

bool sim_component_stat(Component *c, const char *name, double *out)
{
    for (const StatSpec *s = c ? c->cls->stats : NULL; s && s->name; s++) {
        if (strcmp(s->name, name) != 0)
            continue;
        if (s->kind == STAT_COUNTER || s->kind == STAT_STAMP)
            *out = (double)*(const uint64_t *)((const char *)c + s->offset);
        else if (s->kind == STAT_FORMULA || s->kind == STAT_FORMULA_U64)
            *out = s->formula(c);
        else
            return false;
        return true;
    }
    return false;
}

const char *sim_component_param_str(Component *c, const char *name)
{
    for (const ParamSpec *s = c->cls->params; s && s->name; s++)
        if (strcmp(s->name, name) == 0 && (s->type == PARAM_STRING || s->type == PARAM_PATH))
            return *(char *const *)((const char *)sim_component_params(c) + s->offset);
    return NULL;
}

bool sim_component_set_param(Component *c, const char *name, const char *text, GError **error)
{
    for (const ParamSpec *s = c->cls->params; s && s->name; s++) {
        if (strcmp(s->name, name) != 0)
            continue;
        char *problem = NULL;
        if (param_parse_value_clocked(s, text, NULL, c->clk != NULL ? c->clk->freq_hz : 0,
                                      sim_component_params(c), &problem))
            return true;
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s.%s: %s", c->name, name,
                    problem);
        g_free(problem);
        return false;
    }
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s has no parameter %s",
                c->name, name);
    return false;
}

char *sim_component_where(const Component *c, const char *key)
{
    if (!c->section || c->section->kind != CFG_MAP)
        return NULL;
    const CfgNode *v = key ? cfg_map_get(c->section, key) : NULL;
    return cfg_node_where(v ? v : c->section);
}

/* "l1d" for l1d3: the config section that instance c of a replicated section came from. */
char *sim_component_section_name(const Component *c)
{
    char *s = g_strdup(c->name);
    size_t len = strlen(s);
    if (c->index >= 0 && len > 0 && s[len - 1] == ']') {   /* a machine graph's core[3] */
        char *br = strrchr(s, '[');
        if (br)
            *br = '\0';
    } else if (c->index >= 0) {
        /* the index's own digits alone: the flat array l1 has l10, l11 (it stripped every
         * digit, so arrays l1 and l2 became one "l") */
        char ix[24];
        size_t n = strlen(s), k = (size_t)g_snprintf(ix, sizeof ix, "%d", c->index);
        if (n > k && strcmp(s + n - k, ix) == 0)
            s[n - k] = '\0';
    }
    return s;
}

bool sim_component_reject(Component *c, const char *key, GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    char *where = sim_component_where(c, key);
    char *sect = sim_component_section_name(c);
    char *what = key ? g_strdup_printf("%s.%s", sect, key) : g_strdup(c->name);
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s%s%s: %s",
                where ? where : "", where ? ": " : "", what, text);
    c->placed = true;
    g_free(what);
    g_free(sect);
    g_free(where);
    g_free(text);
    return false;
}

bool sim_component_prefix_error(Component *c, const char *key, GError **error)
{
    char *where = sim_component_where(c, key);
    char *sect = sim_component_section_name(c);
    g_prefix_error(error, "%s%s%s.%s: ", where ? where : "", where ? ": " : "", sect, key);
    c->placed = true;
    g_free(sect);
    g_free(where);
    return false;
}

static const CfgNode *param_node(const Component *c, const char *key)
{
    return c->section && c->section->kind == CFG_MAP ? cfg_map_get(c->section, key) : NULL;
}

const char *sim_component_first_set(const Component *c, const char *key, ...)
{
    va_list ap;
    va_start(ap, key);
    const char *found = NULL;
    for (const char *k = key; k && !found; k = va_arg(ap, const char *))
        if (param_node(c, k))
            found = k;
    va_end(ap);
    return found ? found : key;
}

bool sim_component_reject_pair(Component *a, const char *ka, Component *b, const char *kb,
                               GError **error, const char *fmt, ...)
{
    const CfgNode *na = param_node(a, ka), *nb = param_node(b, kb);
    bool blame_a = na && (!nb || (na->set_text && !nb->set_text));
    va_list ap;
    va_start(ap, fmt);
    char *text = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    sim_component_reject(blame_a ? a : b, blame_a ? ka : kb, error, "%s", text);
    g_free(text);
    return false;
}

char *sim_mem_format(uint64_t bytes)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (bytes == UINT64_MAX)        /* a product that overflowed */
        return g_strdup("more than 16 EiB");
    if (bytes < 1024)
        return g_strdup_printf("%" G_GUINT64_FORMAT " B", bytes);
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    return g_strdup_printf("%.1f %s", v, units[u]);
}

void sim_mem_charge_hint(Component *c, const char *key, const char *what, uint64_t bytes,
                         const char *hint)
{
    Sim *sim = c->sim;
    bool over = bytes > sim->mem_limit || sim->mem_used > sim->mem_limit - bytes;
    if (over && !sim->error) {
        char *need = sim_mem_format(bytes), *lim = sim_mem_format(sim->mem_limit),
             *tot = sim_mem_format(sim->mem_used + bytes);
        char *sect = sim_component_section_name(c);
        char *h = hint ? g_strdup(hint) : g_strdup_printf("a smaller %s.%s", sect, key);
        GError *e = NULL;
        sim_component_reject(c, key, &e, "cycle %" G_GUINT64_FORMAT ": %s (%s more) would bring "
                             "the machine to %s, over sim.memory_limit (%s): the run touches more "
                             "than the limit holds; hint: %s, or raise "
                             "sim.memory_limit if the host has the memory",
                             sim_component_cycle(c), what, need, tot, lim, h);
        g_free(h);
        g_free(need);
        g_free(lim);
        g_free(tot);
        g_free(sect);
        sim_fail(sim, e);
    }
    sim->mem_used += bytes;
}

void sim_mem_charge(Component *c, const char *key, const char *what, uint64_t bytes)
{
    sim_mem_charge_hint(c, key, what, bytes, NULL);
}

int sim_port_spec_index(const ComponentClass *cls, const char *name)
{
    for (int i = 0; cls->ports && cls->ports[i].name; i++)
        if (strcmp(cls->ports[i].name, name) == 0)
            return i;
    return -1;
}
#define port_spec_index sim_port_spec_index

/* A new connection of port `spec`: slot < 0 takes the next one after the highest in use. NULL
 * when the slot is taken or the port is scalar and connected already. */
/* port_slots keys: slot s of spec taken ((spec + 1) << 32 | s), and spec's next slot
 * ((spec + 1) << 32 | 0xffffffff -> next + 1) */
#define SLOT_KEY(spec, slot) GSIZE_TO_POINTER(((gsize)(spec) + 1) << 32 | (guint32)(slot))

static int port_next_slot(const Component *c, int spec)
{
    gpointer v = c->port_slots ? g_hash_table_lookup(c->port_slots, SLOT_KEY(spec, -1)) : NULL;
    return v ? (int)GPOINTER_TO_SIZE(v) - 1 : 0;
}

static Port *port_add(Component *c, int spec, int slot)
{
    int next = port_next_slot(c, spec);
    if (!c->cls->ports[spec].vector && next > 0)
        return NULL;                    /* a scalar port is connected once */
    if (slot < 0)
        slot = next;
    if (slot > 0 && !c->cls->ports[spec].vector)
        return NULL;
    if (!c->port_slots)
        c->port_slots = g_hash_table_new(g_direct_hash, g_direct_equal);
    if (g_hash_table_contains(c->port_slots, SLOT_KEY(spec, slot)))
        return NULL;
    g_hash_table_add(c->port_slots, SLOT_KEY(spec, slot));
    if (slot >= next)
        g_hash_table_insert(c->port_slots, SLOT_KEY(spec, -1), GSIZE_TO_POINTER((gsize)slot + 2));
    Port *p = g_new0(Port, 1);
    p->owner = c;
    p->spec = spec;
    p->slot = slot;
    p->index = (int)c->ports->len;
    g_ptr_array_add(c->ports, p);
    return p;
}

bool sim_connect_slots(Component *a, const char *port_a, int slot_a, Component *b,
                       const char *port_b, int slot_b, Tick latency, GError **error)
{
    int sa = port_spec_index(a->cls, port_a), sb = port_spec_index(b->cls, port_b);
    if (sa < 0 || sb < 0) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "cannot connect %s.%s to %s.%s: no such port", a->name, port_a, b->name,
                    port_b);
        return false;
    }
    if (latency < 1) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "link %s.%s -> %s.%s: latency must be at least 1 tick", a->name, port_a,
                    b->name, port_b);
        return false;
    }
    int next_a = port_next_slot(a, sa);
    Port *pa = port_add(a, sa, slot_a);
    Port *pb = pa ? port_add(b, sb, slot_b) : NULL;
    if (!pa || !pb) {
        if (pa) {                   /* undo a's half */
            g_hash_table_remove(a->port_slots, SLOT_KEY(sa, pa->slot));
            if (next_a > 0)
                g_hash_table_insert(a->port_slots, SLOT_KEY(sa, -1), GSIZE_TO_POINTER((gsize)next_a + 1));
            else
                g_hash_table_remove(a->port_slots, SLOT_KEY(sa, -1));
            g_ptr_array_remove_index(a->ports, a->ports->len - 1);
        }
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "cannot connect %s.%s to %s.%s: port already connected", a->name, port_a,
                    b->name, port_b);
        return false;
    }
    pa->peer = pb;
    pb->peer = pa;
    pa->latency = pb->latency = latency;
    return true;
}

bool sim_connect(Component *a, const char *port_a, Component *b, const char *port_b,
                 Tick latency, GError **error)
{
    return sim_connect_slots(a, port_a, -1, b, port_b, -1, latency, error);
}

static gint port_order(gconstpointer x, gconstpointer y)
{
    const Port *a = *(Port *const *)x, *b = *(Port *const *)y;
    if (a->spec != b->spec)
        return a->spec < b->spec ? -1 : 1;
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

bool sim_check_links(Sim *sim, char *(*where)(const Component *c, const char *port, void *ctx),
                     void *ctx, GError **error)
{
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        /* ports in (port, slot) order, so that models may walk them by slot */
        bool sorted = true;
        for (guint k = 1; k < c->ports->len; k++)
            sorted = sorted && port_order(&g_ptr_array_index(c->ports, k - 1),
                                          &g_ptr_array_index(c->ports, k)) < 0;
        if (!sorted) {
            g_ptr_array_sort(c->ports, port_order);
            for (guint k = 0; k < c->ports->len; k++)
                ((Port *)g_ptr_array_index(c->ports, k))->index = (int)k;
        }
        for (int s = 0; c->cls->ports && c->cls->ports[s].name; s++) {
            const PortSpec *ps = &c->cls->ports[s];
            int n = 0, max = -1;
            for (guint k = 0; k < c->ports->len; k++) {
                const Port *p = g_ptr_array_index(c->ports, k);
                if (p->spec == s) {
                    n++;
                    if (p->slot > max)
                        max = p->slot;
                }
            }
            char *w = NULL;
            if (n == 0 && ps->required) {
                w = where ? where(c, ps->name, ctx) : NULL;
                g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                            "%s%s%s.%s (%s %s) is never linked: class %s needs it; add a link "
                            "%s it", w ? w : "", w ? ": " : "", c->name, ps->name,
                            ps->role == PORT_REQUESTER ? "requester" : "responder",
                            ps->vector ? "vector port" : "port", c->cls->name,
                            ps->role == PORT_REQUESTER ? "from" : "to");
                g_free(w);
                return false;
            }
            if (n > 0 && max + 1 != n) {
                int gap = 0;
                for (; gap <= max; gap++) {
                    bool found = false;
                    for (guint k = 0; k < c->ports->len && !found; k++) {
                        const Port *p = g_ptr_array_index(c->ports, k);
                        found = p->spec == s && p->slot == gap;
                    }
                    if (!found)
                        break;
                }
                w = where ? where(c, ps->name, ctx) : NULL;
                g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                            "%s%s%s.%s[%d] is never linked, though %s.%s[%d] is: the slots of a "
                            "vector port must be 0 .. N-1 with none left out", w ? w : "",
                            w ? ": " : "", c->name, ps->name, gap, c->name, ps->name, max);
                g_free(w);
                return false;
            }
        }
    }
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        for (guint k = 0; k < c->ports->len; k++) {
            Port *p = g_ptr_array_index(c->ports, k);
            if (c->cls->ports[p->spec].role != PORT_REQUESTER || !p->peer)
                continue;
            Component *o = p->peer->owner;
            if ((c->cls->check_link && !c->cls->check_link(c, p, p->peer, error)) ||
                (o->cls->check_link && !o->cls->check_link(o, p->peer, p, error)))
                return false;
        }
    }
    return true;
}

const ClockDomain *sim_clock(Sim *sim, uint64_t freq_hz)
{
    if (freq_hz == sim->sys_clk.freq_hz)
        return &sim->sys_clk;
    if (!sim->clocks)
        sim->clocks = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < sim->clocks->len; i++) {
        ClockDomain *cd = g_ptr_array_index(sim->clocks, i);
        if (cd->freq_hz == freq_hz)
            return cd;
    }
    ClockDomain *cd = g_new0(ClockDomain, 1);
    char *name = g_strdup_printf("clk%uMHz", (unsigned)(freq_hz / 1000000));
    clock_domain_init(cd, g_intern_string(name), freq_hz);
    g_free(name);
    g_ptr_array_add(sim->clocks, cd);
    return cd;
}

Port *sim_port(Component *c, const char *name, int slot)
{
    int spec = port_spec_index(c->cls, name);
    for (guint i = 0; i < c->ports->len; i++) {
        Port *p = g_ptr_array_index(c->ports, i);
        if (p->spec == spec && p->slot == slot)
            return p;
    }
    return NULL;
}

/* The machine's state sized from parameters, before any of it is allocated: refused over
 * sim.memory_limit with the biggest part named (all instances of its section together). */
static bool mem_check_machine(Sim *sim, GError **error)
{
    uint64_t total = 0, best = 0;
    Component *big = NULL;
    const char *big_key = NULL;
    guint n = sim->components->len;
    uint64_t *fp = g_new0(uint64_t, n ? n : 1);
    for (guint i = 0; i < n; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        const char *key = NULL;
        fp[i] = c->cls->footprint ? c->cls->footprint(c, &key) : 0;
        total = fp[i] > UINT64_MAX - total ? UINT64_MAX : total + fp[i];
        if (fp[i] > best) {
            best = fp[i];
            big = c;
            big_key = key;
        }
    }
    bool ok = total <= sim->mem_limit;
    if (!ok) {
        char *sect = sim_component_section_name(big);
        uint64_t part = 0, count = 0;
        for (guint i = 0; i < n; i++) {
            Component *c = g_ptr_array_index(sim->components, i);
            char *cs = sim_component_section_name(c);
            if (c->cls == big->cls && strcmp(cs, sect) == 0) {
                part = fp[i] > UINT64_MAX - part ? UINT64_MAX : part + fp[i];
                count++;
            }
            g_free(cs);
        }
        char *each = sim_mem_format(best), *all = sim_mem_format(part),
             *tot = sim_mem_format(total), *lim = sim_mem_format(sim->mem_limit);
        char *what = count > 1 ? g_strdup_printf("%" G_GUINT64_FORMAT " x %s (%s in all)", count,
                                                 each, all)
                               : g_strdup(each);
        sim_component_reject(big, big_key ? big_key : "size", error,
                             "the state of %s would take %s, and the whole machine %s: over "
                             "sim.memory_limit (%s); hint: a smaller %s.%s, or raise "
                             "sim.memory_limit if the host has the memory", count > 1 ? sect :
                             big->name, what, tot, lim, sect, big_key ? big_key : "size");
        g_free(what);
        g_free(each);
        g_free(all);
        g_free(tot);
        g_free(lim);
        g_free(sect);
    } else {
        sim->mem_used += total;
    }
    g_free(fp);
    return ok;
}

bool sim_realize_all(Sim *sim, GError **error)
{
    if (!mem_check_machine(sim, error))
        return false;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (c->cls->realize && !c->cls->realize(c, error)) {
            /* sim_component_reject named the place and the component; any other error gets
             * both here, once: "FILE:LINE:COL: NAME: problem" (the section's position), so a
             * model's message names neither itself nor its section */
            if (!c->placed) {
                char *where = sim_component_where(c, NULL);
                g_prefix_error(error, "%s%s%s: ", where ? where : "", where ? ": " : "", c->name);
                g_free(where);
            }
            return false;
        }
        if (sim->trace)
            c->trace_track = trace_register_as(sim->trace, c->name, c->cls->teach_events);
    }
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (c->cls->start)
            c->cls->start(c);
    }
    return true;
}

void sim_component_wake(Component *c)
{
    Tick now = c->eng->now, edge = clock_div_now(c->clk, now) * c->clk->period;
    if (edge != now)
        edge += c->clk->period;                /* the first edge at or after now */
    if (sim_event_scheduled(&c->tick_ev)) {
        if (c->tick_ev.when <= edge)
            return;
        sim_deschedule(c->eng, &c->tick_ev);
    }
    sim_schedule(c->eng, &c->tick_ev, edge, SIM_PRI_TICK);
}

void sim_component_wake_in(Component *c, uint64_t cycles)
{
    /* counted from the start of the current cycle, so "1" is always the next edge */
    uint64_t cycle = clock_div_now(c->clk, c->eng->now);
    Tick when, span;
    if (G_UNLIKELY(__builtin_mul_overflow(cycles, c->clk->period, &span) ||
                   __builtin_add_overflow(cycle * c->clk->period, span, &when))) {
        /* a wait its input asked for (a scripted cycle, a program's delay) that no tick can
         * hold: it wrapped to an early wake-up before */
        sim_fail(c->sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_DATAERR,
                                     "cycle %" G_GUINT64_FORMAT ": %s: a wait of %" G_GUINT64_FORMAT
                                     " cycles ends past the last tick the simulation can hold "
                                     "(2^64 ps, about 213 days)", cycle, c->name, cycles));
        return;
    }
    if (when <= c->eng->now)
        when = clock_edge_at_or_after(c->clk, c->eng->now + 1);
    if (sim_event_scheduled(&c->tick_ev)) {
        if (c->tick_ev.when <= when)
            return;
        sim_deschedule(c->eng, &c->tick_ev);
    }
    sim_schedule(c->eng, &c->tick_ev, when, SIM_PRI_TICK);
}

void sim_msg_deliver(SimEvent *ev)
{
    Msg *m = ev->ctx;
    Port *dst = m->dst;
    dst->owner->cls->recv(dst->owner, dst, m);
}

void sim_msg_pool_grow(Sim *sim)
{
    Msg *block = g_new0(Msg, MSG_BLOCK);
    g_ptr_array_add(sim->msg_blocks, block);
    for (int i = 0; i < MSG_BLOCK; i++) {
        block[i].next_free = sim->free_msgs;
        sim->free_msgs = &block[i];
    }
}

/* Clock-domain crossing (sim_port_send in component.h): the arrival as the receiver sees it. */
Tick sim_port_arrival_slow(const Component *c, const Port *p, Tick when)
{
    const ClockDomain *from = c->clk, *to = p->peer->owner->clk;
    if (to == from || !to || !from || to->period == from->period)
        return when;
    return clock_edge_at_or_after(to, when);
}

/* No clock crossing here: an express call is instantaneous by definition (the bus's ordering
 * point), so the receiver runs inside the caller's instant, whatever its clock. What it then
 * does on its own is on its own clock: sim_component_wake goes to its next edge, and a reply
 * by sim_port_send counts from its current cycle and is synchronized to the destination. */
void sim_port_call(Component *c, Port *p, Msg *m)
{
    g_assert(p && p->owner == c && p->peer);
    m->dst = p->peer;
    p->peer->owner->cls->recv(p->peer->owner, p->peer, m);
}

void sim_collect_stats(Sim *sim, StatSet *set)
{
    sim_stats_view_begin(sim);
    GString *nb = g_string_new(NULL);       /* COMPONENT.STAT, built in place for each stat */
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        g_string_assign(nb, c->name);
        g_string_append_c(nb, '.');
        gsize plen = nb->len;
        for (const StatSpec *s = c->cls->stats; s && s->name; s++) {
            g_string_truncate(nb, plen);
            g_string_append(nb, s->name);
            const char *name = nb->str;
            switch (s->kind) {
            case STAT_COUNTER:
            case STAT_STAMP:
                (s->kind == STAT_STAMP ? stats_add_level : stats_add_u64)(
                    set, name, *(const uint64_t *)((const char *)c + s->offset), s->unit,
                    s->desc);
                break;
            case STAT_FORMULA:
                stats_add_double(set, name, s->formula(c), s->unit, s->desc);
                break;
            case STAT_FORMULA_U64:
                stats_add_u64(set, name, (uint64_t)s->formula(c), s->unit, s->desc);
                break;
            case STAT_HIST:
                stats_add_hist(set, name, (const SimHist *)((const char *)c + s->offset),
                               s->unit, s->desc);
                break;
            }
        }
        if (c->cls->extra_stats) {
            guint from = set->entries->len;
            c->cls->extra_stats(c, set);
            /* their counts are rebased by name: the value at the reset is subtracted */
            for (guint j = from; sim->roi.extra_base && j < set->entries->len; j++) {
                StatEntry *e = &g_array_index(set->entries, StatEntry, j);
                const uint64_t *b = e->is_int && !e->level
                                        ? g_hash_table_lookup(sim->roi.extra_base, e->name)
                                        : NULL;
                if (b)
                    e->u = e->u > *b ? e->u - *b : 0, e->d = (double)e->u;
            }
        }
    }
    g_string_free(nb, TRUE);
    sim_stats_view_end(sim);
}

uint64_t sim_stats_first_cycle(const Component *c)
{
    return c->sim->roi.done ? clock_cycle(c->clk, c->sim->roi.at) + 1 : 0;
}

static void roi_fire(SimEvent *ev)
{
    sim_stats_reset(ev->ctx);
}

void sim_stats_reset_at(Sim *sim, Tick when)
{
    sim->roi.ev.fn = roi_fire;
    sim_reschedule(&sim->eng, &sim->roi.ev, when, SIM_PRI_STATS);
}

static void roi_end_fire(SimEvent *ev)
{
    Sim *sim = ev->ctx;
    if (sim->roi.on_end)
        sim->roi.on_end(sim, sim->roi.on_reset_ctx);
}

void sim_stats_roi_begin(Sim *sim)
{
    if (sim->roi.ended)
        return;                  /* the region is over: a late begin changes nothing */
    sim->roi.open++;
    if (sim->roi.begun)
        return;
    sim->roi.begun = true;
    sim->roi.warm_insts = sim->roi.warm_refs = UINT64_MAX;   /* the marker wins */
    sim_stats_reset_at(sim, sim->eng.now);
}

void sim_stats_roi_end(Sim *sim)
{
    if (sim->roi.ended || (sim->roi.open > 0 && --sim->roi.open > 0))
        return;                  /* other threads are still in their region */
    sim->roi.ended = true;
    sim_event_init(&sim->roi.end_ev, roi_end_fire, sim);
    sim_schedule(&sim->eng, &sim->roi.end_ev, sim->eng.now, SIM_PRI_STATS);
}

void sim_stats_warm_reached(Sim *sim)
{
    sim->roi.warm_insts = sim->roi.warm_refs = UINT64_MAX;
    if (!sim_event_scheduled(&sim->roi.ev))
        sim_stats_reset_at(sim, sim->eng.now);
}

void sim_stats_reset(Sim *sim)
{
    SimStatsRoi *r = &sim->roi;
    g_assert(r->view == 0);
    if (!r->base)
        r->base = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_array_set_size(r->base, 0);
    r->done = true;
    r->at = sim->eng.now;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        for (const StatSpec *s = c->cls->stats; s && s->name; s++) {
            void *f = (char *)c + s->offset;
            if (s->kind == STAT_COUNTER || s->kind == STAT_STAMP) {
                uint64_t v = s->kind == STAT_STAMP ? sim_stats_first_cycle(c)
                                                   : *(const uint64_t *)f;
                g_array_append_val(r->base, v);
            } else if (s->kind == STAT_HIST) {
                memset(f, 0, sizeof(SimHist));
            }
        }
        if (c->cls->stats_reset)
            c->cls->stats_reset(c);
    }
    if (!r->extra_base)
        r->extra_base = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_remove_all(r->extra_base);
    /* read in a view, so that an extra count derived from table counters (rebased already)
     * reads 0 here and is not subtracted twice */
    StatSet tmp;
    stats_init(&tmp);
    sim_stats_view_begin(sim);
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (c->cls->extra_stats)
            c->cls->extra_stats(c, &tmp);
    }
    sim_stats_view_end(sim);
    for (guint j = 0; j < tmp.entries->len; j++) {
        const StatEntry *e = &g_array_index(tmp.entries, StatEntry, j);
        if (e->is_int && !e->level && e->u)
            g_hash_table_replace(r->extra_base, g_strdup(e->name), g_memdup2(&e->u, sizeof e->u));
    }
    stats_clear(&tmp);
    r->events = sim->eng.events;
    r->insts_at = r->insts;
    r->refs_at = r->refs;
    if (r->on_reset)
        r->on_reset(sim, r->on_reset_ctx);
}

void sim_stats_view_begin(Sim *sim)
{
    SimStatsRoi *r = &sim->roi;
    if (r->view++ > 0 || !r->done)
        return;
    if (!r->saved)
        r->saved = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_array_set_size(r->saved, r->base->len);
    guint k = 0;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        for (const StatSpec *s = c->cls->stats; s && s->name; s++) {
            if (s->kind != STAT_COUNTER && s->kind != STAT_STAMP)
                continue;
            uint64_t *f = (uint64_t *)((char *)c + s->offset);
            uint64_t b = g_array_index(r->base, uint64_t, k);
            g_array_index(r->saved, uint64_t, k++) = *f;
            *f = *f > b ? *f - b : 0;
        }
    }
}

void sim_stats_view_end(Sim *sim)
{
    SimStatsRoi *r = &sim->roi;
    g_assert(r->view > 0);
    if (--r->view > 0 || !r->done)
        return;
    guint k = 0;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        for (const StatSpec *s = c->cls->stats; s && s->name; s++)
            if (s->kind == STAT_COUNTER || s->kind == STAT_STAMP)
                *(uint64_t *)((char *)c + s->offset) = g_array_index(r->saved, uint64_t, k++);
    }
}

void sim_dump_all(Sim *sim, GString *out)
{
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        g_string_append_printf(out, "== %s (%s)%s\n", c->name, c->cls->name,
                               sim_event_scheduled(&c->tick_ev) ? " [awake]" : " [asleep]");
        if (c->cls->dump)
            c->cls->dump(c, out);
    }
}

double sim_progress_fraction(Sim *sim)
{
    double least = -1;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (!c->cls->progress)
            continue;
        double f = c->cls->progress(c);
        if (least < 0 || f < least)
            least = f;
    }
    return least;
}

bool sim_any_busy(Sim *sim)
{
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (c->cls->busy && c->cls->busy(c))
            return true;
    }
    return false;
}
