/* rdusys.c: `system.type: rdu`, the RDU as a short-hand for the graph of
 * configs/parts/machines/rdu.yaml: the host (workload, class rdu-workload), the chip (rdu, class
 * rdu-chip) and its two memory tiers (hbm and ddr, class rdu-mem). The config's `workload:`
 * section names the dataflow graph (`--set workload.graph=FILE`); `rdu:`, `hbm:` and `ddr:`
 * configure the chip and the tiers (docs/rdu.md). */
#include "../../sim/registry.h"
#include "rdu.h"
#include "rdusys.h"

static const ParamSpec rdu_sys_params[] = { PARAM_END };

static const SystemSection rdu_sections[] = {
    { "workload", "rdu-workload", "the host: the dataflow graph and the kernel launch cost", NULL,
      NULL },
    { "rdu", "rdu-chip", "the chip: its PCU/PMU grid, network and clock", NULL, NULL },
    { "hbm", "rdu-mem", "the HBM tier: bandwidth, latency, capacity", NULL, NULL },
    { "ddr", "rdu-mem", "the DDR tier: bandwidth, latency, capacity", NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

const SystemClass rdu_system = {
    .name = "rdu",
    .doc = "a reconfigurable dataflow unit (Plasticine / SambaNova SN40L): a dataflow graph "
           "mapped onto PCUs and PMUs and run as metapipelined kernels, with HBM and DDR tiers",
    .params = rdu_sys_params,
    .params_size = 0,
    .sections = rdu_sections,
    .part = "rdu.yaml",
};
