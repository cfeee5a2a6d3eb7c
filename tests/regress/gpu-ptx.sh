#!/bin/sh
# regress/gpu-ptx.sh BUILD: PTX kernels run without a GPU (issue 21; docs/gpu-ptx.md):
#  - every workload in workloads/gpu runs on the A100 config and its outputs equal the C
#    reference (tools/gpu_ref.c: integers exactly, floats within the stated tolerance)
#  - every workload on every other GPU config, outputs checked; five kernels written after the
#    subset was fixed (tests/gpu/ptx/own.cu), committed PTX and, with nvcc, compiled here
#  - the shapes of the classic experiments: transpose naive vs shared tile vs padded tile (bank
#    conflicts only in the unpadded tile; the padded one fastest); matmul naive vs tiled 16 vs 32
#    (global load sectors fall by the tile width; time falls); histogram with per-block shared
#    atomics faster than global atomics; reductions interleaved > sequential > shuffle in time;
#    the online softmax reads its input twice, the naive one three times; fused attention stores
#    only its output where the unfused three kernels store the N x N scores twice; element-wise
#    multiply far under 1% of peak FLOPs; a Llama decoder layer's weights cross DRAM once and
#    its fused kernels (7) beat the eager ones (14) on a token
#  - occupancy (255 registers: 1 block per SM instead of 8, slower) and coalescing (stride 8:
#    8x the sectors of stride 1)
#  - blocks in a shuffled order: the same outputs, other timings; a reduction without its
#    __syncthreads (bar.sync taken out of the PTX) fails its output check
#  - the tensor cores (wmma, mma.sync, ldmatrix), cp.async double buffering (its wait costs
#    time, waiting for every group more), device printf's text and a failing assert
#  - the same launch twice: byte-identical stats; bad launches and bad PTX: exit 78 and 65
# Prints "gpu-ptx: N passed, N failed".
set -u
B=${1:-build}
. tests/regress/lib/gpu.sh
R=$B/tools/gpu_ref
W=workloads/gpu
gpurun() {  # name launch config extra...
    n=$1; l=$2; c=$3; shift 3
    "$A" gpu run "$l" --machine "$c" -q --force -o "$T/$n" "$@" > "$T/$n.log" 2>&1 || {
        echo "run $n failed:"; cat "$T/$n.log"; }
}
cyc() { stat gpu.gpu_sim_cycle "$T/$1/stats.txt"; }

# every workload on the A100, checked
for l in $(find $W -name launch.yaml | sort); do
    n=$(dirname "${l#$W/}" | tr / -)
    gpurun "$n" "$l" configs/gpu/a100.yaml
    check "$n on a100: outputs equal the C reference" "$R $l $T/$n > $T/$n.ref 2>&1"
done

# every workload on every other GPU config, checked
for c in configs/gpu/*.yaml; do
    cn=$(basename "$c" .yaml)
    [ "$cn" = a100 ] && continue
    bad=""
    for l in $(find $W -name launch.yaml | sort); do
        n=cfg-$cn-$(dirname "${l#$W/}" | tr / -)
        gpurun "$n" "$l" "$c"
        $R "$l" "$T/$n" > /dev/null 2>&1 || bad="$bad $n"
    done
    check "every workload on $cn: outputs equal the C reference${bad:+ (wrong:$bad)}" "[ -z '$bad' ]"
done

# kernels written after the subset was fixed (tests/gpu/ptx/own.cu: a stencil with a halo,
# CSR SpMV, a block scan with shuffles, a bitonic sort, a double-precision dot product;
# sync.cu: __syncthreads and a shuffle after a loop that may return; bits.cu: prmt, shf, bfi,
# lop3 from __byte_perm, __funnelshift_*, byte packing and inline PTX; mathf.cu: expf, tanhf,
# erff, sinf, cosf, fmodf, log1pf, atan2f as nvcc inlines them; calls.cu: __noinline__ device
# functions and double sin/pow, whose slow paths stay .func with carry chains; half2.cu:
# cuda_fp16's __half2 arithmetic; bf16.cu: cuda_bf16's; intrin.cu: __ffs, __reduce_*_sync, the SIMD video
# intrinsics (vabsdiff2/4);
# wmma.cu: nvcuda::wmma on the tensor cores, its three shapes, f16 and bf16 inputs; async.cu:
# cp.async from cuda_pipeline.h, a double buffer and zero-filled copies; mma.cu: mma.sync and
# ldmatrix as CUTLASS and Triton write them; printf.cu: device printf):
# the committed PTX, and
# where nvcc is installed the same sources compiled here at -O3 for sm_80
own_runs() {  # PTXDIR
    bad=""
    for y in tests/gpu/ptx/*.yaml; do
        sed "s|^kernel: \(.*\)|kernel: $1/\1|; s|file:spmv|file:$PWD/tests/gpu/ptx/spmv|" "$y" > "$T/own.yaml"
        n=own-$(basename "$y" .yaml)
        gpurun "$n" "$T/own.yaml" configs/gpu/a100.yaml
        $R "$T/own.yaml" "$T/$n" > "$T/$n.ref" 2>&1 || bad="$bad $n"
    done
    echo "$bad"
}
bad=$(own_runs "$PWD/tests/gpu/ptx")
check "25 launches of tests/gpu/ptx/own.ptx, sync.ptx, bits.ptx, mathf.ptx, calls.ptx, half2.ptx, bf16.ptx, intrin.ptx, wmma.ptx, async.ptx, mma.ptx and printf.ptx: outputs equal the C reference${bad:+ (wrong:$bad)}" "[ -z '$bad' ]"
if command -v nvcc > /dev/null; then
    mkdir -p "$T/nv"
    if nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/own.cu -o "$T/nv/own.ptx" > "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/sync.cu -o "$T/nv/sync.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/bits.cu -o "$T/nv/bits.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/mathf.cu -o "$T/nv/mathf.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/calls.cu -o "$T/nv/calls.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/half2.cu -o "$T/nv/half2.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/bf16.cu -o "$T/nv/bf16.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/intrin.cu -o "$T/nv/intrin.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/wmma.cu -o "$T/nv/wmma.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/async.cu -o "$T/nv/async.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/mma.cu -o "$T/nv/mma.ptx" >> "$T/nv.log" 2>&1 &&
       nvcc -ptx -O3 -arch=sm_80 tests/gpu/ptx/printf.cu -o "$T/nv/printf.ptx" >> "$T/nv.log" 2>&1; then
        bad=$(own_runs "$T/nv")
        check "the same kernels compiled now by $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p'): outputs equal the C reference${bad:+ (wrong:$bad)}" "[ -z '$bad' ]"
    else
        check "nvcc compiles tests/gpu/ptx/own.cu" "false"; cat "$T/nv.log"
    fi
else
    echo "skip nvcc is not installed: the committed PTX of tests/gpu/ptx/own.cu was run instead"
fi

# two-level scheduling with __syncthreads: warps at the barrier leave the active set (they filled
# it and the warps they waited for never issued: a deadlock)
gpurun tl-reduce $W/reduce/sequential/launch.yaml configs/gpu/teach.yaml --set sm.scheduler=two_level
check "two_level scheduler with bar.sync: reduce/sequential ends, outputs right" \
    "[ -f '$T/tl-reduce/stats.txt' ] && $R $W/reduce/sequential/launch.yaml $T/tl-reduce > /dev/null"

# printf and assert (tests/gpu/ptx/printf.cu): the lines printed, in block, warp and lane order,
# equal printf.expected (Python's % formatting of the same values, README); an assertion that
# fails stops the launch with CUDA's message, exit 65
"$A" gpu run tests/gpu/ptx/printf.yaml --machine configs/gpu/teach.yaml -q -o "$T/printf" \
    > "$T/printf.out" 2>&1
check "printf: the four lines as C formats them" \
    "head -4 '$T/printf.out' | cmp -s - tests/gpu/ptx/printf.expected"
sed "s/^entry: say/entry: edge/; s|^kernel: .*|kernel: $PWD/tests/gpu/ptx/printf.ptx|" \
    tests/gpu/ptx/printf.yaml > "$T/edge.yaml"
"$A" gpu run "$T/edge.yaml" --machine configs/gpu/teach.yaml -q -o "$T/edge" > "$T/edge.out" 2>&1
printf '44 44 377|0|3.500000|      0x1234|0x1234  |\n%s %%d %%d\n' \
    "$(seq -s ' ' 1 32)" > "$T/edge.want"
check "printf's corners as C and CUDA give them (hh, a negative * precision, %p's width, 32 arguments)" \
    "head -2 '$T/edge.out' | cmp -s - '$T/edge.want'"
check "printf of a NULL format returns -1" \
    "[ \"\$(od -An -tf4 -N4 '$T/edge/x.bin' | tr -d ' ')\" = '-1' ]"
sed 's/^entry: say/entry: check/; s/^params: .*/params: [x, 10.0, 64]/' tests/gpu/ptx/printf.yaml \
    > "$T/assert.yaml"
sed -i "s|^kernel: .*|kernel: $PWD/tests/gpu/ptx/printf.ptx|" "$T/assert.yaml"
rc=0; "$A" gpu run "$T/assert.yaml" --machine configs/gpu/teach.yaml -q -o "$T/assert" \
    > "$T/assert.out" 2>&1 || rc=$?
check "assert: x[10] < 10 fails: exit 65 ($rc), CUDA's message, thread 10, no run directory" \
    "[ $rc -eq 65 ] && grep -q 'printf.cu:23: void check(const float \*, float, int): block: \[0,0,0\], thread: \[10,0,0\] Assertion .x\[i\] < limit. failed.' '$T/assert.out' && [ ! -e '$T/assert' ]"
sed -i 's/^params: .*/params: [x, 64.0, 64]/' "$T/assert.yaml"
rc=0; "$A" gpu run "$T/assert.yaml" --machine configs/gpu/teach.yaml -q -o "$T/assert2" \
    > /dev/null 2>&1 || rc=$?
check "assert: x[i] < 64 holds: exit 0 ($rc)" "[ $rc -eq 0 ]"

# cp.async: the double buffer of tests/gpu/ptx/async.cu (16 tiles) waits for the copies
# (__pipeline_wait_prior(1)); waiting for all (wait_group 0) loses the overlap; no wait at all
# would be faster still (and read the copies before they land on a GPU)
for v in 1 0 none; do
    if [ $v = none ]; then sed 's/cp.async.wait_group 1;//' tests/gpu/ptx/async.ptx > "$T/async-$v.ptx"
    else sed "s/cp.async.wait_group 1;/cp.async.wait_group $v;/" tests/gpu/ptx/async.ptx > "$T/async-$v.ptx"; fi
    sed "s|^kernel: .*|kernel: $T/async-$v.ptx|; s/count: 2048/count: 8192/; s/\[in, out, 4\]/[in, out, 16]/" \
        tests/gpu/ptx/async.yaml > "$T/async-$v.yaml"
    gpurun "async-$v" "$T/async-$v.yaml" configs/gpu/a100.yaml
done
a1=$(cyc async-1); a0=$(cyc async-0); an=$(cyc async-none)
check "cp.async double buffering: wait_group 1 $a1 cycles < wait_group 0 $a0; without the wait $an" \
    "[ $an -lt $a1 ] && [ $a1 -lt $a0 ] && $R $T/async-1.yaml $T/async-1 > /dev/null"

# transpose: bank conflicts and time
tn=$(cyc transpose-naive); tt=$(cyc transpose-tiled); tp=$(cyc transpose-padded)
ct=$(stat gpu.shared_bank_conflicts "$T/transpose-tiled/stats.txt")
cp=$(stat gpu.shared_bank_conflicts "$T/transpose-padded/stats.txt")
sn=$(stat gpu.global_store_sectors "$T/transpose-naive/stats.txt")
st=$(stat gpu.global_store_sectors "$T/transpose-tiled/stats.txt")
check "transpose: the 32x32 tile conflicts ($ct), the padded tile does not ($cp)" "[ $ct -gt 0 ] && [ $cp -eq 0 ]"
check "transpose: naive stores 8x the sectors ($sn vs $st)" "[ $sn -eq $((8 * st)) ]"
check "transpose: naive $tn > tiled $tt > padded $tp cycles" "[ $tn -gt $tt ] && [ $tt -gt $tp ]"

# matmul: tiling cuts global traffic by the tile width
mn=$(stat gpu.global_load_sectors "$T/matmul-naive/stats.txt")
m16=$(stat gpu.global_load_sectors "$T/matmul-tiled16/stats.txt")
m32=$(stat gpu.global_load_sectors "$T/matmul-tiled32/stats.txt")
check "matmul: load sectors naive $mn = 8 x tiled16 $m16 = 16 x tiled32 $m32" \
    "[ $mn -eq $((8 * m16)) ] && [ $mn -eq $((16 * m32)) ]"
check "matmul: naive $(cyc matmul-naive) > tiled16 $(cyc matmul-tiled16) > tiled32 $(cyc matmul-tiled32) cycles" \
    "[ $(cyc matmul-naive) -gt $(cyc matmul-tiled16) ] && [ $(cyc matmul-tiled16) -gt $(cyc matmul-tiled32) ]"
mw=$(stat sm.insts_tensor "$T/matmul-wmma/stats.txt")
check "matmul on the tensor cores: $(cyc matmul-wmma) cycles < tiled32's; 2 x 4 x 8 x 16 = $mw tensor instructions" \
    "[ $(cyc matmul-wmma) -lt $(cyc matmul-tiled32) ] && [ $mw -eq 1024 ]"

# histogram and reductions
check "histogram: shared atomics $(cyc histogram-shared) < global atomics $(cyc histogram-global) cycles" \
    "[ $(cyc histogram-shared) -lt $(cyc histogram-global) ]"
check "reduce: interleaved $(cyc reduce-interleaved) > sequential $(cyc reduce-sequential) > shuffle $(cyc reduce-shuffle) cycles" \
    "[ $(cyc reduce-interleaved) -gt $(cyc reduce-sequential) ] && [ $(cyc reduce-sequential) -gt $(cyc reduce-shuffle) ]"

# fusion: the online softmax reads its row twice where the naive one reads it three times; the
# fused attention stores only its output, the unfused sequence also the 256 x 256 scores twice
sn=$(stat gpu.global_load_sectors "$T/softmax-naive/stats.txt")
so=$(stat gpu.global_load_sectors "$T/softmax-online/stats.txt")
check "softmax: online loads 2/3 of the naive sectors ($so vs $sn)" "[ $((3 * so)) -eq $((2 * sn)) ]"
au=$(stat gpu.global_store_sectors "$T/attention-unfused/stats.txt")
af=$(stat gpu.global_store_sectors "$T/attention-fused/stats.txt")
check "attention: fused stores only O ($af sectors = 16384 floats), unfused O and S twice ($au)" \
    "[ $af -eq 2048 ] && [ $au -eq $((2048 + 2 * 8192)) ]"
check "attention: three kernels in kernels.csv for the unfused sequence" \
    "[ \$(grep -c '^[123],attn_' $T/attention-unfused/kernels.csv) -eq 3 ]"

# a Llama-style decoder layer at one decode step (workloads/gpu/llama): eager 14 kernels, fused 7;
# every weight crosses DRAM once (2 x 3,408,896 bfloat16 = 6,817,792 bytes; at most the two
# 64 KiB caches and 64 KiB of activations more); fewer launches make the fused token faster
le=$T/llama-eager; lf=$T/llama-fused
dr=$(stat gpu.dram_read_bytes "$le/stats.txt")
check "llama: 14 kernels eager, 7 fused" \
    "[ \$(grep -c '^[0-9]*,llama_' $le/kernels.csv) -eq 14 ] && [ \$(grep -c '^[0-9]*,llama_' $lf/kernels.csv) -eq 7 ]"
check "llama: DRAM reads every weight once ($dr bytes)" \
    "[ $dr -ge 6817792 ] && [ $dr -le $((6817792 + 3 * 65536)) ] && [ $(stat gpu.dram_read_bytes "$lf/stats.txt") -ge 6817792 ]"
te=$(( $(cyc llama-eager) + $(stat gpu.launch_latency_cycles "$le/stats.txt") ))
tf=$(( $(cyc llama-fused) + $(stat gpu.launch_latency_cycles "$lf/stats.txt") ))
check "llama: the fused layer's token ($tf cycles with its launches) before the eager one's ($te)" \
    "[ $tf -lt $te ]"
# the same buffers as 4 query heads and 1 key/value head of 128 dimensions (Llama 3 8B's head
# size): the attention's other path, checked
sed "s|^kernel: ../llama.ptx|kernel: $PWD/$W/llama/llama.ptx|
     s/params: \[qkv, 10, 64, 255,/params: [qkv, 5, 128, 255,/
     s/params: \[qkv, Kc, Vc, 8, 2, 64, 256, 255\]/params: [qkv, Kc, Vc, 4, 1, 128, 256, 255]/
     s/grid: \[8, 4\], block: \[256\], shared: 256,/grid: [4, 4], block: [256], shared: 256,/
     s/params: \[qkv, Kc, Vc, po, pml, 8, 2, 64, 256, 256, 64, 0.125\]/params: [qkv, Kc, Vc, po, pml, 4, 1, 128, 256, 256, 64, 0.088388]/
     s/grid: \[8\], block: \[64\], params: \[po, pml, att, 64, 4\]/grid: [4], block: [128], params: [po, pml, att, 128, 4]/" \
    $W/llama/eager/launch.yaml > "$T/llama128.yaml"
gpurun llama128 "$T/llama128.yaml" configs/gpu/a100.yaml
check "llama with heads of 128: outputs equal the C reference" \
    "grep -q 'pml, 4, 1, 128' '$T/llama128.yaml' && grep -q 'att, 128, 4' '$T/llama128.yaml' && $R '$T/llama128.yaml' '$T/llama128' > '$T/llama128.ref'"

# the bandwidth wall: vecmul on the V100, one FLOP per 12 bytes; peak = 80 SMs x 64 lanes x 2 (FMA)
gpurun vecmul-v100 $W/vecmul/launch.yaml configs/gpu/v100.yaml
flops=$(awk '$1 == "gpu.gpu_sim_cycle" { c = $2 } END { printf "%.6f", 65536 / (c * 80 * 64 * 2) }' "$T/vecmul-v100/stats.txt")
check "vecmul on v100: $flops of peak FP32 FLOPs per cycle (< 1%)" "awk 'BEGIN { exit !($flops < 0.01) }'"

# occupancy: the same memory-bound kernel with 255 registers a thread holds 1 block per SM
# instead of 8 and takes longer (docs/experiments/gpu-occupancy.md)
for r in 32 255; do
    sed -e "s|^kernel: .*|kernel: $PWD/$W/vecmul/vecmul.ptx|" -e 's|^grid: .*|grid: [1024, 1, 1]|' \
        -e 's|^params: .*|params: [262144, a, b, c]|' -e 's|count: 65536|count: 262144|' \
        $W/vecmul/launch.yaml > "$T/occ$r.yaml"
    echo "registers: $r" >> "$T/occ$r.yaml"
    gpurun occ$r "$T/occ$r.yaml" configs/gpu/a100.yaml
done
b32=$(awk -F, 'NR == 2 { print $5 }' "$T/occ32/kernels.csv"); b255=$(awk -F, 'NR == 2 { print $5 }' "$T/occ255/kernels.csv")
check "occupancy: 8 blocks per SM at 32 registers, 1 at 255 ($b32, $b255)" "[ $b32 -eq 8 ] && [ $b255 -eq 1 ]"
check "occupancy: 255 registers take longer ($(cyc occ255) vs $(cyc occ32) cycles)" "[ $(cyc occ255) -gt $(cyc occ32) ]"
check "occupancy: outputs still right" "$R $T/occ255.yaml $T/occ255 > /dev/null"

# coalescing: stride 8 floats touches a sector per lane, 8 times stride 1's (gpu-coalescing.md)
for s in 1 8; do
    sed -e "s|^kernel: .*|kernel: $PWD/$W/stride/stride.ptx|" -e "s|^params: .*|params: [in, out, 65536, $s]|" \
        $W/stride/launch.yaml > "$T/str$s.yaml"
    gpurun str$s "$T/str$s.yaml" configs/gpu/v100.yaml
done
s1=$(stat gpu.global_load_sectors "$T/str1/stats.txt"); s8=$(stat gpu.global_load_sectors "$T/str8/stats.txt")
check "coalescing: stride 8 loads 8x the sectors of stride 1 ($s8 vs $s1), 32 a warp" \
    "[ $s8 -eq $((8 * s1)) ] && [ $s8 -eq $((65536 / 32 * 32)) ]"
check "coalescing: stride 8 slower ($(cyc str8) vs $(cyc str1) cycles), outputs right" \
    "[ $(cyc str8) -gt $(cyc str1) ] && $R $T/str8.yaml $T/str8 > /dev/null"

# blocks in another order: same outputs, other timing
sed "s|^kernel: .*|kernel: $PWD/$W/histogram/histogram.ptx|" $W/histogram/global/launch.yaml > "$T/shuf.yaml"
echo "block_order: shuffle:3" >> "$T/shuf.yaml"
gpurun shuf "$T/shuf.yaml" configs/gpu/a100.yaml
check "blocks shuffled: the same bins" "cmp -s $T/shuf/bins.bin $T/histogram-global/bins.bin"
check "blocks shuffled: the outputs still equal the reference" "$R $T/shuf.yaml $T/shuf > /dev/null"

# a reduction without its barriers is caught by the output check
mkdir -p "$T/nobar"
grep -v 'bar.sync' $W/reduce/reduce.ptx > "$T/nobar/reduce.ptx"
sed 's|^kernel: .*|kernel: reduce.ptx|' $W/reduce/sequential/launch.yaml > "$T/nobar/launch.yaml"
gpurun nobar-run "$T/nobar/launch.yaml" configs/gpu/a100.yaml
check "reduce without bar.sync: the output check fails" "! $R $T/nobar/launch.yaml $T/nobar-run > /dev/null 2>&1"

# determinism
gpurun again $W/matmul/tiled16/launch.yaml configs/gpu/a100.yaml
check "the same launch twice: identical stats" \
    "grep -v host $T/again/stats.txt > $T/a1; grep -v host $T/matmul-tiled16/stats.txt > $T/a2; cmp -s $T/a1 $T/a2"

# the real-GPU path without a GPU: the plan of a three-kernel launch, gpurun compiles
"$A" gpu plan $W/attention/unfused/launch.yaml "$T/plan" > /dev/null 2>&1
check "gpu plan: three launches, five buffers with their initial bytes" \
    "[ \$(grep -c '^launch ' $T/plan/plan.txt) -eq 3 ] && [ \$(grep -c '^buffer ' $T/plan/plan.txt) -eq 5 ] && [ \$(stat -c %s $T/plan/S.init) -eq 262144 ] && [ \$(stat -c %s $T/plan/Q.init) -eq 65536 ]"
check "gpu plan: typed parameters (buffers by name, 256 as u32, 0.125 as f32)" \
    "grep -q '^param buf Q' $T/plan/plan.txt && grep -q '^param u32 256' $T/plan/plan.txt && grep -q '^param f32 0.125' $T/plan/plan.txt"
"$A" gpu plan $W/saxpy/launch.yaml "$T/plan" > /dev/null 2>&1; rc=$?
check "gpu plan into an existing folder: exit 73 ($rc)" "[ $rc -eq 73 ]"
# nvcc may be a link (/usr/local/bin/nvcc): the toolkit is where the link points, and a
# toolkit without the driver API's header (a compiler-only install) is a skip, not a failure
cu=
if command -v nvcc > /dev/null; then
    for d in "$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")" /usr/local/cuda; do
        if [ -f "$d/include/cuda.h" ]; then cu=$d; break; fi
    done
fi
if [ -n "$cu" ]; then
    check "tools/gpu-device/gpurun.c compiles against $cu" \
        "cc -std=c11 -O2 -Wall -Werror -I$cu/include -c tools/gpu-device/gpurun.c -o $T/gpurun.o"
    if [ -f "$cu/lib64/stubs/libcuda.so" ]; then
        check "gpurun links against the driver stub" "cc $T/gpurun.o -o $T/gpurun -L$cu/lib64/stubs -lcuda"
    fi
else
    echo "skip no CUDA toolkit with cuda.h here: gpurun.c was not compiled"
fi

# bad inputs
printf 'kernel: nope.ptx\ngrid: [1]\nblock: [32]\n' > "$T/bad1.yaml"
"$A" gpu run "$T/bad1.yaml" --machine configs/gpu/a100.yaml -q -o "$T/b1" > "$T/b1.log" 2>&1; rc=$?
check "a launch naming a missing PTX: exit 66 ($rc)" "[ $rc -eq 66 ] && grep -q 'bad1.yaml:1:9: kernel: .*nope.ptx: no such file' $T/b1.log"
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tfoo.u32 %%r1;\n}\n' > "$T/bad.ptx"
printf 'kernel: bad.ptx\ngrid: [1]\nblock: [32]\n' > "$T/bad2.yaml"
"$A" gpu run "$T/bad2.yaml" --machine configs/gpu/a100.yaml -q -o "$T/b2" > "$T/b2.log" 2>&1; rc=$?
check "an instruction outside the subset: exit 65 at its line and column ($rc)" \
    "[ $rc -eq 65 ] && grep -q \"bad.ptx:6:2: instruction 'foo.u32' is not in archsim's PTX subset\" $T/b2.log"
check "a failed launch leaves no run directory" "[ ! -e $T/b1 ] && [ ! -e $T/b2 ]"
"$A" gpu run --machine configs/gpu/a100.yaml > "$T/b3.log" 2>&1; rc=$?
check "gpu run without a launch: exit 64 ($rc)" "[ $rc -eq 64 ]"

echo "gpu-ptx: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
