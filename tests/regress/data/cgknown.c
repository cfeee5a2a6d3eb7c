/* cgknown.c: a program whose data references are known exactly, for `archsim cachegrind --
 * PROGRAM` (tests/regress/cachegrind-program.sh): 8,192 eight-byte stores over a 64 KiB array
 * (1,024 lines), then two passes of one load per line. Every access is volatile, so the
 * compiler makes each one, and nothing else of the program touches memory through instrumented
 * code. Expected with D1 32768,8,64 and LL 1048576,16,64: Dw 8192, D1mw 1024, DLmw 1024 (cold),
 * Dr 2048, D1mr 2048 (the array is twice D1: LRU misses every line on every pass), DLmr 0. */
#define N 8192
static volatile long cg_a[N] __attribute__((aligned(64)));

int main(void)
{
    for (long i = 0; i < N; i++)
        cg_a[i] = i;
    long s = 0;
    for (int pass = 0; pass < 2; pass++)
        for (long i = 0; i < N; i += 8)
            s += cg_a[i];
    return s == 2 * (N / 8) * (N / 8 - 1) * 4 ? 0 : 1;
}
