#!/bin/bash
# tpu-sweep.sh [BUILD [TIMEOUT [default|compat [REGEX]]]]: every shipped SCALE-Sim v2 topology
# (117 CSVs under tests/tpu/shipped/v2/topologies) under every shipped config (scale, google,
# eyeriss) and dataflow (os, ws, is): one `archsim tpu` run each (-i gemm when the header reads
# "Layer, M, N, K"), two at a time, each limited to TIMEOUT seconds (default 600). Writes
# docs/experiments/tpu-sweep[-compat].csv (topology, config, dataflow, input, exit status,
# seconds, layers, sampled layers, first line of any message) and prints a summary. Default
# mode unless the third argument is "compat"; REGEX (grep -E) keeps the topologies it matches.
# About 40 minutes on 2 cores in the default mode (docs/tpu.md).
set -u
B=${1:-build}
TO=${2:-600}
MODE=${3:-default}
ONLY=${4:-.}
SH=tests/tpu/shipped/v2
case $MODE in
    compat) FLAG=--scalesim-compat; OUT=docs/experiments/tpu-sweep-compat.csv ;;
    default) FLAG=; OUT=docs/experiments/tpu-sweep.csv ;;
    *) echo "tpu-sweep.sh: mode '$MODE': expected default or compat" >&2; exit 64 ;;
esac
BIN=$(cd "$B" && pwd)/archsim
[ -x "$BIN" ] || { echo "tpu-sweep.sh: $BIN not built (make)" >&2; exit 66; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
tools/scalesim-jobs.sh "$T"          # $T/<cfg>_<df>.cfg and $T/jobs
grep -E " .*$ONLY" "$T/jobs" > "$T/jobs.only" || true
mv "$T/jobs.only" "$T/jobs"
run1() {
    local cfg=$1 df=$2 f=$3 i=conv d rc s e msg layers sampled
    head -1 "$SH/topologies/$f" | tr -d '\r' | grep -qiE '^\W*layer( name)?, *M, *N, *K' && i=gemm
    d=$(mktemp -d -p "$T")
    s=$(date +%s.%N)
    timeout "$TO" "$BIN" tpu -c "$T/${cfg}_$df.cfg" -t "$SH/topologies/$f" -i $i $FLAG -q \
        -o "$d/o" > "$d/log" 2>&1
    rc=$?
    e=$(date +%s.%N)
    msg=$(head -1 "$d/log" | cut -c1-160 | tr ',' ';')
    layers=0 sampled=0
    if [ -f "$d/o/ROOFLINE.csv" ]; then
        layers=$(($(wc -l < "$d/o/ROOFLINE.csv") - 1))
        sampled=$(awk -F, 'NR > 1 && $NF > 0' "$d/o/ROOFLINE.csv" | wc -l)
    fi
    printf '%s,%s,%s,%s,%d,%.2f,%d,%d,%s\n' "$f" "$cfg" "$df" $i $rc \
        "$(echo "$e - $s" | bc)" "$layers" "$sampled" "$msg"
    rm -rf "$d"
}
export -f run1
export SH T BIN TO FLAG
echo "topology,config,dataflow,input,rc,seconds,layers,sampled_layers,message" > "$OUT"
xargs -P2 -L1 bash -c 'run1 "$@"' _ < "$T/jobs" | LC_ALL=C sort >> "$OUT"
awk -F, 'NR > 1 { n++; rc[$5]++; t += $6; if ($6 > max) { max = $6; w = $1 " " $2 " " $3 }
                  L += $7; S += $8 }
         END { printf "%d runs, %.0f s in all, slowest %.1f s (%s); %d layers, %d sampled\n",
                      n, t, max, w, L, S
               for (k in rc) printf "  exit %s: %d runs\n", k, rc[k] }' "$OUT"
echo "wrote $OUT"
