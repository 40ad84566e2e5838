#!/usr/bin/env bash
# Parsing throughput of the binary users run, `reclaimlab parse FILE`,
# measured against `wc -l` on the same file in the same run.
#
# Generates (once, into WORK_DIR) a 200 MB wakeup_rt and a 200 MB irqsoff
# latency report with function-trace events and a 100 MB cyclictest `-h`
# histogram (bench/gen/signal_inputs.rs, through the formats crate's
# gen_signal_inputs example), then for each file runs `wc -l FILE` and
# `target/release/reclaimlab parse FILE > /dev/null` RUNS times, alternating,
# and reports the median CPU time (user + sys: `perf stat` task-clock, else
# /usr/bin/time) of each, their ratio, and the parser's peak RSS (maximum
# resident set size, /usr/bin/time). CPU time, not wall time: the machines this runs on are shared.
# It also checks that the planted latency and culprit come out right.
#
# Goals: parse CPU time <= 3x `wc -l` CPU time (ratio >= 0.33), peak RSS
# <= 64 MB.
#
# Usage: bench/parse-throughput.sh [WORK_DIR]
#   FTRACE_MB=200 HIST_MB=100 RUNS=5 override the sizes and repetitions;
#   BIN=path measures another reclaimlab binary (an older build, to compare).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${1:-$(mktemp -d -t reclaimlab-bench.XXXXXX)}"
FTRACE_MB="${FTRACE_MB:-200}"
HIST_MB="${HIST_MB:-100}"
RUNS="${RUNS:-5}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$WORK"

echo "== building reclaimlab and the generator (release)"
(cd "$ROOT" && nice -n 10 cargo build --release -q --bin reclaimlab &&
    nice -n 10 cargo build --release -q -p reclaimlab-formats --example gen_signal_inputs)
BIN="${BIN:-$TARGET/release/reclaimlab}"
GEN="$TARGET/release/examples/gen_signal_inputs"

WAKEUP_FILE="$WORK/wakeup_rt-${FTRACE_MB}M.trace"
IRQSOFF_FILE="$WORK/irqsoff-${FTRACE_MB}M.trace"
HIST_FILE="$WORK/cyclictest-${HIST_MB}M.hist"
[ -s "$WAKEUP_FILE" ] || "$GEN" wakeup_rt "$WAKEUP_FILE" "$FTRACE_MB"
[ -s "$IRQSOFF_FILE" ] || "$GEN" irqsoff "$IRQSOFF_FILE" "$FTRACE_MB"
[ -s "$HIST_FILE" ] || "$GEN" histogram "$HIST_FILE" "$HIST_MB"

# CPU seconds (user + sys) of one run of a command, output to /dev/null:
# `perf stat`'s task-clock (microsecond resolution; `time` counts 10 ms
# ticks, too coarse for `wc -l`), else `/usr/bin/time`.
cpu_seconds() {
    local out="$WORK/cpu.out"
    if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o "$out" "$@" >/dev/null 2>&1; then
        awk -F, '/task-clock/ { printf "%.4f\n", $1 / 1000 }' "$out"
    else
        /usr/bin/time -f "%U %S" -o "$out" "$@" >/dev/null
        awk '{ printf "%.3f\n", $1 + $2 }' "$out"
    fi
}

# Peak RSS in KiB of one run (maximum resident set size).
peak_rss_kb() {
    local out="$WORK/rss.out"
    /usr/bin/time -f "%M" -o "$out" "$@" >/dev/null
    cat "$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

report() {
    local name="$1" file="$2" check="$3"
    local mb wc_cpu=() p_cpu=() rss=0 r
    mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b / 1048576 }')
    cat "$file" >/dev/null # warm the page cache for both contenders
    for _ in $(seq "$RUNS"); do
        wc_cpu+=("$(cpu_seconds wc -l "$file")")
        p_cpu+=("$(cpu_seconds "$BIN" parse "$file")")
        r=$(peak_rss_kb "$BIN" parse "$file")
        [ "$r" -gt "$rss" ] && rss="$r"
    done
    local w p
    w=$(printf '%s\n' "${wc_cpu[@]}" | median)
    p=$(printf '%s\n' "${p_cpu[@]}" | median)
    local got
    got=$("$BIN" parse "$file" | python3 -c "$check")
    awk -v n="$name" -v mb="$mb" -v w="$w" -v p="$p" -v r="$rss" -v g="$got" 'BEGIN {
        ratio = (p > 0) ? w / p : 0
        ok = (ratio >= 0.33 && r <= 65536 && g ~ /^ok/) ? "PASS" : "FAIL"
        printf "%-10s %6.1f MB | wc -l CPU %.4f s | parse CPU %.4f s (%4.0f MB/s) | ratio %.2f (goal >= 0.33) | peak RSS %.1f MB (goal <= 64) | %s | %s\n",
            n, mb, w, p, (p > 0) ? mb / p : 0, ratio, r / 1024, g, ok
    }'
}

FTRACE_CHECK='
import json, sys
d = json.load(sys.stdin)
b = d["blocks"][0]
print("ok" if len(d["blocks"]) == 1 else "FAIL", "latency_us=%g culprit=%s longest_gap_us=%g events=%d json=%d B" % (
    b["latency_us"], b.get("culprit"), b["gaps"][0]["gap_us"], b["events_total"], len(json.dumps(d))))
'
HIST_CHECK='
import json, sys
d = json.load(sys.stdin)
h = d["blocks"][0]["histogram"]["per_thread"]
print("ok", "threads=%d max_us=%g buckets=%d json=%d B" % (
    len(h), max(t["max_us"] for t in h), sum(len(t["buckets"]) for t in h), len(json.dumps(d))))
'

echo "== $(nproc) CPUs, $(uname -r), runs per measurement: $RUNS (median), files in $WORK"
report wakeup_rt "$WAKEUP_FILE" "$FTRACE_CHECK"
report irqsoff "$IRQSOFF_FILE" "$FTRACE_CHECK"
report histogram "$HIST_FILE" "$HIST_CHECK"
