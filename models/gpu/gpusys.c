/* gpusys.c: `system.type: gpu`, the GPU as a short-hand for the graph of
 * configs/parts/machines/gpu.yaml: a block scheduler (workload, class gpu-workload) linked to N
 * SMs (sm0 .. smN-1, class gpu-sm), whose memory requests cross a crossbar (xbar, a noc) to S L2
 * slices (l2[0] .. l2[S-1], class gpu-l2), each in front of its DRAM channel (dram[0] ..
 * dram[C-1], S / C slices per channel). The config's `workload:` section names the trace
 * (`--set workload.trace=DIR`); `sm:`, `xbar:`, `l2:` and `dram:` configure every instance. Its
 * system statistics are the GPU's totals under the names GPU users know (gpu.gpu_sim_cycle,
 * gpu.gpu_sim_insn, gpu.warp_insts, gpu.gpu_ipc, the stall breakdown, hit rates and DRAM bytes;
 * docs/gpu.md, "Statistics").
 */
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../system/smp.h"
#include "gpu.h"
#include "sm.h"

typedef struct {
    uint64_t sms, l2_slices, channels;
} GpuSysParams;

static const ParamSpec gpu_sys_params[] = {
    { .name = "sms", .type = PARAM_UINT, .def = "108", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "streaming multiprocessors", .offset = offsetof(GpuSysParams, sms) },
    { .name = "l2_slices", .type = PARAM_UINT, .def = "80", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "L2 slices (memory sub-partitions), a multiple of channels",
      .offset = offsetof(GpuSysParams, l2_slices) },
    { .name = "channels", .type = PARAM_UINT, .def = "40", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "DRAM channels (HBM or GDDR), each behind l2_slices / channels slices",
      .offset = offsetof(GpuSysParams, channels) },
    PARAM_END,
};

static const SystemSection gpu_sections[] = {
    { "workload", "gpu-workload", "the trace and the block scheduler", NULL, NULL },
    { "sm", "gpu-sm", "the SMs (the section configures every SM)", "sms", NULL },
    { "xbar", "noc", "the SM-to-L2 crossbar (the system sets topology and nodes)", NULL, NULL },
    { "l2", "gpu-l2", "the L2 slices (the section configures every slice)", "l2_slices", NULL },
    { "dram", "dram", "the DRAM channels (the section configures every channel)", "channels",
      NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

/* Slice i reads and writes channel i / (slices per channel). */
static bool gpu_expand(const void *params, const CfgNode *root, CfgNode *graph, GError **error)
{
    const GpuSysParams *p = params;
    CfgNode *links = cfg_map_get(graph, "links");
    if (p->l2_slices % p->channels != 0) {
        const CfgNode *sys = cfg_map_get(root, "system");
        const CfgNode *v = sys && sys->kind == CFG_MAP ? cfg_map_get(sys, "l2_slices") : NULL;
        const CfgNode *at = v ? v : root;
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s:%d:%d: system.l2_slices %" G_GUINT64_FORMAT " is not a multiple of "
                    "system.channels %" G_GUINT64_FORMAT " (every channel has the same number "
                    "of slices)", at->file ? at->file : "<config>", at->line, at->col,
                    p->l2_slices, p->channels);
        return false;
    }
    uint64_t sub = p->l2_slices / p->channels;
    for (uint64_t i = 0; i < p->l2_slices; i++) {
        CfgNode *l = cfg_node_new_map(root->file, root->line, root->col);
        char *from = g_strdup_printf("l2[%" G_GUINT64_FORMAT "].mem_side", i);
        char *to = g_strdup_printf("dram[%" G_GUINT64_FORMAT "].port", i / sub);
        cfg_map_set(l, "from", cfg_node_new_scalar(from, root->file, root->line, root->col));
        cfg_map_set(l, "to", cfg_node_new_scalar(to, root->file, root->line, root->col));
        g_ptr_array_add(links->items, l);
        g_free(from);
        g_free(to);
    }
    return true;
}

static bool gpu_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    const GpuSysParams *p = params;
    Component *xbar = sim_component_find(sim, "xbar");
    if (!smp_sys_set(root, xbar, "gpu", "xbar", "topology", "crossbar", error) ||
        !smp_sys_set_u64(root, xbar, "gpu", "xbar", "nodes", p->sms + p->l2_slices, error))
        return false;
    uint64_t vnets = 0;
    sim_component_param_u64(xbar, "vnets", &vnets);
    if (vnets < 3)
        return sim_component_reject(xbar, "vnets", error, "the memory side sends requests on "
                                    "virtual network 0 and answers on 2, so that an answer never "
                                    "waits behind a request: it needs 3 or more, this crossbar "
                                    "has %" G_GUINT64_FORMAT "; hint: remove xbar.vnets (default "
                                    "3)", vnets);
    const char *hash = NULL;
    for (uint64_t i = 0; i < p->l2_slices; i++) {
        char *n = g_strdup_printf("l2[%" G_GUINT64_FORMAT "]", i);
        Component *l2 = sim_component_find(sim, n);
        g_free(n);
        g_assert(l2);
        if (!smp_sys_set_u64(root, l2, "gpu", "l2", "slice", i, error) ||
            !smp_sys_set_u64(root, l2, "gpu", "l2", "slices", p->l2_slices, error) ||
            !smp_sys_set_u64(root, l2, "gpu", "l2", "subpartitions", p->l2_slices / p->channels,
                             error))
            return false;
        if (i == 0)
            hash = gpu_l2_hash_name(l2);       /* the slices' own setting, however it was set */
    }
    for (uint64_t i = 0; i < p->sms; i++) {
        char *n = g_strdup_printf("sm%" G_GUINT64_FORMAT, i);
        Component *sm = sim_component_find(sim, n);
        g_free(n);
        g_assert(sm);
        if (!smp_sys_set_u64(root, sm, "gpu", "sm", "l2_slices", p->l2_slices, error) ||
            !smp_sys_set_u64(root, sm, "gpu", "sm", "l2_base", p->sms, error) ||
            !smp_sys_set(root, sm, "gpu", "sm", "l2_hash", hash, error))
            return false;
    }
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
    if (!stats_find(set, "l2.load_sectors")) {
        stats_sum_counts(set, "l2", "sum over all slices");
        stats_sum_counts(set, "dram", "sum over all channels");
    }
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
    stats_add_u64(set, "gpu.flops", st_u64(set, "sm.flops"), "count", "floating-point "
                  "operations, FMA counted twice (sm.flops summed; flop_count_sp + dp + hp)");
    stats_add_u64(set, "gpu.global_load_sectors", st_u64(set, "sm.global_load_sectors"), "count",
                  "32-byte sectors global and local loads touched (the coalescer's output)");
    stats_add_u64(set, "gpu.global_store_sectors", st_u64(set, "sm.global_store_sectors"), "count",
                  "32-byte sectors global and local stores and reductions touched");
    stats_add_u64(set, "gpu.shared_bank_conflicts", st_u64(set, "sm.shared_bank_conflicts"),
                  "cycle", "shared-memory wavefronts beyond the ideal (Nsight Compute's "
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared)");
    uint64_t l1s = st_u64(set, "sm.l1_sectors"), l1h = st_u64(set, "sm.l1_sector_hits");
    stats_add_double(set, "gpu.l1d_hit_rate", stats_ratio((double)l1h, (double)l1s), "ratio",
                     "L1 sector hits / sectors of global and local loads (sm.l1_sector_hits / "
                     "sm.l1_sectors; Nsight Compute's l1tex__t_sector_hit_rate, loads)");
    uint64_t l2s = st_u64(set, "l2.load_sectors") + st_u64(set, "l2.store_sectors") +
                   st_u64(set, "l2.atomic_sectors");
    uint64_t l2h = st_u64(set, "l2.load_sector_hits") + st_u64(set, "l2.store_sector_hits") +
                   st_u64(set, "l2.atomic_sector_hits");
    stats_add_double(set, "gpu.l2_hit_rate", stats_ratio((double)l2h, (double)l2s), "ratio",
                     "L2 sector hits / sectors of every request, loads, stores and atomics "
                     "(Nsight Compute's lts__t_sector_hit_rate)");
    stats_add_u64(set, "gpu.dram_read_bytes", st_u64(set, "dram.bytes_read"), "byte",
                  "bytes read from DRAM, every channel (dram__bytes_read.sum)");
    stats_add_u64(set, "gpu.dram_write_bytes", st_u64(set, "dram.bytes_written"), "byte",
                  "bytes written to DRAM, every channel (dram__bytes_write.sum)");
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
    .doc = "a GPU running an Accel-Sim SASS trace: block scheduler, N SMs with L1s, a crossbar, "
           "L2 slices and DRAM channels",
    .params = gpu_sys_params,
    .params_size = sizeof(GpuSysParams),
    .sections = gpu_sections,
    .part = "gpu.yaml",
    .expand = gpu_expand,
    .build = gpu_build,
    .stats = gpu_stats,
};
