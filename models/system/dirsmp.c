/* dirsmp.c: a directory-based chip multiprocessor (the Primer, 2nd ed., ch. 8; Culler & Singh,
 * "Parallel Computer Architecture", ch. 8): N tiles on an on-chip network, each with a core, its
 * private L1 (dir-cache), and one slice of the shared LLC with the directory of the blocks homed
 * there (block B's home is tile (B / line) % cores). One DRAM channel behind the LLC.
 *
 *   core_i -- l1d_i --net--\                         /--net-- dir_b -- llc_b --\
 *                           noc (mesh, ring, crossbar)                          dram
 *
 * Endpoints of the noc: l1d i is endpoint i, dir b is endpoint cores + b (models/dir/dirmsg.h).
 * The system sizes the noc: one router per tile with two endpoints (concentration 2), the mesh as
 * square as the count allows. With sim.check the reference memory checks every load and SWMR.
 */
#include "dirsmp.h"
#include "../mem/memmsg.h"

#include <math.h>
#include <string.h>

#include "../cpu/pattern.h"
#include "../../sim/error.h"
#include "../mem/oracle.h"
#include "../dir/dirmsg.h"
#include "smp.h"

typedef struct {
    uint64_t cores;
    int protocol;
    bool check;
} DirSmpParams;

static const char *const proto_choices[] = { "dir-msi", "dir-mesi", NULL };

static const char *const core_alts[] = { "pattern-core", "random-tester", "thread-core",
                                         "script-core", "kernel-core", NULL };

static const SystemSection dirsmp_sections[] = {
    { "core", "trace-core", "the cores (the section configures every core)", "cores", core_alts },
    { "l1d", "dir-cache", "private L1 data caches (directory protocol)", "cores", NULL },
    { "noc", "noc", "the on-chip network (the system sets nodes, width, concentration)", NULL,
      NULL },
    { "dir", "directory", "directory slices, one per tile (LLC bank)", "cores", NULL },
    { "llc", "cache", "shared last-level cache banks, one per tile", "cores", NULL },
    { "dram", "dram", "main memory", NULL, NULL },
    { "workload", "workload", "a recorded multi-thread trace (for core.type: thread-core)", NULL,
      NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static const ParamSpec dirsmp_params[] = {
    { .name = "cores", .type = PARAM_UINT, .def = "16", .flags = PARAM_F_RANGE, .min = 1,
      .max = 64, .doc = "number of cores (tiles), each with a private L1",
      .offset = offsetof(DirSmpParams, cores) },
    { .name = "protocol", .type = PARAM_ENUM, .def = "dir-mesi", .choices = proto_choices,
      .doc = "directory protocol of every L1 and directory slice (protocols/dir_*.c)",
      .offset = offsetof(DirSmpParams, protocol) },
    { .name = "check", .type = PARAM_BOOL, .def = "true",
      .doc = "check every load against a reference memory and SWMR at every permission change",
      .offset = offsetof(DirSmpParams, check) },
    PARAM_END,
};

static Component *nth(Sim *sim, const char *base, uint64_t i)
{
    char *n = g_strdup_printf("%s%" G_GUINT64_FORMAT, base, i);
    Component *c = sim_component_find(sim, n);
    g_free(n);
    return c;
}

static bool sys_set(const CfgNode *root, Component *c, const char *section, const char *key,
                    const char *value, GError **error)
{
    return smp_sys_set(root, c, "dirsmp", section, key, value, error);
}

static bool sys_set_u64(const CfgNode *root, Component *c, const char *section, const char *key,
                        uint64_t v, GError **error)
{
    char *t = g_strdup_printf("%" G_GUINT64_FORMAT, v);
    bool ok = sys_set(root, c, section, key, t, error);
    g_free(t);
    return ok;
}

/* Mesh width: the divisor of n closest to sqrt(n) from above (8 -> 4 x 2, 16 -> 4 x 4). */
static uint64_t mesh_width(uint64_t n)
{
    uint64_t w = (uint64_t)ceil(sqrt((double)n));
    while (n % w)
        w++;
    return w;
}

static bool same_u64(Component *a, Component *b, const char *pa, const char *pb, GError **error)
{
    uint64_t x = 0, y = 0;
    sim_component_param_u64(a, pa, &x);
    sim_component_param_u64(b, pb, &y);
    if (x == y)
        return true;
    return sim_component_reject_pair(a, pa, b, pb, error,
                                     "%s.%s (%" G_GUINT64_FORMAT ") and %s.%s (%" G_GUINT64_FORMAT
                                     ") must be equal: the directory tracks the L1s' coherence "
                                     "blocks and the LLC stores them", a->name, pa, x, b->name, pb,
                                     y);
}

/* The directory protocols send each message type on its own virtual network (request,
 * forward, response: protocols/dirproto.h), so that a response never waits behind a request:
 * the noc needs at least as many vnets as the highest one used, or its routing would fail. */
static bool check_vnets(Component *noc, const char *proto, GError **error)
{
    uint64_t have = 0, need = 0;
    sim_component_param_u64(noc, "vnets", &have);
    for (int t = 0; t < DM_COUNT; t++)
        if ((uint64_t)dir_msg_vnet[t] + 1 > need)
            need = (uint64_t)dir_msg_vnet[t] + 1;
    if (have >= need)
        return true;
    GString *names = g_string_new(NULL);
    for (uint64_t v = 0; v < need; v++)
        g_string_append_printf(names, "%s%s", v ? ", " : "", dir_vnet_names[v]);
    sim_component_reject(noc, "vnets", error,
                         "the %s directory protocol needs %" G_GUINT64_FORMAT " virtual networks "
                         "(%s: one per message class, so that a response never waits behind a "
                         "request), this noc has %" G_GUINT64_FORMAT "; hint: set noc.vnets to %"
                         G_GUINT64_FORMAT " or more, or remove it (default 3)", proto, need,
                         names->str, have, need);
    g_string_free(names, TRUE);
    return false;
}

static bool dirsmp_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    const DirSmpParams *p = params;
    uint64_t n = p->cores, banks = p->cores;
    Component *noc = sim_component_find(sim, "noc");
    Component *core0 = sim_component_find(sim, "core0");
    if (strcmp(core0->cls->name, "thread-core") == 0 &&
        !smp_wire_threads(sim, n, sim_component_find(sim, "workload"), error))
        return false;
    const char *proto = proto_choices[p->protocol];
    uint64_t routers = n;
    if (!sys_set_u64(root, noc, "noc", "nodes", routers, error) ||
        !sys_set_u64(root, noc, "noc", "concentration", 2, error) ||
        !sys_set_u64(root, noc, "noc", "width", mesh_width(routers), error) ||
        !check_vnets(noc, proto, error))
        return false;
    /* the graph (configs/parts/machines/dirsmp.yaml) links the caches first, then the
     * directories: endpoint ids follow that order */
    for (uint64_t i = 0; i < n; i++) {
        Component *core = nth(sim, "core", i), *l1 = nth(sim, "l1d", i);
        uint64_t cl = 0, ll = 0;
        sim_component_param_u64(core, "line", &cl);
        sim_component_param_u64(l1, "line", &ll);
        if (cl > ll)
            return smp_reject_line(core, l1, cl, ll, error);
        if (!pattern_check_private(core, ll, error))
            return false;
        if (!sys_set_u64(root, l1, "l1d", "caches", n, error) ||
            !sys_set_u64(root, l1, "l1d", "banks", banks, error) ||
            !sys_set(root, l1, "l1d", "protocol", proto, error))
            return false;
    }
    Component *l10 = nth(sim, "l1d", 0);
    for (uint64_t b = 0; b < banks; b++) {
        Component *d = nth(sim, "dir", b), *llc = nth(sim, "llc", b);
        if (b == 0 && (!same_u64(l10, d, "line", "line", error) ||
                       !same_u64(d, llc, "line", "line", error)))
            return false;
        if (!sys_set_u64(root, llc, "llc", "interleave", banks, error) ||
            !sys_set_u64(root, d, "dir", "caches", n, error) ||
            !sys_set_u64(root, d, "dir", "banks", banks, error) ||
            !sys_set(root, d, "dir", "protocol", proto, error))
            return false;
    }
    if (p->check) {
        uint64_t line = 64;
        sim_component_param_u64(l10, "line", &line);
        mem_shared(sim)->oracle = oracle_new((uint32_t)line, true);
    }
    return true;
}

/* The L1 sums (as smp), then traffic per miss: what the experiment compares with snooping. */
static void dirsmp_stats(Sim *sim, StatSet *set)
{
    smp_stats(sim, set);
    uint64_t misses = smp_stat_u(set, "l1d.misses");
    stats_add_double(set, "system.net_messages_per_miss",
                     stats_ratio((double)smp_stat_u(set, "noc.messages"), (double)misses), "count",
                     "network messages / L1 misses (all coherence traffic, write-backs included)");
    stats_add_double(set, "system.net_bytes_per_miss",
                     stats_ratio((double)smp_stat_u(set, "noc.bytes"), (double)misses), "byte",
                     "network bytes (headers + data) / L1 misses");
    stats_add_double(set, "system.three_hop_fraction",
                     stats_ratio((double)smp_stat_u(set, "l1d.misses_3hop"),
                                 (double)(smp_stat_u(set, "l1d.misses_2hop") +
                                          smp_stat_u(set, "l1d.misses_3hop"))),
                     "ratio", "l1d.misses_3hop / (l1d.misses_2hop + l1d.misses_3hop): misses "
                     "served by the previous owner or waiting for sharers' Inv-Acks");
}

const SystemClass dirsmp_system = {
    .name = "dirsmp",
    .doc = "N tiles (core, private L1, LLC slice with its directory) on an on-chip network, DRAM",
    .params = dirsmp_params,
    .params_size = sizeof(DirSmpParams),
    .sections = dirsmp_sections,
    .part = "dirsmp.yaml",
    .expand = smp_expand_threads,
    .build = dirsmp_build,
    .stats = dirsmp_stats,
};
