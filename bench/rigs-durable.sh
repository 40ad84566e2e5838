#!/usr/bin/env bash
# bench/rigs.sh on a durable cluster (fsync, synchronous_commit and
# full_page_writes on), under several WAL settings in turn, with what
# PostgreSQL wrote per upload (pg_stat_wal: records, full-page images,
# bytes, flushes).
#
#   . scripts/pg.sh; pg_start /var/tmp/durpg 55440      # durable: no `fast`
#   BIN=target/release/reclaimlab REPEAT=2 bash bench/rigs-durable.sh
#
# DATABASE_URL must name a superuser's database on a durable cluster of
# this machine (it is filled with uploads; the settings are changed with
# ALTER SYSTEM and reset at the end). Each case starts after a CHECKPOINT,
# so each pays the same full-page images.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
: "${DATABASE_URL:?the database of a durable cluster}"
DURATION="${DURATION:-10s}"
REPEAT="${REPEAT:-1}"
q() { psql "$DATABASE_URL" -Atqc "$1"; }
[ "$(q 'SHOW fsync')" = on ] && [ "$(q 'SHOW synchronous_commit')" = on ] ||
    { echo "not a durable cluster (fsync / synchronous_commit off)" >&2; exit 1; }
# name:setting=value,...
CASES="${CASES:-defaults: group:commit_delay=100,commit_siblings=4 lz4:wal_compression=lz4 group+lz4:commit_delay=100,commit_siblings=4,wal_compression=lz4}"
reset() { for s in commit_delay commit_siblings wal_compression; do q "ALTER SYSTEM RESET $s"; done; q 'SELECT pg_reload_conf()' >/dev/null; }
trap reset EXIT
echo "| case | kernels | uploads/s | p50 | p99 | WAL records | full pages | WAL bytes | flushes (per upload) |"
echo "|---|---|---|---|---|---|---|---|---|"
for rep in $(seq "$REPEAT"); do
    for c in $CASES; do
        name="${c%%:*}"; sets="${c#*:}"
        reset
        IFS=, read -ra kv <<<"$sets"
        for s in "${kv[@]}"; do [ -n "$s" ] && q "ALTER SYSTEM SET ${s%%=*} = '${s#*=}'"; done
        q 'SELECT pg_reload_conf()' >/dev/null; sleep 0.5
        for kernels in same distinct; do
            q 'CHECKPOINT'; q "SELECT pg_stat_reset_shared('wal')" >/dev/null
            u0=$(q 'SELECT count(*) FROM uploads')
            line=$(KERNELS=$kernels ROUNDS=1 DURATION="$DURATION" bash bench/rigs.sh | grep "^| [0-9]* | $kernels |")
            u1=$(q 'SELECT count(*) FROM uploads')
            wal=$(q "SELECT round(wal_records::numeric / $((u1 - u0)), 1) || ' | ' ||
                round(wal_fpi::numeric / $((u1 - u0)), 2) || ' | ' ||
                round(wal_bytes::numeric / $((u1 - u0))) || ' | ' ||
                round(wal_sync::numeric / $((u1 - u0)), 2) FROM pg_stat_wal")
            IFS='|' read -r _ _ _ _ rate p50 p99 _ <<<"$line"
            echo "| $name | $kernels |$rate|$p50|$p99| $wal |"
        done
    done
done
