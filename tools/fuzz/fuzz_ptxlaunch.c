/* fuzz_ptxlaunch.c: fuzz harness for the PTX launch YAML (models/gpu/ptxlaunch.c,
 * docs/gpu-ptx.md "The launch"): the kernel file and entry, grid, block, shared memory, buffers
 * with their initial values, parameters, outputs, `launches:` and block order.
 *
 * Input (tests/fuzz/ptxlaunch/README.md): one launch YAML. The harness copies every PTX file of
 * workloads/gpu (and tests/gpu/ptx's, with its .bin data) into a scratch directory D and D/a/,
 * then loads the input as D/a/launch.yaml, so `kernel: saxpy.ptx` and `kernel: ../reduce.ptx`
 * both resolve; run from the repository's root. Inputs whose buffers would hold more than 1 MiB
 * are skipped (the launch's limits are 4 GiB a buffer and 16 GiB in all: a fuzzer's 16 GiB
 * would be the harness's time, not a finding). abort() when an oracle fails:
 *  - a refused launch has ARCHSIM_CONFIG_ERROR, 78 (66 for a kernel file that is missing) and
 *    "D/a/launch.yaml:LINE:COL: " inside the file;
 *  - an accepted one has 1 to 1,024 launches within CUDA's limits (block <= 1,024 threads, z <=
 *    64, grid y and z <= 65,535), each launch's parameters as many as its entry's, buffers that
 *    do not overlap, outputs among them;
 *  - each of the first 8 launches runs (at most 4 blocks, 4,000 warp instructions a block) to its
 *    end or to an error in the trace domain that starts with a path; loading and running again
 *    gives the same bytes in every buffer; the outputs written and read back are those bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../../models/gpu/ptxlaunch.h"
#include "../../sim/config.h"
#include "../../sim/error.h"

#define FUZZ_NAME "fuzz_ptxlaunch"
#include "fuzz.h"

static char *scratch;        /* D */
static char *yaml_path;      /* D/a/launch.yaml */

static void copy_into(const char *src, const char *dir)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(src, &text, &len, NULL)) {
        fprintf(stderr, FUZZ_NAME ": cannot read %s (run from the repository's root)\n", src);
        exit(2);
    }
    char *base = g_path_get_basename(src);
    char *dst = g_build_filename(dir, base, NULL);
    if (!g_file_set_contents(dst, text, (gssize)len, NULL)) {
        fprintf(stderr, FUZZ_NAME ": cannot write %s\n", dst);
        exit(2);
    }
    g_free(dst);
    g_free(base);
    g_free(text);
}

static void copy_glob(const char *dir_in, const char *suffix, int depth)
{
    GDir *d = g_dir_open(dir_in, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
        char *p = g_build_filename(dir_in, n, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR)) {
            if (depth > 0)
                copy_glob(p, suffix, depth - 1);
        } else if (g_str_has_suffix(n, suffix)) {
            char *a = g_build_filename(scratch, "a", NULL);
            copy_into(p, scratch);
            copy_into(p, a);
            g_free(a);
        }
        g_free(p);
    }
    if (d)
        g_dir_close(d);
}

static void setup(void)
{
    GError *e = NULL;
    scratch = g_dir_make_tmp("fuzz_ptxlaunch-XXXXXX", &e);
    if (!scratch) {
        fprintf(stderr, FUZZ_NAME ": %s\n", e->message);
        exit(2);
    }
    char *a = g_build_filename(scratch, "a", NULL);
    g_mkdir(a, 0700);
    g_free(a);
    copy_glob("workloads/gpu", ".ptx", 1);
    copy_glob("tests/gpu/ptx", ".ptx", 0);
    copy_glob("tests/gpu/ptx", ".bin", 0);
    yaml_path = g_build_filename(scratch, "a", "launch.yaml", NULL);
}

static void remove_dir(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name(d))) {
        char *p = g_build_filename(dir, n, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
            remove_dir(p);
        else
            g_unlink(p);
        g_free(p);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(dir);
}

/* The bytes the buffers would hold, from the YAML alone (no allocation); UINT64_MAX if huge. */
static uint64_t buffer_bytes(const char *text)
{
    CfgNode *root = cfg_load_string("pre.yaml", text, NULL, NULL);
    uint64_t total = 0;
    const CfgNode *bufs = root && root->kind == CFG_MAP ? cfg_map_get(root, "buffers") : NULL;
    for (guint i = 0; bufs && bufs->kind == CFG_MAP && i < bufs->items->len; i++) {
        const CfgNode *b = g_ptr_array_index(bufs->items, i);
        const CfgNode *c = b && b->kind == CFG_MAP ? cfg_map_get(b, "count") : NULL;
        if (c && c->kind == CFG_SCALAR) {
            unsigned long long v = strtoull(c->scalar, NULL, 0);
            total = v > (1ull << 40) || total > (1ull << 40) ? UINT64_MAX : total + v * 8;
        }
    }
    cfg_node_free(root);
    return total;
}

/* Runs every launch of s in order (bounded); returns the buffers' bytes, concatenated. */
static GByteArray *run_all(GpuLaunchSpec *s)
{
    for (uint32_t i = 0; i < s->nl && i < 8; i++) {
        PtxLaunch *l = &s->l[i];
        l->max_warp_insts = 4000;
        GError *err = NULL;
        PtxRun *r = ptx_run_new(l, &err);
        if (!r) {
            fuzz_check(err != NULL, yaml_path, "a refused launch without an error");
            g_error_free(err);
            continue;
        }
        SassBlock b = { 0 };
        int got = 0;
        for (int blocks = 0; blocks < 4 && (got = ptx_run_next_block(r, &b, &err)) > 0; blocks++)
            ;
        if (got < 0) {
            fuzz_check(err != NULL, yaml_path, "a failed block without an error");
            fuzz_check(err->domain == ARCHSIM_TRACE_ERROR, yaml_path,
                       "a run's error outside the trace domain");
            fuzz_check(err->message[0] == '/' || g_str_has_prefix(err->message, "workloads") ||
                       strchr(err->message, ':') != NULL, yaml_path,
                       "a run's error that does not say where");
            g_error_free(err);
        }
        sass_block_clear(&b);
        ptx_run_free(r);
    }
    GByteArray *all = g_byte_array_new();
    for (guint i = 0; i < s->buffers->len; i++) {
        const PtxBuffer *b = g_ptr_array_index(s->buffers, i);
        g_byte_array_append(all, b->data, (guint)b->bytes);
    }
    return all;
}

static void check_spec(const GpuLaunchSpec *s)
{
    fuzz_check(s->nl >= 1 && s->nl <= 1024 && s->m != NULL, yaml_path, "launch count");
    for (uint32_t i = 0; i < s->nl; i++) {
        const PtxLaunch *l = &s->l[i];
        uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
        fuzz_check(threads >= 1 && threads <= 1024 && l->block[2] <= 64, yaml_path,
                   "a block beyond CUDA's limits");
        fuzz_check(l->grid[0] >= 1 && l->grid[0] <= INT32_MAX && l->grid[1] >= 1 &&
                   l->grid[1] <= 65535 && l->grid[2] >= 1 && l->grid[2] <= 65535, yaml_path,
                   "a grid beyond CUDA's limits");
        fuzz_check(l->e != NULL && l->params != NULL && l->buffers == s->buffers, yaml_path,
                   "a launch without its entry, parameters or buffers");
    }
    for (guint i = 0; i < s->buffers->len; i++) {
        const PtxBuffer *a = g_ptr_array_index(s->buffers, i);
        fuzz_check(a->bytes == a->count * ptx_dtype_bytes(a->dtype), yaml_path, "buffer size");
        for (guint j = i + 1; j < s->buffers->len; j++) {
            const PtxBuffer *b = g_ptr_array_index(s->buffers, j);
            fuzz_check(!strcmp(a->name, b->name) == 0, yaml_path, "two buffers of one name");
            fuzz_check(a->bytes == 0 || b->bytes == 0 || a->addr + a->bytes <= b->addr ||
                       b->addr + b->bytes <= a->addr, yaml_path, "buffers overlap");
        }
    }
    for (guint i = 0; i < s->outputs->len; i++) {
        bool found = false;
        for (guint j = 0; j < s->buffers->len; j++)
            found |= g_ptr_array_index(s->outputs, i) == g_ptr_array_index(s->buffers, j);
        fuzz_check(found, yaml_path, "an output that is not a buffer");
    }
}

static void fuzz_one(const char *input)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &text, &len, NULL)) {
        fprintf(stderr, FUZZ_NAME ": cannot read %s\n", input);
        exit(2);
    }
    if (strlen(text) != len || buffer_bytes(text) > (1u << 20)) {
        if (getenv("FUZZ_VERBOSE"))
            fprintf(stderr, FUZZ_NAME ": %s: skipped (a NUL, or buffers over 1 MiB)\n", input);
        g_free(text);
        return;
    }
    long lines = fuzz_yaml_lines(text, len);
    if (!g_file_set_contents(yaml_path, text, (gssize)len, NULL)) {
        fprintf(stderr, FUZZ_NAME ": cannot write %s\n", yaml_path);
        exit(2);
    }
    g_free(text);
    GError *e = NULL;
    GpuLaunchSpec *s = gpu_launch_load(yaml_path, &e);
    if (!s) {
        fuzz_check(e != NULL, input, "refused without an error");
        bool where = fuzz_has_position(e->message, yaml_path, lines);
        if (!where || e->domain != ARCHSIM_CONFIG_ERROR)
            fprintf(stderr, FUZZ_NAME ": %s: %s (domain %s, code %d)\n", input, e->message,
                    g_quark_to_string(e->domain), e->code);
        fuzz_check(e->domain == ARCHSIM_CONFIG_ERROR &&
                   (e->code == ARCHSIM_EXIT_CONFIG || e->code == ARCHSIM_EXIT_NOINPUT), input,
                   "a refused launch whose error is not the config's 78 or 66");
        fuzz_check(where, input, "an error without FILE:LINE:COL inside the launch file");
        if (getenv("FUZZ_VERBOSE"))
            fprintf(stderr, FUZZ_NAME ": %s: refused: %s\n", input, e->message);
        g_error_free(e);
        return;
    }
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, FUZZ_NAME ": %s: %u launches, %u buffers\n", input, s->nl,
                s->buffers->len);
    check_spec(s);
    GByteArray *first = run_all(s);
    /* the outputs, written and read back */
    char *out = g_build_filename(scratch, "out", NULL);
    g_mkdir(out, 0700);
    fuzz_check(gpu_launch_write_outputs(s, out, &e), input, "outputs not written");
    for (guint i = 0; i < s->outputs->len; i++) {
        const PtxBuffer *b = g_ptr_array_index(s->outputs, i);
        char *name = g_strconcat(b->name, ".bin", NULL);
        char *p = g_build_filename(out, name, NULL);
        char *back = NULL;
        gsize blen = 0;
        fuzz_check(g_file_get_contents(p, &back, &blen, NULL) && blen == b->bytes &&
                   (blen == 0 || memcmp(back, b->data, blen) == 0), input,
                   "an output file that is not its buffer's bytes");
        g_free(back);
        g_free(p);
        g_free(name);
    }
    remove_dir(out);
    g_free(out);
    gpu_launch_free(s);
    /* again, from the file: the same bytes */
    s = gpu_launch_load(yaml_path, &e);
    fuzz_check(s != NULL, input, "a launch that loads once and not twice");
    GByteArray *second = run_all(s);
    fuzz_check(first->len == second->len &&
               (first->len == 0 || memcmp(first->data, second->data, first->len) == 0), input,
               "two runs of one launch leave different bytes");
    g_byte_array_free(first, TRUE);
    g_byte_array_free(second, TRUE);
    gpu_launch_free(s);
}

static void cleanup(void)
{
    remove_dir(scratch);
    g_free(scratch);
    g_free(yaml_path);
}

int main(int argc, char **argv)
{
    if (!scratch) {          /* once: libFuzzer calls main for every input */
        setup();
        atexit(cleanup);
    }
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
