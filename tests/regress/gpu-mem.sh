#!/bin/sh
# regress/gpu-mem.sh BUILD: the GPU's memory side (issue 20; docs/gpu.md, "The memory side") on
# traces written here, whose counts and cycles follow from the configuration:
#  - sectors: a miss reads only the sectors asked for (32 bytes of DRAM per sector), a later
#    miss on another sector of the line reads that one, a load of a sector the L1 holds hits
#  - an L1 hit's data is back l1_latency cycles after issue, exactly
#  - two warps loading one line at once: one L2 request (the second merges into the MSHR)
#  - a store writes through to the L2, which allocates its sectors without reading DRAM
#  - atomics: the ROP takes one cycle per lane, in arrival order: the second of two 32-lane
#    atomics to one line is answered 32 cycles after the first; a reduction is not answered
#  - 32 lanes 128 bytes apart are 32 lines, one per L1 cycle: the next warp's load waits
#    (lg_throttle); with one L2 MSHR the slice's requests wait in order and all are served
#  - a streaming read kernel (tools/gpu-stream-trace.py) reaches the configured DRAM bandwidth
#    within the efficiency docs/gpu.md states (80 to 100 %)
#  - the public traces on every config of their generation land within the roofline: DRAM
#    bytes per second at most the configured bandwidth, warp instructions per cycle at most
#    the issue slots; runs are deterministic
# Prints "gpu-mem: N passed, N failed".
set -u
B=${1:-build}
. tests/regress/lib/gpu.sh
mk() { d=$T/$1; mkdir -p "$d"; echo kernel-1.traceg > "$d/kernelslist.g"; echo "$d/kernel-1.traceg"; }
# one SM with the small memory side of teach.yaml (2 slices, one channel), loads through it
run() {  # name trace extra...
    n=$1; t=$2; shift 2
    "$A" run configs/gpu/teach.yaml -q --force -o "$T/r-$n" --set "workload.trace=$T/$t" \
        --set sm.memory=hierarchy "$@" > "$T/$n.log" 2>&1 || { echo "run $n failed:"; cat "$T/$n.log"; }
}
issue_at() { grep " issue pc=0x$1 " "$T/r-$2/dump.txt" | head -1 | cut -d: -f1 | tr -d ' '; }
L=0x7f4000000000

# sectors: lane 0 reads 4 B of sector 0, then 4 B of sector 1, then sector 0 again
f=$(mk sect)
{ hdr 32; printf '#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 7\n'
  printf '0000 00000001 1 R2 LDG.E 1 R200 4 1 %s 4 \n0010 00000001 1 R3 FFMA 2 R2 R201 0 \n' $L
  printf '0020 00000001 1 R4 LDG.E 1 R200 4 1 0x7f4000000020 4 \n0030 00000001 1 R5 FFMA 2 R4 R201 0 \n'
  printf '0040 00000001 1 R6 LDG.E 1 R200 4 1 %s 4 \n0050 00000001 1 R7 FFMA 2 R6 R201 0 \n' $L
  printf '0060 ffffffff 0 EXIT 0 0 \n#END_TB\n'; } > "$f"
run sect sect --trace dump.txt
r=$(stat dram.bytes_read "$T/r-sect/stats.txt"); s=$(stat l2.load_sectors "$T/r-sect/stats.txt")
check "sectors: two sector misses read 2 x 32 B of DRAM ($r), the L2 saw 2 sectors ($s)" "[ '$r' = 64 ] && [ '$s' = 2 ]"
h=$(stat sm0.l1_sector_hits "$T/r-sect/stats.txt"); a=$(stat sm0.l1_sectors "$T/r-sect/stats.txt")
check "sectors: the third load hits in the L1 ($h of $a)" "[ '$h' = 1 ] && [ '$a' = 3 ]"
c1=$(issue_at 40 sect); c2=$(issue_at 50 sect)
check "an L1 hit's data is back l1_latency (20) cycles after issue ($c1 -> $c2)" "[ $((c2 - c1)) -eq 20 ]"
run sect34 sect --trace dump.txt --set sm.l1_latency=34
c1=$(issue_at 40 sect34); c2=$(issue_at 50 sect34)
check "... and 34 with l1_latency 34 ($c1 -> $c2)" "[ $((c2 - c1)) -eq 34 ]"
c0=$(issue_at 0 sect); c1=$(issue_at 10 sect)
check "a miss takes longer than L1 + L2 hit latencies ($c0 -> $c1)" "[ $((c1 - c0)) -gt 70 ]"

# merge: two warps load the same line in the same cycles
f=$(mk merge)
{ hdr 64; printf '#BEGIN_TB\nthread block = 0,0,0\n'
  for w in 0 1; do printf 'warp = %s\ninsts = 2\n0000 ffffffff 1 R2 LDG.E 1 R200 4 1 %s 4 \n0010 ffffffff 0 EXIT 0 0 \n' $w $L; done
  printf '#END_TB\n'; } > "$f"
run merge merge
q=$(stat sm0.l2_requests "$T/r-merge/stats.txt"); q2=$(stat l2.load_requests "$T/r-merge/stats.txt")
check "two warps, one line: one request to the L2 ($q, $q2)" "[ '$q' = 1 ] && [ '$q2' = 1 ]"

# store: 32 lanes x 4 B, one full line, write-through; no DRAM read (allocate without fetch)
f=$(mk store)
{ hdr 32; printf '#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n'
  printf '0000 ffffffff 0 STG.E 2 R200 R2 4 1 %s 4 \n0010 ffffffff 0 EXIT 0 0 \n#END_TB\n' $L; } > "$f"
run store store
s=$(stat l2.store_sectors "$T/r-store/stats.txt"); r=$(stat gpu.dram_read_bytes "$T/r-store/stats.txt")
check "store: 4 sectors written through to the L2 ($s), no DRAM read ($r)" "[ '$s' = 4 ] && [ '$r' = 0 ]"

# atomics: two warps, each 32 lanes adding to one word; then a reduction
f=$(mk atom)
{ hdr 64; printf '#BEGIN_TB\nthread block = 0,0,0\n'
  for w in 0 1; do printf 'warp = %s\ninsts = 3\n0000 ffffffff 1 R2 ATOMG.E.ADD.STRONG.GPU 2 R200 R3 4 1 %s 0 \n0010 ffffffff 1 R4 IADD3 2 R2 R201 0 \n0020 ffffffff 0 EXIT 0 0 \n' $w $L; done
  printf '#END_TB\n'; } > "$f"
run atom atom --trace dump.txt
rc=$(stat l2.rop_cycles "$T/r-atom/stats.txt"); ar=$(stat l2.atomic_requests "$T/r-atom/stats.txt")
check "atomics: 2 requests of 32 lanes, 64 ROP cycles ($ar, $rc)" "[ '$ar' = 2 ] && [ '$rc' = 64 ]"
d0=$(grep ' issue pc=0x10 ' "$T/r-atom/dump.txt" | sed -n 1p | cut -d: -f1 | tr -d ' ')
d1=$(grep ' issue pc=0x10 ' "$T/r-atom/dump.txt" | sed -n 2p | cut -d: -f1 | tr -d ' ')
check "atomics in order: the second answer 32 cycles after the first ($d0 -> $d1)" "[ -n '$d0' ] && [ \$(( $d1 - $d0 )) -ge 32 ]"
f=$(mk red)
{ hdr 32; printf '#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n'
  printf '0000 ffffffff 0 RED.E.ADD.STRONG.GPU 2 R200 R3 4 1 %s 0 \n0010 ffffffff 0 EXIT 0 0 \n#END_TB\n' $L; } > "$f"
run red red
rr=$(stat l2.reduction_requests "$T/r-red/stats.txt"); rc=$(stat l2.rop_cycles "$T/r-red/stats.txt")
check "a reduction goes to the ROP, 32 lanes ($rr, $rc)" "[ '$rr' = 1 ] && [ '$rc' = 32 ]"

# uncoalesced: 32 lanes 128 B apart are 32 lines; the other warp's load waits for the L1
f=$(mk scatter)
{ hdr 64; printf '#BEGIN_TB\nthread block = 0,0,0\n'
  for w in 0 1; do printf 'warp = %s\ninsts = 2\n0000 ffffffff 1 R2 LDG.E 1 R200 4 1 0x%x 128 \n0010 ffffffff 0 EXIT 0 0 \n' $w $((0x7f4000000000 + w * 0x10000)); done
  printf '#END_TB\n'; } > "$f"
run scatter scatter
ll=$(stat sm0.l1_lines "$T/r-scatter/stats.txt"); lg=$(stat sm0.stall_lg_throttle "$T/r-scatter/stats.txt")
check "uncoalesced: 2 x 32 lines through the L1 ($ll), the second warp waits (lg_throttle $lg)" "[ '$ll' = 64 ] && [ '${lg:-0}' -ge 31 ]"

# one L2 MSHR with one target: requests wait in order and every one is served
run scat1 scatter --set l2.mshrs=1 --set l2.targets=1
bl=$(stat l2.blocked "$T/r-scat1/stats.txt"); rb=$(stat gpu.dram_read_bytes "$T/r-scat1/stats.txt")
wi=$(stat gpu.warp_insts "$T/r-scat1/stats.txt")
check "one L2 MSHR: requests wait ($bl), all 64 lines read once ($rb B), both warps done ($wi)" "[ '${bl:-0}' -gt 0 ] && [ '$rb' = 2048 ] && [ '$wi' = 4 ]"

# streaming: the configured DRAM bandwidth within 80-100 % (A100: 40 channels x 16 B x 2.43 GT/s)
python3 tools/gpu-stream-trace.py "$T/stream" 432 16
"$A" run configs/gpu/a100.yaml -q --force -o "$T/st" --set "workload.trace=$T/stream" > /dev/null 2>&1
eff=$(python3 - "$T/st/stats.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
peak = 40 * 16 * 2.43e9
t = d["gpu.gpu_sim_cycle"] / 1.41e9
print(f'{d["gpu.dram_read_bytes"] / t / peak:.3f}')
PY
)
check "streaming read: $eff of the configured 1,555 GB/s" "python3 -c 'import sys; sys.exit(not 0.80 <= $eff <= 1.0)'"
hr=$(stat gpu.l2_hit_rate "$T/st/stats.txt")
check "streaming read: nothing is read twice (L2 hit rate $hr)" "[ '$hr' = 0.000000 ]"

# the roofline of every config, for the public traces of its generation
roof() {  # cfg trace
    "$A" run "configs/gpu/$1.yaml" -q --force -o "$T/rf-$1" --set "workload.trace=tests/gpu/traces/$2" > /dev/null 2>&1
    python3 - "configs/gpu/$1.yaml" "$T/rf-$1/stats.json" "$T/rf-$1/config.resolved.yaml" <<'PY'
import json, re, sys
def size(v):
    m = re.match(r"([0-9.]+)\s*([KMG]?)(i?)([BHz]*)", str(v))
    n = float(m.group(1)); mult = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]
    if m.group(3) == "i": mult = {"K": 1024, "M": 1 << 20, "G": 1 << 30}[m.group(2)]
    return n * mult
cfg = open(sys.argv[1]).read()
sec = lambda name: re.search(r"^" + name + r":\n((?:  .*\n)*)", cfg, re.M).group(1)
val = lambda s, k: re.search(r"^  " + k + r":\s*(\S+)", s, re.M).group(1)
clock = size(val(sec("sim"), "clock")); ch = int(val(sec("system"), "channels"))
sms = int(val(sec("system"), "sms")); sc = int(val(sec("sm"), "subcores"))
peak = ch * size(val(sec("dram"), "bus_width")) * size(val(sec("dram"), "data_rate"))
d = json.load(open(sys.argv[2]))
t = d["gpu.gpu_sim_cycle"] / clock
bw = (d["gpu.dram_read_bytes"] + d["gpu.dram_write_bytes"]) / t
ipc = d["gpu.warp_insts"] / d["gpu.gpu_sim_cycle"]
ok = bw <= peak and ipc <= sms * sc
print(f"{'yes' if ok else 'no'} {bw / peak:.3f} {ipc / (sms * sc):.4f}")
PY
}
for c in v100 a100 rtx3070; do
    set -- $(roof $c bfs-rodinia2-sm80-tracer-v3-k5-16)
    check "roofline, bfs on $c: DRAM at $2 of peak, issue at $3 of peak" "[ '$1' = yes ]"
done
for c in h100-sxm h100-pcie h200; do
    set -- $(roof $c ffma-h100-sm90-tracer-v5-4096x16)
    check "roofline, ffma on $c: DRAM at $2 of peak, issue at $3 of peak" "[ '$1' = yes ]"
done
"$A" run configs/gpu/a100.yaml -q --force -o "$T/det" --set "workload.trace=tests/gpu/traces/bfs-rodinia2-sm80-tracer-v3-k5-16" > /dev/null 2>&1
check "same config, same stats with the memory side" "diff -q '$T/det/stats.json' '$T/rf-a100/stats.json' > /dev/null"
echo "gpu-mem: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
