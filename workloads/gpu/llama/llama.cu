// One decoder layer of a Llama-style transformer at one decode step (batch 1, the token at
// position `pos` attending to the `pos + 1` keys and values of its cache): RMSNorm (Zhang and
// Sennrich, NeurIPS 2019), rotary position embeddings (Su et al., "RoFormer", 2021; the
// rotate-half pairing of Hugging Face's Llama code, dimension i with i + d/2), grouped-query
// attention (Ainslie et al., EMNLP 2023: each key/value head serves nh / nkv query heads) and a
// SwiGLU MLP (Shazeer, 2020), as Llama 3 (Grattafiori et al., 2024) has them. Weights and the
// KV cache are bfloat16, the activations f32; the weights are read once per token, which is
// what makes decode bound by memory bandwidth.
//
// Two ways to run it, launch.yaml files beside this one:
//   eager/  one kernel per operation, as an eager framework launches them (13 kernels)
//   fused/  the norm folded into the projections that read it, RoPE with the cache append,
//           the residual adds into the projections' epilogues, SiLU into the gate/up
//           projection (6 kernels)
//
// Shapes: the hidden size n and the MLP's width f are multiples of 256 (a warp reads 8 weights
// a lane, 16 bytes, per step); the head dimension hd is 64, 128 or 256 (a lane of the attention
// holds hd / 32 of a row's values).
#define MAXP 4                      // pairs of dimensions a lane holds: hd / 64, at most 4

// bfloat16 is the high half of an f32
__device__ __forceinline__ float bf_lo(unsigned u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float bf_hi(unsigned u) { return __uint_as_float(u & 0xffff0000u); }
__device__ __forceinline__ unsigned short bf_round(float f)
{
    unsigned u = __float_as_uint(f);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);    // nearest, ties to even
}

__device__ __forceinline__ float warp_sum(float s)
{
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    return s;
}

// the sum of x[i]^2 over the block (every thread gets it); blockDim.x a multiple of 32
__device__ float block_sumsq(const float *x, int n)
{
    __shared__ float part[32];
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += x[i] * x[i];
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0f;
        s = warp_sum(s);
        if (threadIdx.x == 0)
            part[0] = s;
    }
    __syncthreads();
    return part[0];
}

// one row's dot product with x: the warp's lanes take 8 weights (16 bytes) a step
__device__ __forceinline__ float row_dot(const unsigned short *W, const float *x, int row, int cols)
{
    const uint4 *w = (const uint4 *)(W + (size_t)row * cols);
    float acc = 0.0f;
    for (int c = threadIdx.x & 31; c < cols / 8; c += 32) {
        uint4 v = w[c];
        float4 a = ((const float4 *)x)[2 * c], b = ((const float4 *)x)[2 * c + 1];
        acc += bf_lo(v.x) * a.x + bf_hi(v.x) * a.y + bf_lo(v.y) * a.z + bf_hi(v.y) * a.w +
               bf_lo(v.z) * b.x + bf_hi(v.z) * b.y + bf_lo(v.w) * b.z + bf_hi(v.w) * b.w;
    }
    return warp_sum(acc);
}

// ---- eager: one kernel per operation ----

// y = x / sqrt(mean(x^2) + eps) * w; one block
extern "C" __global__ void llama_rmsnorm(const float *x, const unsigned short *w, float *y, int n,
                                         float eps)
{
    float r = rsqrtf(block_sumsq(x, n) / n + eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        y[i] = x[i] * r * __uint_as_float((unsigned)w[i] << 16);
}

// y = W x, W rows x cols bfloat16 row-major; a warp per row
extern "C" __global__ void llama_gemv(const unsigned short *W, const float *x, float *y, int rows,
                                      int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= rows)
        return;
    float s = row_dot(W, x, row, cols);
    if ((threadIdx.x & 31) == 0)
        y[row] = s;
}

// dimensions i and i + hd/2 of head v turned by pos * base^(-i / (hd/2))
__device__ __forceinline__ void rope_pair(float *v, int i, int half, int pos, float base)
{
    float ang = pos * powf(base, -(float)i / half), s, c;
    sincosf(ang, &s, &c);
    float a = v[i], b = v[i + half];
    v[i] = a * c - b * s;
    v[i + half] = b * c + a * s;
}

// rotary embedding of the first `heads` heads of qk in place (the query heads, then the key
// heads)
extern "C" __global__ void llama_rope(float *qk, int heads, int hd, int pos, float base)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, half = hd / 2;
    if (t >= heads * half)
        return;
    rope_pair(qk + t / half * hd, t % half, half, pos, base);
}

// the token's keys and values (qkv holds nh query heads, kvh key heads, kvh value heads) into
// the caches (kvh x ctx x hd bfloat16 each) at pos
extern "C" __global__ void llama_kv_append(const float *qkv, unsigned short *kc,
                                           unsigned short *vc, int nh, int kvh, int hd, int ctx,
                                           int pos)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= kvh * hd)
        return;
    const float *k = qkv + nh * hd, *v = k + kvh * hd;
    size_t at = ((size_t)(t / hd) * ctx + pos) * hd + t % hd;
    kc[at] = bf_round(k[t]);
    vc[at] = bf_round(v[t]);
}

// attention of query head blockIdx.x (a block of 8 warps) over cached positions lo..hi-1 of its
// key and value head. A warp takes every eighth position; lane l holds dimensions 2l, 2l + 1 of
// each 64 (NP = hd / 64 of them), so a key or value row is NP coalesced loads of the warp (128
// bytes each); the eight partial sums of the values meet in shared memory. hi - lo floats of
// dynamic shared memory hold the scores. The positions are split among blocks as in
// Flash-Decoding (Dao, Haziza, Massa and Sizov, 2023): out gets this split's sum of
// e^(score - m) V, ml its maximum score m and its sum l of e^(score - m);
// llama_attention_combine makes the splits one.
#define AW 8
// a warp's four rows j0, j0 + 8, j0 + 16, j0 + 24 (those before hi) of a cache, lane l's words
// of each 64 dimensions: every load issued before any is used (as ptxas would schedule them)
template <int NP>
__device__ __forceinline__ void load_rows(const unsigned *M, int j0, int hi, int rw, int l,
                                          unsigned u[4][NP])
{
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
        for (int c = 0; c < NP; c++)
            u[r][c] = j0 + r * AW < hi ? M[(size_t)(j0 + r * AW) * rw + 32 * c + l] : 0u;
}

template <int NP>
__device__ void attention(const float *q, const unsigned short *kc, const unsigned short *vc,
                          float *out, float *ml, int nh, int kvh, int ctx, int lo, int hi,
                          float scale)
{
    extern __shared__ float sc[];
    __shared__ float red[AW], part[AW][64 * MAXP];
    const int hd = 64 * NP, rw = hd / 2;      // a row: rw 32-bit words
    int h = blockIdx.x, g = h / (nh / kvh), t = threadIdx.x, w = t >> 5, l = t & 31;
    const unsigned *K = (const unsigned *)(kc + (size_t)g * ctx * hd);
    const unsigned *V = (const unsigned *)(vc + (size_t)g * ctx * hd);
    float q0[NP], q1[NP];
#pragma unroll
    for (int c = 0; c < NP; c++) {
        q0[c] = q[h * hd + 64 * c + 2 * l];
        q1[c] = q[h * hd + 64 * c + 2 * l + 1];
    }
    float m = -INFINITY;
    for (int j0 = lo + w; j0 < hi; j0 += 4 * AW) {
        unsigned u[4][NP];
        load_rows<NP>(K, j0, hi, rw, l, u);
        for (int r = 0; r < 4 && j0 + r * AW < hi; r++) {
            float d = 0.0f;
#pragma unroll
            for (int c = 0; c < NP; c++)
                d += bf_lo(u[r][c]) * q0[c] + bf_hi(u[r][c]) * q1[c];
            float s = warp_sum(d) * scale;
            if (l == 0)
                sc[j0 + r * AW - lo] = s;
            m = fmaxf(m, s);
        }
    }
    if (l == 0)
        red[w] = m;
    __syncthreads();
    m = red[0];
    for (int i = 1; i < AW; i++)
        m = fmaxf(m, red[i]);
    float sum = 0.0f;
    for (int j = t; j < hi - lo; j += AW * 32) {
        float e = expf(sc[j] - m);
        sc[j] = e;
        sum += e;
    }
    sum = warp_sum(sum);
    __syncthreads();                 // every thread has read red[] and written sc[]
    if (l == 0)
        red[w] = sum;
    __syncthreads();
    sum = 0.0f;
    for (int i = 0; i < AW; i++)
        sum += red[i];
    float a0[NP], a1[NP];
#pragma unroll
    for (int c = 0; c < NP; c++)
        a0[c] = a1[c] = 0.0f;
    for (int j0 = lo + w; j0 < hi; j0 += 4 * AW) {
        unsigned u[4][NP];
        load_rows<NP>(V, j0, hi, rw, l, u);
        for (int r = 0; r < 4 && j0 + r * AW < hi; r++) {
            float p = sc[j0 + r * AW - lo];
#pragma unroll
            for (int c = 0; c < NP; c++) {
                a0[c] += p * bf_lo(u[r][c]);
                a1[c] += p * bf_hi(u[r][c]);
            }
        }
    }
#pragma unroll
    for (int c = 0; c < NP; c++) {
        part[w][64 * c + 2 * l] = a0[c];
        part[w][64 * c + 2 * l + 1] = a1[c];
    }
    __syncthreads();
    if (t < hd) {
        float o = 0.0f;
        for (int i = 0; i < AW; i++)
            o += part[i][t];
        out[t] = o;
    }
    if (t == 0) {
        ml[0] = m;
        ml[1] = sum;
    }
}

#define ATTENTION(...)                                                                        \
    do {                                                                                      \
        if (hd == 64)                                                                         \
            attention<1>(__VA_ARGS__);                                                        \
        else if (hd == 128)                                                                   \
            attention<2>(__VA_ARGS__);                                                        \
        else if (hd == 256)                                                                   \
            attention<4>(__VA_ARGS__);                                                        \
        else                                                                                  \
            __trap();                                                                         \
    } while (0)

// the attention above, split over the positions: block (h, s) takes positions s * chunk to
// s * chunk + chunk - 1 of len (heads of 64, 128 or 256 dimensions) and leaves its partial
// output in po (nh x splits x hd) and its maximum and sum in pml (nh x splits x 2); a grid of
// nh x 1 is one block per head
extern "C" __global__ void llama_attention(const float *q, const unsigned short *kc,
                                           const unsigned short *vc, float *po, float *pml, int nh,
                                           int kvh, int hd, int ctx, int len, int chunk,
                                           float scale)
{
    int at = blockIdx.x * gridDim.y + blockIdx.y, lo = blockIdx.y * chunk;
    int hi = min(len, lo + chunk);
    if (lo >= hi) {                  // no positions: a split that adds nothing
        if (threadIdx.x == 0) {
            pml[2 * at] = -INFINITY;
            pml[2 * at + 1] = 0.0f;
        }
        if (threadIdx.x < hd)
            po[(size_t)at * hd + threadIdx.x] = 0.0f;
        return;
    }
    ATTENTION(q, kc, vc, po + (size_t)at * hd, pml + 2 * at, nh, kvh, ctx, lo, hi, scale);
}

// the splits of each head (a block of hd threads) made one: o = sum_s e^(m_s - M) o_s /
// sum_s e^(m_s - M) l_s, M the largest m_s
extern "C" __global__ void llama_attention_combine(const float *po, const float *pml, float *out,
                                                   int hd, int splits)
{
    int h = blockIdx.x, t = threadIdx.x;
    if (t >= hd)
        return;
    const float *ml = pml + (size_t)h * splits * 2;
    float M = -INFINITY;
    for (int s = 0; s < splits; s++)
        M = fmaxf(M, ml[2 * s]);
    float o = 0.0f, l = 0.0f;
    for (int s = 0; s < splits; s++) {
        if (ml[2 * s + 1] == 0.0f)
            continue;
        float f = expf(ml[2 * s] - M);
        o += f * po[((size_t)h * splits + s) * hd + t];
        l += f * ml[2 * s + 1];
    }
    out[h * hd + t] = o / l;
}

// x += d (the residual connection)
extern "C" __global__ void llama_add(float *x, const float *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += d[i];
}

// h = silu(g) * u = g / (1 + e^-g) * u
extern "C" __global__ void llama_silu_mul(const float *g, const float *u, float *h, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        h[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
}

// ---- fused ----

// xn = rmsnorm(x) * w into shared memory, the whole block
__device__ void norm_to_shared(const float *x, const unsigned short *w, float *xn, int n,
                               float eps)
{
    float r = rsqrtf(block_sumsq(x, n) / n + eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        xn[i] = x[i] * r * __uint_as_float((unsigned)w[i] << 16);
    __syncthreads();
}

// y = W (rmsnorm(x) * w): every block normalizes x into shared memory (n floats of dynamic
// shared memory), then a warp per row
extern "C" __global__ void llama_norm_gemv(const float *x, const unsigned short *w,
                                           const unsigned short *W, float *y, int rows, int n,
                                           float eps)
{
    extern __shared__ float xn[];
    norm_to_shared(x, w, xn, n, eps);
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= rows)
        return;
    float s = row_dot(W, xn, row, n);
    if ((threadIdx.x & 31) == 0)
        y[row] = s;
}

// RoPE on the query and key heads, and the rotated keys and the values into the caches
extern "C" __global__ void llama_rope_kv(float *qkv, unsigned short *kc, unsigned short *vc,
                                         int nh, int kvh, int hd, int ctx, int pos, float base)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, half = hd / 2;
    if (t >= (nh + kvh) * half)
        return;
    int h = t / half, i = t % half;
    float *v = qkv + h * hd;
    rope_pair(v, i, half, pos, base);
    if (h >= nh) {
        int kh = h - nh;
        size_t at = ((size_t)kh * ctx + pos) * hd + i;
        const float *val = qkv + (nh + kvh) * hd + kh * hd;
        kc[at] = bf_round(v[i]);
        kc[at + half] = bf_round(v[i + half]);
        vc[at] = bf_round(val[i]);
        vc[at + half] = bf_round(val[i + half]);
    }
}

// x += W a: the projection with the residual add in its epilogue
extern "C" __global__ void llama_gemv_add(const unsigned short *W, const float *a, float *x,
                                          int rows, int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= rows)
        return;
    float s = row_dot(W, a, row, cols);
    if ((threadIdx.x & 31) == 0)
        x[row] += s;
}

// h = silu(Wg xn) * (Wu xn), xn = rmsnorm(x) * w: both projections of a row by one warp
extern "C" __global__ void llama_norm_swiglu(const float *x, const unsigned short *w,
                                             const unsigned short *Wg, const unsigned short *Wu,
                                             float *h, int rows, int n, float eps)
{
    extern __shared__ float xn[];
    norm_to_shared(x, w, xn, n, eps);
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= rows)
        return;
    float g = row_dot(Wg, xn, row, n), u = row_dot(Wu, xn, row, n);
    if ((threadIdx.x & 31) == 0)
        h[row] = g / (1.0f + expf(-g)) * u;
}
