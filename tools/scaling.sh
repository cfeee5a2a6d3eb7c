#!/bin/sh
# scaling.sh [OPS]: how archsim's cost per reference grows with the simulated core count (issue
# 18's table, docs/testing.md "Cost per reference from 2 to 64 cores"). Weak scaling: every core
# makes OPS references (default 20000) of pattern-core, on the snooping bus (configs/bench/
# smp8-mesi.yaml) and on the directory over a mesh (configs/bench/dir64-mesh.yaml), with private
# data and with false sharing (one word per core, all in one line). Each point is the median CPU
# time of 3 whole runs of ./archsim; it prints a Markdown table: ns per reference and M refs/s,
# and the 64-core / 2-core ratio of ns per reference.
set -eu
OPS=${1:-20000}
[ -x ./archsim ] || { echo "scaling.sh: build first (make)" >&2; exit 1; }
python3 - "$OPS" <<'PY'
import resource, statistics, subprocess, sys, tempfile
ops = int(sys.argv[1])
cores = [2, 4, 8, 16, 32, 64]
cfg = {"snooping": "configs/bench/smp8-mesi.yaml", "directory": "configs/bench/dir64-mesh.yaml"}
tmp = tempfile.mkdtemp()
def cpu(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
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
            t = statistics.median(cpu(cmd) for _ in range(3))
            refs = ops * n
            ns.append(t / refs * 1e9)
            cells.append(f"{ns[-1]:.0f} ns ({refs / t / 1e6:.1f} M/s)")
        print(f"| {m} | {pat.replace('_', ' ')} | " + " | ".join(cells) + f" | {ns[-1] / ns[0]:.2f}x |")
PY
