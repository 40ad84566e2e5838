#!/usr/bin/env bash
# Eight rigs uploading small cyclictest results at once, all for the same
# kernel and then each for a kernel of its own: uploads/s and latency
# (wrk with bench/rigs/upload.lua, one connection per rig).
#
#   DATABASE_URL=postgres://.../scratch bash bench/rigs.sh
#   DURATION=20s RIGS=8 bash bench/rigs.sh
#   BIN=/path/to/reclaimlab KERNELS=same ROUNDS=1 bash bench/rigs.sh
#
# Uses DATABASE_URL when set (a scratch database: uploads are added to it),
# else a throwaway cluster like scripts/test.sh (which runs with fsync,
# synchronous_commit and full_page_writes off: not a deployment's
# durability). One release server with the default pool; BIN names
# another build's binary instead of building this tree. KERNELS=same or
# distinct runs one of the two cases only.
#
# "PG CPU per upload" is the CPU time of the PostgreSQL backends serving
# the server's connections (read from /proc: the database must be on this
# machine), over the round, divided by its uploads.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. bench/lib.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
DURATION="${DURATION:-15s}"
RIGS="${RIGS:-8}"
ROUNDS="${ROUNDS:-2}"

bench_database
if [ -n "${BIN:-}" ]; then
    bin="$BIN"
else
    target="${CARGO_TARGET_DIR:-$root/target}"
    cargo build --release --quiet
    bin="$target/release/reclaimlab"
fi
"$bin" migrate
token=$("$bin" token create --name rigs --scope upload 2>/dev/null)
port="$(free_port)"
log="$(mktemp)"
RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
wait_healthy "$base" "$log"
# Two seconds of uploads first, so the pool holds the connections it uses.
KERNELS=same TOKEN=$token wrk -t"$RIGS" -c"$RIGS" -d2s -s bench/rigs/upload.lua "$base" >/dev/null

# CPU ticks of the backends serving this database's other sessions ("-"
# when they are not readable here).
pg_ticks() {
    local pids sum=0 p
    pids=$(psql "$DATABASE_URL" -Atc "SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND backend_type = 'client backend'")
    for p in $pids; do
        [ -r "/proc/$p/stat" ] || { echo -; return; }
        sum=$((sum + $(cpu_ticks "$p")))
    done
    echo "$sum"
}

echo "| rigs | kernels | round | uploads/s | p50 | p99 | max | not 201 | server CPU per upload | PG CPU per upload |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
    for kernels in ${KERNELS:-same distinct}; do
        before=$(cpu_ticks "$server"); pg_before=$(pg_ticks)
        line=$(KERNELS=$kernels TOKEN=$token wrk -t"$RIGS" -c"$RIGS" -d"$DURATION" \
            -s bench/rigs/upload.lua "$base" | grep '^RIGS')
        after=$(cpu_ticks "$server"); pg_after=$(pg_ticks)
        eval "${line#RIGS }"
        pg="-"
        if [ "$pg_before" != - ] && [ "$pg_after" != - ]; then
            pg="$(cpu_ms_per "$pg_before" "$pg_after" "$uploads") ms"
        fi
        printf '| %s | %s | %s | %s | %s ms | %s ms | %s ms | %s | %s ms | %s |\n' \
            "$RIGS" "$kernels" "$round" "$rate" "$p50_ms" "$p99_ms" "$max_ms" "$((not201 + errors))" \
            "$(cpu_ms_per "$before" "$after" "$uploads")" "$pg"
    done
done
