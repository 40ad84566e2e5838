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
#
# WAITS=1 also samples pg_stat_activity every 20 ms during each case and
# prints, per case, what the server's backends were doing: the share of
# samples per state and wait event (`active/CPU` is running or runnable,
# `active/IO:WALSync` is its own commit's flush, `active/LWLock:WALWrite`
# a commit waiting for another backend's flush, `idle` waiting for the
# server's next statement). Uptime is printed before and after.
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
# Every 20 ms for the case's duration (and a little more), one line per
# client backend of this database but psql's own sessions:
# state/wait_event_type:wait_event.
sample_waits() {
    local out="$1" n
    n=$(( $(echo "$DURATION" | tr -dc 0-9) * 50 + 150 ))
    for _ in $(seq "$n"); do
        printf '%s\n' "SELECT state || '/' || coalesce(wait_event_type || ':' || wait_event, 'CPU')
            FROM pg_stat_activity WHERE datname = current_database()
             AND pid <> pg_backend_pid() AND backend_type = 'client backend'
             AND application_name <> 'psql';" "SELECT pg_sleep(0.02);"
    done | psql "$DATABASE_URL" -Atq 2>/dev/null | grep -v '^$' >"$out" || true
}
uptime
echo "| case | kernels | uploads/s | p50 | p99 | server CPU | PG CPU | WAL records | full pages | WAL bytes | flushes (per upload) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
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
            sampler=""
            if [ "${WAITS:-}" = 1 ]; then
                waits="$(mktemp)"
                sample_waits "$waits" &
                sampler=$!
            fi
            line=$(KERNELS=$kernels ROUNDS=1 DURATION="$DURATION" bash bench/rigs.sh | grep "^| [0-9]* | $kernels |")
            if [ -n "$sampler" ]; then wait "$sampler" || true; fi
            u1=$(q 'SELECT count(*) FROM uploads')
            wal=$(q "SELECT round(wal_records::numeric / $((u1 - u0)), 1) || ' | ' ||
                round(wal_fpi::numeric / $((u1 - u0)), 2) || ' | ' ||
                round(wal_bytes::numeric / $((u1 - u0))) || ' | ' ||
                round(wal_sync::numeric / $((u1 - u0)), 2) FROM pg_stat_wal")
            IFS='|' read -r _ _ _ _ rate p50 p99 _ _ scpu pgcpu _ <<<"$line"
            echo "| $name | $kernels |$rate|$p50|$p99|$scpu|$pgcpu| $wal |"
            if [ -n "$sampler" ]; then
                sort "$waits" | uniq -c | sort -rn | awk '{ n[NR] = $1; $1 = ""; w[NR] = substr($0, 2); t += n[NR] }
                    END { printf "  waits (%d samples of the backends):", t;
                          for (i = 1; i <= NR && i <= 8; i++) printf " %s %.1f%%;", w[i], 100 * n[i] / t; print "" }'
                rm -f "$waits"
            fi
        done
    done
done
uptime
