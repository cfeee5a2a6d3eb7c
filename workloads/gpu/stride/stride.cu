// Strided reads: thread i copies in[i * stride] to out[i]. Stride 1 reads each 128-byte line
// once for 32 lanes (four sectors per warp); stride 8 or more touches a sector per lane (the
// coalescing rules of the CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory").
extern "C" __global__ void stride_copy(const float *in, float *out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(size_t)i * stride];
}
