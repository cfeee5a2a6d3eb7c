/* uniproc.c: the single-core machine of the foundation: a trace-driven core with split L1
 * instruction and data caches, a unified L2 and one DRAM channel.
 *
 *   core.icache -> l1i.cpu_side    l1i.mem_side -> l2.cpu_side[0]
 *   core.dcache -> l1d.cpu_side    l1d.mem_side -> l2.cpu_side[1]    l2.mem_side -> dram.port
 *
 * Links cost one tick: every latency is the components' own (hit_latency, DRAM timing).
 */
#include "uniproc.h"

typedef struct {
    int unused;
} UniprocParams;

static const SystemSection uniproc_sections[] = {
    { "core", "trace-core", "the core and its trace" },
    { "l1i", "cache", "L1 instruction cache" },
    { "l1d", "cache", "L1 data cache" },
    { "l2", "cache", "unified L2 (last level)" },
    { "dram", "dram", "main memory" },
    { NULL, NULL, NULL },
};

static bool uniproc_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    (void)params, (void)root;
    Component *core = sim_component_find(sim, "core"), *l1i = sim_component_find(sim, "l1i"),
              *l1d = sim_component_find(sim, "l1d"), *l2 = sim_component_find(sim, "l2"),
              *dram = sim_component_find(sim, "dram");
    return sim_connect(core, "icache", l1i, "cpu_side", 1, error) &&
           sim_connect(core, "dcache", l1d, "cpu_side", 1, error) &&
           sim_connect(l1i, "mem_side", l2, "cpu_side", 1, error) &&
           sim_connect(l1d, "mem_side", l2, "cpu_side", 1, error) &&
           sim_connect(l2, "mem_side", dram, "port", 1, error);
}

static const ParamSpec uniproc_params[] = { PARAM_END };

const SystemClass uniproc_system = {
    .name = "uniproc",
    .doc = "one trace-driven core, L1I + L1D, unified L2, DRAM",
    .params = uniproc_params,
    .params_size = sizeof(UniprocParams),
    .sections = uniproc_sections,
    .build = uniproc_build,
};
