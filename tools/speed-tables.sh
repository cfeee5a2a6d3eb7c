#!/bin/sh
# speed-tables.sh [OPS] [--part scaling|programs]: the two speed tables of docs/testing.md
# ("Cost per reference from 2 to 64 cores", "From a program to cachegrind's counters"), as
# Markdown on stdout. Run from the clone after `make`. CPU time (user + sys, the program's own
# included) of whole runs, median of 3.
#
#  1. Weak scaling: every core makes OPS references (default 100000) of pattern-core, on the
#     snooping bus (configs/bench/smp8-mesi.yaml) and on the directory over a mesh
#     (configs/bench/dir64-mesh.yaml), with private data and with false sharing (one word per
#     core, eight cores to a line); ns per reference and M refs/s for 2 to 64 cores, and the
#     64-core / 2-core ratio of ns per reference.
#  2. Program to counters: each program is built twice, with gcc -O2 -g for valgrind's
#     cachegrind and with tools/archsim-cc -O2 -g for `archsim cachegrind -- PROGRAM`; both run
#     with the same cache geometry and their times and data-side counters are compared
#     (cachegrind's include libc and the loader, and it also simulates instruction fetches).
#     Needs gcc and valgrind (Debian: valgrind); a part that cannot run says why.
set -eu
OPS=100000
PART=all
while [ $# -gt 0 ]; do
    case $1 in
        --part) PART=$2; shift 2 ;;
        *) OPS=$1; shift ;;
    esac
done
[ -x ./archsim ] || { echo "speed-tables.sh: build first (make)" >&2; exit 1; }
python3 - "$OPS" "$PART" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, tempfile
ops, part = int(sys.argv[1]), sys.argv[2]
tmp = tempfile.mkdtemp(prefix="archsim-speed.")

def cpu(cmd, out=subprocess.DEVNULL, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"speed-tables.sh: {' '.join(cmd)} failed ({p.returncode}): "
                         f"{p.stderr.decode(errors='replace').strip()[-400:]}")
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def median3(cmd, **kw):
    return statistics.median(cpu(cmd, **kw) for _ in range(3))

if part in ("all", "scaling"):
    cores = [2, 4, 8, 16, 32, 64]
    cfg = {"snooping": "configs/bench/smp8-mesi.yaml", "directory": "configs/bench/dir64-mesh.yaml"}
    print(f"Weak scaling, {ops:,} references per core, median CPU time of 3 runs.\n")
    print("| machine | data | " + " | ".join(f"{n} cores" for n in cores) + " | 64 / 2 |")
    print("|---|---|" + "---|" * (len(cores) + 1))
    for m, c in cfg.items():
        for pat in ["private", "false_sharing"]:
            cells, ns = [], []
            for n in cores:
                cmd = ["./archsim", "run", c, "-q", "--force", "-o", f"{tmp}/r",
                       "--set", f"system.cores={n}", "--set", f"core.ops={ops}",
                       "--set", f"core.pattern={pat}"]
                if m == "snooping":
                    cmd += ["--set", f"system.llc_banks={min(n, 4)}"]
                if pat == "false_sharing":
                    cmd += ["--set", "core.words=1"]
                t = median3(cmd)
                refs = ops * n
                ns.append(t / refs * 1e9)
                cells.append(f"{ns[-1]:.0f} ns ({refs / t / 1e6:.1f} M/s)")
            print(f"| {m} | {pat.replace('_', ' ')} | " + " | ".join(cells) +
                  f" | {ns[-1] / ns[0]:.2f}x |")
    sys.stdout.flush()

if part in ("all", "programs"):
    if part == "all":
        print()
    missing = [t for t in ("gcc", "valgrind") if shutil.which(t) is None]
    if missing:
        print(f"Program to counters: skipped, {' and '.join(missing)} not installed.")
        raise SystemExit(0)
    geom = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64"]
    progs = [  # name, sources, extra flags, arguments
        ("matmul 64 (mm.c)", ["workloads/matmul/mm.c"], [], []),
        ("matmul 256 (mmn.c)", ["workloads/matmul/mmn.c"], [], ["256"]),
        ("matmul 384 (mmn.c)", ["workloads/matmul/mmn.c"], [], ["384"]),
        ("saxpy, 1 worker", ["workloads/saxpy/saxpy.c"], ["-pthread", "-Iworkloads/common", "-Itools/tracer"], ["1", "262144", "8"]),
        ("spmv, 1 worker", ["workloads/spmv/spmv.c"], ["-pthread", "-Iworkloads/common", "-Itools/tracer"], ["1", "65536", "16", "4"]),
    ]
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    rows, counts = [], []
    for name, srcs, flags, args in progs:
        nat, ins = f"{tmp}/native", f"{tmp}/instr"
        subprocess.run(["gcc", "-O2", "-g", *flags, *srcs, "-o", nat, "-lm"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["tools/archsim-cc", "-O2", "-g", *flags, *srcs, "-o", ins, "-lm"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cgout = f"{tmp}/cg.out"
        with open(f"{tmp}/stdout.txt", "w") as out:
            tn = median3([nat, *args], out=out, env=env)
            tc = median3(["valgrind", "--tool=cachegrind", "--cache-sim=yes", *geom,
                          f"--cachegrind-out-file={cgout}", nat, *args], out=out, env=env)
            ta = median3(["./archsim", "cachegrind", "-q", *geom, "--", ins, *args], out=out,
                          env=env)
        summary = [l for l in open(cgout) if l.startswith("summary:")][-1].split()[1:]
        p = subprocess.run(["./archsim", "cachegrind", "-q", *geom, "--", ins, *args],
                           capture_output=True, text=True, env=env)
        mine = p.stdout.strip().splitlines()[-1].split()
        rows.append((name, tn, tc, ta))
        counts.append((name, [int(x) for x in summary], [None, None, None] + [int(x) for x in mine[3:]]))
    print("From a program to cachegrind's counters: CPU time of the whole run (the program's own "
          "included), median of 3; I1/D1 32 KiB 8-way, LL 1 MiB 16-way, 64-byte lines.\n")
    print("| program | native | valgrind cachegrind | archsim cachegrind -- PROGRAM | archsim / cachegrind |")
    print("|---|---|---|---|---|")
    for name, tn, tc, ta in rows:
        print(f"| {name} | {tn:.2f} s | {tc:.2f} s | {ta:.2f} s | {ta / tc:.2f}x |")
    print("\nWhat each sees (data side; cachegrind also counts Ir, I1mr, ILmr; archsim's difference "
          "in parentheses):\n")
    print("| program | tool | Dr | D1mr | DLmr | Dw | D1mw | DLmw |")
    print("|---|---|---|---|---|---|---|---|")
    def pct(a, b):
        return "0%" if a == b else f"{(a - b) / b * 100:+.1f}%" if b else "n/a"
    for name, cg, ar in counts:
        print(f"| {name} | cachegrind | " + " | ".join(f"{v:,}" for v in cg[3:]) + " |")
        print(f"| | archsim -- PROGRAM | " + " | ".join(f"{a:,} ({pct(a, b)})" for a, b in zip(ar[3:], cg[3:])) + " |")
shutil.rmtree(tmp, ignore_errors=True)
PY
