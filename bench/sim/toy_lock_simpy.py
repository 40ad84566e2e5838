"""The toy-lock model in SimPy, for the engine comparison (bench/sim/run.sh).

8 periodic timers (interval 1000 + 500*i us) on 4 CPUs, 4 workers on one
spinlock (hold ~Exp(20 us), think ~Exp(5 us)). A timer whose CPU is inside
a lock section (spinning or holding, preemption off) runs when the section
ends; its wakeup path costs 1.8 us. Same model as the bare loop in
crates/sim/benches/engine.rs.

usage: python3 toy_lock_simpy.py SIM_SECONDS
prints: simpy_wall_per_sim_s=<s> events=<n> events_per_s=<n> max_lat_us=<n>
"""
import random
import sys
import time

import simpy

NCPU = 4


def main():
    sim_s = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    env = simpy.Environment()
    rng = random.Random(1)
    lock = simpy.Resource(env, capacity=1)
    in_section = [False] * NCPU
    section_end = [None] * NCPU
    max_lat = [0.0]

    def worker(i):
        while True:
            yield env.timeout(rng.expovariate(1 / 5000.0))
            in_section[i] = True
            section_end[i] = env.event()
            with lock.request() as req:
                yield req
                yield env.timeout(100 + rng.expovariate(1 / 20000.0))
            in_section[i] = False
            section_end[i].succeed()

    def timer(i):
        interval = (1000 + 500 * i) * 1000
        cpu = i % NCPU
        nxt = interval
        while True:
            yield env.timeout(nxt - env.now)
            if in_section[cpu]:
                yield section_end[cpu]
            yield env.timeout(1800)
            max_lat[0] = max(max_lat[0], env.now - nxt)
            nxt += interval
            while env.now > nxt:
                nxt += interval

    for w in range(NCPU):
        env.process(worker(w))
    for t in range(8):
        env.process(timer(t))
    t0 = time.perf_counter()
    env.run(until=sim_s * 1e9)
    wall = time.perf_counter() - t0
    events = next(env._eid)  # events scheduled by SimPy so far
    print(
        f"simpy_wall_per_sim_s={wall / sim_s:.6f} events={events} "
        f"events_per_s={events / wall:.0f} max_lat_us={max_lat[0] / 1000:.1f}"
    )


if __name__ == "__main__":
    main()
