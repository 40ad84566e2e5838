-- wrk script: each wrk thread is one rig (run with -t8 -c8, one connection
-- per thread) posting small cyclictest results, every one with numbers of
-- its own. KERNELS=same gives every rig the same kernel, KERNELS=distinct
-- one kernel per rig. TOKEN is an upload-scope token.
local counter = 0
local threads = {}

function setup(thread)
    thread:set("rig", counter)
    table.insert(threads, thread)
    counter = counter + 1
end

function init(args)
    -- Cycle counts unique across rounds: identical bytes would be replays.
    n = (os.time() % 1000000) * 1000
    local kernel = "6.13.0-rigbench"
    if os.getenv("KERNELS") == "distinct" then
        kernel = kernel .. "-" .. rig
    end
    path = "/api/v1/uploads?board=rigbench-" .. rig .. "&kernel=" .. kernel ..
        "&variant=rigbench-v" .. (rig % 3)
    headers = {
        ["Authorization"] = "Bearer " .. os.getenv("TOKEN"),
        ["Content-Type"] = "text/plain",
    }
    statuses = {}
end

function request()
    n = n + 1
    local body = ""
    for t = 0, 3 do
        body = body .. string.format(
            "T: %d ( %d) P:99 I:1000 C: %d Min:      1 Act:    3 Avg:    4 Max:   %d\n",
            t, 4000 + t, n, 100 + (rig * 7919 + n * 31 + t) % 900)
    end
    return wrk.format("POST", path, headers, body)
end

function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
    local bad = 0
    for _, t in ipairs(threads) do
        local s = t:get("statuses")
        for code, c in pairs(s) do
            if code ~= 201 then bad = bad + c end
        end
    end
    io.write(string.format("RIGS uploads=%d secs=%.2f rate=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f not201=%d errors=%d\n",
        summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, bad,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status +
        summary.errors.timeout))
end
