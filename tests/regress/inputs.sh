#!/bin/sh
# inputs.sh BUILD: every input archsim opens by path (configs, includes, sweep files, lackey and
# archsim traces, workload directories' T<i>.trace, kernel files, litmus tests and manifests,
# SCALE-Sim .cfg and topology files) refuses a FIFO, a device and a directory at once with
# exit 65 or 66 and a message naming the path, instead of hanging, reading forever or filling
# memory (issue 15 item 3: before, a FIFO blocked open() in ten of these and /dev/zero was
# read until memory ran out or without end).
B=${1:-build}
A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
mkfifo "$T/fifo"; mkdir "$T/dir"
TMO=${TMO:-20}   # seconds each case may take
TOPO=tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv
CFG=tests/tpu/shipped/v2/configs/scale.cfg
check() {  # label path args...
    label=$1; p=$2; shift 2
    rm -rf "$T"/o "$T"/o.part-*
    timeout "$TMO" "$A" "$@" > /dev/null 2> "$T/err" < /dev/null
    rc=$?
    case $rc in
    65|66) if grep -qF -- "$p" "$T/err"; then pass=$((pass + 1)); return; fi ;;
    esac
    fail=$((fail + 1)); echo "FAIL $label: exit $rc: $(head -c 300 "$T/err" | head -1)"
}
for p in "$T/fifo" /dev/zero "$T/dir"; do
    printf 'include: %s\n' "$p" > "$T/inc.yaml"
    check "config $p" "$p" validate "$p"
    check "include $p" "$p" validate "$T/inc.yaml"
    check "sweep file $p" "$p" sweep "$p" --grid sim.seed=1,2 -o "$T/o"
    check "lackey trace $p" "$p" run configs/default.yaml --set core.trace="$p" -q -o "$T/o"
    check "validate lackey trace $p" "$p" validate configs/default.yaml --set core.trace="$p"
    check "cachegrind $p" "$p" cachegrind "$p"
    check "trace info $p" "$p" trace info "$p"
    check "trace dump $p" "$p" trace dump "$p"
    check "kernel_file $p" "$p" run configs/htm/hash.yaml --set core.kernel_file="$p" -q -o "$T/o"
    check "tpu topology key $p" "$p" run configs/tpu/scale.yaml --set tpu.topology="$p" -q -o "$T/o"
    check "tpu -c $p" "$p" tpu -c "$p" -t $TOPO -q -o "$T/o"
    check "tpu -t $p" "$p" tpu -c $CFG -t "$p" -q -o "$T/o"
    check "litmus test $p" "$p" litmus -q "$p"
    check "litmus --manifest $p" "$p" litmus -q --manifest "$p" tests/litmus/CoWR.litmus
    check "litmus --config $p" "$p" litmus -q --config "$p" tests/litmus/CoWR.litmus
    # a workload directory whose T1.trace is not a file
    rm -rf "$T/wl"; mkdir "$T/wl"; cp traces/samples/fs_packed-4t/* "$T/wl/"; rm "$T/wl/T1.trace"
    case $p in
    "$T/fifo") mkfifo "$T/wl/T1.trace" ;;
    /dev/zero) ln -s /dev/zero "$T/wl/T1.trace" ;;
    *) mkdir "$T/wl/T1.trace" ;;
    esac
    check "workload T1.trace $p" "$T/wl/T1.trace" run configs/false_sharing/replay.yaml \
        --set workload.trace="$T/wl" -q -o "$T/o"
done
echo "inputs: $pass passed, $fail failed"
[ $fail -eq 0 ]
