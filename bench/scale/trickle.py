#!/usr/bin/env python3
"""Uploads at a steady rate while pages are measured: each is a commit,
so it changes the database snapshot that the page cache keys on.

    python3 bench/scale/trickle.py BASE TOKEN PER_SECOND

Posts 4-thread cyclictest summaries (numbers of their own, so none is a
replay) for board trickle-rig until killed; prints nothing unless an
upload is refused.
"""
import sys
import time
import urllib.request

base, token, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
n = int(time.time()) * 1000
step = 1.0 / rate
t = time.monotonic()
while True:
    n += 1
    body = "".join(
        f"T: {i} ( {4000 + i}) P:99 I:1000 C: {n} Min:      1 Act:    3 Avg:    4 Max:   {100 + (n * 31 + i) % 900}\n"
        for i in range(4)
    ).encode()
    req = urllib.request.Request(
        f"{base}/api/v1/uploads?board=trickle-rig&kernel=6.10.14&variant=trickle",
        data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "text/plain"},
    )
    try:
        with urllib.request.urlopen(req) as r:
            if r.status != 201:
                print(f"upload answered {r.status}", file=sys.stderr)
    except Exception as e:  # keep going: the measurement reports pages
        print(f"upload failed: {e}", file=sys.stderr)
    t += step
    time.sleep(max(0.0, t - time.monotonic()))
