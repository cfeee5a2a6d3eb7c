# dir-vs-snoop.gp: the snooping vs directory figure from tools/dir-vs-snoop.sh's CSV: traffic,
# snoops and latency per miss, bus vs mesh link utilization, and the directory/bus run-time ratio.
# gnuplot -e "csv='docs/experiments/directory-vs-snooping.csv'; out='docs/experiments/directory-vs-snooping'" tools/dir-vs-snoop.gp
# CSV columns: 1 workload, 2 source, 3 machine, 4 cores, 10 bytes_per_miss, 11 snoops_per_miss,
# 13 core_miss_latency, 14 bus_utilization, 15 link_util_avg, 16 link_util_max, 19 dir_over_bus_cycles
pats = "migratory producer_consumer shared_ro private"
cols = "#1f77b4 #d62728 #2ca02c #9467bd"
# one series: pattern i on one machine, column c against the core count
sel(i, m, c) = (strcol(1) eq word(pats, i) && strcol(3) eq m) ? column(c) : 1/0
fs(name) = (strcol(2) eq "trace" && strcol(3) eq "directory" && strstrt(strcol(1), name) == 1) ? $19 : 1/0
other(x) = (strcol(2) eq "trace" && strcol(3) eq "directory" && strstrt(strcol(1), "fs_") != 1) ? x : 1/0
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 1200,1250 dynamic noenhanced font "sans,11"; set output out.".svg" }
    else { set terminal pngcairo size 1200,1250 noenhanced font "sans,10"; set output out.".png" }
    set datafile separator ","
    set datafile missing ""
    set grid
    set key top left font ",9" samplen 2 spacing 0.9
    set logscale x 2
    set xtics (2, 4, 8, 16, 32, 64)
    set xrange [1.7:76]
    set xlabel "cores"
    set multiplot layout 3,2 title "Snooping bus (solid) vs directory on a 2D mesh (dashed), MESI, 32 KiB L1s"

    set title "traffic per L1 miss (header + data bytes)"
    set ylabel "bytes per miss"
    set yrange [0:*]
    plot for [i=1:4] csv using (sel(i, "bus", 4)):(sel(i, "bus", 10)) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb word(cols, i) title word(pats, i), \
         for [i=1:4] csv using (sel(i, "directory", 4)):(sel(i, "directory", 10)) skip 1 with linespoints lw 2 dt 2 pt 6 ps 0.6 lc rgb word(cols, i) notitle, \
         NaN with lines lw 2 lc "black" title "bus", NaN with lines lw 2 dt 2 lc "black" title "directory"

    set title "tag lookups in other caches per miss (bus: snoops; directory: Inv + Fwd)"
    set ylabel "lookups per miss"
    set logscale y
    set yrange [0.001:100]
    plot for [i=1:4] csv using (sel(i, "bus", 4)):(sel(i, "bus", 11)) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb word(cols, i) notitle, \
         for [i=1:4] csv using (sel(i, "directory", 4)):(sel(i, "directory", 11)) skip 1 with linespoints lw 2 dt 2 pt 6 ps 0.6 lc rgb word(cols, i) notitle

    set title "mean L1 miss latency seen by the cores"
    set ylabel "cycles"
    set yrange [10:2000]
    plot for [i=1:4] csv using (sel(i, "bus", 4)):(sel(i, "bus", 13)) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb word(cols, i) notitle, \
         for [i=1:4] csv using (sel(i, "directory", 4)):(sel(i, "directory", 13)) skip 1 with linespoints lw 2 dt 2 pt 6 ps 0.6 lc rgb word(cols, i) notitle
    unset logscale y

    set title "bus data utilization vs busiest mesh link (dashed) and mean link (dotted)"
    set ylabel "utilization"
    set yrange [0:1]
    plot for [i=1:4] csv using (sel(i, "bus", 4)):(sel(i, "bus", 14)) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb word(cols, i) notitle, \
         for [i=1:4] csv using (sel(i, "directory", 4)):(sel(i, "directory", 16)) skip 1 with linespoints lw 2 dt 2 pt 6 ps 0.6 lc rgb word(cols, i) notitle, \
         for [i=1:4] csv using (sel(i, "directory", 4)):(sel(i, "directory", 15)) skip 1 with lines lw 2 dt 3 lc rgb word(cols, i) notitle

    set title "run time, directory / bus (below 1: the directory wins)"
    set ylabel "cycles ratio"
    set logscale y
    set yrange [0.25:8]
    set ytics (0.25, 0.5, 1, 2, 4, 8)
    plot for [i=1:4] csv using (sel(i, "directory", 4)):(sel(i, "directory", 19)) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb word(cols, i) notitle, \
         csv using (fs("fs_packed") == fs("fs_packed") ? $4 : 1/0):(fs("fs_packed")) skip 1 with linespoints lw 2 pt 5 ps 0.6 lc rgb "#ff7f0e" title "trace fs_packed", \
         csv using (fs("fs_padded") == fs("fs_padded") ? $4 : 1/0):(fs("fs_padded")) skip 1 with linespoints lw 2 pt 5 ps 0.6 lc rgb "#8c564b" title "trace fs_padded", \
         1 with lines lw 1 lc "black" notitle

    set title "run time, directory / bus: recorded traces, 5 threads on 8 cores"
    unset logscale x
    set xrange [*:*]
    set xtics rotate by -40 font ",9" nomirror
    set xlabel ""
    unset logscale y
    set yrange [0:*]
    set ytics auto
    set style fill solid 0.6
    set boxwidth 1.4
    plot csv using (other($0)):(other($19)):xticlabels(other(1) == other(1) ? strcol(1) : "") skip 1 with boxes lc rgb "#7f7f7f" notitle, \
         1 with lines lw 1 lc "black" notitle
    unset multiplot
    set output
    reset
}
