#!/usr/bin/env bash
# Soak: 8 clients uploading, 8 browsing, one simulation queue, for
# DURATION seconds; the server is killed (SIGKILL) and restarted once, and
# PostgreSQL is restarted once (immediate shutdown, i.e. crash recovery).
# Afterwards the database is checked against what the clients were told:
# every acknowledged upload stored exactly once and whole, every submitted
# simulation finished with exactly one result.
#
#   bash bench/soak.sh                    # 600 s, release build
#   bash bench/soak.sh --duration 120     # shorter run
#   bash bench/soak.sh --profile debug    # skip the release build
#   bash bench/soak.sh --sim-nice 0       # simulator at the service's priority
#
# Always runs its own PostgreSQL cluster (durability on: fsync,
# full_page_writes, synchronous_commit), since it restarts it; DATABASE_URL
# is ignored. Needs: cargo, python3, curl.
# Prints requests, errors by status, latency percentiles (all pages, and
# pages while a simulation runs), lost/partial/duplicate counts and the
# server's RSS over time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. scripts/pg.sh

duration=600
profile=release
sim_nice=19
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --profile) profile="$2"; shift 2 ;;
        --sim-nice) sim_nice="$2"; shift 2 ;;
        *) echo "usage: bench/soak.sh [--duration SECS] [--profile release|debug] [--sim-nice 0-19]" >&2; exit 2 ;;
    esac
done

pg_install
work="$(mktemp -d /tmp/reclaimlab-soak.XXXXXX)"; chmod 755 "$work"
data="$work/pg"
port=$(( 54000 + RANDOM % 1000 ))
server_pid_file="$work/server.pid"
cleanup() {
    if [ -f "$server_pid_file" ]; then kill "$(cat "$server_pid_file")" 2>/dev/null || true; fi
    pg_stop "$data"
    rm -rf "$(readlink -f "$data")" "$work"
}
trap cleanup EXIT
unset DATABASE_URL
pg_start "$data" "$port"
pg_data="$(readlink -f "$data")"
pg_user_name="$(pg_user)"
pg_ctl_bin="$(pg_bindir)/pg_ctl"

if [ "$profile" = release ]; then
    cargo build --release --quiet
    bin="${CARGO_TARGET_DIR:-target}/release/reclaimlab"
else
    cargo build --quiet
    bin="${CARGO_TARGET_DIR:-target}/debug/reclaimlab"
fi
"$bin" migrate
"$bin" demo >/dev/null
token_for() { "$bin" token create --name "soak-$1" --scope upload 2>/dev/null; }
tokens=""
for i in $(seq 0 8); do tokens="$tokens $(token_for "$i")"; done
http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

export SOAK_BIN="$bin" SOAK_DURATION="$duration" SOAK_TOKENS="$tokens" SOAK_PORT="$http_port"
export SOAK_SIM_NICE="$sim_nice"
export SOAK_PID_FILE="$server_pid_file" SOAK_LOG="$work/server.log" SOAK_PROFILE="$profile"
export SOAK_PG_RESTART="$(if [ "$(id -un)" = "$pg_user_name" ]; then echo ""; else echo "runuser -u $pg_user_name --"; fi) $pg_ctl_bin -D $pg_data -m immediate -w -t 120 restart -l $pg_data/server.log"
export DATABASE_URL

python3 - <<'PY'
import http.client, json, os, random, shlex, subprocess, threading, time, uuid

BIN = os.environ["SOAK_BIN"]
DURATION = float(os.environ["SOAK_DURATION"])
TOKENS = os.environ["SOAK_TOKENS"].split()
PORT = int(os.environ["SOAK_PORT"])
PID_FILE = os.environ["SOAK_PID_FILE"]
DB = os.environ["DATABASE_URL"]

lock = threading.Lock()
stats = {}          # status -> count
latencies = []      # (t, seconds, kind)
acked = {}          # idempotency key -> (upload_id, threads expected)
run_ids = []        # runs the uploads created, for the browsers
sim_ids = []
sim_running = []    # (t0, t1) intervals during which a simulation ran
rss = []            # (t, kB)
stop = threading.Event()
t_start = time.time()
server = {"proc": None}


def start_server():
    log = open(os.environ["SOAK_LOG"], "ab")
    p = subprocess.Popen(
        [BIN, "serve", "--bind", f"127.0.0.1:{PORT}", "--sim-workers", "1",
         "--sim-lease-secs", "5", "--db-max-connections", "20",
         "--sim-nice", os.environ["SOAK_SIM_NICE"]],
        stdout=log, stderr=log, env=dict(os.environ, RUST_LOG="warn"))
    server["proc"] = p
    with open(PID_FILE, "w") as f:
        f.write(str(p.pid))
    for _ in range(300):
        try:
            c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=2)
            c.request("GET", "/readyz")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.1)
    with open(os.environ["SOAK_LOG"], "rb") as f:
        print(f.read()[-2000:].decode(errors="replace"))
    raise SystemExit("server did not become ready")


def record(status, secs, kind):
    with lock:
        stats[status] = stats.get(status, 0) + 1
        latencies.append((time.time() - t_start, secs, kind))


def request(method, path, body=None, headers=None, kind="page", timeout=30):
    t = time.time()
    try:
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        record(r.status, time.time() - t, kind)
        return r.status, data
    except (OSError, http.client.HTTPException) as e:
        record("connection error", time.time() - t, kind)
        return None, str(e).encode()


def result_text(seed):
    rnd = random.Random(seed)
    lines = []
    for t in range(rnd.randint(2, 8)):
        mx = rnd.randint(10, 90000)
        lines.append(f"T:{t:2d} ({4000 + t:5d}) P:99 I:{1000 + 500 * t} C:{rnd.randint(1000, 900000):7d} "
                     f"Min:{1:7d} Act:{rnd.randint(1, 9):5d} Avg:{rnd.randint(1, 9):5d} Max:{mx:8d}")
    return "\n".join(lines) + "\n", len(lines)


def uploader(i):
    tok = TOKENS[i]
    n = 0
    while not stop.is_set():
        key = str(uuid.uuid4())
        text, nthreads = result_text(key)
        q = f"/api/v1/uploads?board=soak-{i}&kernel=6.12.0-soak&variant=soak-v{n % 3}"
        # A rig retries with the same key until the server answers.
        while not stop.is_set():
            status, data = request("POST", q, text.encode(), {
                "Authorization": f"Bearer {tok}", "Idempotency-Key": key,
                "Content-Type": "text/plain"}, kind="upload")
            if status in (200, 201):
                j = json.loads(data)
                with lock:
                    acked[key] = (j["upload_id"], nthreads)
                    run_ids.extend(r["id"] for r in j["runs"])
                break
            if status is not None and status < 500 and status != 429:
                print(f"upload refused {status}: {data[:200]!r}")
                break
            time.sleep(0.2)
        n += 1


def browser(i):
    rnd = random.Random(i)
    pages = ["/", "/boards", "/kernels", "/variants", "/heatmap", "/culprits",
             "/compare?c=variant%3Avanilla&c=variant%3Aisolate-writeback-cap-v1",
             "/simulations", "/api/v1/runs?limit=20", "/healthz"]
    while not stop.is_set():
        path = rnd.choice(pages)
        with lock:
            recent = run_ids[-200:]
        if recent and rnd.random() < 0.3:
            path = "/runs/%d" % rnd.choice(recent)
        request("GET", path)
        time.sleep(rnd.uniform(0.02, 0.1))


def simulations():
    tok = TOKENS[8]
    seed = 1
    active = None
    t_run = None
    while not stop.is_set():
        if active is None:
            body = json.dumps({"scenario": "toy-lock", "seed": seed, "duration": "60s",
                               "replications": 2, "force": True})
            status, data = request("POST", "/api/v1/simulations", body.encode(), {
                "Authorization": f"Bearer {tok}", "Content-Type": "application/json"}, kind="sim")
            if status == 202:
                active = json.loads(data)["id"]
                with lock:
                    sim_ids.append(active)
                seed += 1
        else:
            status, data = request("GET", f"/api/v1/simulations/{active}", kind="sim")
            if status == 200:
                st = json.loads(data)["status"]
                now = time.time() - t_start
                if st == "running" and t_run is None:
                    t_run = now
                if st in ("done", "failed", "cancelled"):
                    if t_run is not None:
                        sim_running.append((t_run, now))
                    t_run = None
                    active = None
        time.sleep(0.5)
    if t_run is not None:
        sim_running.append((t_run, time.time() - t_start))


def rss_sampler():
    while not stop.is_set():
        p = server["proc"]
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss.append((time.time() - t_start, int(line.split()[1])))
        except OSError:
            pass
        stop.wait(5)


def faults():
    # Kill the server at one third, restart PostgreSQL at two thirds.
    if stop.wait(DURATION / 3):
        return
    print(f"[{time.time() - t_start:6.1f} s] kill -9 the server and start it again")
    server["proc"].kill()
    server["proc"].wait()
    start_server()
    if stop.wait(DURATION / 3):
        return
    print(f"[{time.time() - t_start:6.1f} s] restart PostgreSQL (immediate shutdown)")
    subprocess.run(shlex.split(os.environ["SOAK_PG_RESTART"]), check=True,
                   stdout=subprocess.DEVNULL)
    print(f"[{time.time() - t_start:6.1f} s] PostgreSQL is back")


start_server()
threads = [threading.Thread(target=uploader, args=(i,)) for i in range(8)]
threads += [threading.Thread(target=browser, args=(i,)) for i in range(8)]
threads += [threading.Thread(target=simulations), threading.Thread(target=rss_sampler),
            threading.Thread(target=faults)]
for t in threads:
    t.start()
time.sleep(DURATION)
stop.set()
for t in threads:
    t.join()

# Let the queue finish what was submitted (the worker is still running).
deadline = time.time() + 300
pending = list(sim_ids)
while pending and time.time() < deadline:
    out = subprocess.run(["psql", DB, "-Atc",
                          "SELECT count(*) FROM simulations WHERE state IN ('queued','running')"],
                         capture_output=True, text=True).stdout.strip()
    if out == "0":
        break
    time.sleep(2)
server["proc"].terminate()
server["proc"].wait()


def sql(q):
    return subprocess.run(["psql", DB, "-Atc", q], capture_output=True, text=True,
                          check=True).stdout.strip()


keys = list(acked.keys())
stored = {}
for line in sql("""SELECT u.idempotency_key, count(DISTINCT r.id), count(t.run_id)
                   FROM uploads u LEFT JOIN runs r ON r.upload_id = u.id
                   LEFT JOIN latency_threads t ON t.run_id = r.id
                   GROUP BY u.id, u.idempotency_key""").splitlines():
    k, runs, thr = line.split("|")
    stored.setdefault(k, []).append((int(runs), int(thr)))
lost = [k for k in keys if k not in stored]
dup = [k for k, v in stored.items() if len(v) > 1]
partial = [k for k in keys if k in stored and stored[k][0] != (1, acked[k][1])]
sims = sql("""SELECT count(*), count(*) FILTER (WHERE state = 'done'),
                     count(*) FILTER (WHERE state = 'failed'),
                     (SELECT count(*) FROM simulations s WHERE state = 'done' AND
                        (SELECT count(*) FROM simulation_results r WHERE r.simulation_id = s.id) <> 1),
                     max(attempts)
              FROM simulations WHERE token_id IS NOT NULL""").split("|")

def pct(v, p):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))] * 1000

def during_sim(t):
    return any(a <= t <= b for a, b in sim_running)

pages = [s for t, s, k in latencies if k == "page"]
pages_sim = [s for t, s, k in latencies if k == "page" and during_sim(t)]
pages_idle = [s for t, s, k in latencies if k == "page" and not during_sim(t)]
ups = [s for t, s, k in latencies if k == "upload"]
print()
print(f"duration {DURATION:.0f} s ({os.environ['SOAK_PROFILE']} build), 8 uploaders, 8 browsers, 1 simulation queue (simulator nice {os.environ['SOAK_SIM_NICE']})")
print(f"requests: {len(latencies)}  (uploads {len(ups)}, pages {len(pages)})")
print("by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items(), key=lambda x: str(x[0]))))
print(f"uploads acknowledged: {len(keys)}; lost {len(lost)}, partial {len(partial)}, duplicate {len(dup)}")
print(f"upload latency ms: p50 {pct(ups, 50):.1f}  p99 {pct(ups, 99):.1f}")
print(f"page latency ms:   p50 {pct(pages, 50):.1f}  p99 {pct(pages, 99):.1f}")
print(f"  while a simulation ran ({len(pages_sim)} requests): p50 {pct(pages_sim, 50):.1f}  p99 {pct(pages_sim, 99):.1f}")
print(f"  otherwise ({len(pages_idle)} requests):             p50 {pct(pages_idle, 50):.1f}  p99 {pct(pages_idle, 99):.1f}")
print(f"simulations: submitted {sims[0]}, done {sims[1]}, failed {sims[2]}, done without exactly one result {sims[3]}, max attempts {sims[4]}")
print("server RSS (MiB) over time: " + "  ".join(f"{t:.0f}s:{kb / 1024:.0f}" for t, kb in rss[:: max(1, len(rss) // 12)]))
bad = len(lost) + len(partial) + len(dup) + int(sims[3])
raise SystemExit(1 if bad else 0)
PY
