// wmma.cu: tensor-core matrix multiply-accumulate through CUDA's nvcuda::wmma, as nvcc writes it
// (wmma.load.a/b/c, wmma.mma, wmma.store.d): the three shapes, both layouts of A and B, f16 and
// f32 accumulators, bfloat16 inputs, fragments from global and from shared memory, an element-
// wise operation on an accumulator fragment, and C and D stored both ways.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// D (M x N, column-major, f32) = alpha (A B + C): A M x K row-major, B K x N column-major (B is
// stored N x K), C row-major; a 16x16 tile per warp, two warps a block, K in steps of 16.
extern "C" __global__ void wgemm(const half *a, const half *b, const float *c, float *d, int M,
                                 int N, int K, float alpha)
{
    int tm = blockIdx.y * 16, tn = (blockIdx.x * 2 + threadIdx.x / 32) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tm * N + tn, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; i++)
        acc.x[i] = acc.x[i] * alpha;
    wmma::store_matrix_sync(d + tn * M + tm, acc, M, wmma::mem_col_major);
}

// f16 accumulators on the 32x8x16 shape: A (32 x K, from x - 0.5) staged column-major in shared
// memory, B (K x 8) row-major, both converted from f32 to half; D (32 x 8 per block) row-major.
extern "C" __global__ void wgemm_h(const float *x, const float *y, half *d, int K)
{
    __shared__ __align__(32) half sa[32 * 16];
    __shared__ __align__(32) half sb[16 * 8];
    const float *xa = x + blockIdx.x * 32 * K;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
    wmma::fill_fragment(acc, __float2half(0.5f));
    for (int k = 0; k < K; k += 16) {
        for (int i = threadIdx.x; i < 32 * 16; i += 32) {    // row i % 32, column i / 32
            sa[i] = __float2half(xa[(i % 32) * K + k + i / 32] - 0.5f);
        }
        for (int i = threadIdx.x; i < 16 * 8; i += 32)
            sb[i] = __float2half(y[(k + i / 8) * 8 + i % 8] - 0.5f);
        __syncwarp();
        wmma::load_matrix_sync(fa, sa, 32);
        wmma::load_matrix_sync(fb, sb, 8);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(d + blockIdx.x * 32 * 8, acc, 8, wmma::mem_row_major);
}

// bfloat16 on the 8x32x16 shape: A (8 x 16) row-major, B (16 x 32) column-major, converted in
// shared memory; C (8 x 32) column-major; D row-major with a padded stride of 40.
extern "C" __global__ void wgemm_bf(const float *x, const float *y, const float *c, float *d)
{
    __shared__ __align__(32) __nv_bfloat16 sa[8 * 16];
    __shared__ __align__(32) __nv_bfloat16 sb[16 * 32];
    for (int i = threadIdx.x; i < 8 * 16; i += 32)
        sa[i] = __float2bfloat16(x[i] * 4.0f - 2.0f);
    for (int i = threadIdx.x; i < 16 * 32; i += 32)       // B[k][n] at n * 16 + k
        sb[i] = __float2bfloat16(y[(i % 16) * 32 + i / 16] * 4.0f - 2.0f);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> acc;
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, sb, 16);
    wmma::load_matrix_sync(acc, c, 8, wmma::mem_col_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 40, wmma::mem_row_major);
}
