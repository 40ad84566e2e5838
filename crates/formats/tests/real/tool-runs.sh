#!/usr/bin/env bash
# How the `tool-*` samples of this corpus were made (Debian 12, a shared
# 2-CPU VM, 6.18 kernel, no RT priorities needed). Each run is a few seconds
# and niced. Kept for reproduction; the tests never run it.
#
#   apt-get install rt-tests stress-ng time linux-perf sysstat bpftrace
#
# Outputs land in ./out; the manifests take their expected values from the
# tools' own machine-readable output of the same run (cyclictest --json,
# stress-ng --yaml, sadf -j, bpftrace -f json of a deterministic program,
# perf report -t ';' of the same perf.data) or, where a tool has none
# (time, perf stat text, perf lock, hackbench, /proc files), from the printed
# text read by hand.
set -u
mkdir -p out && cd out

ct() { name=$1; shift; nice -n 10 cyclictest "$@" --json=ct-$name.json > ct-$name.txt 2>&1; }
ct q2           -q -D 2 -i 1000 -t 2
ct hist400      -q -D 2 -i 1000 -t 2 -h 400
ct ns           -q -D 2 -i 1000 -t 2 -N
ct ns-hist      -q -D 2 -i 1000 -t 2 -N -h 300
ct mlock        -q -D 2 -i 1000 -t 2 -m
ct mlock-hist   -q -D 2 -i 500 -t 2 -m -h 250
ct affinity     -q -D 2 -i 1000 -t 2 -a -h 350
ct smp          -q -D 2 -i 1000 -S
ct t4           -q -D 2 -i 500 -d 100 -t 4
ct histofall    -q -D 2 -i 1000 -t 2 -H 300
ct overflow     -q -D 2 -i 1000 -t 2 -h 60
ct spike        -q -D 2 -i 1000 -t 1 --spike=150
ct loops        -q -l 1500 -i 1000 -t 2
ct loops-ns-h   -q -l 1500 -i 700 -t 1 -N -h 200
ct prio         -q -D 2 -i 1000 -t 2 -p 80
ct prio-hist    -q -D 2 -i 1000 -t 2 -p 90 -h 400 -m
ct nonquiet     -D 2 -i 1000 -t 2
ct nonquiet-ns  -D 2 -i 2000 -t 1 -N
ct t1-i200      -q -D 2 -i 200 -t 1
ct t3-hist      -q -D 2 -i 1000 -t 3 -h 500

sn() { name=$1; shift; nice -n 10 stress-ng "$@" --yaml sn-$name.yaml > sn-$name.txt 2>&1; }
sn cpu-metrics       --cpu 1 -t 2 --metrics
sn vm-brief          --vm 1 --vm-bytes 32M -t 2 --metrics-brief
sn cpu-times         --cpu 1 -t 2 --times --metrics-brief
sn matrix-perf       --matrix 1 -t 2 --metrics-brief --perf
sn pipe-ts           --pipe 1 -t 2 --metrics-brief --timestamp
sn malloc-logbrief   --malloc 1 -t 2 --metrics --log-brief
sn two-stressors     --cpu 1 --memcpy 1 -t 2 --metrics
sn mmap-verbose      --mmap 1 --mmap-bytes 16M -t 2 --metrics-brief -v
sn switch-times-perf --switch 1 -t 2 --metrics --times --perf
sn bigheap           --bigheap 1 -t 2 --metrics-brief --times

/usr/bin/time -v -o tm-verbose-gzip.txt sh -c 'head -c 20000000 /dev/urandom | gzip -1 > /dev/null'
/usr/bin/time -o tm-default-sort.txt sh -c 'seq 1 300000 | sort -R > /dev/null'
/usr/bin/time -v -o tm-verbose-fail.txt sh -c 'seq 1 100000 > /dev/null; exit 3'
/usr/bin/time -o tm-default-fail.txt sh -c 'exit 2'
/usr/bin/time -v -o tm-verbose-signal.txt sh -c 'kill -TERM $$'
/usr/bin/time -o tm-default-signal.txt sh -c 'kill -KILL $$'
/usr/bin/time -p -o tm-posix-find.txt sh -c 'find /usr/share/doc > /dev/null'
/usr/bin/time -v -o tm-verbose-two.txt sh -c 'seq 1 200000 | sort > /dev/null'
/usr/bin/time -a -v -o tm-verbose-two.txt sh -c 'seq 1 400000 | sort > /dev/null'
bash -c 'time (seq 1 200000 | sort -n > /dev/null)' > tm-bash-sort.txt 2>&1
bash -c 'time sleep 0.3; time (head -c 5000000 /dev/urandom | md5sum > /dev/null)' > tm-bash-two.txt 2>&1

hackbench -g 4 -l 200 > mb-hackbench-proc.txt 2>&1
hackbench -g 4 -l 200 -T > mb-hackbench-threads.txt 2>&1
hackbench -p -g 2 -l 500 > mb-hackbench-pipe.txt 2>&1
perf bench sched messaging -g 5 -l 200 > mb-perfbench-messaging.txt 2>&1
perf bench sched messaging -t -p -g 4 -l 300 > mb-perfbench-messaging-tp.txt 2>&1
perf bench sched pipe -l 100000 > mb-perfbench-pipe.txt 2>&1
perf bench sched pipe -T -l 50000 > mb-perfbench-pipe-T.txt 2>&1

perf stat -o ps-default.txt -- sh -c 'seq 1 300000 | sort > /dev/null'
perf stat -r 3 -o ps-r3.txt -- sh -c 'seq 1 200000 | sort > /dev/null'
perf stat -x, -o ps-x.csv -- sh -c 'seq 1 300000 | sort > /dev/null'
perf stat -x, -r 3 -o ps-x-r3.csv -- sh -c 'seq 1 200000 | sort > /dev/null'
perf stat -e 'sched:sched_switch,sched:sched_wakeup,kmem:mm_page_alloc,kmem:mm_page_free,task-clock' -o ps-tracepoints.txt -- sh -c 'seq 1 300000 | sort > /dev/null'
perf stat -a -o ps-system.txt -- sleep 1
perf stat -I 500 -e task-clock,page-faults -o ps-interval.txt -- sh -c 'seq 1 1000000 | sort > /dev/null'
perf stat -r 5 -e 'page-faults,minor-faults,major-faults,task-clock' -o ps-r5-faults.txt -- sh -c 'head -c 30000000 /dev/zero | gzip -1 > /dev/null'

perf record -e task-clock -F 999 -o pr.data -- sh -c 'seq 1 400000 | sort > /dev/null; head -c 20000000 /dev/urandom | gzip -1 >/dev/null'
perf report -i pr.data --stdio > pf-report-default.txt; perf report -i pr.data --stdio -t ';' > pf-report-default.sep
perf report -i pr.data --stdio --sort sym --percent-limit 2 > pf-report-sym.txt
perf report -i pr.data --stdio --sort sym --percent-limit 2 -t ';' > pf-report-sym.sep
perf report -i pr.data --stdio --sort comm,dso > pf-report-comm-dso.txt
perf report -i pr.data --stdio --sort comm,dso -t ';' > pf-report-comm-dso.sep
perf record -g -e task-clock -o prg.data -- sh -c 'seq 1 300000 | sort > /dev/null'
perf report -i prg.data --stdio --no-children --percent-limit 5 > pf-report-callgraph.txt
perf report -i prg.data --stdio --children --percent-limit 5 -g none > pf-report-children.txt

perf lock record -o lock.data -a -- sleep 1
perf lock contention -i lock.data > lc-a.txt
perf lock contention -i lock.data -t > lc-task.txt
perf lock contention -i lock.data -E 8 -k wait_max > lc-top8-max.txt
perf lock contention -i lock.data -t -E 6 -k wait_max > lc-task-top6.txt
perf lock contention -i lock.data -v -E 5 > lc-verbose-stacks.txt 2>&1
perf lock contention -i lock.data -F contended,wait_total,wait_max -E 10 > lc-fields.txt

B='BEGIN { $i = (uint64)1; while ($i <= 400) { @lat_us = hist($i * $i % 5000); @bycomm["kswapd0"] = hist($i % 90); $i++; } exit(); }'
bpftrace -e "$B" > bt-det-text.txt; bpftrace -f json -e "$B" > bt-det.json
B='BEGIN { $i = (uint64)0; while ($i < 300) { @ms = lhist($i * 13 % 200, 0, 200, 20); @usecs["sort"] = hist($i * 31 % 3000); @usecs["gzip"] = hist($i * 7 % 900); $i++; } exit(); }'
bpftrace -e "$B" > bt-det2-text.txt; bpftrace -f json -e "$B" > bt-det2.json
bpftrace -e 'profile:hz:499 { @ns = hist(nsecs % 1000000); } interval:s:2 { exit(); }' > bt-profile-ns.txt

cat /proc/vmstat > ctr-vmstat.txt
cat /proc/meminfo > ctr-meminfo.txt
cat /proc/pressure/memory > ctr-psi-memory.txt
for r in memory io cpu; do echo "== /proc/pressure/$r"; cat /proc/pressure/$r; done > ctr-psi-all.txt
cat /proc/self/smaps_rollup > ctr-smaps-rollup.txt
cat /sys/fs/cgroup/memory/memory.stat > ctr-memcg-v1-stat.txt
grep -E '^(pgscan|pgsteal|allocstall|pgfault|pgmajfault|workingset)' /proc/vmstat > ctr-vmstat-grep-before.txt
stress-ng --vm 1 --vm-bytes 256M -t 2 -q
grep -E '^(pgscan|pgsteal|allocstall|pgfault|pgmajfault|workingset)' /proc/vmstat > ctr-vmstat-grep-after.txt

sar -B -o sar.data 1 3 > sys-sar-B.txt; sadf -j sar.data -- -B > sys-sar-B.json
sar -r -o sar2.data 1 2 > sys-sar-r.txt; sadf -j sar2.data -- -r > sys-sar-r.json

# ---- second batch (2026-12-01 09:16 UTC), same machine
ct() { name=$1; shift; echo "== $name: cyclictest $*"; nice -n 10 cyclictest "$@" --json=ct-$name.json > ct-$name.txt 2>&1; echo "cyclictest $* --json=ct-$name.json" > ct-$name.cmd; }
ct t1-i2000      -q -D 2 -i 2000 -t 1
ct d500-t3       -q -D 2 -i 1000 -d 500 -t 3
ct clock-rt      -q -D 2 -i 1000 -t 2 -c 1
ct D3s           -q -D 3s -i 1500 -t 2
ct h1000-m       -q -D 2 -i 1000 -t 2 -h 1000 -m
ct nonquiet-h    -D 2 -i 1000 -t 1 -h 200
ct default-i     -q -D 2 -t 2
ct smp-hist      -q -D 2 -i 1000 -S -h 300
ct priospread    -q -D 2 -i 1000 -t 3 -p 80 --priospread
ct mainaff       -q -D 2 -i 1000 -t 2 -a 1 --mainaffinity=0
sn() { name=$1; shift; echo "== $name"; nice -n 10 stress-ng "$@" --yaml sn-$name.yaml > sn-$name.txt 2>&1; echo "stress-ng $* --yaml sn-$name.yaml" > sn-$name.cmd; }
sn fork-metrics    --fork 1 -t 2 --metrics
sn memcpy-brief    --memcpy 1 -t 2 --metrics-brief
sn hdd-metrics     --hdd 1 --hdd-bytes 8M -t 2 --metrics --temp-path /tmp
sn cache-times     --cache 1 -t 2 --metrics-brief --times
sn sem-perf        --sem 1 -t 2 --metrics-brief --perf
sn cpu-fft         --cpu 1 --cpu-method fft -t 2 --metrics
sn vm-verify       --vm 1 --vm-bytes 16M --verify -t 2 --metrics-brief
sn three-brief     --cpu 1 --pipe 1 --switch 1 -t 2 --metrics-brief
sn cpu2-metrics    --cpu 2 -t 2 --metrics
sn timer-brief     --timer 1 -t 2 --metrics-brief
sn cpu-ops         --cpu 1 --cpu-ops 3000 --metrics-brief
sn mq-ts           --mq 1 -t 2 --metrics-brief --timestamp
# GNU / bash time
nice -n 10 /usr/bin/time -v -o tm-verbose-sleep.txt sleep 0.5
nice -n 10 /usr/bin/time -v -o tm-verbose-gzip9.txt sh -c 'gzip -9 -c /usr/bin/perf > /dev/null'
nice -n 10 /usr/bin/time dd if=/dev/zero of=/dev/null bs=1M count=300 > tm-default-dd.txt 2>&1
nice -n 10 /usr/bin/time -p -o tm-posix-sort.txt sh -c 'seq 1 300000 | sort -n > /dev/null'
bash -c 'time -p (seq 1 200000 | sort -n > /dev/null)' > tm-bash-posix.txt 2>&1
bash -c 'time (head -c 3000000 /dev/urandom | xz -0 > /dev/null)' > tm-bash-xz.txt 2>&1
# perf stat
ps() { name=$1; shift; nice -n 10 perf stat "$@" > /dev/null 2> ps-$name.txt; }
ps e-sw   -e context-switches,cpu-migrations,page-faults,task-clock,cpu-clock -- sh -c 'seq 1 300000 | sort > /dev/null'
ps r4-sleep -r 4 -- sleep 0.1
nice -n 10 perf stat -o ps-o-file.txt -- sh -c 'head -c 20000000 /dev/zero | gzip -1 > /dev/null'
nice -n 10 perf stat -r 3 -o ps-o-r3.txt -- sh -c 'seq 1 200000 | sort > /dev/null'
nice -n 10 perf stat -j -o ps-json.txt -- sh -c 'seq 1 300000 | sort > /dev/null' || echo nojson
# hyperfine 1.15.0 (Debian 12), in hyperfine/
nice -n 10 hyperfine --style basic --warmup 1 --runs 10 --export-json tool-hyperfine-sleep-compare.json 'sleep 0.3' 'sleep 0.2' > tool-hyperfine-sleep-compare.txt 2>&1
nice -n 10 hyperfine --style basic --runs 1 --export-json tool-hyperfine-single-run.json 'sleep 0.5' > tool-hyperfine-single-run.txt 2>&1
nice -n 10 hyperfine --style basic --runs 5 --parameter-scan level 1 3 --export-json tool-hyperfine-gzip-scan.json 'gzip -{level} -c /usr/bin/hyperfine > /dev/null' > tool-hyperfine-gzip-scan.txt 2>&1
# ---- third batch (2026-12-02 02:04 UTC), same machine: options not used above
ct() { name=$1; shift; echo "== $name: cyclictest $*"; nice -n 10 cyclictest "$@" --json=ct-$name.json > ct-$name.txt 2>&1; }
ct posix-rel     -q --duration=2 -i 1000 -t 2 -x -r
ct rr-aligned    -q -D 2 -i 1000 -t 2 --policy=rr -p 60 -A 200
ct sys-secalign  -q -D 2 -i 1000 -t 2 -s --secaligned
ct refresh-max   -D 2 -i 1000 -t 2 -M
ct unbuf-H-ns    -q -D 2 -i 500 -t 2 -u -H 80 -N
ct laptop-d0     -q -D 2 -t 2 --laptop --default-system -i 800 -d 0
ct smp-spike-h   -q -D 2 -S -i 1000 --spike=60 -h 150
sn() { name=$1; shift; echo "== $name"; nice -n 10 stress-ng "$@" --yaml sn-$name.yaml > sn-$name.txt 2>&1; }
sn stream-brief       --stream 1 --stream-l3-size 1M -t 2 --metrics-brief
sn memrate            --memrate 1 --memrate-bytes 2M -t 2 --metrics
sn brk-mremap-tz      --brk 1 --mremap 1 -t 2 --metrics-brief --tz --times
sn vm-flip-keep       --vm 2 --vm-bytes 16M --vm-method flip --vm-keep -t 2 --metrics
sn madvise-tslog      --madvise 1 -t 2 --metrics-brief --timestamp --log-brief
sn userfaultfd-vmstat --userfaultfd 1 -t 3 --metrics-brief --vmstat 1
# perf stat: the text of `perf stat report` and the CSV of the same record
nice -n 10 perf stat record -o psr.data -e task-clock,page-faults,minor-faults,major-faults,context-switches -- sh -c 'seq 1 300000 | sort > /dev/null'
perf stat report -i psr.data > ps-rec-faults.txt 2>&1; perf stat -x, report -i psr.data > ps-rec-faults.csv 2>&1
nice -n 10 perf stat record -o psr2.data -e '{task-clock,page-faults},cpu-migrations,context-switches' -- sh -c 'head -c 20000000 /dev/urandom | gzip -1 > /dev/null'
perf stat report -i psr2.data > ps-rec-group.txt 2>&1; perf stat -x, report -i psr2.data > ps-rec-group.csv 2>&1
nice -n 10 perf stat record -o psr3.data -a -e task-clock,context-switches,page-faults -- sleep 0.5
perf stat report -A -i psr3.data > ps-rec-A.txt 2>&1; perf stat -x, report -A -i psr3.data > ps-rec-A.csv 2>&1
(nice -n 10 sh -c 'seq 1 3000000 | sort -R > /dev/null' &); sleep 0.3
nice -n 10 perf stat --per-thread -p "$(pgrep -n -x sort)" -e task-clock,context-switches,page-faults -- sleep 0.6 > /dev/null 2> ps-per-thread.txt
nice -n 10 perf stat --no-big-num -x ';' -e task-clock,page-faults,context-switches,cpu-migrations -r 3 -- sh -c 'seq 1 200000 | sort > /dev/null' > /dev/null 2> ps-x-semi-r3.csv
nice -n 10 perf stat -d -- sh -c 'seq 1 300000 | sort > /dev/null' > /dev/null 2> ps-detailed.txt
nice -n 10 /usr/bin/time -q -v -o tm-verbose-quiet-fail.txt sh -c 'seq 1 100000 | sort > /dev/null; exit 1'
nice -n 10 /usr/bin/time -o tm-default-append.txt sh -c 'seq 1 200000 | sort > /dev/null'
nice -n 10 /usr/bin/time -a -o tm-default-append.txt sh -c 'seq 1 400000 | sort -n > /dev/null'
nice -n 10 /usr/bin/time -f '%e real %U user %S sys %M maxKB' -o tm-format-custom.txt sh -c 'head -c 10000000 /dev/urandom | md5sum > /dev/null'
nice -n 10 hackbench -s 512 -f 10 -g 3 -l 300 -T > mb-hackbench-s512-T.txt 2>&1
sar -B -W -o sar3.data 1 2 > sys-sar-B-W.txt 2>&1; sadf -j sar3.data -- -B -W > sys-sar-B-W.json

# Fifteenth set (2026-12-03): the same machine, perf 6.1, rt-tests, stress-ng, hyperfine, sysstat.
# Fresh tool runs (2026-12-03, Debian 12, 2-CPU shared VM, 6.18 kernel, root,
# perf_event_paranoid=2). rt-tests 2.40, stress-ng 0.15.06, perf 6.1,
# sysstat 12.6.1, hyperfine 1.15.0. Options not used in the corpus's tool-runs.sh.
set -u
# Files were copied to <format>/tool-<name> in this set; mb-hackbench-P-F.txt to microbench/,
# sys-* and hf-N.md to plain/, hf-* to hyperfine/.
mkdir -p out && cd out
ct() { name=$1; shift; echo "== $name: cyclictest $*"; nice -n 10 cyclictest "$@" --json=ct-$name.json > ct-$name.txt 2>&1; }
ct histfile      -q -D 2 -i 1000 -t 2 -h 120 --histfile=ct-histfile.hist
ct breaktrace    -q -D 3 -i 1000 -t 2 -b 3000 --tracemark
ct batch-spread  -q -D 2 -i 1500 -t 3 --policy=batch -d 250
ct nonq-N-spread -D 2 -i 1000 -t 2 -p 70 --priospread -N
ct latency-aff0  -q -l 1200 -i 1000 -t 2 -a 0 --latency=50
sn() { name=$1; shift; echo "== $name"; nice -n 10 stress-ng "$@" --yaml sn-$name.yaml > sn-$name.txt 2>&1; }
sn zlib-perf-times  --zlib 1 -t 2 --metrics --perf --times
sn hash-metrics     --hash 1 -t 2 --metrics
printf 'run sequential\nmetrics-brief\ntimeout 1\ncpu 1\nhash 1\npipe 1\n' > sn-job.job
nice -n 10 stress-ng --job sn-job.job --yaml sn-job-seq.yaml > sn-job-seq.txt 2>&1
sn qsort-thermal    --qsort 2 -t 2 --metrics-brief --thermalstat 1
# GNU time
nice -n 10 /usr/bin/time -p -o tm-posix-fail.txt sh -c 'seq 1 100000 | sort > /dev/null; exit 4'
nice -n 10 /usr/bin/time -v -o tm-verbose-segv.txt sh -c 'seq 1 50000 > /dev/null; kill -SEGV $$'
nice -n 10 /usr/bin/time -f '%C\n%E elapsed, %e s, %x exit, %MKB max, %F major %R minor, %w waits %c switches' -o tm-format-E.txt sh -c 'head -c 8000000 /dev/urandom | sha256sum > /dev/null'
bash -c 'time (seq 1 100000 | sort > /dev/null; ls /nonexistent-dir)' > tm-bash-fail.txt 2>&1
nice -n 10 /usr/bin/time -v -o tm-verbose-nocmd.txt /nonexistent/cmd
# perf stat
nice -n 10 perf stat -a --per-core -e task-clock,context-switches -- sleep 0.5 > /dev/null 2> ps-per-core.txt
nice -n 10 perf stat -r 3 --table -e task-clock,page-faults -- sh -c 'seq 1 200000 | sort > /dev/null' > /dev/null 2> ps-table-r3.txt
nice -n 10 perf stat -I 400 -x, -e task-clock,page-faults,context-switches -- sh -c 'seq 1 3000000 | sort > /dev/null' > /dev/null 2> ps-interval-csv.txt
nice -n 10 perf stat -e cpu-clock:u,cpu-clock:k,page-faults:u -- sh -c 'seq 1 300000 | sort > /dev/null' > /dev/null 2> ps-modifiers.txt
nice -n 10 perf stat --null -r 5 -- sh -c 'seq 1 100000 | sort > /dev/null' > /dev/null 2> ps-null-r5.txt
# hackbench
nice -n 10 hackbench -P -F -g 3 -l 150 > mb-hackbench-P-F.txt 2>&1
# sysstat
nice -n 10 sar -u -P ALL -o sar-u.data 1 2 > sys-sar-u-PALL.txt 2>&1; sadf -j sar-u.data -- -u -P ALL > sys-sar-u-PALL.json
nice -n 10 sar -q -w -o sar-q.data 1 2 > sys-sar-q-w.txt 2>&1; sadf -j sar-q.data -- -q -w > sys-sar-q-w.json
nice -n 10 mpstat -P ALL 1 2 > sys-mpstat.txt 2>&1
nice -n 10 iostat -x -d 1 2 > sys-iostat-x.txt 2>&1
nice -n 10 vmstat -w 1 3 > sys-vmstat-w.txt 2>&1
# (pidstat -u -r -p PID 1 2 was run too; not kept: no keyable layout in FORMATS.md)
# hyperfine
nice -n 10 hyperfine --style basic -N --runs 8 --export-json hf-N.json --export-markdown hf-N.md 'sleep 0.1' 'sleep 0.15' > hf-N.txt 2>&1
nice -n 10 hyperfine --style basic --runs 4 --prepare 'sync' -i --export-json hf-fail.json 'sh -c "seq 1 100000 | sort >/dev/null; exit 1"' > hf-fail.txt 2>&1

# The seventeenth set's runs (2026-12-03), same machine; s17- file names.
ct() { name=$1; shift; echo "== $name: cyclictest $*"; nice -n 10 cyclictest "$@" --json=ct-$name.json > ct-$name.txt 2>&1; }
ct resolution    -q -D 2 -i 1000 -t 2 -R
ct idle-h        -q -D 2 -i 2000 -t 2 --policy=idle -h 100
ct dbg           -q -D 2 -i 1000 -t 1 --dbg_cyclictest
ct spikenodes    -D 2 -i 1000 -t 2 --spike=60 --spike-nodes=16
ct other-t3      -q -D 2 -i 700 -t 3 --policy=other
sn() { name=$1; shift; echo "== $name"; nice -n 10 stress-ng "$@" --yaml sn-$name.yaml > sn-$name.txt 2>&1; }
sn vdso-taskset     --vdso 1 -t 2 --metrics --taskset 0
sn futex-aggr       --futex 2 -t 2 --metrics-brief --aggressive
sn sock-stdout      --sock 1 -t 2 --metrics-brief --sock-domain ipv4 --stdout
sn getrandom-tsc    --getrandom 1 --tsc 1 -t 2 --metrics --ionice-class idle
sn str-maximize     --str 1 -t 2 --metrics-brief --maximize
hf() { name=$1; shift; echo "== $name"; nice -n 10 hyperfine "$@" > hf-$name.txt 2>&1; }
hf setup-sec   --style basic --runs 5 --setup 'sync' --cleanup 'true' --time-unit second --export-json hf-setup-sec.json 'sleep 0.12' 'seq 1 100000 | sort > /dev/null'
hf minmax-bash --style basic --min-runs 3 --max-runs 4 -S bash --export-json hf-minmax-bash.json --export-csv hf-minmax-bash.csv 'sleep 0.07'
hf nocolor     --style nocolor --runs 6 --warmup 1 --export-json hf-nocolor.json 'gzip -1 -c /usr/bin/fio > /dev/null' 'gzip -6 -c /usr/bin/fio > /dev/null' 'gzip -9 -c /usr/bin/fio > /dev/null'
mkdir -p fiodata
fo() { name=$1; shift; echo "== $name"; nice -n 10 fio --name=$name --directory=fiodata --output-format=normal,json --output=fio-$name.out "$@"; }
fo randwrite-fsync --rw=randwrite --bs=4k --size=16M --ioengine=sync --fsync=16 --runtime=2 --time_based
fo libaio-read     --rw=read --bs=64k --size=64M --ioengine=libaio --iodepth=8 --direct=1 --runtime=2 --time_based
fo rwmix-mmap      --rw=randrw --rwmixread=70 --bs=8k --size=32M --ioengine=mmap --lat_percentiles=1 --percentile_list=50:90:99.5 --runtime=2 --time_based
fo posixaio-write  --rw=write --bs=1M --size=128M --ioengine=posixaio --iodepth=4 --end_fsync=1
rm -rf fiodata
echo "== sysbench"
nice -n 10 sysbench cpu --cpu-max-prime=5000 --events=2000 --time=0 --percentile=99 run > sb-cpu-events.txt 2>&1
nice -n 10 sysbench memory --memory-oper=read --memory-access-mode=rnd --memory-block-size=4K --memory-total-size=512M run > sb-memory-rnd-read.txt 2>&1
mkdir -p sbf && (cd sbf && sysbench fileio --file-total-size=64M --file-num=4 prepare > /dev/null 2>&1 && nice -n 10 sysbench fileio --file-total-size=64M --file-num=4 --file-test-mode=rndrw --time=3 run > ../sb-fileio-rndrw.txt 2>&1; sysbench fileio --file-total-size=64M --file-num=4 cleanup > /dev/null 2>&1); rm -rf sbf
nice -n 10 sysbench threads --thread-locks=4 --threads=2 --time=2 --histogram run > sb-threads-hist.txt 2>&1
echo "== sar"
nice -n 10 sar -b -S -o sar-bS.data 1 2 > sys-sar-b-S.txt 2>&1; sadf -j sar-bS.data -- -b -S > sys-sar-b-S.json
echo "== perf"
nice -n 10 perf stat -r 3 --pre sync -e task-clock,context-switches,page-faults -- sh -c 'seq 1 200000 | sort > /dev/null' > /dev/null 2> ps-pre-r3.txt
nice -n 10 /usr/bin/time -f '\t%E real,\t%U user,\t%S sys' -o tm-format-tabs.txt sh -c 'seq 1 300000 | sort -n > /dev/null'
echo done
nice -n 10 sar -v -o sar-v.data 1 2 > sys-sar-v.txt 2>&1; sadf -j sar-v.data -- -v > sys-sar-v.json

# The nineteenth set (files s19-tool-*, renamed from the names below).
# The `time` runs print time's own default and `-v` layouts with -f, and a
# JSON line of the same fields below them, for the expected values.
ct() { name=$1; shift; nice -n 10 cyclictest "$@" --json=ct-$name.json > ct-$name.txt 2>&1; }
ct h200-t2      -q -D 3 -i 800 -t 2 -h 200
ct t3-d250      -q -D 2 -i 1500 -d 250 -t 3
ct ns-loops-m   -q -l 2500 -i 600 -t 1 -N -m
sn() { name=$1; shift; nice -n 10 stress-ng "$@" --yaml sn-$name.yaml > sn-$name.txt 2>&1; }
sn cpu-fft-2      --cpu 2 --cpu-method fft -t 3 --metrics-brief
sn hdd-times      --hdd 1 --hdd-bytes 8M --temp-path . -t 2 --metrics --times
sn sem-futex-ts   --sem 1 --futex 1 -t 2 --metrics-brief --timestamp
J='{"e":%e,"U":%U,"S":%S,"M":%M,"F":%F,"R":%R,"w":%w,"c":%c,"x":%x,"P":"%P","I":%I,"O":%O,"X":%X,"D":%D,"W":%W}'
DEF='%Uuser %Ssystem %Eelapsed %PCPU (%Xavgtext+%Davgdata %Mmaxresident)k\n%Iinputs+%Ooutputs (%Fmajor+%Rminor)pagefaults %Wswaps'
VERB='\tCommand being timed: "%C"\n\tUser time (seconds): %U\n\tSystem time (seconds): %S\n\tPercent of CPU this job got: %P\n\tElapsed (wall clock) time (h:mm:ss or m:ss): %E\n\tAverage shared text size (kbytes): %X\n\tAverage unshared data size (kbytes): %D\n\tAverage stack size (kbytes): %p\n\tAverage total size (kbytes): %K\n\tMaximum resident set size (kbytes): %M\n\tAverage resident set size (kbytes): %t\n\tMajor (requiring I/O) page faults: %F\n\tMinor (reclaiming a frame) page faults: %R\n\tVoluntary context switches: %w\n\tInvoluntary context switches: %c\n\tSwaps: %W\n\tFile system inputs: %I\n\tFile system outputs: %O\n\tSocket messages sent: %s\n\tSocket messages received: %r\n\tSignals delivered: %k\n\tPage size (bytes): %Z\n\tExit status: %x'
nice -n 10 /usr/bin/time -f "$DEF"$'\n'"$J" -o tm-default-xz.raw sh -c 'head -c 8000000 /dev/urandom | xz -1 > /dev/null'
nice -n 10 /usr/bin/time -f "$VERB"$'\n'"$J" -o tm-verbose-md5.raw sh -c 'head -c 60000000 /dev/zero | md5sum > /dev/null; exit 4'
nice -n 10 /usr/bin/time -f '%e real %U user %S sys'$'\n'"$J" -o tm-bsd-tar.raw sh -c 'tar cf - /usr/share/doc 2>/dev/null | wc -c > /dev/null'
nice -n 10 perf stat -e task-clock,context-switches,cpu-migrations,page-faults record -o ps-rec.data -- sh -c 'seq 1 300000 | sort -n > /dev/null' > ps-record.txt 2>&1
perf stat report -i ps-rec.data > ps-report.txt 2>&1
perf script -i ps-rec.data > ps-script.txt 2>&1
nice -n 10 perf stat -r 5 -x, -e task-clock,context-switches,cpu-migrations,page-faults -o ps-csv-r5.txt -- sh -c 'seq 1 100000 | sort -R > /dev/null'
dd if=/dev/urandom of=fio.dat bs=1M count=48 status=none
nice -n 10 fio --name=randread4k --filename=fio.dat --rw=randread --bs=4k --size=48M --ioengine=psync --direct=1 --runtime=3 --time_based --output-format=normal,json+ --output=fio-randread.out
nice -n 10 fio --name=seqw --filename=fio.dat --rw=write --bs=64k --size=48M --ioengine=libaio --iodepth=4 --direct=1 --runtime=2 --time_based --new_group --name=randrw --filename=fio.dat --rw=randrw --rwmixread=70 --bs=8k --size=48M --ioengine=libaio --iodepth=8 --direct=1 --runtime=2 --time_based --output-format=normal,json --output=fio-two-groups.out
nice -n 10 hyperfine --warmup 2 --runs 8 --export-json hf-sort-vs-shuf.json 'seq 1 100000 | sort -n > /dev/null' 'seq 1 100000 | shuf > /dev/null' > hf-sort-vs-shuf.txt 2>&1
nice -n 10 hyperfine -N --runs 20 --export-json hf-gzip-N.json 'gzip -c /usr/bin/perf' > hf-gzip-N.txt 2>&1
nice -n 10 sar -u -r -o sar-ur.dat 1 3 > sar-ur.txt 2>&1
sadf -j sar-ur.dat -- -u -r > sar-ur.json
nice -n 10 sar -P ALL -d -o sar-pd.dat 1 2 > sar-pd.txt 2>&1
sadf -j sar-pd.dat -- -P ALL -d > sar-pd.json
