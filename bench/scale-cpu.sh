#!/usr/bin/env bash
# The CPU a page costs when it is computed: the server's and PostgreSQL's
# (the backends of the server's connections), per request, with the page
# cache off. One client asks for each URL for DURATION; the load of the
# machine changes the latency much more than these figures.
#
#   DATABASE_URL=.../scale_m BIN=target/release/reclaimlab bash bench/scale-cpu.sh
#   ONLY="compare_chain heatmap_svg" ... (names as bench/scale.sh prints them)
#
# Measures a database filled by bench/scale.sh as it is (it is migrated
# first). Prints: name, requests, p50 ms, server CPU ms, PostgreSQL CPU ms
# (both per request).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. bench/lib.sh
: "${DATABASE_URL:?DATABASE_URL names the filled database}"
DURATION="${DURATION:-4s}"
bin="${BIN:-${CARGO_TARGET_DIR:-$root/target}/release/reclaimlab}"
"$bin" migrate
port="$(free_port)"
log="$(mktemp)"
RECLAIMLAB_PAGE_CACHE=off RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" \
    --db-max-connections 16 >"$log" 2>&1 &
server=$!
bench_cleanup_more() { rm -f "$log"; }
base="http://127.0.0.1:$port"
wait_healthy "$base" "$log"

q() { psql "$DATABASE_URL" -Atc "$1"; }
hist=$(q "SELECT min(id) FROM runs WHERE block_kind = 'cyclictest'")
sim=$(q "SELECT min(id) FROM simulations WHERE state = 'done'")
urls() {
    cat <<EOF
home /
variant /variants/rig03-v5
compare_chain /compare?chain=rig03-v5
compare_boards /compare?c=board%3Arpi-5%3Bkernel%3A6.10.14&c=board%3Aarm64-ampere-80%3Bkernel%3A6.10.14
heatmap /heatmap
heatmap_svg /heatmap.svg
history /history?board=rpi-5
history_svg /history.svg?board=rpi-5
simulation /simulations/$sim
run_histogram /runs/$hist
EOF
}
# The backends of this database but the one asking (their pids).
backends() {
    q "SELECT pid FROM pg_stat_activity WHERE datname = current_database()
       AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
}
# Ticks (user + system) of each pid given, as "pid ticks" lines.
ticks_of() {
    local p
    for p in "$@"; do
        [ -r "/proc/$p/stat" ] && echo "$p $(cpu_ticks "$p")"
    done
    return 0
}
printf '| page | requests | p50 ms | server CPU ms | PostgreSQL CPU ms |\n|---|---|---|---|---|\n'
while read -r name path; do
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
    # Warm: the statements prepared on every connection, the pages read.
    wrk -t1 -c4 -d1s "$base$path" >/dev/null
    before_pg=$(ticks_of $(backends))
    before=$(cpu_ticks "$server")
    out=$(wrk -t1 -c1 -d"$DURATION" --latency "$base$path")
    after=$(cpu_ticks "$server")
    after_pg=$(ticks_of $(backends))
    n=$(echo "$out" | awk '/requests in/ {print $1}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    # A backend started during the run counts from zero.
    pg=$(python3 - "$before_pg" "$after_pg" <<'PY'
import sys
b = dict(l.split() for l in sys.argv[1].splitlines() if l.strip())
a = dict(l.split() for l in sys.argv[2].splitlines() if l.strip())
print(sum(int(t) - int(b.get(p, 0)) for p, t in a.items()))
PY
)
    printf '| %s `%s` | %s | %s | %s | %s |\n' "$name" "$path" "$n" "$p50" \
        "$(cpu_ms_per "$before" "$after" "${n:-0}")" "$(cpu_ms_per 0 "$pg" "${n:-0}")"
done < <(urls)
