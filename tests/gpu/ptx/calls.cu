// calls.cu: device functions nvcc leaves as .func: __noinline__ ones (nested, with a return
// taken by some lanes only), and the double-precision math library's slow paths
// (__internal_trig_reduction_slowpathd for sin of arguments past 2^31, with its carry chains
// mad.lo.cc / madc.hi.cc; __internal_accurate_pow for pow).
__device__ __noinline__ float sq(float v, float w) { return v * v + w; }
__device__ __noinline__ float twice(float v)
{
    if (v > 0.5f)
        return sq(v, 3.0f);
    return 2.0f * v;
}

extern "C" __global__ void calls(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = sq(in[i], 1.0f) + sq(in[i] + 1.0f, 2.0f) + twice(in[i]);
}

extern "C" __global__ void mathd(const double *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = in[i] * 40.0 - 20.0;
    out[4 * i] = sin(x * 1e15);
    out[4 * i + 1] = cos(x);
    out[4 * i + 2] = pow(fabs(x), 0.3);
    out[4 * i + 3] = exp(x) + log(fabs(x) + 1.0);
}
