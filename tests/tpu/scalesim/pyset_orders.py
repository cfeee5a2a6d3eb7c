# The orders in which CPython 3.11 lists a set of ints built by set() and .add(), for
# tests/unit/test_tpudram.c (test_pyset_order): SCALE-Sim's CALC prefetches list each set of
# words as list(set). Run: /usr/bin/python3 tests/tpu/scalesim/pyset_orders.py
# (Debian 12's Python 3.11.2). Prints, per case, the distinct count, then the order itself for
# short cases, else a checksum: sum((k + 1) * v_k) mod 2^64 over the order, v_k as uint64.
M64 = (1 << 64) - 1


def lcg(seed, n, span, base):
    """n values base + ((x >> 33) % span), x the 64-bit LCG 6364136223846793005 x + 1442695040888963407."""
    x, out = seed, []
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        out.append(base + (x >> 33) % span)
    return out


def order(keys):
    s = set()
    for k in keys:
        s.add(k)
    return list(s)


CASES = [
    ("stride8", [10000000 + 8 * i for i in range(40)]),
    ("lcg1", lcg(1, 30, 10**7, 0)),
    ("signed", [-1, -2, -3, 5, -(1 << 61) + 1, -(1 << 61), -(1 << 62), 7, 0,
                (1 << 61) - 1, (1 << 61), (1 << 62) + 977]),
    ("dups", lcg(2, 200, 200, 0)),
    ("filter", lcg(3, 655, 36864, 10000000)),
    ("wide", lcg(4, 5000, 1 << 40, 0)),
    ("big", lcg(5, 120000, 10**9, 0)),
    ("stride32", [32 * i for i in range(70000)]),
]

for name, keys in CASES:
    o = order(keys)
    if len(o) <= 40:
        print(name, len(o), ",".join(map(str, o)))
    else:
        print(name, len(o), sum((k + 1) * (v & M64) for k, v in enumerate(o)) & M64)
