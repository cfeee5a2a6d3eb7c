/* ptxlaunch.c: the launch YAML (ptxlaunch.h). */
#include "ptxlaunch.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/input.h"

static G_GNUC_PRINTF(3, 4) bool lerr(GError **error, const CfgNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_set_error_va(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, n, fmt, ap);
    va_end(ap);
    return false;
}

static bool scalar_u64(const CfgNode *n, uint64_t max, uint64_t *v, const char *what, GError **error)
{
    if (!n || n->kind != CFG_SCALAR)
        return lerr(error, n, "%s: expected a number", what);
    char *end;
    errno = 0;
    unsigned long long x = strtoull(n->scalar, &end, 0);
    if (end == n->scalar || *end || errno || n->scalar[0] == '-' || x > max)
        return lerr(error, n, "%s: expected a whole number from 0 to %" G_GUINT64_FORMAT ", got "
                    "'%s'", what, max, n->scalar);
    *v = x;
    return true;
}

/* [x, y, z] with 1 to 3 entries, each >= 1 */
static bool dim3(const CfgNode *n, uint32_t d[3], uint64_t max, const char *what, GError **error)
{
    d[0] = d[1] = d[2] = 1;
    if (!n)
        return lerr(error, n, "%s: missing", what);
    if (n->kind == CFG_SCALAR) {
        uint64_t v;
        if (!scalar_u64(n, max, &v, what, error))
            return false;
        if (v == 0)
            return lerr(error, n, "%s: must be at least 1", what);
        d[0] = (uint32_t)v;
        return true;
    }
    if (n->kind != CFG_SEQ || n->items->len < 1 || n->items->len > 3)
        return lerr(error, n, "%s: expected [x, y, z] (one to three numbers)", what);
    for (guint i = 0; i < n->items->len; i++) {
        uint64_t v;
        const CfgNode *it = g_ptr_array_index(n->items, i);
        if (!scalar_u64(it, max, &v, what, error))
            return false;
        if (v == 0)
            return lerr(error, it, "%s: must be at least 1", what);
        d[i] = (uint32_t)v;
    }
    return true;
}

/* splitmix64: the generator of init: random:SEED, documented so that a reference can redo it */
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void put_value(PtxBuffer *b, uint64_t i, double v)
{
    uint8_t *p = b->data + i * ptx_dtype_bytes(b->dtype);
    switch (b->dtype) {
    case PTX_D_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case PTX_D_F64: memcpy(p, &v, 8); break;
    case PTX_D_F16: {
        /* through float, rounded to nearest even */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 0xff, m = u & 0x7fffff;
        uint16_t h;
        if (e == 0xff)
            h = (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
        else if ((int)e - 112 >= 31)
            h = (uint16_t)(s | 0x7c00);
        else if ((int)e - 112 <= 0)
            h = (uint16_t)s;            /* tiny values flush to zero in initial data */
        else {
            h = (uint16_t)(s | (e - 112) << 10 | m >> 13);
            if ((m & 0x1fff) > 0x1000 || ((m & 0x1fff) == 0x1000 && (h & 1)))
                h++;
        }
        memcpy(p, &h, 2);
        break;
    }
    case PTX_D_S32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case PTX_D_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case PTX_D_S64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case PTX_D_U64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case PTX_D_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    default: break;
    }
}

static bool is_float_d(PtxDtype d) { return d == PTX_D_F32 || d == PTX_D_F64 || d == PTX_D_F16; }

static bool init_buffer(PtxBuffer *b, const CfgNode *n, const char *dir, GError **error)
{
    const char *s = n ? n->scalar : "zero";
    if (n && n->kind != CFG_SCALAR)
        return lerr(error, n, "init: expected zero, iota, const:V, random:SEED or file:PATH");
    if (strcmp(s, "zero") == 0)
        return true;
    if (strcmp(s, "iota") == 0) {
        for (uint64_t i = 0; i < b->count; i++)
            put_value(b, i, (double)i);
        return true;
    }
    if (g_str_has_prefix(s, "const:")) {
        char *end;
        errno = 0;
        double v = g_ascii_strtod(s + 6, &end);
        if (end == s + 6 || *end || errno || !isfinite(v))
            return lerr(error, n, "init: const:V needs a number, got '%s'", s + 6);
        for (uint64_t i = 0; i < b->count; i++)
            put_value(b, i, v);
        return true;
    }
    if (g_str_has_prefix(s, "random:")) {
        char *end;
        errno = 0;
        unsigned long long seed = strtoull(s + 7, &end, 10);
        if (end == s + 7 || *end || errno)
            return lerr(error, n, "init: random:SEED needs a whole number, got '%s'", s + 7);
        uint64_t x = seed;
        for (uint64_t i = 0; i < b->count; i++) {
            uint64_t z = splitmix(&x);
            /* floats: uniform [0,1) from the top 24 bits; integers: the low bits of the
             * dtype's width (u8 0-255, u32 0..2^32-1, ...) */
            if (is_float_d(b->dtype))
                put_value(b, i, (double)(z >> 40) * (1.0 / 16777216.0));
            else
                memcpy(b->data + i * ptx_dtype_bytes(b->dtype), &z, ptx_dtype_bytes(b->dtype));
        }
        return true;
    }
    if (g_str_has_prefix(s, "file:")) {
        char *path = g_path_is_absolute(s + 5) ? g_strdup(s + 5) : g_build_filename(dir, s + 5, NULL);
        GString *text = g_string_new(NULL);
        GError *e = NULL;
        bool ok = sim_read_regular(path, b->bytes, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, text,
                                   &e);
        if (ok && text->len != b->bytes) {
            lerr(error, n, "init: %s holds %" G_GSIZE_FORMAT " bytes; %s is %" G_GUINT64_FORMAT
                 " x %s = %" G_GUINT64_FORMAT " bytes", path, text->len, b->name, b->count,
                 ptx_dtype_name(b->dtype), b->bytes);
            ok = false;
        } else if (ok) {
            memcpy(b->data, text->str, b->bytes);
        } else {
            lerr(error, n, "init: %s", e->message);
            g_error_free(e);
        }
        g_string_free(text, TRUE);
        g_free(path);
        return ok;
    }
    return lerr(error, n, "init: '%s': expected zero, iota, const:V, random:SEED or file:PATH", s);
}

PtxBuffer *gpu_launch_buffer(const GpuLaunchSpec *s, const char *name)
{
    for (guint i = 0; i < s->l.buffers->len; i++) {
        PtxBuffer *b = g_ptr_array_index(s->l.buffers, i);
        if (strcmp(b->name, name) == 0)
            return b;
    }
    return NULL;
}

void gpu_launch_free(GpuLaunchSpec *s)
{
    if (!s)
        return;
    g_free(s->path);
    ptx_module_free(s->m);
    if (s->l.buffers)
        g_ptr_array_free(s->l.buffers, TRUE);
    if (s->outputs)
        g_ptr_array_free(s->outputs, TRUE);
    g_free(s->l.params);
    g_free(s);
}

static const char *const launch_keys[] = {
    "kernel", "entry", "grid", "block", "shared", "buffers", "params", "outputs", "registers",
    "block_order", NULL,
};

GpuLaunchSpec *gpu_launch_load(const char *path, GError **error)
{
    CfgNode *root = cfg_load_file(path, NULL, error);
    if (!root)
        return NULL;
    GpuLaunchSpec *s = g_new0(GpuLaunchSpec, 1);
    s->path = g_strdup(path);
    s->l.buffers = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_buffer_free);
    s->outputs = g_ptr_array_new();
    s->registers = 32;
    char *dir = g_path_get_dirname(path);
    bool ok = false;
    for (guint i = 0; i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        bool known = false;
        for (int j = 0; launch_keys[j]; j++)
            known |= strcmp(k->scalar, launch_keys[j]) == 0;
        if (!known) {
            lerr(error, k, "unknown key '%s' in a launch (kernel, entry, grid, block, shared, "
                 "buffers, params, outputs, registers, block_order)", k->scalar);
            goto out;
        }
    }
    const CfgNode *kn = cfg_map_get(root, "kernel");
    if (!kn || kn->kind != CFG_SCALAR) {
        lerr(error, kn ? kn : root, "kernel: the PTX file (relative to this file) is required");
        goto out;
    }
    char *ptx = g_path_is_absolute(kn->scalar) ? g_strdup(kn->scalar)
                                               : g_build_filename(dir, kn->scalar, NULL);
    if (!g_file_test(ptx, G_FILE_TEST_EXISTS)) {
        char *where = cfg_node_where(kn);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: kernel: %s: no such "
                    "file", where, ptx);
        g_free(where);
        g_free(ptx);
        goto out;
    }
    s->m = ptx_parse_file(ptx, error);
    g_free(ptx);
    if (!s->m)
        goto out;
    const CfgNode *en = cfg_map_get(root, "entry");
    if (en && en->kind != CFG_SCALAR) {
        lerr(error, en, "entry: expected the .entry's name");
        goto out;
    }
    GError *e = NULL;
    s->l.e = ptx_entry(s->m, en ? en->scalar : NULL, &e);
    if (!s->l.e) {
        lerr(error, en ? en : kn, "%s", e->message);
        g_error_free(e);
        goto out;
    }
    s->l.m = s->m;
    if (!dim3(cfg_map_get(root, "grid"), s->l.grid, INT32_MAX, "grid", error) ||
        !dim3(cfg_map_get(root, "block"), s->l.block, 1024, "block", error))
        goto out;
    if ((uint64_t)s->l.block[0] * s->l.block[1] * s->l.block[2] > 1024) {
        lerr(error, cfg_map_get(root, "block"), "block: %u x %u x %u threads; CUDA allows at most "
             "1024 per block", s->l.block[0], s->l.block[1], s->l.block[2]);
        goto out;
    }
    if (s->l.block[2] > 64 || (uint64_t)s->l.grid[1] > 65535 || s->l.grid[2] > 65535) {
        lerr(error, cfg_map_get(root, "grid"), "grid/block: beyond CUDA's limits (block z <= 64, "
             "grid y and z <= 65535)");
        goto out;
    }
    const CfgNode *sh = cfg_map_get(root, "shared");
    if (sh && !scalar_u64(sh, 228 << 10, &s->l.dyn_shared, "shared", error))
        goto out;
    const CfgNode *rg = cfg_map_get(root, "registers");
    if (rg) {
        uint64_t v;
        if (!scalar_u64(rg, 255, &v, "registers", error))
            goto out;
        s->registers = (uint32_t)MAX(v, 1u);
    }
    const CfgNode *bo = cfg_map_get(root, "block_order");
    if (bo) {
        if (bo->kind == CFG_SCALAR && strcmp(bo->scalar, "linear") == 0) {
            s->l.order_seed = 0;
        } else if (bo->kind == CFG_SCALAR && g_str_has_prefix(bo->scalar, "shuffle:")) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(bo->scalar + 8, &end, 10);
            if (end == bo->scalar + 8 || *end || errno || v == 0) {
                lerr(error, bo, "block_order: shuffle:SEED needs a seed >= 1");
                goto out;
            }
            s->l.order_seed = v;
        } else {
            lerr(error, bo, "block_order: expected linear or shuffle:SEED");
            goto out;
        }
    }
    /* buffers */
    const CfgNode *bufs = cfg_map_get(root, "buffers");
    if (bufs && bufs->kind != CFG_MAP) {
        lerr(error, bufs, "buffers: expected a map of NAME: {dtype, count, init}");
        goto out;
    }
    uint64_t total = 0;
    for (guint i = 0; bufs && i < bufs->keys->len; i++) {
        const CfgNode *bk = g_ptr_array_index(bufs->keys, i), *bv = g_ptr_array_index(bufs->items, i);
        if (i >= PTX_LAUNCH_MAX_BUFFERS) {
            lerr(error, bk, "more than %d buffers", PTX_LAUNCH_MAX_BUFFERS);
            goto out;
        }
        if (!bv || bv->kind != CFG_MAP) {
            lerr(error, bv ? bv : bk, "buffer %s: expected {dtype: ..., count: ..., init: ...}",
                 bk->scalar);
            goto out;
        }
        for (guint j = 0; j < bv->keys->len; j++) {
            const CfgNode *kk = g_ptr_array_index(bv->keys, j);
            if (strcmp(kk->scalar, "dtype") && strcmp(kk->scalar, "count") &&
                strcmp(kk->scalar, "init")) {
                lerr(error, kk, "buffer %s: unknown key '%s' (dtype, count, init)", bk->scalar,
                     kk->scalar);
                goto out;
            }
        }
        const CfgNode *dt = cfg_map_get(bv, "dtype");
        PtxDtype d;
        if (!dt || dt->kind != CFG_SCALAR || !ptx_dtype_parse(dt->scalar, &d)) {
            lerr(error, dt ? dt : bv, "buffer %s: dtype: expected f32, f64, f16, s32, u32, s64, "
                 "u64 or u8", bk->scalar);
            goto out;
        }
        uint64_t count;
        if (!scalar_u64(cfg_map_get(bv, "count"), PTX_MAX_BUFFER / ptx_dtype_bytes(d), &count,
                        "count", error))
            goto out;
        total += count * ptx_dtype_bytes(d);
        if (total > PTX_MAX_DEVICE) {
            lerr(error, bv, "the buffers hold more than %" G_GUINT64_FORMAT " GiB, archsim's limit",
                 PTX_MAX_DEVICE >> 30);
            goto out;
        }
        PtxBuffer *b = ptx_buffer_new(bk->scalar, d, count);
        g_ptr_array_add(s->l.buffers, b);
        if (!init_buffer(b, cfg_map_get(bv, "init"), dir, error))
            goto out;
    }
    /* parameters: numbers, or buffer names (device pointers), in the entry's order */
    const CfgNode *ps = cfg_map_get(root, "params");
    const PtxEntry *ent = s->l.e;
    guint np = ps && ps->kind == CFG_SEQ ? ps->items->len : 0;
    if (ps && ps->kind != CFG_SEQ) {
        lerr(error, ps, "params: expected a list [number or buffer name, ...]");
        goto out;
    }
    if (np != ent->params->len) {
        lerr(error, ps ? ps : root, "params: %s takes %u parameters, the launch gives %u",
             ent->name, ent->params->len, np);
        goto out;
    }
    /* the buffers' addresses come from the run; place them the same way here */
    ptx_place_buffers(s->l.buffers);
    s->l.params = g_malloc0(MAX(ent->param_bytes, 1));
    for (guint i = 0; i < np; i++) {
        const CfgNode *pv = g_ptr_array_index(ps->items, i);
        const PtxSym *sym = &g_array_index(s->m->syms, PtxSym, g_array_index(ent->params, uint32_t, i));
        uint8_t *dst = s->l.params + sym->offset;
        if (!pv || pv->kind != CFG_SCALAR) {
            lerr(error, pv ? pv : ps, "params: each is a number or a buffer name");
            goto out;
        }
        PtxBuffer *b = pv->quoted ? NULL : gpu_launch_buffer(s, pv->scalar);
        PtxType t = (PtxType)sym->type;
        if (b) {
            if (sym->size != 8) {
                lerr(error, pv, "params: %s is a %" G_GUINT64_FORMAT "-byte parameter; a buffer "
                     "passes an 8-byte pointer", sym->name, sym->size);
                goto out;
            }
            memcpy(dst, &b->addr, 8);
            continue;
        }
        char *end;
        errno = 0;
        if (t == PTX_T_F32 || t == PTX_T_F64) {
            double v = g_ascii_strtod(pv->scalar, &end);
            if (end == pv->scalar || *end || errno) {
                lerr(error, pv, "params: %s is .%s: expected a number (or a buffer name), got "
                     "'%s'", sym->name, ptx_type_name(t), pv->scalar);
                goto out;
            }
            if (t == PTX_T_F32) {
                float f = (float)v;
                memcpy(dst, &f, 4);
            } else {
                memcpy(dst, &v, 8);
            }
        } else {
            bool neg = pv->scalar[0] == '-';
            long long sv = 0;
            unsigned long long uv = 0;
            if (neg)
                sv = strtoll(pv->scalar, &end, 0);
            else
                uv = strtoull(pv->scalar, &end, 0);
            if (end == pv->scalar || *end || errno) {
                lerr(error, pv, "params: %s is .%s: expected a whole number or a buffer name, got "
                     "'%s'", sym->name, ptx_type_name(t), pv->scalar);
                goto out;
            }
            uint64_t v = neg ? (uint64_t)sv : uv;
            uint32_t bytes = (uint32_t)MIN(sym->size, 8u);
            if (bytes < 8 && !neg && v >> (bytes * 8)) {
                lerr(error, pv, "params: %s (%u bytes) cannot hold %s", sym->name, bytes,
                     pv->scalar);
                goto out;
            }
            memcpy(dst, &v, bytes);
        }
    }
    const CfgNode *outs = cfg_map_get(root, "outputs");
    if (outs && outs->kind != CFG_SEQ) {
        lerr(error, outs, "outputs: expected a list of buffer names");
        goto out;
    }
    for (guint i = 0; outs && i < outs->items->len; i++) {
        const CfgNode *o = g_ptr_array_index(outs->items, i);
        PtxBuffer *b = o && o->kind == CFG_SCALAR ? gpu_launch_buffer(s, o->scalar) : NULL;
        if (!b) {
            lerr(error, o ? o : outs, "outputs: '%s' is not a buffer of this launch",
                 o && o->kind == CFG_SCALAR ? o->scalar : "?");
            goto out;
        }
        g_ptr_array_add(s->outputs, b);
    }
    ok = true;
out:
    g_free(dir);
    cfg_node_free(root);
    if (!ok) {
        gpu_launch_free(s);
        return NULL;
    }
    return s;
}

bool gpu_launch_write_outputs(const GpuLaunchSpec *s, const char *dir, GError **error)
{
    for (guint i = 0; i < s->outputs->len; i++) {
        const PtxBuffer *b = g_ptr_array_index(s->outputs, i);
        char *name = g_strconcat(b->name, ".bin", NULL);
        char *path = g_build_filename(dir, name, NULL);
        g_free(name);
        bool ok = g_file_set_contents(path, (const char *)b->data, (gssize)b->bytes, NULL);
        if (!ok)
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write", path);
        g_free(path);
        if (!ok)
            return false;
    }
    return true;
}
