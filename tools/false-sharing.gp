# false-sharing.gp: cycles and false-sharing misses vs threads, packed vs padded counters.
# gnuplot -e "csv='docs/experiments/false-sharing.csv'; out='docs/experiments/false-sharing'" tools/false-sharing.gp
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 1000,420 dynamic font "sans,11"; set output out.".svg" }
    else { set terminal pngcairo size 1000,420 font "sans,10"; set output out.".png" }
    set datafile separator ","
    set key top left
    set logscale x 2
    set xtics (1, 2, 4, 8, 16)
    set xrange [0.8:20]
    set xlabel "worker threads (one per core)"
    set grid
    set multiplot layout 1,2 title "False sharing: per-thread counters, packed in one line vs padded (MESI snooping)"
    set ylabel "simulated cycles (millions)"
    plot csv using (strcol(1) eq "packed" ? $2 : 1/0):($3/1e6) skip 1 with linespoints lw 2 title "packed", \
         csv using (strcol(1) eq "padded" ? $2 : 1/0):($3/1e6) skip 1 with linespoints lw 2 title "padded"
    set ylabel "false-sharing misses (thousands)"
    plot csv using (strcol(1) eq "packed" ? $2 : 1/0):($4/1e3) skip 1 with linespoints lw 2 title "packed", \
         csv using (strcol(1) eq "padded" ? $2 : 1/0):($4/1e3) skip 1 with linespoints lw 2 title "padded"
    unset multiplot
    set output
}
