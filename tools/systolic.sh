#!/bin/sh
# systolic.sh [BUILD]: os vs ws vs is on ResNet-18 (SCALE-Sim's shipped topology) on scale.cfg's
# 32 x 32 array, in archsim's default mode and in --scalesim-compat; writes
# docs/experiments/systolic.csv (per layer and dataflow: cycles, utilization, DRAM words) and
# draws docs/experiments/systolic.{svg,png}. About a second.
set -eu
B=${1:-build}
OUT=docs/experiments
SH=tests/tpu/shipped/v2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "layer,name,dataflow,mode,cycles,overall_util,compute_util,dram_reads,dram_writes" > "$OUT/systolic.csv"
for df in os ws is; do
    sed "s/^Dataflow *: *[a-z]*/Dataflow : $df/" "$SH/configs/scale.cfg" > "$T/$df.cfg"
    for mode in default compat; do
        flag=""; [ $mode = compat ] && flag=--scalesim-compat
        "$B/archsim" tpu -c "$T/$df.cfg" -t "$SH/topologies/conv_nets/Resnet18.csv" $flag -q \
            -o "$T/$df-$mode"
        # pasted: COMPUTE fields 1-7 (id, cycles, stalls, overall, mapping, compute, ''),
        # DETAILED 8-27 (DRAM IFMAP reads 20, filter reads 23, OFMAP writes 26), ROOFLINE 28- (name 29)
        paste -d, "$T/$df-$mode/COMPUTE_REPORT.csv" "$T/$df-$mode/DETAILED_ACCESS_REPORT.csv" \
              "$T/$df-$mode/ROOFLINE.csv" | tail -n +2 |
            awk -F', *' -v df=$df -v m=$mode '{print $1 "," $29 "," df "," m "," $2 "," $4 "," $6 "," $20 + $23 "," $26}' \
            >> "$OUT/systolic.csv"
    done
done
for term in svg png; do
    gnuplot -e "csv='$OUT/systolic.csv'; term='$term'; out='$OUT/systolic.$term'" tools/systolic.gp
done
echo "wrote $OUT/systolic.csv, $OUT/systolic.svg and $OUT/systolic.png"
