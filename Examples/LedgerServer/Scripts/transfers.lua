-- wrk script: random transfers between the ledger's seeded accounts.
--
-- Environment:
--   LEDGER_ACCOUNTS  how many accounts were seeded, named acct-0 ... (default 16)
--   LEDGER_RUN       a tag that makes this run's references unique (default "run")
--   LEDGER_ACKS      a directory: each thread appends there the reference of every transfer
--                    answered 200 (one file per thread), for the kill test; unset for load.
-- done() prints one line: RESULT requests=... rps=... p50_us=... p99_us=... errors=...

local accounts = tonumber(os.getenv("LEDGER_ACCOUNTS") or "16")
local run = os.getenv("LEDGER_RUN") or "run"
local acks = os.getenv("LEDGER_ACKS")

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  table.insert(threads, thread)
  next_id = next_id + 1
end

function init(args)
  counter = 0
  math.randomseed(os.time() * 1000 + id)
  principal = "wrk-" .. run .. "-" .. id
  if acks ~= nil and acks ~= "" then
    ack_file = assert(io.open(acks .. "/acks-" .. run .. "-" .. id .. ".txt", "a"))
  end
end

function request()
  counter = counter + 1
  local from = math.random(0, accounts - 1)
  local to = math.random(0, accounts - 2)
  if to >= from then to = to + 1 end
  local reference = run .. "-" .. id .. "-" .. counter
  local body = string.format(
    '{"from":"acct-%d","to":"acct-%d","amount":%d,"reference":"%s"}',
    from, to, math.random(1, 5), reference)
  return wrk.format("POST", "/transfers",
    { ["Content-Type"] = "application/json", ["X-Principal"] = principal }, body)
end

if acks ~= nil and acks ~= "" then
  function response(status, headers, body)
    if status == 200 then
      local reference = string.match(body, '"reference":"([^"]+)"')
      if reference ~= nil then
        ack_file:write(reference .. "\n")
        ack_file:flush()
      end
    end
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d seconds=%.2f rps=%.0f p50_us=%d p99_us=%d errors_connect=%d errors_read=%d errors_write=%d errors_timeout=%d errors_status=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.timeout, e.status))
end
