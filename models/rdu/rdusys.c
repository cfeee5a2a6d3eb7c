/* rdusys.c: `system.type: rdu`, the RDU as a short-hand for the graph of
 * configs/parts/machines/rdu.yaml: the host (workload, class rdu-workload), the chip (rdu, class
 * rdu-chip), its switch network (net, a noc mesh of system.rows x system.cols routers, one
 * endpoint per PCU and its PMU, linked to the chip's net port in order) and its two memory
 * tiers (hbm and ddr, class rdu-mem). The config's `workload:` section names the dataflow graph
 * (`--set workload.graph=FILE`); `rdu:`, `net:`, `hbm:` and `ddr:` configure the chip, the
 * network and the tiers (docs/rdu.md). */
#include "../../sim/error.h"
#include "../../sim/registry.h"
#include "../system/smp.h"
#include "rdu.h"
#include "rdusys.h"

typedef struct {
    uint64_t rows, cols;
} RduSysParams;

static const ParamSpec rdu_sys_params[] = {
    { .name = "rows", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "rows of the PCU grid (a PMU beside each PCU, one network router for "
      "the pair)", .offset = offsetof(RduSysParams, rows) },
    { .name = "cols", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "columns of the PCU grid (rows x cols at most 4,096, the noc's limit)",
      .offset = offsetof(RduSysParams, cols) },
    PARAM_END,
};

static const SystemSection rdu_sections[] = {
    { "workload", "rdu-workload", "the host: the dataflow graph and the kernel launch cost", NULL,
      NULL },
    { "rdu", "rdu-chip", "the chip: its PCUs and PMUs and clock", NULL, NULL },
    { "net", "noc", "the switch network: a mesh of rows x cols routers (the system sets "
      "topology, nodes and width)", NULL, NULL },
    { "hbm", "rdu-mem", "the HBM tier: bandwidth, latency, capacity", NULL, NULL },
    { "ddr", "rdu-mem", "the DDR tier: bandwidth, latency, capacity", NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

/* The chip's net port to each of the mesh's rows x cols endpoints, in order. */
static bool rdu_expand(const void *params, const CfgNode *root, CfgNode *graph, GError **error)
{
    const RduSysParams *p = params;
    if (p->rows * p->cols > 4096) {
        const CfgNode *sys = cfg_map_get(root, "system");
        const CfgNode *v = sys && sys->kind == CFG_MAP ? cfg_map_get(sys, "rows") : NULL;
        const CfgNode *w = sys && sys->kind == CFG_MAP ? cfg_map_get(sys, "cols") : NULL;
        if (w && (!v || (w->set_text && !v->set_text)))
            v = w;                              /* the one the command line changed */
        const CfgNode *at = v ? v : root;
        char *where = cfg_node_where(at);       /* a file's place, or the --set that gave it */
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: system.rows x "
                    "system.cols is %" G_GUINT64_FORMAT ", more than the network's 4,096 routers",
                    where, p->rows * p->cols);
        g_free(where);
        return false;
    }
    CfgNode *links = cfg_map_get(graph, "links");
    for (uint64_t i = 0; i < p->rows * p->cols; i++) {
        CfgNode *l = cfg_node_new_map(root->file, root->line, root->col);
        cfg_map_set(l, "from", cfg_node_new_scalar("rdu.net", root->file, root->line, root->col));
        cfg_map_set(l, "to", cfg_node_new_scalar("net.node", root->file, root->line, root->col));
        g_ptr_array_add(links->items, l);
    }
    return true;
}

static bool rdu_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    const RduSysParams *p = params;
    Component *net = sim_component_find(sim, "net");
    return smp_sys_set(root, net, "rdu", "net", "topology", "mesh", error) &&
           smp_sys_set_u64(root, net, "rdu", "net", "nodes", p->rows * p->cols, error) &&
           smp_sys_set_u64(root, net, "rdu", "net", "width", p->cols, error);
}

const SystemClass rdu_system = {
    .name = "rdu",
    .doc = "a reconfigurable dataflow unit (Plasticine / SambaNova SN40L): a dataflow graph "
           "mapped onto PCUs and PMUs and run as metapipelined kernels, with HBM and DDR tiers",
    .params = rdu_sys_params,
    .params_size = sizeof(RduSysParams),
    .sections = rdu_sections,
    .part = "rdu.yaml",
    .expand = rdu_expand,
    .build = rdu_build,
};
