/* system.c: checks a whole config tree against the tables, instantiates one component per
 * top-level section, lets the system class wire them, and runs the engine with the progress
 * watchdog. Every key of every section must be declared somewhere: nothing is silently ignored.
 */
#include "system.h"

#include <string.h>

#include "error.h"
#include "machine.h"

bool sim_parse_seed(const char *text, uint64_t *seed)
{
    SimParams sp = { 0 };
    char *problem = NULL;
    g_assert(strcmp(sim_param_specs[0].name, "seed") == 0);
    if (!param_parse_value(&sim_param_specs[0], text, NULL, &sp, &problem)) {
        g_free(problem);
        return false;
    }
    *seed = sp.seed;
    return true;
}

const ParamSpec sim_param_specs[] = {
    { .name = "seed", .type = PARAM_UINT, .def = "1",
      .doc = "seed of every component's PRNG (printed and recorded in run.json)",
      .offset = offsetof(SimParams, seed) },
    { .name = "clock", .type = PARAM_FREQ, .def = "3GHz", .flags = PARAM_F_RANGE, .min = 1e3,
      .max = 100e9, .doc = "system clock: components' default clock, and the clock sim.cycles counts",
      .offset = offsetof(SimParams, clock_hz) },
    { .name = "max_cycles", .type = PARAM_CYCLES, .def = "0",
      .doc = "stop after this many system cycles (0 = run to completion); sim.truncated says so",
      .offset = offsetof(SimParams, max_cycles) },
    { .name = "watchdog", .type = PARAM_CYCLES, .def = "10000000",
      .doc = "deadlock watchdog: fail (exit 3) if nothing completes for this many cycles (0 = off)",
      .offset = offsetof(SimParams, watchdog) },
    { .name = "memory_limit", .type = PARAM_SIZE, .def = "8GiB", .flags = PARAM_F_RANGE,
      .min = 1 << 20, .max = 1ull << 50,
      .doc = "most host memory the models may hold (tag stores, line data, buffers): a larger "
      "machine is refused (exit 78) before it is built, or when its sparse stores fill up",
      .offset = offsetof(SimParams, memory_limit) },
    { .name = "warmup", .type = PARAM_STRING, .def = "0",
      .doc = "reset every statistic once the warm-up is over: N instructions (N or N:insts), "
      "N:refs memory references or N:cycles system cycles, all cores together (k, M, G "
      "suffixes); 0 = none (docs/outputs.md)",
      .offset = offsetof(SimParams, warmup) },
    { .name = "stats_every", .type = PARAM_CYCLES, .def = "0",
      .doc = "write one line of per-epoch stat deltas to stats.jsonl every N system cycles "
      "(0 = none; docs/outputs.md)",
      .offset = offsetof(SimParams, stats_every) },
    { .name = "roi_markers", .type = PARAM_BOOL, .def = "false",
      .doc = "a trace's ROI markers (archsim_roi_begin/end) reset the stats at the first begin "
      "and freeze them at the first end (off: replayed as no-ops, as before)",
      .offset = offsetof(SimParams, roi_markers) },
    PARAM_END,
};

const ParamSpec sim_section_clock_spec[] = {
    { .name = "clock", .type = PARAM_FREQ, .def = NULL, .flags = PARAM_F_RANGE, .min = 1e3,
      .max = 100e9, .doc = "this section's clock: its cycles, its latencies written as times and "
      "its cycle stats count in it (absent: sim.clock)", .offset = 0 },
    PARAM_END,
};

const char *const sim_warm_unit_names[] = { "insts", "refs", "cycles", NULL };

bool sim_warmup_parse(const char *text, uint64_t *n, SimWarmUnit *unit, char **problem)
{
    char *t = g_strstrip(g_strdup(text));
    char *colon = strchr(t, ':');
    *unit = SIM_WARM_INSTS;
    bool ok = true;
    if (colon) {
        *colon = '\0';
        const char *u = colon + 1;
        int k = -1;
        for (int i = 0; sim_warm_unit_names[i]; i++)
            if (strcmp(u, sim_warm_unit_names[i]) == 0)
                k = i;
        if (k < 0) {
            const char *hint = param_suggest(u, sim_warm_unit_names, 3);
            for (int i = 0; !hint && sim_warm_unit_names[i]; i++)   /* "instructions", "ref" */
                if (strlen(u) >= 3 && strncmp(u, sim_warm_unit_names[i], 3) == 0)
                    hint = sim_warm_unit_names[i];
            *problem = g_strdup_printf("'%s': unknown unit '%s' (insts, refs or cycles)%s%s%s",
                                       text, u, hint ? "; did you mean '" : "", hint ? hint : "",
                                       hint ? "'?" : "");
            g_free(t);
            return false;
        }
        *unit = (SimWarmUnit)k;
    }
    uint64_t v = 0, mult = 1;
    const char *p = t;
    if (!g_ascii_isdigit(*p) || (p[0] == '0' && g_ascii_isdigit(p[1])))
        ok = false;
    for (; ok && *p; p++) {
        if (*p == '_' && p > t && g_ascii_isdigit(p[-1]) && g_ascii_isdigit(p[1]))
            continue;
        if (!g_ascii_isdigit(*p))
            break;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            *problem = g_strdup_printf("'%s': too large", text);
            g_free(t);
            return false;
        }
        v = v * 10 + d;
    }
    if (ok && *p) {
        mult = *p == 'k' || *p == 'K' ? 1000ull : *p == 'M' ? 1000000ull
                                                    : *p == 'G' ? 1000000000ull : 0;
        ok = mult != 0 && p[1] == '\0';
    }
    if (ok && mult > 1 && v > UINT64_MAX / mult) {
        *problem = g_strdup_printf("'%s': too large", text);
        g_free(t);
        return false;
    }
    if (!ok)
        *problem = g_strdup_printf("'%s': expected N, N:insts, N:refs or N:cycles, N a count such "
                                   "as 1000000 or 1M", text);
    else
        *n = v * mult;
    g_free(t);
    return ok;
}

/* A numeric parameter of the system section, by name (counts of replicated sections). */
static uint64_t system_param_u64(const SystemClass *sys, const void *params, const char *name)
{
    for (const ParamSpec *p = sys->params; p && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return *(const uint64_t *)((const char *)params + p->offset);
    g_error("system %s: no parameter %s for a section count", sys->name, name);
}

const ComponentClass *registry_find_class(const char *name)
{
    for (int i = 0; archsim_component_classes[i]; i++)
        if (strcmp(archsim_component_classes[i]->name, name) == 0)
            return archsim_component_classes[i];
    return NULL;
}

const SystemClass *registry_find_system(const char *name)
{
    for (int i = 0; archsim_system_classes[i]; i++)
        if (strcmp(archsim_system_classes[i]->name, name) == 0)
            return archsim_system_classes[i];
    return NULL;
}

static void set_node_error(GError **error, const CfgNode *node, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
static void set_node_error(GError **error, const CfgNode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_set_error_va(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, node, fmt, ap);
    va_end(ap);
}

static const char *scalar_of(const CfgNode *n)
{
    return n && n->kind == CFG_SCALAR ? n->scalar : NULL;
}

/* A section's `type:` must name its class or one of the alternatives the system allows. */
static bool section_type_ok(const SystemSection *s, const CfgNode *t, GError **error)
{
    bool ok = scalar_of(t) && strcmp(t->scalar, s->cls) == 0;
    for (int a = 0; !ok && s->alts && s->alts[a]; a++)
        ok = scalar_of(t) && strcmp(t->scalar, s->alts[a]) == 0;
    if (ok)
        return true;
    GString *all = g_string_new(s->cls);
    for (int a = 0; s->alts && s->alts[a]; a++)
        g_string_append_printf(all, ", %s", s->alts[a]);
    set_node_error(error, t, "%s.type: '%s' cannot be used here; this system takes: %s", s->name,
                   scalar_of(t) ? t->scalar : "?", all->str);
    g_string_free(all, TRUE);
    return false;
}

static const char *const ignore_type[] = { "type", NULL };
/* a component section's own keys besides its class's parameters */
static const char *const ignore_section[] = { "type", "clock", NULL };

bool system_section_clock(const CfgNode *sec, const char *path, uint64_t sys_hz, uint64_t *hz,
                          GError **error)
{
    const CfgNode *v = sec && sec->kind == CFG_MAP ? cfg_map_get(sec, "clock") : NULL;
    *hz = sys_hz;
    if (!v)
        return true;
    if (v->kind != CFG_SCALAR) {
        set_node_error(error, v, "%s.clock: expected a frequency such as 1GHz, got a %s", path,
                       v->kind == CFG_MAP ? "map" : "sequence");
        return false;
    }
    char *problem = NULL;
    uint64_t f = 0;
    if (!param_parse_value(&sim_section_clock_spec[0], v->scalar, NULL, &f, &problem)) {
        /* a near-miss unit has its own hint already */
        set_node_error(error, v, "%s.clock: %s%s", path, problem,
                       strstr(problem, "did you mean") ? "" : "; hint: a frequency such as 1GHz "
                       "or 1.6GHz (without the key, the section runs on sim.clock)");
        g_free(problem);
        return false;
    }
    *hz = f;
    return true;
}

/* One present section (key k, map v) against its class table: its type: (one the system
 * allows) and every key it gives; partial (an include-only part) leaves out the required-key
 * check, since the including config may give them. */
/* Checks one section's parameters against its class; times convert by the section's clock:
 * its `clock:`, else clock_hz (the system clock). */
static bool section_check(const SystemSection *s, const CfgNode *k, const CfgNode *v,
                          bool partial, uint64_t clock_hz, GError **error)
{
    const CfgNode *tn = cfg_map_get(v, "type");
    if (!system_section_clock(v, s->name, clock_hz, &clock_hz, error))
        return false;
    const ComponentClass *cls = registry_find_class(s->cls);
    if (tn && !section_type_ok(s, tn, error))
        return false;
    if (tn && scalar_of(tn))
        for (int a = 0; s->alts && s->alts[a]; a++)
            if (strcmp(tn->scalar, s->alts[a]) == 0)
                cls = registry_find_class(s->alts[a]);
    if (!cls) {
        set_node_error(error, tn ? tn : k, "%s: class is not built into this archsim", s->name);
        return false;
    }
    if (!cls->params)
        return true;
    void *scratch = g_malloc0(cls->size);
    void *dst = (char *)scratch + cls->params_offset;
    bool ok = partial
        ? param_check_given(cls->params, v, s->name, ignore_section, clock_hz, dst, error)
        : param_apply_clocked(cls->params, v, s->name, ignore_section, clock_hz, dst, error);
    if (ok)
        param_free(cls->params, dst);
    g_free(scratch);
    return ok;
}

/* The key node of a top-level key, or NULL. */
static const CfgNode *top_key(const CfgNode *root, const char *name)
{
    for (guint i = 0; root->kind == CFG_MAP && i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        if (strcmp(k->scalar, name) == 0)
            return k;
    }
    return NULL;
}

/* system.type of a tree ("uniproc" when absent); NULL with *error for a bad one. */
static const SystemClass *system_of(const CfgNode *sysn, GError **error)
{
    const CfgNode *t = sysn ? cfg_map_get(sysn, "type") : NULL;
    if (t && !scalar_of(t)) {
        set_node_error(error, t, "system.type: expected a name");
        return NULL;
    }
    const char *type = t ? t->scalar : "uniproc";
    const SystemClass *sys = registry_find_system(type);
    if (!sys) {
        const char *names[64];
        size_t n = 0;
        for (; archsim_system_classes[n] && n < 64; n++)
            names[n] = archsim_system_classes[n]->name;
        const char *hint = param_suggest(type, names, n);
        set_node_error(error, t ? t : sysn, "system.type: unknown system '%s'%s%s%s", type,
                       hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    }
    return sys;
}

static const SystemSection *system_section(const SystemClass *sys, const char *name)
{
    for (const SystemSection *s = sys->sections; s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

bool system_is_part(const CfgNode *root)
{
    if (root->kind != CFG_MAP || top_key(root, "part"))
        return root->kind == CFG_MAP;
    if (root->keys->len == 0 || top_key(root, "system") || top_key(root, "sim"))
        return false;
    for (guint i = 0; i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        bool known = false;
        for (int j = 0; archsim_system_classes[j] && !known; j++)
            known = system_section(archsim_system_classes[j], k->scalar) != NULL;
        if (!known)
            return false;
    }
    return true;
}

static uint64_t sim_clock_given(const CfgNode *root);

bool system_check_part(const CfgNode *root, GString *summary, GError **error)
{
    if (cfg_map_get(root, "components") || cfg_map_get(root, "subcomponents"))
        return machine_check_part(root, summary, error);
    /* times in a part convert by its sim.clock, or the default clock when it has none */
    uint64_t clock_hz = sim_clock_given(root);
    const CfgNode *pk = top_key(root, "part");
    const CfgNode *pv = pk ? cfg_map_get(root, "part") : NULL;
    if (pv && !(pv->kind == CFG_SCALAR && strcmp(pv->scalar, "true") == 0)) {
        set_node_error(error, pv, "part: expected true (this file is an include-only part)");
        return false;
    }
    const CfgNode *sysn = cfg_map_get(root, "system");
    const SystemClass *sys = NULL;
    if (sysn) {
        if (!(sys = system_of(sysn, error)))
            return false;
        void *sp = g_malloc0(sys->params_size ? sys->params_size : 1);
        bool ok = !sys->params ||
                  param_check_given(sys->params, sysn, "system", ignore_type, clock_hz, sp,
                                    error);
        if (ok && sys->params)
            param_free(sys->params, sp);
        g_free(sp);
        if (!ok)
            return false;
    }
    guint n = 0;
    GString *names = g_string_new(NULL);
    bool ok = true;
    for (guint i = 0; ok && i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        const CfgNode *v = g_ptr_array_index(root->items, i);
        if (strcmp(k->scalar, "part") == 0 || strcmp(k->scalar, "system") == 0)
            continue;
        n++;
        g_string_append_printf(names, "%s%s", names->len ? ", " : "", k->scalar);
        if (v->kind != CFG_MAP && !(v->kind == CFG_SCALAR && v->scalar[0] == '\0')) {
            set_node_error(error, v, "%s: expected a map of parameters", k->scalar);
            ok = false;
        } else if (strcmp(k->scalar, "sim") == 0) {
            SimParams scratch = { 0 };
            ok = param_check_given(sim_param_specs, v, "sim", NULL, clock_hz, &scratch, error);
        } else if (v->kind != CFG_MAP) {
            continue;                   /* "l1d:" alone: all defaults */
        } else if (sys) {
            const SystemSection *s = system_section(sys, k->scalar);
            if (!s) {
                const char *allowed[64];
                size_t na = 0;
                allowed[na++] = "sim";
                allowed[na++] = "system";
                for (const SystemSection *t = sys->sections; t->name && na < 64; t++)
                    allowed[na++] = t->name;
                const char *hint = param_suggest(k->scalar, allowed, na);
                set_node_error(error, k, "%s: unknown section for system '%s'%s%s%s", k->scalar,
                               sys->name, hint ? "; did you mean '" : "", hint ? hint : "",
                               hint ? "'?" : "");
                ok = false;
            } else {
                ok = section_check(s, k, v, true, clock_hz, error);
            }
        } else {
            /* no system: the section is good if it is good for some system that has it; when
             * none takes it, the first system's complaint is reported */
            GError *first = NULL;
            bool found = false, good = false;
            for (int j = 0; archsim_system_classes[j] && !good; j++) {
                const SystemSection *s = system_section(archsim_system_classes[j], k->scalar);
                if (!s)
                    continue;
                found = true;
                GError *e = NULL;
                good = section_check(s, k, v, true, clock_hz, &e);
                if (e && !first)
                    first = e;
                else if (e)
                    g_error_free(e);
            }
            if (good) {
                g_clear_error(&first);
            } else if (found) {
                g_propagate_error(error, first);
                ok = false;
            } else {
                const char *all[256];
                size_t na = 0;
                all[na++] = "sim";
                all[na++] = "system";
                all[na++] = "part";
                for (int j = 0; archsim_system_classes[j]; j++)
                    for (const SystemSection *t = archsim_system_classes[j]->sections;
                         t->name && na < 256; t++)
                        all[na++] = t->name;
                const char *hint = param_suggest(k->scalar, all, na);
                set_node_error(error, k, "%s: unknown section: no system has it%s%s%s", k->scalar,
                               hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
                ok = false;
            }
        }
    }
    if (ok) {
        if (sys)
            g_string_append_printf(summary, "part of system %s: ", sys->name);
        else
            g_string_append(summary, "part: ");
        g_string_append_printf(summary, "%u section%s checked on %s own", n, n == 1 ? "" : "s",
                               n == 1 ? "its" : "their");
        if (n)
            g_string_append_printf(summary, " (%s)", names->str);
    }
    g_string_free(names, TRUE);
    return ok;
}

static void on_deadlock(Engine *eng, void *ctx)
{
    SystemRun *run = ctx;
    GString *r = g_string_new(NULL);
    g_string_append_printf(r,
                           "deadlock: nothing completed for %" G_GUINT64_FORMAT
                           " cycles (watchdog), at cycle %" G_GUINT64_FORMAT
                           "; %u events pending\n",
                           run->sp.watchdog, clock_cycle(&run->sim.sys_clk, eng->now),
                           sim_pending(eng));
    sim_dump_all(&run->sim, r);
    uint64_t now = clock_cycle(&run->sim.sys_clk, eng->now);
    uint64_t from = now > 2 * run->sp.watchdog ? now - 2 * run->sp.watchdog : 0;
    g_string_append(r, "if one operation can legitimately take that long (very slow memory "
                       "timing), raise sim.watchdog\n");
    if (!run->sim.trace)
        g_string_append_printf(r,
                               "to see the events that led here, rerun with "
                               "--trace last.txt --trace-window %" G_GUINT64_FORMAT ":%"
                               G_GUINT64_FORMAT " (the dump is kept on a deadlock)\n",
                               from, now);
    run->deadlock_report = r;
}

/* sim.clock as given (or its default), for sim.max_cycles and sim.watchdog written as times,
 * which the system clock counts; 0 when it does not parse (param_apply then says why). */
static uint64_t sim_clock_given(const CfgNode *root)
{
    const CfgNode *sim = cfg_map_get(root, "sim");
    const CfgNode *v = sim != NULL && sim->kind == CFG_MAP ? cfg_map_get(sim, "clock") : NULL;
    for (const ParamSpec *s = sim_param_specs; s->name != NULL; s++) {
        if (strcmp(s->name, "clock") != 0)
            continue;
        SimParams p;
        char *problem = NULL;
        const char *text = v != NULL && v->kind == CFG_SCALAR ? v->scalar : s->def;
        bool ok = param_parse_value(s, text, NULL, &p, &problem);
        g_free(problem);
        return ok ? p.clock_hz : 0;
    }
    g_assert_not_reached();
}

/* The system's settle step, after the graph is built and linked: instances of a section the
 * config does not give have no place to name in messages (as components built one per section
 * always had), then the system derives and checks what it must. */
static bool shorthand_settle(Sim *sim, void *ctx, GError **error)
{
    SystemRun *run = ctx;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        char *sect = sim_component_section_name(c);
        const CfgNode *v = cfg_map_get(run->root, sect);
        if (!v || v->kind != CFG_MAP) {
            cfg_node_free(c->section);
            c->section = NULL;
        }
        g_free(sect);
    }
    return !run->sys->build || run->sys->build(sim, run->sys_params, run->root, error);
}

/* system.type: NAME as its graph (configs/parts/machines/NAME.yaml): each section's type: picks
 * its component's class and its count: parameter the array's size; the sections themselves are
 * the graph's overrides (their keys are the components' parameters). */
static bool shorthand_build(SystemRun *run, GError **error)
{
    const CfgNode *root = run->root;
    CfgNode *graph = machine_part_load(run->sys->part, root, error);
    if (!graph)
        return false;
    CfgNode *comps = cfg_map_get(graph, "components");
    for (const SystemSection *s = run->sys->sections; s->name; s++) {
        CfgNode *entry = comps ? cfg_map_get(comps, s->name) : NULL;
        if (!entry) {
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_SOFTWARE,
                        "machine part %s has no component %s", run->sys->part, s->name);
            cfg_node_free(graph);
            return false;
        }
        const CfgNode *sec = cfg_map_get(root, s->name);
        const CfgNode *t = sec && sec->kind == CFG_MAP ? cfg_map_get(sec, "type") : NULL;
        if (t && scalar_of(t))
            cfg_map_set(entry, "class", cfg_node_new_scalar(t->scalar, root->file, root->line,
                                                            root->col));
        if (s->count) {
            char *n = g_strdup_printf("%" G_GUINT64_FORMAT,
                                      system_param_u64(run->sys, run->sys_params, s->count));
            cfg_map_set(entry, "count", cfg_node_new_scalar(n, root->file, root->line, root->col));
            g_free(n);
        }
    }
    bool ok = !run->sys->expand || run->sys->expand(run->sys_params, root, graph, error);
    for (guint i = 0; ok && i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        const CfgNode *v = g_ptr_array_index(root->items, i);
        if (strcmp(k->scalar, "sim") != 0 && strcmp(k->scalar, "system") != 0 &&
            v->kind == CFG_MAP)
            cfg_map_set(graph, k->scalar, cfg_node_copy(v));
    }
    ok = ok && machine_build_graph(&run->sim, graph, shorthand_settle, run, error);
    cfg_node_free(graph);
    return ok;
}

SystemRun *system_build(CfgNode *root, int64_t seed_override, TraceDump *trace,
                        const TraceOptions *trace_opts, GError **error)
{
    SystemRun *run = g_new0(SystemRun, 1);
    run->root = root;
    if (!param_apply_clocked(sim_param_specs, cfg_map_get(root, "sim"), "sim", NULL,
                             sim_clock_given(root), &run->sp, error))
        goto fail_early;
    if (seed_override >= 0)
        run->sp.seed = (uint64_t)seed_override;
    char *problem = NULL;
    if (!sim_warmup_parse(run->sp.warmup, &run->warm_n, &run->warm_unit, &problem)) {
        const CfgNode *simn = cfg_map_get(root, "sim");
        const CfgNode *wn = simn ? cfg_map_get(simn, "warmup") : NULL;
        set_node_error(error, wn ? wn : root, "sim.warmup: %s", problem);
        g_free(problem);
        goto fail_early;
    }

    /* an include-only part is not a machine (docs/config.md "Parts") */
    const CfgNode *pk = top_key(root, "part");
    if (pk) {
        set_node_error(error, pk, "part: this file is an include-only part, not a machine: "
                       "include it from a config (include: %s); `archsim validate` checks it "
                       "on its own", root->file);
        goto fail_early;
    }
    /* a machine given as a graph (components: and links:) is built by sim/machine.c */
    if (machine_is_graph(root)) {
        run->sys = &machine_system;
        run->sys_params = g_malloc0(1);
        sim_init(&run->sim, run->sp.seed, run->sp.clock_hz);
        run->sim.mem_limit = run->sp.memory_limit;
        run->sim.trace = trace;
        run->sim.trace_opts = trace_opts;
        if (!machine_system.build(&run->sim, NULL, root, error) ||
            !sim_realize_all(&run->sim, error))
            goto fail;
        return run;
    }
    /* system.type picks the system class; "uniproc" when absent */
    const CfgNode *sysn = cfg_map_get(root, "system");
    run->sys = system_of(sysn, error);
    if (!run->sys)
        goto fail_early;
    run->sys_params = g_malloc0(run->sys->params_size ? run->sys->params_size : 1);
    if (run->sys->params &&
        !param_apply(run->sys->params, sysn, "system", ignore_type, run->sys_params, error))
        goto fail_early;

    /* every top-level key must be sim, system or a section of this system */
    const char *allowed[64];
    size_t nallowed = 0;
    allowed[nallowed++] = "sim";
    allowed[nallowed++] = "system";
    for (const SystemSection *s = run->sys->sections; s->name && nallowed < 64; s++)
        allowed[nallowed++] = s->name;
    for (guint i = 0; i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        bool ok = false;
        for (size_t j = 0; j < nallowed; j++)
            ok = ok || strcmp(k->scalar, allowed[j]) == 0;
        if (!ok) {
            const char *hint = param_suggest(k->scalar, allowed, nallowed);
            set_node_error(error, k, "%s: unknown section for system '%s'%s%s%s", k->scalar,
                           run->sys->name, hint ? "; did you mean '" : "", hint ? hint : "",
                           hint ? "'?" : "");
            goto fail_early;
        }
        const CfgNode *v = g_ptr_array_index(root->items, i);
        if (v->kind != CFG_MAP && !(v->kind == CFG_SCALAR && v->scalar[0] == '\0')) {
            set_node_error(error, v, "%s: expected a map of parameters", k->scalar);
            goto fail_early;
        }
    }

    /* Check the sections present in file order first, so the first error reported is the
     * first one in the file; sections that are absent are checked (required keys) after. */
    for (guint i = 0; i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        const CfgNode *v = g_ptr_array_index(root->items, i);
        for (const SystemSection *s = run->sys->sections; s->name; s++)
            if (strcmp(s->name, k->scalar) == 0 && v->kind == CFG_MAP &&
                !section_check(s, k, v, false, run->sp.clock_hz, error))
                goto fail_early;
    }

    sim_init(&run->sim, run->sp.seed, run->sp.clock_hz);
    run->sim.mem_limit = run->sp.memory_limit;
    run->sim.trace = trace;
    run->sim.trace_opts = trace_opts;
    if (run->sys->part) {
        /* a short-hand: the system's machine graph with the config's sections on top */
        if (!shorthand_build(run, error))
            goto fail;
        if (!sim_realize_all(&run->sim, error))
            goto fail;
        return run;
    }
    for (const SystemSection *s = run->sys->sections; s->name; s++) {
        const CfgNode *sec = cfg_map_get(root, s->name);
        if (sec && sec->kind != CFG_MAP)
            sec = NULL;
        /* an absent section reports missing required keys at the top of the file */
        CfgNode *empty = sec ? NULL : cfg_node_new_map(root->file, root->line, root->col);
        if (empty)
            sec = empty;
        const char *clsname = s->cls;
        const CfgNode *t = sec ? cfg_map_get(sec, "type") : NULL;
        if (t) {
            if (!section_type_ok(s, t, error)) {
                cfg_node_free(empty);
                goto fail;
            }
            clsname = t->scalar;
        }
        const ComponentClass *cls = registry_find_class(clsname);
        if (!cls) {
            set_node_error(error, t ? t : root, "%s: class '%s' is not built into this archsim",
                           s->name, clsname);
            cfg_node_free(empty);
            goto fail;
        }
        uint64_t n = 1, hz = 0;
        if (s->count)
            n = system_param_u64(run->sys, run->sys_params, s->count);
        if (!system_section_clock(sec, s->name, run->sp.clock_hz, &hz, error)) {
            cfg_node_free(empty);
            goto fail;
        }
        const ClockDomain *clk = sim_clock(&run->sim, hz);   /* sys_clk when hz is sim.clock */
        for (uint64_t i = 0; i < n; i++) {
            char *name = s->count ? g_strdup_printf("%s%" G_GUINT64_FORMAT, s->name, i)
                                  : g_strdup(s->name);
            Component *c = sim_component_new(&run->sim, cls, name, clk, sec, error);
            g_free(name);
            if (!c) {
                cfg_node_free(empty);
                goto fail;
            }
            if (s->count)
                c->index = (int)i;
            if (empty) {                /* an absent section: no place to name */
                cfg_node_free(c->section);
                c->section = NULL;
            }
        }
        cfg_node_free(empty);
    }
    if (!run->sys->build(&run->sim, run->sys_params, root, error))
        goto fail;
    if (!sim_check_links(&run->sim, NULL, NULL, error))
        goto fail;
    if (!sim_realize_all(&run->sim, error))
        goto fail;
    return run;

fail:
    system_free(run);
    return NULL;
fail_early:
    param_free(sim_param_specs, &run->sp);
    if (run->sys && run->sys->params && run->sys_params)
        param_free(run->sys->params, run->sys_params);
    g_free(run->sys_params);
    cfg_node_free(run->root);
    g_free(run);
    return NULL;
}

/* One line of stats.jsonl: the epoch from run->epoch_begin to `end` (system cycles, end
 * excluded) with the deltas of every count stat that moved (docs/outputs.md). */
static void epoch_write(SystemRun *run, uint64_t end)
{
    StatSet st;
    stats_init(&st);
    system_collect_stats(run, &st);
    GString *l = run->epochs;
    g_string_append_printf(l, "{\"epoch\": %" G_GUINT64_FORMAT ", \"cycle_begin\": %" G_GUINT64_FORMAT
                           ", \"cycle_end\": %" G_GUINT64_FORMAT ", \"stats\": {",
                           run->epoch, run->epoch_begin, end);
    bool first = true;
    for (guint i = 0; i < st.entries->len; i++) {
        const StatEntry *e = &g_array_index(st.entries, StatEntry, i);
        if (!e->is_int || e->level)
            continue;
        uint64_t *prev = g_hash_table_lookup(run->epoch_prev, e->name);
        uint64_t d = prev ? (e->u > *prev ? e->u - *prev : 0) : e->u;
        if (prev)
            *prev = e->u;
        else if (e->u)
            g_hash_table_insert(run->epoch_prev, g_strdup(e->name), g_memdup2(&e->u, sizeof e->u));
        if (d == 0)
            continue;
        g_string_append(l, first ? "\"" : ", \"");
        for (const char *p = e->name; *p; p++) {
            if (*p == '"' || *p == '\\')
                g_string_append_c(l, '\\');
            g_string_append_c(l, *p);
        }
        g_string_append_printf(l, "\": %" G_GUINT64_FORMAT, d);
        first = false;
    }
    g_string_append(l, "}}\n");
    stats_clear(&st);
    run->epoch++;
    run->epoch_begin = end;
}

static uint64_t sys_cycle_now(const SystemRun *run)
{
    return clock_cycle(&run->sim.sys_clk, run->sim.eng.now) + 1;
}

static void epoch_fire(SimEvent *ev)
{
    SystemRun *run = ev->ctx;
    Engine *eng = &run->sim.eng;
    /* with no work left the run is over: its last epoch is written after it */
    if (run->epochs_closed || sim_pending_work(eng) == 0)
        return;
    epoch_write(run, sys_cycle_now(run));
    sim_schedule(eng, ev, eng->now + sim_tick_mul(run->sp.stats_every, run->sim.sys_clk.period),
                 SIM_PRI_STATS);
}

/* A reset (warm-up over, ROI begin): the epochs restart with it, those of the warm-up dropped. */
static void on_roi_reset(Sim *sim, void *ctx)
{
    SystemRun *run = ctx;
    if (!run->epochs || run->epochs_closed)
        return;
    g_string_truncate(run->epochs, 0);
    g_hash_table_remove_all(run->epoch_prev);
    run->epoch = 0;
    run->epoch_begin = clock_cycle(&sim->sys_clk, sim->roi.at) + 1;
    sim_reschedule(&sim->eng, &run->epoch_ev,
                   sim->roi.at + sim_tick_mul(run->sp.stats_every, sim->sys_clk.period),
                   SIM_PRI_STATS);
}

/* The ROI end marker: the stats (and the epochs) stop here; the machine runs to its end. */
static void on_roi_end(Sim *sim, void *ctx)
{
    SystemRun *run = ctx;
    (void)sim;
    if (run->frozen)
        return;
    if (run->epochs && !run->epochs_closed && sys_cycle_now(run) > run->epoch_begin)
        epoch_write(run, sys_cycle_now(run));
    run->epochs_closed = true;
    run->frozen_cycle = sys_cycle_now(run);
    StatSet *f = g_new0(StatSet, 1);
    stats_init(f);
    system_collect_stats(run, f);
    run->frozen = f;
}

void system_finish_epochs(SystemRun *run)
{
    if (!run->epochs || run->epochs_closed)
        return;
    uint64_t end = run->sim.eng.events ? sys_cycle_now(run) : 0;
    if (end > run->epoch_begin || run->epoch == 0)
        epoch_write(run, end);
    run->epochs_closed = true;
}

bool system_warmup_missed(const SystemRun *run)
{
    return run->warm_n > 0 && !run->sim.roi.done;
}

bool system_run(SystemRun *run, GError **error)
{
    Engine *eng = &run->sim.eng;
    Tick period = run->sim.sys_clk.period;
    Sim *sim = &run->sim;
    sim->roi.on_reset = on_roi_reset;
    sim->roi.on_end = on_roi_end;
    sim->roi.on_reset_ctx = run;
    sim->roi.markers = run->sp.roi_markers;
    /* N:cycles: the reset follows every event of cycles 0 .. N-1 */
    if (run->warm_n && run->warm_unit == SIM_WARM_CYCLES)
        sim_stats_reset_at(sim, sim_tick_mul(run->warm_n, period) - 1);
    else if (run->warm_n && run->warm_unit == SIM_WARM_INSTS)
        sim->roi.warm_insts = run->warm_n;
    else if (run->warm_n)
        sim->roi.warm_refs = run->warm_n;
    if (run->sp.stats_every) {
        run->epochs = g_string_new(NULL);
        run->epoch_prev = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        sim_event_init(&run->epoch_ev, epoch_fire, run);
        sim_schedule(eng, &run->epoch_ev, sim_tick_mul(run->sp.stats_every, period) - 1,
                     SIM_PRI_STATS);
    }
    if (run->sp.watchdog > 0)
        sim_watchdog_arm(eng, sim_tick_mul(run->sp.watchdog, period), on_deadlock, run);
    /* max_cycles N: events of cycles 0 .. N-1 run, i.e. ticks below N * period */
    Tick end = run->sp.max_cycles ? sim_tick_mul(run->sp.max_cycles, period) : TICK_MAX;
    Tick limit = end == TICK_MAX ? TICK_MAX : end - 1;
    sim_run(eng, limit);
    if (run->sim.error) {
        g_propagate_error(error, run->sim.error);
        run->sim.error = NULL;
        return false;
    }
    /* The simulated time is that of the last real event: the watchdog's own wake-ups after
     * the work ended must not count. */
    if (!eng->deadlocked)
        eng->now = eng->last_work;
    /* a warm-up reached by the very last event: the reset was still due (the ROI is empty) */
    if (!eng->deadlocked && sim_event_scheduled(&sim->roi.ev) && sim->roi.ev.when <= eng->now) {
        sim_deschedule(eng, &sim->roi.ev);
        sim_stats_reset(sim);
    }
    if (eng->deadlocked) {
        run->deadlocked = true;
    } else if (sim_pending_work(eng) > 0 && !eng->stop) {
        run->truncated = true;      /* real work was left beyond the limit */
        eng->now = eng->last_work = limit;
    } else if (sim_pending_work(eng) == 0 && sim_any_busy(&run->sim)) {
        /* Nothing left to happen, yet a component still waits: a message was lost. */
        GString *r = g_string_new(NULL);
        g_string_append_printf(r,
                               "deadlock: the event queue is empty at cycle %" G_GUINT64_FORMAT
                               " but components still wait for something\n",
                               clock_cycle(&run->sim.sys_clk, eng->now));
        sim_dump_all(&run->sim, r);
        run->deadlock_report = r;
        run->deadlocked = true;
    }
    if (run->deadlocked) {
        char *msg = g_strchomp(g_strdup(run->deadlock_report->str));
        g_set_error(error, ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK, "%s", msg);
        g_free(msg);
        return false;
    }
    return true;
}

void system_collect_stats(SystemRun *run, StatSet *set)
{
    if (run->frozen) {
        for (guint i = 0; i < run->frozen->entries->len; i++) {
            const StatEntry *e = &g_array_index(run->frozen->entries, StatEntry, i);
            if (!e->is_int)
                stats_add_double(set, e->name, e->d, e->unit, e->desc);
            else
                (e->level ? stats_add_level : stats_add_u64)(set, e->name, e->u, e->unit, e->desc);
        }
        return;
    }
    Sim *sim = &run->sim;
    const SimStatsRoi *r = &sim->roi;
    Tick ticks = sim_stats_ticks(sim);
    /* the last event happened during cycle clock_cycle(now) (0-based): that many + 1 elapsed;
     * after a reset, counted from the cycle after it */
    uint64_t cycles = 0;
    if (sim->eng.events) {
        uint64_t last = clock_cycle(&sim->sys_clk, sim->eng.now) + 1;
        uint64_t first = r->done ? clock_cycle(&sim->sys_clk, r->at) + 1 : 0;
        cycles = last > first ? last - first : 0;
    }
    stats_add_u64(set, "sim.cycles", cycles, "cycle",
                  "Simulated cycles of the system clock (sim.clock)");
    stats_add_u64(set, "sim.ticks", ticks, "tick", "Simulated ticks (1 tick = 1 ps)");
    stats_add_double(set, "sim.seconds", (double)ticks / (double)TICKS_PER_SECOND, "second",
                     "Simulated seconds = sim.ticks / 1e12");
    stats_add_level(set, "sim.clock", sim->sys_clk.freq_hz, "Hz", "System clock frequency");
    stats_add_u64(set, "sim.events", sim->eng.events - r->events, "count",
                  "Engine events executed");
    stats_add_level(set, "sim.seed", sim->seed, "count", "PRNG seed of the run");
    stats_add_level(set, "sim.truncated", run->truncated ? 1 : 0, "bool",
                    "1 if the run stopped at sim.max_cycles before completion");
    /* only in runs with a warm-up or ROI markers, so that other runs' stats stay as they were */
    if (run->warm_n || r->markers || r->done || r->ended) {
        stats_add_level(set, "sim.roi.reset", r->done, "bool",
                        "1 if every stat was reset at the warm-up point or a ROI-begin marker; "
                        "the stats then describe only what followed");
        stats_add_level(set, "sim.roi.reset_cycle", r->done ? clock_cycle(&sim->sys_clk, r->at) + 1 : 0,
                        "cycle", "system cycle at which the stats begin (the reset)");
        stats_add_level(set, "sim.roi.reset_insts", r->insts_at, "count",
                        "instructions retired by all cores before the reset");
        stats_add_level(set, "sim.roi.reset_refs", r->refs_at, "count",
                        "memory references of all cores before the reset");
        stats_add_level(set, "sim.roi.frozen", r->ended, "bool",
                        "1 if a ROI-end marker froze the stats (the machine ran on to its end)");
        stats_add_level(set, "sim.roi.end_cycle", r->ended ? run->frozen_cycle : 0, "cycle",
                        "system cycle at which the stats were frozen (0: not frozen)");
    }
    sim_stats_view_begin(sim);
    sim_collect_stats(sim, set);
    if (run->sys->stats)
        run->sys->stats(sim, set);
    sim_stats_view_end(sim);
}

uint64_t system_stat_u64(SystemRun *run, const char *name)
{
    StatSet s;
    stats_init(&s);
    system_collect_stats(run, &s);
    const StatEntry *e = stats_find(&s, name);
    uint64_t v = e ? (e->is_int ? e->u : (uint64_t)(e->d + 0.5)) : UINT64_MAX;
    stats_clear(&s);
    return v;
}

/* A relative path as the file that holds it (or, from --set, the current directory) reads
 * it: absolute, so that the resolved config loads back from its run directory. */
static void absolute_path(CfgNode *v)
{
    if (v->kind != CFG_SCALAR || !*v->scalar || g_path_is_absolute(v->scalar))
        return;
    char *d0 = v->file && strcmp(v->file, "--set") != 0 ? g_path_get_dirname(v->file)
                                                         : g_get_current_dir();
    char *dir = g_canonicalize_filename(d0, NULL);          /* a relative file: from the cwd */
    g_free(d0);
    char *abs = g_canonicalize_filename(v->scalar, dir);
    g_free(v->scalar);
    v->scalar = abs;
    v->quoted = true;
    g_free(dir);
}

/* A value's place, "FILE:LINE:COL" (what a component's section keeps of the node it read). */
static char *place_of(const CfgNode *v)
{
    return g_strdup_printf("%s:%d:%d", v->file ? v->file : "", v->line, v->col);
}

GHashTable *system_path_places(const SystemRun *run)
{
    GHashTable *places = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < run->sim.components->len; i++) {
        const Component *c = g_ptr_array_index(run->sim.components, i);
        for (const ParamSpec *ps = c->cls->params; ps && ps->name; ps++) {
            const CfgNode *v = ps->type == PARAM_PATH && c->section &&
                               c->section->kind == CFG_MAP ? cfg_map_get(c->section, ps->name)
                                                           : NULL;
            if (v && v->kind == CFG_SCALAR)
                g_hash_table_add(places, place_of(v));
        }
    }
    return places;
}

void system_absolute_paths(CfgNode *n, GHashTable *path_places)
{
    if (n->kind == CFG_SEQ) {
        for (guint i = 0; i < n->items->len; i++)
            system_absolute_paths(g_ptr_array_index(n->items, i), path_places);
        return;
    }
    if (n->kind != CFG_MAP)
        return;
    for (guint i = 0; i < n->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(n->keys, i);
        CfgNode *v = g_ptr_array_index(n->items, i);
        if (v->kind != CFG_SCALAR) {
            system_absolute_paths(v, path_places);
            continue;
        }
        char *at = place_of(v);
        if (strcmp(k->scalar, "include") == 0 || g_hash_table_contains(path_places, at))
            absolute_path(v);
        g_free(at);
    }
}

bool system_resolved_is_graph(const SystemRun *run) { return run->sys == &machine_system; }

void system_emit_resolved(SystemRun *run, GString *out)
{
    g_string_append(out, "sim:\n");
    param_emit_yaml(sim_param_specs, &run->sp, out, 2);
    if (run->sys == &machine_system) {
        /* the graph as given (with its overrides), which loads back to the same machine from
         * wherever the file is: its includes and file paths absolute */
        GHashTable *path_keys = system_path_places(run);
        for (guint i = 0; i < run->root->keys->len; i++) {
            const CfgNode *k = g_ptr_array_index(run->root->keys, i);
            if (strcmp(k->scalar, "sim") == 0)
                continue;
            CfgNode *one = cfg_node_new_map(k->file, k->line, k->col);
            CfgNode *v = cfg_node_copy(g_ptr_array_index(run->root->items, i));
            system_absolute_paths(v, path_keys);
            cfg_map_set(one, k->scalar, v);
            cfg_node_emit_yaml(one, out, 0);
            cfg_node_free(one);
        }
        g_hash_table_destroy(path_keys);
        return;
    }
    g_string_append_printf(out, "system:\n  type: %s\n", run->sys->name);
    if (run->sys->params)
        param_emit_yaml(run->sys->params, run->sys_params, out, 2);
    /* one entry per section: replicated sections share their parameters (instance 0's) */
    for (guint i = 0; i < run->sim.components->len; i++) {
        Component *c = g_ptr_array_index(run->sim.components, i);
        if (c->index > 0)
            continue;
        char *key = sim_component_section_name(c);   /* "core0" -> "core" */
        g_string_append_printf(out, "%s:\n  type: %s\n", key, c->cls->name);
        /* only where the config gave one, so that resolved configs of runs without clocks stay
         * as they were */
        const CfgNode *sec = cfg_map_get(run->root, key);
        if (c->clk != &run->sim.sys_clk ||
            (sec && sec->kind == CFG_MAP && cfg_map_get(sec, "clock")))
            param_emit_yaml(sim_section_clock_spec, &c->clk->freq_hz, out, 2);
        if (c->cls->params)
            param_emit_yaml(c->cls->params, sim_component_params(c), out, 2);
        g_free(key);
    }
}

void system_free(SystemRun *run)
{
    if (!run)
        return;
    sim_destroy(&run->sim);
    param_free(sim_param_specs, &run->sp);
    if (run->frozen) {
        stats_clear(run->frozen);
        g_free(run->frozen);
    }
    if (run->epochs)
        g_string_free(run->epochs, TRUE);
    if (run->epoch_prev)
        g_hash_table_destroy(run->epoch_prev);
    if (run->sys && run->sys->params && run->sys_params)
        param_free(run->sys->params, run->sys_params);
    g_free(run->sys_params);
    cfg_node_free(run->root);
    if (run->deadlock_report)
        g_string_free(run->deadlock_report, TRUE);
    g_free(run);
}

static void describe_class(const ComponentClass *cls, GString *out)
{
    g_string_append_printf(out, "class %s: %s\n  parameters:\n", cls->name, cls->doc);
    if (cls->params)
        param_describe(cls->params, out, 4);
    if (cls->ports && cls->ports[0].name) {
        g_string_append(out, "  ports:\n");
        for (const PortSpec *p = cls->ports; p->name; p++)
            g_string_append_printf(out, "    %-14s %-9s%s %s\n", p->name,
                                   p->role == PORT_REQUESTER ? "requester" : "responder",
                                   p->vector ? " [vector]" : "", p->doc);
    }
    if (cls->stats && cls->stats[0].name) {
        g_string_append(out, "  stats:\n");
        for (const StatSpec *s = cls->stats; s->name; s++)
            g_string_append_printf(out, "    %-22s %-8s %s\n", s->name, s->unit, s->desc);
    }
}

static void describe_system(const SystemClass *sys, GString *out)
{
    g_string_append_printf(out, "system %s: %s\n", sys->name, sys->doc);
    if (sys->params && sys->params[0].name) {
        g_string_append(out, "  parameters (system:):\n");
        param_describe(sys->params, out, 4);
    }
    g_string_append(out, "  sections:\n");
    for (const SystemSection *s = sys->sections; s->name; s++)
    {
        GString *cls = g_string_new(s->cls);
        for (int a = 0; s->alts && s->alts[a]; a++)
            g_string_append_printf(cls, "|%s", s->alts[a]);
        g_string_append_printf(out, "    %-10s class %-14s %s%s%s\n", s->name, cls->str, s->doc,
                               s->count ? "; one instance per system." : "",
                               s->count ? s->count : "");
        g_string_free(cls, TRUE);
    }
    g_string_append(out, "  every section also takes:\n");
    param_describe(sim_section_clock_spec, out, 4);
}

bool system_describe(const char *type, GString *out)
{
    if (type == NULL) {
        g_string_append(out, "section sim: engine settings\n  parameters:\n");
        param_describe(sim_param_specs, out, 4);
        g_string_append(out, "\nsystems (system.type):\n");
        for (int i = 0; archsim_system_classes[i]; i++)
            g_string_append_printf(out, "  %-14s %s\n", archsim_system_classes[i]->name,
                                   archsim_system_classes[i]->doc);
        g_string_append(out, "  (or no system: a machine of your own as components: and links:, "
                             "docs/machines.md)\n");
        g_string_append(out, "\ncomponent classes:\n");
        for (int i = 0; archsim_component_classes[i]; i++)
            g_string_append_printf(out, "  %-14s %s\n", archsim_component_classes[i]->name,
                                   archsim_component_classes[i]->doc);
        g_string_append(out, "\n`archsim describe NAME` shows one in full.\n");
        return true;
    }
    if (strcmp(type, "sim") == 0) {
        g_string_append(out, "section sim: engine settings\n  parameters:\n");
        param_describe(sim_param_specs, out, 4);
        return true;
    }
    const SystemClass *sys = registry_find_system(type);
    if (sys) {
        describe_system(sys, out);
        return true;
    }
    const ComponentClass *cls = registry_find_class(type);
    if (cls) {
        describe_class(cls, out);
        return true;
    }
    return false;
}
