# started on Sun May 18 13:34:52 2025


 Performance counter stats for 'bin/main.parallel6 1400 1400 1400 perf':

     4.595.014.128      cpu_atom/cycles/                 #    2,155 GHz                         (51,32%)
     3.410.196.830      cpu_core/cycles/                 #    1,599 GHz                         (63,82%)
     7.731.553.172      cpu_atom/instructions/           #    1,68  insn per cycle              (59,96%)
     5.721.560.261      cpu_core/instructions/           #    1,68  insn per cycle              (72,05%)
          2.132,56 msec task-clock                       #    8,392 CPUs utilized             
          2.132,12 msec cpu-clock                        #    8,390 CPUs utilized             
               856      context-switches                 #  401,396 /sec                      
         4.488.685      cpu_atom/cache-misses/           #    6,96% of all cache refs           (60,03%)
         6.271.581      cpu_core/cache-misses/           #    8,88% of all cache refs           (72,47%)
        64.509.044      cpu_atom/cache-references/       #   30,250 M/sec                       (60,29%)
        70.608.371      cpu_core/cache-references/       #   33,110 M/sec                       (72,43%)
       300.735.333      cpu_atom/branches/               #  141,021 M/sec                       (60,23%)
       260.513.209      cpu_core/branches/               #  122,160 M/sec                       (72,52%)
           694.081      cpu_atom/branch-misses/          #    0,23% of all branches             (60,03%)
           555.347      cpu_core/branch-misses/          #    0,21% of all branches             (72,36%)
           797.585      cpu_atom/dTLB-load-misses/       #    0,02% of all dTLB cache accesses  (59,31%)
        44.818.109      cpu_core/dTLB-load-misses/       #    1,94% of all dTLB cache accesses  (72,66%)
     3.444.717.845      cpu_atom/dTLB-loads/             #    1,615 G/sec                       (58,96%)
     2.306.210.916      cpu_core/dTLB-loads/             #    1,081 G/sec                       (72,05%)
                 7      cpu_atom/LLC-load-misses/        #    0,00% of all LL-cache accesses    (50,45%)
           886.485      cpu_core/LLC-load-misses/        #    4,38% of all LL-cache accesses    (71,83%)
         9.506.518      cpu_atom/LLC-loads/              #    4,458 M/sec                       (51,07%)
        20.239.701      cpu_core/LLC-loads/              #    9,491 M/sec                       (72,41%)

       0,254132990 seconds time elapsed

       2,097633000 seconds user
       0,034614000 seconds sys


