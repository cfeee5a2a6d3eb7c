/* ptxlaunch.c: the launch YAML (ptxlaunch.h). */
#include "ptxlaunch.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

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

/* [x, y, z] with 1 to 3 entries, each >= 1; launch is the map that should hold it (a missing
 * one is an error at the launch's place) */
static bool dim3(const CfgNode *launch, const CfgNode *n, uint32_t d[3], uint64_t max,
                 const char *what, GError **error)
{
    d[0] = d[1] = d[2] = 1;
    if (!n)
        return lerr(error, launch, "%s: missing", what);
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
        uint64_t v = 0;
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
        /* rounded once to nearest even, subnormals kept (they were flushed to zero) */
        uint16_t h = ptx_half_of_double(v);
        memcpy(p, &h, 2);
        break;
    }
    case PTX_D_BF16: {
        uint16_t h = ptx_bf16_of_double(v);        /* rounded once to nearest even */
        memcpy(p, &h, 2);
        break;
    }
    default: {
        /* integers: the value's low bits, as C's conversion of the whole number would give
         * (iota past 255 in a u8 wraps, const:-1 in a u32 is 0xffffffff) */
        double w = trunc(v);
        uint64_t x = w >= 18446744073709551616.0 ? UINT64_MAX
                   : w >= 0 ? (w >= 9223372036854775808.0 ? (uint64_t)w : (uint64_t)(int64_t)w)
                   : w <= -9223372036854775808.0 ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)w;
        memcpy(p, &x, ptx_dtype_bytes(b->dtype));      /* little-endian host: the low bytes */
        break;
    }
    }
}

static bool is_float_d(PtxDtype d)
{
    return d == PTX_D_F32 || d == PTX_D_F64 || d == PTX_D_F16 || d == PTX_D_BF16;
}

static bool init_buffer(PtxBuffer *b, const CfgNode *n, const char *dir, GError **error)
{
    const char *s = n ? n->scalar : "zero";
    if (n && n->kind != CFG_SCALAR)
        return lerr(error, n, "init: expected zero, iota, const:V, random:SEED[:LO:HI] or "
                    "file:PATH");
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
        if (!g_ascii_isdigit(s[7]) || (*end && *end != ':') || errno)     /* no sign, no space */
            return lerr(error, n, "init: random:SEED needs a whole number, got '%s'", s + 7);
        /* random:SEED:LO:HI: floats uniform in [LO, HI) instead of [0, 1) */
        double lo = 0.0, hi = 1.0;
        if (*end == ':') {
            const char *a = end + 1;
            char *e1 = NULL, *e2 = NULL;
            lo = g_ascii_strtod(a, &e1);
            if (e1 != a && *e1 == ':')
                hi = g_ascii_strtod(e1 + 1, &e2);
            if (e1 == a || *e1 != ':' || e2 == e1 + 1 || *e2 || !isfinite(lo) || !isfinite(hi))
                return lerr(error, n, "init: random:SEED:LO:HI needs two numbers after the seed, "
                            "got '%s'", end + 1);
            if (!(lo < hi))
                return lerr(error, n, "init: random:SEED:LO:HI needs LO < HI, got %g and %g", lo,
                            hi);
            if (!isfinite(hi - lo))
                return lerr(error, n, "init: random:SEED:LO:HI: the range from %g to %g is wider "
                            "than a double holds", lo, hi);
            if (!is_float_d(b->dtype))
                return lerr(error, n, "init: random:SEED:LO:HI is for float buffers; %s is %s "
                            "(random:SEED gives its whole range)", b->name,
                            ptx_dtype_name(b->dtype));
        }
        uint64_t x = seed;
        for (uint64_t i = 0; i < b->count; i++) {
            uint64_t z = splitmix(&x);
            /* floats: uniform [0,1) from the top 24 bits, scaled to [LO, HI) in a double and
             * rounded once to the dtype; integers: the low bits of the dtype's width (u8 0-255,
             * u32 0..2^32-1, ...) */
            if (is_float_d(b->dtype))
                put_value(b, i, lo + (hi - lo) * ((double)(z >> 40) * (1.0 / 16777216.0)));
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
            /* a regular file of another size: say so, not "larger than the limit" */
            GStatBuf st;
            if (g_stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size != b->bytes)
                lerr(error, n, "init: %s holds %" G_GUINT64_FORMAT " bytes; %s is %"
                     G_GUINT64_FORMAT " x %s = %" G_GUINT64_FORMAT " bytes", path,
                     (uint64_t)st.st_size, b->name, b->count, ptx_dtype_name(b->dtype), b->bytes);
            else {
                lerr(error, n, "init: %s", e->message);
                if (error && *error && e->code == ARCHSIM_EXIT_NOINPUT)   /* 66, as documented */
                    (*error)->code = ARCHSIM_EXIT_NOINPUT;
            }
            g_error_free(e);
        }
        g_string_free(text, TRUE);
        g_free(path);
        return ok;
    }
    return lerr(error, n, "init: '%s': expected zero, iota, const:V, random:SEED[:LO:HI] or "
               "file:PATH", s);
}

PtxBuffer *gpu_launch_buffer(const GpuLaunchSpec *s, const char *name)
{
    for (guint i = 0; i < s->buffers->len; i++) {
        PtxBuffer *b = g_ptr_array_index(s->buffers, i);
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
    if (s->modules)
        g_ptr_array_free(s->modules, TRUE);
    if (s->buffers)
        g_ptr_array_free(s->buffers, TRUE);
    if (s->outputs)
        g_ptr_array_free(s->outputs, TRUE);
    for (uint32_t i = 0; i < s->nl; i++)
        g_free(s->l[i].params);
    g_free(s->l);
    g_free(s);
}

static const char *const launch_keys[] = {
    "kernel", "entry", "grid", "block", "shared", "buffers", "params", "outputs", "registers",
    "block_order", "launches", NULL,
};
static const char *const step_keys[] = {
    "kernel", "entry", "grid", "block", "shared", "params", NULL,
};

static bool known_keys(const CfgNode *map, const char *const *keys, const char *what,
                       GError **error)
{
    for (guint i = 0; i < map->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(map->keys, i);
        bool known = false;
        for (int j = 0; keys[j]; j++)
            known |= strcmp(k->scalar, keys[j]) == 0;
        if (!known) {
            GString *list = g_string_new(NULL);
            for (int j = 0; keys[j]; j++)
                g_string_append_printf(list, "%s%s", j ? ", " : "", keys[j]);
            lerr(error, k, "unknown key '%s' in %s (%s)", k->scalar, what, list->str);
            g_string_free(list, TRUE);
            return false;
        }
    }
    return true;
}

/* The PTX module of kernel node kn (parsed once per file). */
static PtxModule *module_of(GpuLaunchSpec *s, const CfgNode *kn, const char *dir, GError **error)
{
    if (kn->kind != CFG_SCALAR) {
        lerr(error, kn, "kernel: expected the PTX file (relative to this file)");
        return NULL;
    }
    char *ptx = g_path_is_absolute(kn->scalar) ? g_strdup(kn->scalar)
                                               : g_build_filename(dir, kn->scalar, NULL);
    for (guint i = 0; i < s->modules->len; i++) {
        PtxModule *m = g_ptr_array_index(s->modules, i);
        if (strcmp(m->path, ptx) == 0) {
            g_free(ptx);
            return m;
        }
    }
    if (!g_file_test(ptx, G_FILE_TEST_EXISTS)) {
        char *where = cfg_node_where(kn);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: kernel: %s: no such "
                    "file", where, ptx);
        g_free(where);
        g_free(ptx);
        return NULL;
    }
    GError *e = NULL;
    PtxModule *m = ptx_parse_file(ptx, &e);
    g_free(ptx);
    if (m) {
        g_ptr_array_add(s->modules, m);
    } else if (e->code == ARCHSIM_EXIT_NOINPUT) {
        /* a file that cannot be read (a directory, no permission): the launch's kernel: line
         * says which; an error inside the PTX keeps the PTX file's own position */
        char *where = cfg_node_where(kn);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: kernel: %s", where,
                    e->message);
        g_free(where);
        g_error_free(e);
    } else {
        g_propagate_error(error, e);
    }
    return m;
}

/* One launch from map n (the root, or an item of launches:); kernel defaults to dflt. */
static bool parse_launch(GpuLaunchSpec *s, const CfgNode *n, const CfgNode *dflt, const char *dir,
                         PtxLaunch *l, GError **error)
{
    const CfgNode *kn = cfg_map_get(n, "kernel");
    if (!kn)
        kn = dflt;
    if (!kn)
        return lerr(error, n, "kernel: the PTX file (relative to this file) is required");
    PtxModule *m = module_of(s, kn, dir, error);
    if (!m)
        return false;
    const CfgNode *en = cfg_map_get(n, "entry");
    if (en && en->kind != CFG_SCALAR)
        return lerr(error, en, "entry: expected the .entry's name");
    GError *e = NULL;
    l->m = m;
    l->e = ptx_entry(m, en ? en->scalar : NULL, &e);
    if (!l->e) {
        lerr(error, en ? en : kn, "%s", e->message);
        g_error_free(e);
        return false;
    }
    if (!dim3(n, cfg_map_get(n, "grid"), l->grid, INT32_MAX, "grid", error) ||
        !dim3(n, cfg_map_get(n, "block"), l->block, 1024, "block", error))
        return false;
    if ((uint64_t)l->block[0] * l->block[1] * l->block[2] > 1024)
        return lerr(error, cfg_map_get(n, "block"), "block: %u x %u x %u threads; CUDA allows at "
                    "most 1024 per block", l->block[0], l->block[1], l->block[2]);
    if (l->block[2] > 64 || (uint64_t)l->grid[1] > 65535 || l->grid[2] > 65535)
        return lerr(error, cfg_map_get(n, "grid"), "grid/block: beyond CUDA's limits (block z <= "
                    "64, grid y and z <= 65535)");
    const CfgNode *sh = cfg_map_get(n, "shared");
    if (sh && !scalar_u64(sh, 228 << 10, &l->dyn_shared, "shared", error))
        return false;
    /* parameters: numbers, or buffer names (device pointers), in the entry's order */
    const CfgNode *ps = cfg_map_get(n, "params");
    const PtxEntry *ent = l->e;
    if (ps && ps->kind != CFG_SEQ)
        return lerr(error, ps, "params: expected a list [number or buffer name, ...]");
    guint np = ps ? ps->items->len : 0;
    if (np != ent->params->len)
        return lerr(error, ps ? ps : n, "params: %s takes %u parameters, the launch gives %u",
                    ent->name, ent->params->len, np);
    l->params = g_malloc0(MAX(ent->param_bytes, 1));
    for (guint i = 0; i < np; i++) {
        const CfgNode *pv = g_ptr_array_index(ps->items, i);
        const PtxSym *sym = &g_array_index(m->syms, PtxSym, g_array_index(ent->params, uint32_t, i));
        uint8_t *dst = l->params + sym->offset;
        if (!pv || pv->kind != CFG_SCALAR)
            return lerr(error, pv ? pv : ps, "params: each is a number or a buffer name");
        PtxBuffer *b = pv->quoted ? NULL : gpu_launch_buffer(s, pv->scalar);
        PtxType t = (PtxType)sym->type;
        if (b) {
            if (sym->size != 8)
                return lerr(error, pv, "params: %s is a %" G_GUINT64_FORMAT "-byte parameter; a "
                            "buffer passes an 8-byte pointer", sym->name, sym->size);
            memcpy(dst, &b->addr, 8);
            continue;
        }
        char *end;
        errno = 0;
        if (t == PTX_T_F32 || t == PTX_T_F64) {
            double v = g_ascii_strtod(pv->scalar, &end);
            if (end == pv->scalar || *end || errno)
                return lerr(error, pv, "params: %s is .%s: expected a number (or a buffer name), "
                            "got '%s'", sym->name, ptx_type_name(t), pv->scalar);
            if (t == PTX_T_F32) {
                float f = (float)v;
                memcpy(dst, &f, 4);
            } else {
                memcpy(dst, &v, 8);
            }
            continue;
        }
        bool neg = pv->scalar[0] == '-';
        long long sv = 0;
        unsigned long long uv = 0;
        if (neg)
            sv = strtoll(pv->scalar, &end, 0);
        else
            uv = strtoull(pv->scalar, &end, 0);
        if (end == pv->scalar || *end || errno)
            return lerr(error, pv, "params: %s is .%s: expected a whole number or a buffer name, "
                        "got '%s'", sym->name, ptx_type_name(t), pv->scalar);
        uint64_t v = neg ? (uint64_t)sv : uv;
        uint32_t bytes = (uint32_t)MIN(sym->size, 8u);
        /* a number fits its parameter as unsigned or as two's complement (nvcc declares a C
         * int parameter .u32, so -1 is a u32's 0xffffffff, but -2^40 fits no 4-byte parameter) */
        if (bytes < 8 && (neg ? sv < -(1ll << (bytes * 8 - 1)) : (v >> (bytes * 8)) != 0))
            return lerr(error, pv, "params: %s (%u bytes) cannot hold %s", sym->name, bytes,
                        pv->scalar);
        memcpy(dst, &v, bytes);
    }
    return true;
}

GpuLaunchSpec *gpu_launch_load(const char *path, GError **error)
{
    CfgNode *root = cfg_load_file(path, NULL, error);
    if (!root)
        return NULL;
    GpuLaunchSpec *s = g_new0(GpuLaunchSpec, 1);
    s->path = g_strdup(path);
    s->modules = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_module_free);
    s->buffers = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_buffer_free);
    s->outputs = g_ptr_array_new();
    s->registers = 32;
    char *dir = g_path_get_dirname(path);
    bool ok = false;
    uint64_t order_seed = 0;
    if (!known_keys(root, launch_keys, "a launch", error))
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
            order_seed = 0;
        } else if (bo->kind == CFG_SCALAR && g_str_has_prefix(bo->scalar, "shuffle:")) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(bo->scalar + 8, &end, 10);
            if (end == bo->scalar + 8 || *end || errno || v == 0) {
                lerr(error, bo, "block_order: shuffle:SEED needs a seed >= 1");
                goto out;
            }
            order_seed = v;
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
        char *what = g_strdup_printf("buffer %s", bk->scalar);
        bool known = known_keys(bv, (const char *const[]){ "dtype", "count", "init", NULL }, what,
                                error);
        g_free(what);
        if (!known)
            goto out;
        const CfgNode *dt = cfg_map_get(bv, "dtype");
        PtxDtype d;
        if (!dt || dt->kind != CFG_SCALAR || !ptx_dtype_parse(dt->scalar, &d)) {
            lerr(error, dt ? dt : bv, "buffer %s: dtype: expected f32, f64, f16, bf16, s32, u32, "
                 "s64, u64 or u8", bk->scalar);
            goto out;
        }
        uint64_t count;
        const CfgNode *cn = cfg_map_get(bv, "count");
        if (!cn) {
            lerr(error, bv, "buffer %s: count: missing", bk->scalar);
            goto out;
        }
        if (!scalar_u64(cn, PTX_MAX_BUFFER / ptx_dtype_bytes(d), &count, "count", error))
            goto out;
        total += count * ptx_dtype_bytes(d);
        if (total > PTX_MAX_DEVICE) {
            lerr(error, bv, "the buffers hold more than %" G_GUINT64_FORMAT " GiB, archsim's limit",
                 PTX_MAX_DEVICE >> 30);
            goto out;
        }
        /* a name is an identifier: it names an output file NAME.bin in the run directory */
        bool ident = g_ascii_isalpha(bk->scalar[0]) || bk->scalar[0] == '_';
        for (const char *c = bk->scalar; *c; c++)
            ident &= g_ascii_isalnum(*c) || *c == '_';
        if (!ident || strlen(bk->scalar) > 64) {
            lerr(error, bk, "buffer '%s': a name is letters, digits and '_' (not first), at most "
                 "64 (it names the output file NAME.bin)", bk->scalar);
            goto out;
        }
        PtxBuffer *b = ptx_buffer_new(bk->scalar, d, count);
        if (!b) {
            lerr(error, bv, "buffer %s: cannot allocate %" G_GUINT64_FORMAT " bytes", bk->scalar,
                 count * ptx_dtype_bytes(d));
            goto out;
        }
        g_ptr_array_add(s->buffers, b);
        if (!init_buffer(b, cfg_map_get(bv, "init"), dir, error))
            goto out;
    }
    ptx_place_buffers(s->buffers);
    /* the launches: the top level's one, or each of launches: in order */
    const CfgNode *steps = cfg_map_get(root, "launches");
    if (steps) {
        static const char *const one[] = { "entry", "grid", "block", "shared", "params" };
        for (size_t i = 0; i < G_N_ELEMENTS(one); i++)
            if (cfg_map_get(root, one[i])) {
                lerr(error, cfg_map_get(root, one[i]), "%s: with launches:, give it in each "
                     "launch", one[i]);
                goto out;
            }
        if (steps->kind != CFG_SEQ || steps->items->len == 0 || steps->items->len > 1024) {
            lerr(error, steps, "launches: expected a list of 1 to 1,024 launches {entry, grid, "
                 "block, shared, params}");
            goto out;
        }
        s->nl = steps->items->len;
        s->l = g_new0(PtxLaunch, s->nl);
        for (uint32_t i = 0; i < s->nl; i++) {
            const CfgNode *it = g_ptr_array_index(steps->items, i);
            if (!it || it->kind != CFG_MAP) {
                lerr(error, it ? it : steps, "launches: each is a map {entry, grid, block, shared, "
                     "params}");
                goto out;
            }
            if (!known_keys(it, step_keys, "a launch of launches:", error) ||
                !parse_launch(s, it, cfg_map_get(root, "kernel"), dir, &s->l[i], error))
                goto out;
        }
    } else {
        s->nl = 1;
        s->l = g_new0(PtxLaunch, 1);
        if (!parse_launch(s, root, NULL, dir, &s->l[0], error))
            goto out;
    }
    for (uint32_t i = 0; i < s->nl; i++) {
        s->l[i].buffers = s->buffers;
        s->l[i].order_seed = order_seed;
        s->l[i].registers = s->registers;
    }
    s->m = s->l[0].m;
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
