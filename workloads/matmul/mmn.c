/* mmn.c: the naive ijk matmul of mm.c on N x N doubles (default 256), N from the command line,
 * for timing: `archsim cachegrind -- PROGRAM` against valgrind's cachegrind on the same program
 * (tools/speed-tables.sh, docs/cachegrind.md "Programs"). Heap arrays and a run-time N, so the
 * compiler cannot vectorize the inner loop differently with and without instrumentation.
 *
 * usage: mmn [N=256]          prints a checksum; exits 2 on a bad N
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    char *end = NULL;
    long n = argc > 1 ? strtol(argv[1], &end, 10) : 256;
    if (argc > 1 && (*end != '\0' || n < 1 || n > 4096)) {
        fprintf(stderr, "usage: mmn [N]   (1 <= N <= 4096)\n");
        return 2;
    }
    double *a = malloc(sizeof(double) * (size_t)(n * n));
    double *b = malloc(sizeof(double) * (size_t)(n * n));
    double *c = malloc(sizeof(double) * (size_t)(n * n));
    if (!a || !b || !c) {
        fprintf(stderr, "mmn: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = (double)(i + j) / (double)n;
            b[i * n + j] = (double)(i - j) / (double)n;
        }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = 0.0;
            for (long k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
    double checksum = 0.0;
    for (long i = 0; i < n * n; i++)
        checksum += c[i] * (double)(i + 1);
    printf("checksum %.6f\n", checksum);
    free(a);
    free(b);
    free(c);
    return 0;
}
