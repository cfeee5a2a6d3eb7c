/* gpuwork.c: the GPU's front end and block scheduler (gpu-workload): reads an Accel-Sim trace's
 * kernelslist.g, launches its kernels one after another (the host's launch latency between
 * them, not counted in gpu_sim_cycle), and hands each kernel's thread blocks to the SMs, as many
 * on each SM as NVIDIA's occupancy rules allow (occupancy.h, the same function as `archsim gpu
 * occupancy`), round robin over the SMs, one block per cta_interval cycles GPU-wide. Blocks are
 * read from the trace as they are dispatched: memory holds the resident blocks and one more.
 * Or a PTX launch (ptxlaunch.h): its one kernel's blocks are run functionally as they are
 * dispatched (ptxexec.h), and its output buffers written with the stats.
 */
#include <stdio.h>
#include <string.h>

#include "../../sim/component.h"
#include "../../sim/error.h"
#include "gpumsg.h"
#include "occupancy.h"
#include "ptxlaunch.h"
#include "sm.h"

typedef struct {
    char *trace, *launch;
    uint64_t launch_latency, startup, cta_interval;
    bool strict;
} WorkParams;

typedef struct {
    uint32_t id;
    char *name, *file;
    uint64_t ctas, warp_insts, thread_insts, cycles;
    uint32_t blocks_per_sm;
    const char *limiter;
} KernelRow;

typedef enum { W_IDLE, W_LAUNCH_WAIT, W_RUNNING, W_DONE } WState;

typedef struct {
    Component base;
    WorkParams p;
    SassList *list;
    uint32_t next_entry;
    WState state;
    uint64_t launch_at, kernel_start, next_dispatch;
    SassReader *reader;       /* the kernel's blocks: from a trace */
    GpuLaunchSpec *spec;      /* or a PTX launch, run by prun */
    PtxRun *prun;
    GpuKernelCtx *kc;
    GpuCta *ahead;            /* the next block, read but not dispatched */
    bool reader_done;
    uint32_t nsm, rr;
    Port **sm;
    uint32_t *resident;       /* blocks on each SM */
    uint32_t *per_sm;         /* blocks each SM may hold for this kernel */
    uint64_t outstanding;
    GHashTable *unknown;      /* opcode text -> warp instructions */
    GPtrArray *spare;         /* finished blocks, their arrays kept for the next ones */
    GArray *rows;             /* KernelRow */
    KernelRow cur;
    /* stats */
    uint64_t kernels, gpu_sim_cycle, launch_cycles, ctas, unknown_insts, copies, copy_bytes;
} Work;

static const ParamSpec work_params[] = {
    { .name = "trace", .type = PARAM_PATH,
      .doc = "an Accel-Sim trace: a folder with kernelslist.g, the list, or one .traceg (plain, "
             ".gz or .xz); or give launch", .offset = offsetof(WorkParams, trace) },
    { .name = "launch", .type = PARAM_PATH,
      .doc = "a PTX kernel launch (YAML: kernel, grid, block, buffers, params, outputs; "
             "docs/gpu-ptx.md), run functionally into the SMs; when given, trace is not read",
      .offset = offsetof(WorkParams, launch) },
    { .name = "launch_latency", .type = PARAM_CYCLES, .def = "3000", .flags = PARAM_F_RANGE,
      .max = 1e9, .doc = "the host's kernel launch latency before each kernel starts on the GPU "
      "(not in gpu_sim_cycle; reported as launch_latency_cycles)",
      .offset = offsetof(WorkParams, launch_latency) },
    { .name = "startup", .type = PARAM_CYCLES, .def = "0", .flags = PARAM_F_RANGE, .max = 1e9,
      .doc = "the front end's start-up per kernel before its first block is dispatched (counted "
      "in gpu_sim_cycle)", .offset = offsetof(WorkParams, startup) },
    { .name = "cta_interval", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e6, .doc = "cycles between two thread blocks dispatched by the block scheduler, "
      "GPU-wide", .offset = offsetof(WorkParams, cta_interval) },
    { .name = "strict", .type = PARAM_BOOL, .def = "false",
      .doc = "an opcode missing from the SASS generation's table is an error, not a warning "
             "(it runs as an integer-ALU instruction)", .offset = offsetof(WorkParams, strict) },
    PARAM_END,
};

static const PortSpec work_ports[] = {
    { .name = "sm", .role = PORT_REQUESTER, .vector = true, .required = true,
      .doc = "one link to each SM's ctrl port: thread blocks out, finished blocks back" },
    PORT_END,
};

static const StatSpec work_stats[] = {
    { "kernels", STAT_COUNTER, "count", "kernels run", offsetof(Work, kernels), NULL },
    { "gpu_sim_cycle", STAT_COUNTER, "cycle", "kernels' elapsed cycles, start-up included, "
      "summed (Nsight Compute's gpc__cycles_elapsed.max)", offsetof(Work, gpu_sim_cycle), NULL },
    { "launch_latency_cycles", STAT_COUNTER, "cycle", "the host's launch latency, summed over "
      "kernels (not in gpu_sim_cycle)", offsetof(Work, launch_cycles), NULL },
    { "ctas", STAT_COUNTER, "count", "thread blocks dispatched", offsetof(Work, ctas), NULL },
    { "unknown_opcode_insts", STAT_COUNTER, "count", "warp instructions whose opcode is not in "
      "the SASS generation's table (run as integer ALU; named on stderr)",
      offsetof(Work, unknown_insts), NULL },
    { "memcpy_h2d", STAT_COUNTER, "count", "host-to-device copies in the list (not simulated)",
      offsetof(Work, copies), NULL },
    { "memcpy_h2d_bytes", STAT_COUNTER, "byte", "their bytes", offsetof(Work, copy_bytes), NULL },
    STAT_END,
};

static bool work_realize(Component *c, GError **error)
{
    Work *w = (Work *)c;
    bool has_trace = w->p.trace && *w->p.trace, has_launch = w->p.launch && *w->p.launch;
    if (!has_trace && !has_launch) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: give trace (an "
                    "Accel-Sim trace) or launch (a PTX launch YAML)", c->name);
        return false;
    }
    if (has_launch) {
        w->spec = gpu_launch_load(w->p.launch, error);
        if (!w->spec)
            return false;
        /* a list of its kernels, in launch order */
        w->list = g_new0(SassList, 1);
        w->list->path = g_strdup(w->p.launch);
        w->list->e = g_new0(SassListEntry, w->spec->nl);
        for (uint32_t i = 0; i < w->spec->nl; i++)
            w->list->e[i] = (SassListEntry){ .kind = SASS_LIST_KERNEL,
                                             .path = g_strdup(w->spec->l[i].m->path) };
        w->list->n = w->list->kernels = w->spec->nl;
    } else {
        w->list = sass_list_read(w->p.trace, error);
    }
    if (!w->list)
        return false;
    w->nsm = 0;
    while (sim_port(c, "sm", (int)w->nsm))
        w->nsm++;
    w->sm = g_new0(Port *, w->nsm);
    for (uint32_t i = 0; i < w->nsm; i++)
        w->sm[i] = sim_port(c, "sm", (int)i);
    w->resident = g_new0(uint32_t, w->nsm);
    w->per_sm = g_new0(uint32_t, w->nsm);
    w->unknown = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    w->rows = g_array_new(FALSE, TRUE, sizeof(KernelRow));
    w->spare = g_ptr_array_new();
    return true;
}

static void work_close_kernel(Work *w)
{
    if (w->ahead) {
        sass_block_clear(&w->ahead->b);
        g_free(w->ahead);
        w->ahead = NULL;
    }
    sass_close(w->reader);
    w->reader = NULL;
    ptx_run_free(w->prun);
    w->prun = NULL;
    if (w->kc) {
        g_free(w->kc->op_flags);
        g_free(w->kc);
        w->kc = NULL;
    }
}

static void work_finalize(Component *c)
{
    Work *w = (Work *)c;
    work_close_kernel(w);
    sass_list_free(w->list);
    gpu_launch_free(w->spec);
    g_free(w->sm);
    g_free(w->resident);
    g_free(w->per_sm);
    if (w->unknown)
        g_hash_table_destroy(w->unknown);
    for (guint i = 0; w->spare && i < w->spare->len; i++) {
        GpuCta *g = g_ptr_array_index(w->spare, i);
        sass_block_clear(&g->b);
        g_free(g);
    }
    if (w->spare)
        g_ptr_array_free(w->spare, TRUE);
    for (guint i = 0; w->rows && i < w->rows->len; i++) {
        g_free(g_array_index(w->rows, KernelRow, i).name);
        g_free(g_array_index(w->rows, KernelRow, i).file);
    }
    if (w->rows)
        g_array_free(w->rows, TRUE);
    g_free(w->cur.name);
    g_free(w->cur.file);
}

static void work_start(Component *c) { sim_component_wake(c); }

static uint16_t op_flags_of(const char *op)
{
    uint16_t f = 0;
    size_t n = strcspn(op, ".");
    if (n == 3 && memcmp(op, "BAR", 3) == 0 && (op[3] == '\0' || strstr(op, ".SYNC") != NULL))
        f |= GPU_OPF_BAR_SYNC;
    if (strstr(op, ".WIDE") != NULL)
        f |= GPU_OPF_WIDE;
    if ((n == 4 && memcmp(op, "ATOM", 4) == 0) || (n == 5 && memcmp(op, "ATOMG", 5) == 0))
        f |= GPU_OPF_ATOM;
    if (n == 3 && memcmp(op, "RED", 3) == 0)
        f |= GPU_OPF_RED;
    if (n == 6 && memcmp(op, "LDGSTS", 6) == 0)
        f |= GPU_OPF_LOAD;          /* Accel-Sim's opcode table: LOAD_OP */
    /* what Nsight Compute counts as FLOPs (flop_count_sp/dp/hp): FADD, FMUL, FFMA and their
     * double and packed-half forms (an HFMA2 lane's two halves count as two) */
    static const char *const one[] = { "FADD", "FMUL", "DADD", "DMUL", "FADD32I", "FMUL32I" };
    static const char *const two[] = { "FFMA", "DFMA", "FFMA32I", "HADD2", "HMUL2" };
    for (size_t i = 0; i < G_N_ELEMENTS(one); i++)
        if (n == strlen(one[i]) && memcmp(op, one[i], n) == 0)
            f |= GPU_OPF_FLOP;
    for (size_t i = 0; i < G_N_ELEMENTS(two); i++)
        if (n == strlen(two[i]) && memcmp(op, two[i], n) == 0)
            f |= GPU_OPF_FMA;
    if (n == 5 && memcmp(op, "HFMA2", 5) == 0)
        f |= GPU_OPF_FMA | GPU_OPF_FLOP;     /* four FLOPs a lane */
    return f;
}

/* The same for a PTX opcode text ("bar.sync", "atom.global.add.u32", ...): global atomics and
 * reductions go to the L2 (shared ones stay in the SM, as ATOMS does), and every destination
 * register is listed. */
static uint16_t ptx_op_flags_of(const char *op)
{
    uint16_t f = GPU_OPF_EXACT;
    if (g_str_has_prefix(op, "cp.async.commit_group"))
        f |= GPU_OPF_ACOMMIT;
    else if (g_str_has_prefix(op, "cp.async.wait_"))
        f |= GPU_OPF_AWAIT;
    else if (g_str_has_prefix(op, "cp.async."))
        f |= GPU_OPF_ACOPY | GPU_OPF_LOAD;
    bool shared = strstr(op, ".shared") != NULL;
    if (g_str_has_prefix(op, "bar.sync") || g_str_has_prefix(op, "barrier.sync") ||
        strcmp(op, "bar") == 0 || strcmp(op, "barrier") == 0)
        f |= GPU_OPF_BAR_SYNC;
    if (g_str_has_prefix(op, "atom.") && !shared)
        f |= GPU_OPF_ATOM;
    if (g_str_has_prefix(op, "red.") && !shared)
        f |= GPU_OPF_RED;
    bool fl = g_str_has_suffix(op, ".f32") || g_str_has_suffix(op, ".f64") ||
              g_str_has_suffix(op, ".f16");
    if (fl && (g_str_has_prefix(op, "add.") || g_str_has_prefix(op, "sub.") ||
               g_str_has_prefix(op, "mul.")))
        f |= GPU_OPF_FLOP;
    if (fl && (g_str_has_prefix(op, "fma.") || g_str_has_prefix(op, "mad.")))
        f |= GPU_OPF_FMA;
    return f;
}

static const char *sass_src_text(const void *src, uint16_t op) { return sass_opcode(src, op); }
static const char *ptx_src_text(const void *src, uint16_t op) { return ptx_run_opcode(src, op); }

/* Reads the next block into w->ahead (NULL at the end); false on a trace error. */
static bool work_read_ahead(Work *w)
{
    if (w->ahead || w->reader_done)
        return true;
    GpuCta *g = w->spare->len ? g_ptr_array_steal_index_fast(w->spare, w->spare->len - 1)
                              : g_new0(GpuCta, 1);
    g->warp_insts = g->thread_insts = 0;
    GError *e = NULL;
    int got = w->prun ? ptx_run_next_block(w->prun, &g->b, &e) : sass_next_block(w->reader, &g->b, &e);
    if (got <= 0) {
        sass_block_clear(&g->b);
        g_free(g);
        w->reader_done = true;
        if (got < 0) {
            sim_fail(w->base.sim, e);
            return false;
        }
        return true;
    }
    g->kc = w->kc;
    /* opcodes first seen in this block */
    uint32_t nops = w->prun ? ptx_run_nopcodes(w->prun) : sass_nopcodes(w->reader);
    if (nops > w->kc->nops) {
        w->kc->op_flags = g_renew(uint16_t, w->kc->op_flags, nops);
        for (uint32_t i = w->kc->nops; i < nops; i++) {
            const char *t = sass_opcode_text(w->kc, (uint16_t)i);
            w->kc->op_flags[i] = w->prun ? ptx_op_flags_of(t) : op_flags_of(t);
        }
        w->kc->nops = nops;
    }
    for (uint64_t i = 0, wi = 0, j = 0; i < g->b.ninsts; i++, j++) {
        while (j >= g->b.warps[wi].n) {         /* warp by warp: a PTX block's are apart */
            wi++;
            j = 0;
        }
        const SassInst *in = &sass_warp_insts(&g->b, (uint32_t)wi)[j];
        g->thread_insts += (uint64_t)__builtin_popcount(in->mask);
        if (in->unit != GPU_UNIT_UNKNOWN)
            continue;
        w->unknown_insts++;
        const char *op = sass_opcode_text(w->kc, in->op);
        gpointer was = g_hash_table_lookup(w->unknown, op);
        if (was)
            g_hash_table_insert(w->unknown, g_strdup(op), GUINT_TO_POINTER(GPOINTER_TO_UINT(was) + 1));
        const SassKernel *k = w->kc->k;
        if (w->p.strict || w->base.sim->strict) {
            /* at the line of its first use in a SASS trace (a PTX kernel's are checked when
             * it is parsed) */
            uint64_t line = w->kc->op_text == sass_src_text
                                ? sass_opcode_line(w->kc->src, in->op) : 0;
            char *at = line ? g_strdup_printf("%s:%" G_GUINT64_FORMAT ":%u", k->path, line >> 16,
                                              (unsigned)(line & 0xffff))
                            : g_strdup(k->path);
            sim_fail(w->base.sim, g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                              "%s: opcode %s is not in the %s SASS table "
                                              "(strict)", at, op,
                                              gpu_generation(k->binary_version)));
            g_free(at);
            sass_block_clear(&g->b);
            g_free(g);
            w->reader_done = true;
            return false;
        }
        if (!was) {
            g_hash_table_insert(w->unknown, g_strdup(op), GUINT_TO_POINTER(1));
            fprintf(stderr, "archsim: warning: %s: opcode %s is not in the %s SASS table; run as "
                    "an integer-ALU instruction (counted in workload.unknown_opcode_insts; "
                    "workload.strict: true makes it an error)\n", k->path, op,
                    gpu_generation(k->binary_version));
        }
    }
    g->warp_insts = g->b.ninsts;
    w->ahead = g;
    return true;
}

/* Opens the kernel of list entry i and works out its blocks per SM. */
static bool work_open_kernel(Work *w, const char *path)
{
    GError *e = NULL;
    const SassKernel *k;
    w->kc = g_new0(GpuKernelCtx, 1);
    if (w->spec) {
        PtxLaunch *l = &w->spec->l[w->next_entry];     /* entries are all kernels here */
        l->id = w->next_entry + 1;
        w->prun = ptx_run_new(l, &e);
        if (!w->prun) {
            sim_fail(w->base.sim, e);
            return false;
        }
        k = ptx_run_kernel(w->prun);
        w->kc->src = w->prun;
        w->kc->op_text = ptx_src_text;
    } else {
        w->reader = sass_open(path, &e);
        if (!w->reader) {
            sim_fail(w->base.sim, e);
            return false;
        }
        k = sass_kernel(w->reader);
        w->kc->src = w->reader;
        w->kc->op_text = sass_src_text;
    }
    w->kc->k = k;
    w->kc->index = (uint32_t)w->kernels;
    w->reader_done = false;
    GpuOccInput in = { k->block[0] * k->block[1] * k->block[2], k->nregs, k->shmem, -1 };
    for (uint32_t i = 0; i < w->nsm; i++) {
        const GpuCcLimits *lim = gpu_cc_limits(sm_cc(w->sm[i]->peer->owner));
        GpuOccResult r;
        gpu_occupancy(lim, &in, &r);
        w->per_sm[i] = r.active_blocks;
        if (i == 0)
            w->cur.limiter = gpu_limiter_name(r.limiters);
        if (r.active_blocks == 0) {
            /* placed at the header line of what limits it (shared memory, registers, threads) */
            uint64_t at = r.limiters & GPU_LIMIT_SHARED ? k->at_shmem
                          : r.limiters & GPU_LIMIT_REGISTERS ? k->at_regs : k->at_block;
            char *where = at ? g_strdup_printf("%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, path,
                                               at >> 16, at & 0xffff)
                             : g_strdup(path);
            sim_fail(w->base.sim, g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                              "%s: a block of %u threads, %u registers each and %"
                                              G_GUINT64_FORMAT " B shared memory does not fit on "
                                              "%s (cc %u.%u; limited by %s: `archsim gpu "
                                              "occupancy` says why)", where, in.threads, in.regs,
                                              in.smem, w->sm[i]->peer->owner->name, lim->cc / 10,
                                              lim->cc % 10, gpu_limiter_name(r.limiters)));
            g_free(where);
            return false;
        }
    }
    g_free(w->cur.name);
    g_free(w->cur.file);
    w->cur = (KernelRow){ .id = k->id, .name = g_strdup(k->name), .file = g_path_get_basename(path),
                          .blocks_per_sm = w->per_sm[0], .limiter = w->cur.limiter };
    return true;
}

static uint64_t work_tick(Component *c)
{
    Work *w = (Work *)c;
    uint64_t now = sim_component_cycle(c);
    for (;;) {
        switch (w->state) {
        case W_IDLE:
            while (w->next_entry < w->list->n && w->list->e[w->next_entry].kind == SASS_LIST_MEMCPY) {
                w->copies++;
                uint64_t b = w->list->e[w->next_entry].bytes;     /* saturating */
                w->copy_bytes = b > UINT64_MAX - w->copy_bytes ? UINT64_MAX : w->copy_bytes + b;
                w->next_entry++;
            }
            if (w->next_entry == w->list->n) {
                w->state = W_DONE;
                return 0;
            }
            w->launch_at = now + w->p.launch_latency;
            w->launch_cycles += w->p.launch_latency;
            w->state = W_LAUNCH_WAIT;
            continue;
        case W_LAUNCH_WAIT:
            if (now < w->launch_at)
                return w->launch_at - now;
            if (!work_open_kernel(w, w->list->e[w->next_entry].path))
                return 0;
            w->next_entry++;
            w->kernel_start = now;
            w->next_dispatch = now + w->p.startup;
            w->state = W_RUNNING;
            continue;
        case W_RUNNING:
            if (!work_read_ahead(w))
                return 0;
            if (!w->ahead) {
                if (w->outstanding > 0)
                    return 0;                   /* woken by the last CTA_DONE */
                /* the kernel has ended: its last block finished in the previous cycle */
                uint64_t cycles = now - w->kernel_start;
                w->gpu_sim_cycle += cycles;
                w->cur.cycles = cycles;
                w->kernels++;
                KernelRow row = w->cur;
                row.name = g_strdup(w->cur.name);
                row.file = g_strdup(w->cur.file);
                g_array_append_val(w->rows, row);
                work_close_kernel(w);
                sim_progress(c->eng);
                w->state = W_IDLE;
                continue;
            }
            if (now < w->next_dispatch)
                return w->next_dispatch - now;
            for (uint32_t j = 0; j < w->nsm; j++) {
                uint32_t i = (w->rr + j) % w->nsm;
                if (w->resident[i] >= w->per_sm[i])
                    continue;
                Msg *m = sim_msg_alloc(c->sim);
                m->cmd = MSG_GPU_CTA_LAUNCH;
                gpu_msg(m)->cta = w->ahead;
                w->cur.ctas++;
                w->cur.warp_insts += w->ahead->warp_insts;
                w->cur.thread_insts += w->ahead->thread_insts;
                w->ahead = NULL;
                w->resident[i]++;
                w->outstanding++;
                w->ctas++;
                w->rr = i + 1;
                sim_port_send(c, w->sm[i], m, 0);
                w->next_dispatch = now + w->p.cta_interval;
                sim_progress(c->eng);
                return w->p.cta_interval;
            }
            return 0;                           /* every SM is full: a CTA_DONE wakes us */
        case W_DONE:
        default:
            return 0;
        }
    }
}

static void work_recv(Component *c, Port *port, Msg *m)
{
    Work *w = (Work *)c;
    g_assert(m->cmd == MSG_GPU_CTA_DONE);
    GpuCta *g = gpu_msg(m)->cta;
    sim_msg_free(c->sim, m);
    g_ptr_array_add(w->spare, g);       /* its arrays serve a later block */
    g_assert(w->resident[port->slot] > 0 && w->outstanding > 0);
    w->resident[port->slot]--;
    w->outstanding--;
    sim_progress(c->eng);
    sim_component_wake(c);
}

static bool work_busy(const Component *c) { return ((const Work *)c)->state != W_DONE; }

static double work_progress(const Component *c)
{
    const Work *w = (const Work *)c;
    if (!w->list || w->list->kernels == 0)
        return 1.0;
    double k = (double)w->kernels;
    if (w->reader)
        k += sass_progress(w->reader);
    else if (w->prun)
        k += ptx_run_progress(w->prun);
    return MIN(1.0, k / w->list->kernels);
}

static void work_dump(Component *c, GString *out)
{
    Work *w = (Work *)c;
    g_string_append_printf(out, "  kernel %" G_GUINT64_FORMAT " of %u, %" G_GUINT64_FORMAT
                           " blocks out on the SMs%s\n",
                           w->kernels + (w->reader != NULL || w->prun != NULL),
                           w->list ? w->list->kernels : 0, w->outstanding,
                           w->ahead ? ", one read and waiting for room" : "");
}

static bool work_outputs(Component *c, const char *dir, GError **error)
{
    Work *w = (Work *)c;
    GString *s = g_string_new("kernel_id,name,file,ctas,blocks_per_sm,limiter,warp_insts,"
                              "thread_insts,gpu_sim_cycle,ipc\n");
    for (guint i = 0; i < w->rows->len; i++) {
        const KernelRow *r = &g_array_index(w->rows, KernelRow, i);
        g_string_append_printf(s, "%u,", r->id);
        stats_csv_field(s, r->name);
        g_string_append_c(s, ',');
        stats_csv_field(s, r->file);
        g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",%u,%s,%" G_GUINT64_FORMAT ",%"
                               G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.4f\n",
                               r->ctas, r->blocks_per_sm, r->limiter, r->warp_insts,
                               r->thread_insts, r->cycles,
                               stats_ratio((double)r->thread_insts, (double)r->cycles));
    }
    char *path = g_build_filename(dir, "kernels.csv", NULL);
    bool ok = g_file_set_contents(path, s->str, (gssize)s->len, NULL);
    if (!ok)
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write", path);
    g_free(path);
    g_string_free(s, TRUE);
    if (ok && w->spec)
        ok = gpu_launch_write_outputs(w->spec, dir, error);
    return ok;
}

/* unknown_opcode.OP: warp instructions of each opcode the generation's table lacks */
static void work_extra_stats(const Component *c, StatSet *out)
{
    const Work *w = (const Work *)c;
    GList *keys = g_list_sort(g_hash_table_get_keys(w->unknown), (GCompareFunc)strcmp);
    for (GList *l = keys; l; l = l->next) {
        char *name = g_strdup_printf("%s.unknown_opcode.%s", c->name, (const char *)l->data);
        stats_add_u64(out, name, GPOINTER_TO_UINT(g_hash_table_lookup(w->unknown, l->data)),
                      "count", "warp instructions of an opcode not in the SASS generation's "
                      "table, run as integer ALU");
        g_free(name);
    }
    g_list_free(keys);
}

static bool work_check_link(Component *c, Port *mine, Port *theirs, GError **error)
{
    (void)mine;
    if (theirs->owner->cls != &gpu_sm_class) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s.sm: links to %s, a %s; "
                    "it must link to gpu-sm ctrl ports", c->name, theirs->owner->name,
                    theirs->owner->cls->name);
        return false;
    }
    return true;
}

const ComponentClass gpu_workload_class = {
    .name = "gpu-workload",
    .doc = "the GPU's front end: launches an Accel-Sim trace's kernels and schedules their "
           "thread blocks onto the SMs by occupancy",
    .size = sizeof(Work),
    .params_offset = offsetof(Work, p),
    .params = work_params,
    .ports = work_ports,
    .stats = work_stats,
    .realize = work_realize,
    .start = work_start,
    .tick = work_tick,
    .recv = work_recv,
    .dump = work_dump,
    .busy = work_busy,
    .progress = work_progress,
    .finalize = work_finalize,
    .write_outputs = work_outputs,
    .extra_stats = work_extra_stats,
    .check_link = work_check_link,
};

/* ---- the gpu message family (gpumsg.h) ---- */
static const char *const gpu_cmd_names[GPU_CMDS] = {
    [GPU_CTA_LAUNCH] = "cta_launch", [GPU_CTA_DONE] = "cta_done", [GPU_MEM_REQ] = "mem_req",
    [GPU_MEM_RESP] = "mem_resp",
};
const MsgFamily gpu_msg_family = {
    .name = "gpu", .id = MSG_FAM_GPU, .payload = sizeof(GpuPayload),
    .cmds = gpu_cmd_names, .ncmds = GPU_CMDS,
};
