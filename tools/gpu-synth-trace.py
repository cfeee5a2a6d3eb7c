#!/usr/bin/env python3
"""gpu-synth-trace.py DIR WARPS [ROUNDS]: writes DIR/kernelslist.g and DIR/kernel-1.traceg, a
synthetic Accel-Sim trace (tracer version 3, sm_80) for teaching latency hiding: WARPS thread
blocks of one warp each; every warp runs ROUNDS times (default 16) a global load followed by
three FFMAs that need it (each the one before too), then EXIT. Written by archsim's tools, not
by NVBit: the instruction stream of such a loop, not a recording of a real kernel."""
import os
import sys

out, warps = sys.argv[1], int(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 16
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "kernelslist.g"), "w") as f:
    f.write("kernel-1.traceg\n")
with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
    f.write("-kernel name = _Z11latency_hidePKfPf\n-kernel id = 1\n")
    f.write(f"-grid dim = ({warps},1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n")
    f.write("-binary version = 80\n-cuda stream id = 0\n")
    f.write("-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007e0000000000\n")
    f.write("-nvbit version = 1.5.3\n-accelsim tracer version = 3\n\n")
    f.write("#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
            "[adrrescompress?] [mem_addresses]\n\n")
    for b in range(warps):
        f.write(f"#BEGIN_TB\n\nthread block = {b},0,0\n\nwarp = 0\ninsts = {rounds * 4 + 1}\n")
        pc = 0
        for r in range(rounds):
            addr = 0x7f4000000000 + (b * rounds + r) * 128
            f.write(f"{pc:04x} ffffffff 1 R2 LDG.E 1 R6 4 1 0x{addr:x} 4 \n")
            f.write(f"{pc + 16:04x} ffffffff 1 R4 FFMA 3 R2 R4 R4 0 \n")
            f.write(f"{pc + 32:04x} ffffffff 1 R4 FFMA 3 R4 R4 R8 0 \n")
            f.write(f"{pc + 48:04x} ffffffff 1 R4 FFMA 3 R4 R4 R8 0 \n")
            pc += 64
        f.write(f"{pc:04x} ffffffff 0 EXIT 0 0 \n\n#END_TB\n\n")
