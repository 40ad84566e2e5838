#!/usr/bin/env bash
# Run every fuzz target for a short smoke time (default 10 s each).
# Usage: fuzz/smoke.sh [SECONDS]
# Needs a nightly toolchain and cargo-fuzz; prints a skip message otherwise.
#
# Quiet: one line per target (runs done, or the failure with the end of
# libFuzzer's output). The corpora grow in a temporary directory outside
# the checkout (FUZZ_CORPUS_DIR to keep them somewhere), seeded each time
# with the parser corpus.
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

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpora="${FUZZ_CORPUS_DIR:-$work/corpus}"
seed_dir="$work/seed"
mkdir -p "$seed_dir" "$corpora"
find ../crates/formats/tests/corpus -type f -exec cp {} "$seed_dir"/ \; 2>/dev/null || true
find ../crates/formats/tests/real/fio ../crates/formats/tests/real/sysbench -type f ! -name manifest.toml -exec cp {} "$seed_dir"/ \; 2>/dev/null || true

echo "fuzz smoke: building the targets..."
cargo +nightly fuzz build >"$work/build.log" 2>&1 || {
    tail -n 40 "$work/build.log"
    echo "fuzz smoke: build FAILED"
    exit 1
}

status=0
for target in $(cargo +nightly fuzz list); do
    mkdir -p "$corpora/$target"
    if [ "$target" = fuzz_recognize ]; then
        # The first byte picks the recognizer: seed each file once per
        # recognizer of the scan's list.
        n="$(grep -c '^    Recognizer::' ../crates/formats/src/detect.rs)"
        for f in "$seed_dir"/*; do
            for ((i = 0; i < n; i++)); do
                [ -e "$corpora/$target/$i-${f##*/}" ] ||
                    { printf "\\$(printf %03o "$i")"; cat "$f"; } >"$corpora/$target/$i-${f##*/}"
            done
        done
    else
        cp -n "$seed_dir"/* "$corpora/$target"/ 2>/dev/null || true
    fi
    log="$work/$target.log"
    if cargo +nightly fuzz run "$target" "$corpora/$target" -- \
        -max_total_time="$secs" -max_len=65536 >"$log" 2>&1; then
        runs="$(grep -o 'Done [0-9]* runs' "$log" | tail -n 1 || true)"
        echo "fuzz smoke: $target ok (${runs:-no run count}, ${secs}s)"
    else
        tail -n 40 "$log"
        echo "fuzz smoke: $target FAILED"
        status=1
    fi
done
exit "$status"
