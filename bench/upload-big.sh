#!/usr/bin/env bash
# Big uploads against a release server: peak RSS above idle, RSS after, and
# time against `psql \copy` of the same bytes into a one-column table.
#
# Generates a 200 MB irqsoff trace with function events (seed 003's layout,
# crates/formats/examples/gen_signal_inputs.rs) and a trace of
# GZ_DECODED_MB (250) gzipped, starts `reclaimlab serve` on a database of
# its own, and for each case: resets the server's peak RSS (clear_refs 5),
# uploads with curl, reads VmHWM, waits and reads VmRSS. Then 4 uploads of
# 200 MB traces at once (distinct content), peak RSS over the whole run
# sampled every 50 ms. Last, a permalink of two of the traces against a
# static file of the same bytes with wrk, when wrk is installed.
#
# Usage: bench/upload-big.sh [WORK_DIR]
#   DATABASE_URL (a role with CREATEDB), TRACE_MB=200, GZ_DECODED_MB=250,
#   PARALLEL=4 override the defaults.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${1:-$(mktemp -d -t reclaimlab-upload.XXXXXX)}"
TRACE_MB="${TRACE_MB:-200}"
GZ_DECODED_MB="${GZ_DECODED_MB:-250}"
PARALLEL="${PARALLEL:-4}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
: "${DATABASE_URL:?set DATABASE_URL to a role that may create databases}"
mkdir -p "$WORK"

echo "== building (release)"
(cd "$ROOT" && cargo build --release -q --bin reclaimlab &&
    cargo build --release -q -p reclaimlab-formats --example gen_signal_inputs)
BIN="$TARGET/release/reclaimlab"
GEN="$TARGET/release/examples/gen_signal_inputs"

TRACE="$WORK/irqsoff-${TRACE_MB}M.trace"
GZSRC="$WORK/irqsoff-${GZ_DECODED_MB}M.trace"
[ -s "$TRACE" ] || "$GEN" ftrace "$TRACE" "$TRACE_MB"
[ -s "$GZSRC" ] || "$GEN" ftrace "$GZSRC" "$GZ_DECODED_MB"
[ -s "$GZSRC.gz" ] || gzip -1 -k -c "$GZSRC" >"$GZSRC.gz"
for i in $(seq "$PARALLEL"); do
    # Distinct content per rig (the kernel in the header), same size.
    [ -s "$TRACE.$i" ] || sed "3s/6.12.0-bench/6.12.0-bench$i/" "$TRACE" >"$TRACE.$i"
done

DB="reclaimlab_upload_bench_$$"
ADMIN_URL="$DATABASE_URL"
BASE="${DATABASE_URL%/*}"
psql -q "$ADMIN_URL" -c "CREATE DATABASE $DB"
URL_DB="$BASE/$DB"
cleanup() {
    if [ -n "${SERVER:-}" ]; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
    psql -q "$ADMIN_URL" -c "DROP DATABASE IF EXISTS $DB" || true
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export DATABASE_URL="$URL_DB"
STATIC="$WORK/static"
mkdir -p "$STATIC"
RECLAIMLAB_SIM_WORKERS=0 RECLAIMLAB_MAX_UPLOAD_BYTES=$((512 << 20)) \
    RECLAIMLAB_MAX_DECODED_BYTES=$((256 << 20)) RECLAIMLAB_REQUEST_TIMEOUT=600 \
    RECLAIMLAB_PARSE_WAIT=600 RECLAIMLAB_STATIC_DIR="$STATIC" \
    "$BIN" serve --bind "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
    sleep 0.1
done
TOKEN=$("$BIN" token create --name bench --scope upload | grep -o 'rl_[A-Za-z0-9_]*' | head -1)

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$SERVER/status"; }
mb() { awk -v a="$1" 'BEGIN { printf "%.0f", a / 1024 }'; }

upload() { # FILE QUERY [curl args...]
    local f="$1" q="$2"
    shift 2
    curl -s -o "$WORK/last.json" -w '%{http_code} %{time_total}' "$@" \
        -H "authorization: Bearer $TOKEN" -H 'content-type: text/plain' \
        --data-binary "@$f" "http://127.0.0.1:$PORT/api/v1/uploads?$q"
}

# A small upload first, so that idle is a server that has served.
upload "$ROOT/tests/fixtures/cyclictest-s4-before.txt" "board=warm" >/dev/null
sleep 1
IDLE=$(kb VmRSS)
echo "server idle RSS: $(mb "$IDLE") MB"

copy_time() { # FILE -> seconds for \copy of the bytes into a one-column table
    psql -q "$URL_DB" -c "CREATE TABLE IF NOT EXISTS copy_bench (line text)"
    local s e
    s=$(date +%s.%N)
    psql -q "$URL_DB" -c "\\copy copy_bench FROM '$1' WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')"
    e=$(date +%s.%N)
    psql -q "$URL_DB" -c "DROP TABLE copy_bench"
    awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", b - a }'
}

one() { # NAME FILE QUERY [curl args]
    local name="$1" f="$2" q="$3"
    shift 3
    echo 5 >"/proc/$SERVER/clear_refs"
    local before res peak after
    before=$(kb VmRSS)
    res=$(upload "$f" "$q" "$@")
    peak=$(kb VmHWM)
    sleep 3
    after=$(kb VmRSS)
    echo "$name: HTTP ${res%% *} in ${res##* } s; peak $(mb $((peak - IDLE))) MB above idle, after $(mb $((after - IDLE))) MB above idle (before $(mb $((before - IDLE))))"
    head -c 300 "$WORK/last.json"
    echo
}

echo "== one ${TRACE_MB} MB trace"
one "trace ${TRACE_MB}MB" "$TRACE" "board=big&kernel=bench"
echo "psql \\copy of the same bytes: $(copy_time "$TRACE") s"

echo "== gzip, ${GZ_DECODED_MB} MB decoded ($(($(stat -c %s "$GZSRC.gz") >> 20)) MB sent)"
one "gzip ${GZ_DECODED_MB}MB" "$GZSRC.gz" "board=big-gz&kernel=bench" -H 'content-encoding: gzip'
echo "psql \\copy of the decoded bytes: $(copy_time "$GZSRC") s"

echo "== ${PARALLEL} traces of ${TRACE_MB} MB at once"
echo 5 >"/proc/$SERVER/clear_refs"
PEAK=0
(
    while kill -0 "$SERVER" 2>/dev/null; do
        awk '$1 == "VmRSS:" { print $2 }' "/proc/$SERVER/status"
        sleep 0.05
    done
) >"$WORK/rss.samples" &
SAMPLER=$!
s=$(date +%s.%N)
pids=()
for i in $(seq "$PARALLEL"); do
    upload "$TRACE.$i" "board=rig-$i&kernel=bench" >"$WORK/par.$i" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
e=$(date +%s.%N)
kill "$SAMPLER" 2>/dev/null || true
PEAK=$(kb VmHWM)
SAMPLED=$(sort -n "$WORK/rss.samples" | tail -1)
sleep 3
AFTER=$(kb VmRSS)
for i in $(seq "$PARALLEL"); do echo "rig $i: $(cat "$WORK/par.$i")"; done
echo "${PARALLEL} at once: $(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f", b - a }') s; peak RSS $(mb "$PEAK") MB (sampled $(mb "${SAMPLED:-0}") MB), $(mb $((PEAK - IDLE))) MB above idle; after $(mb $((AFTER - IDLE))) MB above idle"

echo "== stored JSON per upload (pg_column_size of uploads.document + runs.block)"
psql -q "$URL_DB" -At -c "SELECT u.id, u.metadata->>'board', pg_size_pretty(pg_column_size(u.document)::bigint + COALESCE((SELECT sum(pg_column_size(r.block)) FROM runs r WHERE r.upload_id = u.id), 0)) FROM uploads u ORDER BY u.id"

RUN=$(psql -q "$URL_DB" -At -c "SELECT r.id FROM runs r JOIN uploads u ON u.id = r.upload_id WHERE u.metadata->>'board' = 'big' LIMIT 1")
if [ -n "$RUN" ]; then
    echo "== run page of the ${TRACE_MB} MB trace"
    curl -s -o "$WORK/run.html" -w 'HTTP %{http_code}, %{size_download} bytes, %{time_total} s\n' "http://127.0.0.1:$PORT/runs/$RUN"
    if command -v wrk >/dev/null 2>&1; then
        wrk -t1 -c4 -d5s --latency "http://127.0.0.1:$PORT/runs/$RUN" | grep -E 'Requests/sec|50%|99%'
    fi
fi

if command -v wrk >/dev/null 2>&1; then
    echo "== permalink vs a static file of the same bytes (wrk, 1 thread, 16 connections, 10 s)"
    RUNS=$(psql -q "$URL_DB" -At -c "SELECT string_agg(id::text, ',') FROM (SELECT id FROM runs WHERE block_kind = 'ftrace_latency' ORDER BY id LIMIT 2) x")
    A=${RUNS%,*}
    B=${RUNS#*,}
    SLUG=$(curl -s -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
        -d "{\"columns\": [{\"label\": \"a\", \"runs\": [$A]}, {\"label\": \"b\", \"runs\": [$B]}]}" \
        "http://127.0.0.1:$PORT/api/v1/comparisons" | python3 -c 'import json,sys; print(json.load(sys.stdin)["slug"])')
    curl -s -o "$STATIC/permalink.html" "http://127.0.0.1:$PORT/c/$SLUG"
    echo "permalink /c/$SLUG: $(stat -c %s "$STATIC/permalink.html") bytes"
    for u in "/c/$SLUG" "/static/permalink.html"; do
        echo "-- $u"
        wrk -t1 -c16 -d10s --latency "http://127.0.0.1:$PORT$u" | grep -E 'Requests/sec|  50%|  99%'
    done
fi
