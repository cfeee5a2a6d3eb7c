#!/bin/sh
# regress/rdu.sh BUILD: the dataflow RDU (issue 22; docs/rdu.md) through its commands:
#  - the lecture's metapipeline, 100/150/80 cycles x 16 trips: rdu.cycles 2,580 pipelined and
#    5,280 sequential, by `archsim rdu run` and by `archsim run CONFIG --set workload.graph=`
#  - a graph too big for the teaching chip splits into kernels, says why, and runs them all
#  - the SN40L config on the feed-forward block: memory-bound on HBM, within 10 % of the
#    mapper's prediction; the same run twice gives the same stats; the 32-layer decoder as one
#    kernel call with every byte of its HBM traffic accounted for
#  - the per-cycle view in text, Perfetto and VCD
#  - bad graphs and command lines: exit codes and file:line:col messages, no run directory left
# Prints "rdu: N passed, N failed".
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
stat() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
W=workloads/dataflow
TEACH=configs/rdu/teach-4x4.yaml

"$A" rdu run $W/metapipe.yaml --machine $TEACH -q -o "$T/pipe" > /dev/null 2>&1
"$A" run $TEACH --set workload.graph=$W/metapipe-seq.yaml -q -o "$T/seq" > /dev/null 2>&1
p=$(stat rdu.cycles "$T/pipe/stats.txt"); s=$(stat rdu.cycles "$T/seq/stats.txt")
check "metapipeline 100/150/80 x 16: $p cycles pipelined (2580), $s sequential (5280)" \
    "[ '$p' = 2580 ] && [ '$s' = 5280 ]"
check "the mapper predicts both exactly" \
    "[ \$(awk '\$1 == \"rdu.predicted_cycles\" { print \$2 }' $T/pipe/stats.txt) = 2580 ] &&
     [ \$(awk '\$1 == \"rdu.predicted_cycles\" { print \$2 }' $T/seq/stats.txt) = 5280 ]"
check "stage stats: compute busy 16 x 150, store starved while compute works" \
    "[ \$(awk '\$1 == \"rdu.stage.outer.compute.busy\" { print \$2 }' $T/pipe/stats.txt) = 2400 ] &&
     [ \$(awk '\$1 == \"rdu.stage.outer.store.starved\" { print \$2 }' $T/pipe/stats.txt) -gt 0 ]"

"$A" rdu map $W/metapipe.yaml --machine $TEACH > "$T/map1.txt" 2>&1; rc=$?
check "rdu map: stages, places and the predicted II ($rc)" \
    "[ $rc -eq 0 ] && grep -q 'stage 1: compute  1 PCU at (0,1)  150 cycles/iter' $T/map1.txt &&
     grep -q 'loop outer: 16 trips, pipe; predicted II 150 cycles, 2580 cycles in all' $T/map1.txt"

"$A" rdu map $W/big-pipeline.yaml --machine $TEACH > "$T/map2.txt" 2>&1
check "a graph too big for the chip: 2 kernels, and why" \
    "grep -q ': 2 kernels' $T/map2.txt && grep -q \"loop 'pipe24' does not fit one kernel (24 PCUs\" $T/map2.txt"
check "the buffer between stages 0 and 4 of the second kernel holds 5 versions (b - a + 1)" \
    "grep -q 'buffer s16 -> s20 (t16): 4096 B x 5 versions' $T/map2.txt"
"$A" rdu run $W/big-pipeline.yaml --machine $TEACH -q -o "$T/big" > /dev/null 2>&1
check "both kernels run; the tile between them goes through HBM (8 trips x 4 KiB each way)" \
    "[ \$(awk '\$1 == \"rdu.kernel_calls\" { print \$2 }' $T/big/stats.txt) = 2 ] &&
     [ \$(awk '\$1 == \"rdu.hbm_bytes\" { print \$2 }' $T/big/stats.txt) = 65536 ]"

"$A" rdu run $W/mlp.yaml --machine configs/rdu/sn40l.yaml -q -o "$T/mlp" > /dev/null 2>&1
"$A" rdu run $W/mlp.yaml --machine configs/rdu/sn40l.yaml -q -o "$T/mlp2" > /dev/null 2>&1
c=$(stat rdu.cycles "$T/mlp/stats.txt"); pr=$(stat rdu.predicted_cycles "$T/mlp/stats.txt")
u=$(stat rdu.hbm_utilization "$T/mlp/stats.txt")
check "SN40L feed-forward block: HBM-bound (utilization $u >= 0.9), $c cycles within 10 % of the prediction $pr" \
    "awk 'BEGIN { exit !($u >= 0.9 && $c <= 1.1 * $pr && $c >= 0.9 * $pr) }'"
check "the same run twice: identical stats.json" \
    "grep -v host_ $T/mlp/stats.json > $T/a.json; grep -v host_ $T/mlp2/stats.json > $T/b.json; cmp -s $T/a.json $T/b.json"
check "launch costs stay out of rdu.cycles: sim.cycles = rdu.cycles + 5 us at 1.6 GHz (+ links)" \
    "awk 'BEGIN { exit !($(stat sim.cycles "$T/mlp/stats.txt") - $c >= 8000 && $(stat sim.cycles "$T/mlp/stats.txt") - $c <= 8004) }'"

# the decoder: one kernel call for 32 layers; per layer its weights (wq 32 MiB, wkv 16 MiB,
# wo 32 MiB, the SwiGLU's 3 x 112 MiB, two 8 KiB norms), its K and V (8 MiB each, read) and
# the new K/V row (4 KiB, written) cross HBM
"$A" rdu run $W/decoder.yaml --machine configs/rdu/sn40l.yaml -q -o "$T/dec" > /dev/null 2>&1
check "decoder: 1 kernel call for 32 layers, 32 x 453,005,312 bytes of HBM traffic" \
    "[ \$(awk '\$1 == \"rdu.kernel_calls\" { print \$2 }' $T/dec/stats.txt) = 1 ] &&
     [ \$(awk '\$1 == \"rdu.hbm_bytes\" { print \$2 }' $T/dec/stats.txt) = \$((32 * (33554432 + 16777216 + 33554432 + 3 * 117440512 + 2 * 8192 + 2 * 8388608 + 4096))) ]"
dc=$(stat rdu.cycles "$T/dec/stats.txt"); dp=$(stat rdu.predicted_cycles "$T/dec/stats.txt")
check "decoder: the prediction, carried chain included, within 1 % ($dp predicted, $dc simulated)" \
    "awk 'BEGIN { exit !($dp <= 1.01 * $dc && $dp >= 0.99 * $dc) }'"
check "decoder: the mapper fuses rope and the head reshape into q_proj, the residual adds into o_proj and down" \
    "'$A' rdu map $W/decoder.yaml --machine configs/rdu/sn40l.yaml | grep -q 'q_proj+rope_q+heads' &&
     '$A' rdu map $W/decoder.yaml --machine configs/rdu/sn40l.yaml | grep -q 'down+resid2'"

for f in txt json vcd; do
    "$A" rdu run $W/metapipe.yaml --machine $TEACH -q -o "$T/d-$f" --trace "$T/d.$f" > /dev/null 2>&1
done
check "text dump: which stage runs which iteration, with its buffer's versions" \
    "grep -q 'rdu.outer.compute: run iter=15 held=1 dur=150' $T/d.txt && [ \$(grep -c ': run iter=' $T/d.txt) -eq 48 ]"
check "Perfetto dump: one track per stage" \
    "python3 -c 'import json,sys; d=json.load(open(\"$T/d.json\")); n={e[\"args\"][\"name\"] for e in d[\"traceEvents\"] if e.get(\"ph\")==\"M\" and e.get(\"name\")==\"thread_name\"}; sys.exit(not {\"rdu.outer.load\",\"rdu.outer.compute\",\"rdu.outer.store\"} <= n)'"
check "VCD dump: the stages' wires" "grep -q 'compute' $T/d.vcd && grep -q '^#' $T/d.vcd"

# bad inputs
printf 'graph:\n  nodes:\n    a: {op: mapp}\n' > "$T/bad1.yaml"
"$A" rdu run "$T/bad1.yaml" --machine $TEACH -q -o "$T/b1" > "$T/b1.log" 2>&1; rc=$?
check "an unknown op: exit 78 at its line and column, with a hint ($rc)" \
    "[ $rc -eq 78 ] && grep -q 'bad1.yaml:3:13: op: unknown .mapp.; did you mean .map.' $T/b1.log && [ ! -e $T/b1 ]"
printf 'graph:\n  tensors:\n    x: {shape: [8, 4], dtype: bf16, tier: hbm}\n    y: {shape: [8, 5], dtype: bf16}\n  nodes:\n    a: {op: softmax, in: x, out: y}\n' > "$T/bad2.yaml"
"$A" rdu map "$T/bad2.yaml" --machine $TEACH > "$T/b2.log" 2>&1; rc=$?
check "a shape mismatch: exit 78 at the node's out ($rc)" \
    "[ $rc -eq 78 ] && grep -q 'bad2.yaml:6:34: node .a.: shape mismatch: softmax keeps its input' $T/b2.log"
"$A" rdu run "$T/nope.yaml" --machine $TEACH -q -o "$T/b3" > "$T/b3.log" 2>&1; rc=$?
check "a missing graph: exit 66 ($rc)" "[ $rc -eq 66 ] && [ ! -e $T/b3 ]"
"$A" rdu run $W/metapipe.yaml -q > "$T/b4.log" 2>&1; rc=$?
check "rdu run without --machine: exit 64 ($rc)" "[ $rc -eq 64 ] && grep -q 'machine CONFIG is required' $T/b4.log"
"$A" rdu map $W/metapipe.yaml --machine configs/gpu/a100.yaml > "$T/b5.log" 2>&1; rc=$?
check "rdu map on a GPU config: exit 78, not an RDU config ($rc)" "[ $rc -eq 78 ] && grep -q 'not an RDU config' $T/b5.log"
"$A" rdu frob > "$T/b6.log" 2>&1; rc=$?
check "an unknown rdu subcommand: exit 64 ($rc)" "[ $rc -eq 64 ]"
printf 'graph:\n  tensors:\n    w: {shape: [1000000, 1000000], dtype: fp32, tier: hbm}\n    o: {shape: [1000000, 1000000], dtype: fp32, tier: ddr}\n  nodes:\n    a: {op: map, in: w, out: o}\n' > "$T/bad7.yaml"
"$A" rdu map "$T/bad7.yaml" --machine $TEACH > "$T/b7.log" 2>&1; rc=$?
check "tensors larger than HBM: exit 78 naming the tensor and hbm.capacity ($rc)" \
    "[ $rc -eq 78 ] && grep -q \"bad7.yaml:3:5: the tensors in hbm hold 3.6 TiB over the run (the largest: 'w'), more than hbm.capacity 16.0 GiB\" $T/b7.log"
# what a review found wrong (each of these failed before its fix)
# a loop split into kernels with a carried edge across its parts: the host calls the parts in
# turn, one trip each (kernel 0 ran all trips reading an r nothing had written yet)
{ printf 'graph:\n  tensors: {r: {shape: [1024], dtype: fp32}}\n  nodes:\n'
  printf '    a: {op: fixed, cycles: 100, in: r}\n    b: {op: fixed, cycles: 100}\n'
  printf '    c: {op: fixed, cycles: 100, out: r}\n'
  printf '  loops: [{name: L, trips: 4, body: [a, b, c]}]\n'; } > "$T/carry.yaml"
"$A" rdu run "$T/carry.yaml" --machine $TEACH --set system.rows=1 --set system.cols=2 -q \
    -o "$T/carry" > /dev/null 2>&1
check "a split loop with a carried edge across parts: 4 trips x 2 parts = 8 calls, r written and read 4 x 4096 B" \
    "[ '$(stat rdu.kernel_calls "$T/carry/stats.txt" 2>/dev/null)' = 8 ] &&
     [ '$(stat hbm.bytes_written "$T/carry/stats.txt" 2>/dev/null)' = 16384 ] &&
     [ '$(stat hbm.bytes_read "$T/carry/stats.txt" 2>/dev/null)' = 16384 ] &&
     [ '$(stat rdu.stage.k0.L.a.iterations "$T/carry/stats.txt" 2>/dev/null)' = 4 ]"
"$A" rdu map "$T/carry.yaml" --machine $TEACH --set system.rows=1 --set system.cols=2 > "$T/carry.txt" 2>&1
check "rdu map says why: the parts in turn, called 4 times, 8 calls in all" \
    "grep -q \"'a' reads what 'c' makes at the trip before, across parts\" $T/carry.txt &&
     grep -q 'called 4 times' $T/carry.txt && grep -q '^8 kernel calls in all' $T/carry.txt"
# the same with the carried tensor in HBM (tier: hbm): still the parts in turn
sed 's/tensors: {r: {shape: \[1024\], dtype: fp32}}/tensors: {r: {shape: [1024], dtype: fp32, tier: hbm}}/' "$T/carry.yaml" > "$T/carryh.yaml"
"$A" rdu run "$T/carryh.yaml" --machine $TEACH --set system.rows=1 --set system.cols=2 -q \
    -o "$T/carryh" > /dev/null 2>&1
check "a carried edge through HBM across parts: the parts in turn, 8 calls (kernel 0 ran all trips first)" \
    "[ '$(stat rdu.kernel_calls "$T/carryh/stats.txt" 2>/dev/null)' = 8 ]"
# a tensor t made in loop I (4 trips) nested in O (2 trips), read in O, across a split onto a
# 1 x 1 chip: hbm_io NAME MAKER-INPUTS prints the HBM bytes written and read
hbm_io() {
    { printf 'graph:\n  tensors: {t: {shape: [1024], dtype: fp32}}\n  nodes:\n'
      printf '    p: {op: fixed, cycles: 10, %sout: t}\n    c: {op: fixed, cycles: 10, in: t}\n' "$2"
      printf '  loops:\n    - {name: I, trips: 4, body: [p]}\n    - {name: O, trips: 2, body: [I, c]}\n'; } > "$T/$1.yaml"
    "$A" rdu run "$T/$1.yaml" --machine $TEACH --set system.rows=1 --set system.cols=1 -q \
        -o "$T/$1" > /dev/null 2>&1
    echo "$(stat hbm.bytes_written "$T/$1/stats.txt" 2>/dev/null) $(stat hbm.bytes_read "$T/$1/stats.txt" 2>/dev/null)"
}
io=$(hbm_io nest "")
check "a nested loop's tensor across kernels: 2 x 4 x 4096 B written and read ($io)" "[ '$io' = '32768 32768' ]"
# an accumulator (it reads what it writes): its last value of each run of I
io=$(hbm_io acc "in: t, ")
check "an accumulator across kernels: 2 x 4096 B written and read, written 4 x each before ($io)" \
    "[ '$io' = '8192 8192' ]"
# tiling a loop that holds a nested loop halves the nested loop's work too
{ printf 'graph:\n  tensors: {t: {shape: [1048576], dtype: fp32}}\n  nodes:\n'
  printf '    inner: {op: fixed, cycles: 100}\n    p: {op: fixed, cycles: 10, out: t}\n'
  printf '    c: {op: fixed, cycles: 10, in: t}\n'
  printf '  loops:\n    - {name: I, trips: 5, body: [inner]}\n    - {name: O, trips: 2, body: [I, p, c]}\n'; } > "$T/tilenest.yaml"
"$A" rdu run "$T/tilenest.yaml" --machine $TEACH -q -o "$T/tilenest" > /dev/null 2>&1
check "O tiled 2x: inner runs 4 x 5 iterations of 50 cycles, 1,000 busy as untiled" \
    "[ '$(stat rdu.stage.I.inner.iterations "$T/tilenest/stats.txt" 2>/dev/null)' = 20 ] &&
     [ '$(stat rdu.stage.I.inner.busy "$T/tilenest/stats.txt" 2>/dev/null)' = 1000 ]"
# the PMU total past 2^32, a trips x bytes product past 2^64: no longer wrap to a fit
{ printf 'graph:\n  tensors:\n'
  for i in 1 2 3 4; do printf '    t%s: {shape: [1099511627776], dtype: fp32}\n' $i; done
  printf '  nodes:\n'
  for i in 1 2 3 4; do printf '    p%s: {op: fixed, cycles: 10, out: t%s}\n' $i $i; done
  printf '    c1: {op: fixed, cycles: 10, in: [t1, t2, t3]}\n    c2: {op: fixed, cycles: 10, in: t4}\n'
  printf '  loops:\n    - {name: L, trips: 2, depth: 64, body: [p1, p2, p3, p4, c1, c2]}\n'; } > "$T/wrap.yaml"
"$A" rdu map "$T/wrap.yaml" --machine $TEACH > "$T/wrap.txt" 2>&1
check "four 2^30-PMU buffers (2^32 in all): split, too big even tiled (it summed to 0 PMUs and fit)" \
    "grep -q \"loop 'L' does not fit one kernel (6 PCUs, 1048576 PMUs needed\" $T/wrap.txt &&
     ! grep -q 'SRAM 1125899906842624' $T/wrap.txt"
{ printf 'graph:\n  tensors: {t: {shape: [2147483648], dtype: bf16}}\n  nodes:\n'
  printf '    p: {op: fixed, cycles: 1, out: t}\n    c: {op: fixed, cycles: 1, in: t}\n'
  printf '  loops:\n    - {name: I, trips: 4294967296, body: [p]}\n    - {name: O, trips: 1, body: [I, c]}\n'; } > "$T/trips.yaml"
"$A" rdu map "$T/trips.yaml" --machine $TEACH > "$T/trips.txt" 2>&1
check "2^32 trips of a 4 GiB tile: does not fit one kernel (it made a 0-byte buffer)" \
    "grep -q \"loop 'O' does not fit one kernel\" $T/trips.txt && ! grep -q 'buffer I -> c (t): 0 B' $T/trips.txt"
# long legal work is not a deadlock
printf 'graph:\n  nodes:\n    a: {op: fixed, cycles: 20000000}\n' > "$T/long.yaml"
"$A" rdu run "$T/long.yaml" --machine $TEACH -q -o "$T/long" > "$T/long.log" 2>&1; rc=$?
check "a 20 M-cycle fixed op runs (exit 3, a deadlock, before) ($rc)" \
    "[ $rc -eq 0 ] && [ '$(stat rdu.cycles "$T/long/stats.txt" 2>/dev/null)' = 20000000 ]"
"$A" rdu run $W/metapipe.yaml --machine $TEACH --set workload.launch_latency=20000000 -q \
    -o "$T/launch" > /dev/null 2>&1; rc=$?
check "a 20 M-cycle launch latency runs ($rc)" "[ $rc -eq 0 ]"
printf 'graph:\n  tensors: {x: {shape: [1073741824], dtype: fp32, tier: hbm}}\n  nodes:\n    a: {op: fixed, cycles: 1, in: x}\n' > "$T/read4g.yaml"
"$A" rdu run "$T/read4g.yaml" --machine $TEACH -q -o "$T/read4g" > /dev/null 2>&1; rc=$?
check "a 4 GiB HBM read runs ($rc)" "[ $rc -eq 0 ]"
printf 'graph:\n  nodes:\n    a: {op: fixed, cycles: 1099511627776}\n  loops:\n    - {name: I, trips: 4294967296, body: [a]}\n' > "$T/past.yaml"
"$A" rdu run "$T/past.yaml" --machine $TEACH --set sim.watchdog=0 -q -o "$T/past" > "$T/past.log" 2>&1; rc=$?
check "a run past the last tick: exit 78, said (it wrapped) ($rc)" \
    "[ $rc -eq 78 ] && grep -q 'end past the last tick' $T/past.log && [ ! -e $T/past ]"
# the prediction with back-pressure: depth 1 predicts what runs
sed 's/controller: pipe,/controller: pipe, depth: 1,/' $W/metapipe.yaml > "$T/d1.yaml"
"$A" rdu run "$T/d1.yaml" --machine $TEACH -q -o "$T/d1" > /dev/null 2>&1
check "metapipe with depth 1: 4,080 cycles, predicted exactly (2,580 before)" \
    "[ '$(stat rdu.cycles "$T/d1/stats.txt" 2>/dev/null)' = 4080 ] &&
     [ '$(stat rdu.predicted_cycles "$T/d1/stats.txt" 2>/dev/null)' = 4080 ]"
# names that would corrupt the stats are refused
printf 'graph:\n  nodes:\n    "a\\nrdu.cycles 5 #": {op: fixed, cycles: 3}\n' > "$T/name.yaml"
"$A" rdu map "$T/name.yaml" --machine $TEACH > "$T/name.log" 2>&1; rc=$?
check "a node name with a line break: exit 78 at it ($rc)" \
    "[ $rc -eq 78 ] && grep -q 'name.yaml:3:5: node .*: not a name' $T/name.log"
# the capacity message names the largest tensor over the run, trips included
{ printf 'graph:\n  tensors:\n    a: {shape: [1048576], dtype: int8, tier: hbm}\n'
  printf '    b: {shape: [2097152], dtype: int8, tier: hbm}\n  nodes:\n'
  printf '    ra: {op: fixed, cycles: 1, in: a}\n    rb: {op: fixed, cycles: 1, in: b}\n'
  printf '  loops: [{name: L, trips: 1100, body: [ra]}]\n'; } > "$T/cap.yaml"
"$A" rdu map "$T/cap.yaml" --machine $TEACH --set hbm.capacity=1GiB > "$T/cap.log" 2>&1
check "the capacity error names 'a' (1.1 GB over 1,100 trips), not 'b' (2 MB)" \
    "grep -q \"the largest: 'a'\" $T/cap.log"
# fusion up to rdu.stages, not 8
{ printf 'graph:\n  tensors:\n    x0: {shape: [1024], dtype: fp32, tier: hbm}\n'
  for i in 1 2 3 4 5 6 7 8 9 10; do printf '    x%s: {shape: [1024], dtype: fp32}\n' $i; done
  printf '  nodes:\n'
  for i in 1 2 3 4 5 6 7 8 9 10; do printf '    m%s: {op: map, in: x%s, out: x%s}\n' $i $((i - 1)) $i; done; } > "$T/fuse.yaml"
"$A" rdu map "$T/fuse.yaml" --machine $TEACH --set rdu.stages=16 > "$T/fuse.txt" 2>&1
check "ten maps fuse into one stage with rdu.stages 16" "grep -q 'm1+m2+m3+m4+m5+m6+m7+m8+m9+m10 ' $T/fuse.txt"
# a graph path YAML would read otherwise; --help on a full disk
cp $W/metapipe.yaml "$T/[a] #x.yaml"
"$A" rdu map "$T/[a] #x.yaml" --machine $TEACH > "$T/path.txt" 2>&1; rc=$?
check "a graph named '[a] #x.yaml' is read as that file ($rc)" "[ $rc -eq 0 ] && grep -q 'predicted II 150' $T/path.txt"
"$A" rdu --help > /dev/full 2>/dev/null; r1=$?
"$A" rdu run --help > /dev/full 2>/dev/null; r2=$?
check "rdu --help and rdu run --help on a full disk: 74 ($r1, $r2)" "[ $r1 -eq 74 ] && [ $r2 -eq 74 ]"
"$A" rdu map $W/mlp.yaml --machine $TEACH --set system.cols=2000 > "$T/cols.log" 2>&1
check "a --set system.cols too large: the message names that --set" \
    "grep -q '^archsim rdu map: --set system.cols=2000: system.rows x system.cols' $T/cols.log"
"$A" gpu plan --help > /dev/null 2>&1; rc=$?
check "gpu plan --help: exit 0 ($rc)" "[ $rc -eq 0 ]"

echo "rdu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
