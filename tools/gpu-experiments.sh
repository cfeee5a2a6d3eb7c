#!/bin/sh
# gpu-experiments.sh [OUTDIR] [NAME...]: the GPU experiments of docs/experiments/gpu-*.md, run on
# the PTX workloads of workloads/gpu (docs/gpu-ptx.md) with every output checked against its C
# reference (build/tools/gpu_ref). Each writes OUTDIR/gpu-NAME.csv and draws it with
# tools/gpu-experiments.gp (SVG and PNG) when gnuplot is installed. NAME is any of
#   occupancy      vecmul over 1 M floats on the A100 with 32 to 255 registers per thread forced
#   coalescing     stride_copy at strides 1 to 32 on the V100: sectors per request, bandwidth
#   bank-conflicts transpose naive, 32x32 shared tile, padded tile on the A100
#   tiling         matmul naive, tiled 16, tiled 32 at n = 128 and 256 on the A100
#   fusion         softmax naive/online and attention unfused/fused on the A100, and with a
#                  160 KiB L2 (l2.size=1KiB a slice) so that the attention's scores spill to DRAM
#   roofline       vecmul at 64 K to 4 M elements and every workload on the V100
#   order          the histogram with its blocks in 6 orders; a reduction without bar.sync
# (all when none is named). Under a minute each on the project's machines.
#   sh tools/gpu-experiments.sh                -> docs/experiments/gpu-*.{csv,svg,png}
set -eu
OUT=${1:-docs/experiments}
[ $# -gt 0 ] && shift
NAMES=${*:-occupancy coalescing bank-conflicts tiling fusion roofline order}
A=./archsim
R=build/tools/gpu_ref
[ -x "$A" ] && [ -x "$R" ] || { echo "gpu-experiments.sh: build first (make)" >&2; exit 66; }
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W=$PWD/workloads/gpu

# run NAME LAUNCH CONFIG [run options]: runs and checks the outputs (exit 1 if they are wrong);
# the helpers' variables start with _ (sh has no locals)
run() {
    _n=$1; _l=$2; _c=$3; shift 3
    "$A" gpu run "$_l" --machine "$_c" -q -o "$T/$_n" "$@" > "$T/$_n.log" 2>&1 || {
        cat "$T/$_n.log" >&2; exit 1; }
    "$R" "$_l" "$T/$_n" > "$T/$_n.ref" 2>&1 || { echo "gpu-experiments.sh: $_n: wrong outputs" >&2
        cat "$T/$_n.ref" >&2; exit 1; }
}
# a copy of launch L with its lines KEY: replaced (kernel made absolute): variant L OUT KEY=VALUE...
variant() {
    _l=$1; _o=$2; shift 2
    _d=$(cd "$(dirname "$_l")" && pwd)
    sed "s|^kernel: \(.*\)|kernel: $_d/\1|" "$_l" > "$_o"
    for _kv in "$@"; do
        _k=${_kv%%=*}; _v=${_kv#*=}
        if grep -q "^$_k:" "$_o"; then sed -i "s|^$_k:.*|$_k: $_v|" "$_o"; else echo "$_k: $_v" >> "$_o"; fi
    done
}
st() { awk -v k="$2" '$1 == k { print $2; exit }' "$T/$1/stats.txt"; }
plot() {
    if command -v gnuplot > /dev/null; then
        gnuplot -e "csv='$OUT/gpu-$1.csv'; out='$OUT/gpu-$1'; which='$1'" tools/gpu-experiments.gp
        echo "wrote $OUT/gpu-$1.svg and $OUT/gpu-$1.png"
    else
        echo "gpu-experiments.sh: gnuplot not found; apt-get install gnuplot-nox to draw gpu-$1" >&2
    fi
}

for x in $NAMES; do
case $x in
occupancy)
    # a memory-bound kernel with enough blocks to fill every SM: c = a * b over 1 M floats
    f=$OUT/gpu-occupancy.csv
    echo "registers,blocks_per_sm,limiter,achieved_occupancy,cycles,dram_gbs,long_scoreboard,lg_throttle,selected,not_selected" > "$f"
    for r in 32 40 48 64 80 96 128 168 255; do
        variant $W/vecmul/launch.yaml "$T/occ$r.yaml" registers=$r "grid=[4096, 1, 1]" \
            "params=[1048576, a, b, c]"
        sed -i "s|count: 65536|count: 1048576|" "$T/occ$r.yaml"
        run occ$r "$T/occ$r.yaml" configs/gpu/a100.yaml
        bps=$(awk -F, 'NR == 2 { print $5 "," $6 }' "$T/occ$r/kernels.csv")
        cy=$(st occ$r gpu.gpu_sim_cycle)
        # the A100 config: 1,410 MHz (configs/gpu/a100.yaml)
        echo "$r,$bps,$(st occ$r gpu.achieved_occupancy),$cy,$(awk -v b=$(st occ$r gpu.dram_read_bytes) -v c=$cy 'BEGIN { printf "%.1f", b / (c / 1.41e9) / 1e9 }'),$(st occ$r gpu.stall.long_scoreboard),$(st occ$r gpu.stall.lg_throttle),$(st occ$r gpu.stall.selected),$(st occ$r gpu.stall.not_selected)" >> "$f"
    done ;;
coalescing)
    f=$OUT/gpu-coalescing.csv
    echo "stride,load_instructions,load_sectors,sectors_per_request,cycles,dram_read_bytes,useful_bytes_per_cycle" > "$f"
    for s in 1 2 4 8 16 32; do
        variant $W/stride/launch.yaml "$T/s$s.yaml" "params=[in, out, 65536, $s]"
        run s$s "$T/s$s.yaml" configs/gpu/v100.yaml
        req=2048                        # 65,536 threads: 2,048 warp load instructions
        sec=$(st s$s gpu.global_load_sectors); cyc=$(st s$s gpu.gpu_sim_cycle)
        echo "$s,$req,$sec,$(python3 -c "print(round($sec / $req, 3))"),$cyc,$(st s$s gpu.dram_read_bytes),$(python3 -c "print(round(65536 * 4 / $cyc, 2))")" >> "$f"
    done ;;
bank-conflicts)
    f=$OUT/gpu-bank-conflicts.csv
    echo "variant,shared_wavefronts,shared_bank_conflicts,global_load_sectors,global_store_sectors,cycles" > "$f"
    for v in naive tiled padded; do
        run t$v $W/transpose/$v/launch.yaml configs/gpu/a100.yaml
        wf=$(awk '$1 == "sm.shared_wavefronts" { print $2 }' "$T/t$v/stats.txt")
        echo "$v,$wf,$(st t$v gpu.shared_bank_conflicts),$(st t$v gpu.global_load_sectors),$(st t$v gpu.global_store_sectors),$(st t$v gpu.gpu_sim_cycle)" >> "$f"
    done ;;
tiling)
    f=$OUT/gpu-tiling.csv
    echo "n,variant,global_load_sectors,l2_read_bytes,dram_read_bytes,flops,cycles" > "$f"
    for n in 128 256; do
        for v in naive:16 tiled16:16 tiled32:32; do
            name=${v%%:*}; t=${v##*:}; g=$((n / t))
            variant $W/matmul/$name/launch.yaml "$T/m$n$name.yaml" "grid=[$g, $g, 1]" \
                "params=[A, B, C, $n]"
            sed -i "s|count: 16384|count: $((n * n))|" "$T/m$n$name.yaml"
            run m$n$name "$T/m$n$name.yaml" configs/gpu/a100.yaml
            l2=$(awk '$1 == "l2.load_sectors" { print $2 * 32 }' "$T/m$n$name/stats.txt")
            echo "$n,$name,$(st m$n$name gpu.global_load_sectors),$l2,$(st m$n$name gpu.dram_read_bytes),$(st m$n$name gpu.flops),$(st m$n$name gpu.gpu_sim_cycle)" >> "$f"
        done
    done ;;
fusion)
    f=$OUT/gpu-fusion.csv
    echo "l2,workload,variant,kernels,global_load_sectors,global_store_sectors,dram_read_bytes,dram_write_bytes,cycles" > "$f"
    for l2 in 40MiB 160KiB; do          # 160 slices of 256 KiB, or of 1 KiB (8 ways)
        set -- ; [ $l2 = 40MiB ] || set -- --set l2.size=1KiB --set l2.assoc=8
        for v in softmax/naive softmax/online attention/unfused attention/fused; do
            n=f$l2$(echo $v | tr / -)
            run $n $W/$v/launch.yaml configs/gpu/a100.yaml "$@"
            echo "$l2,${v%/*},${v#*/},$(st $n gpu.kernels),$(st $n gpu.global_load_sectors),$(st $n gpu.global_store_sectors),$(st $n gpu.dram_read_bytes),$(st $n gpu.dram_write_bytes),$(st $n gpu.gpu_sim_cycle)" >> "$f"
        done
    done ;;
roofline)
    f=$OUT/gpu-roofline.csv
    echo "workload,flops,dram_bytes,cycles,intensity,gflops,dram_gbs" > "$f"
    # the V100 config: 1,530 MHz (configs/gpu/v100.yaml)
    for e in 65536 262144 1048576 4194304; do
        variant $W/vecmul/launch.yaml "$T/v$e.yaml" "grid=[$((e / 256)), 1, 1]" "params=[$e, a, b, c]"
        sed -i "s|count: 65536|count: $e|" "$T/v$e.yaml"
        run v$e "$T/v$e.yaml" configs/gpu/v100.yaml
        set -- "vecmul-$e" v$e
        fl=$(st v$e gpu.flops); by=$(( $(st v$e gpu.dram_read_bytes) + $(st v$e gpu.dram_write_bytes) )); cy=$(st v$e gpu.gpu_sim_cycle)
        echo "$1,$fl,$by,$cy,$(python3 -c "print(round($fl / max($by, 1), 4))"),$(python3 -c "print(round($fl / ($cy / 1.53e9) / 1e9, 2))"),$(python3 -c "print(round($by / ($cy / 1.53e9) / 1e9, 1))")" >> "$f"
    done
    for l in $(cd $W && find . -name launch.yaml | sort); do
        n=r$(echo "$l" | tr / - | tr -d .)
        run $n "$W/$l" configs/gpu/v100.yaml
        fl=$(st $n gpu.flops); by=$(( $(st $n gpu.dram_read_bytes) + $(st $n gpu.dram_write_bytes) )); cy=$(st $n gpu.gpu_sim_cycle)
        [ "$fl" -gt 0 ] || continue
        echo "$(dirname "${l#./}" | tr / -),$fl,$by,$cy,$(python3 -c "print(round($fl / max($by, 1), 4))"),$(python3 -c "print(round($fl / ($cy / 1.53e9) / 1e9, 2))"),$(python3 -c "print(round($by / ($cy / 1.53e9) / 1e9, 1))")" >> "$f"
    done ;;
order)
    f=$OUT/gpu-order.csv
    echo "kernel,block_order,outputs_equal_reference,same_bins_as_linear,cycles" > "$f"
    for o in linear shuffle:1 shuffle:2 shuffle:3 shuffle:4 shuffle:5; do
        n=o$(echo $o | tr : -)
        variant $W/histogram/global/launch.yaml "$T/$n.yaml" "block_order=$o"
        run $n "$T/$n.yaml" configs/gpu/a100.yaml
        same=no; cmp -s "$T/$n/bins.bin" "$T/olinear/bins.bin" && same=yes
        echo "hist_global,$o,yes,$same,$(st $n gpu.gpu_sim_cycle)" >> "$f"
    done
    mkdir -p "$T/nobar"
    grep -v 'bar.sync' $W/reduce/reduce.ptx > "$T/nobar/reduce.ptx"
    for v in sequential; do
        sed 's|^kernel: .*|kernel: reduce.ptx|' $W/reduce/$v/launch.yaml > "$T/nobar/launch.yaml"
        "$A" gpu run "$T/nobar/launch.yaml" --machine configs/gpu/a100.yaml -q -o "$T/nb" > /dev/null 2>&1
        ok=yes; "$R" "$T/nobar/launch.yaml" "$T/nb" > /dev/null 2>&1 || ok=no
        echo "reduce_$v without bar.sync,linear,$ok,,$(st nb gpu.gpu_sim_cycle)" >> "$f"
    done ;;
*)
    echo "gpu-experiments.sh: unknown experiment '$x' (occupancy coalescing bank-conflicts tiling fusion roofline order)" >&2
    exit 64 ;;
esac
cat "$OUT/gpu-$x.csv"
plot "$x"
done
