#!/bin/sh
# stats-snapshot.sh: the answers of every runnable config in configs/ (and the TPU's SCALE-Sim
# compatible reports) in one folder, so that a refactor can show they stayed byte-identical:
#   sh tools/stats-snapshot.sh OUTDIR [ARCHSIM]      then   diff -r BEFORE AFTER
# Host-time columns and the engine's own sim.events are left out (they may differ); everything
# else of stats.txt and stats.json is kept as written.
set -u
out=${1:?usage: stats-snapshot.sh OUTDIR [ARCHSIM]}
bin=${2:-./archsim}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cfg in $(find configs -name '*.yaml' ! -path 'configs/parts/*' ! -path 'configs/sweeps/*' | sort); do
    grep -q '^part: *true' "$cfg" && continue
    name=$(echo "$cfg" | tr / _)
    rm -rf "$tmp/run"
    if timeout 120 "$bin" run "$cfg" -q -o "$tmp/run" >"$tmp/log" 2>&1; then rc=0; else rc=$?; fi
    {
        echo "exit $rc"
        if [ -f "$tmp/run/stats.txt" ]; then
            grep -v -e '^sim\.events' -e 'host' "$tmp/run/stats.txt"
        else
            sed -e "s#$tmp/run#RUN#g" -e "s#$(pwd)/#SRC/#g" "$tmp/log"
        fi
    } >"$out/$name.txt"
    [ -f "$tmp/run/stats.json" ] && grep -v -e '"sim.events"' -e 'host' "$tmp/run/stats.json" >"$out/$name.json"
done
# the TPU in SCALE-Sim compatible mode: each shipped config on a few shipped topologies
for c in tests/tpu/shipped/v2/configs/*.cfg; do
    for t in tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv tests/tpu/shipped/v2/topologies/conv_nets/mobilenet.csv tests/tpu/shipped/v2/topologies/conv_nets/yolo_tiny.csv tests/tpu/shipped/v2/topologies/conv_nets/Resnet18.csv; do
        name=tpu_$(basename "$c" .cfg)_$(basename "$t" .csv)
        rm -rf "$tmp/tpu"
        timeout 120 "$bin" tpu -c "$c" -t "$t" --scalesim-compat -q -o "$tmp/tpu" >/dev/null 2>&1
        for f in $(cd "$tmp/tpu" 2>/dev/null && find . -name '*.csv' | sort); do
            cp "$tmp/tpu/$f" "$out/$name.$(echo "$f" | sed 's#^\./##' | tr / _)"
        done
    done
done
echo "stats-snapshot: $(ls "$out" | wc -l) files in $out"
