#!/bin/sh
# regress/graph.sh BUILD: the built machine as text and as a Graphviz digraph (issue 17 item 6,
# the part that works on today's machines; docs/outputs.md "The machine's graph"):
#  - describe --machine lists every component of the config with its class and clock, and each
#    link once, from its requesting port: the uniprocessor's 5 components and 5 links exactly,
#    the 4-core snooping machine's cores -> L1s -> bus -> LLC banks -> DRAM
#  - run --graph NAME writes a digraph into the run directory with a node per component and an
#    edge per link (the same count as describe's), names it on the results: line, and leaves
#    every stats file byte-identical to a run without it; dot parses it when graphviz is there
# Prints "graph: N passed, N failed".
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

$A describe --machine configs/default.yaml > "$T/uni.txt" 2>&1
cat > "$T/uni.want" <<'TXT'
machine of configs/default.yaml (system uniproc):
core             trace-core         3GHz
  icache         -> l1i.cpu_side[0]          latency 1 ps
  dcache         -> l1d.cpu_side[0]          latency 1 ps
l1i              cache              3GHz
  mem_side       -> l2.cpu_side[0]           latency 1 ps
l1d              cache              3GHz
  mem_side       -> l2.cpu_side[1]           latency 1 ps
l2               cache              3GHz
  mem_side       -> dram.port[0]             latency 1 ps
dram             dram               3GHz
5 components, 5 links
TXT
check "describe --machine configs/default.yaml: 5 components, 5 links, as expected" \
    "cmp -s '$T/uni.txt' '$T/uni.want' || { diff '$T/uni.want' '$T/uni.txt'; false; }"

$A describe --machine configs/coherence/false-sharing.yaml > "$T/smp.txt" 2>&1
check "describe --machine (4-core snooping): each core's dcache -> its L1, each L1 -> the bus" \
    "for i in 0 1 2 3; do grep -q \"^  dcache *-> l1d\$i.cpu_side \" '$T/smp.txt' &&
       grep -q \"^  bus *-> bus.cpu_side\\[\$i\\] \" '$T/smp.txt' || exit 1; done"
check "describe --machine (4-core snooping): every component once, every link once" \
    "n=\$(grep -c '^[a-z]' '$T/smp.txt'); l=\$(grep -c '^  ' '$T/smp.txt');
     tail -1 '$T/smp.txt' | grep -qx \"\$((n - 1)) components, \$l links\""
check "describe --machine --set system.cores=2: two cores" \
    "$A describe --machine configs/coherence/false-sharing.yaml --set system.cores=2 |
     grep -c '^core[0-9]' | grep -qx 2"

$A run configs/coherence/false-sharing.yaml -q -o "$T/a" > /dev/null 2>&1
$A run configs/coherence/false-sharing.yaml -q -o "$T/b" --graph machine.dot > "$T/b.out" 2>&1
check "run --graph: the results: line names machine.dot" "grep -q 'run.json, machine.dot)' '$T/b.out'"
nodes=$(grep -c '^  "[^"]*" \[label=' "$T/b/machine.dot")
edges=$(grep -c '^  "[^"]*" -> "' "$T/b/machine.dot")
comps=$(($(grep -c '^[a-z]' "$T/smp.txt") - 1))
links=$(grep -c '^  ' "$T/smp.txt")
check "run --graph: a digraph with a node per component ($comps) and an edge per link ($links)" \
    "head -1 '$T/b/machine.dot' | grep -qx 'digraph machine {' && tail -1 '$T/b/machine.dot' | grep -qx '}' &&
     [ $nodes -eq $comps ] && [ $edges -eq $links ] && [ $comps -gt 10 ]"
check "run --graph: every stats file byte-identical to the run without it" \
    "for f in stats.txt stats.json stats.csv; do cmp -s '$T/a/'\$f '$T/b/'\$f || exit 1; done"
if command -v dot > /dev/null 2>&1; then
    check "dot -Tsvg renders machine.dot" "dot -Tsvg '$T/b/machine.dot' -o '$T/m.svg' && grep -q '<svg' '$T/m.svg'"
fi

echo "graph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
