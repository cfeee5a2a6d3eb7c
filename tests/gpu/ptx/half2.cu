// half2.cu: cuda_fp16's __half2 arithmetic as nvcc writes it (inline PTX on .f16x2: add, sub,
// mul, fma, neg, max; set.gt.f16x2; cvt.rn.f16x2.f32; mov.b32 {lo, hi} unpacking).
#include <cuda_fp16.h>

extern "C" __global__ void hmath2(const __half2 *a, const __half2 *b, __half2 *o, float *f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half2 x = a[i], y = b[i];
    __half2 r = __hfma2(x, y, __hadd2(x, y));
    r = __hmul2(r, __hsub2(x, y));
    o[i] = __hmax2(r, __hneg2(y));
    float2 g = __half22float2(x);
    f[2 * i] = g.x + __low2float(y);
    f[2 * i + 1] = g.y * __high2float(y);
    o[n + i] = __floats2half2_rn(g.x * 3.0f, g.y - 1.0f);
    o[2 * n + i] = __hgt2(x, y);
}
