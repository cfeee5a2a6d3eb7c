/* graph.c: the built machine as text and as a Graphviz digraph (graph.h). Edges go from the
 * requester's port to the responder's (PortRole), the direction requests travel; a link whose
 * two ends have the same role (none today) is drawn once, from the component created first.
 * The DOT language: https://graphviz.org/doc/info/lang.html */
#include "graph.h"

#include <inttypes.h>
#include <string.h>

static void port_name(const Port *p, GString *out)
{
    const PortSpec *s = &p->owner->cls->ports[p->spec];
    g_string_append(out, s->name);
    if (s->vector)
        g_string_append_printf(out, "[%d]", p->slot);
}

static void clock_text(const ClockDomain *clk, GString *out)
{
    uint64_t f = clk ? clk->freq_hz : 0;
    if (f == 0)
        g_string_append(out, "no clock");
    else if (f % 1000000000u == 0)
        g_string_append_printf(out, "%" PRIu64 "GHz", f / 1000000000u);
    else if (f % 1000000u == 0)
        g_string_append_printf(out, "%" PRIu64 "MHz", f / 1000000u);
    else if (f % 1000u == 0)
        g_string_append_printf(out, "%" PRIu64 "kHz", f / 1000u);
    else
        g_string_append_printf(out, "%" PRIu64 "Hz", f);
}

/* "3 cycles" in the requester's clock when the ticks are whole cycles, else "N ticks (ps)" */
static void latency_text(const Port *p, GString *out)
{
    const ClockDomain *clk = p->owner->clk;
    if (clk && clk->period && p->latency % clk->period == 0)
        g_string_append_printf(out, "%" PRIu64 " %s", (uint64_t)(p->latency / clk->period),
                               p->latency / clk->period == 1 ? "cycle" : "cycles");
    else
        g_string_append_printf(out, "%" PRIu64 " ps", (uint64_t)p->latency);
}

/* Whether the link of p is drawn from p's side: p requests, or both ends have one role and
 * p's owner comes first. */
static bool drawn_from(const Port *p)
{
    if (!p->peer)
        return false;
    PortRole a = p->owner->cls->ports[p->spec].role;
    PortRole b = p->peer->owner->cls->ports[p->peer->spec].role;
    if (a != b)
        return a == PORT_REQUESTER;
    if (p->owner != p->peer->owner)
        return strcmp(p->owner->name, p->peer->owner->name) < 0;
    return p->index < p->peer->index;
}

void sim_graph_text(const Sim *sim, GString *out)
{
    guint links = 0;
    for (guint i = 0; i < sim->components->len; i++) {
        const Component *c = g_ptr_array_index(sim->components, i);
        g_string_append_printf(out, "%-16s %-18s ", c->name, c->cls->name);
        clock_text(c->clk, out);
        g_string_append_c(out, '\n');
        for (guint j = 0; j < c->ports->len; j++) {
            const Port *p = g_ptr_array_index(c->ports, j);
            if (!drawn_from(p))
                continue;
            GString *a = g_string_new(NULL), *b = g_string_new(NULL);
            port_name(p, a);
            g_string_append_printf(b, "%s.", p->peer->owner->name);
            port_name(p->peer, b);
            g_string_append_printf(out, "  %-14s -> %-24s latency ", a->str, b->str);
            latency_text(p, out);
            g_string_append_c(out, '\n');
            g_string_free(a, TRUE);
            g_string_free(b, TRUE);
            links++;
        }
    }
    g_string_append_printf(out, "%u components, %u links\n", sim->components->len, links);
}

/* A DOT double-quoted string: quotes and backslashes escaped */
static void dot_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            g_string_append_c(out, '\\');
        g_string_append_c(out, *s);
    }
    g_string_append_c(out, '"');
}

void sim_graph_dot(const Sim *sim, GString *out)
{
    g_string_append(out, "digraph machine {\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n"
                         "  edge [fontname=\"Helvetica\", fontsize=9];\n");
    /* a machine graph's top-level groups (cluster0.core[1]: cluster0) are drawn as boxes */
    GPtrArray *groups = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < sim->components->len; i++) {
        const Component *c = g_ptr_array_index(sim->components, i);
        const char *dot = strchr(c->name, '.');
        char *g = dot ? g_strndup(c->name, (gsize)(dot - c->name)) : NULL;
        bool seen = !g;
        for (guint k = 0; g && k < groups->len && !seen; k++)
            seen = strcmp(g_ptr_array_index(groups, k), g) == 0;
        if (!seen)
            g_ptr_array_add(groups, g);
        else
            g_free(g);
    }
    for (guint gi = 0; gi <= groups->len; gi++) {
        const char *g = gi < groups->len ? g_ptr_array_index(groups, gi) : NULL;
        size_t gl = g ? strlen(g) : 0;
        if (g) {
            g_string_append(out, "  subgraph ");
            char *cl = g_strdup_printf("cluster_%s", g);
            dot_string(out, cl);
            g_free(cl);
            g_string_append(out, " {\n    label=");
            dot_string(out, g);
            g_string_append(out, ";\n");
        }
        for (guint i = 0; i < sim->components->len; i++) {
            const Component *c = g_ptr_array_index(sim->components, i);
            bool in = g ? strncmp(c->name, g, gl) == 0 && c->name[gl] == '.' : !strchr(c->name, '.');
            if (!in)
                continue;
            GString *label = g_string_new(NULL);
            g_string_append_printf(label, "%s\\n%s, ", g ? c->name + gl + 1 : c->name,
                                   c->cls->name);
            clock_text(c->clk, label);
            g_string_append(out, g ? "    " : "  ");
            dot_string(out, c->name);
            g_string_append(out, " [label=\"");
            for (const char *s = label->str; *s; s++) {   /* keep the \n escapes, quote the rest */
                if (*s == '"')
                    g_string_append_c(out, '\\');
                g_string_append_c(out, *s);
            }
            g_string_append(out, "\"];\n");
            g_string_free(label, TRUE);
        }
        if (g)
            g_string_append(out, "  }\n");
    }
    g_ptr_array_free(groups, TRUE);
    for (guint i = 0; i < sim->components->len; i++) {
        const Component *c = g_ptr_array_index(sim->components, i);
        for (guint j = 0; j < c->ports->len; j++) {
            const Port *p = g_ptr_array_index(c->ports, j);
            if (!drawn_from(p))
                continue;
            GString *label = g_string_new(NULL);
            port_name(p, label);
            g_string_append(label, " -> ");
            port_name(p->peer, label);
            g_string_append(label, ", ");
            latency_text(p, label);
            g_string_append(out, "  ");
            dot_string(out, c->name);
            g_string_append(out, " -> ");
            dot_string(out, p->peer->owner->name);
            g_string_append(out, " [label=");
            dot_string(out, label->str);
            g_string_append(out, "];\n");
            g_string_free(label, TRUE);
        }
    }
    g_string_append(out, "}\n");
}
