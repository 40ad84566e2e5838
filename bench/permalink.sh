#!/usr/bin/env bash
# The permalink /c/{slug} against a static file of the same bytes, served
# by the same release server (ServeDir under /static), in the same run:
# requests/s, p50 / p99 and the server's CPU per request, the two URLs in
# turn, ROUNDS times, with 1 and 16 connections.
#
#   bash bench/permalink.sh                         # throwaway cluster
#   DATABASE_URL=postgres://.../scale SLUG=abcd1234 bash bench/permalink.sh
#   BIN=target/release/reclaimlab DURATION=5s ROUNDS=3 bash bench/permalink.sh
#
# Uses DATABASE_URL when set, and the permalink SLUG when given (else the
# first live one, else one made from two uploads through the API); without
# DATABASE_URL, a throwaway cluster like scripts/test.sh. The static copy
# is the permalink's HTML as the server first answered it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. bench/lib.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
DURATION="${DURATION:-5s}"
ROUNDS="${ROUNDS:-3}"
CONNS="${CONNS:-1 16}"

static_dir=""
bench_cleanup_more() { if [ -n "$static_dir" ]; then rm -rf "$static_dir"; fi; }
bench_database
bench_binary
bench_serve

slug="${SLUG:-$(psql "$DATABASE_URL" -Atc "SELECT slug FROM snapshots WHERE removed_at IS NULL ORDER BY id LIMIT 1")}"
if [ -z "$slug" ]; then
    token=$("$bin" token create --name permalink-bench --scope upload 2>/dev/null)
    for v in before after; do
        body=""
        for t in 0 1 2 3; do
            body+="T: $t ( $((4000 + t))) P:99 I:1000 C: 100000 Min:      1 Act:    3 Avg:    4 Max:   $((90 + t * 7 + ${#v}))"$'\n'
        done
        curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: text/plain' \
            --data-binary "$body" "$base/api/v1/uploads?board=permabench&kernel=6.13.0&variant=permabench-$v"
    done
    slug=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -d '{"columns": [{"variant": "permabench-before"}, {"variant": "permabench-after"}]}' \
        "$base/api/v1/comparisons" | python3 -c 'import json,sys; print(json.load(sys.stdin)["slug"])')
fi
curl -sf "$base/c/$slug" -o "$static_dir/same-size.html"
echo "permalink /c/$slug: $(stat -c %s "$static_dir/same-size.html") bytes; $(uptime)"

# wrk's own CPU (user + system seconds over the run's seconds) says
# whether the client, one thread, was the bottleneck: near 1.0 it was.
measure() {
    local conns="$1" path="$2" out n before after t
    before=$(cpu_ticks "$server")
    t="$(mktemp)"
    out=$( { TIMEFORMAT='%R %U %S'; time wrk -t1 -c"$conns" -d"$DURATION" --latency "$base$path"; } 2>"$t")
    after=$(cpu_ticks "$server")
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    printf '%s | %s | %s | %s | %s ms | %s' \
        "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
        "$(echo "$out" | awk '$1 == "50%" {print $2}')" \
        "$(echo "$out" | awk '$1 == "99%" {print $2}')" \
        "$(echo "$out" | awk '/Non-2xx/ {print $4}')" \
        "$(cpu_ms_per "$before" "$after" "${n:-0}")" \
        "$(awk 'END { printf "%.2f", ($2 + $3) / $1 }' "$t")"
    rm -f "$t"
}
echo "| round | connections | URL | requests/s | p50 | p99 | non-2xx | server CPU per request | wrk CPU |"
echo "|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
    for c in $CONNS; do
        for u in "/c/$slug" /static/same-size.html; do
            echo "| $round | $c | $u | $(measure "$c" "$u") |"
        done
    done
done
uptime
