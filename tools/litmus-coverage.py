#!/usr/bin/env python3
"""litmus-coverage.py: how well `archsim litmus` random mode covers what each model allows.
For every test of a directory (tools/litmus-gen.py writes one) and every model, runs
--exhaustive (every allowed outcome) and random mode (--runs N, each --seed), and counts
  - verdict misses: (test, model, seed) where exhaustive says Sometimes and random Never;
  - outcome misses: allowed outcomes (exhaustive) that the random runs did not produce;
  - bugs: outcomes random mode produced that exhaustive mode forbids (must be 0).
Usage: tools/litmus-coverage.py [--archsim ./archsim] [--runs 10000] [--seeds 1,2,3]
                                [--models sc,tso,pso,weak] [--csv FILE] DIR
Prints one line per miss and a summary; exit 1 if random mode produced a forbidden outcome.
"""
import argparse
import os
import re
import subprocess
import sys
import time


def run_blocks(cmd):
    """Runs archsim litmus on many files; returns {test name: (outcome set, observation)}."""
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode not in (0, 3):
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd[:6]), out.returncode, out.stderr))
    res, name, outs = {}, None, None
    for line in out.stdout.splitlines():
        if line.startswith("Test "):
            name, outs = line.split()[1], set()
        elif outs is not None and re.match(r"^\s*\d+ [*:]> ", line):
            outs.add(line.split("> ", 1)[1].strip())
        elif line.startswith("Observation "):
            res[name] = (outs, line.split()[2])
            outs = None
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--archsim", default="./archsim")
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--models", default="sc,tso,pso,weak")
    ap.add_argument("--csv")
    ap.add_argument("dir")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "LIST")) as fp:
        files = [os.path.join(a.dir, l.strip()) for l in fp if l.strip()]
    seeds = [int(s) for s in a.seeds.split(",")]
    rows, vmiss, omiss, bugs, pairs, allowed_outs = [], 0, 0, 0, 0, 0
    runs_total, secs_total = 0, 0.0
    for m in a.models.split(","):
        ex = run_blocks([a.archsim, "litmus", "-m", m, "-x"] + files)
        for s in seeds:
            t0 = time.time()
            rnd = run_blocks([a.archsim, "litmus", "-m", m, "-n", str(a.runs), "--seed", str(s)]
                             + files)
            secs_total += time.time() - t0
            runs_total += a.runs * len(files)
            for t in sorted(ex):
                eo, ev = ex[t]
                ro, rv = rnd[t]
                pairs += 1
                allowed_outs += len(eo)
                missed = sorted(eo - ro)
                extra = sorted(ro - eo)
                vm = ev != "Never" and rv == "Never"
                vmiss += vm
                omiss += len(missed)
                bugs += len(extra)
                if vm or missed or extra:
                    rows.append((t, m, s, "verdict" if vm else "", len(missed), len(extra)))
                    print("%s %s seed %d: %s%d of %d allowed outcomes not seen%s" %
                          (t, m, s, "VERDICT MISSED, " if vm else "", len(missed), len(eo),
                           ", %d FORBIDDEN seen" % len(extra) if extra else ""))
    print("tests %d, (test, model, seed) triples %d: verdict missed %d, allowed outcomes "
          "missed %d of %d, forbidden outcomes seen %d; %.0f random runs/s" %
          (len(files), pairs, vmiss, omiss, allowed_outs, bugs, runs_total / secs_total))
    if a.csv:
        with open(a.csv, "w") as fp:
            fp.write("test,model,seed,verdict_missed,outcomes_missed,forbidden_seen\n")
            for r in rows:
                fp.write("%s,%s,%d,%d,%d,%d\n" % (r[0], r[1], r[2], r[3] == "verdict", r[4],
                                                 r[5]))
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
