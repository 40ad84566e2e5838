#!/usr/bin/env bash
# How every page and GET API grows with the number of runs: the sets of
# each size measured in turn, ROUNDS times, so whatever else the machine
# does falls on every size alike. One client; each URL warmed once, then
# wrk for DURATION. Prints, per URL, the median over the rounds of p50 and
# p99 at each size and the growth of both (largest size over smallest).
#
#   GROWTH_DBS="postgres://.../g3 postgres://.../g4 postgres://.../g5" \
#     ROUNDS=3 DURATION=2s BIN=target/release/reclaimlab bash bench/growth.sh
#
# The databases are filled by bench/scale.sh, the larger from copies of the
# smaller so all hold the same uploads:
#
#   DATABASE_URL=.../g3 SIZES=1000 ONLY=none bash bench/scale.sh
#   createdb -T g3 g4; DATABASE_URL=.../g4 SIZES=10000 ONLY=none bash bench/scale.sh
#   createdb -T g4 g5; DATABASE_URL=.../g5 SIZES=100000 ONLY=none bash bench/scale.sh
#
# ONLY="name ..." measures those URLs only (names as bench/scale.sh prints).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. bench/lib.sh
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
: "${GROWTH_DBS:?GROWTH_DBS names the filled databases, smallest first}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-2s}"
bench_binary
results="$(mktemp)"
static_dir=""
bench_cleanup_more() { rm -f "$results"; if [ -n "$static_dir" ]; then rm -rf "$static_dir"; fi; }
. bench/scale/urls.sh

for round in $(seq "$ROUNDS"); do
    for db in $GROWTH_DBS; do
        export DATABASE_URL="$db"
        bench_serve --db-max-connections 16 >/dev/null
        n=$(psql "$DATABASE_URL" -Atc 'SELECT count(*) FROM runs')
        slug=$(psql "$DATABASE_URL" -Atc "SELECT slug FROM snapshots WHERE removed_at IS NULL ORDER BY id LIMIT 1")
        curl -sf "$base/c/$slug" -o "$static_dir/same-size.html"
        echo ">> round $round, $n runs" >&2
        while read -r name path; do
            if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
            curl -s -o /dev/null "$base$path"
            out=$(wrk -t1 -c1 -d"$DURATION" --latency "$base$path")
            p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
            p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
            bad=$(echo "$out" | awk '/Non-2xx/ {print $4}')
            echo "$round $n $name $p50 $p99 ${bad:-0}" >>"$results"
        done < <(urls)
        kill "$server"; wait "$server" 2>/dev/null || true; server=""
        rm -rf "$static_dir"; static_dir=""
    done
done

python3 - "$results" <<'PY'
import re, statistics, sys

def ms(v):
    m = re.fullmatch(r"([0-9.]+)(us|ms|s)", v)
    return float(m[1]) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m[2]]

cells, sizes, names, bad = {}, [], [], set()
for line in open(sys.argv[1]):
    _, n, name, p50, p99, nbad = line.split()
    n = int(n)
    if n not in sizes: sizes.append(n)
    if name not in names: names.append(name)
    cells.setdefault((name, n), []).append((ms(p50), ms(p99)))
    if nbad != "0": bad.add(name)
sizes.sort()
print("| page | " + " | ".join(f"{n} runs" for n in sizes) + " | growth p50 | growth p99 |")
print("|---" * (len(sizes) + 3) + "|")
for name in names:
    med = [(statistics.median(a for a, _ in cells[(name, n)]),
            statistics.median(b for _, b in cells[(name, n)])) for n in sizes]
    g50 = med[-1][0] / med[0][0]
    g99 = med[-1][1] / med[0][1]
    mark = lambda g: f"**{g:.2f}x**" if g > 2 else f"{g:.2f}x"
    row = " | ".join(f"{a:.2f} / {b:.2f}" for a, b in med)
    print(f"| {name}{' (non-2xx)' if name in bad else ''} | {row} | {mark(g50)} | {mark(g99)} |")
PY
