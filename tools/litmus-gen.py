#!/usr/bin/env python3
"""litmus-gen.py: generates 4-thread herd7 X86 litmus tests from cycles of relations, the way
herdtools7's diy7 does (Alglave and Maranget, "diy: a tool to generate litmus tests"): a cycle of
program-order edges inside threads (PodWW, PodWR, PodRW, PodRR, and their MFenced forms) and
communication edges between threads (Rfe: a write read by another thread; Fre: a read of a value
overwritten by another thread's write; Wse: two writes of different threads in coherence
order). The final condition asks for exactly the cycle, so a model allows it iff it does not
order every edge of the cycle. This is a clean-room re-implementation of the idea, not diy's code.

Families (all 4 threads, for issue 15 item 8's held-out set):
  w2    every thread two accesses to different locations joined by po or MFENCE (4 locations):
        2+2W-like WW cycles (Wse), R/W mixes (Rfe, Fre), RR threads between writers
  iriw  IRIW-like: two one-write threads and two two-read threads (2 locations), and variants
        with a write thread replaced by a write-write thread
  mix   random cycles whose threads have 1 to 3 accesses (2 to 6 locations), --seed'ed; not
        part of "all" (a second held-out set, to check a search tuned on the others)
Usage: tools/litmus-gen.py [--family w2|iriw|mix|all] [--count N] [--seed S] OUTDIR
  writes OUTDIR/NAME.litmus for each test and OUTDIR/LIST (one file name a line); with --count
  a seeded random sample of N tests of the family (all of them without).
"""
import argparse
import itertools
import os
import random
import sys

REGS = ["EAX", "EBX", "ECX", "EDX"]
LOCS = ["x", "y", "z", "a", "b", "c"]


def com_edge(a, b):
    """The communication edge from an access of kind a to one of kind b in the next thread."""
    return {("W", "R"): "Rfe", ("R", "W"): "Fre", ("W", "W"): "Wse"}.get((a, b))


def build(threads):
    """threads: per thread a list of (kind, fence_before) accesses, in program order; the first
    access of thread i+1 follows the last of thread i by a communication edge on the same
    location, and po edges change location. Returns (name, cycle text, litmus text) or None
    when a com edge is impossible (R then R)."""
    n = len(threads)
    # the cycle as a list of events (thread, index, kind); locations: a new one after each po edge
    events = []
    for t, th in enumerate(threads):
        for i, (k, _) in enumerate(th):
            events.append((t, i, k))
    # rotate so that the cycle starts right after a po edge: event 0 starts a location chain
    for t, th in enumerate(threads):
        if len(th) > 1:
            start = next(j for j, e in enumerate(events) if e[0] == t and e[1] == 1)
            break
    else:
        return None
    ev = events[start:] + events[:start]
    chains = [[]]
    for j, e in enumerate(ev):
        if j > 0:
            prev = ev[j - 1]
            if prev[0] == e[0]:           # po edge: a new location
                chains.append([])
            elif com_edge(prev[2], e[2]) is None:
                return None
        chains[-1].append(e)
    last, first = ev[-1], ev[0]
    if last[0] == first[0]:
        pass                              # the closing edge is po: chains already split
    else:
        if com_edge(last[2], first[2]) is None:
            return None
        chains[0] = chains.pop() + chains[0] if len(chains) > 1 else chains[0]
    if len(chains) > len(LOCS) or len(chains) < 2:
        return None
    loc_of, value, cond = {}, {}, []
    for c, chain in enumerate(chains):
        v = 0
        writes = 0
        for e in chain:
            loc_of[(e[0], e[1])] = LOCS[c]
            if e[2] == "W":
                v += 1
                writes += 1
                value[(e[0], e[1])] = v
            else:
                value[(e[0], e[1])] = v   # a read reads the latest write before it (0: init)
        if writes >= 2:
            cond.append("%s=%d" % (LOCS[c], v))
    # program text, registers and condition
    cols, regcond = [], []
    for t, th in enumerate(threads):
        lines, r = [], 0
        for i, (k, fence) in enumerate(th):
            if fence:
                lines.append("MFENCE")
            loc, v = loc_of[(t, i)], value[(t, i)]
            if k == "W":
                lines.append("MOV [%s],$%d" % (loc, v))
            else:
                lines.append("MOV %s,[%s]" % (REGS[r], loc))
                regcond.append("%d:%s=%d" % (t, REGS[r], v))
                r += 1
        cols.append(lines)
    # cycle text and name
    edges = []
    for t, th in enumerate(threads):
        for i in range(1, len(th)):
            edges.append(("MFenced" if th[i][1] else "Pod") + th[i - 1][0] + th[i][0])
        nxt = threads[(t + 1) % n]
        edges.append(com_edge(th[-1][0], nxt[0][0]))
    parts = []
    for th in threads:
        s = "".join(k for k, _ in th)
        if any(f for _, f in th):
            s = "F" + s
        parts.append(s)
    name = "+".join(parts)
    rows = max(len(c) for c in cols)
    width = [max(len("P%d" % t), max(len(l) for l in c)) for t, c in enumerate(cols)]
    out = ["X86 %s" % name, '"%s"' % " ".join(edges), "{ }"]
    out.append(" " + " | ".join(("P%d" % t).ljust(width[t]) for t in range(n)) + " ;")
    for r in range(rows):
        out.append(" " + " | ".join((cols[t][r] if r < len(cols[t]) else "").ljust(width[t])
                                    for t in range(n)) + " ;")
    out.append("exists (%s)" % " /\\ ".join(regcond + cond))
    return name, " ".join(edges), "\n".join(out) + "\n"


def family_w2():
    thread_shapes = []
    for a, b in itertools.product("WR", repeat=2):
        for fence in (False, True):
            thread_shapes.append(((a, False), (b, fence)))
    seen = set()
    for combo in itertools.product(thread_shapes, repeat=4):
        # one representative per rotation
        key = min(combo[i:] + combo[:i] for i in range(4))
        if key in seen:
            continue
        seen.add(key)
        yield [list(t) for t in combo]


def family_iriw():
    readers = []
    for fence in (False, True):
        readers.append(((("R", False), ("R", fence))))
    writers = [(("W", False),), (("W", False), ("W", False)), (("W", False), ("W", True))]
    seen = set()
    for r0, r1 in itertools.product(readers, repeat=2):
        for w0, w1 in itertools.product(writers, repeat=2):
            combo = (r0, w0, r1, w1)
            key = min(combo[i:] + combo[:i] for i in range(4))
            if key in seen:
                continue
            seen.add(key)
            yield [list(t) for t in combo]


def family_mix(seed, count):
    rng = random.Random(seed)
    for _ in range(count * 20):
        combo = []
        for _t in range(4):
            n = rng.choice((1, 2, 2, 3))
            combo.append([(rng.choice("WR"), i > 0 and rng.random() < 0.4) for i in range(n)])
        yield combo


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--family", default="all", choices=["w2", "iriw", "mix", "all"])
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("outdir")
    a = ap.parse_args()
    fams = {"w2": family_w2, "iriw": family_iriw,
            "mix": lambda: family_mix(a.seed, a.count or 200)}
    tests = {}
    for f in (["w2", "iriw"] if a.family == "all" else [a.family]):
        for th in fams[f]():
            got = build(th)
            if got and got[0] not in tests:
                tests[got[0]] = got
    names = sorted(tests)
    if a.count and a.count < len(names):
        names = sorted(random.Random(a.seed).sample(names, a.count))
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "LIST"), "w") as lst:
        for n in names:
            fn = n + ".litmus"
            with open(os.path.join(a.outdir, fn), "w") as fp:
                fp.write(tests[n][2])
            lst.write(fn + "\n")
    print("%s: %d tests" % (a.outdir, len(names)), file=sys.stderr)


if __name__ == "__main__":
    main()
