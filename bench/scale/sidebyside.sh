#!/usr/bin/env bash
# Two release builds side by side on copies of the same data set: each URL
# is measured with wrk on build A, then on build B, with 1 and then 16
# clients, and for each cell the p50 / p99, the requests/s and the CPU per
# request of the server, of the PostgreSQL backends serving it and of wrk.
#
#   A_BIN=old/reclaimlab A_DB=postgres://.../scale_old \
#   B_BIN=target/release/reclaimlab B_DB=postgres://.../scale_new \
#   DURATION=5s bash bench/scale/sidebyside.sh [name path ...]
#
# Without names, the URLs are those of bench/scale.sh. Give each build its
# own database (a newer build migrates its database, which an older build
# then refuses), made with `createdb -T` from one data set so the data are
# the same. Latencies depend on what else the machine runs; the CPU per
# request much less.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
. bench/lib.sh
DURATION="${DURATION:-5s}"
CLIENTS="${CLIENTS:-1 16}"
pids=()
bench_cleanup_more() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
start() { # bin db -> "pid port"
    local port log
    port="$(free_port)"; log="$(mktemp)"
    DATABASE_URL="$2" RUST_LOG=warn "$1" serve --bind "127.0.0.1:$port" --db-max-connections 16 >"$log" 2>&1 &
    echo "$! $port $log"
}
read -r a_pid a_port a_log < <(start "$A_BIN" "$A_DB"); pids+=("$a_pid")
read -r b_pid b_port b_log < <(start "$B_BIN" "$B_DB"); pids+=("$b_pid")
wait_healthy "http://127.0.0.1:$a_port" "$a_log"
wait_healthy "http://127.0.0.1:$b_port" "$b_log"
# The PostgreSQL backends of a database's connections (same host as the
# benchmark: their CPU is read from /proc).
backends() { psql "$1" -Atc "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
measure() { # server-pid db base conns path
    local out n rps p50 p99 bad s0 s1 pg=0 p e wrk_cpu
    local -A g0
    curl -sf "$3$5" -o /dev/null || true      # a warm pool and cache
    for p in $(backends "$2"); do g0[$p]=$(ticks "$p"); done
    s0=$(ticks "$1")
    out=$( { /usr/bin/time -f 'wrk-cpu %U %S' wrk -t1 -c"$4" -d"$DURATION" --latency "$3$5"; } 2>&1)
    s1=$(ticks "$1")
    # Backends open at the start count from then; those opened during the
    # run count whole; one that ended during the run is lost (rare).
    for p in $(backends "$2"); do
        e=$(ticks "$p"); pg=$((pg + e - ${g0[$p]:-0}))
    done
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    bad=$(echo "$out" | awk '/Non-2xx/ {print $4}')
    wrk_cpu=$(echo "$out" | awk '$1 == "wrk-cpu" {printf "%.2f", ($2 + $3) * 1000 / '"${n:-1}"'}')
    echo "$p50 / $p99, $rps/s, CPU $(cpu_ms_per "$s0" "$s1" "${n:-0}") + $(cpu_ms_per 0 "$pg" "${n:-0}") + $wrk_cpu${bad:+, $bad non-2xx}"
}
if [ $# -gt 0 ]; then
    urls() { while [ $# -ge 2 ]; do echo "$1 $2"; shift 2; done; }
    list=$(urls "$@")
else
    q() { psql "$A_DB" -Atc "$1"; }
    hist=$(q "SELECT min(id) FROM runs WHERE block_kind = 'cyclictest'")
    trace=$(q "SELECT min(id) FROM runs WHERE block_kind = 'ftrace_latency'")
    table=$(q "SELECT min(id) FROM runs WHERE block_kind = 'table'")
    sim=$(q "SELECT min(id) FROM simulations WHERE state = 'done'")
    slug=$(q "SELECT slug FROM snapshots WHERE removed_at IS NULL ORDER BY id LIMIT 1")
    # The URLs of bench/scale.sh, with this data set's ids.
    list=$(sed -n '/^home \//,/^EOF$/p' bench/scale.sh | grep -v '^EOF$' | grep -v static_same_size |
        sed -e "s/\$hist/$hist/; s/\$trace/$trace/; s/\$table/$table/; s/\$sim/$sim/; s/\$slug/$slug/")
fi
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| page | clients | A: p50 / p99 ms, req/s, CPU ms per request (server + PostgreSQL + wrk) | B: the same |"
echo "|---|---|---|---|"
while read -r name path; do
    for c in $CLIENTS; do
        a=$(measure "$a_pid" "$A_DB" "http://127.0.0.1:$a_port" "$c" "$path")
        b=$(measure "$b_pid" "$B_DB" "http://127.0.0.1:$b_port" "$c" "$path")
        echo "| $name \`$path\` | $c | $a | $b |"
    done
done <<<"$list"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
