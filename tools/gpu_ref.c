/* gpu_ref.c: the C reference of each workload in workloads/gpu/: loads LAUNCH.yaml with
 * archsim's own launch reader (the same initial buffers), computes what the kernel should have
 * written with plain C loops, and compares it with RUNDIR/NAME.bin as `archsim gpu run` wrote
 * it: integers exactly, floats within a relative tolerance stated per kernel (a sum in another
 * order rounds differently).
 *
 *   build/tools/gpu_ref LAUNCH.yaml RUNDIR     exit 0 equal, 1 different, 2 cannot check
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/gpu/ptxlaunch.h"

static const float *F(const GpuLaunchSpec *s, const char *name)
{
    PtxBuffer *b = gpu_launch_buffer(s, name);
    return b ? (const float *)(const void *)b->data : NULL;
}

/* parameter i (4 bytes) of a launch */
static uint32_t lparam_u32(const PtxLaunch *l, unsigned i)
{
    const PtxSym *sym = &g_array_index(l->m->syms, PtxSym, g_array_index(l->e->params, uint32_t, i));
    uint32_t v;
    memcpy(&v, l->params + sym->offset, 4);
    return v;
}
static float lparam_f32(const PtxLaunch *l, unsigned i)
{
    uint32_t u = lparam_u32(l, i);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* of the first launch */
static uint32_t param_u32(const GpuLaunchSpec *s, unsigned i) { return lparam_u32(&s->l[0], i); }
static float param_f32(const GpuLaunchSpec *s, unsigned i) { return lparam_f32(&s->l[0], i); }

static uint8_t *read_out(const char *dir, const char *name, size_t want)
{
    char *file = g_strconcat(name, ".bin", NULL), *path = g_build_filename(dir, file, NULL);
    gchar *data = NULL;
    gsize len = 0;
    bool ok = g_file_get_contents(path, &data, &len, NULL);
    if (!ok || len != want) {
        fprintf(stderr, "gpu_ref: %s: %s\n", path, ok ? "wrong size" : "cannot read");
        g_free(data);
        data = NULL;
    }
    g_free(file);
    g_free(path);
    return (uint8_t *)data;
}

/* |got - want| <= rtol |want| + 1e-30 for each value (0: exactly equal) */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int compare_f32(const char *what, const float *got, const float *want, size_t n, double rtol)
{
    size_t bad = 0, worst = 0;
    double worst_err = 0;
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - (double)want[i]);
        double tol = rtol * fabs((double)want[i]) + (rtol > 0 ? 1e-30 : 0);
        if (!(err <= tol))
            bad++;
        if (err > worst_err || isnan(got[i])) {
            worst_err = err;
            worst = i;
        }
    }
    printf("%s: %zu values, %zu beyond a relative %g; worst at %zu: %.9g, reference %.9g\n", what,
           n, bad, rtol, worst, n ? (double)got[worst] : 0.0, n ? (double)want[worst] : 0.0);
    return bad ? 1 : 0;
}

/* tests/gpu/ptx/bits.cu, each from its documentation, written apart from ptxexec.c: CUDA's
 * __byte_perm and __funnelshift_* (CUDA Math API), the PTX ISA's prmt (its mode table, row by
 * row), bfi (its pseudocode, bit by bit) and lop3 (the function each table encodes). */
static uint32_t byte_of(uint32_t x, uint32_t y, uint32_t k)   /* {y, x}: bytes 0-3 of x, 4-7 y */
{
    return k < 4 ? x >> (8 * k) & 0xff : y >> (8 * (k - 4)) & 0xff;
}
static uint32_t ref_prmt(int mode, uint32_t x, uint32_t y, uint32_t c)
{
    /* the ISA's table: for c[1:0] = 0..3, the source bytes of d.b3 d.b2 d.b1 d.b0 */
    static const char *const tab[6][4] = {
        { "3210", "4321", "5432", "6543" },     /* f4e */
        { "5670", "6701", "7012", "0123" },     /* b4e */
        { "0000", "1111", "2222", "3333" },     /* rc8 */
        { "3210", "3211", "3222", "3333" },     /* ecl */
        { "0000", "1110", "2210", "3210" },     /* ecr */
        { "1010", "3232", "1010", "3232" },     /* rc16 */
    };
    uint32_t d = 0;
    for (uint32_t n = 0; n < 4; n++) {
        uint32_t b;
        if (mode < 0) {                         /* generic: nibble n; its msb replicates the sign */
            uint32_t sel = c >> (4 * n) & 15;
            b = byte_of(x, y, sel & 7);
            if (sel & 8)
                b = (b & 0x80) ? 0xff : 0;
        } else {
            b = byte_of(x, y, (uint32_t)(tab[mode][c & 3][3 - n] - '0'));
        }
        d |= b << (8 * n);
    }
    return d;
}
static uint32_t ref_funnel(uint32_t lo, uint32_t hi, uint32_t shift, bool left, bool clamp)
{
    uint64_t v = (uint64_t)hi << 32 | lo;
    uint32_t n = clamp ? (shift < 32 ? shift : 32) : shift & 31;
    return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}
static uint32_t ref_bfi(uint32_t a, uint32_t b, uint32_t pos, uint32_t len)
{
    uint32_t f = b;
    for (uint32_t i = 0; i < len && pos + i <= 31; i++)
        f = (f & ~(1u << (pos + i))) | ((a >> i & 1) << (pos + i));
    return f;
}

/* Units in the last place between two floats of the same sign (or both zero): their bit
 * patterns as ordered integers. */
static uint64_t ulps_apart(float a, float b)
{
    int32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    int64_t ox = x < 0 ? (int64_t)INT32_MIN - x : x, oy = y < 0 ? (int64_t)INT32_MIN - y : y;
    return (uint64_t)(ox > oy ? ox - oy : oy - ox);
}

/* IEEE binary16, written here apart from ptxexec.c: a double rounded once to the nearest even
 * half (subnormals kept, 65520 and up to infinity), and a half's value. */
static uint16_t ref_half(double d)
{
    uint16_t s = signbit(d) ? 0x8000 : 0;
    d = fabs(d);
    if (isnan(d))
        return s | 0x7e00;
    if (d >= 65520.0)
        return s | 0x7c00;
    int e;
    frexp(d, &e);                                   /* d in [2^(e-1), 2^e) */
    int q = e - 1 < -14 ? -24 : e - 1 - 10;         /* the quantum of d's binade */
    double r = ldexp(nearbyint(ldexp(d, -q)), q);   /* exact: fewer than 12 bits */
    if (r < ldexp(1.0, -14))
        return s | (uint16_t)ldexp(r, 24);          /* subnormal (or zero) */
    frexp(r, &e);
    return s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(ldexp(r, -(e - 1)) * 1024.0 - 1024.0);
}
static double ref_unhalf(uint16_t h)
{
    int ex = h >> 10 & 31;
    double m = h & 1023, v = ex == 0 ? ldexp(m, -24) : ex == 31 ? (m ? NAN : INFINITY)
                                                               : ldexp(m + 1024.0, ex - 25);
    return (h & 0x8000) ? -v : v;
}

/* bfloat16 by the usual bit trick on a float (round to nearest even on the 16 bits dropped;
 * no NaN arrives here), and back: apart from ptxexec.c's rounding from a double. The inputs of
 * tests/gpu/ptx/bf16.cu keep every exact result within a float. */
static uint16_t ref_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + (u >> 16 & 1u)) >> 16);
}
static float ref_unbf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The first launch of entry a (or b), or NULL */
static const PtxLaunch *find_launch(const GpuLaunchSpec *s, const char *a, const char *b)
{
    for (uint32_t j = 0; j < s->nl; j++)
        if (!strcmp(s->l[j].e->name, a) || (b && !strcmp(s->l[j].e->name, b)))
            return &s->l[j];
    return NULL;
}

/* y = W x, W rows x cols bfloat16 */
static void ref_gemv(const uint16_t *W, const double *x, double *y, uint32_t rows, uint32_t cols)
{
    for (uint32_t r = 0; r < rows; r++) {
        double acc = 0;
        for (uint32_t c = 0; c < cols; c++)
            acc += (double)ref_unbf16(W[(size_t)r * cols + c]) * x[c];
        y[r] = acc;
    }
}
static void ref_rmsnorm(const double *x, const uint16_t *w, double *y, uint32_t n, double eps)
{
    double ss = 0;
    for (uint32_t i = 0; i < n; i++)
        ss += x[i] * x[i];
    double r = 1.0 / sqrt(ss / n + eps);
    for (uint32_t i = 0; i < n; i++)
        y[i] = x[i] * r * (double)ref_unbf16(w[i]);
}

/* got against want: each within rel of the larger of the two, or within frac of the largest
 * |want| (a difference of cancellation: a value near zero from large ones), plus extra[i] where
 * given */
static int near_f32(const char *what, const float *got, const float *want, size_t n, double rel,
                    double frac, const float *extra)
{
    double big = 0, worst_err = -1;
    size_t bad = 0, worst = 0;
    for (size_t i = 0; i < n; i++)
        big = fmax(big, fabs((double)want[i]));
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - (double)want[i]);
        double tol = fmax(rel * fmax(fabs((double)got[i]), fabs((double)want[i])), frac * big) +
                     (extra ? extra[i] : 0.0);
        if (!(err <= tol))
            bad++;
        if (err > worst_err || isnan(got[i])) {
            worst_err = err;
            worst = i;
        }
    }
    printf("%s: %zu values, %zu beyond a relative %g or %g of the largest (%.6g); worst at %zu: "
           "%.9g, reference %.9g\n", what, n, bad, rel, frac, big, worst,
           n ? (double)got[worst] : 0.0, n ? (double)want[worst] : 0.0);
    return bad ? 1 : 0;
}

/* workloads/gpu/llama: one decoder layer at one decode step (llama.cu's header), in doubles
 * from the same initial buffers: RMSNorm, the QKV projection, rotate-half RoPE, the keys and
 * values appended to the bfloat16 caches, grouped-query attention, the output projection and
 * residual, RMSNorm, the SwiGLU MLP and residual. Both launches (eager and fused) compute
 * this; a launch of shapes the kernels do not take is refused (exit 2). The residual stream x within 1e-5 of its largest value (f32 sums of thousands of
 * terms, expf, sincosf and powf of the GPU's precision in between); the caches within a unit
 * in the last place of a bfloat16 (2^-7 of the value) at the new position, the kernel rounding
 * its f32 value and the reference its double, or 1e-5 of the largest where a rotation cancels;
 * the same elsewhere, where nothing was written (a stray write of another value fails). */
static int ref_llama(const GpuLaunchSpec *s, const char *dir)
{
    const PtxLaunch *la = find_launch(s, "llama_attention", NULL);
    const PtxLaunch *lr = find_launch(s, "llama_rope", "llama_rope_kv");
    const PtxLaunch *ln = find_launch(s, "llama_rmsnorm", "llama_norm_gemv");
    static const char *const names[] = { "x", "w_attn", "w_ffn", "Wqkv", "Wo", "Wg", "Wu", "Wd",
                                         "Kc", "Vc" };
    PtxBuffer *b[G_N_ELEMENTS(names)];
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (!(b[i] = gpu_launch_buffer(s, names[i])) ||
            b[i]->dtype != (i == 0 ? PTX_D_F32 : PTX_D_BF16)) {
            fprintf(stderr, "gpu_ref: llama: no %s buffer %s\n", i == 0 ? "f32" : "bf16",
                    names[i]);
            return 2;
        }
    if (!la || !lr || !ln) {
        fprintf(stderr, "gpu_ref: llama: a launch of the attention, RoPE or RMSNorm is missing\n");
        return 2;
    }
    bool fused = !strcmp(lr->e->name, "llama_rope_kv");
    uint32_t nh = lparam_u32(la, 5), kvh = lparam_u32(la, 6), hd = lparam_u32(la, 7);
    uint32_t ctx = lparam_u32(la, 8), len = lparam_u32(la, 9), pos = lparam_u32(lr, fused ? 7 : 3);
    double scale = lparam_f32(la, 11), base = lparam_f32(lr, fused ? 8 : 4);
    double eps = lparam_f32(ln, fused ? 6 : 4);
    uint64_t n = b[0]->count, f = n ? b[5]->count / n : 0, qr = (uint64_t)(nh + 2ull * kvh) * hd;
    /* the shapes the kernels take (llama.cu's header), each buffer's count from them */
    if (n == 0 || f == 0 || (hd != 64 && hd != 128 && hd != 256) || kvh == 0 || nh < kvh ||
        nh % kvh || pos >= ctx || len != pos + 1 || b[1]->count != n || b[2]->count != n ||
        b[3]->count != qr * n || b[4]->count != n * nh * hd || b[5]->count != f * n ||
        b[6]->count != f * n || b[7]->count != n * f ||
        b[8]->count != (uint64_t)kvh * ctx * hd || b[9]->count != b[8]->count) {
        fprintf(stderr, "gpu_ref: llama: the launch's shapes disagree\n");
        return 2;
    }
    PtxBuffer *bkc = b[8], *bvc = b[9];
    const float *x0 = F(s, "x");
#define BF(i) ((const uint16_t *)(const void *)b[i]->data)
    const uint16_t *wa = BF(1), *wf = BF(2), *Wqkv = BF(3), *Wo = BF(4), *Wg = BF(5), *Wu = BF(6);
    const uint16_t *Wd = BF(7);
#undef BF
    size_t nc = bkc->count;
    uint16_t *kc = g_memdup2(bkc->data, nc * 2), *vc = g_memdup2(bvc->data, nc * 2);
    double *x = g_new(double, n), *xn = g_new(double, n), *qkv = g_new(double, qr);
    double *att = g_new(double, (size_t)nh * hd), *d = g_new(double, n), *sc = g_new(double, len);
    double *g = g_new(double, f), *u = g_new(double, f);
    for (uint32_t i = 0; i < n; i++)
        x[i] = x0[i];
    ref_rmsnorm(x, wa, xn, n, eps);
    ref_gemv(Wqkv, xn, qkv, qr, n);
    /* the angle in f32, as the kernel and Hugging Face's Llama code (float32 inv_freq and
     * position) make it: at position 4,095 it is about 3,300 rad, where floats are 2.4e-4
     * apart. Two powf of a few units' difference in the last place (the host's and the GPU's
     * ex2/lg2 sequence) turn a new key by up to a few of those: the cache's check allows four
     * units of the angle times the pair's length (kt, the new keys' extra tolerance). */
    float *kt = g_new0(float, b[8]->count);
    for (uint32_t h = 0; h < nh + kvh; h++)          /* the query heads, then the key heads */
        for (uint32_t i = 0; i < hd / 2; i++) {
            float ang = (float)pos * powf((float)base, -(float)i / (float)(hd / 2));
            double a = qkv[h * hd + i], c = qkv[h * hd + i + hd / 2];
            qkv[h * hd + i] = a * cos(ang) - c * sin(ang);
            qkv[h * hd + i + hd / 2] = c * cos(ang) + a * sin(ang);
            if (h >= nh) {
                size_t at = ((size_t)(h - nh) * ctx + pos) * hd + i;
                kt[at] = kt[at + hd / 2] = (float)(4.0 * ldexp(fabs(ang), -23) * hypot(a, c));
            }
        }
    for (uint32_t t = 0; t < kvh * hd; t++) {
        size_t at = ((size_t)(t / hd) * ctx + pos) * hd + t % hd;
        kc[at] = ref_bf16((float)qkv[nh * hd + t]);
        vc[at] = ref_bf16((float)qkv[(nh + kvh) * hd + t]);
    }
    for (uint32_t h = 0; h < nh; h++) {
        uint32_t gh = h / (nh / kvh);
        double m = -INFINITY, sum = 0;
        for (uint32_t j = 0; j < len; j++) {
            double dot = 0;
            for (uint32_t i = 0; i < hd; i++)
                dot += qkv[h * hd + i] * ref_unbf16(kc[((size_t)gh * ctx + j) * hd + i]);
            sc[j] = dot * scale;
            m = fmax(m, sc[j]);
        }
        for (uint32_t j = 0; j < len; j++)
            sum += (sc[j] = exp(sc[j] - m));
        for (uint32_t i = 0; i < hd; i++) {
            double o = 0;
            for (uint32_t j = 0; j < len; j++)
                o += sc[j] * ref_unbf16(vc[((size_t)gh * ctx + j) * hd + i]);
            att[h * hd + i] = o / sum;
        }
    }
    ref_gemv(Wo, att, d, n, nh * hd);
    for (uint32_t i = 0; i < n; i++)
        x[i] += d[i];
    ref_rmsnorm(x, wf, xn, n, eps);
    ref_gemv(Wg, xn, g, f, n);
    ref_gemv(Wu, xn, u, f, n);
    for (uint32_t i = 0; i < f; i++)
        g[i] = g[i] / (1.0 + exp(-g[i])) * u[i];
    ref_gemv(Wd, g, d, n, f);
    float *want = g_new(float, n), *kw = g_new(float, nc), *vw = g_new(float, nc);
    for (uint32_t i = 0; i < n; i++)
        want[i] = (float)(x[i] + d[i]);
    for (size_t i = 0; i < nc; i++) {
        kw[i] = ref_unbf16(kc[i]);
        vw[i] = ref_unbf16(vc[i]);
    }
    int rc = 2;
    float *got = (float *)(void *)read_out(dir, "x", (size_t)n * 4);
    uint16_t *gk = (uint16_t *)(void *)read_out(dir, "Kc", nc * 2);
    uint16_t *gv = (uint16_t *)(void *)read_out(dir, "Vc", nc * 2);
    if (got && gk && gv) {
        float *kg = g_new(float, nc), *vg = g_new(float, nc);
        for (size_t i = 0; i < nc; i++) {
            kg[i] = ref_unbf16(gk[i]);
            vg[i] = ref_unbf16(gv[i]);
        }
        rc = near_f32("llama x", got, want, n, 0, 1e-5, NULL) |
             near_f32("llama Kc", kg, kw, nc, 1.0 / 128, 1e-5, kt) |
             near_f32("llama Vc", vg, vw, nc, 1.0 / 128, 1e-5, NULL);
        g_free(kg);
        g_free(vg);
    }
    g_free(got);
    g_free(gk);
    g_free(gv);
    g_free(want);
    g_free(kw);
    g_free(vw);
    g_free(kc);
    g_free(vc);
    g_free(kt);
    g_free(x);
    g_free(xn);
    g_free(qkv);
    g_free(att);
    g_free(d);
    g_free(sc);
    g_free(g);
    g_free(u);
    return rc;
}

/* tests/gpu/ptx/mma.cu's three kernels: plain products of the matrices as the CUDA source stores
 * them, each mma step (16 or 8 deep) summed exactly and rounded once to the accumulator's type
 * (f32 within a relative 1e-6, halves within one unit in the last place). */
static int ref_mma(const GpuLaunchSpec *s, const char *k, const char *dir)
{
    int rc = 2;
    if (!strcmp(k, "mma_gemm")) {
        uint32_t K = param_u32(s, 4);
        const uint16_t *a = (const uint16_t *)(void *)gpu_launch_buffer(s, "A")->data;
        const uint16_t *bt = (const uint16_t *)(void *)gpu_launch_buffer(s, "Bt")->data;
        const float *c = F(s, "C");
        float want[128];
        for (uint32_t i = 0; i < 16; i++)
            for (uint32_t j = 0; j < 8; j++) {
                float acc = c[i * 8 + j];
                for (uint32_t k0 = 0; k0 < K; k0 += 16) {
                    double sum = acc;
                    for (uint32_t q = k0; q < k0 + 16; q++)
                        sum += ref_unhalf(a[i * K + q]) * ref_unhalf(bt[j * K + q]);
                    acc = (float)sum;
                }
                want[i * 8 + j] = acc;
            }
        float *got = (float *)(void *)read_out(dir, "D", sizeof want);
        rc = got ? compare_f32("mma_gemm D", got, want, 128, 1e-6) : 2;
        g_free(got);
    } else if (!strcmp(k, "mma_trans")) {
        const uint16_t *a = (const uint16_t *)(void *)gpu_launch_buffer(s, "A")->data;
        const uint16_t *b = (const uint16_t *)(void *)gpu_launch_buffer(s, "B")->data;
        uint16_t *got = (uint16_t *)(void *)read_out(dir, "D", 256);
        if (got) {
            uint32_t bad = 0;
            for (uint32_t i = 0; i < 16; i++)
                for (uint32_t j = 0; j < 8; j++) {
                    double sum = 0;
                    for (uint32_t q = 0; q < 16; q++)
                        sum += ref_unhalf(a[i * 16 + q]) * ref_unhalf(b[q * 8 + j]);
                    double w = ref_unhalf(ref_half(sum)), g = ref_unhalf(got[i * 8 + j]);
                    bad += !(fabs(g - w) <= ldexp(fabs(w), -10));
                }
            printf("mma_trans D: 128 values, %u beyond one half's unit\n", bad);
            rc = bad ? 1 : 0;
        }
        g_free(got);
    } else {
        const float *x = F(s, "x"), *y = F(s, "y");
        float want[128];
        for (uint32_t i = 0; i < 16; i++)
            for (uint32_t j = 0; j < 8; j++) {
                double sum = 0;
                for (uint32_t q = 0; q < 8; q++)
                    sum += (double)ref_unbf16(ref_bf16(x[i * 8 + q] * 4.0f - 2.0f)) *
                           ref_unbf16(ref_bf16(y[j * 8 + q] * 4.0f - 2.0f));
                want[i * 8 + j] = (float)sum;
            }
        float *got = (float *)(void *)read_out(dir, "D", sizeof want);
        rc = got ? compare_f32("mma_bf8 D", got, want, 128, 1e-6) : 2;
        g_free(got);
    }
    return rc;
}

/* tests/gpu/ptx/wmma.cu's three kernels (see main); f32 results within a relative 1e-6, f16
 * within one unit in the last place (the sum of 16 products may round differently in another
 * order, rarely enough to move the rounded result). */
static int ref_wmma(const GpuLaunchSpec *s, const char *k, const char *dir)
{
    int rc = 2;
    if (!strcmp(k, "wgemm")) {
        uint32_t M = param_u32(s, 4), N = param_u32(s, 5), K = param_u32(s, 6);
        float alpha = param_f32(s, 7);
        const uint16_t *a = (const uint16_t *)(void *)gpu_launch_buffer(s, "a")->data;
        const uint16_t *b = (const uint16_t *)(void *)gpu_launch_buffer(s, "b")->data;
        const float *c = F(s, "c");
        float *want = g_new0(float, (size_t)M * N);
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++) {
                float acc = c[i * N + j];                   /* C row-major */
                for (uint32_t k0 = 0; k0 < K; k0 += 16) {
                    double sum = acc;
                    for (uint32_t q = k0; q < k0 + 16; q++) /* A row-major, B column-major */
                        sum += ref_unhalf(a[i * K + q]) * ref_unhalf(b[j * K + q]);
                    acc = (float)sum;
                }
                want[j * M + i] = acc * alpha;              /* D column-major */
            }
        float *got = (float *)(void *)read_out(dir, "d", (size_t)M * N * 4);
        rc = got ? compare_f32("wgemm d", got, want, (size_t)M * N, 1e-6) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "wgemm_h")) {
        uint32_t K = param_u32(s, 3), nb = s->l[0].grid[0];
        const float *x = F(s, "x"), *y = F(s, "y");
        uint16_t *got = (uint16_t *)(void *)read_out(dir, "d", (size_t)nb * 256 * 2);
        if (got) {
            uint64_t bad = 0;
            for (uint32_t blk = 0; blk < nb; blk++)
                for (uint32_t i = 0; i < 32; i++)
                    for (uint32_t j = 0; j < 8; j++) {
                        uint16_t acc = ref_half(0.5);
                        for (uint32_t k0 = 0; k0 < K; k0 += 16) {
                            double sum = ref_unhalf(acc);
                            for (uint32_t q = k0; q < k0 + 16; q++)
                                sum += ref_unhalf(ref_half(x[(blk * 32 + i) * K + q] - 0.5f)) *
                                       ref_unhalf(ref_half(y[q * 8 + j] - 0.5f));
                            acc = ref_half(sum);
                        }
                        double g = ref_unhalf(got[blk * 256 + i * 8 + j]), w = ref_unhalf(acc);
                        bad += !(fabs(g - w) <= ldexp(fabs(w), -10));
                    }
            printf("%s d: %u values, %" G_GUINT64_FORMAT " beyond one half's unit\n", k, nb * 256,
                   bad);
            rc = bad ? 1 : 0;
        }
        g_free(got);
    } else {
        const float *x = F(s, "x"), *y = F(s, "y"), *c = F(s, "c");
        float want[8 * 40] = { 0 };                 /* D row-major, stride 40: 8 pad columns */
        for (uint32_t i = 0; i < 8; i++)
            for (uint32_t j = 0; j < 32; j++) {
                double sum = c[j * 8 + i];          /* C column-major */
                for (uint32_t q = 0; q < 16; q++)
                    sum += (double)ref_unbf16(ref_bf16(x[i * 16 + q] * 4.0f - 2.0f)) *
                           ref_unbf16(ref_bf16(y[q * 32 + j] * 4.0f - 2.0f));
                want[i * 40 + j] = (float)sum;
            }
        float *got = (float *)(void *)read_out(dir, "d", sizeof want);
        rc = got ? compare_f32("wgemm_bf d", got, want, 8 * 40, 1e-6) : 2;
        g_free(got);
    }
    return rc;
}

/* The int32 output buffer `out` of RUNDIR against want: 0 equal, 1 some differ, 2 unreadable. */
static int compare_out_i32(const char *k, const char *dir, const int32_t *want, uint64_t n)
{
    int32_t *got = (int32_t *)(void *)read_out(dir, "out", n * 4);
    if (!got)
        return 2;
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++)
        bad += got[i] != want[i];
    printf("%s: %" G_GUINT64_FORMAT " values, %" G_GUINT64_FORMAT " differ\n", k, n, bad);
    g_free(got);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gpu_ref LAUNCH.yaml RUNDIR\n");
        return 2;
    }
    GError *e = NULL;
    GpuLaunchSpec *s = gpu_launch_load(argv[1], &e);
    if (!s) {
        fprintf(stderr, "gpu_ref: %s\n", e->message);
        return 2;
    }
    const char *k = s->l[0].e->name, *dir = argv[2];
    int rc = 2;
    if (!strcmp(k, "saxpy")) {
        uint32_t n = param_u32(s, 0);
        float a = param_f32(s, 1);
        const float *x = F(s, "x"), *y = F(s, "y");
        float *want = g_new(float, n);
        for (uint32_t i = 0; i < n; i++)
            want[i] = fmaf(a, x[i], y[i]);
        float *got = (float *)(void *)read_out(dir, "y", n * 4);
        rc = got ? compare_f32("saxpy y", got, want, n, 0) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "vecmul")) {
        uint32_t n = param_u32(s, 0);
        const float *a = F(s, "a"), *b = F(s, "b");
        float *want = g_new(float, n);
        for (uint32_t i = 0; i < n; i++)
            want[i] = a[i] * b[i];
        float *got = (float *)(void *)read_out(dir, "c", n * 4);
        rc = got ? compare_f32("vecmul c", got, want, n, 0) : 2;
        g_free(got);
        g_free(want);
    } else if (g_str_has_prefix(k, "reduce_")) {
        uint32_t n = param_u32(s, 2), per = s->l[0].block[0], nb = s->l[0].grid[0];
        const float *in = F(s, "in");
        float *want = g_new0(float, nb);
        for (uint32_t b = 0; b < nb; b++) {
            double acc = 0;
            for (uint32_t i = b * per; i < (b + 1) * per && i < n; i++)
                acc += in[i];
            want[b] = (float)acc;
        }
        float *got = (float *)(void *)read_out(dir, "out", nb * 4);
        rc = got ? compare_f32(k, got, want, nb, 1e-5) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "matmul_wmma")) {
        /* on the tensor cores: A and B rounded to halves; each 16-deep step summed exactly and
         * added to the f32 accumulator, rounded once (wmma.mma's D = A B + C). Within a relative
         * 1e-5, not 1e-6: a real GPU's tensor cores truncate inside their sums (Fasi et al.,
         * PeerJ CS 2021), a few units in the last place a step, and tools/gpu-device-check.sh
         * holds a GPU's outputs to this reference too */
        uint32_t n = param_u32(s, 3);
        const float *A = F(s, "A"), *B = F(s, "B");
        float *want = g_new0(float, (size_t)n * n);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++) {
                float acc = 0.0f;
                for (uint32_t k0 = 0; k0 < n; k0 += 16) {
                    double sum = acc;
                    for (uint32_t q = k0; q < k0 + 16; q++)
                        sum += ref_unhalf(ref_half(A[i * n + q])) * ref_unhalf(ref_half(B[q * n + j]));
                    acc = (float)sum;
                }
                want[i * n + j] = acc;
            }
        float *got = (float *)(void *)read_out(dir, "C", (size_t)n * n * 4);
        rc = got ? compare_f32(k, got, want, (size_t)n * n, 1e-5) : 2;
        g_free(got);
        g_free(want);
    } else if (g_str_has_prefix(k, "matmul_")) {
        uint32_t n = param_u32(s, 3);
        const float *A = F(s, "A"), *B = F(s, "B");
        float *want = g_new0(float, (size_t)n * n);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++) {
                double acc = 0;
                for (uint32_t q = 0; q < n; q++)
                    acc += (double)A[i * n + q] * B[q * n + j];
                want[i * n + j] = (float)acc;
            }
        float *got = (float *)(void *)read_out(dir, "C", (size_t)n * n * 4);
        rc = got ? compare_f32(k, got, want, (size_t)n * n, 1e-5) : 2;
        g_free(got);
        g_free(want);
    } else if (g_str_has_prefix(k, "transpose_")) {
        uint32_t n = param_u32(s, 2);
        const float *in = F(s, "in");
        float *want = g_new0(float, (size_t)n * n);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                want[j * n + i] = in[i * n + j];
        float *got = (float *)(void *)read_out(dir, "out", (size_t)n * n * 4);
        rc = got ? compare_f32(k, got, want, (size_t)n * n, 0) : 2;
        g_free(got);
        g_free(want);
    } else if (g_str_has_prefix(k, "softmax_")) {
        uint32_t n = param_u32(s, 2), rows = s->l[0].grid[0];
        const float *x = F(s, "x");
        float *want = g_new0(float, (size_t)rows * n);
        for (uint32_t r = 0; r < rows; r++) {
            const float *row = x + (size_t)r * n;
            double m = -INFINITY, sum = 0;
            for (uint32_t i = 0; i < n; i++)
                m = fmax(m, row[i]);
            for (uint32_t i = 0; i < n; i++)
                sum += exp((double)row[i] - m);
            for (uint32_t i = 0; i < n; i++)
                want[(size_t)r * n + i] = (float)(exp((double)row[i] - m) / sum);
        }
        float *got = (float *)(void *)read_out(dir, "y", (size_t)rows * n * 4);
        rc = got ? compare_f32(k, got, want, (size_t)rows * n, 1e-5) : 2;
        g_free(got);
        g_free(want);
    } else if (g_str_has_prefix(k, "attn_")) {
        /* O = softmax(Q K^T / sqrt(64)) V, whichever kernels computed it */
        const uint32_t d = 64, n = (uint32_t)(gpu_launch_buffer(s, "Q")->count / d);
        const float *Q = F(s, "Q"), *K = F(s, "K"), *V = F(s, "V");
        float *want = g_new0(float, (size_t)n * d);
        double *p = g_new(double, n);
        for (uint32_t i = 0; i < n; i++) {
            double m = -INFINITY, sum = 0;
            for (uint32_t j = 0; j < n; j++) {
                double acc = 0;
                for (uint32_t c = 0; c < d; c++)
                    acc += (double)Q[i * d + c] * K[j * d + c];
                p[j] = acc / 8.0;
                m = fmax(m, p[j]);
            }
            for (uint32_t j = 0; j < n; j++)
                sum += (p[j] = exp(p[j] - m));
            for (uint32_t c = 0; c < d; c++) {
                double acc = 0;
                for (uint32_t j = 0; j < n; j++)
                    acc += p[j] * V[j * d + c];
                want[i * d + c] = (float)(acc / sum);
            }
        }
        float *got = (float *)(void *)read_out(dir, "O", (size_t)n * d * 4);
        rc = got ? compare_f32(s->nl > 1 ? "attention (unfused)" : k, got, want, (size_t)n * d, 1e-4) : 2;
        g_free(got);
        g_free(p);
        g_free(want);
    } else if (!strcmp(k, "stride_copy")) {
        uint32_t n = param_u32(s, 2), stride = param_u32(s, 3);
        const float *in = F(s, "in");
        float *want = g_new(float, n);
        for (uint32_t i = 0; i < n; i++)
            want[i] = in[(size_t)i * stride];
        float *got = (float *)(void *)read_out(dir, "out", (size_t)n * 4);
        rc = got ? compare_f32(k, got, want, n, 0) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "stencil3")) {
        uint32_t n = param_u32(s, 2);
        const float *in = F(s, "in");
        float *want = g_new(float, n);
        for (uint32_t i = 0; i < n; i++) {
            float l = i > 0 ? in[i - 1] : 0.0f, r = i + 1 < n ? in[i + 1] : 0.0f;
            want[i] = fmaf(0.25f, r, fmaf(0.5f, in[i], 0.25f * l));
        }
        float *got = (float *)(void *)read_out(dir, "out", (size_t)n * 4);
        rc = got ? compare_f32(k, got, want, n, 1e-6) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "spmv_csr")) {
        uint32_t rows = param_u32(s, 5);
        const int32_t *rp = (const int32_t *)(void *)gpu_launch_buffer(s, "rowptr")->data;
        const int32_t *col = (const int32_t *)(void *)gpu_launch_buffer(s, "col")->data;
        const float *val = F(s, "val"), *x = F(s, "x");
        float *want = g_new(float, rows);
        for (uint32_t r = 0; r < rows; r++) {
            double acc = 0;
            for (int32_t q = rp[r]; q < rp[r + 1]; q++)
                acc += (double)val[q] * x[col[q]];
            want[r] = (float)acc;
        }
        float *got = (float *)(void *)read_out(dir, "y", (size_t)rows * 4);
        rc = got ? compare_f32(k, got, want, rows, 1e-5) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "block_scan")) {
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const int32_t *v = (const int32_t *)(void *)in->data;
        int32_t *want = g_new(int32_t, in->count);
        for (uint64_t i = 0; i < in->count; i++)
            want[i] = (i % 256 ? want[i - 1] : 0) + v[i];
        rc = compare_out_i32(k, dir, want, in->count);
        g_free(want);
    } else if (!strcmp(k, "early_exit")) {
        /* v leaves the loop at in - 3 ceil(in / 3); out = s[(t + 1) % B] + v of lane + 1 (the
         * last lane of a warp its own) */
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const int32_t *x = (const int32_t *)(void *)in->data;
        uint32_t bs = s->l[0].block[0];
        int32_t *v = g_new(int32_t, in->count), *want = g_new(int32_t, in->count);
        for (uint64_t i = 0; i < in->count; i++)
            for (v[i] = x[i]; v[i] > 0;)
                v[i] -= 3;
        for (uint64_t i = 0; i < in->count; i++) {
            uint64_t t = i % bs, blk = i - t, lane = t % 32;
            want[i] = v[blk + (t + 1) % bs] + 100 + (lane < 31 ? v[i + 1] : v[i]);
        }
        rc = compare_out_i32(k, dir, want, in->count);
        g_free(v);
        g_free(want);
    } else if (!strcmp(k, "produce")) {
        /* produce, then consume: g[t] = 3t + 1 and the counter of 64 survive the launch */
        uint32_t *got = (uint32_t *)(void *)read_out(dir, "out", 65 * 4);
        if (got) {
            uint32_t bad = got[64] != 64;
            for (uint32_t i = 0; i < 64; i++)
                bad += got[i] != 3 * i + 1;
            printf("%s then consume: 65 values, %u differ\n", k, bad);
            rc = bad ? 1 : 0;
        }
        g_free(got);
    } else if (!strcmp(k, "bitonic512")) {
        const PtxBuffer *in = gpu_launch_buffer(s, "data");
        uint32_t *want = g_memdup2(in->data, in->bytes);
        for (uint64_t b = 0; b + 512 <= in->count; b += 512)
            qsort(want + b, 512, 4, cmp_u32);
        uint32_t *got = (uint32_t *)(void *)read_out(dir, "data", in->bytes);
        if (got) {
            rc = memcmp(got, want, in->bytes) ? 1 : 0;
            printf("%s: %" G_GUINT64_FORMAT " values, blocks of 512 %s\n", k, in->count,
                   rc ? "NOT sorted as the reference" : "sorted as the reference");
        }
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "bits")) {
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const uint32_t *v = (const uint32_t *)(void *)in->data;
        uint64_t n = in->count;
        int32_t *want = g_new(int32_t, 16 * n);
        for (uint64_t i = 0; i < n; i++) {
            uint32_t x = v[i], y = v[(i + 1) % n], c = v[(i + 7) % n], o[16];
            o[0] = ref_prmt(-1, x, y, c & 0x7777);          /* __byte_perm: 3-bit selectors */
            o[1] = ref_funnel(x, y, c, true, false);
            o[2] = ref_funnel(x, y, c >> 3, false, false);
            o[3] = ref_funnel(y, x, (c >> 7) & 63, true, true);
            o[4] = ref_funnel(y, x, (c >> 13) & 63, false, true);
            o[5] = ref_prmt(-1, x, y, c);
            for (int m = 0; m < 6; m++)
                o[6 + m] = ref_prmt(m, x, y, c >> (2 * m));
            o[12] = ref_bfi(x, y, c & 63, (c >> 6) & 63);
            o[13] = (x & y) | (x & c) | (y & c);
            o[14] = (x & y) | (~x & c);
            o[15] = x ^ y ^ c;
            memcpy(want + 16 * i, o, sizeof o);
        }
        rc = compare_out_i32(k, dir, want, 16 * n);
        g_free(want);
    } else if (!strcmp(k, "mathf")) {
        /* the host's libm (glibc: within 1 ulp) against CUDA's (the CUDA Programming Guide's
         * bounds: expf, tanhf, erff, sinf, cosf 2 ulp, log1pf 1, atan2f 3, fmodf exact): at
         * most 4 ulp apart, fmodf equal */
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const float *x = (const float *)(void *)in->data;
        uint64_t n = in->count;
        float *got = (float *)(void *)read_out(dir, "out", 8 * n * 4);
        if (got) {
            uint64_t bad = 0, worst = 0;
            for (uint64_t i = 0; i < n; i++) {
                /* nvcc contracts a * b + c into one fma (--fmad=true, its default) */
                float v = x[i], big = (v - 0.5f) * 2.0e7f, w[8] = {
                    expf(fmaf(v, 20.0f, -10.0f)), tanhf(fmaf(v, 6.0f, -3.0f)),
                    erff(fmaf(v, 4.0f, -2.0f)), sinf(big), cosf(big), fmodf(big, 0.37f),
                    log1pf(fmaf(v, 10.0f, -0.9f)), atan2f(v - 0.5f, 0.25f) };
                for (int f = 0; f < 8; f++) {
                    uint64_t u = ulps_apart(got[8 * i + f], w[f]);
                    worst = u > worst ? u : worst;
                    bad += u > (f == 5 ? 0u : 4u);
                }
            }
            printf("%s: %" G_GUINT64_FORMAT " values, %" G_GUINT64_FORMAT " beyond 4 ulp (fmodf: "
                   "0) of the host's libm, worst %" G_GUINT64_FORMAT " ulp\n", k, 8 * n, bad, worst);
            rc = bad ? 1 : 0;
        }
        g_free(got);
    } else if (!strcmp(k, "calls")) {
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const float *x = (const float *)(void *)in->data;
        float *want = g_new(float, in->count);
        for (uint64_t i = 0; i < in->count; i++) {
            float v = x[i], tw = v > 0.5f ? v * v + 3.0f : 2.0f * v;
            want[i] = (v * v + 1.0f) + ((v + 1.0f) * (v + 1.0f) + 2.0f) + tw;
        }
        float *got = (float *)(void *)read_out(dir, "out", in->count * 4);
        rc = got ? compare_f32(k, got, want, in->count, 1e-6) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "mathd")) {
        /* the host's libm against CUDA's (the Programming Guide: sin, cos, pow, exp, log within
         * 1 or 2 ulp): at most 4 ulp apart */
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const double *x = (const double *)(void *)in->data;
        uint64_t n = in->count;
        double *got = (double *)(void *)read_out(dir, "out", 4 * n * 8);
        if (got) {
            uint64_t bad = 0, worst = 0;
            for (uint64_t i = 0; i < n; i++) {
                double v = x[i] * 40.0 - 20.0, w[4] = { sin(v * 1e15), cos(v), pow(fabs(v), 0.3),
                                                        exp(v) + log(fabs(v) + 1.0) };
                for (int f = 0; f < 4; f++) {
                    int64_t gi, wi;
                    memcpy(&gi, &got[4 * i + f], 8);
                    memcpy(&wi, &w[f], 8);
                    uint64_t u = (gi < 0) != (wi < 0) ? UINT64_MAX
                               : (uint64_t)(gi > wi ? gi - wi : wi - gi);
                    worst = u > worst ? u : worst;
                    bad += u > 4;
                }
            }
            printf("%s: %" G_GUINT64_FORMAT " values, %" G_GUINT64_FORMAT " beyond 4 ulp of the "
                   "host's libm, worst %" G_GUINT64_FORMAT " ulp\n", k, 4 * n, bad, worst);
            rc = bad ? 1 : 0;
        }
        g_free(got);
    } else if (!strcmp(k, "hmath2")) {
        /* each half op: exact in double, rounded once to a half (IEEE 754 for add, sub, mul, and
         * for fma of halves, whose exact result is at most one double rounding from a half) */
        const PtxBuffer *ab = gpu_launch_buffer(s, "a"), *bb = gpu_launch_buffer(s, "b");
        const uint16_t *A = (const uint16_t *)(void *)ab->data, *Bh = (const uint16_t *)(void *)bb->data;
        uint64_t n = ab->count / 2;
        uint16_t *got = (uint16_t *)(void *)read_out(dir, "o", 12 * n);
        float *gf = (float *)(void *)read_out(dir, "f", 8 * n);
        if (got && gf) {
            uint64_t bad = 0;
            for (uint64_t i = 0; i < n; i++)
                for (int h = 0; h < 2; h++) {
                    double x = ref_unhalf(A[2 * i + h]), y = ref_unhalf(Bh[2 * i + h]);
                    double sum = ref_unhalf(ref_half(x + y));
                    double r = ref_unhalf(ref_half(fma(x, y, sum)));
                    r = ref_unhalf(ref_half(r * ref_unhalf(ref_half(x - y))));
                    uint16_t o0 = ref_half(fmax(r, -y));
                    float gx = (float)ref_unhalf(A[2 * i]), gy = (float)ref_unhalf(A[2 * i + 1]);
                    uint16_t o1 = ref_half(h ? (double)(gy - 1.0f) : (double)(gx * 3.0f));
                    uint16_t o2 = x > y ? 0x3c00 : 0;
                    bad += got[2 * i + h] != o0;
                    bad += got[2 * n + 2 * i + h] != o1;
                    bad += got[4 * n + 2 * i + h] != o2;
                }
            for (uint64_t i = 0; i < n; i++) {
                float x0 = (float)ref_unhalf(A[2 * i]), x1 = (float)ref_unhalf(A[2 * i + 1]);
                float y0 = (float)ref_unhalf(Bh[2 * i]), y1 = (float)ref_unhalf(Bh[2 * i + 1]);
                bad += gf[2 * i] != y0 + x0;
                bad += gf[2 * i + 1] != x1 * y1;
            }
            printf("%s: %" G_GUINT64_FORMAT " values, %" G_GUINT64_FORMAT " differ\n", k, 8 * n, bad);
            rc = bad ? 1 : 0;
        } else {
            rc = 2;
        }
        g_free(got);
        g_free(gf);
    } else if (!strcmp(k, "bmath")) {
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const float *x = (const float *)(void *)in->data;
        uint64_t n = in->count;
        float *got = (float *)(void *)read_out(dir, "out", 16 * n);
        uint32_t *gp = (uint32_t *)(void *)read_out(dir, "pk", 8 * n);
        if (got && gp) {
            uint64_t bad = 0;
            for (uint64_t i = 0; i < n; i++) {
                float v = fmaf(x[i], 8.0f, -4.0f), w = x[(i + 5) % n] * 2.0f;
                float bx = ref_unbf16(ref_bf16(v)), by = ref_unbf16(ref_bf16(w));
                float o[4] = { ref_unbf16(ref_bf16((float)((double)bx * by + 1.0))),
                               ref_unbf16(ref_bf16(bx + by)), ref_unbf16(ref_bf16(bx * by)),
                               ref_unbf16(ref_bf16(v * 3.0f)) };
                for (int f = 0; f < 4; f++)
                    bad += memcmp(&got[4 * i + f], &o[f], 4) != 0;
                uint16_t lo = ref_bf16(v), hi = ref_bf16(w);
                float l = ref_unbf16(lo), h = ref_unbf16(hi);
                uint32_t q = ref_bf16((float)((double)l * l + l)) |
                             (uint32_t)ref_bf16((float)((double)h * h + h)) << 16;
                bad += gp[2 * i] != q;
                bad += gp[2 * i + 1] != (lo | (uint32_t)hi << 16);
            }
            printf("%s: %" G_GUINT64_FORMAT " values, %" G_GUINT64_FORMAT " differ\n", k, 6 * n, bad);
            rc = bad ? 1 : 0;
        } else {
            rc = 2;
        }
        g_free(got);
        g_free(gp);
    } else if (!strcmp(k, "intrin")) {
        /* __ffs from the CUDA Math API (the lowest set bit, counted from 1; 0 for none), the
         * warp reductions over each 32 threads, __umul64hi as a 128-bit product */
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const uint32_t *v = (const uint32_t *)(void *)in->data;
        uint64_t n = in->count;
        uint32_t *want = g_new0(uint32_t, 6 * n), *xs = g_new(uint32_t, n);
        uint64_t *ys = g_new(uint64_t, n);
        for (uint64_t i = 0; i < n; i++) {
            xs[i] = v[i] >> (i % 32);
            ys[i] = ((uint64_t)v[(i + 3) % n] << 32 | v[(i + 9) % n]) >> (i % 64);
        }
        for (uint64_t w = 0; w < n; w += 32) {
            uint32_t add = 0, max = 0, or = 0;
            int32_t min = INT32_MAX;
            for (uint64_t i = w; i < w + 32 && i < n; i++) {
                add += xs[i] & 0xffff;
                max = xs[i] > max ? xs[i] : max;
                min = (int32_t)xs[i] < min ? (int32_t)xs[i] : min;
                or |= xs[i] & 0xff0;
            }
            for (uint64_t i = w; i < w + 32 && i < n; i++) {
                uint32_t f = xs[i] ? (uint32_t)__builtin_ctz(xs[i]) + 1 : 0;
                uint32_t fl = ys[i] ? (uint32_t)__builtin_ctzll(ys[i]) + 1 : 0;
                want[6 * i] = f + 64 * fl;
                want[6 * i + 1] = add ^ max;
                want[6 * i + 2] = (uint32_t)min + or;
                want[6 * i + 3] = (uint32_t)(((unsigned __int128)ys[i] * 0x9e3779b97f4a7c15ull) >> 64);
                /* __sad, __usad: |a - b| + c; __dp4a: c + the products of the bytes */
                int64_t p = (int32_t)v[i], q = (int32_t)v[(i + 1) % n];
                uint32_t sd = (uint32_t)(p > q ? p - q : q - p) + 7;
                sd += (xs[i] > v[i] ? xs[i] - v[i] : v[i] - xs[i]) + 1;
                want[6 * i + 4] = sd;
                uint32_t d1 = 5, d2 = 3;
                for (int b = 0; b < 4; b++) {
                    d1 += (uint32_t)((int8_t)(v[i] >> (8 * b)) * (int8_t)(v[(i + 2) % n] >> (8 * b)));
                    d2 += (xs[i] >> (8 * b) & 0xff) * (v[i] >> (8 * b) & 0xff);
                }
                want[6 * i + 5] = d1 + d2;
            }
        }
        rc = compare_out_i32(k, dir, (const int32_t *)(void *)want, 6 * n);
        g_free(want);
        g_free(xs);
        g_free(ys);
    } else if (!strcmp(k, "video")) {
        /* the SIMD video intrinsics as the CUDA Math API defines them, lane by lane: absolute
         * differences (unsigned or signed lanes, the byte or halfword of |x - y|), their sums,
         * wrapping adds and subtracts, maxima and minima, rounded (vavg) and truncated (vhadd)
         * averages, vcmpgt's all-ones lanes, vabs */
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const uint32_t *v = (const uint32_t *)(void *)in->data;
        uint64_t n = in->count;
        uint32_t *want = g_new0(uint32_t, 12 * n);
        for (uint64_t i = 0; i < n; i++) {
            uint32_t x = v[i], y = v[(i + 5) % n], *o = want + 12 * i;
            for (int w = 8; w <= 16; w += 8) {
                uint32_t m = (1u << w) - 1, lanes = 32 / w, du = 0, ds = 0, su = 0, ss = 0;
                for (uint32_t l = 0; l < lanes; l++) {
                    uint32_t a = x >> (w * l) & m, b = y >> (w * l) & m;
                    int32_t sa = a >> (w - 1) ? (int32_t)a - (1 << w) : (int32_t)a;
                    int32_t sb = b >> (w - 1) ? (int32_t)b - (1 << w) : (int32_t)b;
                    uint32_t u = a > b ? a - b : b - a, t = (uint32_t)abs(sa - sb);
                    du |= (u & m) << (w * l);
                    ds |= (t & m) << (w * l);
                    su += u;
                    ss += t;
                }
                o[w == 8 ? 0 : 4] = du;
                o[w == 8 ? 1 : 5] = su;
                o[w == 8 ? 2 : 6] = ds;
                o[w == 8 ? 3 : 7] = ss;
            }
            uint32_t add = 0, sub = 0, mx = 0, mn = 0, avg = 0, gt = 0, hadd = 0, ab = 0;
            for (int l = 0; l < 4; l++) {
                uint32_t a = x >> (8 * l) & 0xff, b = y >> (8 * l) & 0xff;
                int32_t sa = (int8_t)a, sb = (int8_t)b;
                add |= ((a + b) & 0xff) << (8 * l);
                sub |= ((a - b) & 0xff) << (8 * l);
                mx |= (a > b ? a : b) << (8 * l);
                mn |= ((uint32_t)(sa < sb ? sa : sb) & 0xff) << (8 * l);
                avg |= ((a + b + 1) >> 1) << (8 * l);
                gt |= (a > b ? 0xffu : 0u) << (8 * l);
                ab |= ((uint32_t)abs(sa) & 0xff) << (8 * l);
            }
            for (int l = 0; l < 2; l++) {
                uint32_t a = x >> (16 * l) & 0xffff, b = y >> (16 * l) & 0xffff;
                hadd |= ((a + b) >> 1) << (16 * l);
            }
            o[8] = add ^ sub;
            o[9] = mx + mn;
            o[10] = avg ^ gt;
            o[11] = hadd + ab;
        }
        rc = compare_out_i32(k, dir, (const int32_t *)(void *)want, 12 * n);
        g_free(want);
    } else if (!strcmp(k, "pack")) {
        const PtxBuffer *in = gpu_launch_buffer(s, "in");
        const uint8_t *b = in->data;
        uint64_t n = in->count / 4;
        int32_t *want = g_new(int32_t, n);
        for (uint64_t i = 0; i < n; i++) {
            uint32_t w = b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)(b[4 * i + 2] & 15) << 16 |
                         (uint32_t)b[4 * i + 3] << 24;
            want[i] = (int32_t)(w << 13 | w >> 19);
        }
        rc = compare_out_i32(k, dir, want, n);
        g_free(want);
    } else if (!strcmp(k, "ddot")) {
        const PtxBuffer *a = gpu_launch_buffer(s, "a"), *b = gpu_launch_buffer(s, "b");
        const double *x = (const double *)(void *)a->data, *y = (const double *)(void *)b->data;
        double want = 0;
        for (uint64_t i = 0; i < a->count; i++)
            want += x[i] * y[i];
        double *got = (double *)(void *)read_out(dir, "out", 8);
        if (got) {
            double err = fabs(*got - want) / fabs(want);
            printf("%s: %.12g, reference %.12g (relative %.3g)\n", k, *got, want, err);
            rc = err <= 1e-12 ? 0 : 1;
        }
        g_free(got);
    } else if (g_str_has_prefix(k, "hist_")) {
        uint32_t n = param_u32(s, 2);
        const uint8_t *in = gpu_launch_buffer(s, "in")->data;
        uint32_t want[256] = { 0 };
        for (uint32_t i = 0; i < n; i++)
            want[in[i]]++;
        uint32_t *got = (uint32_t *)(void *)read_out(dir, "bins", sizeof want);
        if (got) {
            uint32_t bad = 0;
            for (int i = 0; i < 256; i++)
                bad += got[i] != want[i];
            printf("%s bins: 256 values, %u differ\n", k, bad);
            rc = bad ? 1 : 0;
        }
        g_free(got);
    } else if (!strcmp(k, "stream")) {
        /* tests/gpu/ptx/async.cu: the sums its double buffer delivers (in double, within a
         * relative 1e-5: nvcc contracts the float sum into fmas) */
        uint32_t tiles = param_u32(s, 2), nb = s->l[0].grid[0];
        const float *in = F(s, "in");
        float *want = g_new0(float, (size_t)nb * 64);
        for (uint32_t b = 0; b < nb; b++)
            for (uint32_t t = 0; t < 64; t++) {
                double acc = 0;
                for (uint32_t i = 0; i < tiles; i++) {
                    const float *v = &in[(b * tiles + i) * 256 + 4 * t];
                    const float *u = &in[(b * tiles + i) * 256 + 4 * ((t + 1) % 64)];
                    acc += (double)v[0] + 2.0 * v[1] + 3.0 * v[2] + 4.0 * v[3] + u[0] - u[3];
                }
                want[b * 64 + t] = (float)acc;
            }
        float *got = (float *)(void *)read_out(dir, "out", (size_t)nb * 64 * 4);
        rc = got ? compare_f32("stream out", got, want, (size_t)nb * 64, 1e-5) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "ragged")) {
        /* the copies with src-size below their size: the bytes read, then zeros */
        uint32_t n = param_u32(s, 2);
        const int32_t *in = (const int32_t *)(const void *)gpu_launch_buffer(s, "in")->data;
        int32_t want[128];
        for (uint32_t t = 0; t < 64; t++) {
            want[t] = t < n ? in[t] : 0;
            want[64 + t] = -1;
        }
        for (uint32_t t = 0; t < 32; t++) {
            uint32_t words = t % 3;             /* 0, 4 or 8 bytes read of 8 */
            want[64 + 2 * t] = words >= 1 ? in[2 * t] : 0;
            want[64 + 2 * t + 1] = words >= 2 ? in[2 * t + 1] : 0;
        }
        rc = compare_out_i32(k, dir, want, 128);
    } else if (!strcmp(k, "say")) {
        /* tests/gpu/ptx/printf.cu: it only reads x (its printed lines are checked by
         * tests/regress/gpu-ptx.sh against printf.expected) */
        uint64_t n = gpu_launch_buffer(s, "x")->count;
        float *want = g_new(float, n);
        for (uint64_t i = 0; i < n; i++)
            want[i] = (float)i;
        float *got = (float *)(void *)read_out(dir, "x", n * 4);
        rc = got ? compare_f32("say x", got, want, n, 0) : 2;
        g_free(got);
        g_free(want);
    } else if (!strcmp(k, "llama_rmsnorm") || !strcmp(k, "llama_norm_gemv")) {
        rc = ref_llama(s, dir);
    } else if (!strcmp(k, "mma_gemm") || !strcmp(k, "mma_trans") || !strcmp(k, "mma_bf8")) {
        rc = ref_mma(s, k, dir);
    } else if (!strcmp(k, "wgemm") || !strcmp(k, "wgemm_h") || !strcmp(k, "wgemm_bf")) {
        /* tests/gpu/ptx/wmma.cu: each 16-deep step of the product summed exactly (in double),
         * added to the accumulator and rounded once to its type, as the PTX ISA's wmma.mma
         * defines D = A B + C; the layouts as the CUDA source stores each matrix */
        rc = ref_wmma(s, k, dir);
    } else {
        fprintf(stderr, "gpu_ref: no reference for entry %s\n", k);
    }
    gpu_launch_free(s);
    return rc;
}
