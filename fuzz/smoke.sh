#!/usr/bin/env bash
# Run every fuzz target for a short smoke time (default 10 s each).
# Usage: fuzz/smoke.sh [SECONDS]
# Needs a nightly toolchain and cargo-fuzz; prints a skip message otherwise.
set -euo pipefail
secs="${1:-10}"
cd "$(dirname "$0")"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz smoke: SKIPPED (no nightly toolchain: rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz smoke: SKIPPED (cargo-fuzz not installed: cargo install cargo-fuzz)"
    exit 0
fi

# Seed each target's corpus with the parser corpus so runs start from real inputs.
seed_dir="$(mktemp -d)"
trap 'rm -rf "$seed_dir"' EXIT
for d in corpus pastes real; do
    find "../crates/formats/tests/$d" -type f ! -name manifest.toml -exec cp {} "$seed_dir"/ \; 2>/dev/null || true
done

status=0
for target in $(cargo +nightly fuzz list); do
    echo "== $target (${secs}s)"
    mkdir -p "corpus/$target"
    cp -n "$seed_dir"/* "corpus/$target"/ 2>/dev/null || true
    if ! cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$secs" -max_len=65536; then
        echo "fuzz smoke: $target FAILED"
        status=1
    fi
done
exit "$status"
