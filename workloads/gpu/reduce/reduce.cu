// Sum reduction, three ways (Harris, "Optimizing Parallel Reduction in CUDA", NVIDIA 2007):
// interleaved addressing (divergent, bank conflicts), sequential addressing in shared memory,
// and warp shuffles. Each block writes its partial sum to out[blockIdx.x].
extern "C" __global__ void reduce_interleaved(const float *in, float *out, int n)
{
    extern __shared__ float s[];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = 1; k < blockDim.x; k *= 2) {
        if (t % (2 * k) == 0)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_sequential(const float *in, float *out, int n)
{
    extern __shared__ float s[];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_shuffle(const float *in, float *out, int n)
{
    __shared__ float warp_sums[32];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (t % 32 == 0)
        warp_sums[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < blockDim.x / 32 ? warp_sums[t] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0)
            out[blockIdx.x] = v;
    }
}
