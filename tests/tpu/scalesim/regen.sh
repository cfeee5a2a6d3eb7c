#!/bin/bash
# Regenerate the SCALE-Sim v2 reference reports stored under ref/.
# Usage: regen.sh SCALESIM_CHECKOUT [JOBS] [RUN_FILTER_REGEX]
#   SCALESIM_CHECKOUT: a checkout of scalesim-project/scale-sim-v2 at commit
#   22f88b17f1dd3160e18bff5df165035bf8146e83; JOBS: parallel runs (default 2);
#   RUN_FILTER_REGEX: only runs whose "<run_name>/<topology>" matches (grep -E).
# Needs Debian 12's python3 with python3-numpy python3-pandas python3-tqdm
# python3-absl, and GNU time (/usr/bin/time). Not run by `make test`.
# Writes ref/<run_name>/<topology>/{COMPUTE,BANDWIDTH,DETAILED_ACCESS}_REPORT.csv,
# ref/<run_name>/<topology>/cpu_time.txt, ref/trace4x4_*/trace_head/*.csv, and the DRAM traces
# ref/<run_name>/<topology>/dram/ (the DRAM runs match the filter as "dram:<run>/<topology>",
# so `regen.sh SS 2 '^dram:'` redoes only those).
set -eu
SS=$(cd "${1:?usage: regen.sh SCALESIM_CHECKOUT [JOBS] [FILTER]}" && pwd)
JOBS=${2:-2}
FILTER=${3:-.}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run list: "<cfg stem> <topology stem> <conv|gemm>"
{
  for c in scale google eyeriss; do
    for df in os ws is; do
      for m in calc user10 user4; do
        [ -f "$HERE/configs/${c}_${df}_${m}.cfg" ] || continue
        echo "${c}_${df}_${m} small conv"
        echo "${c}_${df}_${m} gemm gemm"
        echo "${c}_${df}_${m} resnet18_tail conv"
        # google (256x256) is left out of the SRAM-overflow layers, eyeriss
        # (12x14) out of the 1728 x 384 Inception layer (too slow in SCALE-Sim)
        [ $c = google ] || echo "${c}_${df}_${m} overflow conv"
        [ $c = eyeriss ] || echo "${c}_${df}_${m} inception_test conv"
      done
    done
  done
  # one whole shipped network (conv_nets/alexnet.csv, copied to topologies/) on a few runs
  for r in google_os_calc google_ws_user10 scale_os_calc scale_ws_calc scale_is_user10; do
    echo "$r alexnet conv"
  done
} | while read -r run topo kind; do
  if echo "$run/$topo" | grep -Eq "$FILTER"; then echo "$run $topo $kind"; fi
done > "$TMP/list"

one() {  # run topo kind
  out="$TMP/$1.$2"
  mkdir -p "$out"
  /usr/bin/time -f '%U %S %M %e' -o "$out/time" \
    env PYTHONPATH="$SS" "$PY" "$SS/scalesim/scale.py" -c "$HERE/configs/$1.cfg" \
      -t "$HERE/topologies/$2.csv" -p "$out" -i "$3" > "$out/log" 2>&1 \
    || { echo "FAILED: $1 $2 (log in $out/log)"; cat "$out/log"; return 1; }
  dst="$HERE/ref/$1/$2"
  mkdir -p "$dst"
  for r in COMPUTE_REPORT BANDWIDTH_REPORT DETAILED_ACCESS_REPORT; do
    cp "$out/$1/$r.csv" "$dst/$r.csv"
  done
  read -r u s m e < "$out/time"
  printf 'user_s %s\nsys_s %s\nmax_rss_kb %s\nwall_s %s\n' "$u" "$s" "$m" "$e" > "$dst/cpu_time.txt"
  echo "done: $1 $2 user=${u}s sys=${s}s rss=${m}kB"
}
export -f one
export SS HERE PY TMP
xargs -r -P "$JOBS" -L 1 bash -c 'one "$@"' _ < "$TMP/list"

# Per-cycle SRAM/DRAM traces of one tiny layer per dataflow on a 4x4 array:
# the CLI never writes traces, so call scalesim(save_disk_space=False).
for df in os ws is; do
  run=trace4x4_$df
  echo "$run/trace_tiny" | grep -Eq "$FILTER" || continue
  out="$TMP/$run"
  mkdir -p "$out"
  PYTHONPATH="$SS" "$PY" - "$HERE/configs/$run.cfg" "$HERE/topologies/trace_tiny.csv" "$out" > "$out.log" 2>&1 <<'PYEOF'
import sys
from scalesim.scale_sim import scalesim
s = scalesim(save_disk_space=False, verbose=True, config=sys.argv[1],
             topology=sys.argv[2], input_type_gemm=False)
s.run_scale(top_path=sys.argv[3])
PYEOF
  dst="$HERE/ref/$run/trace_tiny"
  mkdir -p "$dst" "$HERE/ref/$run/trace_head"
  for r in COMPUTE_REPORT BANDWIDTH_REPORT DETAILED_ACCESS_REPORT; do
    cp "$out/$run/$r.csv" "$dst/$r.csv"
  done
  for t in "$out/$run/layer0/"*.csv; do
    head -n 40 "$t" > "$HERE/ref/$run/trace_head/$(basename "$t")"
  done
  echo "done: $run traces"
done

# SCALE-Sim's DRAM traces, for tests/unit/test_tpudram.c: the 8x8 configs (2 KiB IFMAP and filter
# SRAMs, 1 KiB OFMAP) in CALC, USER 10 and USER 4 and the 16x16 ones (1 KiB SRAMs, CALC: a
# prefetch wider than the first, so earlier rows are padded with 1.0) on dram_small.csv (a
# stride-2 layer with -1 holes, one that overflows the SRAMs), plus three shipped-size runs on
# overflow.csv. Per run: ref/<run>/<topology>/dram/layerN/<NAME> whole when at most 8 KiB, else
# <NAME>.head and <NAME>.tail (its first and last 20 lines), and dram/manifest.txt with every
# file's "layerN/NAME lines bytes sha256". The dram*_ runs' reports are stored too.
{
  for df in os ws is; do
    for m in calc user10 user4; do echo "dram8x8_${df}_${m} dram_small conv"; done
    echo "dram16x16_${df}_calc dram_small conv"
  done
  echo "scale_os_calc overflow conv"
  echo "scale_is_user10 overflow conv"
  echo "scale_ws_user4 overflow conv"
} | while read -r run topo kind; do
  echo "dram:$run/$topo" | grep -Eq "$FILTER" || continue
  out="$TMP/dram.$run.$topo"
  mkdir -p "$out"
  /usr/bin/time -f '%U %S %M %e' -o "$out/time" \
    env PYTHONPATH="$SS" "$PY" - "$HERE/configs/$run.cfg" "$HERE/topologies/$topo.csv" "$out" \
      "$kind" > "$out.log" 2>&1 <<'PYEOF'
import sys
from scalesim.scale_sim import scalesim
s = scalesim(save_disk_space=False, verbose=True, config=sys.argv[1],
             topology=sys.argv[2], input_type_gemm=sys.argv[4] == 'gemm')
s.run_scale(top_path=sys.argv[3])
PYEOF
  dst="$HERE/ref/$run/$topo"
  mkdir -p "$dst"
  case $run in
    dram*)
      for r in COMPUTE_REPORT BANDWIDTH_REPORT DETAILED_ACCESS_REPORT; do
        cp "$out/$run/$r.csv" "$dst/$r.csv"
      done
      read -r u s m e < "$out/time"
      printf 'user_s %s\nsys_s %s\nmax_rss_kb %s\nwall_s %s\n' "$u" "$s" "$m" "$e" > "$dst/cpu_time.txt"
      ;;
  esac
  rm -rf "$dst/dram"
  mkdir -p "$dst/dram"
  for l in "$out/$run"/layer*; do
    ln=$(basename "$l")
    mkdir -p "$dst/dram/$ln"
    for t in IFMAP FILTER OFMAP; do
      f="$l/${t}_DRAM_TRACE.csv"
      if [ "$(stat -c %s "$f")" -le 8192 ]; then
        cp "$f" "$dst/dram/$ln/"
      else
        head -n 20 "$f" > "$dst/dram/$ln/${t}_DRAM_TRACE.csv.head"
        tail -n 20 "$f" > "$dst/dram/$ln/${t}_DRAM_TRACE.csv.tail"
      fi
      echo "$ln/${t}_DRAM_TRACE.csv $(wc -l < "$f") $(stat -c %s "$f") $(sha256sum < "$f" | cut -d' ' -f1)"
    done
  done > "$dst/dram/manifest.txt"
  echo "done: dram traces $run $topo"
done
