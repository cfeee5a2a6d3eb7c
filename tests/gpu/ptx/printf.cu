// printf.cu: CUDA's device printf (vprintf) and assert (__assertfail) as nvcc writes the calls.
// say: four threads of two blocks print one line each, in the order the blocks, warps and lanes
// run; the conversions d, u, s with a width, - and + flags, f with a precision, e, g, x, a 64-bit
// d (lld), c and %%. check: assert(x[i] < limit) on the first n threads.
#include <cassert>
#include <cstdio>

extern "C" __global__ void say(const float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i % 16 == 3)
        printf("%d %u [%5s] [%-4d] %+.3f %e %g %x %lld %c %%\n", i, blockIdx.x, "ok", i,
               x[i] * 0.5f, x[i] * 1000.0f, x[i] / 3.0f, i * 255, (long long)i << 33,
               'a' + i % 26);
}

extern "C" __global__ void check(const float *x, float limit, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        assert(x[i] < limit);
}
