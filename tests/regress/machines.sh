#!/bin/sh
# regress/machines.sh BUILD: machines as YAML graphs (issue 17 item 1, docs/machines.md):
#  - today's uniprocessor and snooping machines written as graphs give every component's stats
#    byte-identical to system.type uniproc / smp (the builder adds nothing of its own)
#  - configs/machines/two-clusters.yaml (a machine no C file describes) matches its golden stats
#    and gives the same stats on a second run
#  - its mem-checker is on: with both programs at the same addresses (addr_offset 0) the
#    clusters, which are not coherent with each other, break SWMR and the run fails (exit 3)
#  - a TPU and a core share a DRAM: its bytes are the TPU's plus the core's, the core slows
#  - --set reaches nested components (cluster1.core[*].clock), describe --machine shows them,
#    and --graph draws each cluster as a dot subgraph
# Prints "machines: N passed, N failed".
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
$A run configs/default.yaml -q -o "$T/u0" > /dev/null 2>&1
$A run tests/regress/data/uniproc-graph.yaml -q -o "$T/u1" > /dev/null 2>&1
check "uniproc as a graph: stats.txt identical to system uniproc's (sim.events aside)" \
    "grep -v '^sim.events' '$T/u0/stats.txt' > '$T/a' && grep -v '^sim.events' '$T/u1/stats.txt' > '$T/b' && cmp -s '$T/a' '$T/b'"
check "uniproc as a graph: stats.json identical too" \
    "grep -v '\"sim.events\"' '$T/u0/stats.json' > '$T/a' && grep -v '\"sim.events\"' '$T/u1/stats.json' > '$T/b' && cmp -s '$T/a' '$T/b'"

$A run configs/coherence/true-sharing.yaml -q -o "$T/s0" > /dev/null 2>&1
$A run tests/regress/data/smp-graph.yaml -q -o "$T/s1" > /dev/null 2>&1
check "smp as a graph (flat names l1d0, llc3): every component's stats identical" \
    "grep -E '^(core|l1d|llc)[0-9]|^(bus|dram|workload)\.' '$T/s0/stats.txt' > '$T/a' && \
     grep -E '^(core|l1d|llc)[0-9]|^(bus|dram|workload)\.' '$T/s1/stats.txt' > '$T/b' && \
     [ \$(wc -l < '$T/a') -gt 300 ] && cmp -s '$T/a' '$T/b'"

C=configs/machines/two-clusters.yaml
$A run $C -q -o "$T/c1" > /dev/null 2>&1
rc1=$?
$A run $C -q -o "$T/c2" > /dev/null 2>&1
check "two-clusters runs with checks on (exit 0)" "[ $rc1 -eq 0 ]"
for f in stats.txt stats.json stats.csv; do
    check "two-clusters: $f matches tests/regress/golden/two-clusters.$f" \
        "diff -u tests/regress/golden/two-clusters.$f '$T/c1/$f' > '$T/d' || { head -20 '$T/d'; false; }"
done
check "two-clusters: a second run gives byte-identical stats" \
    "cmp -s '$T/c1/stats.txt' '$T/c2/stats.txt' && cmp -s '$T/c1/stats.json' '$T/c2/stats.json'"
check "two-clusters: cluster1 runs on its own 2 GHz clock, cluster0 on 3 GHz" \
    "$A describe --machine $C | grep -q '^cluster1.core\\[4\\] *thread-core *2GHz' && \
     $A describe --machine $C | grep -q '^cluster0.l2 *cache *3GHz'"
check "two-clusters: the packed cluster has coherence misses, the padded one none to speak of" \
    "p=\$(grep '^cluster1.l1d.misses_coherence ' '$T/c1/stats.txt' | awk '{print \$2}'); \
     q=\$(grep '^cluster0.l1d.misses_coherence ' '$T/c1/stats.txt' | awk '{print \$2}'); \
     [ -n \"\$p\" ] && [ -n \"\$q\" ] && [ \"\$p\" -gt \$((10 * q + 100)) ]"
check "two-clusters: every DRAM byte crossed the ring's memory interface" \
    "r=\$(grep '^dram.bytes_read ' '$T/c1/stats.txt' | awk '{print \$2}'); \
     m=\$(grep '^memni.bytes_out ' '$T/c1/stats.txt' | awk '{print \$2}'); [ -n \"\$r\" ] && [ \"\$r\" = \"\$m\" ]"
$A run $C -q -o "$T/c3" --set cluster1.core.addr_offset=0 > /dev/null 2> "$T/c3.err"
rc3=$?
check "the mem-checker catches the clusters' incoherence when both programs share addresses (exit 3)" \
    "[ $rc3 -eq 3 ] && grep -q 'SWMR violation' '$T/c3.err'"
$A describe --machine $C --set 'cluster1.core[*].clock=2.5GHz' --set 'cluster0.core[2].clock=1GHz' > "$T/d.txt" 2>&1
check "--set cluster1.core[*].clock=2.5GHz reaches every core of cluster1 and only them" \
    "[ \$(grep -c '^cluster1.core\\[[0-9]\\] *thread-core *2500MHz' '$T/d.txt') -eq 5 ] && \
     grep -q '^cluster1.l2 *cache *2GHz' '$T/d.txt' && grep -q '^cluster0.core\\[2\\] *thread-core *1GHz' '$T/d.txt' && \
     grep -q '^cluster0.core\\[1\\] *thread-core *3GHz' '$T/d.txt'"
$A run $C -q -o "$T/c4" --graph m.dot > /dev/null 2>&1
check "--graph draws each cluster as a subgraph" \
    "grep -q 'subgraph \"cluster_cluster0\"' '$T/c4/m.dot' && grep -q 'subgraph \"cluster_cluster1\"' '$T/c4/m.dot'"
# a TPU and a core share one DRAM (configs/machines/tpu-and-core.yaml)
$A run configs/machines/tpu-and-core.yaml -q -o "$T/tc" > /dev/null 2>&1
v() { grep "^$2 " "$1/stats.txt" | awk '{print $2}'; }
check "tpu-and-core: matches tests/regress/golden/tpu-and-core.stats.txt" \
    "diff -u tests/regress/golden/tpu-and-core.stats.txt '$T/tc/stats.txt' > '$T/d' || { head -20 '$T/d'; false; }"
db=$(v "$T/tc" dram.bytes_read); tb=$(v "$T/tc" tpu.mem.bytes_read); cb=$(v "$T/u0" dram.bytes_read)
check "tpu-and-core: the DRAM reads the TPU's fills plus what the core alone reads" \
    "[ -n '$db' ] && [ '$db' -eq \$(($tb + $cb)) ]"
i1=$(v "$T/tc" core.insts); i0=$(v "$T/u0" core.insts); p1=$(v "$T/tc" core.ipc); p0=$(v "$T/u0" core.ipc)
check "tpu-and-core: the core runs the same program more slowly beside the TPU" \
    "[ -n '$i1' ] && [ '$i1' = '$i0' ] && awk -v a='$p1' -v b='$p0' 'BEGIN { exit !(a < b) }'"
echo "machines: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
