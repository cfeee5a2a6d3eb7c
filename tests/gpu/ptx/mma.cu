// mma.cu: the tensor cores through mma.sync and ldmatrix as CUTLASS and Triton write them for
// sm_80 (inline PTX here, with the fragment layouts of the PTX ISA): m16n8k16 on halves with f32
// accumulators kept in registers over four steps, B loaded with ldmatrix from n-major rows;
// the same with f16 accumulators, B from k-major rows through ldmatrix.trans; m16n8k8 on
// bfloat16 with ldmatrix .x2 and .x1.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// D (16 x 8, f32, row-major) = A (16 x K, row-major) Bt^T (Bt: 8 x K, row-major) + C; one warp.
extern "C" __global__ void mma_gemm(const half *A, const half *Bt, const float *C, float *D, int K)
{
    __shared__ __align__(16) half sa[16 * 16], sb[8 * 16];
    int l = threadIdx.x, g = l / 4, t = l % 4;
    float d[4];
    for (int i = 0; i < 4; i++)
        d[i] = C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = l; i < 256; i += 32)
            sa[i] = A[(i / 16) * K + k0 + i % 16];
        for (int i = l; i < 128; i += 32)
            sb[i] = Bt[(i / 16) * K + k0 + i % 16];
        __syncwarp();
        unsigned a0, a1, a2, a3, b0, b1;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                     : "r"(smem(&sa[(l % 16) * 16 + (l / 16) * 8])));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b0), "=r"(b1) : "r"(smem(&sb[(l % 8) * 16 + ((l / 8) % 2) * 8])));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    for (int i = 0; i < 4; i++)
        D[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}

// D (16 x 8 halves, row-major) = A (16 x 16, row-major) B (16 x 8, row-major: k-major rows,
// read transposed by ldmatrix.trans); f16 accumulators from zero.
extern "C" __global__ void mma_trans(const half *A, const half *B, half *D)
{
    __shared__ __align__(16) half sa[16 * 16], sb[16 * 8];
    int l = threadIdx.x, g = l / 4, t = l % 4;
    for (int i = l; i < 256; i += 32)
        sa[i] = A[i];
    for (int i = l; i < 128; i += 32)
        sb[i] = B[i];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1, d0, d1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(smem(&sa[(l % 16) * 16 + (l / 16) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(smem(&sb[(l % 16) * 8])));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, "
                 "{%2, %3, %4, %5}, {%6, %7}, {%8, %8};"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(0u));
    unsigned short *o = (unsigned short *)D;
    o[g * 8 + 2 * t] = d0 & 0xffff;
    o[g * 8 + 2 * t + 1] = d0 >> 16;
    o[(g + 8) * 8 + 2 * t] = d1 & 0xffff;
    o[(g + 8) * 8 + 2 * t + 1] = d1 >> 16;
}

// D (16 x 8, f32) = A (16 x 8, from x * 4 - 2) Bt^T (Bt 8 x 8, from y * 4 - 2), bfloat16, k = 8.
extern "C" __global__ void mma_bf8(const float *x, const float *y, float *D)
{
    __shared__ __align__(16) __nv_bfloat16 sa[16 * 8], sb[8 * 8];
    int l = threadIdx.x, g = l / 4, t = l % 4;
    for (int i = l; i < 128; i += 32)
        sa[i] = __float2bfloat16(x[i] * 4.0f - 2.0f);
    for (int i = l; i < 64; i += 32)
        sb[i] = __float2bfloat16(y[i] * 4.0f - 2.0f);
    __syncwarp();
    unsigned a0, a1, b0;
    float d[4];
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(a0), "=r"(a1) : "r"(smem(&sa[(l % 16) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                 : "=r"(b0) : "r"(smem(&sb[(l % 8) * 8])));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5}, {%6}, {%7, %7, %7, %7};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(0.0f));
    for (int i = 0; i < 4; i++)
        D[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}
