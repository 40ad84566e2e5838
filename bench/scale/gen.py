#!/usr/bin/env python3
"""Fill a reclaimlab server with realistic uploads through its HTTP API.

Each upload is what a test rig posts after one run, in the layouts the real
tools print:

- `cyclictest -q -m -h 400 -t 4`: a histogram (dense near the mode, a sparse
  tail, overflows when the worst exceeds the histogram) with its summary
  footers, and the four `T:` lines;
- an `irqsoff` latency report (seed 003's layout: header, latency line,
  task, started/ended at, a short function trace, `<stack trace>`), its
  culprit drawn from reclaim's known IRQ-off holders;
- an mmtests compare table (`Amean`/`Stddev` rows at several thread
  counts) of the variant against its parent;
- GNU `time -v` of the workload.

Boards, kernels and variants are spread like a real fleet: CHAINS patch
series of five links each (`parent` is the previous link, so
`/compare?chain=` has five columns), each tested on its own base kernel
(of KERNELS) on two of the BOARDS; 200 uploads hold every series once. The numbers
depend on (board, kernel, link) with run-to-run noise, so comparisons have
real differences to find.

Usage: gen.py URL TOKEN UPLOADS [CLIENTS]
Prints one line: uploads, runs, seconds, uploads/s. Deterministic for a
given UPLOADS (seeded by upload number).
"""

import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

BOARDS = ["licheepi-4a", "visionfive-2", "rpi-5", "rock-5b", "x86-skylake-8",
          "x86-epyc-64", "arm64-ampere-80", "qemu-riscv64"]
KERNELS = ["6.6.58", "6.8.12", "6.10.14", "6.11.11", "6.12.0", "6.12.1",
           "6.12.5", "6.13-rc1", "6.13-rc3", "6.13-rc7", "6.13.0", "6.14-rc1"]
CHAINS = 20
LINKS = 5
CULPRITS = [
    ("isolate_lru_folios", ["shrink_inactive_list", "shrink_lruvec", "shrink_node",
                            "balance_pgdat", "kswapd", "kthread", "ret_from_fork"]),
    ("move_folios_to_lru", ["shrink_inactive_list", "shrink_lruvec", "shrink_node",
                            "do_try_to_free_pages", "try_to_free_pages",
                            "__alloc_pages_slowpath", "__alloc_pages_noprof"]),
    ("folio_batch_move_lru", ["lru_add_drain_cpu", "lru_add_drain", "exit_mmap",
                              "__mmput", "do_exit", "do_group_exit"]),
    ("madvise_cold_or_pageout_pte_range", ["walk_pgd_range", "__walk_page_range",
                                           "walk_page_range", "madvise_pageout",
                                           "do_madvise", "__arm64_sys_madvise"]),
    ("zap_pte_range", ["unmap_page_range", "unmap_vmas", "unmap_region",
                       "do_vmi_align_munmap", "__vm_munmap", "__x64_sys_munmap"]),
]


def variant(chain, link):
    return f"rig{chain:02d}-v{link}"


def cyclictest(rng, worst_scale):
    threads = 4
    buckets = 400
    cycles = 100000
    hist = [[0] * buckets for _ in range(threads)]
    mins, avgs, maxs, overflows, totals = [], [], [], [], []
    for t in range(threads):
        mode = rng.randint(3, 9)
        worst = int(rng.lognormvariate(0, 0.6) * worst_scale) + mode + 5
        n_over = 0
        total = 0
        s = 0
        for _ in range(2000):  # samples drawn in groups of 50 cycles
            v = max(1, int(rng.gauss(mode, 1.5)))
            if rng.random() < 0.01:
                v = rng.randint(mode, worst)
            if v >= buckets:
                n_over += 50
            else:
                hist[t][v] += 50
            total += 50
            s += v * 50
        if worst >= buckets:
            n_over += 1
        else:
            hist[t][worst] += 1
        total += 1
        mins.append(1)
        avgs.append(max(1, s // total))
        maxs.append(worst)
        overflows.append(n_over)
        totals.append(total)
    out = ["# /dev/cpu_dma_latency set to 0us", "# Histogram"]
    last = max(i for t in range(threads) for i in range(buckets) if hist[t][i])
    for i in range(last + 1):
        out.append(f"{i:06d} " + "\t".join(f"{hist[t][i]:06d}" for t in range(threads)))
    out.append("# Total: " + " ".join(f"{x:09d}" for x in totals))
    out.append("# Min Latencies: " + " ".join(f"{x:05d}" for x in mins))
    out.append("# Avg Latencies: " + " ".join(f"{x:05d}" for x in avgs))
    out.append("# Max Latencies: " + " ".join(f"{x:05d}" for x in maxs))
    out.append("# Histogram Overflows: " + " ".join(f"{x:05d}" for x in overflows))
    out.append("# Histogram Overflow at cycle number:")
    for t in range(threads):
        cyc = " ".join(f"{rng.randint(1, cycles):05d}" for _ in range(min(overflows[t], 3)))
        out.append(f"# Thread {t}: {cyc}".rstrip())
    for t in range(threads):
        out.append(f"T: {t} ({1200 + t:5d}) P:99 I:1000 C: {cycles:6d} Min: {mins[t]:6d} "
                   f"Act: {avgs[t] + 1:5d} Avg: {avgs[t]:5d} Max: {maxs[t]:8d}")
    return "\n".join(out) + "\n"


def irqsoff(rng, kernel, latency_us, culprit):
    name, stack = culprit
    cpu = rng.randint(0, 7)
    comm, pid = ("kswapd0", 90) if stack[-3] in ("balance_pgdat", "kswapd") else ("stress-ng-vm", rng.randint(2000, 9000))
    task = f"{comm}-{pid}"
    col = f" {task:>15}   {cpu}d..1."
    out = [
        "# tracer: irqsoff",
        "#",
        f"# irqsoff latency trace v1.1.5 on {kernel}",
        "# --------------------------------------------------------------------",
        f"# latency: {latency_us} us, #6/6, CPU#{cpu} | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:8)",
        "#    -----------------",
        f"#    | task: {task} (uid:0 nice:0 policy:0 rt_prio:0)",
        "#    -----------------",
        "#  => started at: _raw_spin_lock_irq+0x16/0x40",
        "#  => ended at:   _raw_spin_unlock_irq+0x10/0x30",
        "#",
        "#",
        "#                    _------=> CPU#            ",
        "#                   / _-----=> irqs-off/BH-disabled",
        "#                  | / _----=> need-resched    ",
        "#                  || / _---=> hardirq/softirq ",
        "#                  ||| / _--=> preempt-depth   ",
        "#                  |||| / _-=> migrate-disable ",
        "#                  ||||| /     delay           ",
        "#  cmd     pid     |||||| time  |   caller     ",
        "#     \\   /        ||||||  \\    |    /       ",
        f"{col}    0us : _raw_spin_lock_irq+0x16/0x40",
        f"{col}    0us*: {name}+0x0/0x3e0 <-{stack[0]}+0x10f/0x440",
        f"{col} {latency_us - 1:5d}us : __mod_node_page_state+0x0/0x70 <-{name}+0x2ee/0x3e0",
        f"{col} {latency_us:5d}us : _raw_spin_unlock_irq+0x0/0x30 <-{stack[0]}+0x16a/0x440",
        f"{col} {latency_us + 1:5d}us : tracer_hardirqs_on+0xcb/0xe0 <-_raw_spin_unlock_irq+0x10/0x30",
        f"{col} {latency_us + 8:5d}us : <stack trace>",
    ]
    out += [f" => {f}+0x{rng.randint(16, 900):x}/0x{rng.randint(1000, 2000):x}" for f in stack]
    return "\n".join(out) + "\n"


def mmtests(rng, kernel, parent, child, base):
    cols = [parent, child]
    w = max(len(c) for c in cols) + 3
    out = ["usemem", f"{'':16}" + "".join(f"{kernel:>{w}}" for _ in cols),
           f"{'':16}" + "".join(f"{c:>{w}}" for c in cols)]
    for stat in ("Amean", "Stddev"):
        for threads in (1, 4, 16, 64):
            a = base * threads ** 0.5 * (1 + rng.gauss(0, 0.01))
            b = a * (1 + rng.gauss(-0.03, 0.02))
            if stat == "Stddev":
                a, b = a * 0.02, b * 0.02
            pct = (a - b) / a * 100
            out.append(f"{stat:<8}{threads:<8}{a:>{w - 12}.4f} (   0.00%) {b:>{w - 12}.4f} ({pct:7.2f}%)")
    return "\n".join(out) + "\n"


def time_v(rng, secs):
    user, sys_ = secs * 0.2, secs * 0.7
    return (
        '\tCommand being timed: "stress-ng --vm 4 --vm-bytes 80% -t 60"\n'
        f"\tUser time (seconds): {user:.2f}\n\tSystem time (seconds): {sys_:.2f}\n"
        f"\tPercent of CPU this job got: {int((user + sys_) / secs * 100)}%\n"
        f"\tElapsed (wall clock) time (h:mm:ss or m:ss): {int(secs // 60)}:{secs % 60:05.2f}\n"
        "\tAverage shared text size (kbytes): 0\n\tAverage unshared data size (kbytes): 0\n"
        "\tAverage stack size (kbytes): 0\n\tAverage total size (kbytes): 0\n"
        f"\tMaximum resident set size (kbytes): {rng.randint(3000000, 3300000)}\n"
        "\tAverage resident set size (kbytes): 0\n"
        f"\tMajor (requiring I/O) page faults: {rng.randint(100, 5000)}\n"
        f"\tMinor (reclaiming a frame) page faults: {rng.randint(700000, 900000)}\n"
        f"\tVoluntary context switches: {rng.randint(1000, 9000)}\n"
        f"\tInvoluntary context switches: {rng.randint(100, 900)}\n"
        "\tSwaps: 0\n\tFile system inputs: 0\n\tFile system outputs: 0\n"
        "\tSocket messages sent: 0\n\tSocket messages received: 0\n\tSignals delivered: 0\n"
        "\tPage size (bytes): 4096\n\tExit status: 0\n"
    )


def upload_for(i):
    """Body and metadata of upload number i."""
    rng = random.Random(i)
    # Twenty series, each tested on its own base kernel, link by link, on
    # two boards; then the next night the same again.
    j = i % 2
    link = (i // 2) % LINKS + 1
    chain = (i // (2 * LINKS)) % CHAINS
    board = BOARDS[(chain + 4 * j) % len(BOARDS)]
    kernel = KERNELS[chain % len(KERNELS)]
    v = variant(chain, link)
    # Each link of a chain makes the worst case better, the boards differ.
    worst_scale = (40 + 30 * BOARDS.index(board)) * (1.4 - 0.15 * link)
    latency = int(rng.lognormvariate(0, 0.5) * worst_scale * 20) + 50
    culprit = CULPRITS[(chain + link) % len(CULPRITS)]
    parts = [cyclictest(rng, worst_scale), "\n", irqsoff(rng, kernel, latency, culprit)]
    if link > 1:
        parts += ["\n", mmtests(rng, kernel, variant(chain, link - 1), v, 100 + BOARDS.index(board))]
    parts += ["\n", time_v(rng, 60 + rng.gauss(0, 2))]
    meta = {"board": board, "kernel": kernel, "variant": v, "message_id": f"rig-{chain}-{link}@example.org"}
    if link > 1:
        meta["parent"] = variant(chain, link - 1)
    meta["tool_args"] = "cyclictest -q -m -h 400 -t 4 -i 1000 -l 100000"
    return "".join(parts), meta


def main():
    url, token, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    clients = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    u = urllib.parse.urlparse(url)
    lock = threading.Lock()
    state = {"next": 0, "runs": 0, "errors": []}

    def worker():
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
        while True:
            with lock:
                i = state["next"]
                if i >= n or state["errors"]:
                    return
                state["next"] += 1
            body, meta = upload_for(i)
            path = "/api/v1/uploads?" + urllib.parse.urlencode(meta)
            r = data = None
            for attempt in range(20):
                try:
                    conn.request("POST", path, body=body.encode(),
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "text/plain"})
                    r = conn.getresponse()
                    data = r.read()
                except (ConnectionError, http.client.HTTPException):
                    conn.close()
                    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
                    time.sleep(0.2 * (attempt + 1))
                    continue
                if r.status in (429, 503):  # the server asks to come back later
                    time.sleep(float(r.getheader("Retry-After") or 1))
                    continue
                break
            if r is None:
                with lock:
                    state["errors"].append(f"upload {i}: connection failed")
                return
            if r.status not in (200, 201):
                with lock:
                    state["errors"].append(f"upload {i}: {r.status} {data[:300]!r}")
                return
            with lock:
                state["runs"] += len(json.loads(data).get("runs", []))

    t0 = time.time()
    ts = [threading.Thread(target=worker) for _ in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.time() - t0
    if state["errors"]:
        print("\n".join(state["errors"][:5]), file=sys.stderr)
        sys.exit(1)
    print(f"uploads={n} runs={state['runs']} seconds={dt:.1f} uploads_per_s={n / dt:.1f}")


if __name__ == "__main__":
    main()
