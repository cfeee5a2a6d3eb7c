# htm.gp: the HTM experiment's figure from tools/htm.sh's CSV: throughput (operations per 1,000
# cycles) against the workers for the coarse lock, fine-grained locks and HTM, one panel per
# structure x contention; then the transactions' abort rate and the share of operations that
# fell back to the lock, per structure.
# gnuplot -e "csv='docs/experiments/htm.csv'; out='docs/experiments/htm'" tools/htm.gp
# CSV columns: 1 structure, 2 contention, 3 size, 4 sync, 5 workers, 8 ops_per_kcycle,
# 15 abort_rate, 16 fallback_rate
syncs = "coarse fine htm"
cols = "#d62728 #1f77b4 #2ca02c"
pts = "7 5 9"
name(i) = i == 1 ? "one coarse lock (TTAS, backoff)" : i == 2 ? "fine-grained locks (per bucket; hand-over-hand)" : "HTM, subscribed fallback lock"
# one series: structure s, contention c, sync i, column k against the workers
sel(s, c, i, k) = (strcol(1) eq s && strcol(2) eq c && strcol(4) eq word(syncs, i)) ? column(k) : 1/0
htm(s, c, k) = (strcol(1) eq s && strcol(2) eq c && strcol(4) eq "htm") ? column(k) : 1/0
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 1200,1250 dynamic noenhanced font "sans,11"; set output out.".svg" }
    else { set terminal pngcairo size 1200,1250 noenhanced font "sans,10"; set output out.".png" }
    set datafile separator ","
    set grid
    set key top left font ",9" samplen 2 spacing 0.9
    set logscale x 2
    set xtics (1, 2, 4, 8, 16, 32)
    set xrange [0.85:38]
    set xlabel "workers"
    set multiplot layout 3,2 title "HTM vs locks on a MESI snooping bus (32 KiB L1s, requester-wins conflicts, lazy versioning)"

    set ylabel "operations / kcycle"
    set yrange [0:*]
    set title "hash table, low contention: 64 buckets, 192 keys"
    plot for [i=1:3] csv using (sel("hash", "low", i, 5)):(sel("hash", "low", i, 8)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) title name(i)
    set title "hash table, high contention: 2 buckets, 6 keys"
    plot for [i=1:3] csv using (sel("hash", "high", i, 5)):(sel("hash", "high", i, 8)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle
    set title "sorted list, 128 keys (about 64 nodes)"
    plot for [i=1:3] csv using (sel("list", "low", i, 5)):(sel("list", "low", i, 8)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle
    set title "sorted list, 16 keys (about 8 nodes reached)"
    plot for [i=1:3] csv using (sel("list", "high", i, 5)):(sel("list", "high", i, 8)) skip 1 with linespoints lw 2 pt (word(pts, i) + 0) ps 0.7 lc rgb word(cols, i) notitle

    set ylabel "fraction"
    set yrange [0:1]
    set key top left samplen 4
    set title "HTM, hash table: abort rate (solid), fallback rate (dashed)"
    plot csv using (htm("hash", "low", 5)):(htm("hash", "low", 15)) skip 1 with linespoints lw 2 pt 9 ps 0.7 lc rgb "#2ca02c" title "low: aborts / begins", \
         csv using (htm("hash", "high", 5)):(htm("hash", "high", 15)) skip 1 with linespoints lw 2 pt 9 ps 0.7 lc rgb "#8c564b" title "high: aborts / begins", \
         csv using (htm("hash", "low", 5)):(htm("hash", "low", 16)) skip 1 with linespoints lw 2 dt 2 pt 9 ps 0.7 lc rgb "#2ca02c" title "low: ops under the lock", \
         csv using (htm("hash", "high", 5)):(htm("hash", "high", 16)) skip 1 with linespoints lw 2 dt 2 pt 9 ps 0.7 lc rgb "#8c564b" title "high: ops under the lock"
    set title "HTM, sorted list: abort rate (solid), fallback rate (dashed)"
    plot csv using (htm("list", "low", 5)):(htm("list", "low", 15)) skip 1 with linespoints lw 2 pt 9 ps 0.7 lc rgb "#2ca02c" title "128 keys: aborts / begins", \
         csv using (htm("list", "high", 5)):(htm("list", "high", 15)) skip 1 with linespoints lw 2 pt 9 ps 0.7 lc rgb "#8c564b" title "16 keys: aborts / begins", \
         csv using (htm("list", "low", 5)):(htm("list", "low", 16)) skip 1 with linespoints lw 2 dt 2 pt 9 ps 0.7 lc rgb "#2ca02c" title "128 keys: ops under the lock", \
         csv using (htm("list", "high", 5)):(htm("list", "high", 16)) skip 1 with linespoints lw 2 dt 2 pt 9 ps 0.7 lc rgb "#8c564b" title "16 keys: ops under the lock"
    unset multiplot
    set output
    reset
}
