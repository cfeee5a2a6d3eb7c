// intrin.cu: integer intrinsics nvcc writes with bfind (__ffs, __clz of 64 bits), redux.sync
// (__reduce_add_sync and friends, sm_80), mul.hi.u64 (__umul64hi), sad (__sad) and dp4a
// (__dp4a); 6 words a thread. video: the SIMD video intrinsics (vabsdiff2/4).
extern "C" __global__ void intrin(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i] >> (i % 32);
    unsigned long long y = ((unsigned long long)in[(i + 3) % n] << 32 | in[(i + 9) % n]) >> (i % 64);
    out[6 * i] = __ffs(x) + 64 * __ffsll(y);
    out[6 * i + 1] = __reduce_add_sync(0xffffffff, x & 0xffff) ^ __reduce_max_sync(0xffffffff, x);
    out[6 * i + 2] = __reduce_min_sync(0xffffffff, (int)x) + __reduce_or_sync(0xffffffff, x & 0xff0);
    out[6 * i + 3] = (unsigned)__umul64hi(y, 0x9e3779b97f4a7c15ull);
    out[6 * i + 4] = __sad((int)in[i], (int)in[(i + 1) % n], 7u) + __usad(x, in[i], 1u);
    out[6 * i + 5] = (unsigned)__dp4a((int)in[i], (int)in[(i + 2) % n], 5) + __dp4a(x, in[i], 3u);
}

// the SIMD video intrinsics nvcc 13 writes with vabsdiff4 (.u32, and .add for the sums of
// absolute differences); the others it writes with plain integer instructions: 12 words a thread
extern "C" __global__ void video(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i], y = in[(i + 5) % n];
    unsigned *o = out + 12 * i;
    o[0] = __vabsdiffu4(x, y);
    o[1] = __vsadu4(x, y);
    o[2] = __vabsdiffs4(x, y);
    o[3] = __vsads4(x, y);
    o[4] = __vabsdiffu2(x, y);
    o[5] = __vsadu2(x, y);
    o[6] = __vabsdiffs2(x, y);
    o[7] = __vsads2(x, y);
    o[8] = __vadd4(x, y) ^ __vsub4(x, y);
    o[9] = __vmaxu4(x, y) + __vmins4(x, y);
    o[10] = __vavgu4(x, y) ^ __vcmpgtu4(x, y);
    o[11] = __vhaddu2(x, y) + __vabs4(x);
}
