/* ptxlaunch.h: a kernel launch described in YAML (docs/gpu-ptx.md, "The launch"): the PTX file
 * and entry, grid, block, dynamic shared memory, device buffers with their initial values, the
 * entry's parameters, and the buffers written out after the run; or `launches:`, several
 * kernels run one after another on the same buffers (a host program's sequence). Errors are the YAML's
 * `file:line:col: problem`, exit 78; the PTX's own are exit 65.
 */
#ifndef ARCHSIM_GPU_PTXLAUNCH_H
#define ARCHSIM_GPU_PTXLAUNCH_H

#include "ptxexec.h"

#define PTX_LAUNCH_MAX_BUFFERS 256

typedef struct {
    char *path;                 /* the launch YAML */
    GPtrArray *modules;         /* PtxModule *, each PTX file once */
    const PtxModule *m;         /* the first launch's */
    GPtrArray *buffers;         /* PtxBuffer *, shared by the launches */
    PtxLaunch *l;               /* nl launches, run in order (`launches:`, or the one) */
    uint32_t nl;
    GPtrArray *outputs;         /* PtxBuffer * (borrowed from buffers) */
    uint32_t registers;         /* per thread, for occupancy (`registers:`, default 32) */
} GpuLaunchSpec;

GpuLaunchSpec *gpu_launch_load(const char *path, GError **error);
/* Writes each output as DIR/NAME.bin (raw little-endian, count x dtype). */
bool gpu_launch_write_outputs(const GpuLaunchSpec *s, const char *dir, GError **error);
PtxBuffer *gpu_launch_buffer(const GpuLaunchSpec *s, const char *name);
void gpu_launch_free(GpuLaunchSpec *s);

#endif
