MemcpyHtoD,0xfffffffffffffff8,16
kernel-1.traceg
