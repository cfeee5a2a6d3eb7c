/* uniproc.c: the single-core machine of the foundation: a trace-driven core with split L1
 * instruction and data caches, a unified L2 and one DRAM channel.
 *
 * The machine is the graph configs/parts/machines/uniproc.yaml (docs/machines.md):
 *   core.icache -> l1i.cpu_side    l1i.mem_side -> l2.cpu_side[0]
 *   core.dcache -> l1d.cpu_side    l1d.mem_side -> l2.cpu_side[1]    l2.mem_side -> dram.port
 *
 * Links cost one tick: every latency is the components' own (hit_latency, DRAM timing).
 */
#include "uniproc.h"

#include "../../sim/error.h"

typedef struct {
    int unused;
} UniprocParams;

static const SystemSection uniproc_sections[] = {
    { "core", "trace-core", "the core and its trace", NULL, NULL },
    { "l1i", "cache", "L1 instruction cache", NULL, NULL },
    { "l1d", "cache", "L1 data cache", NULL, NULL },
    { "l2", "cache", "unified L2 (last level)", NULL, NULL },
    { "dram", "dram", "main memory", NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

/* A request never spans two lines of the cache that receives it: the core splits references at
 * core.line, each cache asks the next level for whole lines. So lines may only grow downward. */
static bool check_line(Component *up, const char *up_key, Component *down, GError **error)
{
    uint64_t a = 0, b = 0;
    sim_component_param_u64(up, up_key, &a);
    sim_component_param_u64(down, "line", &b);
    if (a > b)
        return sim_component_reject_pair(up, up_key, down, "line", error,
                                         "%s.%s (%" G_GUINT64_FORMAT " B) is larger than %s.line (%"
                                         G_GUINT64_FORMAT " B): lines may only grow from the core "
                                         "down; make them equal", up->name, up_key, a, down->name,
                                         b);
    return true;
}

static bool uniproc_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    (void)params, (void)root;
    Component *core = sim_component_find(sim, "core"), *l1i = sim_component_find(sim, "l1i"),
              *l1d = sim_component_find(sim, "l1d"), *l2 = sim_component_find(sim, "l2"),
              *dram = sim_component_find(sim, "dram");
    (void)dram;
    /* the graph (configs/parts/machines/uniproc.yaml) is built and linked; the lines, with
     * the short-hand's own words (the classes' link checks say the same across any link) */
    return check_line(core, "line", l1i, error) && check_line(core, "line", l1d, error) &&
           check_line(l1i, "line", l2, error) && check_line(l1d, "line", l2, error);
}

static const ParamSpec uniproc_params[] = { PARAM_END };

const SystemClass uniproc_system = {
    .name = "uniproc",
    .doc = "one trace-driven core, L1I + L1D, unified L2, DRAM",
    .params = uniproc_params,
    .params_size = sizeof(UniprocParams),
    .sections = uniproc_sections,
    .part = "uniproc.yaml",
    .build = uniproc_build,
};
