// bits.cu: byte permutes, funnel shifts, bit-field inserts and three-input logic, the
// instructions nvcc writes for __byte_perm, __funnelshift_*, byte packing and rotates (prmt,
// shf), and, by inline PTX, the prmt modes, bfi and lop3. 16 words per thread.
__device__ __forceinline__ unsigned prmt_raw(unsigned a, unsigned b, unsigned c)
{
    unsigned d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
#define PRMT_MODE(name, mode)                                                                  \
    __device__ __forceinline__ unsigned name(unsigned a, unsigned b, unsigned c)               \
    {                                                                                          \
        unsigned d;                                                                            \
        asm("prmt.b32." mode " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));           \
        return d;                                                                              \
    }
PRMT_MODE(prmt_f4e, "f4e")
PRMT_MODE(prmt_b4e, "b4e")
PRMT_MODE(prmt_rc8, "rc8")
PRMT_MODE(prmt_ecl, "ecl")
PRMT_MODE(prmt_ecr, "ecr")
PRMT_MODE(prmt_rc16, "rc16")

__device__ __forceinline__ unsigned bfi(unsigned a, unsigned b, unsigned pos, unsigned len)
{
    unsigned d;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(pos), "r"(len));
    return d;
}

extern "C" __global__ void bits(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i], y = in[(i + 1) % n], s = in[(i + 7) % n], *o = out + 16 * i;
    o[0] = __byte_perm(x, y, s);
    o[1] = __funnelshift_l(x, y, s);
    o[2] = __funnelshift_r(x, y, s >> 3);
    o[3] = __funnelshift_lc(y, x, (s >> 7) & 63);
    o[4] = __funnelshift_rc(y, x, (s >> 13) & 63);
    o[5] = prmt_raw(x, y, s);
    o[6] = prmt_f4e(x, y, s);
    o[7] = prmt_b4e(x, y, s >> 2);
    o[8] = prmt_rc8(x, y, s >> 4);
    o[9] = prmt_ecl(x, y, s >> 6);
    o[10] = prmt_ecr(x, y, s >> 8);
    o[11] = prmt_rc16(x, y, s >> 10);
    o[12] = bfi(x, y, s & 63, (s >> 6) & 63);
    unsigned m, c, v;
    asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(m) : "r"(x), "r"(y), "r"(s));   // majority
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(c) : "r"(x), "r"(y), "r"(s));   // x ? y : s
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(v) : "r"(x), "r"(y), "r"(s));   // x ^ y ^ s
    o[13] = m;
    o[14] = c;
    o[15] = v;
}

// four bytes packed into a word (prmt) and rotated (shf)
extern "C" __global__ void pack(const unsigned char *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = in[4 * i] | in[4 * i + 1] << 8 | (in[4 * i + 2] & 15u) << 16 |
                 (unsigned)in[4 * i + 3] << 24;
    out[i] = (v << 13) | (v >> 19);
}
