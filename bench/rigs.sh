#!/usr/bin/env bash
# Eight rigs uploading small cyclictest results at once, all for the same
# kernel and then each for a kernel of its own: uploads/s and latency
# (wrk with bench/rigs/upload.lua, one connection per rig).
#
#   DATABASE_URL=postgres://.../scratch bash bench/rigs.sh
#   DURATION=20s RIGS=8 bash bench/rigs.sh
#
# Uses DATABASE_URL when set (a scratch database: uploads are added to it),
# else a throwaway cluster like scripts/test.sh. One release server with
# the default pool.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. bench/lib.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
DURATION="${DURATION:-15s}"
RIGS="${RIGS:-8}"
ROUNDS="${ROUNDS:-2}"

bench_database
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --release --quiet
bin="$target/release/reclaimlab"
"$bin" migrate
token=$("$bin" token create --name rigs --scope upload 2>/dev/null)
port="$(free_port)"
log="$(mktemp)"
RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
wait_healthy "$base" "$log"

echo "| rigs | kernels | round | uploads/s | p50 | p99 | max | not 201 | server CPU per upload |"
echo "|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
    for kernels in same distinct; do
        before=$(cpu_ticks "$server")
        line=$(KERNELS=$kernels TOKEN=$token wrk -t"$RIGS" -c"$RIGS" -d"$DURATION" \
            -s bench/rigs/upload.lua "$base" | grep '^RIGS')
        after=$(cpu_ticks "$server")
        eval "${line#RIGS }"
        printf '| %s | %s | %s | %s | %s ms | %s ms | %s ms | %s | %s ms |\n' \
            "$RIGS" "$kernels" "$round" "$rate" "$p50_ms" "$p99_ms" "$max_ms" "$((not201 + errors))" \
            "$(cpu_ms_per "$before" "$after" "$uploads")"
    done
done
