// printf.cu: CUDA's device printf (vprintf) and assert (__assertfail) as nvcc writes the calls.
// say: four threads of two blocks print one line each, in the order the blocks, warps and lanes
// run; the conversions d, u, s with a width, - and + flags, f with a precision, e, g, x, a 64-bit
// d (lld), c and %%. check: assert(x[i] < limit) on the first n threads. edge: C's and CUDA's
// corners (hh, a negative precision from *, %p with a width, 34 arguments of which CUDA reads 32,
// a NULL format returning -1 into x[0]).
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

extern "C" __global__ void edge(float *x)
{
    if (threadIdx.x != 0)
        return;
    printf("%hhd %hhu %hho|%.*d|%.*f|%12p|%-8p|\n", 300, 300, 511, -1, 0, -1, 3.5, (void *)0x1234,
           (void *)0x1234);
    printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
           "%d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
           20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34);
    const char *f = x[1] < 0.0f ? "never\n" : nullptr;   // x[1] is 1: NULL
    x[0] = (float)printf(f);
}
