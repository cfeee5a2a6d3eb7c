// sync.cu: a warp-synchronous instruction after a loop that may return (tests/gpu/ptx/README.md).
// Because of the `return`, the loop branch reconverges only at the kernel's end, so lanes that
// left the loop early must still wait at __syncthreads() and __shfl_down_sync() for the others.
extern "C" __global__ void early_exit(const int *in, const int *flag, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    int v = in[i];
    while (v > 0) {
        if (flag[v & 7] == 12345)   // flag is all zero: never taken, but the path is there
            return;
        v -= 3;
    }
    s[t] = v + 100;
    __syncthreads();
    out[i] = s[(t + 1) % blockDim.x] + __shfl_down_sync(0xffffffffu, v, 1);
}

// Module variables live as long as the module: the second launch reads what the first wrote.
__device__ unsigned g[64];
__device__ unsigned counter;
extern "C" __global__ void produce()
{
    g[threadIdx.x] = threadIdx.x * 3 + 1;
    atomicAdd(&counter, 1u);
}
extern "C" __global__ void consume(unsigned *out)
{
    out[threadIdx.x] = g[threadIdx.x];
    if (threadIdx.x == 0)
        out[64] = counter;
}
