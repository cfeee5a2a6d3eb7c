# systolic.gp: os vs ws vs is on ResNet-18, 32 x 32 array (tools/systolic.sh sets csv, term, out).
if (term eq 'svg') { set terminal svg size 1100,750 font 'Helvetica,11' } else { set terminal pngcairo size 1100,750 font 'Helvetica,10' }
set output out
set termoption noenhanced
set datafile separator ','
set multiplot layout 2,1 title 'ResNet-18 on a 32 x 32 systolic array (scale.cfg), archsim default mode'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -45 font ',9'
set grid ytics
set key top right
set ylabel 'cycles (thousands)'
set yrange [0:*]
set title 'cycles per layer'
plot '< grep ",os,default," '.csv u ($5/1000):xtic(2) t 'os' lc rgb '#1f77b4', \
     '< grep ",ws,default," '.csv u ($5/1000) t 'ws' lc rgb '#2ca02c', \
     '< grep ",is,default," '.csv u ($5/1000) t 'is' lc rgb '#d62728'
set ylabel 'utilization (%)'
set yrange [0:100]
set title 'overall utilization per layer'
plot '< grep ",os,default," '.csv u 6:xtic(2) t 'os' lc rgb '#1f77b4', \
     '< grep ",ws,default," '.csv u 6 t 'ws' lc rgb '#2ca02c', \
     '< grep ",is,default," '.csv u 6 t 'is' lc rgb '#d62728'
unset multiplot
