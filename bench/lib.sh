# Shared by the service benchmarks (bench/scale.sh, bench/rigs.sh): a
# database, a free port, a server that answers, and cleaning up after.
# Source it after `set -euo pipefail` from the repository root.
# shellcheck shell=bash

. scripts/pg.sh

started=""; server=""

# Stop the server and the throwaway cluster, if this script started them;
# then run `bench_cleanup_more` when the script defines it.
bench_cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    if [ -n "$started" ]; then pg_stop "$started"; rm -rf "$(readlink -f "$started")" "$started"; fi
    if [ -n "${log:-}" ]; then rm -f "$log"; fi
    if declare -F bench_cleanup_more >/dev/null; then bench_cleanup_more; fi
}
trap bench_cleanup EXIT

# A port the OS says is free.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# DATABASE_URL when set, else a throwaway cluster like scripts/test.sh's.
bench_database() {
    if [ -z "${DATABASE_URL:-}" ]; then
        pg_install
        local dir
        dir="$(mktemp -d /tmp/reclaimlab-bench-pg.XXXXXX)"; chmod 755 "$dir"
        started="$dir/data"
        pg_start "$started" "$(free_port)" fast
    fi
}

# Wait until the server at $1 answers /healthz; else print its log $2.
wait_healthy() {
    for _ in $(seq 100); do curl -sf "$1/healthz" >/dev/null && return 0; sleep 0.1; done
    curl -sf "$1/healthz" >/dev/null || { cat "$2"; exit 1; }
}

# CPU time (user + system, in clock ticks) the process $1 has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Milliseconds of CPU per request: ticks before $1, after $2, requests $3.
cpu_ms_per() { python3 -c "import os; print(round(($2 - $1) * 1000 / os.sysconf('SC_CLK_TCK') / max($3, 1), 2))"; }

# The binary to measure: BIN when given, else this tree's release build.
# Sets `bin`.
bench_binary() {
    if [ -n "${BIN:-}" ]; then
        bin="$BIN"
    else
        cargo build --release --quiet
        bin="${CARGO_TARGET_DIR:-$root/target}/release/reclaimlab"
    fi
}

# Migrate the database and start `$bin serve` with a copy of static/ as its
# static directory (so a benchmark can put a file beside it), extra
# arguments to `serve` given; wait until it answers. Sets `static_dir`,
# `log`, `server` and `base`. The caller removes `static_dir`.
bench_serve() {
    "$bin" migrate
    static_dir="$(mktemp -d)"
    cp -r static/. "$static_dir/"
    local port
    port="$(free_port)"
    log="$(mktemp)"
    RECLAIMLAB_STATIC_DIR="$static_dir" RUST_LOG=warn "$bin" serve --bind "127.0.0.1:$port" \
        "$@" >"$log" 2>&1 &
    server=$!
    base="http://127.0.0.1:$port"
    wait_healthy "$base" "$log"
}
