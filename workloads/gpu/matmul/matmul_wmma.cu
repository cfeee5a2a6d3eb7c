// C = A B for n x n row-major floats on the tensor cores (nvcuda::wmma), to set beside
// matmul.cu's tiles: a block of four warps computes a 32 x 32 tile of C; for each step of 16
// along k it reads A's 32 x 16 and B's 16 x 32 floats from global memory (a float4 of each a
// thread, coalesced), rounds them to halves into shared memory, and each warp multiplies its 16 x 16 quarter with one
// wmma.mma (f16 inputs, f32 accumulators). n must be a multiple of 32.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void matmul_wmma(const float *A, const float *B, float *C, int n)
{
    __shared__ __align__(32) half As[32 * 16], Bs[16 * 32];
    int t = threadIdx.x, warp = t / 32, wr = warp / 2, wc = warp % 2;
    int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < n; k0 += 16) {
        // one float4 of A's tile and one of B's a thread, both loads in flight together
        float4 a = *(const float4 *)&A[(row0 + t / 4) * n + k0 + t % 4 * 4];
        float4 b = *(const float4 *)&B[(k0 + t / 8) * n + col0 + t % 8 * 4];
        half *as = &As[t / 4 * 16 + t % 4 * 4], *bs = &Bs[t / 8 * 32 + t % 8 * 4];
        as[0] = __float2half(a.x), as[1] = __float2half(a.y);
        as[2] = __float2half(a.z), as[3] = __float2half(a.w);
        bs[0] = __float2half(b.x), bs[1] = __float2half(b.y);
        bs[2] = __float2half(b.z), bs[3] = __float2half(b.w);
        __syncthreads();
        wmma::load_matrix_sync(fa, As + wr * 16 * 16, 16);
        wmma::load_matrix_sync(fb, Bs + wc * 16, 32);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(C + (row0 + wr * 16) * n + col0 + wc * 16, acc, n, wmma::mem_row_major);
}
