#!/bin/sh
# regress/tpu-port.sh BUILD: the TPU's memory port (issue 17 item 5; docs/tpu.md, "The memory
# port"):
#  - configs/tpu/dram.yaml (the array's mem port linked to the dram class) has the committed
#    stats (tests/regress/golden/tpu-dram.stats.txt; sim.events and host time aside)
#  - the bytes the DRAM moves are the layers' DRAM traffic of SCALE-Sim's reports: bytes_read is
#    the sum of DETAILED_ACCESS_REPORT.csv's DRAM IFMAP and Filter Reads, bytes_written its DRAM
#    OFMAP Writes, equal to tpu.dram_reads / tpu.dram_writes and to tpu.mem.bytes_*; that report
#    is scale.yaml's (the same array on the same layers through tpu-memory)
#  - the DRAM's time shows up as stalls: tpu.cycles = scale.yaml's tpu.cycles +
#    tpu.mem.stall_cycles, sim.cycles = tpu.cycles + layers + 1 (one cycle before each layer's
#    compute, and the last edge), the COMPUTE_REPORT's cycles sum to tpu.cycles
#  - through tpu-memory no stat names the port (scale.yaml's stats have no tpu.mem.*)
#  - `archsim tpu --scalesim-compat`, which runs its layers on a tpu-array linked to a tpu-memory,
#    writes SCALE-Sim's own three reports byte for byte on every recorded run
#    (tests/tpu/scalesim/ref, CALC and USER)
# Prints "tpu-port: N passed, N failed".
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
# column sums of a SCALE-Sim report by header name
col() { awk -F', *' -v h="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == h) c = i; next }
                               { s += $c } END { printf "%d\n", s }' "$2"; }

$A run configs/tpu/dram.yaml -q -o "$T/d" > "$T/d.out" 2>&1 || cat "$T/d.out"
$A run configs/tpu/scale.yaml -q -o "$T/s" > "$T/s.out" 2>&1 || cat "$T/s.out"
grep -v -e '^sim\.events' -e host "$T/d/stats.txt" > "$T/d.stats"
check "dram.yaml: stats equal tests/regress/golden/tpu-dram.stats.txt" \
    "diff -u tests/regress/golden/tpu-dram.stats.txt '$T/d.stats' | head -20; cmp -s tests/regress/golden/tpu-dram.stats.txt '$T/d.stats'"
D=$T/d/DETAILED_ACCESS_REPORT.csv
reads=$(( $(col 'DRAM IFMAP Reads' "$D") + $(col 'DRAM Filter Reads' "$D") ))
writes=$(col 'DRAM OFMAP Writes' "$D")
S=$T/d/stats.txt
check "bytes read = the report's IFMAP + filter DRAM reads ($reads) = tpu.dram_reads = tpu.mem.bytes_read" \
    "[ '$(stat memory.bytes_read "$S")' = $reads ] && [ '$(stat tpu.dram_reads "$S")' = $reads ] &&
     [ '$(stat tpu.mem.bytes_read "$S")' = $reads ] && [ $reads -gt 0 ]"
check "bytes written = the report's OFMAP DRAM writes ($writes) = tpu.dram_writes = tpu.mem.bytes_written" \
    "[ '$(stat memory.bytes_written "$S")' = $writes ] && [ '$(stat tpu.dram_writes "$S")' = $writes ] &&
     [ '$(stat tpu.mem.bytes_written "$S")' = $writes ] && [ $writes -gt 0 ]"
check "the DRAM traffic is scale.yaml's (same DETAILED_ACCESS_REPORT.csv)" \
    "cmp -s '$D' '$T/s/DETAILED_ACCESS_REPORT.csv'"
check "64-byte messages: at least bytes / 64 reads; the DRAM answered every message of the port" \
    "[ \$(( $(stat memory.reads "$S") + $(stat memory.writes "$S") )) = '$(stat tpu.mem.requests "$S")' ] &&
     [ $(stat memory.reads "$S") -ge \$(( $reads / 64 )) ]"
stalls=$(stat tpu.mem.stall_cycles "$S")
check "tpu.cycles = scale.yaml's + tpu.mem.stall_cycles ($stalls > 0)" \
    "[ $stalls -gt 0 ] && [ \$(( $(stat tpu.cycles "$T/s/stats.txt") + $stalls )) = '$(stat tpu.cycles "$S")' ] &&
     [ \$(( $(stat tpu.stall_cycles "$T/s/stats.txt") + $stalls )) = '$(stat tpu.stall_cycles "$S")' ]"
check "sim.cycles = tpu.cycles + layers + 1; the COMPUTE_REPORT's cycles sum to tpu.cycles" \
    "[ \$(( $(stat tpu.cycles "$S") + $(stat tpu.layers "$S") + 1 )) = '$(stat sim.cycles "$S")' ] &&
     [ $(col 'Total Cycles' "$T/d/COMPUTE_REPORT.csv") = '$(stat tpu.cycles "$S")' ]"
check "through tpu-memory the stats name no port (no tpu.mem.*, no memory.*)" \
    "! grep -q -e '^tpu\.mem\.' -e '^memory\.' '$T/s/stats.txt'"
runs=0; bad=""
for d in tests/tpu/scalesim/ref/*/*/; do
    topo=$(basename "$d"); run=$(basename "$(dirname "$d")")
    cfg=tests/tpu/scalesim/configs/$run.cfg
    [ "$topo" = trace_head ] || [ ! -f "$cfg" ] && continue
    i=conv; [ "$topo" = gemm ] && i=gemm
    rm -rf "$T/cli"
    $A tpu -c "$cfg" -t "tests/tpu/scalesim/topologies/$topo.csv" -i $i --scalesim-compat -q \
        -o "$T/cli" > /dev/null 2>&1
    for f in COMPUTE_REPORT.csv BANDWIDTH_REPORT.csv DETAILED_ACCESS_REPORT.csv; do
        cmp -s "$d$f" "$T/cli/$f" || bad="$bad $run/$topo/$f"
    done
    runs=$((runs + 1))
done
check "archsim tpu --scalesim-compat through the port: $runs recorded runs equal SCALE-Sim's reports${bad:+ (differ:$bad)}" \
    "[ -z '$bad' ] && [ $runs -ge 100 ]"
# what a review found (each failed before its fix)
printf '[general]\nrun_name = t\n[architecture_presets]\nArrayHeight: 2\nArrayWidth: 2\nIfmapSramSzkB: 1\nFilterSramSzkB: 1\nOfmapSramSzkB: 1\nIfmapOffset: 0\nFilterOffset: 10000000\nOfmapOffset: 20000000\nDataflow: os\n[run_presets]\nInterfaceBandwidth: CALC\n' > "$T/a2.cfg"
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nc1, 1, 1, 1, 1, 1, 1, 18446744073709551615,\n' > "$T/stride.csv"
$A tpu -c "$T/a2.cfg" -t "$T/stride.csv" -o "$T/st" -q > /dev/null 2>&1; rc=$?
check "a stride of 2^64 - 1 on a 1x1 layer: one output pixel, no nan (it wrapped to none) ($rc)" \
    "[ $rc = 0 ] && ! grep -qi nan '$T/st/COMPUTE_REPORT.csv' && ! grep -qi nan '$T/st/BANDWIDTH_REPORT.csv'"
$A tpu -c "$T/a2.cfg" -t tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv -o "$T/tw" -q \
    --teach - --teach-window 0:0 > "$T/tw.txt" 2>/dev/null
$A tpu -c "$T/a2.cfg" -t tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv -o "$T/tw1" -q \
    --teach - --teach-window 1:1 > "$T/tw1.txt" 2>/dev/null
check "--teach-window 0:0 shows cycle 0 alone, as 1:1 shows cycle 1 (it showed the whole layer)" \
    "[ -s '$T/tw.txt' ] && [ \$(wc -l < '$T/tw.txt') -eq \$(wc -l < '$T/tw1.txt') ]"
{ printf '[general]\nrun_name = %%(k0)s\n'
  i=0; while [ $i -lt 8 ]; do printf 'k%s = ' $i; j=0; while [ $j -lt 16 ]; do printf '%%(k%s)s' $((i + 1)); j=$((j + 1)); done; printf '\n'; i=$((i + 1)); done
  printf 'k8 = x\n'; } > "$T/bomb.cfg"
timeout 20 $A tpu -c "$T/bomb.cfg" -t tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv -o "$T/bomb" > /dev/null 2> "$T/bomb.err"; rc=$?
check "a .cfg whose references expand to 16^8 copies: exit 78 at once (it grew without bound) ($rc)" \
    "[ $rc = 78 ] && grep -q 'bomb.cfg:2:[0-9]*: run_name: its %(...)s references expand to more than 1 MiB' '$T/bomb.err'"
sed 's/^Dataflow: os/Dataflow: os\nBandwidth: 10/; s/^InterfaceBandwidth: CALC/InterfaceBandwidth: USER/' "$T/a2.cfg" > "$T/user.cfg"
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nc0, 3, 3, 1, 1, 1, 1, 1,\nc1, 16385, 16384, 1, 1, 1, 1, 16,\n' > "$T/ubig.csv"
$A tpu -c "$T/user.cfg" -t "$T/ubig.csv" --sram-traces -o "$T/ub" > /dev/null 2> "$T/ub.err"; rc=$?
check "USER's operand limit before DIR is made: 65 at the layer, no DIR (layer 0's traces were left) ($rc)" \
    "[ $rc = 65 ] && [ ! -e '$T/ub' ] && grep -q 'ubig.csv:3:1: layer c1: InterfaceBandwidth USER' '$T/ub.err'"
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nc1, 4294967298, 1, 3, 1, 1, 1, 4096,\n' > "$T/tall.csv"
$A tpu -c "$T/a2.cfg" -t "$T/tall.csv" -o "$T/tall" > /dev/null 2> "$T/tall.err"; rc=$?
check "an ifmap 2^32 + 2 rows high: refused at its row (windows off its edge read past its end) ($rc)" \
    "[ $rc = 65 ] && grep -q 'tall.csv:2:1: layer c1 is too large' '$T/tall.err'"
echo "tpu-port: $pass passed, $fail failed"
[ $fail -eq 0 ]
