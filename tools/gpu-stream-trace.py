#!/usr/bin/env python3
"""gpu-stream-trace.py DIR BLOCKS ITERS: writes DIR/kernelslist.g and DIR/kernel-1.traceg, a
synthetic Accel-Sim trace (tracer version 3, sm_80) of a streaming read kernel, the shape of a
bandwidth test (a sum of a large array read once): BLOCKS blocks of 256 threads; each warp runs
ITERS times a 16-byte-per-lane load (LDG.E.128, 512 contiguous bytes per warp: four full lines)
and four FADDs that use it, the warps of the grid striding over the array so that every byte is
read exactly once; then one 4-byte store per lane. Written by archsim's tools, not by NVBit: the
instruction stream of such a loop (docs/gpu.md, "Bandwidth and the roofline")."""
import os
import sys

out, blocks, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out, exist_ok=True)
WARPS = 8
BASE = 0x7f4000000000
OUT = 0x7f8000000000
stride = blocks * WARPS * 512          # bytes the whole grid reads per iteration
with open(os.path.join(out, "kernelslist.g"), "w") as f:
    f.write("kernel-1.traceg\n")
with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
    f.write("-kernel name = _Z10stream_sumPK6float4Pf\n-kernel id = 1\n")
    f.write(f"-grid dim = ({blocks},1,1)\n-block dim = (256,1,1)\n-shmem = 0\n-nregs = 24\n")
    f.write("-binary version = 80\n-cuda stream id = 0\n")
    f.write("-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007e0000000000\n")
    f.write("-nvbit version = 1.5.3\n-accelsim tracer version = 3\n\n")
    f.write("#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
            "[adrrescompress?] [mem_addresses]\n\n")
    for b in range(blocks):
        f.write(f"#BEGIN_TB\n\nthread block = {b},0,0\n\n")
        for w in range(WARPS):
            f.write(f"warp = {w}\ninsts = {iters * 7 + 2}\n")
            for r in range(iters):
                addr = BASE + r * stride + (b * WARPS + w) * 512
                f.write(f"0100 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x{addr:x} 16 \n")
                f.write("0110 ffffffff 1 R12 FADD 2 R12 R4 0 \n")
                f.write("0120 ffffffff 1 R12 FADD 2 R12 R5 0 \n")
                f.write("0130 ffffffff 1 R12 FADD 2 R12 R6 0 \n")
                f.write("0140 ffffffff 1 R12 FADD 2 R12 R7 0 \n")
                f.write("0150 ffffffff 1 R2 IADD3 3 R2 R10 R255 0 \n")
                f.write("0160 ffffffff 0 BRA 0 0 \n")
            oaddr = OUT + (b * WARPS + w) * 128
            f.write(f"0170 ffffffff 0 STG.E 2 R8 R12 4 1 0x{oaddr:x} 4 \n")
            f.write("0180 ffffffff 0 EXIT 0 0 \n")
        f.write("\n#END_TB\n\n")
