// mathf.cu: CUDA's single-precision math library as nvcc inlines it: expf and fmodf round
// toward zero or minus infinity on purpose (fma.rm, fma.rz), tanhf, erff and atan2f take
// copysign, sinf and cosf of large arguments reduce them with the initialised table
// __cudart_i2opi_f (Payne and Hanek); fmodf of the same large arguments loops on fma.rz. 8
// results per element.
extern "C" __global__ void mathf(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i], big = (x - 0.5f) * 2.0e7f, *o = out + 8 * i;
    o[0] = expf(x * 20.0f - 10.0f);
    o[1] = tanhf(x * 6.0f - 3.0f);
    o[2] = erff(x * 4.0f - 2.0f);
    o[3] = sinf(big);
    o[4] = cosf(big);
    o[5] = fmodf(big, 0.37f);
    o[6] = log1pf(x * 10.0f - 0.9f);
    o[7] = atan2f(x - 0.5f, 0.25f);
}
