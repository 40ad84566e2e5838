#!/usr/bin/env bash
# Start reclaimlab with demo data on http://127.0.0.1:8080.
#
# Uses DATABASE_URL when set; otherwise installs PostgreSQL if needed and
# starts a private cluster in .reclaimlab/pg (port 54329), reused on every run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. scripts/pg.sh

# `bash scripts/run.sh stop` stops the private cluster this script started.
if [ "${1:-}" = "stop" ]; then
    if [ -d "$root/.reclaimlab/pg" ] || [ -L "$root/.reclaimlab/pg" ]; then
        pg_stop "$root/.reclaimlab/pg"
        echo ">> stopped the private PostgreSQL in .reclaimlab/pg"
    else
        echo ">> no private PostgreSQL in .reclaimlab/pg"
    fi
    exit 0
fi

bind="${RECLAIMLAB_BIND:-127.0.0.1:8080}"
if [ -z "${DATABASE_URL:-}" ]; then
    pg_install
    mkdir -p .reclaimlab
    pg_start "$root/.reclaimlab/pg" "${RECLAIMLAB_PG_PORT:-54329}"
    echo ">> database: $DATABASE_URL (private cluster in .reclaimlab/pg)"
else
    echo ">> database: DATABASE_URL from the environment"
fi

echo ">> building (first build takes a few minutes)..."
cargo build --release --quiet
bin="$root/target/release/reclaimlab"
"$bin" migrate

mkdir -p .reclaimlab
if [ ! -s .reclaimlab/upload-token ]; then
    umask 077
    "$bin" token create --name demo-rig --scope upload > .reclaimlab/upload-token
    echo ">> created an upload token for this checkout (kept in .reclaimlab/upload-token):"
    cat .reclaimlab/upload-token
else
    echo ">> upload token: .reclaimlab/upload-token"
fi

echo ">> serving on http://$bind (Ctrl-C to stop; 'bash scripts/run.sh stop' stops PostgreSQL too)"
exec "$bin" serve --demo --bind "$bind"
