# roofline.gp: the roofline of the TPU v1-like array (tools/roofline.sh sets csv, bw, term, out).
if (term eq 'svg') { set terminal svg size 900,600 font 'Helvetica,12' } else { set terminal pngcairo size 900,600 font 'Helvetica,11' }
set output out
set datafile separator ','
set logscale xy 10
set xlabel 'operations per DRAM byte (2 per MAC; one-byte words)'
set ylabel 'operations per cycle'
set title 'ResNet-50 on a TPU v1-like 256x256 array (weight stationary, 3 x 16 B/cycle of DRAM)'
set grid
set key bottom right
peak = 2 * 256 * 256
roof(x) = (3 * bw * x < peak) ? 3 * bw * x : peak
set xrange [1:10000]
set yrange [10:300000]
plot roof(x) with lines lw 2 lc rgb '#cc0000' title 'roofline: min(2RC, 3 x bandwidth x intensity)', \
     csv every ::1 using 5:7 with points pt 7 ps 1 lc rgb '#1f77b4' title 'layers (achieved, first fill included)'
