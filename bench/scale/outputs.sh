#!/usr/bin/env bash
# Save what the comparison pages and permalinks answer, to compare two
# builds byte for byte on the same data set:
#
#   bash bench/scale/outputs.sh http://127.0.0.1:PORT TOKEN DIR
#   (same for the other build into DIR2), then: diff -r DIR DIR2
#
# Every chain's compare page and chart, board-vs-board and variant-vs-variant
# pages, and three permalinks (page, .txt, .json; made with the API, their
# slug and dates replaced so two builds' files compare equal).
set -euo pipefail
base="$1"; token="$2"; out="$3"
mkdir -p "$out"
get() { curl -sf "$base$2" -o "$out/$1" || { echo "GET $2 failed" >&2; exit 1; }; }
for n in 00 03 07 11 19; do
    get "chain-rig$n-v5.html" "/compare?chain=rig$n-v5"
    get "chain-rig$n-v3.html" "/compare?chain=rig$n-v3"
    get "chain-rig$n-v5.svg" "/compare/chart.svg?chain=rig$n-v5"
done
get boards.html "/compare?c=board%3Arpi-5%3Bkernel%3A6.10.14%2Bn1&c=board%3Aarm64-ampere-80%3Bkernel%3A6.10.14%2Bn1"
get variants.html "/compare?c=variant%3Arig03-v2&c=variant%3Arig03-v4&baseline=1&previous=on"
i=0
for body in '{"columns": [{"variant": "rig03-v1"}, {"variant": "rig03-v2"}, {"variant": "rig03-v3"}, {"variant": "rig03-v4"}, {"variant": "rig03-v5"}], "chain_previous": true}' \
            '{"columns": [{"variant": "rig07-v4"}, {"variant": "rig07-v5"}]}' \
            '{"columns": [{"variant": "rig11-v2"}, {"variant": "rig11-v3"}], "baseline": 1}'; do
    i=$((i + 1))
    slug=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "$body" \
        "$base/api/v1/comparisons" | python3 -c 'import json,sys; print(json.load(sys.stdin)["slug"])')
    for ext in "" .txt .json; do
        curl -sf "$base/c/$slug$ext" | sed -e "s/$slug/SLUG/g" -e "s|$base|BASE|g" \
            -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9][T ][0-9:.]*\(Z\|+00:00\| UTC\)\?/DATE/g' \
            >"$out/permalink-$i$ext"
    done
done
ls "$out" | wc -l
