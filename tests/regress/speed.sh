#!/bin/sh
# regress/speed.sh BUILD: what makes archsim faster changes no answer (issue 18):
#  - the snooping bus's snoop filter (bus.snoop_filter, on by default) gives stats.txt and
#    stats.json byte-identical to snooping every cache, on machines that exercise every snoop:
#    false, true and migratory sharing, upgrades and write-backs, MSI/MESI/MOESI, the atomic bus,
#    the random tester with every load checked, locks, HTM with requester and responder wins
#    (the probes), a replayed program, and the snooping experiment's 16-core machine
#  - the filter is really on: the I.Other_* transitions the caches report are the bus's count of
#    the snoops it spared them, nonzero on a machine with more caches than holders
# Prints "speed: N passed, N failed".
set -u
B=${1:-build}
A=./archsim
[ -x "$A" ] || A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() {  # name cond
    if sh -c "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
# same NAME CONFIG ARGS...: the run with the filter and without it give the same stats
n=0
same() {
    name=$1 cfg=$2
    shift 2
    n=$((n + 1))
    d="$T/r$n"
    $A run "$cfg" -q -o "$d-on" "$@" > "$d-on.log" 2>&1
    on=$?
    $A run "$cfg" -q -o "$d-off" --set bus.snoop_filter=false "$@" > "$d-off.log" 2>&1
    off=$?
    check "$name: the snoop filter changes no statistic (exit $on / $off)" \
        "[ $on = $off ] && [ -f '$d-on/stats.txt' ] && \
         grep -v -e '^sim.events' -e host '$d-on/stats.txt' > '$T/a' && \
         grep -v -e '^sim.events' -e host '$d-off/stats.txt' > '$T/b' && cmp -s '$T/a' '$T/b' && \
         grep -v -e '\"sim.events\"' -e host '$d-on/stats.json' > '$T/a' && \
         grep -v -e '\"sim.events\"' -e host '$d-off/stats.json' > '$T/b' && cmp -s '$T/a' '$T/b'"
}
S=configs/bench/smp8-mesi.yaml
for pat in false_sharing true_sharing migratory producer_consumer shared_ro; do
    same "16-core $pat" $S --set system.cores=16 --set core.ops=4000 --set core.pattern=$pat \
        --set core.words=4 --set l1d.classify_misses=true --set system.check=true
done
same "private data with capacity misses (write-backs)" $S --set core.ops=20000 \
    --set core.words=8192 --set l1d.size=4KiB --set system.check=true
for p in msi moesi; do
    same "$p on the atomic bus" $S --set core.ops=5000 --set l1d.protocol=$p --set bus.mode=atomic \
        --set core.pattern=migratory --set core.words=32 --set system.check=true
done
same "random tester, every load checked" configs/coherence/random-tester.yaml
same "upgrades" configs/coherence/upgrade.yaml
same "write-backs" configs/coherence/writeback.yaml
same "TAS lock" configs/locks/tas.yaml
same "MCS lock, 16 cores" configs/locks/mcs.yaml --set system.cores=17
same "HTM, requester wins" configs/htm/hash.yaml --set core.kernel_file=configs/htm/hash-htm.k \
    --set core.size=2
same "HTM, responder wins (probes)" configs/htm/hash.yaml --set core.kernel_file=configs/htm/hash-htm.k \
    --set core.size=2 --set l1d.htm_conflict=responder
same "replayed program" configs/false_sharing/replay.yaml --set workload.trace=traces/samples/fs_packed-4t \
    --set system.cores=5
same "the snooping experiment's machine" configs/coherence/dirsnoop-bus.yaml

# the filter spares snoops: on 16 cores with private data, almost every request finds no other
# holder, so each cache's I.Other_GETS count is the bus's count for it, not its own
$A run $S -q -o "$T/priv" --set system.cores=16 --set core.ops=3000 > /dev/null 2>&1
check "private data: the caches' I.Other_GETS counts come from the filter (15 x the others' GetS)" \
    "v=\$(grep '^l1d0.L1Cache_Controller.I.Other_GETS ' '$T/priv/stats.txt' | awk '{print \$2}'); \
     g=\$(grep '^bus.GetS ' '$T/priv/stats.txt' | awk '{print \$2}'); \
     own=\$(grep '^l1d0.load_misses ' '$T/priv/stats.txt' | awk '{print \$2}'); \
     [ -n \"\$v\" ] && [ \"\$v\" -gt 0 ] && [ \"\$v\" -eq \$((g - own)) ]"

echo "speed: $pass passed, $fail failed"
[ $fail -eq 0 ]
