#!/usr/bin/env bash
# Record what `reclaimlab parse` prints for every corpus file, the seed
# threads and the generated benchmark inputs, one file per input (stdout,
# stderr and exit status), so that two builds can be compared byte for byte
# (`diff -r BEFORE AFTER`) after a change meant to alter speed only.
#
# Usage: bench/parse-outputs.sh BIN OUT_DIR [EXTRA_FILE...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$1"
OUT="$2"
shift 2
mkdir -p "$OUT"
n=0
while IFS= read -r -d '' f; do
    rel="${f#"$ROOT"/}"
    rel="${rel#/}"
    dest="$OUT/$(printf '%s' "$rel" | tr '/' '%')"
    set +e
    "$BIN" parse "$f" >"$dest.out" 2>"$dest.err"
    echo "exit $?" >>"$dest.err"
    set -e
    n=$((n + 1))
done < <(
    find "$ROOT/crates/formats/tests" "$ROOT/tests" -type f -not -name '*.rs' -print0 2>/dev/null
    [ -d /work/shared/seeds ] && find /work/shared/seeds -type f -print0
    for x in "$@"; do printf '%s\0' "$x"; done
)
echo "$n inputs recorded in $OUT"
