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
// a lane, 16 bytes, per step); the head dimension is 64.
#define HD 64
#define HALF (HD / 2)

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

// dimensions i and i + 32 of head v turned by pos * base^(-i / 32)
__device__ __forceinline__ void rope_pair(float *v, int i, int pos, float base)
{
    float ang = pos * powf(base, -(float)i / HALF), s, c;
    sincosf(ang, &s, &c);
    float a = v[i], b = v[i + HALF];
    v[i] = a * c - b * s;
    v[i + HALF] = b * c + a * s;
}

// rotary embedding of the first `heads` heads of qk in place (the query heads, then the key
// heads): dimension i and i + 32 of a head turn by pos * base^(-i / 32)
extern "C" __global__ void llama_rope(float *qk, int heads, int pos, float base)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= heads * HALF)
        return;
    rope_pair(qk + t / HALF * HD, t % HALF, pos, base);
}

// the token's keys and values (qkv holds nh query heads, kvh key heads, kvh value heads) into
// the caches (kvh x ctx x 64 bfloat16 each) at pos
extern "C" __global__ void llama_kv_append(const float *qkv, unsigned short *kc,
                                           unsigned short *vc, int nh, int kvh, int ctx, int pos)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= kvh * HD)
        return;
    const float *k = qkv + nh * HD, *v = k + kvh * HD;
    size_t at = ((size_t)(t / HD) * ctx + pos) * HD + t % HD;
    kc[at] = bf_round(k[t]);
    vc[at] = bf_round(v[t]);
}

// attention of one query head (a block of 8 warps) over the len cached positions of its key
// and value head. A warp takes every eighth position, its lanes two dimensions each, so a key
// or value row (64 bfloat16, 128 bytes) is one coalesced load of the warp; the eight partial
// sums of the values meet in shared memory. `len` floats of dynamic shared memory hold the
// scores.
#define AW 8
extern "C" __global__ void llama_attention(const float *q, const unsigned short *kc,
                                           const unsigned short *vc, float *out, int nh, int kvh,
                                           int ctx, int len, float scale)
{
    extern __shared__ float sc[];
    __shared__ float red[AW], part[AW][HD];
    int h = blockIdx.x, g = h / (nh / kvh), t = threadIdx.x, w = t >> 5, l = t & 31;
    const unsigned *K = (const unsigned *)(kc + (size_t)g * ctx * HD);
    const unsigned *V = (const unsigned *)(vc + (size_t)g * ctx * HD);
    float q0 = q[h * HD + 2 * l], q1 = q[h * HD + 2 * l + 1];
    float m = -INFINITY;
    // four rows' loads issued before any of their sums (as ptxas would schedule them)
    for (int j0 = w; j0 < len; j0 += 4 * AW) {
        unsigned u[4];
        for (int r = 0; r < 4; r++)
            u[r] = j0 + r * AW < len ? K[(size_t)(j0 + r * AW) * (HD / 2) + l] : 0u;
        for (int r = 0; r < 4 && j0 + r * AW < len; r++) {
            float s = warp_sum(bf_lo(u[r]) * q0 + bf_hi(u[r]) * q1) * scale;
            if (l == 0)
                sc[j0 + r * AW] = s;
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
    for (int j = t; j < len; j += AW * 32) {
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
    float a0 = 0.0f, a1 = 0.0f;
    for (int j0 = w; j0 < len; j0 += 4 * AW) {
        unsigned u[4];
        for (int r = 0; r < 4; r++)
            u[r] = j0 + r * AW < len ? V[(size_t)(j0 + r * AW) * (HD / 2) + l] : 0u;
        for (int r = 0; r < 4 && j0 + r * AW < len; r++) {
            a0 += sc[j0 + r * AW] * bf_lo(u[r]);
            a1 += sc[j0 + r * AW] * bf_hi(u[r]);
        }
    }
    part[w][2 * l] = a0;
    part[w][2 * l + 1] = a1;
    __syncthreads();
    if (t < HD) {
        float o = 0.0f;
        for (int i = 0; i < AW; i++)
            o += part[i][t];
        out[h * HD + t] = o / sum;
    }
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
                                         int nh, int kvh, int ctx, int pos, float base)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (nh + kvh) * HALF)
        return;
    int h = t / HALF, i = t % HALF;
    float *v = qkv + h * HD;
    rope_pair(v, i, pos, base);
    float ra = v[i], rb = v[i + HALF];
    if (h >= nh) {
        int kh = h - nh;
        size_t at = ((size_t)kh * ctx + pos) * HD + i;
        const float *val = qkv + (nh + kvh) * HD + kh * HD;
        kc[at] = bf_round(ra);
        kc[at + HALF] = bf_round(rb);
        vc[at] = bf_round(val[i]);
        vc[at + HALF] = bf_round(val[i + HALF]);
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
