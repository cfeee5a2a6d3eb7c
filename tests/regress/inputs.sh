#!/bin/sh
# inputs.sh BUILD: every input archsim opens by path (configs, includes, sweep files, lackey and
# archsim traces, workload directories' T<i>.trace, kernel files, litmus tests and manifests,
# SCALE-Sim .cfg and topology files) refuses a FIFO, a device and a directory at once with
# exit 65 or 66 and a message naming the path, instead of hanging, reading forever or filling
# memory; and a regular file past its reader's limit likewise (issue 15 item 3: before, a FIFO blocked open() in ten of these and /dev/zero was
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
# a regular file past its reader's limit is refused from its size, before it is read whole
# (sparse files: they take no disk)
big() {  # label exit size name args... (@F@ in args is the file)
    label=$1; code=$2; size=$3; name=$4; shift 4
    f="$T/$name"; rm -f "$f"; truncate -s "$size" "$f"
    for a in "$@"; do shift; [ "$a" = @F@ ] && a=$f; set -- "$@" "$a"; done
    timeout "$TMO" "$A" "$@" > /dev/null 2> "$T/err" < /dev/null
    rc=$?
    if [ $rc -eq "$code" ] && grep -qF -- "$f: larger than the limit" "$T/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL $label over its limit: exit $rc: $(head -c 300 "$T/err" | head -1)"
    fi
    rm -f "$f"
}
big "config" 78 5M big.yaml validate @F@
printf 'kernel: big.ptx\ngrid: [1, 1, 1]\nblock: [32, 1, 1]\nparams: []\n' > "$T/launch.yaml"
big "PTX" 65 65M big.ptx gpu run "$T/launch.yaml" --machine configs/gpu/a100.yaml -q -o "$T/o"
big "litmus --manifest" 65 17M big.csv litmus -q --manifest @F@ tests/litmus/CoWR.litmus
big "diff stats.json" 65 257M big.json diff @F@ tests/regress/golden/default.stats.json
big "diff run B" 65 257M big2.json diff tests/regress/golden/default.stats.json @F@
echo "inputs: $pass passed, $fail failed"
[ $fail -eq 0 ]
