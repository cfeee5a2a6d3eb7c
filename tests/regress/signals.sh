#!/bin/sh
# regress/signals.sh BUILD: issue 16 item 4: `archsim tpu` stopped by SIGTERM, SIGINT or
# SIGHUP exits 130 with "interrupted by signal N ...; no results written" and leaves no report,
# no *.part file and no half trace (it used to die with 143 and leave the four *.part reports);
# `archsim litmus --trace` likewise removes the dump it was writing (run stops the same way:
# regress/outputs.sh; sweep keeps its complete points for --resume: docs/sweeps.md).
# The topology is generated: 40 GEMM layers of 1024^3 on SCALE-Sim's 32 x 32 array (--exact),
# about 0.3 s each, so the run is under way when the signal comes; every wait is a bounded poll.
# Prints "signals: N passed, N failed".
set -u
A=$(cd "$(dirname "${1:-build}/archsim")" && pwd)/archsim
T=$(mktemp -d)
LEFT=""
trap 'for p in $LEFT; do kill -9 $p 2> /dev/null; done; rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
# waits (at most 20 s) until the shell test $1 holds
until_true() { i=0; while ! eval "$1"; do i=$((i + 1)); [ $i -gt 400 ] && return 1; sleep 0.05; done; }

CFG=tests/tpu/shipped/v2/configs/scale.cfg
printf 'Layer, M, N, K,\n' > "$T/big.csv"
i=0; while [ $i -lt 40 ]; do echo "big$i, 1024, 1024, 1024," >> "$T/big.csv"; i=$((i + 1)); done
parts() { find "$T" -name '*.part*' | grep -q .; }

# $1 signal, $2 DIR, $3.. more options: starts the run, waits for its reports to be open (the
# *.part files), then ~1 s more, and signals it; sets rc
stop_run() {
    sig=$1; dir=$2; shift 2
    ulimit -v 4000000
    timeout 120 "$A" tpu -c $CFG -t "$T/big.csv" -i gemm --exact -q -o "$dir" "$@" \
        > "$T/out" 2> "$T/err" &
    pid=$!; LEFT="$LEFT $pid"
    until_true "ls '$dir' 2> /dev/null | grep -q 'COMPUTE_REPORT.csv.part'"
    sleep 1
    kill -$sig $pid
    wait $pid; rc=$?
}

for sig in TERM INT HUP; do
    case $sig in TERM) n=15 ;; INT) n=2 ;; HUP) n=1 ;; esac
    stop_run $sig "$T/r$sig"
    check "SIG$sig: exit 130, 'interrupted by signal $n ... no results written'" \
        "[ $rc -eq 130 ] && grep -q '^archsim tpu: interrupted by signal $n in layer big[0-9]* ([0-9]* of 40 layers done); no results written\$' '$T/err'"
    check "SIG$sig: no DIR (the run made it), no *.part file" "[ ! -e '$T/r$sig' ] && ! parts"
done

# with traces: the finished layers' traces go with the run's own DIR ...
stop_run TERM "$T/tr" --sram-traces --dram-traces
check "SIGTERM with --sram-traces --dram-traces: 130, no DIR, no *.part" \
    "[ $rc -eq 130 ] && [ ! -e '$T/tr' ] && ! parts"
# ... and stay in an existing DIR (--force), where nothing else is touched and no report is left
mkdir "$T/keep"; echo mine > "$T/keep/notes.txt"
stop_run TERM "$T/keep" --force --sram-traces
check "SIGTERM into an existing DIR: 130, no report, no *.part, the user's file kept" \
    "[ $rc -eq 130 ] && [ ! -e '$T/keep/COMPUTE_REPORT.csv' ] && ! parts &&
     [ \"\$(cat '$T/keep/notes.txt')\" = mine ] && grep -q 'no results written' '$T/err'"
check "... and no empty layerN/ directory of the layer under way" \
    "[ -z \"\$(find '$T/keep' -type d -name 'layer*' -empty)\" ]"

# a run that is not interrupted still writes its reports (the handler changes nothing else)
printf 'Layer, M, N, K,\nsmall, 64, 64, 64,\n' > "$T/small.csv"
"$A" tpu -c $CFG -t "$T/small.csv" -i gemm -q -o "$T/ok" > /dev/null 2>&1; rc=$?
check "an uninterrupted run: exit 0 and its four reports" \
    "[ $rc -eq 0 ] && [ -f '$T/ok/COMPUTE_REPORT.csv' ] && [ -f '$T/ok/ROOFLINE.csv' ] && ! parts"

# litmus --trace: 10^9 random runs of SB, stopped once the dump's temporary file is there
timeout 120 "$A" litmus --runs 1000000000 --trace "$T/lit.txt" tests/litmus/herd/SB.litmus \
    > "$T/out" 2> "$T/err" &
pid=$!; LEFT="$LEFT $pid"
until_true "ls '$T' | grep -q 'lit.txt.part'"
sleep 0.5
kill -TERM $pid
wait $pid; rc=$?
check "litmus --trace, SIGTERM: 130, 'interrupted by signal 15 in test SB', no dump, no *.part" \
    "[ $rc -eq 130 ] && grep -q '^archsim litmus: interrupted by signal 15 in test SB (run [0-9]* of 1000000000); no results written\$' '$T/err' &&
     [ ! -e '$T/lit.txt' ] && ! parts"

echo "signals: $pass passed, $fail failed"
[ $fail -eq 0 ]
