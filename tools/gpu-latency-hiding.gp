# gpu-latency-hiding.gp: warp instructions per cycle and the share of warp-cycles spent waiting on
# a load, against the warps one SM scheduler has to choose from (tools/gpu-latency-hiding.sh).
# gnuplot -e "csv='docs/experiments/gpu-latency-hiding.csv'; out='docs/experiments/gpu-latency-hiding'" tools/gpu-latency-hiding.gp
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 1000,420 dynamic font "sans,11"; set output out.".svg" }
    else { set terminal pngcairo size 1000,420 font "sans,10"; set output out.".png" }
    set datafile separator ","
    set key bottom right
    set xrange [0:33]
    set xlabel "resident warps (one scheduler)"
    set grid
    set multiplot layout 1,2 title "Latency hiding: a 100-cycle load and three dependent FFMAs per round"
    set ylabel "warp instructions per cycle"
    set yrange [0:1.05]
    plot csv using (strcol(1) eq "lrr" ? $2 : 1/0):5 skip 1 with linespoints lw 2 title "lrr", \
         csv using (strcol(1) eq "gto" ? $2 : 1/0):5 skip 1 with linespoints lw 2 title "gto", \
         csv using (strcol(1) eq "two_level" ? $2 : 1/0):5 skip 1 with linespoints lw 2 title "two\\_level", \
         csv using (strcol(1) eq "lrr" ? $2 : 1/0):(($2 * 4.0 / 111) < 1 ? $2 * 4.0 / 111 : 1) skip 1 with lines dt 2 lc rgb "gray" title "min(1, 4 W / 111)"
    set ylabel "share of warp-cycles"
    set key top right
    plot csv using (strcol(1) eq "lrr" ? $2 : 1/0):6 skip 1 with linespoints lw 2 title "lrr: long\\_scoreboard", \
         csv using (strcol(1) eq "gto" ? $2 : 1/0):6 skip 1 with linespoints lw 2 title "gto: long\\_scoreboard", \
         csv using (strcol(1) eq "two_level" ? $2 : 1/0):6 skip 1 with linespoints lw 2 title "two\\_level: long\\_scoreboard"
    unset multiplot
    set output
}
