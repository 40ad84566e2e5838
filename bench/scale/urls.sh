# The URLs bench/scale.sh and bench/growth.sh measure, one "name path" a
# line, for the database in DATABASE_URL (run ids, the simulation and the
# permalink slug `$slug` come from it). Sourced.
# shellcheck shell=bash

run_id() { psql "$DATABASE_URL" -Atc "SELECT min(id) FROM runs WHERE block_kind = '$1'"; }
sim_id() { psql "$DATABASE_URL" -Atc "SELECT min(id) FROM simulations WHERE state = 'done'"; }
urls() {
    local hist trace table sim
    hist=$(run_id cyclictest); trace=$(run_id ftrace_latency); table=$(run_id table)
    sim=$(sim_id)
    cat <<EOF
home /
home_board /?board=rpi-5
run_histogram /runs/$hist
run_trace /runs/$trace
run_table /runs/$table
boards /boards
kernels /kernels
variants /variants
variant /variants/rig03-v5
compare_chain /compare?chain=rig03-v5
compare_boards /compare?c=board%3Arpi-5%3Bkernel%3A6.10.14&c=board%3Aarm64-ampere-80%3Bkernel%3A6.10.14
heatmap /heatmap
culprits /culprits
history /history?board=rpi-5
history_svg /history.svg?board=rpi-5
heatmap_svg /heatmap.svg
simulations /simulations
simulation /simulations/$sim
permalink /c/$slug
permalink_txt /c/$slug.txt
permalink_json /c/$slug.json
static_same_size /static/same-size.html
api_runs /api/v1/runs
api_runs_board /api/v1/runs?board=rpi-5
api_run /api/v1/runs/$hist
api_run_trace /api/v1/runs/$trace
api_simulation /api/v1/simulations/$sim
api_openapi /api/openapi.json
EOF
}
