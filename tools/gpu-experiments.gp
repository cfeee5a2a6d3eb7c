# gpu-experiments.gp: the figures of docs/experiments/gpu-*.md from tools/gpu-experiments.sh's
# CSVs; `which` names the experiment:
# gnuplot -e "csv='docs/experiments/gpu-occupancy.csv'; out='docs/experiments/gpu-occupancy'; which='occupancy'" tools/gpu-experiments.gp
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 1000,420 dynamic font "sans,11"; set output out.".svg" }
    else { set terminal pngcairo size 1000,420 font "sans,10"; set output out.".png" }
    set datafile separator ","
    set grid
    set style fill solid 0.7 border -1
    set bmargin 4
    if (which eq "occupancy") {
        set multiplot layout 1,2 title "Occupancy: c = a * b over 1 M floats on the A100 config, registers per thread forced up"
        set xlabel "registers per thread"
        set logscale x 2
        set xrange [28:290]
        set ylabel "DRAM read bandwidth (GB/s)"
        set y2label "blocks per SM"
        set ytics nomirror
        set y2tics
        set yrange [0:1700]
        set y2range [0:9]
        set key bottom left
        plot csv using 1:6 skip 1 with linespoints lw 2 pt 7 title "achieved GB/s", \
             1555 with lines dt 2 lc rgb "gray" title "peak 1,555 GB/s", \
             csv using 1:2 skip 1 axes x1y2 with steps lw 2 title "blocks per SM (right)"
        unset y2tics
        unset y2label
        set ytics mirror
        set ylabel "share of warp-cycles"
        set yrange [0:1]
        set key center right
        plot csv using 1:7 skip 1 with linespoints lw 2 title "long\\_scoreboard (waiting on DRAM)", \
             csv using 1:4 skip 1 with linespoints lw 2 title "achieved occupancy"
        unset multiplot
    }
    if (which eq "coalescing") {
        set multiplot layout 1,2 title "Coalescing: out[i] = in[i * stride] on the V100 config"
        set xlabel "stride (floats)"
        set logscale x 2
        set xrange [0.8:40]
        set ylabel "32-byte sectors per warp load request"
        set yrange [0:36]
        set key top left
        plot csv using 1:4 skip 1 with linespoints lw 2 pt 7 title "sectors per request", \
             4 with lines dt 2 lc rgb "gray" title "4 (one 128-byte line)", \
             32 with lines dt 3 lc rgb "gray" title "32 (a sector a lane)"
        set ylabel "useful bytes per cycle"
        set yrange [0:*]
        set key top right
        plot csv using 1:7 skip 1 with linespoints lw 2 pt 7 title "bytes the kernel uses / cycle"
        unset multiplot
    }
    if (which eq "bank-conflicts") {
        set multiplot layout 1,2 title "Bank conflicts: a 256 x 256 transpose on the A100 config"
        set style data histograms
        set style histogram clustered gap 1
        set boxwidth 0.8
        set ylabel "shared-memory replays (bank conflicts)"
        set yrange [0:*]
        unset key
        plot csv using 3:xtic(1) skip 1 title "conflicts"
        set ylabel "cycles"
        plot csv using 6:xtic(1) skip 1 title "cycles"
        unset multiplot
    }
    if (which eq "tiling") {
        set multiplot layout 1,2 title "Tiling: C = A B on the A100 config, naive vs 16x16 vs 32x32 shared tiles"
        set style data histograms
        set style histogram clustered gap 1
        set boxwidth 0.9
        set key top right
        set ylabel "global load sectors (L1 requests)"
        set logscale y
        set yrange [1000:*]
        plot csv using ($1 == 128 ? $3 : 1/0):xtic(2) skip 1 title "n = 128", \
             csv using ($1 == 256 ? $3 : 1/0):xtic(2) skip 1 title "n = 256"
        set ylabel "cycles"
        plot csv using ($1 == 128 ? $7 : 1/0):xtic(2) skip 1 title "n = 128", \
             csv using ($1 == 256 ? $7 : 1/0):xtic(2) skip 1 title "n = 256"
        unset multiplot
    }
    if (which eq "fusion") {
        # rows 0-3: the 40 MiB L2, rows 4-7: the 160 KiB one, in the same workload order
        set multiplot layout 1,2 title "Fusion on the A100 config: bytes moved, with its 40 MiB L2 and with a 160 KiB one"
        set style data histograms
        set style histogram clustered gap 1
        set boxwidth 0.9
        set key top right
        set ylabel "global store sectors"
        plot csv using 6:xtic(strcol(2)."\n".strcol(3)) every ::0::3 skip 1 title "stores"
        set ylabel "DRAM bytes read + written"
        plot csv using ($7 + $8):xtic(strcol(2)."\n".strcol(3)) every ::0::3 skip 1 title "40 MiB L2", \
             csv using ($7 + $8) every ::4::7 skip 1 title "160 KiB L2"
        unset multiplot
    }
    if (which eq "roofline") {
        set title "The bandwidth wall: every workload on the V100 config's roofline (FLOPs per DRAM byte)"
        set logscale xy
        set xlabel "arithmetic intensity (FLOPs per DRAM byte)"
        set ylabel "GFLOP/s"
        set xrange [0.01:1000]
        set yrange [0.1:30000]
        set key bottom right
        # V100 config: 80 SMs x 64 FP32 lanes x 2 x 1.53 GHz = 15,667 GFLOP/s; 897 GB/s
        roof(x) = (x * 897 < 15667 ? x * 897 : 15667)
        plot roof(x) with lines lw 2 lc rgb "black" title "roof: 897 GB/s, 15.7 TFLOP/s", \
             csv using 5:6 skip 1 with points pt 7 ps 1.2 title "workloads", \
             csv using 5:6:1 skip 1 with labels offset 0,0.8 font ",8" notitle
    }
    if (which eq "order") {
        set title "Blocks in any order: the global-atomic histogram, its 32 blocks in six orders (A100 config)"
        set style data histograms
        set boxwidth 0.7
        set ylabel "cycles"
        set yrange [9000:9800]
        unset key
        plot csv using 5:xtic(2) every ::0::5 skip 1 title "cycles", \
             csv using 0:($5 + 40):(strcol(4) eq "yes" ? "same bins" : "DIFFERENT") every ::0::5 skip 1 with labels font ",9" notitle
    }
    set output
}
