#!/bin/sh
# gpu-latency-hiding.sh [OUTDIR]: the latency-hiding experiment of docs/gpu.md. One SM with one
# scheduler (configs/gpu/teach.yaml) runs 1 to 32 warps of the same loop (a 100-cycle global load,
# then three FFMAs that need it; tools/gpu-synth-trace.py) under each warp scheduler (lrr, gto,
# two_level); writes a tidy CSV (scheduler, warps, cycles, warp instructions per cycle, the share
# of warp-cycles waiting on the load) and draws IPC and the load-wait share against the number of
# warps with gnuplot (SVG and PNG). A few seconds.
#   sh tools/gpu-latency-hiding.sh        -> docs/experiments/gpu-latency-hiding.{csv,svg,png}
set -eu
OUT=${1:-docs/experiments}
A=./archsim
[ -x "$A" ] || { echo "gpu-latency-hiding.sh: build archsim first (make)" >&2; exit 66; }
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CSV="$OUT/gpu-latency-hiding.csv"
echo "scheduler,warps,cycles,warp_insts,ipc,long_scoreboard,wait,selected" > "$CSV"
for s in lrr gto two_level; do
    for w in 1 2 4 6 8 12 16 20 24 28 32; do
        [ -d "$T/w$w" ] || python3 tools/gpu-synth-trace.py "$T/w$w" "$w"
        "$A" run configs/gpu/teach.yaml -q -o "$T/r$s$w" --set workload.trace="$T/w$w" \
            --set sm.scheduler=$s --set sm.memory=fixed > /dev/null
        python3 - "$T/r$s$w/stats.json" "$s" "$w" >> "$CSV" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, n = d["gpu.gpu_sim_cycle"], d["gpu.warp_insts"]
print(f'{sys.argv[2]},{sys.argv[3]},{c},{n},{n / c:.4f},{d["gpu.stall.long_scoreboard"]:.4f},'
      f'{d["gpu.stall.wait"]:.4f},{d["gpu.stall.selected"]:.4f}')
PY
    done
done
cat "$CSV"
if command -v gnuplot > /dev/null; then
    gnuplot -e "csv='$CSV'; out='$OUT/gpu-latency-hiding'" tools/gpu-latency-hiding.gp
    echo "wrote $OUT/gpu-latency-hiding.svg and $OUT/gpu-latency-hiding.png"
else
    echo "gpu-latency-hiding.sh: gnuplot not found; apt-get install gnuplot-nox to draw the figure" >&2
fi
