#!/usr/bin/env python3
"""occupancy-table.py [md|c]: the worked occupancy cases of docs/gpu.md ("Occupancy") and
tests/unit/test_gpu.c, 20 per compute capability, each worked from NVIDIA's rules (the CUDA
occupancy calculator's cuda_occupancy.h, as docs/gpu.md states them) by this script, a second
implementation written apart from models/gpu/occupancy.c: `md` prints the docs table with every
row's arithmetic, `c` the test's rows. The test checks that occupancy.c agrees with every row."""
import math
import sys

cc = {70:dict(w=64,b=32,unit=256,res=0,steps=[0,8,16,32,64,96],optin=96),
      75:dict(w=32,b=16,unit=256,res=0,steps=[32,64],optin=64),
      80:dict(w=64,b=32,unit=128,res=1024,steps=[0,8,16,32,64,100,132,164],optin=163),
      86:dict(w=48,b=16,unit=128,res=1024,steps=[0,8,16,32,64,100],optin=99),
      89:dict(w=48,b=24,unit=128,res=1024,steps=[0,8,16,32,64,100],optin=99),
      90:dict(w=64,b=32,unit=128,res=1024,steps=[0,8,16,32,64,100,132,164,196,228],optin=227)}
ru=lambda x,u:(x+u-1)//u*u
def solve(c, T, R, S, CO):
    d=cc[c]; W=math.ceil(T/32); bw=d['w']//W
    if R==0: br=None; rtxt="unlimited (no registers)"
    else:
        rpw=ru(R*32,256)
        if rpw*ru(W,4)>65536: br=0; rtxt=f"{R}x32 -> {rpw}/warp; {rpw} x {ru(W,4)} > 65536: **0**"
        else: ps=16384//rpw; br=4*ps//W; rtxt=f"{R}x32 -> {rpw}/warp; 16384/{rpw} = {ps}; 4x{ps}/{W} = **{br}**"
    alloc=ru(S+d['res'],d['unit']); mx=d['steps'][-1]*1024
    lim=(d['optin'] if S>48*1024 else 48)*1024+d['res']
    pref=mx if CO<0 else next((s*1024 for s in d['steps'] if s*1024>=CO), mx)
    if alloc>lim: bs=0; stxt=f"{S}+{d['res']} -> {alloc} B > {lim} B per block: **0**"
    elif alloc==0: bs=None; stxt="unlimited (no shared memory)"
    else:
        cap=pref if pref>=alloc else next(s*1024 for s in d['steps'] if s*1024>=alloc)
        bs=cap//alloc; stxt=f"round_up({S}+{d['res']}, {d['unit']}) = {alloc} B; {cap//1024} KiB / {alloc} = **{bs}**"
    vals={'warps':bw,'registers':br,'shared_memory':bs,'blocks':d['b']}
    m=min(v for v in vals.values() if v is not None)
    lim_s="+".join(k for k,v in vals.items() if v==m)
    return W,bw,br,bs,d['b'],m,m*W,lim_s,rtxt,stxt

# (id, cc, threads, registers per thread, shared memory per block in bytes, carve-out or -1)
CASES = [
    ('A1', 70, 256, 32, 0, -1), ('A2', 70, 128, 64, 0, -1), ('A3', 70, 64, 16, 0, -1), ('A4', 70, 256, 0, 40000, -1),
    ('A5', 70, 32, 255, 0, -1), ('A6', 70, 128, 0, 10240, 16384), ('A7', 70, 64, 0, 20000, 0), ('A8', 70, 32, 0, 0, -1),
    ('A9', 70, 64, 24, 0, -1), ('A10', 70, 96, 32, 0, -1), ('A11', 70, 128, 48, 0, -1), ('A12', 70, 160, 40, 0, -1),
    ('A13', 70, 192, 64, 0, -1), ('A14', 70, 224, 32, 4096, -1), ('A15', 70, 256, 48, 0, -1), ('A16', 70, 256, 64, 16384, -1),
    ('A17', 70, 320, 32, 0, -1), ('A18', 70, 384, 64, 0, -1), ('A19', 70, 512, 32, 0, -1), ('A20', 70, 512, 40, 8192, -1),
    ('B1', 75, 256, 32, 0, -1), ('B2', 75, 128, 64, 0, -1), ('B3', 75, 32, 32, 0, -1), ('B4', 75, 256, 16, 20480, -1),
    ('B5', 75, 32, 0, 0, -1), ('B6', 75, 64, 24, 0, -1), ('B7', 75, 96, 32, 0, -1), ('B8', 75, 128, 48, 0, -1),
    ('B9', 75, 160, 40, 0, -1), ('B10', 75, 192, 64, 0, -1), ('B11', 75, 224, 32, 4096, -1), ('B12', 75, 256, 48, 0, -1),
    ('B13', 75, 256, 64, 16384, -1), ('B14', 75, 320, 32, 0, -1), ('B15', 75, 384, 64, 0, -1), ('B16', 75, 512, 32, 0, -1),
    ('B17', 75, 512, 40, 8192, -1), ('B18', 75, 640, 24, 0, -1), ('B19', 75, 768, 32, 0, -1), ('B20', 75, 768, 80, 0, -1),
    ('C1', 80, 256, 32, 49152, -1), ('C2', 80, 256, 32, 0, -1), ('C3', 80, 1024, 64, 0, -1), ('C4', 80, 1024, 65, 0, -1),
    ('C5', 80, 96, 40, 0, -1), ('C6', 80, 128, 0, 102400, -1), ('C7', 80, 128, 0, 167936, -1), ('C8', 80, 32, 8, 0, -1),
    ('C9', 80, 64, 0, 2000, 8192), ('C10', 80, 32, 0, 0, -1), ('C11', 80, 64, 24, 0, -1), ('C12', 80, 96, 32, 0, -1),
    ('C13', 80, 128, 48, 0, -1), ('C14', 80, 160, 40, 0, -1), ('C15', 80, 192, 64, 0, -1), ('C16', 80, 224, 32, 4096, -1),
    ('C17', 80, 256, 48, 0, -1), ('C18', 80, 256, 64, 16384, -1), ('C19', 80, 320, 32, 0, -1), ('C20', 80, 384, 64, 0, -1),
    ('D1', 86, 256, 32, 0, -1), ('D2', 86, 128, 32, 0, -1), ('D3', 86, 64, 32, 0, -1), ('D4', 86, 256, 32, 32768, -1),
    ('D5', 86, 512, 72, 0, -1), ('D6', 86, 32, 0, 0, -1), ('D7', 86, 64, 24, 0, -1), ('D8', 86, 96, 32, 0, -1),
    ('D9', 86, 128, 48, 0, -1), ('D10', 86, 160, 40, 0, -1), ('D11', 86, 192, 64, 0, -1), ('D12', 86, 224, 32, 4096, -1),
    ('D13', 86, 256, 48, 0, -1), ('D14', 86, 256, 64, 16384, -1), ('D15', 86, 320, 32, 0, -1), ('D16', 86, 384, 64, 0, -1),
    ('D17', 86, 512, 32, 0, -1), ('D18', 86, 512, 40, 8192, -1), ('D19', 86, 640, 24, 0, -1), ('D20', 86, 768, 32, 0, -1),
    ('E1', 89, 64, 32, 0, -1), ('E2', 89, 32, 16, 0, -1), ('E3', 89, 256, 128, 0, -1), ('E4', 89, 128, 0, 49152, -1),
    ('E5', 89, 32, 0, 0, -1), ('E6', 89, 64, 24, 0, -1), ('E7', 89, 96, 32, 0, -1), ('E8', 89, 128, 48, 0, -1),
    ('E9', 89, 160, 40, 0, -1), ('E10', 89, 192, 64, 0, -1), ('E11', 89, 224, 32, 4096, -1), ('E12', 89, 256, 48, 0, -1),
    ('E13', 89, 256, 64, 16384, -1), ('E14', 89, 320, 32, 0, -1), ('E15', 89, 384, 64, 0, -1), ('E16', 89, 512, 32, 0, -1),
    ('E17', 89, 512, 40, 8192, -1), ('E18', 89, 640, 24, 0, -1), ('E19', 89, 768, 32, 0, -1), ('E20', 89, 768, 80, 0, -1),
    ('F1', 90, 256, 32, 49152, -1), ('F2', 90, 128, 168, 0, -1), ('F3', 90, 384, 40, 0, -1), ('F4', 90, 128, 0, 204800, -1),
    ('F5', 90, 1024, 32, 0, -1), ('F6', 90, 32, 0, 0, -1), ('F7', 90, 64, 24, 0, -1), ('F8', 90, 96, 32, 0, -1),
    ('F9', 90, 128, 48, 0, -1), ('F10', 90, 160, 40, 0, -1), ('F11', 90, 192, 64, 0, -1), ('F12', 90, 224, 32, 4096, -1),
    ('F13', 90, 256, 48, 0, -1), ('F14', 90, 256, 64, 16384, -1), ('F15', 90, 320, 32, 0, -1), ('F16', 90, 384, 64, 0, -1),
    ('F17', 90, 512, 32, 0, -1), ('F18', 90, 512, 40, 8192, -1), ('F19', 90, 640, 24, 0, -1), ('F20', 90, 768, 32, 0, -1),
]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "md"
    if mode == "c":
        u = lambda v: "U" if v is None else str(v)
        for cid, c, T, R, S, CO in CASES:
            W, bw, br, bs, bb, m, warps, lim, _, _ = solve(c, T, R, S, CO)
            print(f"    {{ {c}, {T}, {R}, {S}, {CO}, {bw}, {u(br)}, {u(bs)}, {bb}, {m}, {warps}, "
                  f"\"{lim}\" }},  /* {cid} */")
        return
    print("| id | cc | threads, regs, smem (carve-out) | W | warps: max/W | registers | "
          "shared memory | slots | blocks, warps, occupancy | limiter |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cid, c, T, R, S, CO in CASES:
        W, bw, br, bs, bb, m, warps, lim, rtxt, stxt = solve(c, T, R, S, CO)
        d = cc[c]
        smem = f"{S}" + (f" ({CO // 1024} KiB)" if CO >= 0 else "")
        print(f"| {cid} | {c / 10:.1f} | {T}, {R}, {smem} | {W} | {d['w']}/{W} = **{bw}** | {rtxt} "
              f"| {stxt} | {bb} | {m}, {warps}, {100 * warps / d['w']:.2f} % | {lim} |")


if __name__ == "__main__":
    main()
