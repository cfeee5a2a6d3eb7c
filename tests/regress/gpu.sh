#!/bin/sh
# regress/gpu.sh BUILD: the GPU trace front end and occupancy (issue 19 items 1-2; docs/gpu.md):
#  - archsim gpu info on the real traces of tests/gpu/traces (xz and gzip) gives, per kernel, the
#    blocks, warps, warp and thread instructions, memory and mask-0 lines that a reader written
#    independently of archsim's counted (tests/regress/golden/gpu-info.csv)
#  - the same with one trace file named, and twice in a row byte for byte
#  - archsim gpu occupancy --format csv prints exactly the issue's header and a row
# Prints "gpu: N passed, N failed".
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
G=tests/gpu/traces
for d in bfs-rodinia2-sm80-tracer-v3-k5-16 ffma-h100-sm90-tracer-v5-4096x16; do
    "$A" gpu info "$G/$d" --format csv > "$T/$d.csv" 2> "$T/err" || echo "gpu info $d failed: $(cat "$T/err")"
done
# kernel_id,file (without .xz/.gz),ctas,warps,warp_insts,thread_insts,mem_insts,mask0_insts
cat "$T"/bfs*.csv "$T"/ffma*.csv | awk -F, 'NR > 1 && $1 != "kernel_id" {
    f = $3; sub(/\.(xz|gz)$/, "", f); print $1 "," f "," $14 "," $15 "," $16 "," $17 "," $18 "," $19 }' > "$T/got"
grep -v '^#' tests/regress/golden/gpu-info.csv | tail -n +2 > "$T/want"
check "gpu info: every kernel's counts equal the independent count" "cmp -s '$T/got' '$T/want' || diff '$T/want' '$T/got'"
check "gpu info: 13 kernels" "[ \$(wc -l < '$T/got') -eq 13 ]"
"$A" gpu info "$G/bfs-rodinia2-sm80-tracer-v3-k5-16/kernel-9.traceg.xz" > "$T/k9" 2>&1
check "gpu info: one .traceg.xz named" "grep -q 'warp instructions 39422, thread instructions 245377, memory 10452, mask 0 2265' '$T/k9'"
"$A" gpu info "$G/ffma-h100-sm90-tracer-v5-4096x16" > "$T/f1" 2>&1
"$A" gpu info "$G/ffma-h100-sm90-tracer-v5-4096x16" > "$T/f2" 2>&1
check "gpu info: deterministic" "cmp -s '$T/f1' '$T/f2'"
check "gpu info: ffma mix (84% fp32: 21 of 25 per warp)" "grep -q 'fp32 86016 (84.0%)' '$T/f1'"
"$A" gpu occupancy --cc 8.0 --threads 256 --regs 32 --smem 48KiB --format csv > "$T/occ" 2>&1
printf '%s\n%s\n' 'active_blocks_per_sm,active_warps_per_sm,max_warps_per_sm,occupancy_percent,limiter,blocks_limit_warps,blocks_limit_registers,blocks_limit_shared_memory,blocks_limit_block_slots' \
    '3,24,64,37.50,shared_memory,8,8,3,32' > "$T/occ.want"
check "gpu occupancy --format csv: the issue's columns" "cmp -s '$T/occ' '$T/occ.want'"
"$A" gpu occupancy --cc 7.0 --threads 1024 --format csv | tail -1 > "$T/occ2"
check "gpu occupancy: unused resources are unlimited" "[ \"\$(cat '$T/occ2')\" = '2,64,64,100.00,warps,2,unlimited,unlimited,32' ]"
"$A" gpu occupancy --cc 8.0 --threads 256 --regs 32 --format csv | tail -1 > "$T/occ3"
check "gpu occupancy: limits that bind equally are joined with +" "[ \"\$(cat '$T/occ3')\" = '8,64,64,100.00,warps+registers,8,8,164,32' ]"
echo "gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]
