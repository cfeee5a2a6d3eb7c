// async.cu: cp.async as nvcc writes it for cuda_pipeline.h's primitives: a double-buffered
// stream through shared memory (__pipeline_memcpy_async of 16 bytes a thread into one buffer
// while the other is read; __pipeline_commit; __pipeline_wait_prior(1), then (0) at the end),
// and 4- and 8-byte copies with src-size below the copy (the rest zero-filled) at a ragged end.
#include <cuda_pipeline.h>

// out[b * 64 + t] = sum over tiles i of in[i * 256 + 4 t .. 4 t + 3] . (1, 2, 3, 4) + the same
// of the neighbour's float4 (t + 1) % 64: 64 threads, tiles of 256 floats.
extern "C" __global__ void stream(const float *in, float *out, int tiles)
{
    __shared__ __align__(16) float buf[2][256];
    int t = threadIdx.x;
    const float *src = in + (size_t)blockIdx.x * tiles * 256;
    __pipeline_memcpy_async(&buf[0][4 * t], &src[4 * t], 16);
    __pipeline_commit();
    float acc = 0.0f;
    for (int i = 0; i < tiles; i++) {
        if (i + 1 < tiles)
            __pipeline_memcpy_async(&buf[(i + 1) & 1][4 * t], &src[(i + 1) * 256 + 4 * t], 16);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const float *v = &buf[i & 1][4 * t], *u = &buf[i & 1][4 * ((t + 1) % 64)];
        acc += v[0] + 2.0f * v[1] + 3.0f * v[2] + 4.0f * v[3] + u[0] - u[3];
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = acc;
}

// 4-byte copies with src-size 4 for the first n threads and 0 (a zero) for the others; 8-byte
// copies by the first warp with src-size 0, 4 or 8 by lane (t % 3). nvcc's cuda_pipeline.h
// dispatches on the sizes and traps on any other (trap, never run here).
extern "C" __global__ void ragged(const int *in, int *out, int n)
{
    __shared__ __align__(16) int s[64], w2[64];
    int t = threadIdx.x;
    int keep = t < n ? 4 : 0;
    __pipeline_memcpy_async(&s[t], &in[t < n ? t : 0], 4, 4 - keep);
    if (t < 32) {                   // the last argument: the bytes to zero at the end
        int k2 = (t % 3) * 4;
        __pipeline_memcpy_async(&w2[2 * t], &in[2 * t], 8, 8 - k2);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s[t];
    if (t < 32) {
        out[64 + 2 * t] = w2[2 * t];
        out[64 + 2 * t + 1] = w2[2 * t + 1];
    }
}
