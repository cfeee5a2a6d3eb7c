// kernels written after the PTX subset was fixed, to see that nvcc's output runs unchanged
#include <stdint.h>

// 1D three-point stencil with a shared-memory halo
extern "C" __global__ void stencil3(const float *in, float *out, int n)
{
    __shared__ float s[258];
    int g = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x + 1;
    s[t] = g < n ? in[g] : 0.0f;
    if (threadIdx.x == 0)
        s[0] = g > 0 ? in[g - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1)
        s[t + 1] = g + 1 < n ? in[g + 1] : 0.0f;
    __syncthreads();
    if (g < n)
        out[g] = 0.25f * s[t - 1] + 0.5f * s[t] + 0.25f * s[t + 1];
}

// sparse matrix-vector product, CSR, a row per thread (irregular loads, integer indices)
extern "C" __global__ void spmv_csr(const int *rowptr, const int *col, const float *val,
                                    const float *x, float *y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
            acc += val[k] * x[col[k]];
        y[r] = acc;
    }
}

// inclusive prefix sum of each block's 256 ints: warp scans with shuffles, then the warps' sums
extern "C" __global__ void block_scan(const int *in, int *out)
{
    __shared__ int sums[8];
    int t = threadIdx.x, lane = t & 31, w = t >> 5;
    int v = in[blockIdx.x * 256 + t];
    for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += u;
    }
    if (lane == 31)
        sums[w] = v;
    __syncthreads();
    if (w == 0) {
        int s = lane < 8 ? sums[lane] : 0;
        for (int o = 1; o < 8; o <<= 1) {
            int u = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o)
                s += u;
        }
        if (lane < 8)
            sums[lane] = s;
    }
    __syncthreads();
    if (w > 0)
        v += sums[w - 1];
    out[blockIdx.x * 256 + t] = v;
}

// bitonic sort of 512 unsigned ints per block in shared memory
extern "C" __global__ void bitonic512(unsigned *data)
{
    __shared__ unsigned s[512];
    unsigned t = threadIdx.x, base = blockIdx.x * 512;
    s[t] = data[base + t];
    s[t + 256] = data[base + t + 256];
    __syncthreads();
    for (unsigned k = 2; k <= 512; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned i = 2 * t - (t & (j - 1));
            unsigned a = s[i], b = s[i + j];
            bool up = (i & k) == 0;
            if ((a > b) == up) {
                s[i] = b;
                s[i + j] = a;
            }
            __syncthreads();
        }
    data[base + t] = s[t];
    data[base + t + 256] = s[t + 256];
}

// double-precision dot product with warp reduction and an atomic add
extern "C" __global__ void ddot(const double *a, const double *b, double *out, int n)
{
    double v = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += a[i] * b[i];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}
