#!/usr/bin/env bash
# Page latency with 100 000 runs loaded, and permalink vs static file
# throughput, measured with wrk on loopback in one run.
#
#   bash bench/web-load.sh            # needs: cargo, wrk (apt-get install wrk)
#
# Uses DATABASE_URL when set (the database is filled with synthetic runs:
# give it a scratch database!), else a throwaway cluster like scripts/test.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. scripts/pg.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
DURATION="${DURATION:-10s}"
CONNS="${CONNS:-8}"

started=""; server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    if [ -n "$started" ]; then pg_stop "$started"; rm -rf "$(readlink -f "$started")" "$started"; fi
}
trap cleanup EXIT
if [ -z "${DATABASE_URL:-}" ]; then
    pg_install
    dir="$(mktemp -d /tmp/reclaimlab-bench-pg.XXXXXX)"; chmod 755 "$dir"
    started="$dir/data"
    pg_start "$started" $(( 50000 + RANDOM % 4000 )) fast
fi
cargo build --release --quiet
bin=target/release/reclaimlab
"$bin" migrate
"$bin" demo >/dev/null
echo ">> loading 100 000 synthetic runs..."
psql "$DATABASE_URL" -q -f bench/load-100k.sql
echo ">> runs stored: $(psql "$DATABASE_URL" -Atc 'SELECT count(*) FROM runs')"
token=$("$bin" token create --name bench --scope upload 2>/dev/null)

static_dir="$(mktemp -d)"
cp -r static/. "$static_dir/"
port=$(( 40000 + RANDOM % 5000 ))
RECLAIMLAB_STATIC_DIR="$static_dir" RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" --sim-workers 0 \
    --db-max-connections 16 >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"

slug=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d '{"columns": [{"variant": "bench-v1", "board": "bench-board-1"}, {"variant": "bench-v2", "board": "bench-board-1"}]}' \
  "$base/api/v1/comparisons" | python3 -c 'import json,sys; print(json.load(sys.stdin)["slug"])')
# A static file of exactly the permalink page's size.
curl -sf "$base/c/$slug" -o "$static_dir/same-size.html"
echo ">> permalink page: $(wc -c < "$static_dir/same-size.html") bytes"

compare="/compare?c=variant%3Abench-v1%3Bboard%3Abench-board-1&c=variant%3Abench-v2%3Bboard%3Abench-board-1"
run() {
    local name="$1" path="$2"
    local out
    out=$(wrk -t2 -c"$CONNS" -d"$DURATION" --latency "$base$path")
    local rps p50 p99
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    local non2xx
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $4}')
    printf '%-22s %10s req/s   p50 %8s   p99 %8s   %s\n' "$name" "$rps" "$p50" "$p99" "${non2xx:+non-2xx: $non2xx}"
    eval "rps_$name=$rps"
}
echo ">> wrk -t2 -c$CONNS -d$DURATION, loopback, 2 cores shared by server and load"
run compare "$compare"
run heatmap "/heatmap"
run heatmap_svg "/heatmap.svg"
run culprits "/culprits"
run permalink "/c/$slug"
run static_same_size "/static/same-size.html"
python3 -c "print('>> permalink / static file throughput: %.2f' % ($rps_permalink / $rps_static_same_size))"
