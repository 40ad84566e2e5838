# started on Fri May 16 23:04:11 2025


 Performance counter stats for 'bin/main 3000 3000 3000 perf':

     3.642.649.330      cpu_atom/cycles/                 #    3,308 GHz                         (0,68%)
     4.963.414.681      cpu_core/cycles/                 #    4,508 GHz                         (78,79%)
     4.778.497.246      cpu_atom/instructions/           #    1,31  insn per cycle              (0,85%)
    11.012.810.078      cpu_core/instructions/           #    2,22  insn per cycle              (88,71%)
          1.101,01 msec task-clock                       #    0,999 CPUs utilized             
          1.100,98 msec cpu-clock                        #    0,999 CPUs utilized             
                11      context-switches                 #    9,991 /sec                      
        12.151.640      cpu_atom/cache-misses/           #   52,63% of all cache refs           (0,85%)
        33.268.991      cpu_core/cache-misses/           #   53,70% of all cache refs           (88,72%)
        23.088.173      cpu_atom/cache-references/       #   20,970 M/sec                       (0,94%)
        61.955.834      cpu_core/cache-references/       #   56,272 M/sec                       (88,68%)
       539.178.068      cpu_atom/branches/               #  489,714 M/sec                       (1,03%)
       570.870.091      cpu_core/branches/               #  518,498 M/sec                       (88,73%)
         1.660.057      cpu_atom/branch-misses/          #    0,31% of all branches             (1,12%)
         1.538.348      cpu_core/branch-misses/          #    0,27% of all branches             (88,80%)
           162.032      cpu_atom/dTLB-load-misses/       #    0,01% of all dTLB cache accesses  (1,14%)
           306.179      cpu_core/dTLB-load-misses/       #    0,01% of all dTLB cache accesses  (88,79%)
     2.235.502.106      cpu_atom/dTLB-loads/             #    2,030 G/sec                       (1,09%)
     4.329.049.239      cpu_core/dTLB-loads/             #    3,932 G/sec                       (88,79%)
                 0      cpu_atom/LLC-load-misses/                                               (0,83%)
        11.006.799      cpu_core/LLC-load-misses/        #   69,62% of all LL-cache accesses    (88,79%)
         1.053.634      cpu_atom/LLC-loads/              #  956,973 K/sec                       (0,72%)
        15.810.416      cpu_core/LLC-loads/              #   14,360 M/sec                       (88,72%)

       1,101976138 seconds time elapsed

       1,022897000 seconds user
       0,078992000 seconds sys


