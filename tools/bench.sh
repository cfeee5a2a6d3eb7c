#!/bin/sh
# bench.sh BUILD: archsim's speed figures (make bench). Medians of 3 runs, CPU seconds
# (user + sys), measured side by side in one invocation:
#   1. L1+L2 trace simulation: 10 M data references (synth10M, peers-and-speed.md §6) through
#      the cachegrind-compatible D1 32K/8/64 + LL 1M/16/64 functional model; target >= 15 M refs/s
#   2. the same trace through the cycle-level timing model (core, L1D, L2, DRAM)
#   3. the bare engine on PHOLD with 256 pending events; target >= 10 M events/s
#   4. an 8-core MESI snooping machine over 10 M references (configs/bench/smp8-mesi.yaml);
#      target >= 10 M references/s (gem5's Ruby MESI: about 0.17 M instructions/s)
#   5. replay of a recorded 8-worker trace (traces/samples/fs_padded-8t, 1.6 M references) on the
#      MESI machine, decoding included, checks on; target >= 5 M references/s
#   6. a 64-core MESI-directory machine on an 8 x 8 mesh over 10 M references
#      (configs/bench/dir64-mesh.yaml); target >= 3 M references/s
#   7. litmus random mode: SB (2 threads) under TSO, 100,000 runs on the simulated MESI machine
#      (mm-core cores, checks on; machine built once, setup stores included); target >= 10,000
#      runs/s (docs/experiments/litmus.md)
#   8. HTM: the hash table of the HTM experiment (configs/htm/hash.yaml, hash-htm.k) with 16
#      workers, 320,000 transactions on the MESI bus, checks on (every commit checked
#      serializable); kernel ops per second; target >= 1 M ops/s (gem5's Ruby: about 0.17 M
#      instructions/s)
#   9. systolic array: every SCALE-Sim v2 run recorded in tests/tpu/scalesim (134 runs: 3 configs x
#      os/ws/is x CALC/USER, and the small-array DRAM-trace runs; reports byte-identical) with
#      --scalesim-compat, CPU seconds against SCALE-Sim's recorded CPU seconds for the same runs;
#      target >= 100x
#  10. ResNet-50 (54 layers) on the 256 x 256 array of google.cfg; target < 1 s
#  11. the largest shipped topology: transformer_weightgrad.csv (11 GEMMs up to 65536 x 1024 x
#      8192) on eyeriss.cfg's 12 x 14 array, is, default mode (sampled: SCALE-Sim would need
#      about 10^11 cycles, months); no target
set -eu
B=${1:-build}
mkdir -p "$B/bench"
TR="$B/bench/synth10M.lackey"
[ -s "$TR" ] || "$B/tools/gen_synth" -n 10000000 "$TR"
python3 - "$B" "$TR" <<'PY'
import os, resource, statistics, subprocess, sys
B, TR = sys.argv[1], sys.argv[2]
def cpu(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out
def median(cmd, n=3):
    runs = [cpu(cmd) for _ in range(n)]
    return statistics.median(t for t, _ in runs), runs[-1][1]
refs = 10_000_000
rows = []
t, out = median(["./archsim", "cachegrind", "--D1=32768,8,64", "--LL=1048576,16,64", TR])
fr = refs / t
rows.append(("L1+L2 trace sim (functional, cachegrind rules)", f"{fr/1e6:.1f} M refs/s", ">= 15 M refs/s", fr >= 15e6))
print(out.strip().splitlines()[-1], "(Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw)")
t2, _ = median(["./archsim", "run", "configs/bench/synth-timing.yaml", "-q", "--force",
                "-o", f"{B}/bench/run-timing", "--set", f"core.trace={os.path.abspath(TR)}"])
tr = refs / t2
rows.append(("L1+L2 trace sim (cycle-level timing model)", f"{tr/1e6:.1f} M refs/s", "(no target)", True))
t4, _ = median(["./archsim", "run", "configs/bench/smp8-mesi.yaml", "-q", "--force",
                "-o", f"{B}/bench/run-smp8"])
sr = refs / t4
rows.append(("8-core MESI snooping, 10 M references", f"{sr/1e6:.1f} M refs/s", ">= 10 M refs/s", sr >= 10e6))
t5, _ = median(["./archsim", "run", "configs/false_sharing/replay.yaml", "-q", "--force",
                "-o", f"{B}/bench/run-replay", "--set", "workload.trace=traces/samples/fs_padded-8t",
                "--set", "system.cores=9"])
rrefs = 1600046
rr = rrefs / t5
rows.append(("replay, 8 worker threads, MESI (decode + simulate)", f"{rr/1e6:.1f} M refs/s", ">= 5 M refs/s", rr >= 5e6))
t6, _ = median(["./archsim", "run", "configs/bench/dir64-mesh.yaml", "-q", "--force",
                "-o", f"{B}/bench/run-dir64"])
dr = refs / t6
rows.append(("64-core MESI directory, 8x8 mesh, 10 M references", f"{dr/1e6:.1f} M refs/s", ">= 3 M refs/s", dr >= 3e6))
lit = "tests/litmus/herd/SB.litmus"
lruns = 100_000
t7, _ = median(["./archsim", "litmus", "--model", "tso", "--runs", str(lruns), lit])
lr = lruns / t7
rows.append(("litmus random mode, SB, runs/s", f"{lr/1e3:.0f} k runs/s", ">= 10 k runs/s", lr >= 10e3))
t8, _ = median(["./archsim", "run", "configs/htm/hash.yaml", "-q", "--force",
                "-o", f"{B}/bench/run-htm", "--set", "core.kernel_file=configs/htm/hash-htm.k",
                "--set", "system.cores=18", "--set", "core.iterations=20000"])
with open(f"{B}/bench/run-htm/stats.txt") as f:
    kops = sum(int(l.split()[1]) for l in f if l.startswith("core") and l.split()[0].endswith(".ops"))
kr = kops / t8
rows.append(("HTM hash table, 16 workers, kernel ops/s", f"{kr/1e6:.1f} M ops/s", ">= 1 M ops/s", kr >= 1e6))
import glob
ss_cpu, tpu_runs = 0.0, []
for d in sorted(glob.glob("tests/tpu/scalesim/ref/*/*/cpu_time.txt")):
    run, topo = d.split("/")[-3], d.split("/")[-2]
    cfg = f"tests/tpu/scalesim/configs/{run}.cfg"
    if topo == "trace_head" or not os.path.exists(cfg):
        continue
    with open(d) as f:
        kv = dict(l.split() for l in f if l.strip())
    ss_cpu += float(kv["user_s"]) + float(kv["sys_s"])
    tpu_runs.append(["./archsim", "tpu", "-c", cfg, "-t", f"tests/tpu/scalesim/topologies/{topo}.csv",
                     "-i", "gemm" if topo == "gemm" else "conv", "--scalesim-compat", "-q",
                     "--force", "-o", f"{B}/bench/tpu-ref"])
def all_tpu():
    t = 0.0
    for cmd in tpu_runs:
        t += cpu(cmd)[0]
    return t
tt = statistics.median(all_tpu() for _ in range(3))
rows.append((f"SCALE-Sim's {len(tpu_runs)} recorded runs: speed-up", f"{ss_cpu / tt:.0f}x ({tt:.2f} s)",
             ">= 100x", ss_cpu / tt >= 100))
sh = "tests/tpu/shipped/v2"
t10, _ = median(["./archsim", "tpu", "-c", f"{sh}/configs/google.cfg", "-t",
                 f"{sh}/topologies/conv_nets/Resnet50.csv", "-q", "--force", "-o", f"{B}/bench/tpu-r50"])
rows.append(("ResNet-50 on a 256x256 array (google.cfg)", f"{t10:.2f} s", "< 1 s", t10 < 1.0))
with open(f"{sh}/configs/eyeriss.cfg") as f:
    ecfg = "".join("Dataflow : is\n" if l.startswith("Dataflow") else l for l in f)
with open(f"{B}/bench/eyeriss-is.cfg", "w") as f:
    f.write(ecfg)
t11, _ = median(["./archsim", "tpu", "-c", f"{B}/bench/eyeriss-is.cfg", "-t",
                 f"{sh}/topologies/transformer/transformer_weightgrad.csv", "-q", "--force", "-o",
                 f"{B}/bench/tpu-tw"])
rows.append(("transformer_weightgrad, 12x14 (eyeriss, is), sampled", f"{t11:.1f} s", "", None))
best = []
for _ in range(3):
    o = subprocess.run([f"{B}/tools/bench_engine", "20000000", "256"], check=True, capture_output=True, text=True).stdout
    best.append(float(o.split(",")[-1].split()[0]))
ev = statistics.median(best) * 1e6
rows.append(("engine, PHOLD, 256 pending", f"{ev/1e6:.1f} M events/s", ">= 10 M events/s", ev >= 10e6))
print(f"{'benchmark':50} {'median':>18} {'target':>18}")
for name, val, target, ok in rows:
    print(f"{name:50} {val:>18} {target:>18}  {'' if ok is None else 'ok' if ok else 'BELOW TARGET'}")
print(f"functional / timing speed ratio: {fr/tr:.1f}x; Dinero IV L1+L2 on this machine class: 3.9-7.3 M refs/s (docs/references.md §2)")
PY
