#!/bin/sh
# roofline.sh [BUILD]: the TPU v1-like array (configs/tpu/tpu-v1.yaml) on ResNet-50; copies the
# per-layer roofline (ROOFLINE.csv: operations per DRAM byte, achieved operations per cycle) to
# docs/experiments/roofline.csv and draws docs/experiments/roofline.{svg,png} with gnuplot.
set -eu
B=${1:-build}
OUT=docs/experiments
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/archsim" run configs/tpu/tpu-v1.yaml -q -o "$T/run"
cp "$T/run/ROOFLINE.csv" "$OUT/roofline.csv"
BW=$(sed -n 's/^ *bandwidth: *\([0-9]*\).*/\1/p' configs/tpu/tpu-v1.yaml)
for term in svg png; do
    gnuplot -e "csv='$OUT/roofline.csv'; bw=$BW; term='$term'; out='$OUT/roofline.$term'" tools/roofline.gp
done
echo "wrote $OUT/roofline.csv, $OUT/roofline.svg and $OUT/roofline.png"
