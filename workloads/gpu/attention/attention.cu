// Single-head attention O = softmax(Q K^T / sqrt(d)) V for N queries and keys of d = 64
// floats (row-major N x d). Unfused: three kernels, S = Q K^T / sqrt(d) (N x N, written to
// global memory), a row softmax of S in place, O = S V. Fused (Dao et al., "FlashAttention",
// NeurIPS 2022): one block per 16 queries walks the keys in tiles of 64 through shared memory,
// keeping each query's running maximum and sum (the online softmax) and its output row, so
// the N x N matrix is never stored.
#define D 64
#define BQ 16
#define BK 64

extern "C" __global__ void attn_scores(const float *Q, const float *K, float *S, int n, float scale)
{
    int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < D; k++)
        acc += Q[i * D + k] * K[j * D + k];
    S[i * n + j] = acc * scale;
}

extern "C" __global__ void attn_softmax(float *S, int n)
{
    __shared__ float red[256];
    float *row = S + (size_t)blockIdx.x * n;
    unsigned t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < n; i += 256)
        m = fmaxf(m, row[i]);
    red[t] = m;
    __syncthreads();
    for (unsigned k = 128; k > 0; k >>= 1) {
        if (t < k)
            red[t] = fmaxf(red[t], red[t + k]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int i = t; i < n; i += 256)
        sum += __expf(row[i] - m);
    red[t] = sum;
    __syncthreads();
    for (unsigned k = 128; k > 0; k >>= 1) {
        if (t < k)
            red[t] += red[t + k];
        __syncthreads();
    }
    sum = red[0];
    for (int i = t; i < n; i += 256)
        row[i] = __expf(row[i] - m) / sum;
}

extern "C" __global__ void attn_pv(const float *P, const float *V, float *O, int n)
{
    int i = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.0f;
    for (int j = 0; j < n; j++)
        acc += P[i * n + j] * V[j * D + c];
    O[i * D + c] = acc;
}

// 16 queries per block, 64 threads: thread (q, part) = (t / 4, t % 4) owns 16 of query q's 64
// output columns
extern "C" __global__ void attn_fused(const float *Q, const float *K, const float *V, float *O,
                                      int n, float scale)
{
    __shared__ float Ks[BK][D + 1], Vs[BK][D];
    __shared__ float Qs[BQ][D];
    __shared__ float Ss[BQ][BK];
    int t = threadIdx.x, q = t / 4, part = t % 4;
    int q0 = blockIdx.x * BQ;
    for (int x = t; x < BQ * D; x += 64)
        Qs[x / D][x % D] = Q[(q0 + x / D) * D + x % D];
    float m = -INFINITY, l = 0.0f, acc[16];
    for (int c = 0; c < 16; c++)
        acc[c] = 0.0f;
    for (int k0 = 0; k0 < n; k0 += BK) {
        __syncthreads();
        for (int x = t; x < BK * D; x += 64) {
            Ks[x / D][x % D] = K[(k0 + x / D) * D + x % D];
            Vs[x / D][x % D] = V[(k0 + x / D) * D + x % D];
        }
        __syncthreads();
        // scores of query q against 16 of the tile's keys (this thread's quarter)
        for (int j = part * 16; j < part * 16 + 16; j++) {
            float s = 0.0f;
            for (int k = 0; k < D; k++)
                s += Qs[q][k] * Ks[j][k];
            Ss[q][j] = s * scale;
        }
        __syncthreads();
        float mt = m;
        for (int j = 0; j < BK; j++)
            mt = fmaxf(mt, Ss[q][j]);
        float corr = __expf(m - mt);
        l *= corr;
        for (int c = 0; c < 16; c++)
            acc[c] *= corr;
        for (int j = 0; j < BK; j++) {
            float p = __expf(Ss[q][j] - mt);
            l += p;
            for (int c = 0; c < 16; c++)
                acc[c] += p * Vs[j][part * 16 + c];
        }
        m = mt;
    }
    /* the block's 16 output rows through shared memory, so that the stores are coalesced */
    __syncthreads();
    for (int c = 0; c < 16; c++)
        Qs[q][part * 16 + c] = acc[c] / l;
    __syncthreads();
    for (int x = t; x < BQ * D; x += 64)
        O[(q0 + x / D) * D + x % D] = Qs[x / D][x % D];
}
