#!/bin/sh
# stats-snapshot.sh: the answers of every runnable config in configs/ (and the TPU's SCALE-Sim
# compatible reports) in one folder, so that a refactor can show they stayed byte-identical:
#   sh tools/stats-snapshot.sh OUTDIR [ARCHSIM]      then   diff -r BEFORE AFTER
# Host-time columns and the engine's own sim.events are left out (they may differ); everything
# else of stats.txt and stats.json is kept as written. Besides every config as shipped it keeps
# the variants a speed change is most likely to upset (the benchmark machines from 2 to 64 cores
# with private data, false sharing, migratory and producer-consumer lines, other protocols, the
# atomic bus, warm-up and epochs, a truncated run, recorded traces) and per-cycle dumps of a few
# small machines in every format, whose event order is the engine's.
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
# run NAME CONFIG ARGS...: one more run kept as NAME (stats.txt, stats.json and stats.jsonl)
run() {
    name=$1 cfg=$2
    shift 2
    rm -rf "$tmp/run"
    if timeout 300 "$bin" run "$cfg" -q -o "$tmp/run" "$@" >"$tmp/log" 2>&1; then rc=0; else rc=$?; fi
    {
        echo "exit $rc"
        if [ -f "$tmp/run/stats.txt" ]; then
            grep -v -e '^sim\.events' -e 'host' "$tmp/run/stats.txt"
        else
            sed -e "s#$tmp/run#RUN#g" -e "s#$(pwd)/#SRC/#g" "$tmp/log"
        fi
    } >"$out/v_$name.txt"
    [ -f "$tmp/run/stats.json" ] && grep -v -e '"sim.events"' -e 'host' "$tmp/run/stats.json" >"$out/v_$name.json"
    [ -f "$tmp/run/stats.jsonl" ] && grep -v -e 'host' "$tmp/run/stats.jsonl" | sed 's/"sim.events": *[0-9]*,\{0,1\}//' >"$out/v_$name.jsonl"
    for f in "$tmp"/run/dump.*; do
        [ -f "$f" ] && sed -e "s#$tmp/run#RUN#g" -e 's/"host[^,]*,//g' -e '/^\$date/d' "$f" >"$out/v_$name.$(basename "$f")"
    done
    return 0
}
for n in 2 5 8 16 64; do
    banks=$n; [ $n -gt 4 ] && banks=4
    for pat in private false_sharing migratory producer_consumer true_sharing shared_ro; do
        words=64; [ $pat = false_sharing ] && words=1
        run "smp$n-$pat" configs/bench/smp8-mesi.yaml --set system.cores=$n --set core.ops=3000 \
            --set core.pattern=$pat --set core.words=$words --set system.llc_banks=$banks \
            --set l1d.classify_misses=true --set system.check=true
        run "dir$n-$pat" configs/bench/dir64-mesh.yaml --set system.cores=$n --set core.ops=2000 \
            --set core.pattern=$pat --set core.words=$words --set l1d.classify_misses=true \
            --set system.check=true
    done
done
for p in msi moesi; do
    run "smp8-$p-atomic" configs/bench/smp8-mesi.yaml --set core.ops=5000 --set l1d.protocol=$p \
        --set bus.mode=atomic --set core.pattern=migratory --set core.words=32
done
run dir16-msi configs/bench/dir64-mesh.yaml --set system.cores=16 --set core.ops=3000 \
    --set system.protocol=dir-msi --set core.pattern=migratory --set core.words=16
run dir16-ring configs/bench/dir64-mesh.yaml --set system.cores=16 --set core.ops=3000 \
    --set noc.topology=ring --set core.pattern=false_sharing --set core.words=1
run smp8-full configs/bench/smp8-mesi.yaml
run dir64-full configs/bench/dir64-mesh.yaml
run timing-warm configs/default.yaml --warmup 100000 --stats-every 50000
run timing-trunc configs/default.yaml --set sim.max_cycles=300000
run replay8 configs/false_sharing/replay.yaml --set workload.trace=traces/samples/fs_packed-8t --set system.cores=9
run replay-dir configs/coherence/dir-replay.yaml
for t in text jsonl vcd perfetto; do
    ext=$t; [ $t = text ] && ext=txt; [ $t = perfetto ] && ext=json
    run "dump-default-$t" configs/default.yaml --trace "dump.$ext" --trace-window 0:20000
    run "dump-msi-$t" configs/teach/msi.yaml --trace "dump.$ext"
    run "dump-dir-$t" configs/coherence/dir-migratory.yaml --trace "dump.$ext" --trace-window 0:5000
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
