// bf16.cu: cuda_bf16's bfloat16 arithmetic as nvcc writes it for sm_80 (fma.rn.bf16 for
// __hfma, __hadd and __hmul, fma.rn.bf16x2 for __hfma2, cvt.rn.bf16.f32 and
// cvt.rn.bf16x2.f32, and mov.b32 %f, {0, %rs} to widen a bfloat16 to a float).
#include <cuda_bf16.h>

extern "C" __global__ void bmath(const float *in, float *out, unsigned *pk, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i] * 8.0f - 4.0f, w = in[(i + 5) % n] * 2.0f;
    __nv_bfloat16 x = __float2bfloat16(v), y = __float2bfloat16(w);
    out[4 * i] = __bfloat162float(__hfma(x, y, __float2bfloat16(1.0f)));
    out[4 * i + 1] = __bfloat162float(__hadd(x, y));
    out[4 * i + 2] = __bfloat162float(__hmul(x, y));
    out[4 * i + 3] = __bfloat162float(__float2bfloat16(v * 3.0f));
    __nv_bfloat162 p = __floats2bfloat162_rn(v, w), q = __hfma2(p, p, p);
    pk[2 * i] = *reinterpret_cast<unsigned *>(&q);
    pk[2 * i + 1] = *reinterpret_cast<unsigned *>(&p);
}
