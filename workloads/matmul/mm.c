/* mm.c: 64x64 double naive ijk matrix multiply, the reference workload for `archsim cachegrind`.
 *
 * Run under valgrind cachegrind and lackey (see README.md); the checksum is printed so that the
 * compiler cannot drop the multiply. Inputs are deterministic, so every run has the same trace
 * (apart from what the loader and libc do, which depends on the stdout type: see README.md).
 */
#include <stdio.h>

#define MM_N 64

static double mm_a[MM_N][MM_N], mm_b[MM_N][MM_N], mm_c[MM_N][MM_N];

int main(void)
{
    for (int i = 0; i < MM_N; i++)
        for (int j = 0; j < MM_N; j++) {
            mm_a[i][j] = (double)(i + j) / MM_N;
            mm_b[i][j] = (double)(i - j) / MM_N;
        }
    for (int i = 0; i < MM_N; i++)
        for (int j = 0; j < MM_N; j++) {
            double sum = 0.0;
            for (int k = 0; k < MM_N; k++)
                sum += mm_a[i][k] * mm_b[k][j];
            mm_c[i][j] = sum;
        }
    double checksum = 0.0;
    for (int i = 0; i < MM_N; i++)
        for (int j = 0; j < MM_N; j++)
            checksum += mm_c[i][j] * (double)(i * MM_N + j + 1);
    printf("checksum %.6f\n", checksum);
    return 0;
}
