#!/usr/bin/env bash
# Simulator benchmarks: engine vs bare heap loop, vs SimPy, V4 for 30
# simulated minutes, peak memory of V2 (384 GB machine).
#   bench/sim/run.sh [--quick]
# Needs: python3 with simpy (pip install simpy), /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
QUICK="${1:-}"
SIMPY_S=5

out=$(cargo bench -q -p reclaimlab-sim --bench engine -- $QUICK)
echo "$out"
rust=$(echo "$out" | sed -n 's/.*toy_wall_per_sim_s=\([0-9.]*\).*/\1/p')

py=$(python3 bench/sim/toy_lock_simpy.py "$SIMPY_S")
echo "simpy ($SIMPY_S s simulated): $py"
simpy=$(echo "$py" | sed -n 's/.*simpy_wall_per_sim_s=\([0-9.]*\).*/\1/p')
python3 -c "print(f'toy-lock wall per simulated second: rust {float(\"$rust\"):.6f} s, simpy {float(\"$simpy\"):.6f} s, ratio {float(\"$simpy\")/float(\"$rust\"):.1f}x (goal >= 50x)')"

cargo build -q --release -p reclaimlab-sim --example run_scenario
/usr/bin/time -v "$CARGO_TARGET_DIR/release/examples/run_scenario" v2-munmap-sections --replications 1 \
  2>&1 >/dev/null | grep -E "Maximum resident set size|Elapsed \(wall|events/s"
