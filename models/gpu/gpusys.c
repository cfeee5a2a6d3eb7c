/* gpusys.c: `system.type: gpu`, the GPU as a short-hand for the graph of
 * configs/parts/machines/gpu.yaml: a block scheduler (workload, class gpu-workload) linked to N
 * SMs (sm0 .. smN-1, class gpu-sm). The config's `workload:` section names the trace
 * (`--set workload.trace=DIR`), `sm:` configures every SM. Its system statistics are the GPU's
 * totals under the names GPU users know (gpu.gpu_sim_cycle, gpu.gpu_sim_insn, gpu.warp_insts,
 * gpu.gpu_ipc, the stall breakdown; docs/gpu.md, "Statistics").
 */
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "gpu.h"
#include "sm.h"

typedef struct {
    uint64_t sms;
} GpuSysParams;

static const ParamSpec gpu_sys_params[] = {
    { .name = "sms", .type = PARAM_UINT, .def = "108", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "streaming multiprocessors", .offset = offsetof(GpuSysParams, sms) },
    PARAM_END,
};

static const SystemSection gpu_sections[] = {
    { "workload", "gpu-workload", "the trace and the block scheduler", NULL, NULL },
    { "sm", "gpu-sm", "the SMs (the section configures every SM)", "sms", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static bool gpu_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    (void)sim, (void)params, (void)root, (void)error;
    return true;
}

static uint64_t st_u64(const StatSet *s, const char *name)
{
    const StatEntry *e = stats_find(s, name);
    return e ? (e->is_int ? e->u : (uint64_t)e->d) : 0;
}

static void gpu_stats(Sim *sim, StatSet *set)
{
    (void)sim;
    if (!stats_find(set, "sm.warp_insts"))
        stats_sum_instances(set, "sm", NULL, "sum over all SMs");
    uint64_t cyc = st_u64(set, "workload.gpu_sim_cycle");
    uint64_t insn = st_u64(set, "sm.thread_insts"), warp = st_u64(set, "sm.warp_insts");
    uint64_t active = st_u64(set, "sm.active_cycles"), wc = st_u64(set, "sm.warp_cycles");
    uint64_t slots = st_u64(set, "sm.issue_slots");
    stats_add_u64(set, "gpu.gpu_sim_cycle", cyc, "cycle", "kernels' elapsed cycles at the GPU "
                  "clock, from each kernel's start (front-end start-up included) to its last "
                  "block's end, summed (Nsight Compute's gpc__cycles_elapsed.max)");
    stats_add_u64(set, "gpu.gpu_sim_insn", insn, "count", "thread instructions (active lanes)");
    stats_add_u64(set, "gpu.warp_insts", warp, "count", "warp instructions issued, mask 0 "
                  "included");
    stats_add_double(set, "gpu.gpu_ipc", stats_ratio((double)insn, (double)cyc), "ratio",
                     "gpu_sim_insn / gpu_sim_cycle (GPGPU-Sim's gpu_ipc)");
    stats_add_u64(set, "gpu.kernels", st_u64(set, "workload.kernels"), "count", "kernels run");
    stats_add_u64(set, "gpu.global_load_sectors", st_u64(set, "sm.global_load_sectors"), "count",
                  "32-byte sectors global and local loads touched (the coalescer's output)");
    stats_add_u64(set, "gpu.global_store_sectors", st_u64(set, "sm.global_store_sectors"), "count",
                  "32-byte sectors global and local stores and reductions touched");
    stats_add_u64(set, "gpu.shared_bank_conflicts", st_u64(set, "sm.shared_bank_conflicts"),
                  "cycle", "shared-memory wavefronts beyond the ideal (Nsight Compute's "
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared)");
    stats_add_u64(set, "gpu.launch_latency_cycles", st_u64(set, "workload.launch_latency_cycles"),
                  "cycle", "the host's kernel launch latency, summed (not in gpu_sim_cycle)");
    uint64_t max_warps = 0;
    for (guint i = 0; i < sim->components->len; i++) {
        Component *c = g_ptr_array_index(sim->components, i);
        if (c->cls == &gpu_sm_class) {
            max_warps = gpu_sm_max_warps(c);
            break;
        }
    }
    stats_add_double(set, "gpu.achieved_occupancy",
                     stats_ratio((double)wc, (double)active * (double)max_warps), "ratio",
                     "resident warps / maximum warps, averaged over the SMs' active cycles");
    stats_add_double(set, "gpu.issue_slot_utilization", stats_ratio((double)warp, (double)slots),
                     "ratio", "warp instructions issued / issue slots of active SMs");
    uint64_t total = 0;
    for (unsigned i = 0; i < sm_stall_count(); i++) {
        char name[64];
        g_snprintf(name, sizeof name, "sm.stall_%s", sm_stall_name(i));
        total += st_u64(set, name);
    }
    for (unsigned i = 0; i < sm_stall_count(); i++) {
        char name[64], src[64];
        g_snprintf(src, sizeof src, "sm.stall_%s", sm_stall_name(i));
        g_snprintf(name, sizeof name, "gpu.stall.%s", sm_stall_name(i));
        stats_add_double(set, name, stats_ratio((double)st_u64(set, src), (double)total), "ratio",
                         "share of warp-cycles with this Nsight Compute reason (docs/gpu.md, "
                         "\"Stall reasons\")");
    }
}

const SystemClass gpu_system = {
    .name = "gpu",
    .doc = "a GPU running an Accel-Sim SASS trace: block scheduler and N SMs",
    .params = gpu_sys_params,
    .params_size = sizeof(GpuSysParams),
    .sections = gpu_sections,
    .part = "gpu.yaml",
    .build = gpu_build,
    .stats = gpu_stats,
};
