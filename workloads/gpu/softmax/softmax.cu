// Row softmax of an R x N matrix, one block of 256 threads per row: naive (three passes over
// the row in global memory: the maximum, the sum of exponentials, the outputs) and online
// (Milakov and Gimelshein, "Online normalizer calculation for softmax", 2018: one pass keeps a
// running maximum and a sum rescaled when the maximum grows, as fused attention does), both
// reducing across the block through shared memory.
#define BLOCK 256

__device__ __forceinline__ float block_max(float v, float *s)
{
    unsigned t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] = fmaxf(s[t], s[t + k]);
        __syncthreads();
    }
    float r = s[0];
    __syncthreads();
    return r;
}

__device__ __forceinline__ float block_sum(float v, float *s)
{
    unsigned t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    float r = s[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void softmax_naive(const float *x, float *y, int n)
{
    __shared__ float s[BLOCK];
    const float *row = x + (size_t)blockIdx.x * n;
    float *out = y + (size_t)blockIdx.x * n;
    float m = -INFINITY;
    for (int i = threadIdx.x; i < n; i += BLOCK)
        m = fmaxf(m, row[i]);
    m = block_max(m, s);
    float sum = 0.0f;
    for (int i = threadIdx.x; i < n; i += BLOCK)
        sum += __expf(row[i] - m);
    sum = block_sum(sum, s);
    for (int i = threadIdx.x; i < n; i += BLOCK)
        out[i] = __expf(row[i] - m) / sum;
}

extern "C" __global__ void softmax_online(const float *x, float *y, int n)
{
    __shared__ float s[BLOCK];
    const float *row = x + (size_t)blockIdx.x * n;
    float *out = y + (size_t)blockIdx.x * n;
    float m = -INFINITY, d = 0.0f;
    for (int i = threadIdx.x; i < n; i += BLOCK) {
        float v = row[i], mn = fmaxf(m, v);
        d = d * __expf(m - mn) + __expf(v - mn);
        m = mn;
    }
    float M = block_max(m, s);
    float D = block_sum(d * __expf(m - M), s);
    for (int i = threadIdx.x; i < n; i += BLOCK)
        out[i] = __expf(row[i] - M) / D;
}
