// intrin.cu: integer intrinsics nvcc writes with bfind (__ffs, __clz of 64 bits), redux.sync
// (__reduce_add_sync and friends, sm_80), mul.hi.u64 (__umul64hi), sad (__sad) and dp4a
// (__dp4a); 6 words a thread.
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
