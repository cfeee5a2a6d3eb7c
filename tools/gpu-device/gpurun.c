/* gpurun.c: runs a PTX launch on a real GPU through the CUDA driver API, for
 * tools/gpu-device-check.sh. It reads a plan written from a launch YAML (the same buffers and
 * initial data archsim uses, the same parameters; see below), loads the PTX
 * with cuModuleLoadData, times each kernel with CUDA events (one warm-up run, then REPEAT runs,
 * the median), and writes each output buffer as OUTDIR/NAME.bin, so that build/tools/gpu_ref
 * checks it like an archsim run. Plain C: cc -O2 -I$CUDA/include gpurun.c -L$CUDA/lib64 -lcuda.
 *
 * Plan (text, one item per line; `archsim gpu plan LAUNCH.yaml DIR` writes it and the initial
 * data, through archsim's own launch reader):
 *   ptx PATH
 *   buffer NAME BYTES INITFILE|-        (in launch order; '-' is zeros)
 *   output NAME
 *   launch ENTRY GX GY GZ BX BY BZ SHARED NPARAMS
 *   param u32|s32|u64|s64|f32|f64 VALUE  |  param buf NAME
 * Usage: gpurun PLAN OUTDIR REPEAT      prints "kernel ENTRY MS" per launch (median ms)
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUF 256
#define MAX_LAUNCH 1024
#define MAX_PARAM 32

static void check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        cuGetErrorString(r, &s);
        fprintf(stderr, "gpurun: %s: %s\n", what, s ? s : "unknown CUDA error");
        exit(1);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gpurun: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "gpurun: cannot read %s\n", path);
        exit(1);
    }
    b[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

typedef struct {
    char name[80];
    size_t bytes;
    CUdeviceptr d;
    int output;
} Buf;

typedef struct {
    char kind[8];
    char text[80];
} Param;

typedef struct {
    char entry[128];
    unsigned g[3], b[3], shared, np;
    Param p[MAX_PARAM];
} Launch;

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gpurun PLAN OUTDIR REPEAT\n");
        return 64;
    }
    int repeat = atoi(argv[3]);
    if (repeat < 1 || repeat > 1000)
        repeat = 10;
    static Buf bufs[MAX_BUF];
    static Launch ls[MAX_LAUNCH];
    int nb = 0, nl = 0;
    char ptx[4096] = { 0 };
    FILE *plan = fopen(argv[1], "r");
    if (!plan) {
        fprintf(stderr, "gpurun: cannot open %s\n", argv[1]);
        return 66;
    }
    char line[4096];
    static char init[MAX_BUF][4096];
    while (fgets(line, sizeof line, plan)) {
        char w[16];
        if (sscanf(line, "%15s", w) != 1)
            continue;
        if (!strcmp(w, "ptx")) {
            sscanf(line, "ptx %4095s", ptx);
        } else if (!strcmp(w, "buffer") && nb < MAX_BUF) {
            Buf *b = &bufs[nb];
            sscanf(line, "buffer %79s %zu %4095s", b->name, &b->bytes, init[nb]);
            nb++;
        } else if (!strcmp(w, "output")) {
            char n[80];
            sscanf(line, "output %79s", n);
            for (int i = 0; i < nb; i++)
                if (!strcmp(bufs[i].name, n))
                    bufs[i].output = 1;
        } else if (!strcmp(w, "launch") && nl < MAX_LAUNCH) {
            Launch *l = &ls[nl++];
            sscanf(line, "launch %127s %u %u %u %u %u %u %u %u", l->entry, &l->g[0], &l->g[1],
                   &l->g[2], &l->b[0], &l->b[1], &l->b[2], &l->shared, &l->np);
            if (l->np > MAX_PARAM)
                l->np = MAX_PARAM;
            for (unsigned i = 0; i < l->np && fgets(line, sizeof line, plan); i++)
                sscanf(line, "param %7s %79s", l->p[i].kind, l->p[i].text);
        }
    }
    fclose(plan);
    check(cuInit(0), "cuInit");
    CUdevice dev;
    CUcontext ctx;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUmodule mod;
    char *text = slurp(ptx, NULL);
    check(cuModuleLoadData(&mod, text), "cuModuleLoadData (the PTX)");
    for (int i = 0; i < nb; i++) {
        check(cuMemAlloc(&bufs[i].d, bufs[i].bytes ? bufs[i].bytes : 1), "cuMemAlloc");
        check(cuMemsetD8(bufs[i].d, 0, bufs[i].bytes), "cuMemsetD8");
        if (strcmp(init[i], "-") != 0) {
            size_t len;
            char *data = slurp(init[i], &len);
            if (len != bufs[i].bytes) {
                fprintf(stderr, "gpurun: %s holds %zu bytes, buffer %s %zu\n", init[i], len,
                        bufs[i].name, bufs[i].bytes);
                return 65;
            }
            check(cuMemcpyHtoD(bufs[i].d, data, len), "cuMemcpyHtoD");
            free(data);
        }
    }
    CUevent e0, e1;
    check(cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate");
    float *times = malloc(sizeof(float) * (size_t)repeat * (size_t)(nl ? nl : 1));
    /* the launches once, for the outputs (a sequence reads what the one before wrote) */
    for (int pass = 0; pass <= repeat; pass++) {
        for (int k = 0; k < nl; k++) {
            Launch *l = &ls[k];
            CUfunction f;
            check(cuModuleGetFunction(&f, mod, l->entry), l->entry);
            union { uint32_t u32; int32_t s32; uint64_t u64; int64_t s64; float f32; double f64;
                    CUdeviceptr ptr; } vals[MAX_PARAM];
            void *args[MAX_PARAM];
            for (unsigned i = 0; i < l->np; i++) {
                Param *p = &l->p[i];
                if (!strcmp(p->kind, "buf")) {
                    for (int j = 0; j < nb; j++)
                        if (!strcmp(bufs[j].name, p->text))
                            vals[i].ptr = bufs[j].d;
                } else if (!strcmp(p->kind, "u32")) {
                    vals[i].u32 = (uint32_t)strtoull(p->text, NULL, 0);
                } else if (!strcmp(p->kind, "s32")) {
                    vals[i].s32 = (int32_t)strtoll(p->text, NULL, 0);
                } else if (!strcmp(p->kind, "u64")) {
                    vals[i].u64 = strtoull(p->text, NULL, 0);
                } else if (!strcmp(p->kind, "s64")) {
                    vals[i].s64 = strtoll(p->text, NULL, 0);
                } else if (!strcmp(p->kind, "f32")) {
                    vals[i].f32 = strtof(p->text, NULL);
                } else {
                    vals[i].f64 = strtod(p->text, NULL);
                }
                args[i] = &vals[i];
            }
            check(cuEventRecord(e0, 0), "cuEventRecord");
            check(cuLaunchKernel(f, l->g[0], l->g[1], l->g[2], l->b[0], l->b[1], l->b[2],
                                 l->shared, 0, args, NULL), l->entry);
            check(cuEventRecord(e1, 0), "cuEventRecord");
            check(cuEventSynchronize(e1), "cuEventSynchronize");
            float ms = 0;
            check(cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
            if (pass == 0) {
                /* the outputs of the first, cold run: the state archsim simulates */
                if (k == nl - 1)
                    for (int j = 0; j < nb; j++) {
                        if (!bufs[j].output)
                            continue;
                        char *h = malloc(bufs[j].bytes ? bufs[j].bytes : 1);
                        check(cuMemcpyDtoH(h, bufs[j].d, bufs[j].bytes), "cuMemcpyDtoH");
                        size_t pl = strlen(argv[2]) + strlen(bufs[j].name) + 8;
                        char *path = malloc(pl);
                        snprintf(path, pl, "%s/%s.bin", argv[2], bufs[j].name);
                        FILE *o = fopen(path, "wb");
                        if (!o || fwrite(h, 1, bufs[j].bytes, o) != bufs[j].bytes) {
                            fprintf(stderr, "gpurun: cannot write %s\n", path);
                            return 74;
                        }
                        fclose(o);
                        free(path);
                        free(h);
                    }
            } else {
                times[(size_t)k * (size_t)repeat + (size_t)(pass - 1)] = ms;
                if (pass == repeat) {
                    /* the median of the warm runs of this launch */
                    float *t = malloc(sizeof(float) * (size_t)repeat);
                    memcpy(t, times + (size_t)k * (size_t)repeat, sizeof(float) * (size_t)repeat);
                    qsort(t, (size_t)repeat, sizeof(float), cmp_float);
                    printf("kernel %d %s %.6f\n", k + 1, l->entry, t[repeat / 2]);
                    free(t);
                }
            }
        }
    }
    cuDevicePrimaryCtxRelease(dev);
    free(text);
    free(times);
    return 0;
}
