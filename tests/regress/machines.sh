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
# what a review found wrong (each failed before its fix); base: a core, an L1 and a DRAM
base() {  # file [extra components] [extra top-level text]
    { printf 'sim: {seed: 1, clock: 1GHz}\ncomponents:\n'
      printf '  core: {class: script-core, params: {script: "0:L:0x40 5:S:0x80 10:L:0x1000"}}\n'
      printf '  l1: {class: cache, params: {size: 1KiB, assoc: 2, line: 64B, hit_latency: 2}}\n'
      printf '  dram: {class: dram}\n%s' "${2:-}"
      printf 'links:\n  - {from: core.dcache, to: l1.cpu_side}\n  - {from: l1.mem_side, to: dram.port}\n%s' "${3:-}"; } > "$1"
}
deep=g0; i=1; while [ $i -lt 24 ]; do deep="$deep.g$i"; i=$((i + 1)); done
base "$T/deep.yaml" "  $deep.chk: {class: mem-checker}
"
$A validate "$T/deep.yaml" > "$T/deep.log" 2>&1; rc=$?
check "a dotted declaration 25 deep: exit 78, groups nest more than 16 deep (a segfault) ($rc)" \
    "[ $rc = 78 ] && grep -q 'groups nest more than 16 deep' '$T/deep.log'"
base "$T/lat.yaml"
sed -i 's/to: l1.cpu_side}/to: l1.cpu_side, latency: 18446744073709551615ps}/' "$T/lat.yaml"
$A run "$T/lat.yaml" --set sim.watchdog=0 -q -o "$T/lat" > "$T/lat.log" 2>&1; rc=$?
check "a link latency of 2^64 - 1 ps: exit 78 at it, no run directory (an abort) ($rc)" \
    "[ $rc = 78 ] && grep -q 'lat.yaml:[0-9]*:[0-9]*: links: latency: .* more than a link can take' '$T/lat.log' && [ ! -e '$T/lat' ]"
base "$T/empty.yaml" "  g: {count: 65536, subcomponents: {h: {count: 65536, subcomponents: {i: {count: 65536, subcomponents: {}}}}}}
"
timeout 20 $A validate "$T/empty.yaml" > "$T/empty.log" 2>&1; rc=$?
check "groups with nothing in them, 2^48 instances: exit 78 at once (a hang) ($rc)" \
    "[ $rc = 78 ] && grep -q 'g.h.i: a group with nothing in it' '$T/empty.log'"
{ printf 'sim: {seed: 1, clock: 1GHz}\ncomponents:\n'
  printf '  core: {class: script-core, count: 2, flat: true, params: {script: "0:L:0x40 5:S:0x80 10:L:0x1000"}}\n'
  printf '  l1: {class: cache, count: 2, flat: true, params: {size: 1KiB, assoc: 2}}\n'
  printf '  l2: {class: cache, count: 2, flat: true, params: {size: 4KiB, assoc: 2}}\n  dram: {class: dram}\n'
  printf 'links:\n  - {from: "core[*].dcache", to: "l1[*].cpu_side"}\n  - {from: "l1[*].mem_side", to: "l2[*].cpu_side"}\n'
  printf '  - {from: "l2[*].mem_side", to: dram.port}\n'; } > "$T/flat.yaml"
$A run "$T/flat.yaml" -q -o "$T/flat" > /dev/null 2>&1
a1=$(v "$T/flat" l1.accesses); a2=$(v "$T/flat" l2.accesses)
check "flat arrays l1 and l2: l1.accesses 6 and l2.accesses 6 ($a1, $a2; summed into one 'l.accesses' 12)" \
    "[ '$a1' = 6 ] && [ '$a2' = 6 ] && ! grep -q '^l\\.accesses' '$T/flat/stats.txt'"
sed 's/^  l2: {class: cache, count: 2, flat: true,/  l13: {class: cache,/; s/"l2\[\*\].cpu_side"/l13.cpu_side/; s/"l2\[\*\].mem_side"/l13.mem_side/' "$T/flat.yaml" > "$T/flat13.yaml"
sed -i 's/to: l13.cpu_side}/to: "l13.cpu_side[*]"}/' "$T/flat13.yaml"
$A run "$T/flat13.yaml" -q -o "$T/flat13" > /dev/null 2>&1
a1=$(v "$T/flat13" l1.accesses)
check "a standalone l13 beside flat array l1 (l10, l11) is not summed into l1 ($a1)" "[ '$a1' = 6 ]"
base "$T/dup.yaml" "  w: {class: script-core, count: 2, flat: true, params: {script: \"0:L:0x40\"}}
  w1: {class: script-core, params: {script: \"0:L:0x80\"}}
"
$A validate "$T/dup.yaml" > "$T/dup.log" 2>&1; rc=$?
check "flat array w's w1 and a component w1: exit 78, both named (two components w1) ($rc)" \
    "[ $rc = 78 ] && grep -q 'instance 1 of flat array w and component w1 both get the name w1' '$T/dup.log'"
{ printf 'sim: {seed: 1, clock: 1GHz}\ncomponents:\n'
  printf '  core: {class: script-core, params: {script: "0:L:0x40"}}\n'
  printf '  l1: {class: coherent-cache, params: {size: 1KiB, assoc: 1, line: 128B}}\n'
  printf '  bus: {class: snoop-bus, params: {line: 128B}}\n'
  printf '  llc: {class: cache, count: 4, params: {size: 1KiB, assoc: 2, line: 128B}}\n  dram: {class: dram}\n'
  printf 'links:\n  - {from: core.dcache, to: l1.cpu_side}\n  - {from: l1.bus, to: bus.cpu_side}\n'
  printf '  - {from: bus.mem_side, to: "llc[*].cpu_side"}\n  - {from: "llc[*].mem_side", to: dram.port}\n'; } > "$T/banks.yaml"
$A validate "$T/banks.yaml" > "$T/banks.log" 2>&1; rc=$?
check "a bus over 4 LLC banks left at interleave 1: exit 78 with the hint (a quarter of the sets) ($rc)" \
    "[ $rc = 78 ] && grep -q 'give each bank interleave: 4' '$T/banks.log' &&
     $A validate '$T/banks.yaml' --set llc.interleave=4 > /dev/null 2>&1"
{ printf 'sim: {seed: 1, clock: 1GHz}\ncomponents:\n'
  printf '  core: {class: script-core, params: {script: "0:L:0x40"}}\n'
  printf '  grp: {subcomponents: {l1: {class: cache, params: {size: 2KiB, assoc: 2}}}}\n  dram: {class: dram}\n'
  printf 'links:\n  - {from: core.dcache, to: grp.l1.cpu_side}\n  - {from: grp.l1.mem_side, to: dram.port}\n'
  printf 'grp: {clock: 2GHz}\ngrp.l1: {assoc: 4}\n'; } > "$T/ord.yaml"
$A validate "$T/ord.yaml" --set grp.l1.assoc=3 > "$T/ord.log" 2>&1; rc=$?
check "--set grp.l1.assoc=3 wins over the file's later grp.l1 key (refused: 3 ways; it was dropped) ($rc)" \
    "[ $rc = 78 ] && grep -q '^--set grp.l1.assoc=3: grp.l1.assoc' '$T/ord.log'"
{ printf 'sim: {seed: 1, clock: 1GHz}\ncomponents:\n'
  printf '  core: {class: script-core, count: 4, params: {script: "0:L:0x40"}}\n'
  printf '  l1: {class: cache, count: 4, params: {size: 1KiB, assoc: 2}}\n  dram: {class: dram}\n'
  printf 'links:\n  - {from: "core[*].dcache", to: "l1[*].cpu_side"}\n  - {from: "l1[*].mem_side", to: dram.port}\n'; } > "$T/arr.yaml"
$A validate "$T/arr.yaml" --set core.count=2 --set l1.count=2 --set 'core[3].script=0:L:0x80' > "$T/arr1.log" 2>&1; r1=$?
$A validate "$T/arr.yaml" --set core.count=6 --set l1.count=6 --set 'core[5].script=0:L:0x80' > "$T/arr2.log" 2>&1; r2=$?
check "an index against the count a --set gives: core[3] of 2 refused, core[5] of 6 taken ($r1, $r2)" \
    "[ $r1 = 78 ] && grep -q 'index 3 is out of range: core has 2' '$T/arr1.log' && [ $r2 = 0 ]"
$A validate "$T/arr.yaml" --set l1.params.clock=2GHz > "$T/pc.log" 2>&1; r1=$?
$A validate "$T/arr.yaml" --set l1.type=dram > "$T/pt.log" 2>&1; r2=$?
check "clock, count or type inside params:, or a type: that is not the class: refused ($r1, $r2)" \
    "[ $r1 = 78 ] && grep -q 'l1.params.clock: not a parameter of cache' '$T/pc.log' &&
     [ $r2 = 78 ] && grep -q 'l1 is a cache' '$T/pt.log'"
base "$T/self.yaml" "" "  - {from: l1.mem_side, to: l1.cpu_side}
"
sed -i '/from: l1.mem_side, to: dram.port/d' "$T/self.yaml"
$A validate "$T/self.yaml" > "$T/self.log" 2>&1; rc=$?
check "a link from a component to itself: exit 78 (a deadlock at run time) ($rc)" \
    "[ $rc = 78 ] && grep -q 'l1.mem_side and l1.cpu_side are ports of one component' '$T/self.log'"
sed 's#  - {from: bus.mem_side, to: "llc\[\*\].cpu_side"}#  - {from: bus.mem_side, to: "llc[0].cpu_side"}\n  - {from: bus.mem_side, to: "llc[0].cpu_side"}#' "$T/banks.yaml" > "$T/twice.yaml"
$A validate "$T/twice.yaml" --set llc.count=1 --set llc.interleave=2 > "$T/twice.log" 2>&1; rc=$?
check "one LLC linked twice to the bus (two banks that are one): exit 78 ($rc)" \
    "[ $rc = 78 ] && grep -q 'mem_side links to llc\[0\] twice' '$T/twice.log'"
# a graph's resolved config loads back from its run directory (its include: was relative: 66)
$A run configs/machines/two-clusters.yaml -q -o "$T/rs" > /dev/null 2>&1
AA=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
(cd "$T" && "$AA" run "$T/rs/config.resolved.yaml" -q -o "$T/rs2" > "$T/rs2.log" 2>&1); rc=$?
check "two-clusters' config.resolved.yaml runs from another directory, the same stats ($rc)" \
    "[ $rc = 0 ] && grep -v -e '^sim.events' -e host '$T/rs/stats.txt' > '$T/rsa' &&
     grep -v -e '^sim.events' -e host '$T/rs2/stats.txt' > '$T/rsb' && cmp -s '$T/rsa' '$T/rsb'"
# parts whose entries include parts, four per level, ten levels: 4^9 files read (15 s, 600 MB)
mkdir -p "$T/tree"
printf 'part: true\nclass: mem-checker\n' > "$T/tree/p0.yaml"
i=1; while [ $i -le 9 ]; do
    printf 'part: true\nsubcomponents:\n' > "$T/tree/p$i.yaml"
    for j in a b c d; do printf '  %s: {include: p%d.yaml}\n' $j $((i - 1)) >> "$T/tree/p$i.yaml"; done
    i=$((i + 1))
done
printf 'components:\n  t: {include: tree/p9.yaml}\n' > "$T/tree.yaml"
timeout 20 $A validate "$T/tree.yaml" > "$T/tree.log" 2>&1; rc=$?
check "part includes multiplying level after level: exit 78 at the limit of 1000 ($rc)" \
    "[ $rc = 78 ] && grep -q 'included more than 1000 times' '$T/tree.log'"
# a resolved config rewrites the paths its components read as paths, not every key of that
# name: the ring's topology: ring beside a TPU's topology: FILE (it became a path, refused)
{ printf 'include: %s/configs/machines/two-clusters.yaml\ncomponents:\n  tpu:\n    class: tpu-array\n' "$(pwd)"
  printf '    params: {topology: %s/tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv, rows: 8, cols: 8, transfer: 64B, interface: calc}\n' "$(pwd)"
  printf 'links:\n  - {from: cluster0.ni.net, to: "ring.node[0]"}\n  - {from: cluster1.ni.net, to: "ring.node[1]"}\n'
  printf '  - {from: memni.net, to: "ring.node[2]"}\n  - {from: memni.mem_side, to: dram.port}\n  - {from: tpu.mem, to: dram.port}\n'; } > "$T/tctpu.yaml"
$A run "$T/tctpu.yaml" -q -o "$T/tt" > /dev/null 2>&1
(cd "$T" && "$AA" run "$T/tt/config.resolved.yaml" -q -o "$T/tt2" > "$T/tt2.log" 2>&1); rc=$?
check "ring (topology: ring) and TPU (topology: FILE): the resolved config loads back ($rc)" \
    "[ $rc = 0 ] && grep -q 'topology: ring' '$T/tt/config.resolved.yaml'"
{ printf 'sim: {seed: 1}\ncomponents:\n  core: {class: pattern-core, count: 4, params: {pattern: private, ops: 200}}\n'
  printf '  l: {class: cache, count: 2, flat: true}\n  l1: {class: cache, count: 2, flat: true}\n  dram: {class: dram}\n'
  printf 'links:\n  - {from: "core[0].dcache", to: "l[0].cpu_side"}\n  - {from: "core[1].dcache", to: "l[1].cpu_side"}\n'
  printf '  - {from: "core[2].dcache", to: "l1[0].cpu_side"}\n  - {from: "core[3].dcache", to: "l1[1].cpu_side"}\n'
  printf '  - {from: "l[*].mem_side", to: dram.port}\n  - {from: "l1[*].mem_side", to: dram.port}\n'; } > "$T/stem.yaml"
$A validate "$T/stem.yaml" > "$T/stem.log" 2>&1; rc=$?
check "flat array l1's sums beside flat array l's instance l1: exit 78 (two stats l1.accesses) ($rc)" \
    "[ $rc = 78 ] && grep -q 'sums are named l1.STAT, and a component is called l1' '$T/stem.log'"
echo "machines: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
