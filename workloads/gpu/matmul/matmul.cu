// C = A B for n x n row-major floats: naive (each thread reads a row of A and a column of B
// from global memory) and tiled through shared memory with T x T tiles (T = 16 or 32): each
// element of A and B is read n / T times from DRAM instead of n times (MIT 6.5940 L11's
// tiling, here on the GPU). n must be a multiple of T.
extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; k++)
            acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}

template <int T> __device__ __forceinline__ void tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[T][T], Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / T; t++) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

extern "C" __global__ void matmul_tiled16(const float *A, const float *B, float *C, int n)
{
    tiled<16>(A, B, C, n);
}

extern "C" __global__ void matmul_tiled32(const float *A, const float *B, float *C, int n)
{
    tiled<32>(A, B, C, n);
}
