#!/usr/bin/env bash
# Every page and GET API at 10^3 .. 10^6 runs, on one release server.
#
#   bash bench/scale.sh                    # SIZES="1000 10000 100000" by default
#   SIZES="1000 10000 100000 1000000" DURATION=10s bash bench/scale.sh
#
# The data set is built the way users build it: bench/scale/gen.py uploads
# realistic rig results through the HTTP API (cyclictest histograms with
# summaries, irqsoff traces with stacks, mmtests tables of each variant
# against its parent in 20 five-link chains, `time -v`; 8 boards, 12
# kernels; 200 uploads, about 760 runs), one simulation runs through the job queue, permalinks are made
# with the API; then bench/scale/replicate.sql copies those uploads with
# every row hanging off them up to each size, and `reclaimlab
# rebuild-overview` recomputes the aggregates. Each URL is measured with
# wrk, one client and then 16, and the table is printed as markdown
# (docs/PERFORMANCE.md keeps the last one).
#
# Uses DATABASE_URL when set (give it a scratch database: it is filled),
# else a throwaway cluster like scripts/test.sh. A database that holds
# uploads already is grown from them (no new uploads): a copy of a 10^3
# set (`createdb -T`) becomes the 10^4 set, for bench/growth.sh. MEASURE_ONLY=1 measures a
# database filled before (by this script) as it is, without adding runs.
# TRICKLE=N uploads N small results a second while pages are measured
# (bench/scale/trickle.py; each a commit, which the page cache sees).
# BIN names a built binary instead of building this tree.
# ONLY="heatmap compare_chain ..." measures those URLs (names as printed)
# only. RECLAIMLAB_PAGE_CACHE=off serves without the page cache (every
# request computes its page: the path of a request after a commit).
# Each URL is asked for once before it is measured (WARMUP=0: not), so a
# kept page's p99 is that of the pages served, not of the one computation
# that filled the cache (wrk corrects for coordinated omission: one 30 ms
# request among thousands of 0.3 ms ones lifts its p99 to about 30 ms).
# CPU=1 also runs bench/scale-cpu.sh at each size: what each heavy page
# costs to compute (server and PostgreSQL CPU a request, cache off).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. bench/lib.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
SIZES="${SIZES:-1000 10000 100000}"
DURATION="${DURATION:-5s}"
UPLOADS="${UPLOADS:-200}"
# SIM_REQUEST: the JSON of the one simulation submitted (a scenario).

static_dir=""
bench_cleanup_more() { if [ -n "$static_dir" ]; then rm -rf "$static_dir"; fi; }
bench_database
export DATABASE_URL
bench_binary
MEASURE_ONLY="${MEASURE_ONLY:-}"
bench_serve --db-max-connections 16
token=$("$bin" token create --name bench --scope upload 2>/dev/null)

if [ -z "$MEASURE_ONLY" ] && [ "$(psql "$DATABASE_URL" -Atc 'SELECT count(*) FROM uploads')" = 0 ]; then
    echo ">> uploading $UPLOADS rig results through the API (4 clients)"
    python3 bench/scale/gen.py "$base" "$token" "$UPLOADS" 4
fi
if [ -z "$MEASURE_ONLY" ] || [ -z "$(psql "$DATABASE_URL" -Atc "SELECT 1 FROM simulations WHERE state = 'done' LIMIT 1")" ]; then
    echo ">> one simulation through the job queue"
    sim=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -d "${SIM_REQUEST:-{\"scenario\": \"v1-madvise-pte-walk\", \"replications\": 1}}" "$base/api/v1/simulations" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || sim=""
    for _ in $(seq 600); do
        [ -z "$sim" ] && break
        state=$(curl -sf "$base/api/v1/simulations/$sim" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
        case "$state" in done|failed|cancelled) echo "   simulation $sim: $state"; break ;; esac
        sleep 1
    done
fi
slug=$(psql "$DATABASE_URL" -Atc "SELECT slug FROM snapshots WHERE removed_at IS NULL ORDER BY id LIMIT 1")
if [ -z "$MEASURE_ONLY" ] || [ -z "$slug" ]; then
    slug=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
      -d '{"columns": [{"variant": "rig00-v1"}, {"variant": "rig00-v2"}, {"variant": "rig00-v3"}]}' \
      "$base/api/v1/comparisons" | python3 -c 'import json,sys; print(json.load(sys.stdin)["slug"])')
fi
curl -sf "$base/c/$slug" -o "$static_dir/same-size.html"
if [ -n "$MEASURE_ONLY" ]; then SIZES="current"; fi

. bench/scale/urls.sh
# p50 / p99, requests/s and the server's CPU (user + system) per request:
# the latencies depend on what else the machine runs, the CPU much less.
measure() {
    local conns="$1" path="$2" out p50 p99 rps bad n before after
    before=$(cpu_ticks "$server")
    out=$(wrk -t1 -c"$conns" -d"$DURATION" --latency "$base$path")
    after=$(cpu_ticks "$server")
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    bad=$(echo "$out" | awk '/Non-2xx/ {print $4}')
    echo "$p50 / $p99 ($rps/s, $(cpu_ms_per "$before" "$after" "${n:-0}") ms CPU${bad:+, $bad non-2xx})"
}
table="$(mktemp)"
if [ -n "${TRICKLE:-}" ]; then
    python3 bench/scale/trickle.py "$base" "$token" "$TRICKLE" &
    trickler=$!
    bench_cleanup_more() { kill "$trickler" 2>/dev/null || true; if [ -n "$static_dir" ]; then rm -rf "$static_dir"; fi; }
fi
for size in $SIZES; do
    if [ -z "$MEASURE_ONLY" ]; then
        echo ">> growing to $size runs"
        psql "$DATABASE_URL" -q -v target="$size" -f bench/scale/replicate.sql | tail -n 1
        "$bin" rebuild-overview
        psql "$DATABASE_URL" -qc 'VACUUM ANALYZE'
    fi
    n=$(psql "$DATABASE_URL" -Atc 'SELECT count(*) FROM runs')
    echo "| runs = $n | p50 / p99 (req/s, server CPU per request), 1 client | the same, 16 clients |" >>"$table"
    echo "|---|---|---|" >>"$table"
    while read -r name path; do
        if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
        if [ "${WARMUP:-1}" != 0 ]; then curl -s -o /dev/null "$base$path"; fi
        one=$(measure 1 "$path"); many=$(measure 16 "$path")
        printf '| %s `%s` | %s | %s |\n' "$name" "$path" "$one" "$many" | tee -a "$table"
    done < <(urls)
    echo >>"$table"
    if [ -n "${CPU:-}" ]; then
        echo "Computed (cache off), runs = $n:" >>"$table"
        BIN="$bin" bash bench/scale-cpu.sh | grep -v '^migrations' | tee -a "$table"
        echo >>"$table"
    fi
done
echo
cat "$table"
