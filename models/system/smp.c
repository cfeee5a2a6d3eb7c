/* smp.c: a bus-based shared-memory multiprocessor (Culler & Singh, "Parallel Computer
 * Architecture", ch. 5-6): N cores, each with a private coherent L1 data cache, a snooping bus,
 * a shared LLC split into address-interleaved banks, and one DRAM channel.
 *
 *   core0 -- l1d0 --\                    /-- llc0 --\
 *   core1 -- l1d1 ---+-- bus (snooping) -+-- llc1 ---+-- dram
 *   ...              /                    \-- ...   /
 *
 * With sim.check (default on) a reference memory checks every load's value and single-writer /
 * multiple-reader at every permission change; a violation fails the run with exit code 3.
 */
#include "smp.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../cpu/pattern.h"
#include "../../sim/error.h"
#include "../mem/oracle.h"

typedef struct {
    uint64_t cores, llc_banks;
    bool check;
} SmpParams;

#define SMP_BUS_HEADER 8u   /* bytes of an address phase, as the noc's default message header */

static const char *const core_alts[] = { "pattern-core", "random-tester", "thread-core",
                                         "script-core", "mm-core", "kernel-core", NULL };

static const SystemSection smp_sections[] = {
    { "core", "trace-core", "the cores (the section configures every core)", "cores", core_alts },
    { "l1d", "coherent-cache", "private L1 data caches", "cores", NULL },
    { "bus", "snoop-bus", "the snooping bus", NULL, NULL },
    { "llc", "cache", "shared last-level cache banks", "llc_banks", NULL },
    { "dram", "dram", "main memory", NULL, NULL },
    { "workload", "workload", "a recorded multi-thread trace (for core.type: thread-core)", NULL,
      NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static const ParamSpec smp_params[] = {
    { .name = "cores", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 64, .doc = "number of cores (each with a private L1)",
      .offset = offsetof(SmpParams, cores) },
    { .name = "llc_banks", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 1, .max = 64, .doc = "LLC banks, interleaved by line",
      .offset = offsetof(SmpParams, llc_banks) },
    { .name = "check", .type = PARAM_BOOL, .def = "true",
      .doc = "check every load against a reference memory and SWMR at every permission change",
      .offset = offsetof(SmpParams, check) },
    PARAM_END,
};

static bool same_line(Component *a, Component *b, GError **error)
{
    uint64_t x = 0, y = 0;
    sim_component_param_u64(a, "line", &x);
    sim_component_param_u64(b, "line", &y);
    if (x != y)
        return sim_component_reject_pair(a, "line", b, "line", error,
                                         "%s.line (%" G_GUINT64_FORMAT " B) and %s.line (%"
                                         G_GUINT64_FORMAT " B) must be equal: the bus moves whole "
                                         "coherence blocks", a->name, x, b->name, y);
    return true;
}

bool smp_reject_line(Component *core, Component *l1, uint64_t cl, uint64_t ll, GError **error)
{
    return sim_component_reject_pair(core, "line", l1, "line", error,
                                     "core.line (%" G_GUINT64_FORMAT " B) is larger than l1d.line (%"
                                     G_GUINT64_FORMAT " B): a core access must fit in one L1 "
                                     "line; make them equal", cl, ll);
}

/* thread-core cores replay workload.trace: thread i on core i, synchronized by the workload
 * (their sync ports are linked by smp_expand_threads). */
bool smp_wire_threads(Sim *sim, uint64_t cores, Component *wl, GError **error)
{
    const char *dir = sim_component_param_str(wl, "trace");
    if (!dir || !*dir) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "workload.trace is not set: give the directory of a recorded trace, e.g. "
                    "--set workload.trace=traces/samples/fs_packed-4t");
        return false;
    }
    char *t0 = g_strdup_printf("%s/T0.trace", dir);
    char *extra = g_strdup_printf("%s/T%" G_GUINT64_FORMAT ".trace", dir, cores);
    bool ok = true;
    if (!g_file_test(t0, G_FILE_TEST_EXISTS)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: cannot open: workload.trace must hold T0.trace, T1.trace, ...", t0);
        ok = false;
    } else if (g_file_test(extra, G_FILE_TEST_EXISTS)) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s has more threads than system.cores (%" G_GUINT64_FORMAT
                    "): one thread runs on each core; raise system.cores", dir, cores);
        ok = false;
    }
    g_free(t0);
    g_free(extra);
    if (!ok)                    /* at workload.trace's place in the config */
        return sim_component_prefix_error(wl, "trace", error);
    for (uint64_t i = 0; ok && i < cores; i++) {
        char *cn = g_strdup_printf("core%" G_GUINT64_FORMAT, i);
        Component *core = sim_component_find(sim, cn);
        g_free(cn);
        ok = sim_component_set_param(core, "trace", dir, error);
    }
    return ok;
}

/* Sets a parameter the system derives; the config may give it only with that same value (as a
 * resolved config does), since any other value would be overridden. */
bool smp_sys_set(const CfgNode *root, Component *c, const char *sys, const char *section,
                 const char *key, const char *value, GError **error)
{
    const CfgNode *sec = cfg_map_get(root, section);
    const CfgNode *v = sec && sec->kind == CFG_MAP ? cfg_map_get(sec, key) : NULL;
    if (v && (v->kind != CFG_SCALAR || strcmp(v->scalar, value) != 0)) {
        /* where the value came from: its file:line:col, or the --set that gave it */
        char *where = cfg_node_where(v);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s: %s.%s is set by system %s to %s here; remove it", where, section, key,
                    sys, value);
        g_free(where);
        return false;
    }
    return sim_component_set_param(c, key, value, error);
}

bool smp_sys_set_u64(const CfgNode *root, Component *c, const char *sys, const char *section,
                     const char *key, uint64_t value, GError **error)
{
    char *t = g_strdup_printf("%" G_GUINT64_FORMAT, value);
    bool ok = smp_sys_set(root, c, sys, section, key, t, error);
    g_free(t);
    return ok;
}

static bool smp_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    const SmpParams *p = params;
    Component *bus = sim_component_find(sim, "bus");
    Component *core0 = sim_component_find(sim, "core0");
    if (strcmp(core0->cls->name, "thread-core") == 0 &&
        !smp_wire_threads(sim, p->cores, sim_component_find(sim, "workload"), error))
        return false;
    for (uint64_t i = 0; i < p->cores; i++) {
        char *cn = g_strdup_printf("core%" G_GUINT64_FORMAT, i);
        char *ln = g_strdup_printf("l1d%" G_GUINT64_FORMAT, i);
        Component *core = sim_component_find(sim, cn), *l1 = sim_component_find(sim, ln);
        g_free(cn);
        g_free(ln);
        uint64_t cl = 0, ll = 0;
        sim_component_param_u64(core, "line", &cl);
        sim_component_param_u64(l1, "line", &ll);
        if (cl > ll)
            return smp_reject_line(core, l1, cl, ll, error);
        if (!pattern_check_private(core, ll, error))
            return false;
        if (i == 0 && !same_line(l1, bus, error))
            return false;
    }
    for (uint64_t i = 0; i < p->llc_banks; i++) {
        char *bn = g_strdup_printf("llc%" G_GUINT64_FORMAT, i);
        Component *llc = sim_component_find(sim, bn);
        g_free(bn);
        char *ilv = g_strdup_printf("%" G_GUINT64_FORMAT, p->llc_banks);
        bool ok = smp_sys_set(root, llc, "smp", "llc", "interleave", ilv, error);
        g_free(ilv);
        if (!ok || (i == 0 && !same_line(bus, llc, error)))
            return false;
    }
    if (p->check) {
        uint64_t line = 64;
        sim_component_param_u64(bus, "line", &line);
        mem_shared(sim)->oracle = oracle_new((uint32_t)line, true);
    }
    return true;
}

bool smp_expand_threads(const void *params, const CfgNode *root, CfgNode *graph, GError **error)
{
    (void)params, (void)error;
    const CfgNode *core = cfg_map_get(root, "core");
    const CfgNode *t = core && core->kind == CFG_MAP ? cfg_map_get(core, "type") : NULL;
    CfgNode *links = cfg_map_get(graph, "links");
    if (!t || t->kind != CFG_SCALAR || strcmp(t->scalar, "thread-core") != 0 || !links)
        return true;
    /* first, as the cores' first port: thread i on core i, synchronized by the workload */
    CfgNode *l = cfg_node_new_map(root->file, root->line, root->col);
    cfg_map_set(l, "from", cfg_node_new_scalar("core[*].sync", root->file, root->line, root->col));
    cfg_map_set(l, "to", cfg_node_new_scalar("workload.sync", root->file, root->line, root->col));
    g_ptr_array_insert(links->items, 0, l);
    return true;
}

uint64_t smp_stat_u(const StatSet *set, const char *name)
{
    const StatEntry *e = stats_find(set, name);
    return e && e->is_int ? e->u : 0;
}

/* The figures that compare interconnects (docs/experiments/directory-vs-snooping.md): mean miss
 * latency over every L1, and for the bus its traffic per miss (an address phase of `header` bytes
 * per transaction, which every other cache snoops, plus the data it moves). */
static void smp_traffic_stats(StatSet *set)
{
    double lat = stats_instances_mean(set, "l1d", "miss_latency");
    uint64_t misses = smp_stat_u(set, "l1d.misses");
    stats_add_double(set, "system.avg_miss_latency", lat, "cycle",
                     "mean L1 miss latency over every L1 (request to data)");
    if (!stats_find(set, "bus.transactions"))
        return;
    uint64_t txns = smp_stat_u(set, "bus.transactions");
    uint64_t cores = stats_count_instances(set, "l1d", "accesses");
    stats_add_double(set, "system.bus_transactions_per_miss",
                     stats_ratio((double)txns, (double)misses), "count",
                     "bus.transactions / l1d.misses (write-backs included)");
    stats_add_double(set, "system.bus_bytes_per_miss",
                     stats_ratio((double)(txns * SMP_BUS_HEADER + smp_stat_u(set, "bus.data_bytes")),
                                 (double)misses), "byte",
                     "(8 B address phase per transaction + bus.data_bytes) / l1d.misses");
    stats_add_double(set, "system.snoops_per_miss",
                     stats_ratio((double)(txns * (cores ? cores - 1 : 0)), (double)misses),
                     "count", "tag lookups in other caches per miss: transactions x (cores - 1) "
                     "/ l1d.misses");
}

/* Totals over all L1s, under gem5's controller-type names (L1Cache_Controller.I.Load, ...), and
 * the miss classes: "l1d3.X" adds into "l1d.X" or, for controller counters, into "X" (the
 * generic aggregation of sim/stats.c, stats_sum_instances). */
void smp_stats(Sim *sim, StatSet *set)
{
    (void)sim;
    static const char *const controller[] = { "L1Cache_Controller.", NULL };
    stats_sum_instances(set, "l1d", controller, "sum over all L1s");
    smp_traffic_stats(set);
}

const SystemClass smp_system = {
    .name = "smp",
    .doc = "N cores with private coherent L1s on a snooping bus, banked LLC, DRAM",
    .params = smp_params,
    .params_size = sizeof(SmpParams),
    .sections = smp_sections,
    .part = "smp.yaml",
    .expand = smp_expand_threads,
    .build = smp_build,
    .stats = smp_stats,
};
