#!/bin/sh
# gpu-device-check.sh [OUTDIR]: archsim's GPU model against a real NVIDIA GPU (docs/gpu-ptx.md,
# "A real GPU"). On a machine with a GPU, its driver and the CUDA toolkit: builds
# tools/gpu-device/gpurun.c (the CUDA driver API), and for every launch of workloads/gpu writes
# its plan (`archsim gpu plan`: the same PTX, buffers, initial data and parameters archsim
# uses), runs it on the GPU (each kernel timed with CUDA events: the median of 10 warm runs
# after a cold one whose outputs are kept), checks those outputs with build/tools/gpu_ref, runs
# the same launch through archsim on CONFIG (default configs/gpu/h200.yaml) and writes
# OUTDIR/gpu-device.csv:
#   workload,kernel,entry,measured_us,archsim_cycles,archsim_us,archsim_over_measured
# archsim_us is the kernel's gpu_sim_cycle at the config's clock. Exit 69 where there is no GPU
# or no CUDA toolkit (the project builds and tests without one), 1 when an output is wrong.
#   sh tools/gpu-device-check.sh /tmp/dev        CONFIG=configs/gpu/h100-sxm.yaml sh ...
set -eu
OUT=${1:-gpu-device}
CONFIG=${CONFIG:-configs/gpu/h200.yaml}
A=./archsim
R=build/tools/gpu_ref
[ -x "$A" ] && [ -x "$R" ] || { echo "gpu-device-check.sh: build archsim first (make)" >&2; exit 66; }
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
    echo "gpu-device-check.sh: no NVIDIA GPU here (nvidia-smi -L fails): nothing to compare" >&2
    exit 69
fi
NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || { echo "gpu-device-check.sh: needs the CUDA toolkit (nvcc) for cuda.h" >&2; exit 69; }
CUDA=
for d in "$(dirname "$(dirname "$(readlink -f "$NVCC")")")" /usr/local/cuda; do
    if [ -f "$d/include/cuda.h" ]; then CUDA=$d; break; fi
done
[ -n "$CUDA" ] || { echo "gpu-device-check.sh: no cuda.h beside $NVCC or in /usr/local/cuda" >&2; exit 69; }
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -std=c11 -O2 -I"$CUDA/include" tools/gpu-device/gpurun.c -o "$T/gpurun" \
    -L"$CUDA/lib64" -L"$CUDA/lib64/stubs" -lcuda
nvidia-smi -L | head -1 > "$OUT/gpu-device.txt"
mhz=$(sed -n 's/^ *clock: *\([0-9]*\)MHz.*/\1/p' "$CONFIG" | head -1)
[ -n "$mhz" ] || { echo "gpu-device-check.sh: $CONFIG: no 'clock: NMHz' line" >&2; exit 78; }
CSV=$OUT/gpu-device.csv
echo "workload,kernel,entry,measured_us,archsim_cycles,archsim_us,archsim_over_measured" > "$CSV"
fail=0
for l in $(find workloads/gpu -name launch.yaml | sort); do
    w=$(dirname "${l#workloads/gpu/}")
    n=$(echo "$w" | tr / -)
    "$A" gpu plan "$l" "$T/plan-$n" > /dev/null
    mkdir -p "$T/dev-$n"
    "$T/gpurun" "$T/plan-$n/plan.txt" "$T/dev-$n" 10 > "$T/dev-$n.txt"
    if ! "$R" "$l" "$T/dev-$n" > "$T/dev-$n.ref" 2>&1; then
        echo "gpu-device-check.sh: $w: the GPU's outputs differ from the C reference:" >&2
        cat "$T/dev-$n.ref" >&2
        fail=1
    fi
    "$A" gpu run "$l" --machine "$CONFIG" -q -o "$T/sim-$n" > /dev/null
    # kernels.csv: kernel_id,name,file,ctas,blocks_per_sm,limiter,warp_insts,thread_insts,gpu_sim_cycle,ipc
    while read -r _ k entry ms; do
        cyc=$(awk -F, -v k="$k" 'NR > 1 && $1 == k { print $9 }' "$T/sim-$n/kernels.csv")
        awk -v w="$w" -v k="$k" -v e="$entry" -v ms="$ms" -v c="$cyc" -v mhz="$mhz" 'BEGIN {
            us = ms * 1000; sim = c / mhz
            printf "%s,%s,%s,%.3f,%d,%.3f,%.3f\n", w, k, e, us, c, sim, us > 0 ? sim / us : 0 }' >> "$CSV"
    done < "$T/dev-$n.txt"
done
cat "$OUT/gpu-device.txt" "$CSV"
[ "$fail" -eq 0 ]
