#!/usr/bin/env bash
# Run every check and test against a real PostgreSQL.
#
# Uses DATABASE_URL when set (the role needs CREATEDB: each test gets its own
# database); otherwise installs PostgreSQL if needed and starts a throwaway
# cluster in a temporary directory, removed at exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. scripts/pg.sh

started=""
cleanup() {
    if [ -n "$started" ]; then
        pg_stop "$started"
        rm -rf "$(readlink -f "$started")" "$started"
    fi
}
trap cleanup EXIT

if [ -z "${DATABASE_URL:-}" ]; then
    pg_install
    dir="$(mktemp -d /tmp/reclaimlab-test-pg.XXXXXX)"
    chmod 755 "$dir"
    # A port the OS says is free (a random one may be taken).
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo $(( 55000 + RANDOM % 5000 )))"
    started="$dir/data"
    pg_start "$started" "$port" fast
    echo ">> throwaway PostgreSQL on port $port"
fi

# Browser checks of the pages use Debian's chromium when it can be had.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo ">> installing chromium for the page checks..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; } ||
        echo ">> chromium unavailable: page checks will be skipped"
fi

# The test of the page benchmarks' data set runs bench/scale/gen.py
# (python3) and bench/scale/replicate.sql (psql), as bench/scale.sh does.
for need in python3:python3 psql:postgresql-client; do
    if ! command -v "${need%%:*}" >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo ">> installing Debian's ${need#*:} (bench data set test)..."
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need#*:}" >/dev/null 2>&1 ||
            { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need#*:}" >/dev/null; }
    fi
done

export CARGO_TERM_COLOR=never
echo ">> cargo fmt --check"
cargo fmt --all -- --check
echo ">> cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
# Every parser's fuzz target for a few seconds (cargo-fuzz needs nightly,
# which this machine kind ships; without it the smoke run says it skipped).
if cargo +nightly --version >/dev/null 2>&1 && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo ">> installing cargo-fuzz into ~/.cargo/bin (cargo install cargo-fuzz --locked)..."
    cargo install cargo-fuzz --locked --quiet || echo ">> cargo-fuzz could not be installed"
fi
echo ">> fuzz smoke"
bash fuzz/smoke.sh "${FUZZ_SECONDS:-5}"
echo ">> cargo test"
log="$(mktemp)"
cargo test --workspace 2>&1 | tee "$log"
# One closing line for the whole workspace (cargo prints one per binary,
# the last of which is often an empty doc-test run).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
rm -f "$log"
