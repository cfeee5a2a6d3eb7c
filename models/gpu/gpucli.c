/* gpucli.c: `archsim gpu info TRACEDIR` (what an Accel-Sim trace holds, kernel by kernel: the
 * launch, the warp instructions and their mix by functional unit) and `archsim gpu occupancy`
 * (NVIDIA's occupancy rules, occupancy.h, with GPGPU-Sim's max_cta beside them). */
#include "gpu.h"
#include "../../sim/stats.h"

#include <errno.h>
#include <stdio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "../../sim/cli/cli.h"
#include "../../sim/error.h"
#include "../../sim/input.h"
#include "../../sim/param.h"
#include "ptxlaunch.h"
#include "occupancy.h"
#include "sasstrace.h"

static int gpu_fail(GError *e)
{
    int code = archsim_exit_code(e);
    fprintf(stderr, "%s\n", e->message);
    g_error_free(e);
    return code;
}

/* ---- occupancy ---- */

static const CliHelp occ_help = {
    .cmd = "gpu occupancy",
    .usage = "archsim gpu occupancy --cc CC --threads N [--regs R] [--smem BYTES] [--carveout BYTES|P%]\n"
             " [--format text|csv]",
    .summary = "Resident blocks and warps per SM of a kernel, by the CUDA occupancy calculator's rules.",
    .details =
    "CC is 7.0, 7.5, 8.0, 8.6, 8.9 or 9.0. --threads is the block size (1 to 1024), --regs the\n"
    "registers per thread (0 to 255, default 0), --smem the shared memory per block, static plus\n"
    "dynamic (default 0; 48KiB, 100KiB ...; above 48 KiB the kernel is taken as opted in).\n"
    "--carveout is the preferred shared memory per SM, a size or a percentage of the maximum,\n"
    "rounded up to a carve-out the SM supports (default: the maximum).\n"
    "\n"
    "Prints the blocks each limit allows (warps, registers, shared memory, block slots), the\n"
    "active blocks and warps per SM, the occupancy and the limiter, and GPGPU-Sim's max_cta\n"
    "(what Accel-Sim admits) where its tested config for the CC gives another number.\n"
    "--format csv prints a header and one row:\n"
    "  active_blocks_per_sm,active_warps_per_sm,max_warps_per_sm,occupancy_percent,limiter,\n"
    "  blocks_limit_warps,blocks_limit_registers,blocks_limit_shared_memory,blocks_limit_block_slots\n"
    "(limiter: warps, registers, shared_memory or blocks, joined with + when several bind; a\n"
    "resource the block does not use is 'unlimited'). The rules and worked examples: docs/gpu.md.\n"
    "\n"
    "Example:\n"
    "  archsim gpu occupancy --cc 8.0 --threads 256 --regs 32 --smem 48KiB\n"
    "\n"
    "Exit status: 0 success, 64 bad command line.",
};

/* "8.6" (a major of one or two digits, a point, one minor digit) or "86", as in sm_86; nothing
 * else (sscanf's %u took signs, blanks and values past 2^32, so 429496737.6 read as 8.0). */
static bool parse_cc(const char *s, uint32_t *cc)
{
    unsigned major = 0, n = 0;
    for (; g_ascii_isdigit(s[n]) && n < 3; n++)
        major = major * 10 + (unsigned)(s[n] - '0');
    if (n >= 1 && n <= 2 && s[n] == '.' && g_ascii_isdigit(s[n + 1]) && s[n + 2] == '\0')
        *cc = major * 10 + (unsigned)(s[n + 1] - '0');
    else if (n == 2 && s[n] == '\0')
        *cc = major;
    else
        return false;
    return gpu_cc_limits(*cc) != NULL;
}

static bool parse_size(const char *opt, const char *text, uint64_t max, uint64_t *out)
{
    static const ParamSpec spec = { .name = "size", .type = PARAM_SIZE };
    char *problem = NULL;
    uint64_t v = 0;
    if (!param_parse_value(&spec, text, NULL, &v, &problem)) {
        cli_usage_error("gpu occupancy", "%s: %s", opt, problem);
        g_free(problem);
        return false;
    }
    if (v > max) {
        cli_usage_error("gpu occupancy", "%s: %s is more than %" G_GUINT64_FORMAT " bytes", opt,
                        text, max);
        return false;
    }
    *out = v;
    return true;
}

static const char *limit_text(uint32_t v, char buf[16])
{
    if (v == GPU_OCC_UNLIMITED)
        return "unlimited";
    g_snprintf(buf, 16, "%u", v);
    return buf;
}

static int occupancy_main(int argc, char **argv)
{
    char *cc_text = NULL, *smem_text = NULL, *carve_text = NULL, *format = NULL;
    gint64 threads = -1, regs = 0;
    GOptionEntry entries[] = {
        { "cc", 0, 0, G_OPTION_ARG_STRING, &cc_text, "compute capability: 7.0 7.5 8.0 8.6 8.9 9.0", "CC" },
        { "threads", 0, 0, G_OPTION_ARG_INT64, &threads, "threads per block (1 to 1024)", "N" },
        { "regs", 0, 0, G_OPTION_ARG_INT64, &regs, "registers per thread (0 to 255)", "R" },
        { "smem", 0, 0, G_OPTION_ARG_STRING, &smem_text, "shared memory per block (default 0)", "BYTES" },
        { "carveout", 0, 0, G_OPTION_ARG_STRING, &carve_text,
          "preferred shared memory per SM: a size or P% of the maximum", "BYTES|P%" },
        { "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or csv", "FORMAT" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int rc = cli_parse(&occ_help, entries, &argc, &argv);
    int ret = ARCHSIM_EXIT_USAGE;
    if (rc >= 0) {
        ret = rc;
        goto out;
    }
    if (!cli_check_empty("gpu occupancy", entries))
        goto out;
    if (argc > 1) {
        cli_usage_error("gpu occupancy", "unexpected argument '%s'", argv[1]);
        goto out;
    }
    uint32_t cc;
    if (!cc_text) {
        cli_usage_error("gpu occupancy", "--cc is required (one of %s)", gpu_cc_list());
        goto out;
    }
    if (!parse_cc(cc_text, &cc)) {
        cli_usage_error("gpu occupancy", "--cc %s: archsim knows %s", cc_text, gpu_cc_list());
        goto out;
    }
    const GpuCcLimits *lim = gpu_cc_limits(cc);
    if (threads < 0) {
        cli_usage_error("gpu occupancy", "--threads is required (threads per block)");
        goto out;
    }
    if (threads < 1 || threads > lim->max_threads_block) {
        cli_usage_error("gpu occupancy", "--threads %" G_GINT64_FORMAT ": a block has 1 to %u threads",
                        threads, lim->max_threads_block);
        goto out;
    }
    if (regs < 0 || regs > lim->max_regs_thread) {
        cli_usage_error("gpu occupancy", "--regs %" G_GINT64_FORMAT ": 0 to %u registers per thread "
                        "(the ISA's limit)", regs, lim->max_regs_thread);
        goto out;
    }
    bool csv = false;
    if (format && strcmp(format, "csv") == 0)
        csv = true;
    else if (format && strcmp(format, "text") != 0) {
        cli_usage_error("gpu occupancy", "--format %s: text or csv", format);
        goto out;
    }
    GpuOccInput in = { .threads = (uint32_t)threads, .regs = (uint32_t)regs, .carveout = -1 };
    if (smem_text && !parse_size("--smem", smem_text, (uint64_t)1 << 32, &in.smem))
        goto out;
    uint64_t max_sm = (uint64_t)lim->carveout_kib[lim->ncarveouts - 1] << 10;
    if (carve_text) {
        size_t n = strlen(carve_text);
        if (n > 1 && carve_text[n - 1] == '%') {
            char *num = g_strndup(carve_text, n - 1);
            char *end;
            double pct = g_ascii_strtod(num, &end);
            bool ok = *num && !*end && pct >= 0 && pct <= 100;
            g_free(num);
            if (!ok) {
                cli_usage_error("gpu occupancy", "--carveout %s: a percentage from 0%% to 100%%",
                                carve_text);
                goto out;
            }
            in.carveout = (int64_t)((double)max_sm * pct / 100.0 + 0.5);
        } else {
            uint64_t b;
            if (!parse_size("--carveout", carve_text, max_sm, &b))
                goto out;
            in.carveout = (int64_t)b;
        }
    }
    GpuOccResult r;
    gpu_occupancy(lim, &in, &r);
    char b1[16], b2[16], b3[16], b4[16];
    if (csv) {
        printf("active_blocks_per_sm,active_warps_per_sm,max_warps_per_sm,occupancy_percent,limiter,"
               "blocks_limit_warps,blocks_limit_registers,blocks_limit_shared_memory,"
               "blocks_limit_block_slots\n");
        printf("%u,%u,%u,%.2f,%s,%s,%s,%s,%s\n", r.active_blocks, r.active_warps, r.max_warps,
               r.occupancy_percent, gpu_limiter_name(r.limiters), limit_text(r.blocks_warps, b1),
               limit_text(r.blocks_regs, b2), limit_text(r.blocks_smem, b3),
               limit_text(r.blocks_slots, b4));
    } else {
        printf("compute capability %u.%u, %s: %u warps, %u blocks, %u registers and %" G_GUINT64_FORMAT
               " KiB shared memory per SM at most\n", cc / 10, cc % 10, lim->name, lim->max_warps,
               lim->max_blocks, lim->regs, max_sm >> 10);
        printf("block: %u threads = %u warps, %u registers per thread, %" G_GUINT64_FORMAT
               " B shared memory\n", in.threads, r.warps_per_block, in.regs, in.smem);
        printf("  warps          %9s blocks  (%u warps per SM / %u per block)\n",
               limit_text(r.blocks_warps, b1), lim->max_warps, r.warps_per_block);
        if (in.regs == 0)
            printf("  registers      %9s blocks  (no registers)\n", limit_text(r.blocks_regs, b2));
        else if (r.regs_over_block)
            printf("  registers      %9s blocks  (%u per warp x %u warps, rounded to 4, exceeds %u)\n",
                   limit_text(r.blocks_regs, b2), r.regs_per_warp, r.warps_per_block, lim->regs);
        else
            printf("  registers      %9s blocks  (%u per warp: %u warps per sub-partition x %u / %u)\n",
                   limit_text(r.blocks_regs, b2), r.regs_per_warp,
                   lim->regs / lim->sub_partitions / r.regs_per_warp, lim->sub_partitions,
                   r.warps_per_block);
        if (r.smem_over_block)
            printf("  shared memory  %9s blocks  (%" G_GUINT64_FORMAT " B per block exceeds the "
                   "%" G_GUINT64_FORMAT " B a block may have)\n", limit_text(r.blocks_smem, b3),
                   r.smem_per_block, r.smem_block_limit);
        else if (r.blocks_smem == GPU_OCC_UNLIMITED)
            printf("  shared memory  %9s blocks  (no shared memory)\n", limit_text(r.blocks_smem, b3));
        else
            printf("  shared memory  %9s blocks  (%" G_GUINT64_FORMAT " KiB carve-out / %"
                   G_GUINT64_FORMAT " B per block%s)\n", limit_text(r.blocks_smem, b3),
                   r.smem_per_sm >> 10, r.smem_per_block,
                   lim->smem_reserve ? ", 1 KiB reserve included" : "");
        printf("  block slots    %9s blocks\n", limit_text(r.blocks_slots, b4));
        printf("active: %u blocks, %u warps of %u: occupancy %.2f %%, limited by %s\n",
               r.active_blocks, r.active_warps, r.max_warps, r.occupancy_percent,
               gpu_limiter_name(r.limiters));
        const char *why;
        uint32_t gs = gpu_gpgpusim_max_cta(lim, &in, &why);
        if (lim->gs_threads == 0)
            printf("GPGPU-Sim max_cta: no Accel-Sim tested config for cc %u.%u\n", cc / 10, cc % 10);
        else if (gs != r.active_blocks)
            printf("GPGPU-Sim max_cta: %u blocks (limited by %s): Accel-Sim %s than the hardware "
                   "(docs/gpu.md, \"Occupancy\")\n", gs, why,
                   gs > r.active_blocks ? "admits more blocks" : "admits fewer blocks");
    }
    ret = fflush(stdout) == 0 && !ferror(stdout) ? 0 : ARCHSIM_EXIT_IOERR;
out:
    g_free(cc_text);
    g_free(smem_text);
    g_free(carve_text);
    g_free(format);
    return ret;
}

/* ---- info ---- */

static const CliHelp info_help = {
    .cmd = "gpu info",
    .usage = "archsim gpu info TRACEDIR|kernelslist.g|KERNEL.traceg [--format text|csv]",
    .summary = "What an Accel-Sim SASS trace holds, kernel by kernel.",
    .details =
    "Reads kernelslist.g (in TRACEDIR, or named) and every kernel trace it lists, or one\n"
    ".traceg file; plain, .gz or .xz. Prints per kernel: its name, grid, block, registers,\n"
    "shared memory, thread blocks (CTAs), warps, warp instructions (every line, mask 0\n"
    "included), thread instructions (active lanes), memory instructions, and the mix by\n"
    "functional unit (int, fp32, fp16, fp64, sfu, tensor, ldst, tex, branch, barrier,\n"
    "uniform; opcodes not in the SASS generation's table are listed as unknown). The format\n"
    "and its quirks: docs/gpu.md, \"Trace format\".\n"
    "\n"
    "--format csv prints one row per kernel: kernel_id,name,file,binary_version,tracer_version,\n"
    "grid_x,grid_y,grid_z,block_x,block_y,block_z,regs,shmem,ctas,warps,warp_insts,thread_insts,\n"
    "mem_insts,mask0_insts, then insts_<unit> for each unit above and unknown.\n"
    "\n"
    "Example:\n"
    "  archsim gpu info tests/gpu/traces/bfs-rodinia2-sm80-tracer-v3-k5-16\n"
    "\n"
    "Exit status: 0 success, 64 bad command line, 65 bad trace (file:line:col: problem),\n"
    "66 a trace is missing, 74 output could not be written.",
};

typedef struct {
    uint64_t ctas, warps, warp_insts, thread_insts, mem, mask0;
    uint64_t unit[GPU_UNIT_COUNT];
} KStats;

/* "Kernel" from "_Z6KernelP4Node...", else the name as it is (static buffer not used: newly
 * allocated). */
static char *short_name(const char *mangled)
{
    if (g_str_has_prefix(mangled, "_Z")) {
        const char *p = mangled + 2;
        if (*p == 'N') {
            return g_strdup(mangled);   /* nested names: leave them */
        }
        char *end;
        unsigned long n = strtoul(p, &end, 10);
        if (end != p && n > 0 && strlen(end) >= n)
            return g_strndup(end, n);
    }
    return g_strdup(mangled);
}

static bool info_kernel(const char *path, bool csv, GError **error)
{
    SassReader *r = sass_open(path, error);
    if (!r)
        return false;
    const SassKernel *k = sass_kernel(r);
    KStats s = { 0 };
    SassBlock b = { 0 };
    int got;
    GHashTable *unknown = g_hash_table_new(g_str_hash, g_str_equal);
    while ((got = sass_next_block(r, &b, error)) > 0) {
        s.ctas++;
        s.warps += b.nwarps;
        s.warp_insts += b.ninsts;
        for (uint64_t i = 0; i < b.ninsts; i++) {
            const SassInst *in = &b.insts[i];
            s.thread_insts += (uint64_t)__builtin_popcount(in->mask);
            s.mem += in->width > 0;
            s.mask0 += in->mask == 0;
            s.unit[in->unit]++;
            if (in->unit == GPU_UNIT_UNKNOWN)
                g_hash_table_add(unknown, (gpointer)sass_opcode(r, in->op));
        }
    }
    sass_block_clear(&b);
    if (got < 0) {
        g_hash_table_destroy(unknown);
        sass_close(r);
        return false;
    }
    char *base = g_path_get_basename(path);
    if (csv) {
        GString *nf = g_string_new(NULL);
        stats_csv_field(nf, k->name);
        g_string_append_c(nf, ',');
        stats_csv_field(nf, base);
        printf("%u,%s,%u,%u,%u,%u,%u,%u,%u,%u,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
               G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
               ",%" G_GUINT64_FORMAT, k->id, nf->str, k->binary_version, k->tracer_version,
               k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->nregs,
               k->shmem, s.ctas, s.warps, s.warp_insts, s.thread_insts, s.mem, s.mask0);
        for (int u = 0; u < GPU_UNIT_COUNT; u++)
            printf(",%" G_GUINT64_FORMAT, s.unit[u]);
        printf("\n");
        g_string_free(nf, TRUE);
    } else {
        char *sn = short_name(k->name);
        printf("kernel %u: %s (%s)\n", k->id, sn, k->name);
        g_free(sn);
        printf("  file %s: binary version %u (%s), tracer version %u%s\n", base, k->binary_version,
               gpu_generation(k->binary_version), k->tracer_version,
               k->lineinfo ? ", with source lines" : "");
        printf("  grid (%u,%u,%u) x block (%u,%u,%u): %u warps per block, %u registers per thread, "
               "%" G_GUINT64_FORMAT " B shared memory\n", k->grid[0], k->grid[1], k->grid[2],
               k->block[0], k->block[1], k->block[2], k->warps_per_block, k->nregs, k->shmem);
        printf("  CTAs %" G_GUINT64_FORMAT " (grid %" G_GUINT64_FORMAT "), warps %" G_GUINT64_FORMAT
               ", warp instructions %" G_GUINT64_FORMAT ", thread instructions %" G_GUINT64_FORMAT
               ", memory %" G_GUINT64_FORMAT ", mask 0 %" G_GUINT64_FORMAT "\n", s.ctas, k->nblocks,
               s.warps, s.warp_insts, s.thread_insts, s.mem, s.mask0);
        printf("  mix:");
        for (int u = 0; u < GPU_UNIT_COUNT; u++)
            if (s.unit[u])
                printf(" %s %" G_GUINT64_FORMAT " (%.1f%%)", gpu_unit_name((GpuUnitClass)u), s.unit[u],
                       100.0 * (double)s.unit[u] / (double)s.warp_insts);
        printf("\n");
        if (g_hash_table_size(unknown) > 0) {
            GList *keys = g_list_sort(g_hash_table_get_keys(unknown), (GCompareFunc)strcmp);
            printf("  not in the %s opcode table (run as int):", gpu_generation(k->binary_version));
            for (GList *l = keys; l; l = l->next)
                printf(" %s", (const char *)l->data);
            printf("\n");
            g_list_free(keys);
        }
    }
    g_free(base);
    g_hash_table_destroy(unknown);
    sass_close(r);
    return true;
}

static int info_main(int argc, char **argv)
{
    char *format = NULL;
    GOptionEntry entries[] = {
        { "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or csv", "FORMAT" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int rc = cli_parse(&info_help, entries, &argc, &argv);
    int ret = ARCHSIM_EXIT_USAGE;
    if (rc >= 0) {
        ret = rc;
        goto out;
    }
    if (!cli_check_empty("gpu info", entries))
        goto out;
    bool csv = false;
    if (format && strcmp(format, "csv") == 0)
        csv = true;
    else if (format && strcmp(format, "text") != 0) {
        cli_usage_error("gpu info", "--format %s: text or csv", format);
        goto out;
    }
    if (argc != 2) {
        cli_usage_error("gpu info", argc < 2 ? "missing TRACEDIR" : "unexpected argument '%s'",
                        argc < 2 ? "" : argv[2]);
        goto out;
    }
    char *path = sim_input_find(argv[1]);
    GError *e = NULL;
    if (csv) {
        printf("kernel_id,name,file,binary_version,tracer_version,grid_x,grid_y,grid_z,block_x,"
               "block_y,block_z,regs,shmem,ctas,warps,warp_insts,thread_insts,mem_insts,mask0_insts");
        for (int u = 0; u < GPU_UNIT_COUNT; u++)
            printf(",insts_%s", gpu_unit_name((GpuUnitClass)u));
        printf("\n");
    }
    bool is_trace = !g_file_test(path, G_FILE_TEST_IS_DIR) &&
                    (g_str_has_suffix(path, ".traceg") || g_str_has_suffix(path, ".traceg.xz") ||
                     g_str_has_suffix(path, ".traceg.gz"));
    if (is_trace) {
        if (!info_kernel(path, csv, &e)) {
            fflush(stdout);
            ret = gpu_fail(e);
            g_free(path);
            goto out;
        }
    } else {
        SassList *l = sass_list_read(path, &e);
        if (!l) {
            ret = gpu_fail(e);
            g_free(path);
            goto out;
        }
        uint64_t copies = 0, copy_bytes = 0;
        for (uint32_t i = 0; i < l->n; i++) {
            if (l->e[i].kind == SASS_LIST_MEMCPY) {
                copies++;
                copy_bytes = l->e[i].bytes > UINT64_MAX - copy_bytes ? UINT64_MAX
                                                                      : copy_bytes + l->e[i].bytes;
                continue;
            }
            if (!info_kernel(l->e[i].path, csv, &e)) {
                fflush(stdout);
                ret = gpu_fail(e);
                sass_list_free(l);
                g_free(path);
                goto out;
            }
        }
        if (!csv)
            printf("%u kernels, %" G_GUINT64_FORMAT " host-to-device copies (%" G_GUINT64_FORMAT
                   " B) in %s\n", l->kernels, copies, copy_bytes, l->path);
        sass_list_free(l);
    }
    g_free(path);
    ret = fflush(stdout) == 0 && !ferror(stdout) ? 0 : ARCHSIM_EXIT_IOERR;
out:
    g_free(format);
    return ret;
}

/* ---- archsim gpu plan ---- */

static const CliHelp plan_help = {
    .cmd = "gpu plan",
    .usage = "archsim gpu plan LAUNCH.yaml DIR",
    .summary = "Write a PTX launch's plan for a real GPU: its buffers' initial bytes and a text plan.",
    .details =
        "Reads LAUNCH.yaml with archsim's own reader and writes DIR/plan.txt (the PTX file, each\n"
        "buffer with its size, the outputs, each launch with its grid, block, shared memory and\n"
        "typed parameters) and DIR/NAME.init, each buffer's initial bytes, for\n"
        "tools/gpu-device/gpurun.c, which runs the same launch on a GPU through the CUDA driver\n"
        "API (tools/gpu-device-check.sh; docs/gpu-ptx.md). DIR must not exist.\n"
        "\n"
        "Exit status: 0 success, 64 bad command line, 65 bad PTX, 66 a missing file, 73 DIR exists,\n"
        "74 a write failed, 78 bad launch YAML.\n",
};

static int plan_main(int argc, char **argv)
{
    GOptionEntry entries[] = { { NULL, 0, 0, 0, NULL, NULL, NULL } };
    int prc = cli_parse(&plan_help, entries, &argc, &argv);
    if (prc >= 0)
        return prc;                 /* --help printed (0), or a bad option (64) */
    if (argc != 3)
        return cli_usage_error("gpu plan", argc < 3 ? "expected LAUNCH.yaml and DIR"
                                                    : "unexpected argument '%s'", argv[3]);
    GError *e = NULL;
    GpuLaunchSpec *s = gpu_launch_load(argv[1], &e);
    if (!s)
        return gpu_fail(e);
    const char *dir = argv[2];
    if (g_mkdir(dir, 0777) != 0) {
        fprintf(stderr, "archsim gpu plan: %s: %s\n", dir, errno == EEXIST ? "exists" : g_strerror(errno));
        gpu_launch_free(s);
        return ARCHSIM_EXIT_CANTCREAT;
    }
    int rc = 0;
    GString *plan = g_string_new(NULL);
    for (uint32_t i = 1; i < s->nl; i++)
        if (s->l[i].m != s->l[0].m) {
            fprintf(stderr, "archsim gpu plan: %s: the launches use more than one PTX file\n", argv[1]);
            rc = ARCHSIM_EXIT_DATAERR;
        }
    char *ptx = g_canonicalize_filename(s->l[0].m->path, NULL);
    g_string_append_printf(plan, "ptx %s\n", ptx);
    g_free(ptx);
    for (guint i = 0; rc == 0 && i < s->buffers->len; i++) {
        const PtxBuffer *b = g_ptr_array_index(s->buffers, i);
        char *f = g_strdup_printf("%s/%s.init", dir, b->name);
        if (!g_file_set_contents(f, (const char *)b->data, (gssize)b->bytes, NULL)) {
            fprintf(stderr, "archsim gpu plan: %s: cannot write\n", f);
            rc = ARCHSIM_EXIT_IOERR;
        }
        char *abs = g_canonicalize_filename(f, NULL);
        g_string_append_printf(plan, "buffer %s %" G_GUINT64_FORMAT " %s\n", b->name, b->bytes, abs);
        g_free(abs);
        g_free(f);
    }
    for (guint i = 0; i < s->outputs->len; i++)
        g_string_append_printf(plan, "output %s\n", ((const PtxBuffer *)g_ptr_array_index(s->outputs, i))->name);
    for (uint32_t k = 0; rc == 0 && k < s->nl; k++) {
        const PtxLaunch *l = &s->l[k];
        g_string_append_printf(plan, "launch %s %u %u %u %u %u %u %" G_GUINT64_FORMAT " %u\n",
                               l->e->name, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                               l->block[1], l->block[2], l->dyn_shared, l->e->params->len);
        for (guint i = 0; i < l->e->params->len; i++) {
            const PtxSym *p = &g_array_index(l->m->syms, PtxSym, g_array_index(l->e->params, uint32_t, i));
            const uint8_t *v = l->params + p->offset;
            uint64_t u = 0;
            memcpy(&u, v, MIN(p->size, 8u));
            const PtxBuffer *buf = NULL;
            for (guint j = 0; p->size == 8 && j < s->buffers->len; j++)
                if (((const PtxBuffer *)g_ptr_array_index(s->buffers, j))->addr == u)
                    buf = g_ptr_array_index(s->buffers, j);
            PtxType t = (PtxType)p->type;
            if (buf) {
                g_string_append_printf(plan, "param buf %s\n", buf->name);
            } else if (t == PTX_T_F32) {
                float f;
                memcpy(&f, v, 4);
                g_string_append_printf(plan, "param f32 %.9g\n", (double)f);
            } else if (t == PTX_T_F64) {
                double d;
                memcpy(&d, v, 8);
                g_string_append_printf(plan, "param f64 %.17g\n", d);
            } else if (p->size == 4 || p->size == 8) {
                bool sg = t == PTX_T_S32 || t == PTX_T_S64;
                if (sg)
                    g_string_append_printf(plan, "param s%u %" G_GINT64_FORMAT "\n",
                                           (unsigned)p->size * 8, p->size == 4 ? (int64_t)(int32_t)u : (int64_t)u);
                else
                    g_string_append_printf(plan, "param u%u %" G_GUINT64_FORMAT "\n",
                                           (unsigned)p->size * 8, u);
            } else {
                fprintf(stderr, "archsim gpu plan: %s: parameter %s of %" G_GUINT64_FORMAT
                        " bytes: gpurun passes 4- and 8-byte ones\n", argv[1], p->name, p->size);
                rc = ARCHSIM_EXIT_DATAERR;
                break;
            }
        }
    }
    if (rc == 0) {
        char *f = g_strdup_printf("%s/plan.txt", dir);
        if (!g_file_set_contents(f, plan->str, (gssize)plan->len, NULL)) {
            fprintf(stderr, "archsim gpu plan: %s: cannot write\n", f);
            rc = ARCHSIM_EXIT_IOERR;
        }
        g_free(f);
    }
    g_string_free(plan, TRUE);
    gpu_launch_free(s);
    return rc;
}

static const char gpu_usage[] =
    "Usage: archsim gpu run LAUNCH.yaml --machine CONFIG [-o DIR] [RUN OPTIONS]\n"
    "       archsim gpu plan LAUNCH.yaml DIR\n"
    "       archsim gpu info TRACEDIR|kernelslist.g|KERNEL.traceg [--format text|csv]\n"
    "       archsim gpu occupancy --cc CC --threads N [--regs R] [--smem BYTES] [--carveout BYTES|P%]\n"
    "                             [--format text|csv]\n"
    "\n"
    "The GPU model's tools: PTX kernels, SASS traces and occupancy (docs/gpu.md, gpu-ptx.md).\n"
    "\n"
    "Options:\n"
    "  -h, --help  Show this help and exit\n"
    "\n"
    "Subcommands:\n"
    "  run        a PTX kernel launch (nvcc -ptx output, a launch YAML) run with real values\n"
    "             on a GPU config's SMs and memory side; outputs and stats in a run directory\n"
    "  plan       a launch's buffers and typed parameters for a real GPU (tools/gpu-device)\n"
    "  info       per kernel of a trace: launch, CTAs, warps, warp and thread instructions,\n"
    "             the mix by functional unit\n"
    "  occupancy  resident blocks and warps per SM by the CUDA occupancy calculator's rules,\n"
    "             and GPGPU-Sim's max_cta where it differs\n"
    "\n"
    "`archsim gpu SUBCOMMAND --help` shows a subcommand's options.\n"
    "\n"
    "Exit status: 0 success, 64 bad command line, 65 bad trace (file:line:col: problem),\n"
    "66 trace missing or unreadable, 74 output could not be written.\n";

int gpu_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(gpu_usage, stderr);
        return ARCHSIM_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(gpu_usage, stdout);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : ARCHSIM_EXIT_IOERR;
    }
    if (strcmp(argv[1], "info") == 0)
        return info_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "occupancy") == 0)
        return occupancy_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "plan") == 0)
        return plan_main(argc - 1, argv + 1);
    return cli_usage_error("gpu", "unknown command '%s' (run, plan, info, occupancy)", argv[1]);
}
