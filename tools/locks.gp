# locks.gp: the lock experiment's figure from tools/locks.sh's CSV: throughput, hand-off time, bus
# transactions and invalidations per acquisition, fairness, each against the core count (cs 1000),
# and bus transactions per acquisition with a short critical section (cs 50).
# gnuplot -e "csv='docs/experiments/locks.csv'; out='docs/experiments/locks'" tools/locks.gp
# machine='dirsmp' (tools/locks.sh with SYSTEM=dirsmp): the directory machine's CSV, whose column 9
# is network messages per acquisition; titles and ranges follow.
# CSV columns: 1 lock, 2 cores, 3 cs, 7 acquisitions_per_kcycle, 8 handoff_cycles,
# 9 bus_transactions_per_acquire, 10 invalidations_per_acquire, 14 fairness
locks = "tas ttas ttas-backoff ticket anderson mcs clh"
cols = "#d62728 #ff7f0e #bcbd22 #9467bd #2ca02c #1f77b4 #17becf"
pts = "7 5 9 11 13 15 4"
if (!exists("machine")) machine = "smp"
dir = (machine eq "dirsmp")
what = dir ? "tiles on a 2D mesh with a MESI directory (32 KiB L1s)" \
           : "a 32 KiB-L1 MESI snooping bus"
traffic = dir ? "network messages" : "bus transactions"
tmax = dir ? 1000 : 300
fmax = dir ? 2000 : 20
# one series: lock i at critical section cs, column c against the core count
sel(i, cs, c) = (strcol(1) eq word(locks, i) && column(3) == cs) ? column(c) : 1/0
# the same, but only where it is above lo (log scales: one core hands nothing off, sends nothing;
# on dirsmp one tile's cold misses make 0.01 messages per acquisition, hidden with lo = 0.5)
lo = dir ? 0.5 : 0
pos(i, cs, c) = (sel(i, cs, c) > lo) ? column(c) : 1/0
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 1200,1250 dynamic noenhanced font "sans,11"; set output out.".svg" }
    else { set terminal pngcairo size 1200,1250 noenhanced font "sans,10"; set output out.".png" }
    set datafile separator ","
    set datafile missing ""
    set grid
    set key bottom right font ",9" samplen 2 spacing 0.9
    set logscale x 2
    set xtics (1, 2, 4, 8, 16, 32)
    set xrange [0.85:38]
    set xlabel "cores contending for one lock"
    set multiplot layout 3,2 title "Lock algorithms on ".what.": critical section 1000 cycles, 200 cycles outside"

    set title "throughput: acquisitions per 1,000 cycles (higher is better)"
    set ylabel "acquisitions / kcycle"
    set yrange [0:*]
    plot for [i=1:7] csv using (sel(i, 1000, 2)):(sel(i, 1000, 7)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) title word(locks, i)

    set title "hand-off: cycles from a release to the next core's acquire"
    set ylabel "cycles"
    set logscale y
    set yrange [10:1000]
    plot for [i=1:7] csv using (sel(i, 1000, 2)):(pos(i, 1000, 8)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle

    set title traffic." per acquisition"
    set ylabel (dir ? "messages" : "transactions")
    set yrange [1:tmax]
    plot for [i=1:7] csv using (sel(i, 1000, 2)):(pos(i, 1000, 9)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle

    set title "invalidations per acquisition (copies removed by GetM / upgrade)"
    set ylabel "invalidations"
    set yrange [1:tmax]
    plot for [i=1:7] csv using (sel(i, 1000, 2)):(pos(i, 1000, 10)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle

    set title "fairness: most / fewest acquisitions of a core (1 = fair)"
    set ylabel "max / min"
    set yrange [0.9:fmax]
    plot for [i=1:7] csv using (sel(i, 1000, 2)):(sel(i, 1000, 14)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle

    set title traffic." per acquisition, short critical section (cs 50)"
    set ylabel (dir ? "messages" : "transactions")
    set yrange [1:tmax]
    plot for [i=1:7] csv using (sel(i, 50, 2)):(pos(i, 50, 9)) skip 1 with linespoints lw 2 dt 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle
    unset multiplot
    set output
    reset
}
