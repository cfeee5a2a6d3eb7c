# tests/regress/lib/gpu.sh: what the GPU regression scripts (gpu-sm.sh, gpu-mem.sh) share, sourced
# from the repository root after B is set: the binary A, a scratch folder T removed on exit, the
# pass/fail counters with check, stat (a value of stats.txt) and hdr (the header of a one-block
# sm_80 trace of N threads, tracer version 3).
A=./archsim
[ -x "$A" ] || A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() {  # name cond
    if sh -c "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
stat() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
hdr() {  # threads
    printf -- '-kernel name = _Z4testv\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (%s,1,1)\n' "$1"
    printf -- '-shmem = 0\n-nregs = 32\n-binary version = 80\n-accelsim tracer version = 3\n\n#traces format = x\n\n'
}
