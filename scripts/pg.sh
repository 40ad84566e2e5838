#!/usr/bin/env bash
# PostgreSQL helpers for scripts/run.sh and scripts/test.sh (sourced).
#
# - pg_install: installs Debian's postgresql server package when no server
#   binaries exist (and tells you), without creating the system cluster.
# - pg_start DIR PORT: initialises (once) and starts a private cluster in DIR
#   listening on 127.0.0.1:PORT, run as the unprivileged `postgres` user
#   (initdb and postgres refuse to run as root). Never touches a system
#   cluster. Exports DATABASE_URL.
# - pg_stop DIR: stops it.

pg_bindir() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
        fi
    done | sort -V | tail -n 1
}

pg_install() {
    if [ -n "$(pg_bindir)" ]; then
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "PostgreSQL server binaries are missing; install the 'postgresql' package or set DATABASE_URL." >&2
        return 1
    fi
    echo ">> PostgreSQL server not found: installing Debian's 'postgresql' package (apt-get)..."
    mkdir -p /etc/postgresql-common
    # Do not create or start the distribution's own cluster: we run a private one.
    if [ ! -f /etc/postgresql-common/createcluster.conf ]; then
        echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    [ -n "$(pg_bindir)" ] || { echo "installing postgresql failed" >&2; return 1; }
    echo ">> PostgreSQL installed."
}

# The user that runs the server: never root.
pg_user() {
    if [ "$(id -u)" != 0 ]; then
        id -un
        return
    fi
    if ! id postgres >/dev/null 2>&1; then
        useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
    fi
    echo postgres
}

pg_as() {
    local user="$1"
    shift
    if [ "$(id -un)" = "$user" ]; then
        "$@"
    else
        runuser -u "$user" -- "$@"
    fi
}

# Can USER reach and write DIR's parent?
pg_dir_usable() {
    local user="$1" dir="$2"
    mkdir -p "$dir" 2>/dev/null || return 1
    chown "$user" "$dir" 2>/dev/null || true
    pg_as "$user" test -w "$dir" 2>/dev/null
}

# pg_start DIR PORT [fast]
pg_start() {
    local dir="$1" port="$2" mode="${3:-}"
    local bin user
    bin="$(pg_bindir)"
    user="$(pg_user)"
    local data="$dir"
    if ! pg_dir_usable "$user" "$data"; then
        # The checkout sits below a directory the server user cannot enter:
        # keep the cluster in /var/tmp and link it from the checkout.
        local alt="/var/tmp/reclaimlab-pg-$(echo "$dir" | sha256sum | cut -c1-12)"
        mkdir -p "$alt"
        chown "$user" "$alt"
        rm -rf "$data"
        ln -sfn "$alt" "$data"
        data="$alt"
    fi
    if [ ! -f "$data/PG_VERSION" ]; then
        echo ">> initialising a private PostgreSQL cluster in $dir"
        pg_as "$user" "$bin/initdb" -D "$data" -U reclaimlab --auth-local=trust --auth-host=trust \
            -E UTF8 --locale=C >/dev/null
    fi
    local opts="-c listen_addresses=127.0.0.1 -c port=$port -k $data -c max_connections=200"
    if [ "$mode" = fast ]; then
        # Throwaway test clusters only: durability off for speed.
        opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    if ! pg_as "$user" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
        pg_as "$user" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -o "$opts" -w -t 60 start >/dev/null ||
            { echo "PostgreSQL did not start; see $data/server.log" >&2; cat "$data/server.log" >&2; return 1; }
    fi
    pg_as "$user" "$bin/psql" -h "$data" -p "$port" -U reclaimlab -d postgres -Atqc \
        "SELECT 1 FROM pg_database WHERE datname = 'reclaimlab'" | grep -q 1 ||
        pg_as "$user" "$bin/createdb" -h "$data" -p "$port" -U reclaimlab reclaimlab
    export DATABASE_URL="postgres://reclaimlab@127.0.0.1:$port/reclaimlab"
}

pg_stop() {
    local dir="$1"
    local bin user data
    bin="$(pg_bindir)"
    user="$(pg_user)"
    data="$(readlink -f "$dir")"
    [ -f "$data/PG_VERSION" ] || return 0
    pg_as "$user" "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
}
