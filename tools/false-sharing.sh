#!/bin/sh
# false-sharing.sh [OUTDIR]: the false-sharing experiment from recorded traces. Replays the packed
# and padded per-thread counter kernels (workloads/false_sharing, traces/samples/fs_*-<N>t) on the
# MESI snooping machine for 1, 2, 4, 8 and 16 worker threads, writes a tidy CSV and draws cycles
# and false-sharing misses against the thread count with gnuplot (SVG and PNG).
#   sh tools/false-sharing.sh            -> docs/experiments/false-sharing.{csv,svg,png}
set -eu
OUT=${1:-docs/experiments}
A=./archsim
[ -x "$A" ] || { echo "false-sharing.sh: build archsim first (make)" >&2; exit 66; }
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CSV="$OUT/false-sharing.csv"
echo "layout,threads,cycles,false_sharing_misses,coherence_misses,invalidations,bus_transactions,accesses" > "$CSV"
for layout in packed padded; do
    for n in 1 2 4 8 16; do
        tr="traces/samples/fs_${layout}-${n}t"
        [ -d "$tr" ] || { echo "false-sharing.sh: missing $tr (run make traces)" >&2; exit 66; }
        "$A" run configs/false_sharing/replay.yaml -q -o "$T/$layout-$n" \
            --set workload.trace="$tr" --set system.cores=$((n + 1)) > /dev/null
        python3 - "$T/$layout-$n/stats.json" "$layout" "$n" >> "$CSV" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
acc = d["l1d.accesses"]
print(f'{sys.argv[2]},{sys.argv[3]},{d["sim.cycles"]},{d["l1d.misses_false_sharing"]},'
      f'{d["l1d.misses_coherence"]},{d["bus.invalidations"]},{d["bus.transactions"]},{acc}')
PY
    done
done
cat "$CSV"
if command -v gnuplot > /dev/null; then
    gnuplot -e "csv='$CSV'; out='$OUT/false-sharing'" tools/false-sharing.gp
    echo "wrote $OUT/false-sharing.svg and $OUT/false-sharing.png"
else
    echo "false-sharing.sh: gnuplot not found; apt-get install gnuplot-nox to draw the figure" >&2
fi
