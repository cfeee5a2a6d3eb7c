// A 256-bin histogram of bytes: every thread adds to the bins in global memory (atomics at
// the L2), or each block first counts in shared memory and adds its 256 bins once (the
// privatisation of CS149 L5 / Kirk and Hwu, "Programming Massively Parallel Processors", ch. 9).
extern "C" __global__ void hist_global(const unsigned char *in, unsigned *bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[in[i]], 1u);
}

extern "C" __global__ void hist_shared(const unsigned char *in, unsigned *bins, int n)
{
    __shared__ unsigned h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&h[in[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        atomicAdd(&bins[i], h[i]);
}
